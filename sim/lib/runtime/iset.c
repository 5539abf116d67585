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

/* s = the ids set in w[a, b) (a run may pass a word's end), clearing them. */
static void take_bits(struct iset *s, uint64_t *w, uint32_t a, uint32_t b)
{
	bool open = false; /* a run from start reaches the word's start */
	uint32_t start = 0;
	for (uint32_t i = a; i < b; i++) {
		uint64_t x = w[i];
		const uint32_t base = i << 6;
		w[i] = 0;
		if (open) {
			if (x == ~0ULL)
				continue;
			uint32_t t = (uint32_t)__builtin_ctzll(~x); /* its trailing ones */
			push_run(s, start, base + t);
			open = false;
			x &= ~0ULL << t;
		}
		while (x) {
			uint32_t lo = (uint32_t)__builtin_ctzll(x);
			uint64_t inv = ~(x >> lo);
			uint32_t len = inv ? (uint32_t)__builtin_ctzll(inv) : 64;
			if (lo + len == 64) {
				start = base + lo;
				open = true;
				break;
			}
			push_run(s, base + lo, base + lo + len);
			x &= ~0ULL << (lo + len);
		}
	}
	if (open)
		push_run(s, start, b << 6);
}

/*
 * A walk's members come in discovery order. Sorting them (a radix sort of
 * two or three passes over 2,048 counters, or an insertion sort) cost more
 * than the walk on the paper's logs of some 5,000 storages, whose regions
 * span a few dozen words: there the ids go through a bitmap instead, whose
 * words are then read as runs. A region spread thinly over a long log (a
 * few members far apart) is still sorted.
 */
void iset_assign_ids(struct iset *s, uint32_t *a, size_t k, uint32_t *tmp, uint64_t *wb)
{
	if (k >= 8) {
		uint32_t lo = a[0], hi = a[0];
		for (size_t i = 1; i < k; i++) {
			lo = a[i] < lo ? a[i] : lo;
			hi = a[i] > hi ? a[i] : hi;
		}
		uint32_t wa = lo >> 6, we = (hi >> 6) + 1;
		if (we - wa <= 4 * k + 64) {
			for (size_t i = 0; i < k; i++)
				wb[a[i] >> 6] |= 1ULL << (a[i] & 63);
			iset_clear(s);
			take_bits(s, wb, wa, we);
			return;
		}
	}
	sort_u32(a, k, tmp);
	iset_assign_sorted(s, a, k);
}

/* The first run of s from i on whose end reaches x (end >= x: it holds x,
 * follows it, or ends just before it, adjacent), n if none. */
static inline uint32_t find_reaching(const struct iset *s, uint32_t i, uint32_t x)
{
	uint32_t lo = i, hi = s->n;
	while (lo < hi) {
		uint32_t m = lo + (hi - lo) / 2;
		if (s->r[2 * m + 1] < x)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/* Append a's runs [i, j) to out, whose last run (if any) ends before the
 * first of them starts, with a gap: a copy. */
static inline void push_runs(struct iset *out, const struct iset *a, uint32_t i, uint32_t j)
{
	if (j <= i)
		return;
	memcpy(out->r + 2 * out->n, a->r + 2 * i, (size_t)(j - i) * 2 * sizeof *out->r);
	out->n += j - i;
}

/*
 * A union merges the smaller set's runs into the larger's: in absorbs the
 * larger is a region (tens of runs) and the smaller a few runs, so the
 * larger's runs between two of the smaller's are found by a binary search
 * and copied whole, not merged one by one (on the LSTM log under MSPS, 4.2
 * G instructions in unions down to 1.1 G). The members are counted as a's
 * and b's less those both hold.
 */
void iset_or(struct iset *out, const struct iset *a, const struct iset *b)
{
	if (a->n < b->n) {
		const struct iset *t = a;
		a = b;
		b = t;
	}
	iset_clear(out);
	reserve(out, (size_t)a->n + b->n);
	uint32_t i = 0;
	uint64_t common = 0; /* members of both */
	uint32_t last = 0;   /* the end of a's last run passed (0: none) */
	for (uint32_t k = 0; k < b->n; k++) {
		uint32_t lo = b->r[2 * k], hi = b->r[2 * k + 1];
		/* a's runs that end before lo, not adjacent to it: they follow
		 * out's last run with a gap (every run of a that out's last run
		 * reached was merged below) */
		uint32_t j = find_reaching(a, i, lo);
		if (j > i) {
			push_runs(out, a, i, j);
			last = a->r[2 * j - 1];
		}
		/* Only a's last run passed can reach into [lo, hi) (the others
		 * end before it starts, before the last run of b); then a[j]
		 * starts after it ends. */
		if (last > lo)
			common += (last < hi ? last : hi) - lo;
		if (j < a->n && a->r[2 * j] < lo) {
			last = a->r[2 * j + 1];
			common += (last < hi ? last : hi) - lo;
			push_run(out, a->r[2 * j], last);
			j++;
		}
		push_run(out, lo, hi);
		/* a's runs that out's last run now reaches (or touches), each
		 * starting at or past lo */
		while (j < a->n && a->r[2 * j] <= out->r[2 * out->n - 1]) {
			uint32_t alo = a->r[2 * j];
			last = a->r[2 * j + 1];
			uint32_t e = last < hi ? last : hi;
			common += e > alo ? e - alo : 0;
			push_run(out, alo, last);
			j++;
		}
		i = j;
	}
	push_runs(out, a, i, a->n);
	out->card = a->card + b->card - common;
}

/* a |= [lo, hi) in place (from a's run i on: none before it reaches lo);
 * the ids new to a appended to gain. The index of the run that holds
 * [lo, hi) after. */
static uint32_t or_range(struct iset *a, uint32_t i, uint32_t lo, uint32_t hi, struct iset *gain)
{
	i = find_reaching(a, i, lo);
	uint32_t j = i, nlo = lo, nhi = hi, p = lo; /* p: ids below it are covered */
	uint64_t covered = 0;
	/* a's runs that overlap or touch [lo, hi) join it; the gaps between
	 * them within [lo, hi) are new */
	for (; j < a->n && a->r[2 * j] <= hi; j++) {
		uint32_t s = a->r[2 * j], e = a->r[2 * j + 1];
		if (gain && s > p)
			push_run(gain, p, s);
		if (e > p)
			p = e;
		nlo = s < nlo ? s : nlo;
		nhi = e > nhi ? e : nhi;
		covered += e - s;
	}
	if (gain && p < hi)
		push_run(gain, p, hi);
	a->card += nhi - nlo - covered;
	if (j == i) {
		reserve(a, (size_t)a->n + 1);
		memmove(a->r + 2 * i + 2, a->r + 2 * i, (size_t)(a->n - i) * 2 * sizeof *a->r);
		a->n++;
	} else if (j > i + 1) {
		memmove(a->r + 2 * i + 2, a->r + 2 * j, (size_t)(a->n - j) * 2 * sizeof *a->r);
		a->n -= j - i - 1;
	}
	a->r[2 * i] = nlo;
	a->r[2 * i + 1] = nhi;
	return i;
}

void iset_or_into(struct iset *a, const struct iset *b, struct iset *gain)
{
	if (gain)
		iset_clear(gain);
	for (uint32_t k = 0, i = 0; k < b->n; k++)
		i = or_range(a, i, b->r[2 * k], b->r[2 * k + 1], gain);
}

/* In absorbs a is a few runs and b a region of tens: b's runs before each
 * of a's are skipped by galloping (steps 1, 2, 4, ..., then a binary
 * search), not one by one. */
void iset_andnot(struct iset *out, const struct iset *a, const struct iset *b)
{
	iset_clear(out);
	uint32_t j = 0;
	for (uint32_t i = 0; i < a->n; i++) {
		uint32_t lo = a->r[2 * i], hi = a->r[2 * i + 1];
		if (j < b->n && b->r[2 * j + 1] <= lo) {
			/* the first run ending past lo: galloping from j */
			uint32_t l = j + 1, step = 1, h;
			while (l + step < b->n && b->r[2 * (l + step) + 1] <= lo)
				l += step, step *= 2;
			h = l + step < b->n ? l + step : b->n;
			while (l < h) {
				uint32_t m = l + (h - l) / 2;
				if (b->r[2 * m + 1] <= lo)
					l = m + 1;
				else
					h = m;
			}
			j = l;
		}
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

void iset_remove_sorted(struct iset *s, const uint32_t *a, size_t k, struct iset *tmp)
{
	if (!k)
		return;
	if (k <= 4) {
		for (size_t i = 0; i < k; i++)
			iset_remove(s, a[i]);
		return;
	}
	/* runs only split: written to tmp's array, which then changes
	 * places with s's (no allocation once both have grown) */
	struct iset t = *tmp;
	iset_clear(&t);
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
	*tmp = t;
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

/* Block width: 2^sh about sqrt n, at least 64 ids. */
static uint32_t psum_shift(size_t n)
{
	uint32_t lg = 0;
	while (lg < 63 && ((size_t)1 << lg) < n)
		lg++;
	return lg / 2 > 6 ? lg / 2 : 6;
}

/*
 * The two widths share one body (T: the sums' type, D: an added value's):
 * ids from top to i join with the value 0, then d goes into i's block
 * from i on and into every later block's base.
 */
#define PSUM_DEFINE(P, T, D)                                                            \
	void P##_init(struct P *p, size_t n)                                            \
	{                                                                               \
		p->n = n;                                                               \
		p->sh = psum_shift(n);                                                  \
		p->in = xcalloc(n + 1, sizeof *p->in);                                  \
		p->blk = xcalloc((n >> p->sh) + 1, sizeof *p->blk);                     \
		p->total = 0;                                                           \
		p->top = 0;                                                             \
	}                                                                               \
	void P##_free(struct P *p)                                                      \
	{                                                                               \
		free(p->in);                                                            \
		free(p->blk);                                                           \
		p->in = p->blk = NULL;                                                  \
		p->n = 0;                                                               \
		p->top = 0;                                                             \
		p->total = 0;                                                           \
	}                                                                               \
	void P##_add(struct P *p, uint32_t i, D d)                                      \
	{                                                                               \
		const uint32_t mask = (1u << p->sh) - 1;                                \
		for (uint32_t j = p->top; j <= i; j++) {                                \
			if (!(j & mask)) {                                              \
				p->blk[j >> p->sh] =                                    \
					j ? p->blk[(j - 1) >> p->sh] + p->in[j - 1] : 0; \
				p->in[j] = 0;                                           \
			} else {                                                        \
				p->in[j] = p->in[j - 1];                                \
			}                                                               \
		}                                                                       \
		if (i >= p->top)                                                        \
			p->top = i + 1;                                                 \
		uint32_t end = (i | mask) + 1 < p->top ? (i | mask) + 1 : p->top;       \
		for (uint32_t j = i; j < end; j++)                                      \
			p->in[j] += (T)d;                                               \
		for (uint32_t b = (i >> p->sh) + 1, last = (p->top - 1) >> p->sh; b <= last; \
		     b++)                                                               \
			p->blk[b] += (T)d;                                              \
		p->total += (T)d;                                                       \
	}

PSUM_DEFINE(psum, uint64_t, int64_t)
PSUM_DEFINE(psum32, uint32_t, uint32_t)
#undef PSUM_DEFINE
