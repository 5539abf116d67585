/*
 * iset.h: sets of 32-bit ids as sorted runs of consecutive ids, the
 * representation of evicted regions past RMEMO_MAX_STORAGES storages
 * (runtime-regions.c). A region on a chain or in a dead part of a
 * training graph is a few runs however many members it has, so unions,
 * differences and weighted sums (through prefix sums over the ids)
 * cost the runs, not the members.
 */
#ifndef REMATSIM_ISET_H
#define REMATSIM_ISET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Runs [r[2i], r[2i+1]) in increasing order, disjoint and not adjacent
 * (two runs always have a gap between them). Zero-initialized = empty. */
struct iset {
	uint32_t *r;
	uint32_t n, cap; /* runs, and room for runs */
	uint64_t card;   /* members */
};

void iset_free(struct iset *s);
static inline void iset_clear(struct iset *s)
{
	s->n = 0;
	s->card = 0;
}
bool iset_has(const struct iset *s, uint32_t x);
/** Add x; false if it was there. */
bool iset_add(struct iset *s, uint32_t x);
/** Remove x; false if it was not there. */
bool iset_remove(struct iset *s, uint32_t x);
/** s = the ids a[0..k), sorted increasing and distinct. */
void iset_assign_sorted(struct iset *s, const uint32_t *a, size_t k);
/** s = a (a copy). */
void iset_copy(struct iset *s, const struct iset *a);
/** out = a | b (out distinct from both). */
void iset_or(struct iset *out, const struct iset *a, const struct iset *b);
/** a |= b in place; b's ids new to a go to gain as runs (gain cleared
 * first; NULL: not wanted). Costs a binary search for each of b's runs
 * and a move of a's runs after each run it adds or joins: for b of a few
 * runs (an absorbed region) and a of many. */
void iset_or_into(struct iset *a, const struct iset *b, struct iset *gain);
/** out = a & ~b (out distinct from both). */
void iset_andnot(struct iset *out, const struct iset *a, const struct iset *b);
/** s = s & ~(the sorted distinct ids a[0..k)); tmp's members are lost
 * (its array and s's may change places). */
void iset_remove_sorted(struct iset *s, const uint32_t *a, size_t k, struct iset *tmp);
static inline void iset_swap(struct iset *a, struct iset *b)
{
	struct iset t = *a;
	*a = *b;
	*b = t;
}

/** Sort a[0..n) increasing (radix sort through tmp[0..n) past a size). */
void sort_u32(uint32_t *a, size_t n, uint32_t *tmp);
/** s = the distinct ids a[0..k), in any order (a is reordered): set as
 * bits of wb (zero on entry and on return) over the words their span
 * covers where that is cheaper than sorting them, else sorted through
 * tmp[0..k). */
void iset_assign_ids(struct iset *s, uint32_t *a, size_t k, uint32_t *tmp, uint64_t *wb);

/* Prefix sums over ids 0..n-1, for weighted sums over runs: a query is
 * two loads, an add costs the ids and blocks from its id to `top`. Ids are
 * in blocks of 2^sh (about sqrt n); in[i] is the sum of i's block up to i
 * (inclusive), blk[b] the sum of the blocks before b. Only ids below top
 * (one past the highest id ever added to) are kept: every value beyond is
 * 0, so a query there is the total. Ids follow creation order and most
 * adds are to new storages or recent ones, near top: on a chain an add
 * costs a step or two; at worst a block and the blocks (2 sqrt n).
 * Sums wrap (unsigned arithmetic), as a plain sum of the values would.
 * Zero-initialized with psum_init. */
struct psum {
	uint64_t *in, *blk;
	uint64_t total;
	uint32_t top, sh;
	size_t n;
};
void psum_init(struct psum *p, size_t n);
void psum_free(struct psum *p);
/** Add d to id i (i < n). */
void psum_add(struct psum *p, uint32_t i, int64_t d);
/** Sum of ids [0, i) (i <= n). */
static inline int64_t psum_prefix(const struct psum *p, uint32_t i)
{
	if (!i)
		return 0;
	uint32_t k = i - 1;
	if (k >= p->top)
		return (int64_t)p->total;
	return (int64_t)(p->blk[k >> p->sh] + p->in[k]);
}

/* The same with 32-bit sums, for counts whose total fits (edge counts:
 * the schedule's edge offsets are 32-bit): half the memory. */
struct psum32 {
	uint32_t *in, *blk;
	uint32_t total;
	uint32_t top, sh;
	size_t n;
};
void psum32_init(struct psum32 *p, size_t n);
void psum32_free(struct psum32 *p);
void psum32_add(struct psum32 *p, uint32_t i, uint32_t d);
static inline uint32_t psum32_prefix(const struct psum32 *p, uint32_t i)
{
	if (!i)
		return 0;
	uint32_t k = i - 1;
	if (k >= p->top)
		return p->total;
	return p->blk[k >> p->sh] + p->in[k];
}

#endif
