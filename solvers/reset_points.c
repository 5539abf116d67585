/*
 * reset_points.c: see reset_points.h.
 *
 * The exact mode fills the recursion f(pos, r) bottom-up, row by row,
 * instead of by recursion (the tracker's Python recomputes it), keeping only
 * the values; following the first best choices from f(0, k), found again
 * from the rows, rebuilds the tracker's split list. Each state's choice is
 * found by binary search (see exact_choice), so the whole is O(k n log n)
 * time and O(min(k, n) n) memory, not the tracker's O(k n^2).
 */
#include "reset_points.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "util.h"

int reset_points_sum(const uint64_t *a, size_t n, uint64_t *sum)
{
	uint64_t t = 0;
	for (size_t i = 0; i < n; i++) {
		if (a[i] > UINT64_MAX - t)
			return -1;
		t += a[i];
	}
	*sum = t;
	return 0;
}

void reset_plan_free(struct reset_plan *plan)
{
	free(plan->splits);
	plan->splits = NULL;
	plan->n_splits = 0;
}

/*
 * For r >= 1, f(pos, r) tries j = pos..n-1 with value
 * g(j) = max(c(j), d(j)), c(j) = sum a[pos..j] (non-decreasing in j) and
 * d(j) = f(j+1, r-1) (non-increasing: an optimum over fewer items is no
 * larger). So c - d is non-decreasing: with j* the first j where
 * c(j) >= d(j), g = d before j* (non-increasing) and g = c from j* on
 * (non-decreasing). The smallest value is min(d(j*-1), c(j*)), and the
 * first j reaching it is j* when c(j*) < d(j*-1), else the first j with
 * d(j) == d(j*-1). Both are binary searches: O(log n) per state instead
 * of the tracker's O(n), the same value and the same (first) choice.
 */
static size_t exact_choice(const uint64_t *suffix, const uint64_t *prev, size_t n, size_t pos,
			   uint64_t *value)
{
	size_t lo = pos, hi = n - 1; /* d(n-1) = f(n, r-1) = 0: j* exists */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (suffix[pos] - suffix[mid + 1] >= prev[mid + 1])
			hi = mid;
		else
			lo = mid + 1;
	}
	size_t js = lo;
	uint64_t cj = suffix[pos] - suffix[js + 1];
	if (js == pos || cj < prev[js]) {
		*value = cj;
		return js;
	}
	uint64_t target = prev[js]; /* d(j*-1) */
	lo = pos;
	hi = js - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (prev[mid + 1] <= target)
			hi = mid;
		else
			lo = mid + 1;
	}
	*value = target;
	return lo;
}

int reset_points_exact(const uint64_t *a, size_t n, size_t k, struct reset_plan *plan,
		       struct rs_error *err)
{
	memset(plan, 0, sizeof *plan);
	/* Rows past n repeat row n (enough checkpoints for every item). */
	size_t rows = k < n ? k : n;
	if (n && (rows + 1) > RESET_POINTS_EXACT_CELLS / (n + 1))
		return rs_error_set(err, EXIT_USAGE, NULL, 0,
				    "exact mode needs a table of (k+1)(n+1) = %zu x %zu values, "
				    "over its limit of %llu: use the fast mode (same value)",
				    rows + 1, n + 1, (unsigned long long)RESET_POINTS_EXACT_CELLS);
	plan->splits = xmalloc((rows + 1) * sizeof *plan->splits);
	if (n == 0)
		return 0;
	/* suffix[p] = sum a[p..n-1] (the caller checked it fits) */
	uint64_t *suffix = xmalloc((n + 1) * sizeof *suffix);
	suffix[n] = 0;
	for (size_t p = n; p-- > 0;)
		suffix[p] = suffix[p + 1] + a[p];
	/* value[r][pos] = f(pos, r) for pos in 0..n, r in 0..rows */
	uint64_t *value = xmalloc((rows + 1) * (n + 1) * sizeof *value);
	memcpy(value, suffix, (n + 1) * sizeof *value); /* r == 0 */
	for (size_t r = 1; r <= rows; r++) {
		uint64_t *cur = value + r * (n + 1), *prev = cur - (n + 1);
		cur[n] = 0; /* pos == n is tested before r == 0 */
		for (size_t pos = 0; pos < n; pos++)
			exact_choice(suffix, prev, n, pos, &cur[pos]);
	}
	plan->max_chunk = value[rows * (n + 1)];
	size_t pos = 0;
	for (size_t r = k; r > 0 && pos < n; r--) {
		size_t row = r - 1 < rows ? r - 1 : rows;
		uint64_t v;
		size_t j = exact_choice(suffix, value + row * (n + 1), n, pos, &v);
		plan->splits[plan->n_splits++] = j + 1;
		pos = j + 1;
	}
	free(value);
	free(suffix);
	return 0;
}

void reset_points_exact_naive(const uint64_t *a, size_t n, size_t k, struct reset_plan *plan)
{
	memset(plan, 0, sizeof *plan);
	plan->splits = xmalloc((k + 1) * sizeof *plan->splits);
	if (n == 0)
		return;
	uint64_t *suffix = xmalloc((n + 1) * sizeof *suffix);
	suffix[n] = 0;
	for (size_t p = n; p-- > 0;)
		suffix[p] = suffix[p + 1] + a[p];
	uint64_t *value = xmalloc((k + 1) * (n + 1) * sizeof *value);
	size_t *choice = xmalloc((k + 1) * (n + 1) * sizeof *choice);
#define V(r, p) value[(size_t)(r) * (n + 1) + (p)]
#define C(r, p) choice[(size_t)(r) * (n + 1) + (p)]
	for (size_t r = 0; r <= k; r++) {
		V(r, n) = 0;
		C(r, n) = n;
		for (size_t pos = n; pos-- > 0;) {
			if (r == 0) {
				V(r, pos) = suffix[pos];
				continue;
			}
			uint64_t best = UINT64_MAX;
			size_t best_j = pos;
			for (size_t j = pos; j < n; j++) {
				uint64_t chunk = suffix[pos] - suffix[j + 1];
				uint64_t rest = V(r - 1, j + 1);
				uint64_t v = chunk > rest ? chunk : rest;
				if (v < best) {
					best = v;
					best_j = j;
				}
			}
			V(r, pos) = best;
			C(r, pos) = best_j;
		}
	}
	plan->max_chunk = V(k, 0);
	size_t pos = 0;
	for (size_t r = k; r > 0 && pos < n; r--) {
		size_t j = C(r, pos);
		plan->splits[plan->n_splits++] = j + 1;
		pos = j + 1;
	}
#undef V
#undef C
	free(value);
	free(choice);
	free(suffix);
}

/* Chunks needed when no chunk may exceed cap (every a[i] <= cap), counted
 * up to limit + 1: a linear scan. */
static size_t chunks_needed(const uint64_t *a, size_t n, uint64_t cap, size_t limit)
{
	size_t chunks = 1;
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++) {
		if (sum + a[i] > cap) {
			if (++chunks > limit)
				return chunks;
			sum = 0;
		}
		sum += a[i];
	}
	return chunks;
}

/* The same count from prefix sums (pre[i] = sum a[0..i-1]), each chunk's
 * end found by binary search: O(limit log n) instead of O(n). */
static size_t chunks_needed_jump(const uint64_t *pre, size_t n, uint64_t cap, size_t limit)
{
	size_t chunks = 0, pos = 0;
	while (pos < n) {
		if (++chunks > limit)
			return chunks;
		uint64_t target = pre[pos] + cap < pre[pos] ? UINT64_MAX : pre[pos] + cap;
		/* the largest j in (pos, n] with pre[j] <= target (a[pos] <= cap) */
		size_t lo = pos + 1, hi = n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo + 1) / 2;
			if (pre[mid] <= target)
				lo = mid;
			else
				hi = mid - 1;
		}
		pos = lo;
	}
	return chunks ? chunks : 1;
}

/*
 * The answer lies in [max(max a, ceil(sum / (k+1))), that + max a]: with
 * cap = ceil(sum / (k+1)) + max a, the greedy scan closes a chunk only
 * when the next item would pass cap, so every closed chunk holds more
 * than sum / (k+1), and there are at most k+1 chunks. So the binary search
 * takes log2(max a) steps, not log2(sum); each step scans linearly, or,
 * when k is small beside n, jumps chunk by chunk through prefix sums.
 */
void reset_points_fast(const uint64_t *a, size_t n, size_t k, struct reset_plan *plan)
{
	memset(plan, 0, sizeof *plan);
	if (k > n)
		k = n; /* the same value: every item alone */
	plan->splits = xmalloc((k + 1) * sizeof *plan->splits);
	if (n == 0)
		return;
	uint64_t amax = 0, sum = 0;
	for (size_t i = 0; i < n; i++) {
		if (a[i] > amax)
			amax = a[i];
		sum += a[i];
	}
	uint64_t avg = sum / (k + 1) + (sum % (k + 1) != 0);
	uint64_t lo = avg > amax ? avg : amax;
	uint64_t hi = avg + amax < avg || avg + amax > sum ? sum : avg + amax;
	if (hi < lo)
		hi = lo;
	size_t log_n = 1;
	while ((n >> log_n) > 0)
		log_n++;
	uint64_t *pre = NULL;
	if ((k + 1) * log_n * 4 < n) {
		pre = xmalloc((n + 1) * sizeof *pre);
		pre[0] = 0;
		for (size_t i = 0; i < n; i++)
			pre[i + 1] = pre[i] + a[i];
	}
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		size_t c = pre ? chunks_needed_jump(pre, n, mid, k + 1) : chunks_needed(a, n, mid, k + 1);
		if (c <= k + 1)
			hi = mid;
		else
			lo = mid + 1;
	}
	free(pre);
	plan->max_chunk = lo;
	uint64_t run = 0;
	for (size_t i = 0; i < n; i++) {
		if (run + a[i] > lo && plan->n_splits < k) {
			plan->splits[plan->n_splits++] = i;
			run = 0;
		}
		run += a[i];
	}
}

/* ---------------------------------------------------------- size files */

/* A large buffer (free with free): on Linux in huge pages where the kernel
 * gives them on request, which turns a million-line file's thousands of
 * page faults (most of its reading time) into a handful. */
static void *big_alloc(size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	size_t huge = (size_t)2 << 20;
	if (bytes >= huge) {
		void *p = NULL;
		if (posix_memalign(&p, huge, bytes))
			rs_bug("out of memory (%zu bytes)", bytes);
		madvise(p, bytes, MADV_HUGEPAGE);
		return p;
	}
#endif
	return xmalloc(bytes);
}

static int bad_size(struct rs_error *err, const char *path, long line, const char *p)
{
	int w = 0;
	while (w < 40 && p[w] != '\n')
		w++;
	return rs_error_set(err, EXIT_DATAERR, path, line,
			    "'%.*s' is not a whole number of bytes (one per line, '#' starts "
			    "a comment)", w, p);
}

int reset_points_read_sizes(const char *path, uint64_t **out, size_t *n_out,
			    struct rs_error *err)
{
	*out = NULL;
	*n_out = 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return rs_error_set(err, EXIT_NOINPUT, path, 0, "cannot open: %s", strerror(errno));
	/* Not results.h's whole-file reader: sized by fstat and in huge pages
	 * (big_alloc), which took a million-line file from 5700 page faults
	 * to 2200, most of its reading time. */
	struct stat st;
	size_t cap = fstat(fileno(f), &st) == 0 && st.st_size > 0 ? (size_t)st.st_size + 1 : 1 << 16;
	size_t len = 0;
	char *buf = big_alloc(cap + 1);
	for (;;) {
		size_t got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
		if (len == cap)
			buf = xrealloc(buf, (cap *= 2) + 1);
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		return rs_error_set(err, EXIT_NOINPUT, path, 0, "cannot read");
	}
	buf[len] = '\n';
	/* at most one size per two bytes ("7\n"); pages never written cost nothing */
	uint64_t *a = big_alloc((len / 2 + 1) * sizeof *a), sum = 0;
	size_t n = 0;
	long line = 0;
	int rc = 0;
	const char *p = buf, *end = buf + len;
	while (p < end && !rc) {
		line++;
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (*p >= '0' && *p <= '9') {
			const char *q = p;
			uint64_t v = 0;
			bool overflow = false;
			/* 19 digits always fit in 64 bits; check only past them */
			for (; *q >= '0' && *q <= '9' && q - p < 19; q++)
				v = v * 10 + (unsigned)(*q - '0');
			for (; *q >= '0' && *q <= '9'; q++) {
				unsigned d = (unsigned)(*q - '0');
				if (v > UINT64_MAX / 10 || (v == UINT64_MAX / 10 && d > UINT64_MAX % 10))
					overflow = true;
				v = v * 10 + d;
			}
			const char *r = q;
			while (*r == ' ' || *r == '\t' || *r == '\r')
				r++;
			if (*r != '\n' && *r != '#')
				rc = bad_size(err, path, line, p);
			else if (overflow)
				rc = rs_error_set(err, EXIT_DATAERR, path, line,
						  "%.*s does not fit in 64 bits", (int)(q - p), p);
			else if (v > UINT64_MAX - sum)
				rc = rs_error_set(err, EXIT_DATAERR, path, line,
						  "the sizes' sum passes 2^64 - 1 bytes here");
			sum += v;
			a[n++] = v;
			p = r;
		} else if (*p == '-') {
			rc = rs_error_set(err, EXIT_DATAERR, path, line,
					  "a negative size: sizes are bytes, 0 or more");
		} else if (*p != '\n' && *p != '#') {
			rc = bad_size(err, path, line, p);
		}
		if (!rc)
			p = *p == '\n' ? p + 1 : (const char *)memchr(p, '\n', (size_t)(end + 1 - p)) + 1;
	}
	free(buf);
	/* No sizes (an empty file, or `#` comments only) is a list like any
	 * other: the tracker's answer for it is 0 with no split points. */
	if (rc) {
		free(a);
		return -1;
	}
	*out = a;
	*n_out = n;
	return 0;
}
