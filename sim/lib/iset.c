/*
 * iset.c: see iset.h.
 */
#include "iset.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static void reserve(struct iset *s, size_t runs)
{
	if (runs <= s->cap)
		return;
	size_t cap = s->cap ? s->cap : 2;
	while (cap < runs)
		cap *= 2;
	if (cap > UINT32_MAX / 2)
		rs_out_of_memory(cap * 2 * sizeof *s->r);
	s->r = xrealloc(s->r, cap * 2 * sizeof *s->r);
	s->cap = (uint32_t)cap;
}

void iset_free(struct iset *s)
{
	free(s->r);
	s->r = NULL;
	s->n = s->cap = 0;
	s->card = 0;
}

/* The index of the first run whose end is past x (n if none). */
static inline uint32_t find(const struct iset *s, uint32_t x)
{
	uint32_t lo = 0, hi = s->n;
	while (lo < hi) {
		uint32_t m = lo + (hi - lo) / 2;
		if (s->r[2 * m + 1] <= x)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

bool iset_has(const struct iset *s, uint32_t x)
{
	uint32_t i = find(s, x);
	return i < s->n && s->r[2 * i] <= x;
}

bool iset_add(struct iset *s, uint32_t x)
{
	uint32_t i = find(s, x);
	if (i < s->n && s->r[2 * i] <= x)
		return false;
	s->card++;
	/* x is in the gap before run i: join the run before, run i, both, or
	 * neither. */
	bool before = i > 0 && s->r[2 * i - 1] == x;
	bool after = i < s->n && s->r[2 * i] == x + 1;
	if (before && after) {
		s->r[2 * i - 1] = s->r[2 * i + 1];
		memmove(s->r + 2 * i, s->r + 2 * i + 2, (size_t)(s->n - i - 1) * 2 * sizeof *s->r);
		s->n--;
	} else if (before) {
		s->r[2 * i - 1] = x + 1;
	} else if (after) {
		s->r[2 * i] = x;
	} else {
		reserve(s, (size_t)s->n + 1);
		memmove(s->r + 2 * i + 2, s->r + 2 * i, (size_t)(s->n - i) * 2 * sizeof *s->r);
		s->r[2 * i] = x;
		s->r[2 * i + 1] = x + 1;
		s->n++;
	}
	return true;
}

bool iset_remove(struct iset *s, uint32_t x)
{
	uint32_t i = find(s, x);
	if (i == s->n || s->r[2 * i] > x)
		return false;
	s->card--;
	uint32_t lo = s->r[2 * i], hi = s->r[2 * i + 1];
	if (lo == x && hi == x + 1) {
		memmove(s->r + 2 * i, s->r + 2 * i + 2, (size_t)(s->n - i - 1) * 2 * sizeof *s->r);
		s->n--;
	} else if (lo == x) {
		s->r[2 * i] = x + 1;
	} else if (hi == x + 1) {
		s->r[2 * i + 1] = x;
	} else {
		reserve(s, (size_t)s->n + 1);
		memmove(s->r + 2 * i + 2, s->r + 2 * i, (size_t)(s->n - i) * 2 * sizeof *s->r);
		s->r[2 * i + 1] = x;
		s->r[2 * i + 2] = x + 1;
		s->n++;
	}
	return true;
}

void iset_assign_sorted(struct iset *s, const uint32_t *a, size_t k)
{
	iset_clear(s);
	size_t i = 0;
	while (i < k) {
		size_t j = i + 1;
		while (j < k && a[j] == a[j - 1] + 1)
			j++;
		reserve(s, (size_t)s->n + 1);
		s->r[2 * s->n] = a[i];
		s->r[2 * s->n + 1] = a[j - 1] + 1;
		s->n++;
		i = j;
	}
	s->card = k;
}

void iset_copy(struct iset *s, const struct iset *a)
{
	reserve(s, a->n);
	if (a->n) /* (an empty set may have no array) */
		memcpy(s->r, a->r, (size_t)a->n * 2 * sizeof *s->r);
	s->n = a->n;
	s->card = a->card;
}

/* Append run [lo, hi) (lo at or past the last run's end) to out. */
static inline void push_run(struct iset *out, uint32_t lo, uint32_t hi)
{
	if (out->n && out->r[2 * out->n - 1] >= lo) {
		if (hi > out->r[2 * out->n - 1]) {
			out->card += hi - out->r[2 * out->n - 1];
			out->r[2 * out->n - 1] = hi;
		}
		return;
	}
	if (out->n == out->cap)
		reserve(out, (size_t)out->n + 1);
	out->r[2 * out->n] = lo;
	out->r[2 * out->n + 1] = hi;
	out->n++;
	out->card += hi - lo;
}

void iset_or(struct iset *out, const struct iset *a, const struct iset *b)
{
	iset_clear(out);
	reserve(out, (size_t)a->n + b->n);
	uint32_t i = 0, j = 0;
	while (i < a->n || j < b->n) {
		if (j == b->n || (i < a->n && a->r[2 * i] <= b->r[2 * j])) {
			push_run(out, a->r[2 * i], a->r[2 * i + 1]);
			i++;
		} else {
			push_run(out, b->r[2 * j], b->r[2 * j + 1]);
			j++;
		}
	}
}

void iset_andnot(struct iset *out, const struct iset *a, const struct iset *b)
{
	iset_clear(out);
	uint32_t j = 0;
	for (uint32_t i = 0; i < a->n; i++) {
		uint32_t lo = a->r[2 * i], hi = a->r[2 * i + 1];
		while (j < b->n && b->r[2 * j + 1] <= lo)
			j++;
		/* b's runs from j overlap or follow [lo, hi) */
		for (uint32_t k = j; lo < hi; k++) {
			if (k == b->n || b->r[2 * k] >= hi) {
				push_run(out, lo, hi);
				break;
			}
			if (b->r[2 * k] > lo)
				push_run(out, lo, b->r[2 * k]);
			if (b->r[2 * k + 1] >= hi)
				break;
			lo = b->r[2 * k + 1];
		}
	}
}

void iset_remove_sorted(struct iset *s, const uint32_t *a, size_t k)
{
	if (!k)
		return;
	if (k <= 4) {
		for (size_t i = 0; i < k; i++)
			iset_remove(s, a[i]);
		return;
	}
	/* in place, runs only split: write to a copy of the runs */
	struct iset t = {0};
	reserve(&t, (size_t)s->n + k);
	size_t j = 0;
	for (uint32_t i = 0; i < s->n; i++) {
		uint32_t lo = s->r[2 * i], hi = s->r[2 * i + 1];
		while (j < k && a[j] < lo)
			j++;
		while (j < k && a[j] < hi) {
			if (a[j] > lo)
				push_run(&t, lo, a[j]);
			lo = a[j] + 1;
			j++;
		}
		if (lo < hi)
			push_run(&t, lo, hi);
	}
	iset_swap(s, &t);
	iset_free(&t);
}

void sort_u32(uint32_t *a, size_t n, uint32_t *tmp)
{
	if (n < 64) {
		for (size_t i = 1; i < n; i++) {
			uint32_t v = a[i];
			size_t j = i;
			for (; j > 0 && a[j - 1] > v; j--)
				a[j] = a[j - 1];
			a[j] = v;
		}
		return;
	}
	/* LSD radix sort, 11-bit digits: three passes (the last skipped when
	 * every id is below 2^22) */
	uint32_t max = 0;
	for (size_t i = 0; i < n; i++)
		if (a[i] > max)
			max = a[i];
	uint32_t *src = a, *dst = tmp;
	for (int shift = 0; shift < 32 && (shift == 0 || (max >> shift)); shift += 11) {
		size_t count[2048] = {0};
		for (size_t i = 0; i < n; i++)
			count[(src[i] >> shift) & 2047]++;
		size_t sum = 0;
		for (size_t d = 0; d < 2048; d++) {
			size_t c = count[d];
			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & 2047]++] = src[i];
		uint32_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof *a);
}

void fenwick_init(struct fenwick *f, size_t n)
{
	f->n = n;
	f->t = xcalloc(n + 1, sizeof *f->t);
}

void fenwick32_init(struct fenwick32 *f, size_t n)
{
	f->n = n;
	f->t = xcalloc(n + 1, sizeof *f->t);
}

void fenwick32_free(struct fenwick32 *f)
{
	free(f->t);
	f->t = NULL;
	f->n = 0;
}

void fenwick_free(struct fenwick *f)
{
	free(f->t);
	f->t = NULL;
	f->n = 0;
}
