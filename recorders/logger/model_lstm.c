/*
 * model_lstm.c: an LSTM of depth layers of width units, unrolled over seq
 * time steps of a batch of sequences of width features; the last layer's
 * final state feeds a linear classifier and cross-entropy. Each time step
 * of the input is a view (select) of the sequence; each layer hands its
 * outputs to the next as second handles (COPY), as a list of outputs would.
 */
#include <math.h>
#include <stdlib.h>

#include "models.h"

enum { P_WIH, P_WHH, P_B, NP_LAYER };

static const char *lstm_check(const struct model_size *s)
{
	if (s->depth < 1)
		return "the LSTM needs --depth >= 1";
	if (s->seq < 1)
		return "the LSTM needs --seq >= 1";
	return NULL;
}

static void lstm_build(struct model *m)
{
	const struct model_size *s = &m->size;
	int64_t w = s->width, g = 4 * w;
	float sc = 1.0f / sqrtf((float)w);
	for (int64_t l = 0; l < s->depth; l++) {
		model_param(m, 2, (int64_t[]){w, g}, sc, 0);
		model_param(m, 2, (int64_t[]){w, g}, sc, 0);
		model_param(m, 1, &g, 0.1f, 0);
	}
	model_param(m, 2, (int64_t[]){w, s->classes}, 1.7f * sc, 0);
	model_param(m, 1, &s->classes, 0.1f, 0);
	m->x = model_input(m, 3, (int64_t[]){s->seq, s->batch, w}, 1);
	m->labels = model_labels(m, s->batch, s->classes);
}

static float lstm_run(struct model *m, enum model_mode mode)
{
	const struct model_size *s = &m->size;
	int64_t depth = s->depth, seq = s->seq;
	size_t n = (size_t)(seq + 1);
	bool bwd = mode != MODEL_FORWARD;
	/* Per layer: in[t] its inputs, h[t + 1]/c[t + 1] states after step t, act[t]. */
	struct rt_tensor ***in = xcalloc((size_t)depth + 1, sizeof *in);
	struct rt_tensor ***h = xcalloc((size_t)depth, sizeof *h);
	struct rt_tensor ***c = xcalloc((size_t)depth, sizeof *c);
	struct rt_tensor ***act = xcalloc((size_t)depth, sizeof *act);
	in[0] = xcalloc(n, sizeof **in);
	for (int64_t t = 0; t < seq; t++)
		in[0][t] = rt_select(m->x, t);
	int64_t state[2] = {s->batch, s->width};
	for (int64_t l = 0; l < depth; l++) {
		struct rt_tensor **p = m->params + l * NP_LAYER;
		in[l + 1] = xcalloc(n, sizeof **in);
		h[l] = xcalloc(n, sizeof **h);
		c[l] = xcalloc(n, sizeof **c);
		act[l] = xcalloc(n, sizeof **act);
		h[l][0] = rt_zeros(m->rt, 2, state);
		c[l][0] = rt_zeros(m->rt, 2, state);
		for (int64_t t = 0; t < seq; t++) {
			struct rt_tensor *gi = rt_mm(in[l][t], p[P_WIH], false, false);
			struct rt_tensor *gh = rt_mm(h[l][t], p[P_WHH], false, false);
			struct rt_tensor *gates = rt_add(gi, gh);
			rt_release(gi);
			rt_release(gh);
			rt_bias_add_(gates, p[P_B]);
			h[l][t + 1] = rt_lstm_cell(gates, c[l][t], &c[l][t + 1], &act[l][t]);
			rt_release(gates);
			if (l + 1 < depth)
				in[l + 1][t] = rt_copy(h[l][t + 1]);
			if (!bwd) { /* nothing is saved: drop the previous step at once */
				rt_clear(&h[l][t]);
				rt_clear(&c[l][t]);
				rt_clear(&act[l][t]);
				rt_clear(&in[l][t]);
			}
		}
		if (!bwd)
			rt_clear(&c[l][seq]);
	}
	struct rt_tensor *top = h[depth - 1][seq];
	struct rt_tensor *wout = m->params[depth * NP_LAYER], *bout = m->params[depth * NP_LAYER + 1];
	struct rt_tensor *logits = rt_mm(top, wout, false, false);
	rt_bias_add_(logits, bout);
	struct rt_tensor *loss_t = rt_xent(logits, m->labels);
	float loss = rt_scalar(loss_t);
	rt_release(loss_t);
	if (!bwd) {
		rt_release(logits);
		for (int64_t l = 0; l < depth; l++)
			rt_clear(&h[l][seq]);
		goto out;
	}

	rt_backward(m->rt);
	struct rt_tensor *dl = rt_xent_backward(logits, m->labels);
	rt_release(logits);
	model_set_grad(m, wout, rt_mm(top, dl, true, false));
	model_set_grad(m, bout, rt_sum_rows(dl));
	/* dabove[t]: gradient of layer l's output at step t from above. */
	struct rt_tensor **dabove = xcalloc(n, sizeof *dabove), **dbelow = xcalloc(n, sizeof *dbelow);
	dabove[seq - 1] = rt_mm(dl, wout, false, true);
	rt_release(dl);
	for (int64_t l = 0; l < depth; l++)
		rt_clear(&h[l][seq]); /* final states: only the classifier read them */
	for (int64_t l = depth - 1; l >= 0; l--) {
		struct rt_tensor **p = m->params + l * NP_LAYER;
		struct rt_tensor *dh_next = NULL, *dc_next = NULL, *dwih = NULL, *dwhh = NULL,
				 *db = NULL;
		for (int64_t t = seq - 1; t >= 0; t--) {
			struct rt_tensor *dh;
			if (dabove[t] && dh_next) {
				dh = rt_add(dabove[t], dh_next);
				rt_clear(&dabove[t]);
				rt_clear(&dh_next);
			} else {
				dh = dabove[t] ? dabove[t] : dh_next;
				dabove[t] = dh_next = NULL;
			}
			struct rt_tensor *dc_prev;
			struct rt_tensor *dg = rt_lstm_cell_backward(dh, dc_next, act[l][t], c[l][t],
								    c[l][t + 1], &dc_prev);
			rt_release(dh);
			rt_clear(&dc_next);
			rt_clear(&act[l][t]);
			rt_clear(&c[l][t + 1]);
			dc_next = dc_prev;
			model_accumulate(&dwih, rt_mm(in[l][t], dg, true, false));
			model_accumulate(&dwhh, rt_mm(h[l][t], dg, true, false));
			model_accumulate(&db, rt_sum_rows(dg));
			rt_clear(&in[l][t]);
			rt_clear(&h[l][t]);
			if (l > 0)
				dbelow[t] = rt_mm(dg, p[P_WIH], false, true);
			if (t > 0)
				dh_next = rt_mm(dg, p[P_WHH], false, true);
			rt_release(dg);
		}
		rt_clear(&dc_next);
		rt_clear(&c[l][0]);
		model_set_grad(m, p[P_WIH], dwih);
		model_set_grad(m, p[P_WHH], dwhh);
		model_set_grad(m, p[P_B], db);
		struct rt_tensor **tmp = dabove;
		dabove = dbelow;
		dbelow = tmp;
	}
	free(dabove);
	free(dbelow);
out:
	for (int64_t l = 0; l < depth; l++) {
		free(h[l]);
		free(c[l]);
		free(act[l]);
	}
	for (int64_t l = 0; l <= depth; l++)
		free(in[l]);
	free(in);
	free(h);
	free(c);
	free(act);
	return loss;
}

const struct model_desc model_lstm = {
	.name = "lstm",
	.title = "LSTM",
	.defaults = {.batch = 64, .width = 256, .depth = 2, .seq = 32, .classes = 10},
	.tiny = {.batch = 2, .width = 3, .depth = 2, .seq = 3, .classes = 3},
	.uses = "batch, width (units and input features), depth (layers), seq (time steps)",
	.check = lstm_check,
	.build = lstm_build,
	.run = lstm_run,
};
