/*
 * reset_points.h: the reset-point DP of the VISSL/fairscale layer memory
 * tracker (SOLVERS.md section 1): split activation sizes a[0..n-1] into at
 * most k+1 contiguous chunks minimising the largest chunk sum.
 *
 * Two modes with the same optimal value:
 *  - exact: the tracker's own recursion, O(k n^2), returning the very
 *    split points it returns (first best split, strict <; extra
 *    checkpoints are still placed, possibly at n);
 *  - fast: binary search on the answer with a greedy feasibility scan,
 *    O(n log sum), split points filled greedily.
 */
#ifndef REMATSIM_RESET_POINTS_H
#define REMATSIM_RESET_POINTS_H

#include <stddef.h>
#include <stdint.h>

struct reset_plan {
	uint64_t max_chunk; /* the largest chunk sum */
	size_t *splits;     /* ascending; each the index where a chunk starts */
	size_t n_splits;    /* <= k */
};

/** The tracker's exact answer. Gives plan->splits (free with reset_plan_free). */
void reset_points_exact(const uint64_t *a, size_t n, size_t k, struct reset_plan *plan);
/** The same max_chunk, found in O(n log sum a). */
void reset_points_fast(const uint64_t *a, size_t n, size_t k, struct reset_plan *plan);
void reset_plan_free(struct reset_plan *plan);

#endif
