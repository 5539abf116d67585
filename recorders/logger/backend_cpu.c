/*
 * backend_cpu.c: the kernels in plain C, timed with CLOCK_MONOTONIC.
 * Reductions accumulate in double so that the finite-difference gradient
 * checks of the tests are not drowned by float rounding.
 */
#include "backend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t timer_t0;

static void cpu_timer_start(void)
{
	timer_t0 = now_ns();
}

static uint64_t cpu_timer_stop(void)
{
	return now_ns() - timer_t0;
}

/* MemAvailable from /proc/meminfo, or physical memory when it's missing. */
static uint64_t available_bytes(uint64_t *total)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	*total = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
	uint64_t avail = *total;
	FILE *f = fopen("/proc/meminfo", "r");
	if (f) {
		char line[256];
		unsigned long long kb;
		while (fgets(line, sizeof line, f))
			if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
				avail = (uint64_t)kb * 1024;
		fclose(f);
	}
	return avail;
}

static int cpu_init(struct backend_info *info, char *msg, size_t msg_size)
{
	(void)msg;
	(void)msg_size;
	struct utsname u;
	if (uname(&u) == 0)
		snprintf(info->device, sizeof info->device, "cpu: %s %s, %ld cores", u.sysname,
			 u.machine, sysconf(_SC_NPROCESSORS_ONLN));
	else
		snprintf(info->device, sizeof info->device, "cpu");
	snprintf(info->driver, sizeof info->driver, "%s", "");
	snprintf(info->runtime, sizeof info->runtime, "C, single thread");
	snprintf(info->clock, sizeof info->clock, "CLOCK_MONOTONIC");
	info->free_bytes = available_bytes(&info->total_bytes);
	return 0;
}

static void cpu_shutdown(void)
{
}

static void *cpu_alloc(size_t bytes)
{
	return malloc(bytes ? bytes : 1);
}

static void cpu_free(void *p)
{
	free(p);
}

static void cpu_copy(void *dst, const void *src, size_t bytes)
{
	memcpy(dst, src, bytes);
}

static void cpu_gemm(int64_t batch, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
		     float alpha, const float *a, int64_t sa, const float *b, int64_t sb,
		     float beta, float *c, int64_t sc)
{
	/*
	 * Row-major; element (i, p) of op(A) and (p, j) of op(B). The row is
	 * accumulated in float so that the inner loop vectorizes.
	 */
	float *row = malloc((size_t)(n ? n : 1) * sizeof *row);
	for (int64_t q = 0; q < batch; q++) {
		const float *A = a + q * sa, *B = b + q * sb;
		float *C = c + q * sc;
		for (int64_t i = 0; i < m; i++) {
			if (tb && !ta) { /* dot products of contiguous rows */
				for (int64_t j = 0; j < n; j++) {
					float s = 0;
					for (int64_t p = 0; p < k; p++)
						s += A[i * k + p] * B[j * k + p];
					row[j] = s;
				}
			} else {
				for (int64_t j = 0; j < n; j++)
					row[j] = 0;
				for (int64_t p = 0; p < k; p++) {
					float av = ta ? A[p * m + i] : A[i * k + p];
					if (av == 0)
						continue;
					if (tb)
						for (int64_t j = 0; j < n; j++)
							row[j] += av * B[j * k + p];
					else
						for (int64_t j = 0; j < n; j++)
							row[j] += av * B[p * n + j];
				}
			}
			for (int64_t j = 0; j < n; j++)
				C[i * n + j] = alpha * row[j] + (beta != 0 ? beta * C[i * n + j] : 0);
		}
	}
	free(row);
}

static void cpu_fill(float *out, float v, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		out[i] = v;
}

static void cpu_axpby(float *out, float a, const float *x, float b, const float *y, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		out[i] = a * x[i] + b * y[i];
}

static void cpu_bias_add(float *out, const float *x, const float *bias, int64_t rows,
			 int64_t cols)
{
	for (int64_t r = 0; r < rows; r++)
		for (int64_t c = 0; c < cols; c++)
			out[r * cols + c] = x[r * cols + c] + bias[c];
}

static void cpu_sum_rows(float *out, const float *x, int64_t rows, int64_t cols)
{
	for (int64_t c = 0; c < cols; c++) {
		double s = 0;
		for (int64_t r = 0; r < rows; r++)
			s += x[r * cols + c];
		out[c] = (float)s;
	}
}

static void cpu_relu(float *out, const float *x, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		out[i] = x[i] > 0 ? x[i] : 0;
}

static void cpu_relu_backward(float *dx, const float *dy, const float *y, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		dx[i] = y[i] > 0 ? dy[i] : 0;
}

/* log-sum-exp of one row, stable. */
static double row_lse(const float *x, int64_t cols)
{
	double mx = x[0], s = 0;
	for (int64_t c = 1; c < cols; c++)
		if (x[c] > mx)
			mx = x[c];
	for (int64_t c = 0; c < cols; c++)
		s += exp(x[c] - mx);
	return mx + log(s);
}

static void cpu_xent(float *loss, const float *logits, const float *labels, int64_t rows,
		     int64_t cols)
{
	double s = 0;
	for (int64_t r = 0; r < rows; r++) {
		const float *x = logits + r * cols;
		s += row_lse(x, cols) - x[(int64_t)labels[r]];
	}
	*loss = (float)(s / (double)rows);
}

static void cpu_xent_backward(float *dl, const float *logits, const float *labels,
			      int64_t rows, int64_t cols)
{
	for (int64_t r = 0; r < rows; r++) {
		const float *x = logits + r * cols;
		double lse = row_lse(x, cols);
		for (int64_t c = 0; c < cols; c++)
			dl[r * cols + c] = (float)((exp(x[c] - lse) - (c == (int64_t)labels[r])) /
						   (double)rows);
	}
}

static void cpu_softmax(float *y, const float *x, int64_t rows, int64_t cols)
{
	for (int64_t r = 0; r < rows; r++) {
		double lse = row_lse(x + r * cols, cols);
		for (int64_t c = 0; c < cols; c++)
			y[r * cols + c] = (float)exp(x[r * cols + c] - lse);
	}
}

static void cpu_softmax_backward(float *dx, const float *dy, const float *y, int64_t rows,
				 int64_t cols)
{
	for (int64_t r = 0; r < rows; r++) {
		double dot = 0;
		for (int64_t c = 0; c < cols; c++)
			dot += (double)dy[r * cols + c] * y[r * cols + c];
		for (int64_t c = 0; c < cols; c++)
			dx[r * cols + c] = (float)(y[r * cols + c] * (dy[r * cols + c] - dot));
	}
}

static const double ln_eps = 1e-5;

static void cpu_layernorm(float *y, float *stats, const float *x, const float *g,
			  const float *b, int64_t rows, int64_t cols)
{
	for (int64_t r = 0; r < rows; r++) {
		const float *xr = x + r * cols;
		double mean = 0, var = 0;
		for (int64_t c = 0; c < cols; c++)
			mean += xr[c];
		mean /= (double)cols;
		for (int64_t c = 0; c < cols; c++)
			var += (xr[c] - mean) * (xr[c] - mean);
		double rstd = 1 / sqrt(var / (double)cols + ln_eps);
		stats[2 * r] = (float)mean;
		stats[2 * r + 1] = (float)rstd;
		for (int64_t c = 0; c < cols; c++)
			y[r * cols + c] = (float)((xr[c] - mean) * rstd * g[c] + b[c]);
	}
}

static void cpu_layernorm_backward(float *dx, float *dg, float *db, const float *dy,
				   const float *x, const float *g, const float *stats,
				   int64_t rows, int64_t cols)
{
	for (int64_t c = 0; c < cols; c++) {
		double sg = 0, sb = 0;
		for (int64_t r = 0; r < rows; r++) {
			double xh = (x[r * cols + c] - stats[2 * r]) * stats[2 * r + 1];
			sg += dy[r * cols + c] * xh;
			sb += dy[r * cols + c];
		}
		dg[c] = (float)sg;
		db[c] = (float)sb;
	}
	for (int64_t r = 0; r < rows; r++) {
		double mean = stats[2 * r], rstd = stats[2 * r + 1], s1 = 0, s2 = 0;
		for (int64_t c = 0; c < cols; c++) {
			double dxh = (double)dy[r * cols + c] * g[c];
			double xh = (x[r * cols + c] - mean) * rstd;
			s1 += dxh;
			s2 += dxh * xh;
		}
		for (int64_t c = 0; c < cols; c++) {
			double dxh = (double)dy[r * cols + c] * g[c];
			double xh = (x[r * cols + c] - mean) * rstd;
			dx[r * cols + c] =
				(float)(rstd * (dxh - s1 / (double)cols - xh * s2 / (double)cols));
		}
	}
}

static void cpu_permute0213(float *out, const float *x, int64_t A, int64_t B, int64_t C,
			    int64_t D)
{
	for (int64_t a = 0; a < A; a++)
		for (int64_t b = 0; b < B; b++)
			for (int64_t c = 0; c < C; c++)
				memcpy(out + ((a * C + c) * B + b) * D, x + ((a * B + b) * C + c) * D,
				       (size_t)D * sizeof *x);
}

static void cpu_im2col(float *cols, const float *x, int64_t n, int64_t h, int64_t w, int64_t c,
		       int64_t k)
{
	int64_t pad = k / 2, kc = k * k * c;
	for (int64_t b = 0; b < n; b++)
		for (int64_t y = 0; y < h; y++)
			for (int64_t z = 0; z < w; z++) {
				float *row = cols + ((b * h + y) * w + z) * kc;
				for (int64_t i = 0; i < k; i++)
					for (int64_t j = 0; j < k; j++) {
						int64_t yy = y + i - pad, zz = z + j - pad;
						float *dst = row + (i * k + j) * c;
						if (yy < 0 || yy >= h || zz < 0 || zz >= w)
							memset(dst, 0, (size_t)c * sizeof *dst);
						else
							memcpy(dst, x + ((b * h + yy) * w + zz) * c,
							       (size_t)c * sizeof *dst);
					}
			}
}

static void cpu_col2im(float *dx, const float *dcols, int64_t n, int64_t h, int64_t w,
		       int64_t c, int64_t k)
{
	int64_t pad = k / 2, kc = k * k * c;
	memset(dx, 0, (size_t)(n * h * w * c) * sizeof *dx);
	for (int64_t b = 0; b < n; b++)
		for (int64_t y = 0; y < h; y++)
			for (int64_t z = 0; z < w; z++) {
				const float *row = dcols + ((b * h + y) * w + z) * kc;
				for (int64_t i = 0; i < k; i++)
					for (int64_t j = 0; j < k; j++) {
						int64_t yy = y + i - pad, zz = z + j - pad;
						if (yy < 0 || yy >= h || zz < 0 || zz >= w)
							continue;
						float *d = dx + ((b * h + yy) * w + zz) * c;
						const float *s = row + (i * k + j) * c;
						for (int64_t q = 0; q < c; q++)
							d[q] += s[q];
					}
			}
}

static void cpu_maxpool2(float *y, const float *x, int64_t n, int64_t h, int64_t w, int64_t c)
{
	int64_t oh = h / 2, ow = w / 2;
	for (int64_t b = 0; b < n; b++)
		for (int64_t i = 0; i < oh; i++)
			for (int64_t j = 0; j < ow; j++)
				for (int64_t q = 0; q < c; q++) {
					float m = -INFINITY;
					for (int64_t di = 0; di < 2; di++)
						for (int64_t dj = 0; dj < 2; dj++) {
							float v = x[((b * h + 2 * i + di) * w + 2 * j +
								     dj) * c + q];
							if (v > m)
								m = v;
						}
					y[((b * oh + i) * ow + j) * c + q] = m;
				}
}

/* The gradient goes to the first maximum of each window, as in the CUDA kernel. */
static void cpu_maxpool2_backward(float *dx, const float *dy, const float *x, const float *y,
				  int64_t n, int64_t h, int64_t w, int64_t c)
{
	int64_t oh = h / 2, ow = w / 2;
	memset(dx, 0, (size_t)(n * h * w * c) * sizeof *dx);
	for (int64_t b = 0; b < n; b++)
		for (int64_t i = 0; i < oh; i++)
			for (int64_t j = 0; j < ow; j++)
				for (int64_t q = 0; q < c; q++) {
					int64_t o = ((b * oh + i) * ow + j) * c + q;
					for (int64_t d = 0; d < 4; d++) {
						int64_t at = ((b * h + 2 * i + d / 2) * w + 2 * j +
							      d % 2) * c + q;
						if (x[at] == y[o]) {
							dx[at] = dy[o];
							break;
						}
					}
				}
}

static double sigm(double v)
{
	return 1 / (1 + exp(-v));
}

static void cpu_lstm_cell(float *h, float *c, float *act, const float *gates,
			  const float *c_prev, int64_t n, int64_t hid)
{
	for (int64_t b = 0; b < n; b++)
		for (int64_t j = 0; j < hid; j++) {
			const float *g = gates + b * 4 * hid;
			float *a = act + b * 4 * hid;
			double i_ = sigm(g[j]), f_ = sigm(g[hid + j]), g_ = tanh(g[2 * hid + j]),
			       o_ = sigm(g[3 * hid + j]);
			a[j] = (float)i_;
			a[hid + j] = (float)f_;
			a[2 * hid + j] = (float)g_;
			a[3 * hid + j] = (float)o_;
			double cc = f_ * c_prev[b * hid + j] + i_ * g_;
			c[b * hid + j] = (float)cc;
			h[b * hid + j] = (float)(o_ * tanh(cc));
		}
}

static void cpu_lstm_cell_backward(float *dgates, float *dc_prev, const float *dh,
				   const float *dc, const float *act, const float *c_prev,
				   const float *c, int64_t n, int64_t hid)
{
	for (int64_t b = 0; b < n; b++)
		for (int64_t j = 0; j < hid; j++) {
			const float *a = act + b * 4 * hid;
			float *dg = dgates + b * 4 * hid;
			int64_t e = b * hid + j;
			double i_ = a[j], f_ = a[hid + j], g_ = a[2 * hid + j], o_ = a[3 * hid + j];
			double tc = tanh(c[e]);
			double dct = (dc ? dc[e] : 0) + dh[e] * o_ * (1 - tc * tc);
			dg[j] = (float)(dct * g_ * i_ * (1 - i_));
			dg[hid + j] = (float)(dct * c_prev[e] * f_ * (1 - f_));
			dg[2 * hid + j] = (float)(dct * i_ * (1 - g_ * g_));
			dg[3 * hid + j] = (float)(dh[e] * tc * o_ * (1 - o_));
			dc_prev[e] = (float)(dct * f_);
		}
}

const struct backend backend_cpu = {
	.name = "cpu",
	.init = cpu_init,
	.shutdown = cpu_shutdown,
	.alloc = cpu_alloc,
	.free = cpu_free,
	.upload = cpu_copy,
	.download = cpu_copy,
	.timer_start = cpu_timer_start,
	.timer_stop = cpu_timer_stop,
	.gemm = cpu_gemm,
	.fill = cpu_fill,
	.axpby = cpu_axpby,
	.bias_add = cpu_bias_add,
	.sum_rows = cpu_sum_rows,
	.relu = cpu_relu,
	.relu_backward = cpu_relu_backward,
	.xent = cpu_xent,
	.xent_backward = cpu_xent_backward,
	.softmax = cpu_softmax,
	.softmax_backward = cpu_softmax_backward,
	.layernorm = cpu_layernorm,
	.layernorm_backward = cpu_layernorm_backward,
	.permute0213 = cpu_permute0213,
	.im2col = cpu_im2col,
	.col2im = cpu_col2im,
	.maxpool2 = cpu_maxpool2,
	.maxpool2_backward = cpu_maxpool2_backward,
	.lstm_cell = cpu_lstm_cell,
	.lstm_cell_backward = cpu_lstm_cell_backward,
};
