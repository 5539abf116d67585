/*
 * runtime-scan.h: the costs the runtime can find the lowest of by itself,
 * from the pool's key arrays (runtime-scan.c), without calling the
 * heuristic per member. A heuristic row whose cost orders exactly as one
 * of these names it (struct heuristic's key); the runtime then scans the
 * keys in vectors where they are narrow enough to order and tie as the
 * reference's costs, and otherwise calls the row's own loop. Either way
 * the choice and the evaluations and accesses counted are the same
 * (test-heuristics, test-differential).
 *
 * In the names, size is size(s), stale is the staleness (the clock minus
 * the last access), compute is compute(s), last the last access; lowest
 * first, ties to the later member, a cost of exactly 0 taken at once.
 */
#ifndef REMATSIM_RUNTIME_SCAN_H
#define REMATSIM_RUNTIME_SCAN_H

enum scan_key {
	SCAN_NONE = 0,                 /* no key: the row's own loop */
	SCAN_LAST,                     /* last access (LRU) */
	SCAN_COMPUTE,                  /* compute (AbLocal) */
	SCAN_PER_STALE,                /* 1 / stale (AbStale) */
	SCAN_PER_SIZE,                 /* 1 / size (LargestStorage, AbSize) */
	SCAN_PER_SIZE_STALE,           /* 1 / (size * stale) (AbSizeStale) */
	SCAN_COMPUTE_PER_SIZE,         /* compute / size (AbLocalSize) */
	SCAN_COMPUTE_PER_STALE,        /* compute / stale (AbLocalStale) */
	SCAN_COMPUTE_PER_SIZE_STALE,   /* compute / (size * stale) (DTRLocal) */
	SCAN_KEY_COUNT
};

#endif
