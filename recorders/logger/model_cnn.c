/*
 * model_cnn.c: a small convolutional network on NHWC images of image x image
 * pixels, 3 channels. depth layers of 3x3 convolution (im2col + GEMM) with
 * width channels, bias and ReLU in place, each followed by 2x2 max pooling
 * while the image is at least 4 pixels wide; then a linear classifier.
 */
#include <math.h>
#include <stdlib.h>

#include "models.h"

enum { K = 3, IN_CHANNELS = 3 };

static const char *cnn_check(const struct model_size *s)
{
	if (s->depth < 1)
		return "the CNN needs --depth >= 1";
	if (s->image < 2 || s->image % 2)
		return "the CNN needs an even --image >= 2";
	return NULL;
}

/* Side of the image after pooling (or not) at each layer. */
static bool pools(int64_t side)
{
	return side >= 4 && side % 2 == 0;
}

static int64_t final_side(const struct model_size *s)
{
	int64_t side = s->image;
	for (int64_t l = 0; l < s->depth; l++)
		if (pools(side))
			side /= 2;
	return side;
}

static void cnn_build(struct model *m)
{
	const struct model_size *s = &m->size;
	for (int64_t l = 0; l < s->depth; l++) {
		int64_t cin = l ? s->width : IN_CHANNELS, fan = K * K * cin;
		model_param(m, 2, (int64_t[]){fan, s->width}, 1.7f / sqrtf((float)fan), 0);
		model_param(m, 1, &s->width, 0.1f, 0);
	}
	int64_t side = final_side(s), flat = side * side * s->width;
	model_param(m, 2, (int64_t[]){flat, s->classes}, 1.7f / sqrtf((float)flat), 0);
	model_param(m, 1, &s->classes, 0.1f, 0);
	m->x = model_input(m, 4, (int64_t[]){s->batch, s->image, s->image, IN_CHANNELS}, 1);
	m->labels = model_labels(m, s->batch, s->classes);
}

static float cnn_run(struct model *m, enum model_mode mode)
{
	const struct model_size *s = &m->size;
	int64_t depth = s->depth;
	size_t nl = (size_t)depth + 1;
	/* a[l]: layer l's input; cols[l]: its patches; y[l]: conv+ReLU output. */
	struct rt_tensor **a = xcalloc(nl, sizeof *a), **cols = xcalloc(nl, sizeof *cols),
			 **y = xcalloc(nl, sizeof *y);
	bool *pooled = xcalloc(nl, sizeof *pooled);
	a[0] = rt_retain(m->x);
	int64_t side = s->image;
	for (int64_t l = 0; l < depth; l++) {
		cols[l] = rt_im2col(a[l], K);
		struct rt_tensor *z = rt_mm(cols[l], m->params[2 * l], false, false);
		rt_bias_add_(z, m->params[2 * l + 1]);
		rt_relu_(z);
		y[l] = rt_view(z, 4, (int64_t[]){s->batch, side, side, s->width});
		rt_release(z);
		pooled[l] = pools(side);
		if (pooled[l]) {
			a[l + 1] = rt_maxpool2(y[l]);
			side /= 2;
		} else {
			a[l + 1] = rt_retain(y[l]);
		}
	}
	struct rt_tensor *flat =
		rt_view(a[depth], 2, (int64_t[]){s->batch, a[depth]->numel / s->batch});
	struct rt_tensor *fc_w = m->params[2 * depth], *fc_b = m->params[2 * depth + 1];
	struct rt_tensor *logits = rt_mm(flat, fc_w, false, false);
	rt_bias_add_(logits, fc_b);
	struct rt_tensor *loss_t = rt_xent(logits, m->labels);
	float loss = rt_scalar(loss_t);
	rt_release(loss_t);

	if (mode == MODEL_FORWARD) {
		rt_release(logits);
		rt_release(flat);
		for (size_t l = 0; l < nl; l++) {
			rt_clear(&a[l]);
			rt_clear(&cols[l]);
			rt_clear(&y[l]);
		}
		goto out;
	}

	rt_backward(m->rt);
	struct rt_tensor *dl = rt_xent_backward(logits, m->labels);
	rt_release(logits);
	model_set_grad(m, fc_w, rt_mm(flat, dl, true, false));
	model_set_grad(m, fc_b, rt_sum_rows(dl));
	struct rt_tensor *dflat = rt_mm(dl, fc_w, false, true);
	rt_release(dl);
	rt_release(flat);
	struct rt_tensor *da = rt_view(dflat, a[depth]->ndim, a[depth]->shape);
	rt_release(dflat);
	for (int64_t l = depth - 1; l >= 0; l--) {
		struct rt_tensor *dy;
		if (pooled[l]) {
			dy = rt_maxpool2_backward(da, y[l], a[l + 1]);
			rt_release(da);
		} else {
			dy = da;
		}
		rt_clear(&a[l + 1]);
		struct rt_tensor *dz4 = rt_relu_backward(dy, y[l]);
		rt_release(dy);
		rt_clear(&y[l]);
		struct rt_tensor *dz = rt_view(dz4, 2, (int64_t[]){dz4->numel / s->width, s->width});
		rt_release(dz4);
		model_set_grad(m, m->params[2 * l], rt_mm(cols[l], dz, true, false));
		model_set_grad(m, m->params[2 * l + 1], rt_sum_rows(dz));
		rt_clear(&cols[l]);
		if (l > 0) {
			struct rt_tensor *dcols = rt_mm(dz, m->params[2 * l], false, true);
			da = rt_col2im(dcols, a[l], K);
			rt_release(dcols);
		}
		rt_release(dz);
	}
	rt_clear(&a[0]);
out:
	free(a);
	free(cols);
	free(y);
	free(pooled);
	return loss;
}

const struct model_desc model_cnn = {
	.name = "cnn",
	.title = "CNN",
	.defaults = {.batch = 32, .width = 32, .depth = 4, .image = 32, .classes = 10},
	.tiny = {.batch = 2, .width = 3, .depth = 2, .image = 4, .classes = 3},
	.uses = "batch, width (channels), depth (conv layers), image (side in pixels)",
	.check = cnn_check,
	.build = cnn_build,
	.run = cnn_run,
};
