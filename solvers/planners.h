/*
 * planners.h: the static checkpoint planners (SOLVERS.md section 4), one
 * registry row each (name, label, parameter, function), beside the
 * heuristic registry of heuristics.h. A planner turns an activation
 * profile a[0..n-1] (profile.h) and its parameter into split points, which
 * plan_replay (plan.h) replays on the log. Adding a planner is one row and
 * one function in planners.c.
 */
#ifndef REMATSIM_PLANNERS_H
#define REMATSIM_PLANNERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "profile.h"
#include "reset_points.h"
#include "util.h"

/* What a planner's parameter is. */
enum planner_param {
	PLANNER_PARAM_NONE,  /* none (none, sqrtn) */
	PLANNER_PARAM_K,     /* a number of checkpoints, 0 or more (dp) */
	PLANNER_PARAM_BYTES, /* a segment budget in bytes (greedy) */
};

struct planner {
	const char *name;       /* "dp", as the CLI and experiment files name it */
	const char *label;      /* for figures (gnuplot enhanced text) */
	enum planner_param param;
	const char *param_name; /* "k", "segment_budget"; NULL for none */
	const char *summary;    /* one line for --help */
	/* Split points for a[0..n-1] (n >= 1, sum within 64 bits) and the
	 * parameter; exact: the DP's exact mode (only dp reads it). Fills
	 * plan (splits ascending, in 1..n; max_chunk the largest chunk sum)
	 * and returns 0, or -1 with err (EXIT_USAGE). */
	int (*plan)(const uint64_t *a, size_t n, uint64_t param, bool exact,
		    struct reset_plan *plan, struct rs_error *err);
};

/** NULL when no planner has that name. */
const struct planner *planner_find(const char *name);
/** The registry, in a stable order; *n is set to its length. */
const struct planner *planner_list(size_t *n);
/** The names of the registry, ", "-separated, into buf. */
void planner_names(char *buf, size_t size);

/** The largest chunk sum of a[0..n-1] cut at splits (what a plan predicts). */
uint64_t planner_max_chunk(const uint64_t *a, size_t n, const size_t *splits, size_t n_splits);

/**
 * What the command line refuses (a planner itself takes any parameter): a
 * BYTES parameter below the largest single activation, with which greedy
 * would split after every op it passes. 0, or -1 with err (EXIT_USAGE; the
 * message names the forward op index).
 */
int planner_check_param(const struct planner *pl, const uint64_t *a, size_t n, uint64_t param,
			struct rs_error *err);

/* ------------------------------------------------------------------ */
/* Plans on a log: a planner's plan replayed, and the budget search.     */

/** Plan with pl on profile p and replay the plan on s (baseline b). */
int planner_replay(const struct planner *pl, const struct schedule *s, const struct baseline *b,
		   const struct profile *p, uint64_t param, bool exact, bool check,
		   struct reset_plan *plan, struct plan_result *res, struct rs_error *err);

#define PLANNER_FIT_MAX_TRIES 160
struct planner_fit {
	bool found;    /* some parameter's replayed peak fits */
	uint64_t param;/* the answer: dp's smallest k, greedy's largest segment budget */
	size_t n_tries;
	struct {
		uint64_t param, peak;
	} tries[PLANNER_FIT_MAX_TRIES]; /* every replay, in the order run */
};

/**
 * The plan with the fewest split points (dp: smallest k; greedy: largest
 * segment budget) whose replayed peak is at most budget, found by a
 * galloping then binary search that assumes feasibility monotone in the
 * parameter (docs/solvers.md: it is not always, and what that means).
 * Planners without a parameter: EXIT_USAGE. A budget below the largest
 * single activation: EXIT_USAGE.
 */
int planner_fit(const struct planner *pl, const struct schedule *s, const struct baseline *b,
		const struct profile *p, uint64_t budget, bool exact, struct planner_fit *fit,
		struct rs_error *err);

#endif
