/*
 * test-iset.c: the run sets and prefix sums of sim/lib/runtime/iset.c that hold
 * the regions of large logs, against plain bitmaps under random operations
 * (adds, removals, unions, in place or not, differences, bulk removals;
 * unions of a fragmented set and a few runs), with runs that stay
 * sorted, disjoint and apart; the radix sort against insertion; ids in any
 * order to runs; prefix sums against plain sums.
 */
#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "iset.h"
#include "test-common.h"

#define U 3000 /* universe of ids */

/* (one assertion per set: Check records every assertion it passes) */
static void same(const struct iset *s, const unsigned char *ref)
{
	uint64_t card = 0;
	bool ok = true;
	for (uint32_t i = 0; i < s->n; i++) {
		ok &= s->r[2 * i] < s->r[2 * i + 1];
		if (i)
			ok &= s->r[2 * i] > s->r[2 * i - 1]; /* a gap */
		card += s->r[2 * i + 1] - s->r[2 * i];
	}
	ck_assert_msg(ok, "runs out of order or touching");
	ck_assert_uint_eq(card, s->card);
	uint64_t n = 0;
	for (uint32_t x = 0; x < U; x++) {
		if (iset_has(s, x) != (ref[x] != 0))
			ck_abort_msg("id %u: in the set %d, in the bitmap %d", x, iset_has(s, x), ref[x]);
		n += ref[x];
	}
	ck_assert_uint_eq(n, s->card);
}

/* A random set, dense in runs or scattered, as a bitmap and a set. */
static void random_set(uint64_t *rng, unsigned char *ref, struct iset *s)
{
	memset(ref, 0, U);
	uint32_t runs = (uint32_t)(splitmix64_next(rng) % 12);
	for (uint32_t k = 0; k < runs; k++) {
		uint32_t lo = (uint32_t)(splitmix64_next(rng) % U);
		uint32_t len = (uint32_t)(splitmix64_next(rng) % (k % 3 ? 5 : 400));
		for (uint32_t x = lo; x < lo + len && x < U; x++)
			ref[x] = 1;
	}
	uint32_t ids[U], n = 0;
	for (uint32_t x = 0; x < U; x++)
		if (ref[x])
			ids[n++] = x;
	iset_assign_sorted(s, ids, n);
}

START_TEST(random_ops)
{
	uint64_t rng = 12345;
	unsigned char ra[U], rb[U], ro[U];
	struct iset a = {0}, b = {0}, o = {0}, g = {0}, rm = {0};
	for (int round = 0; round < 300; round++) {
		random_set(&rng, ra, &a);
		random_set(&rng, rb, &b);
		same(&a, ra);
		iset_or(&o, &a, &b);
		for (int x = 0; x < U; x++)
			ro[x] = ra[x] | rb[x];
		same(&o, ro);
		iset_andnot(&o, &a, &b);
		for (int x = 0; x < U; x++)
			ro[x] = ra[x] & !rb[x];
		same(&o, ro);
		iset_andnot(&o, &b, &a);
		for (int x = 0; x < U; x++)
			ro[x] = rb[x] & !ra[x];
		same(&o, ro);
		/* in place: a copy of a gains b, the gain is b & ~a */
		iset_copy(&g, &a);
		iset_or_into(&g, &b, &o);
		same(&o, ro);
		for (int x = 0; x < U; x++)
			ro[x] = ra[x] | rb[x];
		same(&g, ro);
		iset_copy(&g, &b);
		iset_or_into(&g, &a, NULL);
		same(&g, ro);
		/* single adds and removals, at run ends, inside, in gaps */
		for (int k = 0; k < 200; k++) {
			uint32_t x = (uint32_t)(splitmix64_next(&rng) % U);
			if (splitmix64_next(&rng) & 1) {
				if (iset_add(&a, x) != !ra[x])
					ck_abort_msg("add %u", x);
				ra[x] = 1;
			} else {
				if (iset_remove(&a, x) != (ra[x] != 0))
					ck_abort_msg("remove %u", x);
				ra[x] = 0;
			}
		}
		same(&a, ra);
		/* bulk removal of a sorted list (some absent) */
		uint32_t ids[64], n = 0;
		for (uint32_t x = (uint32_t)(splitmix64_next(&rng) % 50); x < U && n < 64; x += 1 + (uint32_t)(splitmix64_next(&rng) % 80))
			ids[n++] = x;
		iset_remove_sorted(&a, ids, n, &rm);
		for (uint32_t i = 0; i < n; i++)
			ra[ids[i]] = 0;
		same(&a, ra);
		iset_copy(&o, &a);
		same(&o, ra);
	}
	iset_free(&a);
	iset_free(&b);
	iset_free(&o);
	iset_free(&g);
	iset_free(&rm);
}
END_TEST

/* A fragmented set (runs of 1-4 ids, gaps of 1-3) and a few runs: the
 * union's binary search and bulk copy (iset_or), with runs that touch,
 * overlap several of the other's, or fall in gaps, in both orders. */
static void fragmented_set(uint64_t *rng, unsigned char *ref, struct iset *s)
{
	memset(ref, 0, U);
	for (uint32_t x = (uint32_t)(splitmix64_next(rng) % 7); x < U;) {
		uint32_t len = 1 + (uint32_t)(splitmix64_next(rng) % 4);
		for (uint32_t k = 0; k < len && x < U; k++)
			ref[x++] = 1;
		x += 1 + (uint32_t)(splitmix64_next(rng) % 3);
	}
	uint32_t ids[U], n = 0;
	for (uint32_t x = 0; x < U; x++)
		if (ref[x])
			ids[n++] = x;
	iset_assign_sorted(s, ids, n);
}

START_TEST(unequal_unions)
{
	uint64_t rng = 777;
	unsigned char ra[U], rb[U], ro[U];
	struct iset a = {0}, b = {0}, o = {0}, g = {0};
	for (int round = 0; round < 400; round++) {
		fragmented_set(&rng, ra, &a);
		memset(rb, 0, U);
		uint32_t runs = (uint32_t)(splitmix64_next(&rng) % 5);
		for (uint32_t k = 0; k < runs; k++) {
			uint32_t lo = (uint32_t)(splitmix64_next(&rng) % U);
			uint32_t len = 1 + (uint32_t)(splitmix64_next(&rng) % (k & 1 ? 3 : 60));
			for (uint32_t x = lo; x < lo + len && x < U; x++)
				rb[x] = 1;
		}
		uint32_t ids[U], n = 0;
		for (uint32_t x = 0; x < U; x++)
			if (rb[x])
				ids[n++] = x;
		iset_assign_sorted(&b, ids, n);
		for (int x = 0; x < U; x++)
			ro[x] = ra[x] | rb[x];
		iset_or(&o, &a, &b);
		same(&o, ro);
		iset_or(&o, &b, &a);
		same(&o, ro);
		/* in place, the few runs into the fragmented set, the gain
		 * its ids the set lacked */
		iset_copy(&g, &a);
		iset_or_into(&g, &b, &o);
		same(&g, ro);
		for (int x = 0; x < U; x++)
			ro[x] = rb[x] & !ra[x];
		same(&o, ro);
	}
	iset_free(&a);
	iset_free(&b);
	iset_free(&o);
	iset_free(&g);
}
END_TEST

START_TEST(sorts)
{
	uint64_t rng = 7;
	static uint32_t a[100000], b[100000], tmp[100000];
	size_t sizes[] = {0, 1, 2, 63, 64, 65, 1000, 100000};
	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		size_t n = sizes[k];
		uint32_t mask = k % 2 ? 0xffffffffu : 0x3fffff; /* three passes, or two */
		for (size_t i = 0; i < n; i++)
			a[i] = b[i] = (uint32_t)splitmix64_next(&rng) & mask;
		sort_u32(a, n, tmp);
		bool sorted = true;
		for (size_t i = 1; i < n; i++)
			sorted &= a[i - 1] <= a[i];
		ck_assert_msg(sorted, "not sorted (n = %zu)", n);
		/* a permutation of b: same sum and xor */
		uint64_t sa = 0, sb = 0, xa = 0, xb = 0;
		for (size_t i = 0; i < n; i++) {
			sa += a[i];
			sb += b[i];
			xa ^= (uint64_t)a[i] * 0x9E3779B97F4A7C15ULL;
			xb ^= (uint64_t)b[i] * 0x9E3779B97F4A7C15ULL;
		}
		ck_assert_uint_eq(sa, sb);
		ck_assert_uint_eq(xa, xb);
	}
}
END_TEST

/* Ids in any order to runs, through the bitmap (dense spans: runs that
 * pass word ends, full words, a run to the span's last word) or the sort
 * (a few ids far apart), against the sorted ids; the bitmap left zero. */
START_TEST(assign_ids)
{
	enum { N = 70000 };
	static uint32_t ids[N], sorted[N], tmp[N];
	static unsigned char ref[N];
	static uint64_t wb[N / 64 + 1];
	uint64_t rng = 4242;
	struct iset s = {0}, t = {0};
	/* runs that end at a word's end, the span's last included */
	static const uint32_t cases[][4] = {{0, 64, 0, 0}, {56, 64, 0, 0}, {64, 192, 0, 0}, {10, 128, 130, 192},
					    {63, 64, 120, 128}, {0, 9, 63, 128}};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		uint32_t k = 0;
		for (uint32_t r = 0; r < 4; r += 2)
			for (uint32_t x = cases[c][r]; x < cases[c][r + 1]; x++)
				sorted[k++] = x;
		for (uint32_t i = 0; i < k; i++)
			ids[i] = sorted[k - 1 - i];
		iset_assign_ids(&s, ids, k, tmp, wb);
		iset_assign_sorted(&t, sorted, k);
		ck_assert_uint_eq(s.n, t.n);
		ck_assert_uint_eq(s.card, t.card);
		ck_assert(!s.n || !memcmp(s.r, t.r, 2 * s.n * sizeof *s.r));
	}
	for (int round = 0; round < 200; round++) {
		memset(ref, 0, sizeof ref);
		uint32_t base = (uint32_t)(splitmix64_next(&rng) % (N / 2));
		uint32_t span = round % 4 == 3 ? N / 2 : 64 + (uint32_t)(splitmix64_next(&rng) % 3000);
		uint32_t k = 0;
		if (round % 4 == 3) { /* sparse: a few ids far apart */
			for (uint32_t i = 0; i < 20; i++)
				ref[base + (uint32_t)(splitmix64_next(&rng) % span)] = 1;
		} else {
			for (uint32_t x = base; x < base + span;) {
				uint32_t len = 1 + (uint32_t)(splitmix64_next(&rng) % (round & 1 ? 200 : 5));
				for (uint32_t j = 0; j < len && x < base + span; j++)
					ref[x++] = 1;
				x += 1 + (uint32_t)(splitmix64_next(&rng) % 4);
			}
		}
		for (uint32_t x = 0; x < N; x++)
			if (ref[x])
				sorted[k++] = x;
		memcpy(ids, sorted, k * sizeof *ids);
		for (uint32_t i = k; i > 1; i--) { /* shuffled */
			uint32_t j = (uint32_t)(splitmix64_next(&rng) % i);
			uint32_t v = ids[i - 1];
			ids[i - 1] = ids[j];
			ids[j] = v;
		}
		iset_assign_ids(&s, ids, k, tmp, wb);
		iset_assign_sorted(&t, sorted, k);
		ck_assert_uint_eq(s.n, t.n);
		ck_assert_uint_eq(s.card, t.card);
		ck_assert(!s.n || !memcmp(s.r, t.r, 2 * s.n * sizeof *s.r));
		bool zero = true;
		for (size_t i = 0; i < sizeof wb / sizeof *wb; i++)
			zero &= !wb[i];
		ck_assert_msg(zero, "bitmap not cleared");
	}
	iset_free(&s);
	iset_free(&t);
}
END_TEST

/* Prefix sums against plain sums: adds at random ids (extending top past
 * ids never added to, and below it), at sizes of one and of several block
 * widths (n = 1,000: 64 ids a block; n = 20,000: 128). */
START_TEST(psum_sums)
{
	static const uint32_t sizes[] = {1000, 20000};
	uint64_t rng = 99;
	static int64_t v[20000];
	static uint32_t u[20000];
	for (size_t z = 0; z < 2; z++) {
		uint32_t n = sizes[z];
		struct psum f;
		psum_init(&f, n);
		memset(v, 0, sizeof v);
		ck_assert_int_eq(psum_prefix(&f, n), 0);
		for (int k = 0; k < 3000; k++) {
			/* mostly near the highest id so far, as in a replay */
			uint32_t i = (uint32_t)(splitmix64_next(&rng) % n);
			if (k % 3 && f.top)
				i = f.top - 1 + (uint32_t)(splitmix64_next(&rng) % 3);
			if (i >= n)
				i = n - 1;
			int64_t d = (int64_t)(splitmix64_next(&rng) % 2001) - 1000;
			psum_add(&f, i, d);
			v[i] += d;
			uint32_t q = (uint32_t)(splitmix64_next(&rng) % (n + 1));
			int64_t s = 0;
			for (uint32_t j = 0; j < q; j++)
				s += v[j];
			if (psum_prefix(&f, q) != s)
				ck_abort_msg("n %u: prefix %u", n, q);
		}
		int64_t all = 0;
		for (uint32_t j = 0; j < n; j++) {
			if (psum_prefix(&f, j) != all)
				ck_abort_msg("n %u: prefix %u at the end", n, j);
			all += v[j];
		}
		ck_assert_int_eq(psum_prefix(&f, n), all);
		psum_free(&f);
		/* the 32-bit sums (counts, never negative) */
		struct psum32 g;
		psum32_init(&g, n);
		memset(u, 0, sizeof u);
		for (int k = 0; k < 3000; k++) {
			uint32_t i = (uint32_t)(splitmix64_next(&rng) % n);
			if (k % 2 && g.top)
				i = g.top - 1 + (uint32_t)(splitmix64_next(&rng) % 2);
			if (i >= n)
				i = n - 1;
			uint32_t d = (uint32_t)(splitmix64_next(&rng) % 100);
			psum32_add(&g, i, d);
			u[i] += d;
			uint32_t a = (uint32_t)(splitmix64_next(&rng) % (n + 1)), c = (uint32_t)(splitmix64_next(&rng) % (n + 1));
			uint32_t lo = a < c ? a : c, hi = a < c ? c : a, s = 0;
			for (uint32_t j = lo; j < hi; j++)
				s += u[j];
			if (psum32_prefix(&g, hi) - psum32_prefix(&g, lo) != s)
				ck_abort_msg("n %u: range [%u, %u)", n, lo, hi);
		}
		psum32_free(&g);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("iset");
	TCase *tc = tcase_create("iset");
	tcase_add_test(tc, random_ops);
	tcase_add_test(tc, unequal_unions);
	tcase_add_test(tc, sorts);
	tcase_add_test(tc, assign_ids);
	tcase_add_test(tc, psum_sums);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
