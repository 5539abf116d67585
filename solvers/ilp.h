/*
 * ilp.h: the optimal rematerialization schedule of a log's graph under a
 * memory budget, as Checkmate's mixed-integer program (Jain et al., MLSys
 * 2020) in our words (docs/solvers.md): over stages t (one per node, in
 * log order), binaries R[t,i] (recompute node i in stage t), S[t,i] (node
 * i's storage kept from stage t-1 into t) and F[t,b,k] (storage b freed
 * after computing k in stage t), continuous U[t,k] (bytes in use after
 * computing k in stage t) at most the budget; minimise the recomputations'
 * cost. Solved by CBC or GLPK (ilp-solvers.c), either optional at build
 * time; or its LP relaxation, rounded (Checkmate's deterministic threshold
 * sweep and randomized rounding, seeded).
 *
 * The result is what stays in memory between stages (steps.h); steps_build
 * turns it into the steps plan.c replays. The model's memory is exactly
 * the schedule's (steps.h) when R is the fewest recomputations S allows,
 * which steps_build makes it: the ILP's schedule replays to its own peak
 * and compute.
 */
#ifndef REMATSIM_ILP_H
#define REMATSIM_ILP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"
#include "steps.h"
#include "util.h"

/* Binary variables past which `--time-limit` is required: a model this
 * large may take hours to prove optimal. */
#define ILP_MAX_UNTIMED_BINARIES 20000
/* Past this (or 2^31 nonzeros) the model is not even built. */
#define ILP_MAX_BINARIES 50000000
/* The most memory units (bytes over the sizes' greatest common divisor) a
 * budget may hold: the solvers work in double precision with tolerances
 * of about 1e-9 of a row, and past this they told budgets one unit apart
 * no longer (issue 40, H3: sizes near 2^36 to 2^53 bytes with no common
 * divisor gave false "infeasible", optimal claims that were not, schedules
 * a few bytes over the budget and CBC aborts). Real graphs hold about 2^28. */
#define ILP_MAX_MEMORY_UNITS (UINT64_C(1) << 32)

enum ilp_status {
	ILP_OPTIMAL,     /* proven optimal */
	ILP_FEASIBLE,    /* a schedule, stopped at the time limit (gap says how good) */
	ILP_INFEASIBLE,  /* no schedule fits the budget */
	ILP_UNKNOWN,     /* stopped at the time limit without a schedule */
	ILP_LP_ROUNDED,  /* ilp-lp: a rounding of the relaxation that fits */
	ILP_NO_ROUNDING, /* ilp-lp: no rounding tried fits */
};
/** "optimal", "feasible (time limit)", ... */
const char *ilp_status_name(enum ilp_status s);

struct ilp_model;  /* ilp-private.h */
struct ilp_answer;

/* A backend: one row per solver (ilp-solvers.c). */
struct ilp_solver {
	const char *name;    /* "cbc", "glpk" */
	const char *package; /* the Debian package that brings it */
	bool available;      /* built with it (HAVE_CBC, HAVE_GLPK) */
	/* Solve the model as a MIP (integer) or its LP relaxation; NULL when
	 * not built in. */
	int (*solve)(const struct ilp_model *m, bool integer, double time_limit,
		     struct ilp_answer *a, struct rs_error *err);
};
/** The backends, in order of preference; *n is set to their number. */
const struct ilp_solver *ilp_solver_list(size_t *n);
/** NULL for an unknown name. */
const struct ilp_solver *ilp_solver_find(const char *name);

struct ilp_options {
	uint64_t budget;        /* bytes */
	double time_limit;      /* seconds; 0: none (refused past ILP_MAX_UNTIMED_BINARIES) */
	const struct ilp_solver *solver; /* NULL: the first available */
	bool relax;             /* ilp-lp: solve the LP relaxation and round it */
	uint64_t seed;          /* ilp-lp: the randomized rounding's seed */
	unsigned rounds;        /* ilp-lp: randomized roundings (besides 9 thresholds) */
	bool min_budget;        /* when infeasible: solve for the smallest budget too */
	/* A schedule within the budget to start from (CBC's MIP start; NULL:
	 * none): the solve then always has an incumbent, and its answer is
	 * never worse than the start's (ilp, not ilp-lp). */
	const struct steps_kept *start;
	const char *start_from; /* what made it, for the answer ("Belady a=1") */
	/* When the whole solve must end (now_seconds()'s clock; 0: time_limit
	 * from the call, or none): the solver runs in a child process killed
	 * then (ilp-deadline.c), so a root LP cannot run past it. */
	double deadline;
	/* Large-neighbourhood search from the start (35 % of the time
	 * limit) before the solve: 0 or less never, 1 always. */
	int lns;
};

struct ilp_result {
	enum ilp_status status;
	const char *solver;
	/* the model */
	size_t n_binaries, n_continuous, n_rows, n_nonzeros;
	uint64_t mem_unit;      /* bytes per unit of the model's memory (a gcd) */
	bool unbuilt;           /* the deadline came before the model was built:
				 * the answer is the start (n_rows and the rest 0) */
	/* the solve */
	double seconds;         /* wall time in the solver */
	double cpu_seconds;     /* its CPU time (one thread) */
	double objective;       /* recomputation cost of the solver's schedule (ns) */
	double bound;           /* a lower bound on the optimal one */
	double gap;             /* (objective - bound) / objective; 0 when optimal */
	/* the Lagrangian bound (lagrange.h), part of bound above: NAN when
	 * not run (ilp-lp, a budget infeasible at once) */
	double lagrange_bound;
	unsigned lagrange_iterations;
	double lagrange_seconds;
	/* infeasible: the largest single op's need (its inputs, outputs and the
	 * constants made before it) and, if solved for, the smallest budget
	 * any schedule fits in */
	uint64_t need_bytes;
	uint32_t need_node;     /* UINT32_MAX: the constants and pinned outputs */
	bool min_budget_known;  /* min_budget is the smallest */
	bool min_budget_found;  /* min_budget fits, not proven smallest */
	uint64_t min_budget;
	/* ilp-lp: the relaxation's optimum. ilp: the LP relaxation's bound,
	 * its optimum or, where Clp stopped before its end (lp_stopped), the
	 * bound its row prices give (ilp_dual_bound); NAN or 0: none */
	double lp_objective;
	bool lp_stopped;
	/* ilp-lp: the rounding kept (threshold, or 0 and the round) */
	double threshold;
	unsigned round;
	unsigned roundings_fit; /* of 9 + rounds */
	/* the MIP start: given (its cost), taken by the solver, or the answer
	 * itself (the solver found nothing better in its time) */
	bool start_given, start_accepted, start_answer;
	double start_objective;
	size_t fixed_by_cost;   /* recomputations fixed to 0: the node alone
				 * costs more than the start */
	size_t fixed_by_bound;  /* and by the Lagrangian's reduced costs */
	unsigned ruin_rounds;   /* ruin and repair's rounds (0: not run) */
	char start_from[128];
	/* the schedule (OPTIMAL, FEASIBLE, LP_ROUNDED) */
	struct steps_kept kept;
};
void ilp_result_free(struct ilp_result *r);

/**
 * A lower bound b on the least recomputation, lifted to the next multiple
 * of the costs' greatest common divisor (cost[0 .. n), in ns): every
 * schedule's recomputation is a sum of costs, so such a multiple, and the
 * lifted value is a bound all the same (1100.18 with costs in multiples of
 * 5: 1105). A margin of 1e-6 relative keeps a bound a hair above a
 * multiple, from the solvers' tolerances, from being lifted to the next
 * one. b itself where the costs are all 0, or b is not positive and finite.
 */
double ilp_bound_lift(const int64_t *cost, size_t n, double b);

/**
 * Solve for the graph of p (profile_graph_build made it) under o. Returns 0 with *r (its status says whether there is
 * a schedule), or -1 with err: EXIT_UNAVAILABLE (the solver was not built
 * in), EXIT_DATAERR (a graph the model cannot take: views mixed with
 * owned outputs; too large without a time limit), EXIT_SOFTWARE (the
 * solver failed).
 */
int ilp_solve(const struct profile *p, const struct ilp_options *o, struct ilp_result *r,
	      struct rs_error *err);

#endif
