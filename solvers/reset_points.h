/*
 * reset_points.h: the reset-point DP of the VISSL/fairscale layer memory
 * tracker (SOLVERS.md section 1): split activation sizes a[0..n-1] into at
 * most k+1 contiguous chunks minimising the largest chunk sum.
 *
 * Two modes with the same optimal value:
 *  - exact: the tracker's own recursion (its O(k n^2)), returning the very
 *    split points it returns (first best split, strict <; extra
 *    checkpoints are still placed, possibly at n), computed here in
 *    O(k n log n) time and O(min(k, n) n) memory, without recursion;
 *  - fast: binary search on the answer with a greedy feasibility scan,
 *    O(n log sum), split points filled greedily.
 */
#ifndef REMATSIM_RESET_POINTS_H
#define REMATSIM_RESET_POINTS_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

struct reset_plan {
	uint64_t max_chunk; /* the largest chunk sum */
	size_t *splits;     /* ascending; each the index where a chunk starts */
	size_t n_splits;    /* <= k */
};

/* The exact mode's table limit, in values (8 bytes each): 2 GiB. */
#define RESET_POINTS_EXACT_CELLS (UINT64_C(1) << 28)

/**
 * The tracker's exact answer. Gives plan->splits (free with
 * reset_plan_free) and returns 0, or -1 with err (EXIT_USAGE) when its
 * table of min(k, n) + 1 rows of n + 1 values passes
 * RESET_POINTS_EXACT_CELLS. The sum of a must fit in 64 bits
 * (reset_points_sum).
 */
int reset_points_exact(const uint64_t *a, size_t n, size_t k, struct reset_plan *plan,
		       struct rs_error *err);
/** The tracker's recursion as it is, O(k n^2) time and O(k n) memory: for tests. */
void reset_points_exact_naive(const uint64_t *a, size_t n, size_t k, struct reset_plan *plan);
/** The same max_chunk, found in O(n log sum a). */
void reset_points_fast(const uint64_t *a, size_t n, size_t k, struct reset_plan *plan);
void reset_plan_free(struct reset_plan *plan);
/**
 * Read a size file: one whole number of bytes per line, blank lines and
 * `#` comments (whole lines or after the number) ignored. Gives *a (free
 * it) and its length; returns 0, or -1 with err: EXIT_NOINPUT (cannot
 * read), EXIT_DATAERR with the line (not a whole number, negative, over
 * 64 bits, a sum over 64 bits). A file without sizes (empty, or `#`
 * comments only) gives n = 0: the DP's answer is then 0, no splits.
 */
int reset_points_read_sizes(const char *path, uint64_t **a, size_t *n, struct rs_error *err);
/** *sum = sum of a, or -1 when it overflows 64 bits. */
int reset_points_sum(const uint64_t *a, size_t n, uint64_t *sum);

#endif
