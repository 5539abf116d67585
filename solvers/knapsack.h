/*
 * knapsack.h: PyTorch's memory-budget knapsack (torch.compile's
 * activation_memory_budget, torch/_functorch/_activation_checkpointing/
 * knapsack.py): which activations to SAVE so that their memory is at most
 * a budget and the runtime saved (not recomputed) is largest; the rest are
 * recomputed in the backward pass. The knapsack sees only each activation's
 * own memory and own recompute time: not what recomputing it needs (its
 * inputs), nor when the backward pass frees what it holds. That is the
 * point of the planner built on it (docs/solvers.md, "The memory-budget
 * knapsack"): the physical peak its plan replays to against the budget.
 */
#ifndef REMATSIM_KNAPSACK_H
#define REMATSIM_KNAPSACK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "profile.h"
#include "runtime.h"
#include "util.h"

/* Cells of the exact dynamic programme (items x capacity units) past which
 * the weights are rounded up to coarser units (knapsack_solve). */
#define KNAPSACK_MAX_CELLS (1u << 27)

struct knapsack_answer {
	double saved_runtime;  /* the sum of the saved items' runtime */
	uint64_t saved_weight; /* the sum of their weights */
	uint64_t unit;         /* the weights' unit in the DP: their gcd (exact),
				* or coarser (quantized: each weight rounded up) */
	bool quantized;        /* the unit is coarser than the gcd: the set fits,
				* its runtime may fall short of the optimum */
};

/**
 * 0/1 knapsack: save[i] set for the items saved, so that the sum of their
 * weight[i] is at most cap and the sum of runtime[i] (each >= 0, finite) is
 * largest. Exact (a DP over the weights divided by their gcd) while n times
 * the capacity in those units is at most KNAPSACK_MAX_CELLS; past that the
 * weights are rounded up to a unit that brings it there, which keeps every
 * answer within cap. Ties go to the set the DP meets first over items in
 * index order: an item is saved only when it strictly adds runtime, so an
 * item of runtime 0 is never saved and one of weight 0 and runtime > 0
 * always is. O(n x units) time and n x units bits for the backtrack.
 */
void knapsack_solve(const uint64_t *weight, const double *runtime, size_t n, uint64_t cap,
		    bool *save, struct knapsack_answer *ans);

/* The knapsack planner on a log: the items are the forward ops with an
 * activation (profile.h: bytes the backward pass finds saved), weight that
 * activation, runtime the op's own compute (ns); the capacity is
 * floor(fraction x the activations' total), fraction in [0, 1] as torch
 * takes activation_memory_budget (0: save none that can be recomputed, 1:
 * save all). */
struct knapsack_plan {
	double fraction;
	uint64_t capacity;      /* bytes the saved activations may take */
	size_t n_items;         /* forward ops with an activation */
	bool *recompute;        /* [profile n]: forward op i's activation recomputed */
	size_t n_recompute;
	uint64_t recompute_bytes;
	int64_t recompute_runtime; /* their own compute, ns (the knapsack's view) */
	struct knapsack_answer ans;
};

/** Plan for profile p. 0, or -1 with err (EXIT_USAGE: fraction outside [0, 1]). */
int knapsack_plan_make(const struct profile *p, double fraction, struct knapsack_plan *kp,
		       struct rs_error *err);
void knapsack_plan_free(struct knapsack_plan *kp);

#endif
