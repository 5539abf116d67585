/*
 * tensor.h: the small tensor runtime the demo models run on. Reference-
 * counted float32 tensor handles on one backend (CPU or CUDA); every op
 * allocates its results, runs timed on the backend, and is recorded in the
 * op log (when there is one).
 *
 * Invariants:
 * - A tensor handle is one name in the log. rt_release of its last
 *   reference writes its RELEASE; a storage is freed when no handle (view
 *   or copy) refers to it any more, just as the simulator frees it.
 * - In-place ops (names ending in '_') never touch a tensor that has views
 *   alive: the log's MUTATE gives the tensor new storage, so a view would
 *   silently part from it.
 *
 * Ownership: every op *borrows* its tensor arguments and *gives* its
 * results (one reference each, to be dropped with rt_release).
 */
#ifndef REMATSIM_LOGGER_TENSOR_H
#define REMATSIM_LOGGER_TENSOR_H

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "oplog.h"

#define RT_MAX_DIMS 4

struct rt_storage {
	void *data;      /* device pointer; NULL in a dry run */
	uint64_t bytes;
	int handles;     /* tensor handles referring to it */
	uint64_t start_gen; /* == rt->start_gen: already declared after START as ... */
	char start_name[24]; /* ... this constant */
};

struct rt_tensor {
	char name[24];
	int refs;
	struct rt *rt;
	struct rt_storage *st;
	int64_t offset; /* in elements */
	int ndim;
	int64_t shape[RT_MAX_DIMS];
	int64_t numel;
	struct rt_tensor *prev, *next; /* live tensors, in creation order */
};

struct rt {
	const struct backend *be;
	struct backend_info info;
	struct oplog *log; /* borrowed; NULL: record nothing */
	bool dry;          /* allocate and compute nothing, only count bytes */
	bool too_large;    /* a dry run met a size that overflows */
	bool costs;        /* each op's FLOPS and BYTES on its record (oplog_set_costs) */
	uint64_t alloc_live_bytes, alloc_peak_bytes; /* real device storages */
	uint64_t ops, op_time_ns;
	uint64_t start_gen, next_name;
	struct rt_tensor *head, *tail;
};

/**
 * Start a runtime on backend BE (initialised by the caller: info is copied).
 * LOG is borrowed (may be NULL); DRY: a dry run.
 */
struct rt *rt_new(const struct backend *be, const struct backend_info *info,
		  struct oplog *log, bool dry);
/** Free the runtime; every tensor must have been released. */
void rt_free(struct rt *rt);

/** The element count of a shape, or -1 when it overflows. */
int64_t rt_shape_numel(int ndim, const int64_t *shape);

/** A constant (weights, inputs) filled from HOST (numel floats; NULL: zeros). */
struct rt_tensor *rt_constant(struct rt *rt, int ndim, const int64_t *shape, const float *host);
struct rt_tensor *rt_retain(struct rt_tensor *t);
void rt_release(struct rt_tensor *t);
/** Release *t (if not NULL) and set it to NULL. */
void rt_clear(struct rt_tensor **t);
/** A second handle to T's tensor (COPY). */
struct rt_tensor *rt_copy(struct rt_tensor *t);
/** Copy T's elements to HOST / from HOST (untimed, unrecorded). */
void rt_read(struct rt_tensor *t, float *host);
void rt_write(struct rt_tensor *t, const float *host);
/** T's first element (a loss), 0 in a dry run. */
float rt_scalar(struct rt_tensor *t);

/** ANNOTATE START: the live tensors become the iteration's constants. */
void rt_start(struct rt *rt);
/** ANNOTATE BACKWARD. */
void rt_backward(struct rt *rt);

/* ---- ops (views: ALIAS 0; '_': in place, MUTATE) ---- */
struct rt_tensor *rt_zeros(struct rt *rt, int ndim, const int64_t *shape);
struct rt_tensor *rt_view(struct rt_tensor *t, int ndim, const int64_t *shape);
/** Index I along the first dimension (a view). */
struct rt_tensor *rt_select(struct rt_tensor *t, int64_t i);
/** 2-D product op(a) op(b). */
struct rt_tensor *rt_mm(struct rt_tensor *a, struct rt_tensor *b, bool ta, bool tb);
/** Batched product over leading dimensions: alpha * op(a) op(b). */
struct rt_tensor *rt_bmm(struct rt_tensor *a, struct rt_tensor *b, bool ta, bool tb,
			 float alpha);
struct rt_tensor *rt_add(struct rt_tensor *a, struct rt_tensor *b);
/** a += b (MUTATE add_). */
void rt_add_(struct rt_tensor *a, struct rt_tensor *b);
/** w -= lr * g (MUTATE sub_), the SGD step. */
void rt_sub_(struct rt_tensor *w, struct rt_tensor *g, float lr);
/** x + bias along the last dimension; rt_bias_add_ in place. */
struct rt_tensor *rt_bias_add(struct rt_tensor *x, struct rt_tensor *bias);
void rt_bias_add_(struct rt_tensor *x, struct rt_tensor *bias);
/** Sum over all but the last dimension (a bias gradient). */
struct rt_tensor *rt_sum_rows(struct rt_tensor *x);
struct rt_tensor *rt_relu(struct rt_tensor *x);
void rt_relu_(struct rt_tensor *x);
struct rt_tensor *rt_relu_backward(struct rt_tensor *dy, struct rt_tensor *y);
/** Mean cross-entropy of the rows of logits against labels (one float each). */
struct rt_tensor *rt_xent(struct rt_tensor *logits, struct rt_tensor *labels);
struct rt_tensor *rt_xent_backward(struct rt_tensor *logits, struct rt_tensor *labels);
struct rt_tensor *rt_softmax(struct rt_tensor *x);
struct rt_tensor *rt_softmax_backward(struct rt_tensor *dy, struct rt_tensor *y);
/** Layer norm over the last dimension; *stats gets the per-row mean and 1/std. */
struct rt_tensor *rt_layernorm(struct rt_tensor *x, struct rt_tensor *gamma,
			       struct rt_tensor *beta, struct rt_tensor **stats);
struct rt_tensor *rt_layernorm_backward(struct rt_tensor *dy, struct rt_tensor *x,
					struct rt_tensor *gamma, struct rt_tensor *stats,
					struct rt_tensor **dgamma, struct rt_tensor **dbeta);
/** [A,B,C,D] -> [A,C,B,D] (a copy). */
struct rt_tensor *rt_permute0213(struct rt_tensor *x);
/** x [N,H,W,C] -> [N*H*W, K*K*C] patches (stride 1, same padding). */
struct rt_tensor *rt_im2col(struct rt_tensor *x, int64_t k);
struct rt_tensor *rt_col2im(struct rt_tensor *dcols, const struct rt_tensor *x, int64_t k);
struct rt_tensor *rt_maxpool2(struct rt_tensor *x);
struct rt_tensor *rt_maxpool2_backward(struct rt_tensor *dy, struct rt_tensor *x,
				       struct rt_tensor *y);
/** One LSTM step: gates [N,4H], c_prev [N,H] -> h; *c and *act (activated gates). */
struct rt_tensor *rt_lstm_cell(struct rt_tensor *gates, struct rt_tensor *c_prev,
			       struct rt_tensor **c, struct rt_tensor **act);
/** dc may be NULL. Gives dgates; *dc_prev. */
struct rt_tensor *rt_lstm_cell_backward(struct rt_tensor *dh, struct rt_tensor *dc,
					struct rt_tensor *act, struct rt_tensor *c_prev,
					struct rt_tensor *c, struct rt_tensor **dc_prev);

#endif
