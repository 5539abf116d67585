/*
 * models.h: the demo models, one training iteration each (forward, loss,
 * backward releasing saved tensors as soon as their gradients are done,
 * SGD step), in a registry looked up by name.
 *
 * Invariant: after model_iteration returns, the only live tensors are the
 * model's parameters and inputs (and, in MODEL_GRADS mode, the gradients),
 * so that START can declare them as the next iteration's constants.
 */
#ifndef REMATSIM_LOGGER_MODELS_H
#define REMATSIM_LOGGER_MODELS_H

#include "tensor.h"

struct model_size {
	int64_t batch, width, depth, seq, heads, image, classes;
};

enum model_mode {
	MODEL_FORWARD, /* loss only */
	MODEL_GRADS,   /* loss and gradients, kept in grads[] */
	MODEL_STEP,    /* loss, gradients, SGD step; gradients released */
};

struct model {
	const struct model_desc *desc;
	struct rt *rt;
	struct model_size size;
	float lr;
	struct rt_tensor **params, **grads; /* nparams each */
	size_t nparams, params_cap;
	struct rt_tensor *x, *labels; /* the batch */
	uint64_t rng;
};

struct model_desc {
	const char *name, *title;
	struct model_size defaults;
	struct model_size tiny; /* for gradient checks */
	/** Which size fields the model uses, for --help and descriptions. */
	const char *uses;
	/** Check sizes; NULL when fine, else a message (static). */
	const char *(*check)(const struct model_size *s);
	/** Create parameters and the batch with model_param/model_input. */
	void (*build)(struct model *m);
	/** Forward (and backward unless MODEL_FORWARD): loss; grads[i] filled. */
	float (*run)(struct model *m, enum model_mode mode);
};

extern const struct model_desc *const model_registry[];
const struct model_desc *model_find(const char *name);

/** Build the model on RT (borrowed) with seed SEED. */
struct model *model_new(const struct model_desc *d, struct rt *rt, const struct model_size *s,
			uint64_t seed);
/** Release every tensor of the model and free it. */
void model_free(struct model *m);
/** One iteration; returns the loss (before the step). */
float model_iteration(struct model *m, enum model_mode mode);
/** Release gradients kept by MODEL_GRADS. */
void model_drop_grads(struct model *m);

/* For the model files. */
struct rt_tensor *model_param(struct model *m, int ndim, const int64_t *shape, float scale,
			      float offset);
struct rt_tensor *model_input(struct model *m, int ndim, const int64_t *shape, float scale);
struct rt_tensor *model_labels(struct model *m, int64_t rows, int64_t classes);
/** Store gradient G of parameter P (takes G). */
void model_set_grad(struct model *m, struct rt_tensor *p, struct rt_tensor *g);
/** *acc += g, or *acc = g when *acc is NULL (takes G): MUTATE add_. */
void model_accumulate(struct rt_tensor **acc, struct rt_tensor *g);

extern const struct model_desc model_mlp, model_cnn, model_transformer, model_lstm;

#endif
