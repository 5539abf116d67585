/*
 * heuristics.h: the eviction policies, one registry row each (name, label,
 * what runtime state it needs, its choice). Adding a heuristic is
 * one row and one function in heuristics.c.
 */
#ifndef REMATSIM_HEURISTICS_H
#define REMATSIM_HEURISTICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct runtime_state; /* runtime-state.h */

/* What a heuristic needs the runtime to maintain. */
enum heuristic_needs {
	NEEDS_NOTHING = 0,
	NEEDS_REGIONS = 1 << 0, /* evicted neighbourhoods (Optimized runtimes) */
	NEEDS_EQCLASS = 1 << 1, /* union-find classes (Optimized runtimes) */
	NEEDS_UNOPT = 1 << 2,   /* rebuilt from scratch (DTRUnopt, V1 only) */
};

struct heuristic {
	const char *name;   /* as the reference names it: "DTR", "AbEqSize", ... */
	const char *label;  /* for figures: "h_DTR", ... */
	unsigned needs;     /* enum heuristic_needs */
	bool random;        /* draws from a seeded generator (trials) */
	int kind;           /* private to heuristics.c and the runtime */
	/* Choose the storage to evict from the runtime's (non-empty) pool:
	 * the lowest cost, ties to the later one, a cost of 0 at once; the
	 * random ones pick a member. Counts evaluations and accesses. */
	uint32_t (*choose)(struct runtime_state *rt);
};

/** NULL when no heuristic has that name. */
const struct heuristic *heuristic_find(const char *name);
/** The registry, in a stable order; *n is set to its length. */
const struct heuristic *heuristic_list(size_t *n);

#endif
