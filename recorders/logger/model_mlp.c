/*
 * model_mlp.c: a multilayer perceptron. depth hidden layers of width units
 * (linear, bias added in place, ReLU), then a linear classifier and the
 * cross-entropy loss. The input has width features.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "models.h"

static const char *mlp_check(const struct model_size *s)
{
	if (s->depth < 1)
		return "the MLP needs --depth >= 1";
	return NULL;
}

static void mlp_build(struct model *m)
{
	const struct model_size *s = &m->size;
	for (int64_t l = 0; l <= s->depth; l++) {
		int64_t out = l == s->depth ? s->classes : s->width;
		model_param(m, 2, (int64_t[]){s->width, out}, 1.7f / sqrtf((float)s->width), 0);
		model_param(m, 1, &out, 0.1f, 0);
	}
	m->x = model_input(m, 2, (int64_t[]){s->batch, s->width}, 1);
	m->labels = model_labels(m, s->batch, s->classes);
}

static float mlp_run(struct model *m, enum model_mode mode)
{
	int64_t depth = m->size.depth;
	struct rt_tensor **h = xcalloc((size_t)depth + 1, sizeof *h); /* layer inputs */
	struct rt_tensor *z = NULL;
	h[0] = rt_retain(m->x);
	for (int64_t l = 0; l <= depth; l++) {
		z = rt_mm(h[l], m->params[2 * l], false, false);
		rt_bias_add_(z, m->params[2 * l + 1]);
		if (l < depth) {
			h[l + 1] = rt_relu(z);
			rt_clear(&z);
		}
	}
	struct rt_tensor *loss_t = rt_xent(z, m->labels);
	float loss = rt_scalar(loss_t);
	rt_release(loss_t);
	if (mode == MODEL_FORWARD) {
		rt_release(z);
		for (int64_t l = 0; l <= depth; l++)
			rt_release(h[l]);
		free(h);
		return loss;
	}

	rt_backward(m->rt);
	struct rt_tensor *dz = rt_xent_backward(z, m->labels);
	rt_release(z);
	for (int64_t l = depth; l >= 0; l--) {
		model_set_grad(m, m->params[2 * l], rt_mm(h[l], dz, true, false));
		model_set_grad(m, m->params[2 * l + 1], rt_sum_rows(dz));
		if (l > 0) {
			struct rt_tensor *dh = rt_mm(dz, m->params[2 * l], false, true);
			rt_release(dz);
			dz = rt_relu_backward(dh, h[l]);
			rt_release(dh);
		} else {
			rt_clear(&dz);
		}
		rt_release(h[l]); /* saved activation: its gradient is done */
	}
	free(h);
	return loss;
}

const struct model_desc model_mlp = {
	.name = "mlp",
	.title = "MLP",
	.defaults = {.batch = 256, .width = 1024, .depth = 8, .classes = 10},
	.tiny = {.batch = 4, .width = 6, .depth = 2, .classes = 3},
	.uses = "batch, width (units per layer and input features), depth (hidden layers)",
	.check = mlp_check,
	.build = mlp_build,
	.run = mlp_run,
};
