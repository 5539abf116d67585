/*
 * planners.h: the static checkpoint planners (SOLVERS.md section 4), one
 * registry row each (name, label, parameter, function), beside the
 * heuristic registry of heuristics.h. A planner turns a profile
 * (profile.h: the activations a[0..n-1] of the forward ops, and the graph
 * of every op) and its parameter into split points, which plan_replay
 * (plan.h) replays on the log, or into an explicit schedule (steps.h),
 * which plan_replay_steps replays and which must replay to the numbers its
 * planner predicts. Adding a planner is one row and one function in
 * planners.c (a large one in its own file).
 */
#ifndef REMATSIM_PLANNERS_H
#define REMATSIM_PLANNERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ilp.h"
#include "plan.h"
#include "profile.h"
#include "reset_points.h"
#include "steps.h"
#include "util.h"

/* What a planner's parameter is. */
enum planner_param {
	PLANNER_PARAM_NONE,   /* none (none, sqrtn) */
	PLANNER_PARAM_K,      /* a number of checkpoints, 0 or more (dp) */
	PLANNER_PARAM_BYTES,  /* a segment budget in bytes (greedy) */
	PLANNER_PARAM_BUDGET, /* the memory budget in bytes (ilp, ilp-lp) */
	PLANNER_PARAM_COUNT,  /* a count of snapshots, 1 or more (revolve; griewank-logn: 0
			       * for its default) */
};

/* Random roundings of ilp-lp unless told otherwise. */
#define PLANNER_DEFAULT_ROUNDS 100

/* What a planner is given besides the profile. */
struct planner_args {
	uint64_t param;       /* its parameter (0 for none) */
	bool exact;           /* dp: the DP's exact mode */
	double time_limit;    /* ilp, ilp-lp: seconds for the solver; 0: none */
	const char *solver;   /* ilp, ilp-lp: "cbc" or "glpk"; NULL: the first built in */
	uint64_t seed;        /* ilp-lp: the randomized rounding's seed */
	unsigned rounds;      /* ilp-lp: randomized roundings */
	bool no_start;        /* ilp: no MIP start (start.h) */
	double deadline;      /* ilp, ilp-lp: when the solve must end (now_seconds(); 0: none) */
	int lns;              /* ilp: ilp_options.lns */
};

/*
 * A plan: split points into the forward ops (SOLVERS.md section 3), or an
 * explicit schedule of every op (steps.h), with what its own model says
 * it costs (which the replay must reproduce).
 */
enum planner_kind { PLAN_SPLITS, PLAN_STEPS };
struct planner_plan {
	enum planner_kind kind;
	struct reset_plan split;  /* PLAN_SPLITS: splits, n_splits, max_chunk */
	struct plan_steps steps;  /* PLAN_STEPS */
	struct steps_cost cost;   /* PLAN_STEPS: peak, compute, remats by the graph */
	struct ilp_result ilp;    /* ilp, ilp-lp: the solver's answer */
	uint64_t fwd_steps;       /* revolve, griewank-logn: forward steps (revolve_closed_form) */
	uint64_t snapshots;       /* griewank-logn: the snapshots used */
	size_t chain;             /* griewank-logn: the linearised chain's steps */
};
void planner_plan_free(struct planner_plan *plan);

struct planner {
	const char *name;       /* "dp", as the CLI and experiment files name it */
	const char *label;      /* for figures (gnuplot enhanced text) */
	enum planner_param param;
	const char *param_name; /* "k", "segment_budget", "budget", "snapshots"; NULL for none */
	const char *summary;    /* one line for --help */
	bool needs_graph;       /* plans every op: needs the profile's graph */
	/* A plan for profile p (p->n >= 1, its sum within 64 bits; the graph
	 * made if needs_graph) and a. Fills plan and returns 0, or -1 with err
	 * (EXIT_USAGE: a bad parameter; EXIT_DATAERR: a log the planner cannot
	 * take, or no plan that fits; EXIT_UNAVAILABLE: a solver not built in;
	 * EXIT_SOFTWARE: a bug). Splits are ascending, in 1..n, max_chunk the
	 * largest chunk sum. */
	int (*plan)(const struct profile *p, const struct planner_args *a,
		    struct planner_plan *plan, struct rs_error *err);
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

/**
 * pl's plan for p under a (making p's graph first if pl needs it). 0, or
 * -1 with err as the planner's function says; then plan holds nothing to
 * free but, for ilp and ilp-lp, plan->ilp keeps the solver's answer
 * (plan->ilp.solver NULL when no solver ran; else its status, bound and
 * time: infeasible, or nothing found within the time limit).
 */
int planner_plan(const struct planner *pl, struct profile *p, const struct planner_args *a,
		 struct planner_plan *plan, struct rs_error *err);

/**
 * Plan with pl on profile p and replay the plan on s (baseline b). An
 * explicit schedule whose replay differs from what its planner predicted
 * is an internal error (EXIT_SOFTWARE, naming both).
 */
int planner_replay(const struct planner *pl, const struct schedule *s, const struct baseline *b,
		   struct profile *p, const struct planner_args *a, bool check,
		   struct planner_plan *plan, struct plan_result *res, struct rs_error *err);
/** planner_replay, calling observe (borrows ctx; NULL: none) for each
 * event of the plan's replay (the allocator's follower: devmem.h). */
int planner_replay_observed(const struct planner *pl, const struct schedule *s,
			    const struct baseline *b, struct profile *p,
			    const struct planner_args *a, bool check,
			    void (*observe)(void *ctx, const struct runtime_event *ev), void *ctx,
			    struct planner_plan *plan, struct plan_result *res, struct rs_error *err);

struct planner_fit_try {
	uint64_t param, peak;
	bool replayed; /* false: the plan is the one of the try before, not replayed again */
};
struct planner_fit {
	bool found;     /* some parameter's replayed peak fits */
	uint64_t param; /* the answer: dp's smallest k, greedy's largest segment budget */
	size_t best;    /* the try of the smallest replayed peak (the first on a tie) */
	size_t n_tries, cap, n_replays;
	struct planner_fit_try *tries; /* every plan tried, in the order tried */
};

/**
 * The plan with the fewest split points (dp: smallest k; greedy: largest
 * segment budget) whose replayed peak is at most budget. The replayed
 * peak is not monotone in the parameter (docs/solvers.md), so the search
 * is exact: dp tries k = 0, 1, 2, ... in order, greedy every distinct
 * plan from the largest segment budget down, until one fits; a plan equal
 * to the one before is not replayed again (its peak is that one's). No
 * plan fitting is found = false with every plan tried (fit->best the
 * smallest peak). Planners without a parameter: EXIT_USAGE. A budget
 * below the largest single activation: EXIT_USAGE. Free with
 * planner_fit_free (also after an error).
 */
int planner_fit(const struct planner *pl, const struct schedule *s, const struct baseline *b,
		struct profile *p, uint64_t budget, bool exact, struct planner_fit *fit,
		struct rs_error *err);
void planner_fit_free(struct planner_fit *fit);

#endif
