/*
 * repair.h: a schedule in the ILP's stages (steps.h) found by repairing
 * one that passes the budget, for the graphs where building one forwards
 * (Belady's rule, start.h) runs out of values to evict: the random layered
 * graphs, whose long edges make every eviction a cascade of
 * recomputations later.
 *
 * It starts from checkpoint-all (every value kept from its stage to its
 * last reader: the topological-order peak) and works on the kept sets
 * directly. A move drops a value from a run of stages in which nothing
 * reads it; the value is then recomputed in the stage that ends the run
 * (any stage from the one at hand to its next reader's), or not at all
 * where nothing needs it again. A second kind of move also keeps the
 * value's missing inputs into that stage, from their last use, where they
 * weigh less than the value: its recomputation then needs no other. At
 * the stage with the largest excess over the budget (or, where no move
 * helps there, the next), every value kept there is tried with every
 * end. Each trial re-evaluates exactly the stages whose work changes (a
 * stage's work and peak depend only on what is kept into it and out of
 * it; between them memory moves by the values' bytes), and the move with
 * the least added recomputation per (excess removed)^a is made, until no
 * stage passes the budget; where no move lowers the whole excess, a drop
 * that lowers the worst stage's is made (the moves are bounded, 64 per
 * node, so this ends). After each move, what a stage keeps but neither reads nor
 * keeps further is dropped (steps_build's pruning). Then recomputations
 * are taken back: a value recomputed in a stage is kept there from its
 * last use instead, wherever every stage stays within the budget and the
 * whole costs less. Last, exchanges: each recomputation is taken back
 * even where that passes the budget, the budget is reached again by at
 * most 8 drops and recomputations are taken back again where they fit;
 * the result is kept where the whole costs less, else the state before
 * it is restored (passes until none is kept, at most 4, within the
 * bounds on the work).
 *
 * The stages' numbers are those of steps_build (with pruning) and
 * steps_eval on graphs without views; with views, an approximation (a
 * view is taken to be in memory with its storage), so the answer is
 * always built and costed by those two before use (start_best does).
 */
#ifndef REMATSIM_REPAIR_H
#define REMATSIM_REPAIR_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"
#include "steps.h"

struct repair_stats {
	uint64_t moves;       /* moves made */
	uint64_t trials;      /* stage evaluations */
	uint64_t work;        /* their words of kept sets, computations and edges */
	bool bounded;         /* -1 because a bound on the work was reached */
	uint64_t peak;        /* the kept sets' peak and recomputation, as the */
	int64_t remat_compute;/* stages' evaluations found them */
};

/**
 * Kept sets within budget (bytes) by repair with score exponent a (> 0;
 * larger prefers moves that remove more excess at once), in *k
 * (steps_kept_free), 0; or -1 when no move lowers the excess, or the
 * work's bounds are reached (64 moves per node; 100 stage evaluations
 * per node + 100,000; 50M words of kept sets, computations and edges
 * walked), while some stage still passes the budget. st may be NULL.
 * deadline (now_seconds()'s clock; 0: none) is one more bound, on the
 * time: past it no move is tried (-1 if the budget is not reached yet;
 * the improvements after it just stop), so the answer then depends on
 * the machine, as a time-limited solve's does.
 */
int start_repair(const struct profile_graph *g, uint64_t budget, double a, double deadline,
		 struct steps_kept *k, struct repair_stats *st);

/**
 * start_repair with every positive move score multiplied by its own draw
 * from [1, 1 + noise) (splitmix64 from seed): a randomized repair, for
 * restarts (start_best). The draw never lowers a score, so the bounds
 * that skip moves still hold; the same seed gives the same kept sets.
 * noise 0 is start_repair.
 */
int start_repair_noisy(const struct profile_graph *g, uint64_t budget, double a, double noise,
		       uint64_t seed, double deadline, struct steps_kept *k,
		       struct repair_stats *st);

int start_repair_from(const struct profile_graph *g, uint64_t budget, double a, double noise,
		      uint64_t seed, double deadline, const struct steps_kept *init, size_t wa,
		      size_t wb, struct steps_kept *k, struct repair_stats *st);

#endif
