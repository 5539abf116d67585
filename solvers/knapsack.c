/*
 * knapsack.c: see knapsack.h. Written from the problem as PyTorch states it
 * (test_ac_knapsack.py's cases, the activation_memory_budget docs), not
 * from its code: a DP over whole weight units with a bit per (item, units)
 * for the backtrack.
 */
#include "knapsack.h"

#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void knapsack_solve(const uint64_t *weight, const double *runtime, size_t n, uint64_t cap,
		    bool *save, struct knapsack_answer *ans)
{
	memset(ans, 0, sizeof *ans);
	for (size_t i = 0; i < n; i++)
		save[i] = false;
	uint64_t g = 0;
	for (size_t i = 0; i < n; i++)
		g = gcd_u64(g, weight[i]);
	if (!g)
		g = 1;
	ans->unit = g;
	if (!n)
		return;
	/* units of capacity the DP may hold: n x (units + 1) cells, at most
	 * 2^22 + 1 doubles */
	uint64_t max_units = KNAPSACK_MAX_CELLS / n;
	if (max_units > (1u << 22))
		max_units = 1u << 22;
	if (max_units < 2)
		max_units = 2;
	max_units -= 1;
	uint64_t u = g;
	if (cap / g > max_units) {
		u = cap / max_units + (cap % max_units != 0);
		if (u < g)
			u = g;
		ans->quantized = true;
		ans->unit = u;
	}
	size_t units = (size_t)(cap / u);
	size_t width = units + 1;
	uint64_t *w = xmalloc(n * sizeof *w);
	for (size_t i = 0; i < n; i++)
		w[i] = weight[i] / u + (weight[i] % u != 0); /* rounded up: the set fits */
	double *dp = xcalloc(width, sizeof *dp);
	size_t words = (width + 63) / 64;
	uint64_t *take = xcalloc(n * words, sizeof *take);
	for (size_t i = 0; i < n; i++) {
		if (w[i] > units || !(runtime[i] > 0))
			continue;
		uint64_t *row = take + i * words;
		size_t wi = (size_t)w[i];
		for (size_t c = units + 1; c-- > wi;) {
			double v = dp[c - wi] + runtime[i];
			if (v > dp[c]) {
				dp[c] = v;
				row[c / 64] |= UINT64_C(1) << (c % 64);
			}
		}
	}
	size_t c = units;
	for (size_t i = n; i-- > 0;) {
		if (take[i * words + c / 64] >> (c % 64) & 1) {
			save[i] = true;
			c -= (size_t)w[i];
			ans->saved_runtime += runtime[i];
			ans->saved_weight += weight[i];
		}
	}
	free(take);
	free(dp);
	free(w);
}

int knapsack_plan_make(const struct profile *p, double fraction, struct knapsack_plan *kp,
		       struct rs_error *err)
{
	memset(kp, 0, sizeof *kp);
	if (!(fraction >= 0 && fraction <= 1))
		return rs_error_set(err, EXIT_USAGE, NULL, 0,
				    "the knapsack's budget is a fraction of the activations from 0 "
				    "to 1 (as torch's activation_memory_budget), not %g", fraction);
	kp->fraction = fraction;
	long double c = floorl((long double)fraction * (long double)p->total);
	kp->capacity = c >= (long double)p->total ? p->total : (uint64_t)c;
	size_t m = 0;
	for (size_t i = 0; i < p->n; i++)
		m += p->bytes[i] > 0;
	kp->n_items = m;
	uint64_t *w = xmalloc((m + 1) * sizeof *w);
	double *rt = xmalloc((m + 1) * sizeof *rt);
	size_t *idx = xmalloc((m + 1) * sizeof *idx);
	bool *save = xmalloc((m + 1) * sizeof *save);
	m = 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->bytes[i] > 0) {
			int64_t cost = p->s ? p->s->ops[p->op[i]].cost : 0;
			w[m] = p->bytes[i];
			rt[m] = cost > 0 ? (double)cost : 0;
			idx[m++] = i;
		}
	knapsack_solve(w, rt, m, kp->capacity, save, &kp->ans);
	kp->recompute = xcalloc(p->n + 1, sizeof *kp->recompute);
	for (size_t k = 0; k < m; k++)
		if (!save[k]) {
			size_t i = idx[k];
			kp->recompute[i] = true;
			kp->n_recompute++;
			kp->recompute_bytes += w[k];
			kp->recompute_runtime += (int64_t)rt[k];
		}
	free(save);
	free(idx);
	free(rt);
	free(w);
	return 0;
}

void knapsack_plan_free(struct knapsack_plan *kp)
{
	free(kp->recompute);
	kp->recompute = NULL;
}
