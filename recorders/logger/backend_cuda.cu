/*
 * backend_cuda.cu: the kernels on a CUDA device. Memory comes from
 * cudaMalloc (so recorded sizes are exactly what was asked: no caching
 * allocator rounds them), matrix products from cuBLAS, every other op from
 * a small kernel below. Each op is timed by CUDA events around its launch
 * on the default stream and synchronized, so each TIME is that op's own.
 *
 * Invariant: no managed memory; host copies go through cudaMemcpy.
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

typedef long long ll;

static cublasHandle_t blas;
static cudaEvent_t ev_start, ev_stop;

static void die(const char *what, cudaError_t e)
{
	fprintf(stderr, "rematsim-record: CUDA error in %s: %s\n", what, cudaGetErrorString(e));
	abort();
}

#define CK(call)                                   \
	do {                                       \
		cudaError_t e_ = (call);           \
		if (e_ != cudaSuccess)             \
			die(#call, e_);            \
	} while (0)

static int blocks(ll n)
{
	ll b = (n + 255) / 256;
	return (int)(b < 65535 * 16 ? (b > 0 ? b : 1) : 65535 * 16);
}

#define LOOP(i, n) for (ll i = blockIdx.x * (ll)blockDim.x + threadIdx.x; i < (n); \
			i += (ll)blockDim.x * gridDim.x)

/* ---- device management ---- */

static int cuda_init(struct backend_info *info, char *msg, size_t msg_size)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess || n == 0) {
		snprintf(msg, msg_size, "%s", e != cudaSuccess ? cudaGetErrorString(e)
							      : "no CUDA device found");
		cudaGetLastError();
		return -1;
	}
	if ((e = cudaSetDevice(0)) != cudaSuccess) {
		snprintf(msg, msg_size, "cudaSetDevice: %s", cudaGetErrorString(e));
		return -1;
	}
	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, 0));
	int drv = 0, rt = 0;
	cudaDriverGetVersion(&drv);
	cudaRuntimeGetVersion(&rt);
	snprintf(info->device, sizeof info->device, "%.200s (sm_%d%d, %d SMs)", p.name, p.major,
		 p.minor, p.multiProcessorCount);
	snprintf(info->driver, sizeof info->driver, "CUDA driver %d.%d", drv / 1000,
		 (drv % 1000) / 10);
	snprintf(info->runtime, sizeof info->runtime, "CUDA runtime %d.%d, cuBLAS", rt / 1000,
		 (rt % 1000) / 10);
	snprintf(info->clock, sizeof info->clock, "cudaEventElapsedTime (synchronized per op)");
	size_t fr = 0, tot = 0;
	CK(cudaMemGetInfo(&fr, &tot));
	info->free_bytes = fr;
	info->total_bytes = tot;
	if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) {
		snprintf(msg, msg_size, "cublasCreate failed");
		return -1;
	}
	cublasSetMathMode(blas, CUBLAS_DEFAULT_MATH); /* no TF32: fp32 as on the CPU */
	CK(cudaEventCreate(&ev_start));
	CK(cudaEventCreate(&ev_stop));
	return 0;
}

static void cuda_shutdown(void)
{
	if (blas)
		cublasDestroy(blas);
	blas = NULL;
	cudaEventDestroy(ev_start);
	cudaEventDestroy(ev_stop);
}

static void *cuda_alloc(size_t bytes)
{
	void *p = NULL;
	if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) {
		cudaGetLastError();
		return NULL;
	}
	return p;
}

static void cuda_free(void *p)
{
	CK(cudaFree(p));
}

static void cuda_upload(void *dst, const void *src, size_t bytes)
{
	CK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}

static void cuda_download(void *dst, const void *src, size_t bytes)
{
	CK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}

static void cuda_timer_start(void)
{
	CK(cudaEventRecord(ev_start, 0));
}

static uint64_t cuda_timer_stop(void)
{
	CK(cudaGetLastError()); /* a failed launch is our bug */
	CK(cudaEventRecord(ev_stop, 0));
	CK(cudaEventSynchronize(ev_stop));
	float ms = 0;
	CK(cudaEventElapsedTime(&ms, ev_start, ev_stop));
	return (uint64_t)((double)ms * 1e6 + 0.5);
}

/* ---- cuBLAS ---- */

static void cuda_gemm(int64_t batch, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
		      float alpha, const float *a, int64_t sa, const float *b, int64_t sb,
		      float beta, float *c, int64_t sc)
{
	/* Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T. */
	cublasStatus_t st = cublasSgemmStridedBatched(
		blas, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N, (int)n, (int)m,
		(int)k, &alpha, b, (int)(tb ? k : n), sb, a, (int)(ta ? m : k), sa, &beta, c, (int)n,
		sc, (int)batch);
	if (st != CUBLAS_STATUS_SUCCESS) {
		fprintf(stderr, "rematsim-record: cublasSgemmStridedBatched failed (%d)\n", (int)st);
		abort();
	}
}

/* ---- elementwise ---- */

__global__ void k_fill(float *o, float v, ll n)
{
	LOOP(i, n) o[i] = v;
}

__global__ void k_axpby(float *o, float a, const float *x, float b, const float *y, ll n)
{
	LOOP(i, n) o[i] = a * x[i] + b * y[i];
}

__global__ void k_bias_add(float *o, const float *x, const float *bias, ll rows, ll cols)
{
	LOOP(i, rows * cols) o[i] = x[i] + bias[i % cols];
}

__global__ void k_relu(float *o, const float *x, ll n)
{
	LOOP(i, n) o[i] = x[i] > 0 ? x[i] : 0;
}

__global__ void k_relu_backward(float *dx, const float *dy, const float *y, ll n)
{
	LOOP(i, n) dx[i] = y[i] > 0 ? dy[i] : 0;
}

__global__ void k_sum_rows(float *o, const float *x, ll rows, ll cols)
{
	LOOP(c, cols)
	{
		double s = 0;
		for (ll r = 0; r < rows; r++)
			s += x[r * cols + c];
		o[c] = (float)s;
	}
}

static void cuda_fill(float *o, float v, int64_t n)
{
	k_fill<<<blocks(n), 256>>>(o, v, n);
}

static void cuda_axpby(float *o, float a, const float *x, float b, const float *y, int64_t n)
{
	k_axpby<<<blocks(n), 256>>>(o, a, x, b, y, n);
}

static void cuda_bias_add(float *o, const float *x, const float *bias, int64_t rows,
			  int64_t cols)
{
	k_bias_add<<<blocks(rows * cols), 256>>>(o, x, bias, rows, cols);
}

static void cuda_sum_rows(float *o, const float *x, int64_t rows, int64_t cols)
{
	k_sum_rows<<<blocks(cols), 256>>>(o, x, rows, cols);
}

static void cuda_relu(float *o, const float *x, int64_t n)
{
	k_relu<<<blocks(n), 256>>>(o, x, n);
}

static void cuda_relu_backward(float *dx, const float *dy, const float *y, int64_t n)
{
	k_relu_backward<<<blocks(n), 256>>>(dx, dy, y, n);
}

/* ---- rows: loss, softmax, layer norm (one thread per row) ---- */

__device__ double row_lse(const float *x, ll cols)
{
	double mx = x[0], s = 0;
	for (ll c = 1; c < cols; c++)
		mx = x[c] > mx ? x[c] : mx;
	for (ll c = 0; c < cols; c++)
		s += exp(x[c] - mx);
	return mx + log(s);
}

__global__ void k_xent(float *loss, const float *logits, const float *labels, ll rows, ll cols)
{
	__shared__ double part[256];
	double s = 0;
	for (ll r = threadIdx.x; r < rows; r += blockDim.x) {
		const float *x = logits + r * cols;
		s += row_lse(x, cols) - x[(ll)labels[r]];
	}
	part[threadIdx.x] = s;
	__syncthreads();
	for (int w = 128; w > 0; w /= 2) {
		if ((int)threadIdx.x < w)
			part[threadIdx.x] += part[threadIdx.x + w];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		*loss = (float)(part[0] / (double)rows);
}

__global__ void k_xent_backward(float *dl, const float *logits, const float *labels, ll rows,
				ll cols)
{
	LOOP(r, rows)
	{
		const float *x = logits + r * cols;
		double lse = row_lse(x, cols);
		for (ll c = 0; c < cols; c++)
			dl[r * cols + c] =
				(float)((exp(x[c] - lse) - (c == (ll)labels[r])) / (double)rows);
	}
}

__global__ void k_softmax(float *y, const float *x, ll rows, ll cols)
{
	LOOP(r, rows)
	{
		double lse = row_lse(x + r * cols, cols);
		for (ll c = 0; c < cols; c++)
			y[r * cols + c] = (float)exp(x[r * cols + c] - lse);
	}
}

__global__ void k_softmax_backward(float *dx, const float *dy, const float *y, ll rows, ll cols)
{
	LOOP(r, rows)
	{
		double dot = 0;
		for (ll c = 0; c < cols; c++)
			dot += (double)dy[r * cols + c] * y[r * cols + c];
		for (ll c = 0; c < cols; c++)
			dx[r * cols + c] = (float)(y[r * cols + c] * (dy[r * cols + c] - dot));
	}
}

__global__ void k_layernorm(float *y, float *stats, const float *x, const float *g,
			    const float *b, ll rows, ll cols)
{
	LOOP(r, rows)
	{
		const float *xr = x + r * cols;
		double mean = 0, var = 0;
		for (ll c = 0; c < cols; c++)
			mean += xr[c];
		mean /= (double)cols;
		for (ll c = 0; c < cols; c++)
			var += (xr[c] - mean) * (xr[c] - mean);
		double rstd = 1 / sqrt(var / (double)cols + 1e-5);
		stats[2 * r] = (float)mean;
		stats[2 * r + 1] = (float)rstd;
		for (ll c = 0; c < cols; c++)
			y[r * cols + c] = (float)((xr[c] - mean) * rstd * g[c] + b[c]);
	}
}

__global__ void k_layernorm_dx(float *dx, const float *dy, const float *x, const float *g,
			       const float *stats, ll rows, ll cols)
{
	LOOP(r, rows)
	{
		double mean = stats[2 * r], rstd = stats[2 * r + 1], s1 = 0, s2 = 0;
		for (ll c = 0; c < cols; c++) {
			double dxh = (double)dy[r * cols + c] * g[c];
			s1 += dxh;
			s2 += dxh * (x[r * cols + c] - mean) * rstd;
		}
		for (ll c = 0; c < cols; c++) {
			double dxh = (double)dy[r * cols + c] * g[c];
			double xh = (x[r * cols + c] - mean) * rstd;
			dx[r * cols + c] =
				(float)(rstd * (dxh - s1 / (double)cols - xh * s2 / (double)cols));
		}
	}
}

__global__ void k_layernorm_dgb(float *dg, float *db, const float *dy, const float *x,
				const float *stats, ll rows, ll cols)
{
	LOOP(c, cols)
	{
		double sg = 0, sb = 0;
		for (ll r = 0; r < rows; r++) {
			double xh = (x[r * cols + c] - stats[2 * r]) * stats[2 * r + 1];
			sg += dy[r * cols + c] * xh;
			sb += dy[r * cols + c];
		}
		dg[c] = (float)sg;
		db[c] = (float)sb;
	}
}

static void cuda_xent(float *loss, const float *logits, const float *labels, int64_t rows,
		      int64_t cols)
{
	k_xent<<<1, 256>>>(loss, logits, labels, rows, cols);
}

static void cuda_xent_backward(float *dl, const float *logits, const float *labels,
			       int64_t rows, int64_t cols)
{
	k_xent_backward<<<blocks(rows), 256>>>(dl, logits, labels, rows, cols);
}

static void cuda_softmax(float *y, const float *x, int64_t rows, int64_t cols)
{
	k_softmax<<<blocks(rows), 256>>>(y, x, rows, cols);
}

static void cuda_softmax_backward(float *dx, const float *dy, const float *y, int64_t rows,
				  int64_t cols)
{
	k_softmax_backward<<<blocks(rows), 256>>>(dx, dy, y, rows, cols);
}

static void cuda_layernorm(float *y, float *stats, const float *x, const float *g,
			   const float *b, int64_t rows, int64_t cols)
{
	k_layernorm<<<blocks(rows), 256>>>(y, stats, x, g, b, rows, cols);
}

static void cuda_layernorm_backward(float *dx, float *dg, float *db, const float *dy,
				    const float *x, const float *g, const float *stats,
				    int64_t rows, int64_t cols)
{
	k_layernorm_dx<<<blocks(rows), 256>>>(dx, dy, x, g, stats, rows, cols);
	k_layernorm_dgb<<<blocks(cols), 256>>>(dg, db, dy, x, stats, rows, cols);
}

/* ---- layout: permute, im2col, pooling (one thread per output element) ---- */

__global__ void k_permute0213(float *o, const float *x, ll A, ll B, ll C, ll D)
{
	LOOP(i, A * B * C * D)
	{
		/* i indexes the output [A, C, B, D] */
		ll d = i % D, b = (i / D) % B, c = (i / (D * B)) % C, a = i / (D * B * C);
		o[i] = x[((a * B + b) * C + c) * D + d];
	}
}

__global__ void k_im2col(float *cols, const float *x, ll n, ll h, ll w, ll c, ll k)
{
	ll pad = k / 2, kc = k * k * c;
	LOOP(i, n * h * w * kc)
	{
		ll col = i % kc, row = i / kc;
		ll q = col % c, ij = col / c, kj = ij % k, ki = ij / k;
		ll z = row % w, y = (row / w) % h, b = row / (w * h);
		ll yy = y + ki - pad, zz = z + kj - pad;
		cols[i] = yy < 0 || yy >= h || zz < 0 || zz >= w ? 0
								  : x[((b * h + yy) * w + zz) * c + q];
	}
}

__global__ void k_col2im(float *dx, const float *dcols, ll n, ll h, ll w, ll c, ll k)
{
	ll pad = k / 2, kc = k * k * c;
	LOOP(i, n * h * w * c)
	{
		ll q = i % c, zz = (i / c) % w, yy = (i / (c * w)) % h, b = i / (c * w * h);
		double s = 0;
		for (ll ki = 0; ki < k; ki++)
			for (ll kj = 0; kj < k; kj++) {
				ll y = yy - ki + pad, z = zz - kj + pad;
				if (y < 0 || y >= h || z < 0 || z >= w)
					continue;
				s += dcols[((b * h + y) * w + z) * kc + (ki * k + kj) * c + q];
			}
		dx[i] = (float)s;
	}
}

__global__ void k_maxpool2(float *y, const float *x, ll n, ll h, ll w, ll c)
{
	ll oh = h / 2, ow = w / 2;
	LOOP(i, n * oh * ow * c)
	{
		ll q = i % c, j = (i / c) % ow, r = (i / (c * ow)) % oh, b = i / (c * ow * oh);
		float m = -INFINITY;
		for (int d = 0; d < 4; d++) {
			float v = x[((b * h + 2 * r + d / 2) * w + 2 * j + d % 2) * c + q];
			m = v > m ? v : m;
		}
		y[i] = m;
	}
}

/* Gradient to the first maximum of each window, as the CPU kernel does. */
__global__ void k_maxpool2_backward(float *dx, const float *dy, const float *x, const float *y,
				    ll n, ll h, ll w, ll c)
{
	ll oh = h / 2, ow = w / 2;
	LOOP(i, n * h * w * c)
	{
		ll q = i % c, zz = (i / c) % w, yy = (i / (c * w)) % h, b = i / (c * w * h);
		ll r = yy / 2, j = zz / 2;
		ll o = ((b * oh + r) * ow + j) * c + q;
		ll first = -1;
		for (int d = 0; d < 4 && first < 0; d++) {
			ll at = ((b * h + 2 * r + d / 2) * w + 2 * j + d % 2) * c + q;
			if (x[at] == y[o])
				first = at;
		}
		dx[i] = first == i ? dy[o] : 0;
	}
}

static void cuda_permute0213(float *o, const float *x, int64_t a, int64_t b, int64_t c,
			     int64_t d)
{
	k_permute0213<<<blocks(a * b * c * d), 256>>>(o, x, a, b, c, d);
}

static void cuda_im2col(float *cols, const float *x, int64_t n, int64_t h, int64_t w,
			int64_t c, int64_t k)
{
	k_im2col<<<blocks(n * h * w * k * k * c), 256>>>(cols, x, n, h, w, c, k);
}

static void cuda_col2im(float *dx, const float *dcols, int64_t n, int64_t h, int64_t w,
			int64_t c, int64_t k)
{
	k_col2im<<<blocks(n * h * w * c), 256>>>(dx, dcols, n, h, w, c, k);
}

static void cuda_maxpool2(float *y, const float *x, int64_t n, int64_t h, int64_t w, int64_t c)
{
	k_maxpool2<<<blocks(n * h * w * c / 4), 256>>>(y, x, n, h, w, c);
}

static void cuda_maxpool2_backward(float *dx, const float *dy, const float *x, const float *y,
				   int64_t n, int64_t h, int64_t w, int64_t c)
{
	k_maxpool2_backward<<<blocks(n * h * w * c), 256>>>(dx, dy, x, y, n, h, w, c);
}

/* ---- LSTM cell (one thread per unit) ---- */

__device__ double sigm(double v)
{
	return 1 / (1 + exp(-v));
}

__global__ void k_lstm_cell(float *h, float *c, float *act, const float *gates,
			    const float *c_prev, ll n, ll hid)
{
	LOOP(e, n * hid)
	{
		ll b = e / hid, j = e % hid;
		const float *g = gates + b * 4 * hid;
		float *a = act + b * 4 * hid;
		double i_ = sigm(g[j]), f_ = sigm(g[hid + j]), g_ = tanh((double)g[2 * hid + j]),
		       o_ = sigm(g[3 * hid + j]);
		a[j] = (float)i_;
		a[hid + j] = (float)f_;
		a[2 * hid + j] = (float)g_;
		a[3 * hid + j] = (float)o_;
		double cc = f_ * c_prev[e] + i_ * g_;
		c[e] = (float)cc;
		h[e] = (float)(o_ * tanh(cc));
	}
}

__global__ void k_lstm_cell_backward(float *dgates, float *dc_prev, const float *dh,
				     const float *dc, const float *act, const float *c_prev,
				     const float *c, ll n, ll hid)
{
	LOOP(e, n * hid)
	{
		ll b = e / hid, j = e % hid;
		const float *a = act + b * 4 * hid;
		float *dg = dgates + b * 4 * hid;
		double i_ = a[j], f_ = a[hid + j], g_ = a[2 * hid + j], o_ = a[3 * hid + j];
		double tc = tanh((double)c[e]);
		double dct = (dc ? dc[e] : 0) + dh[e] * o_ * (1 - tc * tc);
		dg[j] = (float)(dct * g_ * i_ * (1 - i_));
		dg[hid + j] = (float)(dct * c_prev[e] * f_ * (1 - f_));
		dg[2 * hid + j] = (float)(dct * i_ * (1 - g_ * g_));
		dg[3 * hid + j] = (float)(dh[e] * tc * o_ * (1 - o_));
		dc_prev[e] = (float)(dct * f_);
	}
}

static void cuda_lstm_cell(float *h, float *c, float *act, const float *gates,
			   const float *c_prev, int64_t n, int64_t hid)
{
	k_lstm_cell<<<blocks(n * hid), 256>>>(h, c, act, gates, c_prev, n, hid);
}

static void cuda_lstm_cell_backward(float *dgates, float *dc_prev, const float *dh,
				    const float *dc, const float *act, const float *c_prev,
				    const float *c, int64_t n, int64_t hid)
{
	k_lstm_cell_backward<<<blocks(n * hid), 256>>>(dgates, dc_prev, dh, dc, act, c_prev, c, n,
						       hid);
}

/* ---- the host link (--measure-link) ---- */

static double median5(double *v)
{
	for (int i = 1; i < 5; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return v[2];
}

/* t = latency + bytes / bandwidth through the n points, least squares. */
static void fit_line(const uint64_t *bytes, const double *ns, int n, double *bw, double *lat)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	for (int i = 0; i < n; i++) {
		double x = (double)bytes[i];
		sx += x;
		sy += ns[i];
		sxx += x * x;
		sxy += x * ns[i];
	}
	double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx); /* ns per byte */
	*bw = slope > 0 ? 1e9 / slope : INFINITY;
	*lat = (sy - slope * sx) / n;
	if (*lat < 0)
		*lat = 0;
}

/* Copies of 4 KiB to 64 MiB between pinned host memory and the device,
 * each way, timed by events on the default stream. */
static int cuda_measure_link(struct link_measure *m, char *msg, size_t msg_size)
{
	const size_t max = (size_t)64 << 20;
	void *host = NULL, *dev = NULL;
	cudaError_t e = cudaMallocHost(&host, max);
	if (e == cudaSuccess)
		e = cudaMalloc(&dev, max);
	if (e != cudaSuccess) {
		snprintf(msg, msg_size, "64 MiB of pinned host and device memory: %s",
			 cudaGetErrorString(e));
		cudaGetLastError();
		if (host)
			cudaFreeHost(host);
		return -1;
	}
	memset(host, 1, max);
	m->n = 0;
	for (size_t b = 4096; b <= max && m->n < LINK_SIZES; b *= 4) {
		m->bytes[m->n] = b;
		for (int dir = 0; dir < 2; dir++) {
			double t[5];
			for (int r = -1; r < 5; r++) {
				CK(cudaEventRecord(ev_start, 0));
				if (dir)
					CK(cudaMemcpyAsync(host, dev, b, cudaMemcpyDeviceToHost, 0));
				else
					CK(cudaMemcpyAsync(dev, host, b, cudaMemcpyHostToDevice, 0));
				CK(cudaEventRecord(ev_stop, 0));
				CK(cudaEventSynchronize(ev_stop));
				float ms = 0;
				CK(cudaEventElapsedTime(&ms, ev_start, ev_stop));
				if (r >= 0)
					t[r] = (double)ms * 1e6;
			}
			(dir ? m->d2h_ns : m->h2d_ns)[m->n] = median5(t);
		}
		m->n++;
	}
	fit_line(m->bytes, m->h2d_ns, m->n, &m->h2d_bytes_per_s, &m->h2d_latency_ns);
	fit_line(m->bytes, m->d2h_ns, m->n, &m->d2h_bytes_per_s, &m->d2h_latency_ns);
	CK(cudaFree(dev));
	CK(cudaFreeHost(host));
	return 0;
}

static struct backend make_backend(void)
{
	struct backend b = {};
	b.name = "cuda";
	b.init = cuda_init;
	b.shutdown = cuda_shutdown;
	b.alloc = cuda_alloc;
	b.free = cuda_free;
	b.upload = cuda_upload;
	b.download = cuda_download;
	b.timer_start = cuda_timer_start;
	b.timer_stop = cuda_timer_stop;
	b.measure_link = cuda_measure_link;
	b.gemm = cuda_gemm;
	b.fill = cuda_fill;
	b.axpby = cuda_axpby;
	b.bias_add = cuda_bias_add;
	b.sum_rows = cuda_sum_rows;
	b.relu = cuda_relu;
	b.relu_backward = cuda_relu_backward;
	b.xent = cuda_xent;
	b.xent_backward = cuda_xent_backward;
	b.softmax = cuda_softmax;
	b.softmax_backward = cuda_softmax_backward;
	b.layernorm = cuda_layernorm;
	b.layernorm_backward = cuda_layernorm_backward;
	b.permute0213 = cuda_permute0213;
	b.im2col = cuda_im2col;
	b.col2im = cuda_col2im;
	b.maxpool2 = cuda_maxpool2;
	b.maxpool2_backward = cuda_maxpool2_backward;
	b.lstm_cell = cuda_lstm_cell;
	b.lstm_cell_backward = cuda_lstm_cell_backward;
	return b;
}

static const struct backend backend_cuda = make_backend();

extern "C" const struct backend *backend_cuda_get(void)
{
	return &backend_cuda;
}
