/*
 * models.c: the model registry, parameter creation from a seeded generator,
 * and the iteration driver shared by every model (backward, then SGD).
 */
#include "hash.h"
#include "models.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const struct model_desc *const model_registry[] = {
	&model_mlp, &model_cnn, &model_transformer, &model_lstm, NULL,
};

const struct model_desc *model_find(const char *name)
{
	for (size_t i = 0; model_registry[i]; i++)
		if (!strcmp(model_registry[i]->name, name))
			return model_registry[i];
	return NULL;
}

/* splitmix64: small, seedable, the same on every machine. */
static uint64_t next_u64(uint64_t *s)
{
	return splitmix64_next(s);
}

/* Uniform in [-1, 1). */
static float next_unit(uint64_t *s)
{
	return (float)((double)(next_u64(s) >> 11) * 0x1.0p-53 * 2 - 1);
}

/* Host values for a new constant; NULL in a dry run (nothing is uploaded). */
static float *host_values(struct model *m, int64_t n, float scale, float offset)
{
	if (m->rt->dry)
		return NULL;
	float *v = xmalloc((size_t)n * sizeof *v);
	for (int64_t i = 0; i < n; i++)
		v[i] = offset + scale * next_unit(&m->rng);
	return v;
}

static struct rt_tensor *make_constant(struct model *m, int ndim, const int64_t *shape,
				       float scale, float offset)
{
	int64_t n = rt_shape_numel(ndim, shape);
	float *v = host_values(m, n, scale, offset);
	struct rt_tensor *t = rt_constant(m->rt, ndim, shape, v);
	free(v);
	return t;
}

struct rt_tensor *model_param(struct model *m, int ndim, const int64_t *shape, float scale,
			      float offset)
{
	struct rt_tensor *t = make_constant(m, ndim, shape, scale, offset);
	XGROW(m->params, m->params_cap, m->nparams + 1);
	m->params[m->nparams++] = t;
	return t;
}

struct rt_tensor *model_input(struct model *m, int ndim, const int64_t *shape, float scale)
{
	return make_constant(m, ndim, shape, scale, 0);
}

struct rt_tensor *model_labels(struct model *m, int64_t rows, int64_t classes)
{
	float *v = NULL;
	if (!m->rt->dry) {
		v = xmalloc((size_t)rows * sizeof *v);
		for (int64_t i = 0; i < rows; i++)
			v[i] = (float)(next_u64(&m->rng) % (uint64_t)classes);
	}
	struct rt_tensor *t = rt_constant(m->rt, 1, &rows, v);
	free(v);
	return t;
}

void model_set_grad(struct model *m, struct rt_tensor *p, struct rt_tensor *g)
{
	for (size_t i = 0; i < m->nparams; i++)
		if (m->params[i] == p) {
			if (m->grads[i])
				rs_bug("gradient of %s set twice", p->name);
			m->grads[i] = g;
			return;
		}
	rs_bug("model_set_grad: %s is not a parameter", p->name);
}

void model_accumulate(struct rt_tensor **acc, struct rt_tensor *g)
{
	if (!*acc) {
		*acc = g;
		return;
	}
	rt_add_(*acc, g);
	rt_release(g);
}

struct model *model_new(const struct model_desc *d, struct rt *rt, const struct model_size *s,
			uint64_t seed)
{
	struct model *m = xcalloc(1, sizeof *m);
	m->desc = d;
	m->rt = rt;
	m->size = *s;
	m->lr = 0.01f;
	m->rng = seed;
	d->build(m);
	m->grads = xcalloc(m->nparams, sizeof *m->grads);
	return m;
}

void model_drop_grads(struct model *m)
{
	for (size_t i = 0; i < m->nparams; i++)
		rt_clear(&m->grads[i]);
}

void model_free(struct model *m)
{
	model_drop_grads(m);
	for (size_t i = 0; i < m->nparams; i++)
		rt_release(m->params[i]);
	rt_clear(&m->x);
	rt_clear(&m->labels);
	free(m->params);
	free(m->grads);
	free(m);
}

float model_iteration(struct model *m, enum model_mode mode)
{
	model_drop_grads(m);
	float loss = m->desc->run(m, mode);
	if (mode != MODEL_STEP)
		return loss;
	/* SGD, in place: each step is a MUTATE of the weight. */
	for (size_t i = 0; i < m->nparams; i++) {
		if (!m->grads[i])
			rs_bug("%s: parameter %zu got no gradient", m->desc->name, i);
		rt_sub_(m->params[i], m->grads[i], m->lr);
		rt_clear(&m->grads[i]);
	}
	return loss;
}
