/*
 * steps.h: explicit schedules over a log's graph (profile.h), the plans of
 * the planners that decide every op (ilp, ilp-lp, revolve): which values
 * stay in memory from one stage to the next, and from that, the steps
 * (plan.h): what each stage recomputes, in which order, and what it frees.
 *
 * Stage t ends with node t's own computation (the log's COMPUTE command
 * of its op); before it, it recomputes what node t and the values kept
 * into stage t+1 need and memory lacks, in ascending node order (a
 * topological order). A last stage T (after the last op, before the log's
 * final pins) recomputes what the log pins at its end and memory lacks. A value is freed right after the last computation
 * of its stage that reads its storage, unless it is kept into the next
 * stage; one kept into a stage that no computation of it reads and not
 * kept further is freed at the stage's end. This is the stage model of
 * Checkmate (Jain et al., MLSys 2020) that the ILP optimises over
 * (docs/solvers.md), and what plan_replay_steps runs on the runtime.
 *
 * Invariant: steps_eval's numbers are the schedule's own, computed from
 * the graph alone, independently of the runtime; the replay must give
 * the same peak, compute and recomputation count (planners.c checks).
 */
#ifndef REMATSIM_STEPS_H
#define REMATSIM_STEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "profile.h"
#include "util.h"

/*
 * What stays in memory between stages: for t in 1 .. T, the OWN nodes
 * (below t) kept from stage t-1 into stage t, CSR by stage (off[T + 2];
 * stage 0 keeps nothing; stage T is the last, after every op). What the
 * log pins at its end (graph->keep) is there after it. Views are not
 * listed: a view stays defined while its storage does, and is computed
 * where it is needed.
 */
struct steps_kept {
	size_t T;
	uint32_t *off;  /* [T + 2] */
	uint32_t *node; /* ascending within a stage */
};
void steps_kept_free(struct steps_kept *k);
/**
 * The kept sets of a bit matrix: row t (1 .. T) of `words` 64-bit words at
 * bits + t * words, bit i set where node i is kept into stage t. Gives *k
 * (steps_kept_free).
 */
void steps_kept_from_bits(const uint64_t *bits, size_t T, size_t words, struct steps_kept *k);

/**
 * The steps that keep k between stages, computing the rest on demand (the
 * fewest recomputations that keep does allow). prune: first drop what k
 * keeps needlessly (kept into a stage that does not read it and not kept
 * further), which only lowers memory and never adds compute. Gives *out
 * (plan_steps_free). -1 with err (EXIT_SOFTWARE) on a k out of shape (a
 * node kept before it exists).
 */
int steps_build(const struct profile_graph *g, const struct steps_kept *k, bool prune,
		struct plan_steps *out, struct rs_error *err);

/* What a schedule costs, by the graph. */
struct steps_cost {
	uint64_t peak;          /* bytes in use at the worst moment, constants included */
	int64_t compute;        /* every computation's cost (ns) */
	int64_t remat_compute;  /* the recomputations' */
	uint64_t remats;        /* recomputations */
	size_t peak_step;       /* the step at the peak (n_steps: a stage boundary) */
};

/**
 * Evaluate ps on g: 0 with *c, or -1 with err (EXIT_SOFTWARE) when ps is
 * out of shape (an input not in memory, a node computed while there, a
 * free of a value not in memory, a pinned output missing at the end).
 */
int steps_eval(const struct profile_graph *g, const struct plan_steps *ps, struct steps_cost *c,
	       struct rs_error *err);

#endif
