/*
 * reset_points.c: see reset_points.h.
 *
 * The exact mode fills the recursion f(pos, r) bottom-up instead of by
 * memoised recursion (the tracker's Python recomputes it), keeping for each
 * state the value and the first j that reaches it; following the choices
 * from f(0, k) rebuilds the tracker's split list.
 */
#include "reset_points.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

void reset_plan_free(struct reset_plan *plan)
{
	free(plan->splits);
	plan->splits = NULL;
	plan->n_splits = 0;
}

void reset_points_exact(const uint64_t *a, size_t n, size_t k, struct reset_plan *plan)
{
	memset(plan, 0, sizeof *plan);
	plan->splits = xmalloc((k + 1) * sizeof *plan->splits);
	if (n == 0)
		return;
	/* suffix[p] = sum a[p..n-1] */
	uint64_t *suffix = xmalloc((n + 1) * sizeof *suffix);
	suffix[n] = 0;
	for (size_t p = n; p-- > 0;)
		suffix[p] = suffix[p + 1] + a[p];
	/* value[r][pos], choice[r][pos] for pos in 0..n */
	uint64_t *value = xmalloc((k + 1) * (n + 1) * sizeof *value);
	size_t *choice = xmalloc((k + 1) * (n + 1) * sizeof *choice);
#define V(r, p) value[(size_t)(r) * (n + 1) + (p)]
#define C(r, p) choice[(size_t)(r) * (n + 1) + (p)]
	for (size_t r = 0; r <= k; r++) {
		V(r, n) = 0; /* pos == n is tested before r == 0 */
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

/* Chunks needed when no chunk may exceed cap (every a[i] <= cap). */
static size_t chunks_needed(const uint64_t *a, size_t n, uint64_t cap)
{
	size_t chunks = 1;
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++) {
		if (sum + a[i] > cap) {
			chunks++;
			sum = 0;
		}
		sum += a[i];
	}
	return chunks;
}

void reset_points_fast(const uint64_t *a, size_t n, size_t k, struct reset_plan *plan)
{
	memset(plan, 0, sizeof *plan);
	plan->splits = xmalloc((k + 1) * sizeof *plan->splits);
	if (n == 0)
		return;
	uint64_t lo = 0, hi = 0;
	for (size_t i = 0; i < n; i++) {
		if (a[i] > lo)
			lo = a[i];
		hi += a[i];
	}
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (chunks_needed(a, n, mid) <= k + 1)
			hi = mid;
		else
			lo = mid + 1;
	}
	plan->max_chunk = lo;
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++) {
		if (sum + a[i] > lo && plan->n_splits < k) {
			plan->splits[plan->n_splits++] = i;
			sum = 0;
		}
		sum += a[i];
	}
}
