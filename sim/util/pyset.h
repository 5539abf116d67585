/*
 * pyset.h: the iteration order of a CPython set of small non-negative
 * integers, so that code walking "for u in some_set" in the reference
 * simulator (simrd's from_dfgraph: a node's successors, the tensors freed
 * after a step) can be followed step for step.
 *
 * A CPython set is an open-addressing table iterated in slot order. For an
 * integer k below 2^61 - 1 the hash is k itself; an insertion probes slot
 * k & mask, then (when nine more slots fit) the nine after it, then jumps
 * i = (5i + 1 + perturb) & mask with perturb shifted right 5 bits a step;
 * the table starts at 8 slots and, once fill * 5 >= mask * 3, is rebuilt
 * at the smallest power of two above 4 * used, re-inserting in slot order.
 * This is CPython 3.11's Objects/setobject.c (checked against the
 * interpreter in tests/test-graph.c); Pythons before 3.11 rebuilt at
 * fill * 3 >= mask * 2, which differs only for sets of 19 elements or more.
 */
#ifndef REMATSIM_PYSET_H
#define REMATSIM_PYSET_H

#include <stddef.h>
#include <stdint.h>

/* Zero-initialized = empty. */
struct pyset {
	uint32_t *slot;  /* key + 1; 0 = unused */
	size_t mask;     /* slots - 1 (0: no table yet) */
	size_t fill;
	uint32_t *spare; /* the table rebuilt into (kept for reuse) */
	size_t spare_cap;
	size_t cap;      /* slots allocated in slot */
};

/** Empty the set (keeping its memory), back to 8 slots. */
void pyset_clear(struct pyset *s);
/** Add key (below UINT32_MAX), as set.add(key); no effect if present. */
void pyset_add(struct pyset *s, uint32_t key);
/** The members in iteration order into out (room for every member); returns how many. */
size_t pyset_order(const struct pyset *s, uint32_t *out);
void pyset_free(struct pyset *s);

#endif
