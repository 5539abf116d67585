/*
 * start.h: schedules in the ILP's stages (steps.h) found without a
 * solver, for the ILP to start from (CBC's MIP start: a solve then always
 * has an incumbent, and a gap) and to fall back on when the solver finds
 * nothing in its time.
 *
 * start_belady: Belady's rule in the stages, an offline heuristic that
 * sees every future use: stage by stage, node t's missing inputs are
 * recomputed (their own missing inputs first, ascending, once each), and
 * before each computation that would pass the budget the value in memory
 * with the largest size^a x (stages to its next reader) / compute goes
 * (one nothing reads again first); a value nothing reads again goes at
 * the end of its stage. What is in memory between stages is the kept set.
 *
 * start_best: the cheapest schedule that fits the budget among Belady's
 * (a = 0.5, 1, 1.5, 2), the repair's (repair.h; a = 1, 2, 3) and
 * Checkmate's baselines (checkpoint all, Chen's
 * sqrt(n) and greedy at several segment budgets, with and without
 * articulation points), each built by steps_build and costed by
 * steps_eval (so its numbers are the schedule's own); then, where a
 * repair found a schedule, up to 64 randomized repairs
 * (start_repair_noisy, seeded), each kept where it is cheaper.
 */
#ifndef REMATSIM_START_H
#define REMATSIM_START_H
#include <stdbool.h>
#include <stdint.h>

#include "profile.h"
#include "steps.h"
#include "util.h"

/* Ops past which the ILP gets no start (its model is past what it builds
 * long before: ILP_MAX_BINARIES); Belady's stages take O(ops^2) time. */
#define START_MAX_NODES 4096

/** Belady's kept sets under budget (bytes), exponent a. 0 with *k, or -1
 * when some computation cannot fit (nothing left to evict), or deadline
 * (now_seconds()'s clock; 0: none) passes first. */
int start_belady(const struct profile_graph *g, uint64_t budget, double a, double deadline,
		 struct steps_kept *k);

struct start_answer {
	bool found;
	struct steps_kept kept;  /* found: the cheapest that fits */
	struct steps_cost cost;
	char from[96];           /* "Belady a=1", "chen-sqrtn", ... */
	unsigned rank;           /* its place in the order that breaks ties */
};

/**
 * The cheapest fitting schedule of those above for profile p (its graph
 * made; fwd per node as baselines_forward gives), the first in the list
 * above on a tie. 0 (ans->found says whether one fits), or -1 with err
 * (EXIT_SOFTWARE: a schedule out of shape, a bug). seed: the randomized
 * repairs' (the same seed, the same answer). With a deadline
 * (now_seconds()'s clock; 0: none) it stops there and answers the
 * cheapest found by then: Belady a=1 and the repair a=1 are tried first,
 * and the randomized repairs take at most a tenth of the time left.
 */
int start_best(const struct profile *p, uint64_t budget, uint64_t seed, double deadline,
	       struct start_answer *ans, struct rs_error *err);
void start_answer_free(struct start_answer *ans);

#endif
