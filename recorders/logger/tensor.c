/*
 * tensor.c: the runtime's dispatcher (see tensor.h). Each op: check shapes
 * (a mismatch is our bug), allocate the results, time the kernel launch on
 * the backend, record CALL/MUTATE with each result's bytes and alias.
 *
 * A dry run goes through the same code with no memory and no kernels, so
 * that the record program knows the exact bytes it will allocate before it
 * allocates any.
 */
#include "tensor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


struct rt *rt_new(const struct backend *be, const struct backend_info *info,
		  struct oplog *log, bool dry)
{
	struct rt *rt = xcalloc(1, sizeof *rt);
	rt->be = be;
	rt->info = *info;
	rt->log = log;
	rt->dry = dry;
	return rt;
}

void rt_free(struct rt *rt)
{
	if (rt->head)
		rs_bug("rt_free: tensor %s is still alive", rt->head->name);
	free(rt);
}

int64_t rt_shape_numel(int ndim, const int64_t *shape)
{
	int64_t n = 1;
	for (int i = 0; i < ndim; i++)
		if (shape[i] < 0 || __builtin_mul_overflow(n, shape[i], &n))
			return -1;
	return n;
}

static float *F(const struct rt_tensor *t)
{
	return t && t->st->data ? (float *)t->st->data + t->offset : NULL;
}

static void check_log(struct rt *rt, int rc)
{
	if (rc)
		rs_bug("op log: %s", oplog_error(rt->log)->msg);
}

static struct rt_tensor *new_handle(struct rt *rt, struct rt_storage *st, int ndim,
				    const int64_t *shape, int64_t offset)
{
	struct rt_tensor *t = xcalloc(1, sizeof *t);
	if (rt->log)
		oplog_new_name(rt->log, t->name);
	else
		snprintf(t->name, sizeof t->name, "x%llu", (unsigned long long)rt->next_name++);
	t->refs = 1;
	t->rt = rt;
	t->st = st;
	st->handles++;
	t->offset = offset;
	t->ndim = ndim;
	memcpy(t->shape, shape, (size_t)ndim * sizeof *shape);
	t->numel = rt_shape_numel(ndim, shape);
	t->prev = rt->tail;
	if (rt->tail)
		rt->tail->next = t;
	else
		rt->head = t;
	rt->tail = t;
	return t;
}

/* A new tensor with its own storage (uninitialised). */
static struct rt_tensor *empty(struct rt *rt, int ndim, const int64_t *shape)
{
	if (ndim < 0 || ndim > RT_MAX_DIMS)
		rs_bug("tensor of %d dimensions", ndim);
	int64_t n = rt_shape_numel(ndim, shape);
	uint64_t bytes;
	if (n < 0 || __builtin_mul_overflow((uint64_t)n, (uint64_t)sizeof(float), &bytes)) {
		if (!rt->dry)
			rs_bug("tensor size overflows");
		rt->too_large = true;
		bytes = UINT64_MAX / 4;
	}
	struct rt_storage *st = xcalloc(1, sizeof *st);
	st->bytes = bytes;
	if (!rt->dry) {
		st->data = rt->be->alloc((size_t)bytes);
		if (!st->data) {
			fprintf(stderr,
				"rematsim-record: out of %s memory allocating %llu bytes "
				"(%llu bytes live)\n",
				rt->be->name, (unsigned long long)bytes,
				(unsigned long long)rt->alloc_live_bytes);
			exit(EXIT_UNAVAILABLE);
		}
	}
	if (__builtin_add_overflow(rt->alloc_live_bytes, bytes, &rt->alloc_live_bytes)) {
		rt->too_large = true;
		rt->alloc_live_bytes = UINT64_MAX / 2;
	}
	if (rt->alloc_live_bytes > rt->alloc_peak_bytes)
		rt->alloc_peak_bytes = rt->alloc_live_bytes;
	if (rt->dry && rt->alloc_live_bytes > (UINT64_MAX >> 8))
		rt->too_large = true;
	return new_handle(rt, st, ndim, shape, 0);
}

struct rt_tensor *rt_retain(struct rt_tensor *t)
{
	t->refs++;
	return t;
}

void rt_release(struct rt_tensor *t)
{
	if (--t->refs > 0)
		return;
	struct rt *rt = t->rt;
	if (rt->log)
		check_log(rt, oplog_release(rt->log, t->name));
	if (t->prev)
		t->prev->next = t->next;
	else
		rt->head = t->next;
	if (t->next)
		t->next->prev = t->prev;
	else
		rt->tail = t->prev;
	if (--t->st->handles == 0) {
		if (t->st->data)
			rt->be->free(t->st->data);
		rt->alloc_live_bytes -= t->st->bytes;
		free(t->st);
	}
	free(t);
}

void rt_clear(struct rt_tensor **t)
{
	if (*t)
		rt_release(*t);
	*t = NULL;
}

/* ---- timing and recording ---- */

static void tick(struct rt *rt)
{
	if (!rt->dry)
		rt->be->timer_start();
}

static uint64_t tock(struct rt *rt)
{
	uint64_t ns = rt->dry ? 0 : rt->be->timer_stop();
	rt->ops++;
	rt->op_time_ns += ns;
	return ns;
}

/*
 * An op's costs from its shapes (docs/llm.md, "The C logger's costs"):
 * bytes: every argument read whole, every new result written (a view moves
 * nothing; an in-place op writes its first argument); flops: 2 * numel(a)
 * * N for the products (mm, bmm: a is [.., M, K] or its transpose, the
 * result [.., M, N]), else one per element of the largest tensor.
 */
static void set_costs(struct rt *rt, const char *op, int nargs, struct rt_tensor **args,
		      int nres, struct rt_tensor **res, const int *alias, bool in_place)
{
	uint64_t bytes = 0, flops = 0, most = 0;
	bool any_new = in_place;
	for (int i = 0; i < nargs; i++) {
		uint64_t n = (uint64_t)args[i]->numel;
		most = n > most ? n : most;
	}
	for (int i = 0; i < nres; i++) {
		uint64_t n = (uint64_t)res[i]->numel;
		most = n > most ? n : most;
		if (!alias || alias[i] < 0) {
			bytes += n * sizeof(float);
			any_new = true;
		}
	}
	if (any_new)
		for (int i = 0; i < nargs; i++)
			bytes += (uint64_t)args[i]->numel * sizeof(float);
	if (in_place && nargs)
		bytes += (uint64_t)args[0]->numel * sizeof(float);
	if ((!strcmp(op, "mm") || !strcmp(op, "bmm")) && nargs == 2 && nres == 1)
		flops = 2 * (uint64_t)args[0]->numel * (uint64_t)res[0]->shape[res[0]->ndim - 1];
	else if (any_new)
		flops = most;
	oplog_set_costs(rt->log, flops, bytes);
}

static void record_call(struct rt *rt, const char *op, int nargs, struct rt_tensor **args,
			int nres, struct rt_tensor **res, const int *alias, uint64_t ns)
{
	if (!rt->log)
		return;
	if (rt->costs)
		set_costs(rt, op, nargs, args, nres, res, alias, false);
	const char *an[8], *rn[8];
	uint64_t bytes[8];
	int al[8];
	for (int i = 0; i < nargs; i++)
		an[i] = args[i]->name;
	for (int i = 0; i < nres; i++) {
		rn[i] = res[i]->name;
		bytes[i] = res[i]->st->bytes;
		al[i] = alias ? alias[i] : -1;
	}
	check_log(rt, oplog_call(rt->log, op, (size_t)nargs, an, (size_t)nres, rn, bytes, al, ns));
}

static void record_mutate(struct rt *rt, const char *op, int nargs, struct rt_tensor **args,
			  uint64_t ns)
{
	if (!rt->log)
		return;
	if (rt->costs)
		set_costs(rt, op, nargs, args, 0, NULL, NULL, true);
	const char *an[8];
	for (int i = 0; i < nargs; i++)
		an[i] = args[i]->name;
	check_log(rt, oplog_mutate(rt->log, op, (size_t)nargs, an, 1, (const int[]){0}, ns));
}

#define ARGS(...) (struct rt_tensor *[]){__VA_ARGS__}
#define NARGS(...) ((int)(sizeof ARGS(__VA_ARGS__) / sizeof(struct rt_tensor *)))
/* Record a CALL of OP with arguments (...) and the results array RES. */
#define CALL(rt, op, nres, res, alias, ns, ...) \
	record_call(rt, op, NARGS(__VA_ARGS__), ARGS(__VA_ARGS__), nres, res, alias, ns)

static void need(bool ok, const char *op, const char *what)
{
	if (!ok)
		rs_bug("%s: %s", op, what);
}

static int64_t last_dim(const struct rt_tensor *t)
{
	return t->shape[t->ndim - 1];
}

static bool same_shape(const struct rt_tensor *a, const struct rt_tensor *b)
{
	return a->ndim == b->ndim && !memcmp(a->shape, b->shape, (size_t)a->ndim * sizeof(int64_t));
}

/* ---- handles ---- */

struct rt_tensor *rt_constant(struct rt *rt, int ndim, const int64_t *shape, const float *host)
{
	struct rt_tensor *t = empty(rt, ndim, shape);
	if (!rt->dry) {
		if (host)
			rt->be->upload(F(t), host, (size_t)t->st->bytes);
		else
			rt->be->fill(F(t), 0, t->numel);
	}
	if (rt->log)
		check_log(rt, oplog_constant(rt->log, t->name, t->st->bytes));
	return t;
}

struct rt_tensor *rt_copy(struct rt_tensor *t)
{
	struct rt_tensor *c = new_handle(t->rt, t->st, t->ndim, t->shape, t->offset);
	if (t->rt->log)
		check_log(t->rt, oplog_copy(t->rt->log, c->name, t->name));
	return c;
}

void rt_read(struct rt_tensor *t, float *host)
{
	if (!t->rt->dry)
		t->rt->be->download(host, F(t), (size_t)t->numel * sizeof(float));
	else
		memset(host, 0, (size_t)t->numel * sizeof(float));
}

void rt_write(struct rt_tensor *t, const float *host)
{
	if (!t->rt->dry)
		t->rt->be->upload(F(t), host, (size_t)t->numel * sizeof(float));
}

float rt_scalar(struct rt_tensor *t)
{
	float v = 0;
	if (!t->rt->dry)
		t->rt->be->download(&v, F(t), sizeof v);
	return v;
}

void rt_start(struct rt *rt)
{
	if (!rt->log)
		return;
	check_log(rt, oplog_annotate(rt->log, OPLOG_START));
	/*
	 * A replay skips everything before START, so every tensor alive now
	 * is declared again, under a new name: the first handle of each
	 * storage as a CONSTANT, further handles as COPYs of it.
	 */
	rt->start_gen++;
	for (struct rt_tensor *t = rt->head; t; t = t->next) {
		char name[24];
		oplog_new_name(rt->log, name);
		if (t->st->start_gen == rt->start_gen) {
			check_log(rt, oplog_copy(rt->log, name, t->st->start_name));
		} else {
			check_log(rt, oplog_constant(rt->log, name, t->st->bytes));
			t->st->start_gen = rt->start_gen;
			memcpy(t->st->start_name, name, sizeof name);
		}
		memcpy(t->name, name, sizeof name);
	}
}

void rt_backward(struct rt *rt)
{
	if (rt->log)
		check_log(rt, oplog_annotate(rt->log, OPLOG_BACKWARD));
}

/* ---- ops ---- */

struct rt_tensor *rt_zeros(struct rt *rt, int ndim, const int64_t *shape)
{
	struct rt_tensor *y = empty(rt, ndim, shape);
	tick(rt);
	if (!rt->dry)
		rt->be->fill(F(y), 0, y->numel);
	uint64_t ns = tock(rt);
	if (rt->log && rt->costs)
		oplog_set_costs(rt->log, 0, (uint64_t)y->st->bytes);
	if (rt->log)
		check_log(rt, oplog_call(rt->log, "zeros", 0, NULL, 1,
					 (const char *const[]){y->name},
					 (const uint64_t[]){y->st->bytes}, (const int[]){-1}, ns));
	return y;
}

struct rt_tensor *rt_view(struct rt_tensor *t, int ndim, const int64_t *shape)
{
	struct rt *rt = t->rt;
	need(ndim > 0 && ndim <= RT_MAX_DIMS && rt_shape_numel(ndim, shape) == t->numel, "view",
	     "element count differs");
	tick(rt);
	struct rt_tensor *v = new_handle(rt, t->st, ndim, shape, t->offset);
	CALL(rt, "view", 1, &v, (const int[]){0}, tock(rt), t);
	return v;
}

struct rt_tensor *rt_select(struct rt_tensor *t, int64_t i)
{
	struct rt *rt = t->rt;
	need(t->ndim > 1 && i >= 0 && i < t->shape[0], "select", "index out of range");
	tick(rt);
	struct rt_tensor *v =
		new_handle(rt, t->st, t->ndim - 1, t->shape + 1, t->offset + i * (t->numel / t->shape[0]));
	CALL(rt, "select", 1, &v, (const int[]){0}, tock(rt), t);
	return v;
}

struct rt_tensor *rt_mm(struct rt_tensor *a, struct rt_tensor *b, bool ta, bool tb)
{
	struct rt *rt = a->rt;
	need(a->ndim == 2 && b->ndim == 2, "mm", "not matrices");
	int64_t m = ta ? a->shape[1] : a->shape[0], k = ta ? a->shape[0] : a->shape[1];
	int64_t kb = tb ? b->shape[1] : b->shape[0], n = tb ? b->shape[0] : b->shape[1];
	need(k == kb, "mm", "inner dimensions differ");
	struct rt_tensor *y = empty(rt, 2, (int64_t[]){m, n});
	tick(rt);
	if (!rt->dry)
		rt->be->gemm(1, ta, tb, m, n, k, 1, F(a), 0, F(b), 0, 0, F(y), 0);
	CALL(rt, "mm", 1, &y, NULL, tock(rt), a, b);
	return y;
}

struct rt_tensor *rt_bmm(struct rt_tensor *a, struct rt_tensor *b, bool ta, bool tb,
			 float alpha)
{
	struct rt *rt = a->rt;
	need(a->ndim >= 3 && a->ndim == b->ndim &&
		     !memcmp(a->shape, b->shape, (size_t)(a->ndim - 2) * sizeof(int64_t)),
	     "bmm", "batch dimensions differ");
	int d = a->ndim;
	int64_t ar = a->shape[d - 2], ac = a->shape[d - 1], br = b->shape[d - 2],
		bc = b->shape[d - 1];
	int64_t m = ta ? ac : ar, k = ta ? ar : ac, kb = tb ? bc : br, n = tb ? br : bc;
	need(k == kb, "bmm", "inner dimensions differ");
	int64_t shape[RT_MAX_DIMS];
	memcpy(shape, a->shape, sizeof shape);
	shape[d - 2] = m;
	shape[d - 1] = n;
	int64_t batch = a->numel / (ar * ac);
	struct rt_tensor *y = empty(rt, d, shape);
	tick(rt);
	if (!rt->dry)
		rt->be->gemm(batch, ta, tb, m, n, k, alpha, F(a), ar * ac, F(b), br * bc, 0, F(y),
			     m * n);
	CALL(rt, "bmm", 1, &y, NULL, tock(rt), a, b);
	return y;
}

struct rt_tensor *rt_add(struct rt_tensor *a, struct rt_tensor *b)
{
	struct rt *rt = a->rt;
	need(a->numel == b->numel, "add", "sizes differ");
	struct rt_tensor *y = empty(rt, a->ndim, a->shape);
	tick(rt);
	if (!rt->dry)
		rt->be->axpby(F(y), 1, F(a), 1, F(b), y->numel);
	CALL(rt, "add", 1, &y, NULL, tock(rt), a, b);
	return y;
}

void rt_add_(struct rt_tensor *a, struct rt_tensor *b)
{
	struct rt *rt = a->rt;
	need(a->numel == b->numel, "add_", "sizes differ");
	tick(rt);
	if (!rt->dry)
		rt->be->axpby(F(a), 1, F(a), 1, F(b), a->numel);
	record_mutate(rt, "add_", 2, ARGS(a, b), tock(rt));
}

void rt_sub_(struct rt_tensor *w, struct rt_tensor *g, float lr)
{
	struct rt *rt = w->rt;
	need(w->numel == g->numel, "sub_", "sizes differ");
	tick(rt);
	if (!rt->dry)
		rt->be->axpby(F(w), 1, F(w), -lr, F(g), w->numel);
	record_mutate(rt, "sub_", 2, ARGS(w, g), tock(rt));
}

struct rt_tensor *rt_bias_add(struct rt_tensor *x, struct rt_tensor *bias)
{
	struct rt *rt = x->rt;
	need(bias->numel == last_dim(x), "add_bias", "bias size");
	struct rt_tensor *y = empty(rt, x->ndim, x->shape);
	tick(rt);
	if (!rt->dry)
		rt->be->bias_add(F(y), F(x), F(bias), x->numel / bias->numel, bias->numel);
	CALL(rt, "add_bias", 1, &y, NULL, tock(rt), x, bias);
	return y;
}

void rt_bias_add_(struct rt_tensor *x, struct rt_tensor *bias)
{
	struct rt *rt = x->rt;
	need(bias->numel == last_dim(x), "add_bias_", "bias size");
	tick(rt);
	if (!rt->dry)
		rt->be->bias_add(F(x), F(x), F(bias), x->numel / bias->numel, bias->numel);
	record_mutate(rt, "add_bias_", 2, ARGS(x, bias), tock(rt));
}

struct rt_tensor *rt_sum_rows(struct rt_tensor *x)
{
	struct rt *rt = x->rt;
	int64_t cols = last_dim(x);
	struct rt_tensor *y = empty(rt, 1, &cols);
	tick(rt);
	if (!rt->dry)
		rt->be->sum_rows(F(y), F(x), x->numel / cols, cols);
	CALL(rt, "sum_rows", 1, &y, NULL, tock(rt), x);
	return y;
}

struct rt_tensor *rt_relu(struct rt_tensor *x)
{
	struct rt *rt = x->rt;
	struct rt_tensor *y = empty(rt, x->ndim, x->shape);
	tick(rt);
	if (!rt->dry)
		rt->be->relu(F(y), F(x), x->numel);
	CALL(rt, "relu", 1, &y, NULL, tock(rt), x);
	return y;
}

void rt_relu_(struct rt_tensor *x)
{
	struct rt *rt = x->rt;
	tick(rt);
	if (!rt->dry)
		rt->be->relu(F(x), F(x), x->numel);
	record_mutate(rt, "relu_", 1, ARGS(x), tock(rt));
}

struct rt_tensor *rt_relu_backward(struct rt_tensor *dy, struct rt_tensor *y)
{
	struct rt *rt = y->rt;
	need(dy->numel == y->numel, "relu_backward", "sizes differ");
	struct rt_tensor *dx = empty(rt, y->ndim, y->shape);
	tick(rt);
	if (!rt->dry)
		rt->be->relu_backward(F(dx), F(dy), F(y), y->numel);
	CALL(rt, "threshold_backward", 1, &dx, NULL, tock(rt), dy, y);
	return dx;
}

struct rt_tensor *rt_xent(struct rt_tensor *logits, struct rt_tensor *labels)
{
	struct rt *rt = logits->rt;
	int64_t cols = last_dim(logits), rows = logits->numel / cols, one = 1;
	need(labels->numel == rows, "cross_entropy", "one label per row");
	struct rt_tensor *y = empty(rt, 1, &one);
	tick(rt);
	if (!rt->dry)
		rt->be->xent(F(y), F(logits), F(labels), rows, cols);
	CALL(rt, "cross_entropy", 1, &y, NULL, tock(rt), logits, labels);
	return y;
}

struct rt_tensor *rt_xent_backward(struct rt_tensor *logits, struct rt_tensor *labels)
{
	struct rt *rt = logits->rt;
	int64_t cols = last_dim(logits), rows = logits->numel / cols;
	need(labels->numel == rows, "cross_entropy_backward", "one label per row");
	struct rt_tensor *d = empty(rt, logits->ndim, logits->shape);
	tick(rt);
	if (!rt->dry)
		rt->be->xent_backward(F(d), F(logits), F(labels), rows, cols);
	CALL(rt, "cross_entropy_backward", 1, &d, NULL, tock(rt), logits, labels);
	return d;
}

struct rt_tensor *rt_softmax(struct rt_tensor *x)
{
	struct rt *rt = x->rt;
	int64_t cols = last_dim(x);
	struct rt_tensor *y = empty(rt, x->ndim, x->shape);
	tick(rt);
	if (!rt->dry)
		rt->be->softmax(F(y), F(x), x->numel / cols, cols);
	CALL(rt, "softmax", 1, &y, NULL, tock(rt), x);
	return y;
}

struct rt_tensor *rt_softmax_backward(struct rt_tensor *dy, struct rt_tensor *y)
{
	struct rt *rt = y->rt;
	need(same_shape(dy, y), "softmax_backward", "shapes differ");
	int64_t cols = last_dim(y);
	struct rt_tensor *dx = empty(rt, y->ndim, y->shape);
	tick(rt);
	if (!rt->dry)
		rt->be->softmax_backward(F(dx), F(dy), F(y), y->numel / cols, cols);
	CALL(rt, "softmax_backward", 1, &dx, NULL, tock(rt), dy, y);
	return dx;
}

struct rt_tensor *rt_layernorm(struct rt_tensor *x, struct rt_tensor *gamma,
			       struct rt_tensor *beta, struct rt_tensor **stats)
{
	struct rt *rt = x->rt;
	int64_t cols = last_dim(x), rows = x->numel / cols;
	need(gamma->numel == cols && beta->numel == cols, "layer_norm", "parameter size");
	struct rt_tensor *y = empty(rt, x->ndim, x->shape);
	*stats = empty(rt, 2, (int64_t[]){rows, 2});
	tick(rt);
	if (!rt->dry)
		rt->be->layernorm(F(y), F(*stats), F(x), F(gamma), F(beta), rows, cols);
	CALL(rt, "layer_norm", 2, ARGS(y, *stats), NULL, tock(rt), x, gamma, beta);
	return y;
}

struct rt_tensor *rt_layernorm_backward(struct rt_tensor *dy, struct rt_tensor *x,
					struct rt_tensor *gamma, struct rt_tensor *stats,
					struct rt_tensor **dgamma, struct rt_tensor **dbeta)
{
	struct rt *rt = x->rt;
	int64_t cols = last_dim(x), rows = x->numel / cols;
	need(same_shape(dy, x), "layer_norm_backward", "shapes differ");
	struct rt_tensor *dx = empty(rt, x->ndim, x->shape);
	*dgamma = empty(rt, 1, &cols);
	*dbeta = empty(rt, 1, &cols);
	tick(rt);
	if (!rt->dry)
		rt->be->layernorm_backward(F(dx), F(*dgamma), F(*dbeta), F(dy), F(x), F(gamma),
					   F(stats), rows, cols);
	CALL(rt, "layer_norm_backward", 3, ARGS(dx, *dgamma, *dbeta), NULL, tock(rt), dy, x, gamma,
	     stats);
	return dx;
}

struct rt_tensor *rt_permute0213(struct rt_tensor *x)
{
	struct rt *rt = x->rt;
	need(x->ndim == 4, "permute", "not 4-D");
	int64_t *s = x->shape;
	struct rt_tensor *y = empty(rt, 4, (int64_t[]){s[0], s[2], s[1], s[3]});
	tick(rt);
	if (!rt->dry)
		rt->be->permute0213(F(y), F(x), s[0], s[1], s[2], s[3]);
	CALL(rt, "permute", 1, &y, NULL, tock(rt), x);
	return y;
}

struct rt_tensor *rt_im2col(struct rt_tensor *x, int64_t k)
{
	struct rt *rt = x->rt;
	need(x->ndim == 4, "im2col", "not NHWC");
	int64_t *s = x->shape;
	struct rt_tensor *y = empty(rt, 2, (int64_t[]){s[0] * s[1] * s[2], k * k * s[3]});
	tick(rt);
	if (!rt->dry)
		rt->be->im2col(F(y), F(x), s[0], s[1], s[2], s[3], k);
	CALL(rt, "im2col", 1, &y, NULL, tock(rt), x);
	return y;
}

struct rt_tensor *rt_col2im(struct rt_tensor *dcols, const struct rt_tensor *x, int64_t k)
{
	struct rt *rt = dcols->rt;
	const int64_t *s = x->shape;
	need(dcols->numel == x->numel * k * k, "col2im", "sizes differ");
	struct rt_tensor *dx = empty(rt, 4, s);
	tick(rt);
	if (!rt->dry)
		rt->be->col2im(F(dx), F(dcols), s[0], s[1], s[2], s[3], k);
	CALL(rt, "col2im", 1, &dx, NULL, tock(rt), dcols);
	return dx;
}

struct rt_tensor *rt_maxpool2(struct rt_tensor *x)
{
	struct rt *rt = x->rt;
	int64_t *s = x->shape;
	need(x->ndim == 4 && s[1] % 2 == 0 && s[2] % 2 == 0, "max_pool2d", "odd size");
	struct rt_tensor *y = empty(rt, 4, (int64_t[]){s[0], s[1] / 2, s[2] / 2, s[3]});
	tick(rt);
	if (!rt->dry)
		rt->be->maxpool2(F(y), F(x), s[0], s[1], s[2], s[3]);
	CALL(rt, "max_pool2d", 1, &y, NULL, tock(rt), x);
	return y;
}

struct rt_tensor *rt_maxpool2_backward(struct rt_tensor *dy, struct rt_tensor *x,
				       struct rt_tensor *y)
{
	struct rt *rt = x->rt;
	int64_t *s = x->shape;
	need(same_shape(dy, y), "max_pool2d_backward", "shapes differ");
	struct rt_tensor *dx = empty(rt, 4, s);
	tick(rt);
	if (!rt->dry)
		rt->be->maxpool2_backward(F(dx), F(dy), F(x), F(y), s[0], s[1], s[2], s[3]);
	CALL(rt, "max_pool2d_backward", 1, &dx, NULL, tock(rt), dy, x, y);
	return dx;
}

struct rt_tensor *rt_lstm_cell(struct rt_tensor *gates, struct rt_tensor *c_prev,
			       struct rt_tensor **c, struct rt_tensor **act)
{
	struct rt *rt = gates->rt;
	int64_t n = c_prev->shape[0], hid = c_prev->shape[1];
	need(c_prev->ndim == 2 && gates->numel == 4 * n * hid, "lstm_cell", "gate size");
	struct rt_tensor *h = empty(rt, 2, c_prev->shape);
	*c = empty(rt, 2, c_prev->shape);
	*act = empty(rt, gates->ndim, gates->shape);
	tick(rt);
	if (!rt->dry)
		rt->be->lstm_cell(F(h), F(*c), F(*act), F(gates), F(c_prev), n, hid);
	CALL(rt, "lstm_cell", 3, ARGS(h, *c, *act), NULL, tock(rt), gates, c_prev);
	return h;
}

struct rt_tensor *rt_lstm_cell_backward(struct rt_tensor *dh, struct rt_tensor *dc,
					struct rt_tensor *act, struct rt_tensor *c_prev,
					struct rt_tensor *c, struct rt_tensor **dc_prev)
{
	struct rt *rt = dh->rt;
	int64_t n = c->shape[0], hid = c->shape[1];
	need(same_shape(dh, c) && (!dc || same_shape(dc, c)), "lstm_cell_backward", "shapes");
	struct rt_tensor *dg = empty(rt, act->ndim, act->shape);
	*dc_prev = empty(rt, 2, c->shape);
	tick(rt);
	if (!rt->dry)
		rt->be->lstm_cell_backward(F(dg), F(*dc_prev), F(dh), F(dc), F(act), F(c_prev),
					   F(c), n, hid);
	uint64_t ns = tock(rt);
	if (dc)
		CALL(rt, "lstm_cell_backward", 2, ARGS(dg, *dc_prev), NULL, ns, dh, dc, act, c_prev,
		     c);
	else
		CALL(rt, "lstm_cell_backward", 2, ARGS(dg, *dc_prev), NULL, ns, dh, act, c_prev, c);
	return dg;
}
