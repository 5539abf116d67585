/*
 * model_transformer.c: depth Transformer encoder blocks (post-norm: multi-
 * head self-attention, residual, layer norm, ReLU feed-forward of 4 x width,
 * residual, layer norm) over batch sequences of seq tokens of width
 * features, then a per-token linear classifier and cross-entropy.
 * Heads are split by a reshape view and a permute copy, as frameworks do.
 */
#include <math.h>
#include <stdlib.h>

#include "models.h"

enum { P_WQ, P_WK, P_WV, P_WO, P_G1, P_B1, P_W1, P_C1, P_W2, P_C2, P_G2, P_B2, NP_BLOCK };

/* What the backward pass of one block needs. */
struct block_saved {
	struct rt_tensor *x, *qh, *kh, *vh, *p, *ctx, *r1, *st1, *y1, *f, *r2, *st2;
};

static const char *tr_check(const struct model_size *s)
{
	if (s->depth < 1)
		return "the Transformer needs --depth >= 1";
	if (s->heads < 1 || s->width % s->heads)
		return "the Transformer needs --width divisible by --heads";
	if (s->seq < 1)
		return "the Transformer needs --seq >= 1";
	return NULL;
}

static void tr_build(struct model *m)
{
	const struct model_size *s = &m->size;
	int64_t d = s->width, ff = 4 * d;
	float sd = 1.0f / sqrtf((float)d), sf = 1.0f / sqrtf((float)ff);
	for (int64_t l = 0; l < s->depth; l++) {
		for (int i = 0; i < 4; i++)
			model_param(m, 2, (int64_t[]){d, d}, 1.7f * sd, 0);
		model_param(m, 1, &d, 0.1f, 1);
		model_param(m, 1, &d, 0.1f, 0);
		model_param(m, 2, (int64_t[]){d, ff}, 1.7f * sd, 0);
		model_param(m, 1, &ff, 0.1f, 0);
		model_param(m, 2, (int64_t[]){ff, d}, 1.7f * sf, 0);
		model_param(m, 1, &d, 0.1f, 0);
		model_param(m, 1, &d, 0.1f, 1);
		model_param(m, 1, &d, 0.1f, 0);
	}
	model_param(m, 2, (int64_t[]){d, s->classes}, 1.7f * sd, 0);
	m->x = model_input(m, 2, (int64_t[]){s->batch * s->seq, d}, 1);
	m->labels = model_labels(m, s->batch * s->seq, s->classes);
}

/* [N, D] -> [B, H, S, D/H] */
static struct rt_tensor *split_heads(const struct model_size *s, struct rt_tensor *t)
{
	struct rt_tensor *v =
		rt_view(t, 4, (int64_t[]){s->batch, s->seq, s->heads, s->width / s->heads});
	struct rt_tensor *h = rt_permute0213(v);
	rt_release(v);
	return h;
}

/* [B, H, S, D/H] -> [N, D] */
static struct rt_tensor *merge_heads(const struct model_size *s, struct rt_tensor *t)
{
	struct rt_tensor *p = rt_permute0213(t);
	struct rt_tensor *v = rt_view(p, 2, (int64_t[]){s->batch * s->seq, s->width});
	rt_release(p);
	return v;
}

static struct rt_tensor *project_heads(const struct model_size *s, struct rt_tensor *x,
				       struct rt_tensor *w)
{
	struct rt_tensor *q = rt_mm(x, w, false, false);
	struct rt_tensor *h = split_heads(s, q);
	rt_release(q);
	return h;
}

/* One block forward; takes x. Saves what backward needs in sv (if not NULL). */
static struct rt_tensor *block_forward(struct model *m, struct rt_tensor **p, struct rt_tensor *x,
				       struct block_saved *sv)
{
	const struct model_size *s = &m->size;
	float scale = 1.0f / sqrtf((float)(s->width / s->heads));
	struct block_saved b = {.x = x};
	b.qh = project_heads(s, x, p[P_WQ]);
	b.kh = project_heads(s, x, p[P_WK]);
	b.vh = project_heads(s, x, p[P_WV]);
	struct rt_tensor *sc = rt_bmm(b.qh, b.kh, false, true, scale);
	b.p = rt_softmax(sc);
	rt_release(sc);
	struct rt_tensor *ctxh = rt_bmm(b.p, b.vh, false, false, 1);
	b.ctx = merge_heads(s, ctxh);
	rt_release(ctxh);
	struct rt_tensor *o = rt_mm(b.ctx, p[P_WO], false, false);
	b.r1 = rt_add(x, o);
	rt_release(o);
	b.y1 = rt_layernorm(b.r1, p[P_G1], p[P_B1], &b.st1);
	b.f = rt_mm(b.y1, p[P_W1], false, false);
	rt_bias_add_(b.f, p[P_C1]);
	rt_relu_(b.f);
	struct rt_tensor *f2 = rt_mm(b.f, p[P_W2], false, false);
	rt_bias_add_(f2, p[P_C2]);
	b.r2 = rt_add(b.y1, f2);
	rt_release(f2);
	struct rt_tensor *y2 = rt_layernorm(b.r2, p[P_G2], p[P_B2], &b.st2);
	if (sv) {
		*sv = b;
	} else {
		struct rt_tensor **all[] = {&b.x, &b.qh, &b.kh, &b.vh, &b.p, &b.ctx, &b.r1,
					    &b.st1, &b.y1, &b.f, &b.r2, &b.st2};
		for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
			rt_clear(all[i]);
	}
	return y2;
}

/* dx of the query/key/value projection from the heads' gradient dh. */
static struct rt_tensor *project_backward(struct model *m, const struct model_size *s,
					  struct rt_tensor *x, struct rt_tensor *w,
					  struct rt_tensor *dh)
{
	struct rt_tensor *d = merge_heads(s, dh);
	rt_release(dh);
	model_set_grad(m, w, rt_mm(x, d, true, false));
	struct rt_tensor *dx = rt_mm(d, w, false, true);
	rt_release(d);
	return dx;
}

/* One block backward; takes dy and the saved tensors; gives dx. */
static struct rt_tensor *block_backward(struct model *m, struct rt_tensor **p,
					struct block_saved *b, struct rt_tensor *dy)
{
	const struct model_size *s = &m->size;
	float scale = 1.0f / sqrtf((float)(s->width / s->heads));
	struct rt_tensor *dg, *db;
	struct rt_tensor *dr2 = rt_layernorm_backward(dy, b->r2, p[P_G2], b->st2, &dg, &db);
	rt_release(dy);
	rt_clear(&b->r2);
	rt_clear(&b->st2);
	model_set_grad(m, p[P_G2], dg);
	model_set_grad(m, p[P_B2], db);

	/* feed-forward: r2 = y1 + relu(y1 W1 + c1) W2 + c2 */
	model_set_grad(m, p[P_W2], rt_mm(b->f, dr2, true, false));
	model_set_grad(m, p[P_C2], rt_sum_rows(dr2));
	struct rt_tensor *df = rt_mm(dr2, p[P_W2], false, true);
	struct rt_tensor *dfa = rt_relu_backward(df, b->f);
	rt_release(df);
	rt_clear(&b->f);
	model_set_grad(m, p[P_W1], rt_mm(b->y1, dfa, true, false));
	model_set_grad(m, p[P_C1], rt_sum_rows(dfa));
	struct rt_tensor *dy1f = rt_mm(dfa, p[P_W1], false, true);
	rt_release(dfa);
	rt_clear(&b->y1);
	struct rt_tensor *dy1 = rt_add(dy1f, dr2);
	rt_release(dy1f);
	rt_release(dr2);

	/* attention: r1 = x + merge(softmax(q k^T * scale) v) Wo */
	struct rt_tensor *dr1 = rt_layernorm_backward(dy1, b->r1, p[P_G1], b->st1, &dg, &db);
	rt_release(dy1);
	rt_clear(&b->r1);
	rt_clear(&b->st1);
	model_set_grad(m, p[P_G1], dg);
	model_set_grad(m, p[P_B1], db);
	model_set_grad(m, p[P_WO], rt_mm(b->ctx, dr1, true, false));
	rt_clear(&b->ctx);
	struct rt_tensor *dctx = rt_mm(dr1, p[P_WO], false, true);
	struct rt_tensor *dctxh = split_heads(s, dctx);
	rt_release(dctx);
	struct rt_tensor *dp = rt_bmm(dctxh, b->vh, false, true, 1);
	struct rt_tensor *dvh = rt_bmm(b->p, dctxh, true, false, 1);
	rt_release(dctxh);
	rt_clear(&b->vh);
	struct rt_tensor *dsc = rt_softmax_backward(dp, b->p);
	rt_release(dp);
	rt_clear(&b->p);
	struct rt_tensor *dqh = rt_bmm(dsc, b->kh, false, false, scale);
	struct rt_tensor *dkh = rt_bmm(dsc, b->qh, true, false, scale);
	rt_release(dsc);
	rt_clear(&b->qh);
	rt_clear(&b->kh);

	struct rt_tensor *dx = dr1;
	struct rt_tensor *parts[3] = {
		project_backward(m, s, b->x, p[P_WQ], dqh),
		project_backward(m, s, b->x, p[P_WK], dkh),
		project_backward(m, s, b->x, p[P_WV], dvh),
	};
	rt_clear(&b->x);
	for (int i = 0; i < 3; i++) {
		struct rt_tensor *sum = rt_add(dx, parts[i]);
		rt_release(dx);
		rt_release(parts[i]);
		dx = sum;
	}
	return dx;
}

static float tr_run(struct model *m, enum model_mode mode)
{
	const struct model_size *s = &m->size;
	int64_t depth = s->depth;
	bool bwd = mode != MODEL_FORWARD;
	struct block_saved *saved = xcalloc((size_t)depth, sizeof *saved);
	struct rt_tensor *h = rt_retain(m->x);
	for (int64_t l = 0; l < depth; l++)
		h = block_forward(m, m->params + l * NP_BLOCK, h, bwd ? &saved[l] : NULL);
	struct rt_tensor *wout = m->params[depth * NP_BLOCK];
	struct rt_tensor *logits = rt_mm(h, wout, false, false);
	struct rt_tensor *loss_t = rt_xent(logits, m->labels);
	float loss = rt_scalar(loss_t);
	rt_release(loss_t);
	if (!bwd) {
		rt_release(logits);
		rt_release(h);
		free(saved);
		return loss;
	}

	rt_backward(m->rt);
	struct rt_tensor *dl = rt_xent_backward(logits, m->labels);
	rt_release(logits);
	model_set_grad(m, wout, rt_mm(h, dl, true, false));
	rt_release(h);
	struct rt_tensor *dh = rt_mm(dl, wout, false, true);
	rt_release(dl);
	for (int64_t l = depth - 1; l >= 0; l--)
		dh = block_backward(m, m->params + l * NP_BLOCK, &saved[l], dh);
	rt_release(dh); /* the input's gradient: no parameter */
	free(saved);
	return loss;
}

const struct model_desc model_transformer = {
	.name = "transformer",
	.title = "Transformer",
	.defaults = {.batch = 8, .width = 256, .depth = 4, .seq = 128, .heads = 8, .classes = 10},
	.tiny = {.batch = 2, .width = 4, .depth = 2, .seq = 3, .heads = 2, .classes = 3},
	.uses = "batch, width (model dimension), depth (blocks), seq (tokens), heads",
	.check = tr_check,
	.build = tr_build,
	.run = tr_run,
};
