/*
 * lagrange.h: a Lagrangian lower bound on the ILP's optimum (ilp.h), that
 * holds whatever the solver reaches and needs no LP.
 *
 * A relaxation of Checkmate's model: its memory rows give, for each stage
 * t < T, the row "what is kept into stage t+1 fits beside node t's
 * computation" (the single-op need of node t, its inputs' storages and
 * output and the constants made before it, plus the bytes of every other
 * value kept into t+1, at most the budget: every such value is in memory
 * when node t is computed), and the frees drop out. Those rows and the
 * recomputations' input rows (R[t,k] <= R[t,u] + S[t,u]) are moved into
 * the objective with multipliers; what is left splits by node: each
 * value, over the stages it lives in, is kept (from a stage it was in) or
 * recomputed, and is there where node t reads it or the log pins it, a
 * two-state shortest path. Subgradient ascent on the multipliers (Polyak
 * steps, scaled by a factor falling geometrically over the iterations
 * given: lagrange_iterations reckons them from a share of time); every
 * iterate's value is a lower bound (weak duality), the best is kept, and
 * rounded up to a whole ns (the costs are whole ns). docs/solvers.md,
 * "The ILP's start, deadline and bounds".
 */
#ifndef REMATSIM_LAGRANGE_H
#define REMATSIM_LAGRANGE_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* A recomputation, R[stage, node] of the ILP (ilp.h). */
struct lagrange_pair {
	uint32_t node, stage;
};

struct lagrange_result {
	double bound;       /* the best lower bound on the recomputation cost (ns) */
	unsigned iterations;
	double seconds;     /* wall time */
	size_t multipliers; /* memory rows + input rows relaxed */
	/* With a schedule known (upper >= 0): the recomputations that no
	 * schedule cheaper than it makes, by the iterates' reduced costs
	 * (each a bound on the schedules that make it, at least upper once
	 * lifted to the costs' divisor); ascending by node, then stage.
	 * Free with lagrange_result_free. */
	struct lagrange_pair *fixed;
	size_t n_fixed;
};
void lagrange_result_free(struct lagrange_result *r);

/**
 * The bound for g at budget bytes (budget at least every single op's need:
 * else the ILP is infeasible at once and no bound is asked). upper: the
 * cost of a schedule known to fit (the step's target), or a negative
 * number for none; with one, a node that alone costs more than upper is
 * not recomputed (no schedule cheaper than that one does so, and the
 * bound stays one on the optimum). Stops after max_iter iterations or at the wall-clock
 * time end (now_seconds(); 0: none), or when the bound reaches upper.
 * Time O(iterations x (live pairs + their input rows)), memory linear in
 * those.
 */
void lagrange_bound(const struct profile_graph *g, uint64_t budget, double upper,
		    unsigned max_iter, double end, struct lagrange_result *r);

/* lagrange_iterations' range */
#define LAGRANGE_MIN_ITERATIONS 2000
#define LAGRANGE_MAX_ITERATIONS 1000000
/**
 * The iterations to give lagrange_bound on g for about `seconds` of work
 * on this machine's kind (an estimate from the model's size, so the same
 * inputs give the same count and the same bound): at least
 * LAGRANGE_MIN_ITERATIONS, at most half the multipliers (the step's
 * schedule gains little past that) and LAGRANGE_MAX_ITERATIONS.
 */
unsigned lagrange_iterations(const struct profile_graph *g, double seconds);

#endif
