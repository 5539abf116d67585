/*
 * planners.c: see planners.h. Each planner is a row of the table at the
 * bottom and one function above it.
 */
#include "planners.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

uint64_t planner_max_chunk(const uint64_t *a, size_t n, const size_t *splits, size_t n_splits)
{
	uint64_t best = 0, sum = 0;
	size_t s = 0;
	for (size_t i = 0; i < n; i++) {
		while (s < n_splits && splits[s] == i) {
			sum = 0;
			s++;
		}
		sum += a[i];
		if (sum > best)
			best = sum;
	}
	return best;
}

static void plan_init(struct reset_plan *plan, size_t cap)
{
	memset(plan, 0, sizeof *plan);
	plan->splits = xmalloc((cap + 1) * sizeof *plan->splits);
}

/* none: every activation kept. */
static int plan_none(const uint64_t *a, size_t n, uint64_t param, bool exact,
		     struct reset_plan *plan, struct rs_error *err)
{
	(void)param, (void)exact, (void)err;
	plan_init(plan, 0);
	plan->max_chunk = planner_max_chunk(a, n, NULL, 0);
	return 0;
}

/* dp: the reset-point DP of the layer memory tracker with k checkpoints. */
static int plan_dp(const uint64_t *a, size_t n, uint64_t param, bool exact,
		   struct reset_plan *plan, struct rs_error *err)
{
	size_t k = param > n ? n + 1 : (size_t)param; /* more than n + 1 changes nothing */
	if (exact)
		return reset_points_exact(a, n, k, plan, err);
	reset_points_fast(a, n, k, plan);
	return 0;
}

/* sqrtn: Chen et al. 2016, a split every floor(sqrt(n)) forward ops. */
static int plan_sqrtn(const uint64_t *a, size_t n, uint64_t param, bool exact,
		      struct reset_plan *plan, struct rs_error *err)
{
	(void)param, (void)exact, (void)err;
	size_t step = (size_t)sqrt((double)n);
	while (step * step > n)
		step--;
	while ((step + 1) * (step + 1) <= n)
		step++;
	plan_init(plan, n / step);
	for (size_t p = step; p < n; p += step)
		plan->splits[plan->n_splits++] = p;
	plan->max_chunk = planner_max_chunk(a, n, plan->splits, plan->n_splits);
	return 0;
}

/* greedy: Chen's greedy, a split after the op where the running sum passes
 * the segment budget, which then starts again from zero. */
static int plan_greedy(const uint64_t *a, size_t n, uint64_t param, bool exact,
		       struct reset_plan *plan, struct rs_error *err)
{
	(void)exact, (void)err;
	plan_init(plan, n);
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++) {
		sum += a[i];
		if (sum > param && i + 1 < n) {
			plan->splits[plan->n_splits++] = i + 1;
			sum = 0;
		}
	}
	plan->max_chunk = planner_max_chunk(a, n, plan->splits, plan->n_splits);
	return 0;
}

static const struct planner planners[] = {
	{"none", "no checkpoints", PLANNER_PARAM_NONE, NULL,
	 "no split points: every activation kept (the baseline)", plan_none},
	{"dp", "static: DP (k)", PLANNER_PARAM_K, "k",
	 "the layer tracker's reset-point DP with k checkpoints (-k)", plan_dp},
	{"sqrtn", "static: √n", PLANNER_PARAM_NONE, NULL,
	 "Chen et al.: a split every floor(sqrt(n)) forward ops", plan_sqrtn},
	{"greedy", "static: greedy (B)", PLANNER_PARAM_BYTES, "segment_budget",
	 "Chen's greedy: a split where the running sum passes B (--segment-budget)",
	 plan_greedy},
};

const struct planner *planner_list(size_t *n)
{
	*n = sizeof planners / sizeof planners[0];
	return planners;
}

const struct planner *planner_find(const char *name)
{
	for (size_t i = 0; i < sizeof planners / sizeof planners[0]; i++)
		if (!strcasecmp(planners[i].name, name))
			return &planners[i];
	return NULL;
}

void planner_names(char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = 0;
	for (size_t i = 0; i < sizeof planners / sizeof planners[0]; i++)
		len += (size_t)snprintf(buf + (len < size ? len : size), len < size ? size - len : 0,
					"%s%s", i ? ", " : "", planners[i].name);
}

int planner_check_param(const struct planner *pl, const uint64_t *a, size_t n, uint64_t param,
			struct rs_error *err)
{
	if (pl->param != PLANNER_PARAM_BYTES || !n)
		return 0;
	size_t big = 0;
	for (size_t i = 1; i < n; i++)
		if (a[i] > a[big])
			big = i;
	if (param < a[big])
		return rs_error_set(err, EXIT_USAGE, NULL, 0,
				    "%s %llu bytes is below the largest single activation, "
				    "%llu bytes (forward op %zu): no segment can hold it",
				    pl->param_name, (unsigned long long)param,
				    (unsigned long long)a[big], big);
	return 0;
}

/* ------------------------------------------------------------------ */

int planner_replay(const struct planner *pl, const struct schedule *s, const struct baseline *b,
		   const struct profile *p, uint64_t param, bool exact, bool check,
		   struct reset_plan *plan, struct plan_result *res, struct rs_error *err)
{
	memset(plan, 0, sizeof *plan);
	if (pl->plan(p->bytes, p->n, param, exact, plan, err))
		return -1;
	if (plan_replay(s, b, plan->splits, plan->n_splits, check, res, err)) {
		reset_plan_free(plan);
		return -1;
	}
	return 0;
}

/* One try of the search: does param's plan fit? -1 on error. */
static int fit_try(const struct planner *pl, const struct schedule *s, const struct baseline *b,
		   const struct profile *p, uint64_t budget, bool exact, uint64_t param,
		   struct planner_fit *fit, struct rs_error *err)
{
	struct reset_plan plan;
	struct plan_result res;
	if (planner_replay(pl, s, b, p, param, exact, false, &plan, &res, err))
		return -1;
	reset_plan_free(&plan);
	if (fit->n_tries < PLANNER_FIT_MAX_TRIES) {
		fit->tries[fit->n_tries].param = param;
		fit->tries[fit->n_tries].peak = res.run.peak_memory;
		fit->n_tries++;
	}
	return res.run.outcome == OUTCOME_PASS && res.run.peak_memory <= budget;
}

int planner_fit(const struct planner *pl, const struct schedule *s, const struct baseline *b,
		const struct profile *p, uint64_t budget, bool exact, struct planner_fit *fit,
		struct rs_error *err)
{
	memset(fit, 0, sizeof *fit);
	if (pl->param == PLANNER_PARAM_NONE)
		return rs_error_set(err, EXIT_USAGE, NULL, 0,
				    "planner %s has no parameter to search: --budget needs dp or greedy",
				    pl->name);
	uint64_t amax = 0;
	size_t big = 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->bytes[i] > amax) {
			amax = p->bytes[i];
			big = i;
		}
	if (budget < amax)
		return rs_error_set(err, EXIT_USAGE, NULL, 0,
				    "budget %llu bytes is below the largest single activation, "
				    "%llu bytes (forward op %zu): no plan can fit it",
				    (unsigned long long)budget, (unsigned long long)amax, big);
	int r;
	if (pl->param == PLANNER_PARAM_K) {
		/* Gallop k = 0, 1, 2, 4, ... up to n, then bisect (fail, fit]. */
		uint64_t fail = 0, hit = 0, k = 0;
		bool have_fail = false;
		for (;;) {
			if ((r = fit_try(pl, s, b, p, budget, exact, k, fit, err)) < 0)
				return -1;
			if (r) {
				hit = k;
				break;
			}
			fail = k;
			have_fail = true;
			if (k >= p->n)
				return 0; /* not even a split at every op fits */
			k = k ? (2 * k < p->n ? 2 * k : p->n) : 1;
		}
		fit->found = true;
		while (have_fail && hit - fail > 1) {
			uint64_t mid = fail + (hit - fail) / 2;
			if ((r = fit_try(pl, s, b, p, budget, exact, mid, fit, err)) < 0)
				return -1;
			if (r)
				hit = mid;
			else
				fail = mid;
		}
		fit->param = hit;
		return 0;
	}
	/* Segment budget: the largest B in [max a, total] that fits; B >=
	 * total means no split. */
	uint64_t lo = amax, hi = p->total;
	if ((r = fit_try(pl, s, b, p, budget, exact, hi, fit, err)) < 0)
		return -1;
	if (r) {
		fit->found = true;
		fit->param = hi;
		return 0;
	}
	if ((r = fit_try(pl, s, b, p, budget, exact, lo, fit, err)) < 0)
		return -1;
	if (!r)
		return 0;
	fit->found = true;
	while (hi - lo > 1) { /* lo fits, hi does not */
		uint64_t mid = lo + (hi - lo) / 2;
		if ((r = fit_try(pl, s, b, p, budget, exact, mid, fit, err)) < 0)
			return -1;
		if (r)
			lo = mid;
		else
			hi = mid;
	}
	fit->param = lo;
	return 0;
}
