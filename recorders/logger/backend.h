/*
 * backend.h: what a device must provide to the tensor runtime: memory, a
 * timer around one op, and the kernels of the demo models. All tensors are
 * float32, row-major, contiguous; pointers are device pointers.
 *
 * Invariant: timer_stop returns once the op's work is finished (the CUDA
 * backend synchronizes on an event), so each recorded TIME is that op's own.
 */
#ifndef REMATSIM_LOGGER_BACKEND_H
#define REMATSIM_LOGGER_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct backend_info {
	char device[256];  /* e.g. "cpu: x86_64, 16 cores" or the GPU's name */
	char driver[64];   /* driver version, "" when none */
	char runtime[64];  /* runtime version (CUDA runtime, libc) */
	char clock[64];    /* clock source of op times */
	uint64_t free_bytes;  /* memory the runtime may use now */
	uint64_t total_bytes;
};

/* The host link as measured (rematsim-record --measure-link, CUDA only):
 * each direction's copy time of pinned host memory at n sizes (the median
 * of five copies each, after one to warm up), and the line through them,
 * latency + bytes / bandwidth, fitted by least squares. */
#define LINK_SIZES 8
struct link_measure {
	int n;
	uint64_t bytes[LINK_SIZES];
	double h2d_ns[LINK_SIZES], d2h_ns[LINK_SIZES];
	double h2d_bytes_per_s, d2h_bytes_per_s;
	double h2d_latency_ns, d2h_latency_ns;
};

struct backend {
	const char *name; /* "cpu", "cuda" */
	/** Start the device; 0, or -1 with msg filled (no device, ...). */
	int (*init)(struct backend_info *info, char *msg, size_t msg_size);
	void (*shutdown)(void);
	void *(*alloc)(size_t bytes); /* NULL when out of memory */
	void (*free)(void *p);
	void (*upload)(void *dst, const void *host_src, size_t bytes);
	void (*download)(void *host_dst, const void *src, size_t bytes);
	void (*timer_start)(void);
	uint64_t (*timer_stop)(void); /* ns since timer_start */
	/* Optional (NULL: the device has no host link to measure): measure it
	 * (struct link_measure); 0, or -1 with msg filled. */
	int (*measure_link)(struct link_measure *out, char *msg, size_t msg_size);

	/* C[b] = alpha * op(A[b]) op(B[b]) + beta * C[b] for b < batch; op(A) is m x k. */
	void (*gemm)(int64_t batch, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
		     float alpha, const float *a, int64_t stride_a, const float *b,
		     int64_t stride_b, float beta, float *c, int64_t stride_c);
	void (*fill)(float *out, float value, int64_t n);
	/* out = a * x + b * y (out may be x or y). */
	void (*axpby)(float *out, float a, const float *x, float b, const float *y, int64_t n);
	/* out[r][c] = x[r][c] + bias[c] (out may be x). */
	void (*bias_add)(float *out, const float *x, const float *bias, int64_t rows,
			 int64_t cols);
	/* out[c] = sum over r of x[r][c]. */
	void (*sum_rows)(float *out, const float *x, int64_t rows, int64_t cols);
	void (*relu)(float *out, const float *x, int64_t n);
	void (*relu_backward)(float *dx, const float *dy, const float *y, int64_t n);
	/* Mean cross-entropy of rows of logits against integer labels (as floats). */
	void (*xent)(float *loss, const float *logits, const float *labels, int64_t rows,
		     int64_t cols);
	void (*xent_backward)(float *dlogits, const float *logits, const float *labels,
			      int64_t rows, int64_t cols);
	void (*softmax)(float *y, const float *x, int64_t rows, int64_t cols);
	void (*softmax_backward)(float *dx, const float *dy, const float *y, int64_t rows,
				 int64_t cols);
	/* stats: mean and 1/std per row (2 * rows floats). */
	void (*layernorm)(float *y, float *stats, const float *x, const float *gamma,
			  const float *beta, int64_t rows, int64_t cols);
	void (*layernorm_backward)(float *dx, float *dgamma, float *dbeta, const float *dy,
				   const float *x, const float *gamma, const float *stats,
				   int64_t rows, int64_t cols);
	/* [A,B,C,D] -> [A,C,B,D] */
	void (*permute0213)(float *out, const float *x, int64_t a, int64_t b, int64_t c,
			    int64_t d);
	/* NHWC, k x k window, stride 1, zero padding k/2: cols [n*h*w, k*k*c]. */
	void (*im2col)(float *cols, const float *x, int64_t n, int64_t h, int64_t w, int64_t c,
		       int64_t k);
	void (*col2im)(float *dx, const float *dcols, int64_t n, int64_t h, int64_t w,
		       int64_t c, int64_t k);
	/* 2x2 max pooling, NHWC, h and w even. */
	void (*maxpool2)(float *y, const float *x, int64_t n, int64_t h, int64_t w, int64_t c);
	void (*maxpool2_backward)(float *dx, const float *dy, const float *x, const float *y,
				  int64_t n, int64_t h, int64_t w, int64_t c);
	/* gates [n, 4h] (i, f, g, o) -> act [n, 4h], c, h [n, hid] */
	void (*lstm_cell)(float *h, float *c, float *act, const float *gates,
			  const float *c_prev, int64_t n, int64_t hid);
	/* dc may be NULL (zero) */
	void (*lstm_cell_backward)(float *dgates, float *dc_prev, const float *dh,
				   const float *dc, const float *act, const float *c_prev,
				   const float *c, int64_t n, int64_t hid);
};

extern const struct backend backend_cpu;
/** NULL when built without CUDA. */
const struct backend *backend_cuda_get(void);

#ifdef __cplusplus
}
#endif

#endif
