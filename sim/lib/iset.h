/*
 * iset.h: sets of 32-bit ids as sorted runs of consecutive ids, the
 * representation of evicted regions past RMEMO_MAX_STORAGES storages
 * (runtime-regions.c). A region on a chain or in a dead part of a
 * training graph is a few runs however many members it has, so unions,
 * differences and weighted sums (through a Fenwick tree over the ids)
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
/** out = a & ~b (out distinct from both). */
void iset_andnot(struct iset *out, const struct iset *a, const struct iset *b);
/** s = s & ~(the sorted distinct ids a[0..k)). */
void iset_remove_sorted(struct iset *s, const uint32_t *a, size_t k);
static inline void iset_swap(struct iset *a, struct iset *b)
{
	struct iset t = *a;
	*a = *b;
	*b = t;
}

/** Sort a[0..n) increasing (radix sort through tmp[0..n) past a size). */
void sort_u32(uint32_t *a, size_t n, uint32_t *tmp);

/* A Fenwick tree of 64-bit sums over ids 0..n-1 (zero-initialized with
 * fenwick_init), for weighted sums over runs. */
struct fenwick {
	int64_t *t; /* 1-based */
	size_t n;
};
void fenwick_init(struct fenwick *f, size_t n);
void fenwick_free(struct fenwick *f);

/* The same with 32-bit sums, for counts whose total fits (edge counts:
 * the schedule's edge offsets are 32-bit): half the memory. */
struct fenwick32 {
	uint32_t *t; /* 1-based */
	size_t n;
};
void fenwick32_init(struct fenwick32 *f, size_t n);
void fenwick32_free(struct fenwick32 *f);
static inline void fenwick32_add(struct fenwick32 *f, uint32_t i, uint32_t d)
{
	for (size_t k = (size_t)i + 1; k <= f->n; k += k & -k)
		f->t[k] += d;
}
static inline uint32_t fenwick32_prefix(const struct fenwick32 *f, uint32_t i)
{
	uint32_t s = 0;
	for (size_t k = i; k; k &= k - 1)
		s += f->t[k];
	return s;
}
static inline void fenwick_add(struct fenwick *f, uint32_t i, int64_t d)
{
	for (size_t k = (size_t)i + 1; k <= f->n; k += k & -k)
		f->t[k] = (int64_t)((uint64_t)f->t[k] + (uint64_t)d);
}
/** Sum of ids [0, i). */
static inline int64_t fenwick_prefix(const struct fenwick *f, uint32_t i)
{
	uint64_t s = 0;
	for (size_t k = i; k; k &= k - 1)
		s += (uint64_t)f->t[k];
	return (int64_t)s;
}

#endif
