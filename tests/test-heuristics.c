/*
 * test-heuristics.c: the registry (every row complete, names and needs as the
 * reference's), and the exact division every cost goes through.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "heuristics.h"
#include "runtime.h"
#include "runtime-choose.h"
#include "runtime-order.h"
#include "runtime-state.h"
#include "test-common.h"

/* Every row describes itself completely, and the properties the runtimes
 * and the figures rely on hold for each row, however many there are. */
START_TEST(registry)
{
	size_t n;
	const struct heuristic *h = heuristic_list(&n);
	ck_assert_uint_ge(n, 1);
	for (size_t i = 0; i < n; i++) {
		const struct heuristic *r = &h[i];
		ck_assert_ptr_nonnull(r->name);
		ck_assert_msg(r->label && *r->label, "%s: no label", r->name);
		ck_assert_msg(r->tex_label && *r->tex_label, "%s: no tex_label", r->name);
		ck_assert_msg(r->cost && *r->cost, "%s: no cost formula", r->name);
		ck_assert_msg((unsigned)r->family < FAMILY_COUNT, "%s: family", r->name);
		ck_assert_msg(r->color && strlen(r->color) == 7 && r->color[0] == '#' &&
				      strspn(r->color + 1, "0123456789abcdef") == 6,
			      "%s: colour '%s' is not #rrggbb", r->name, r->color);
		ck_assert_msg(r->marker >= 1 && r->marker <= 15, "%s: marker %d", r->name, r->marker);
		ck_assert_msg((r->needs & ~(unsigned)(NEEDS_REGIONS | NEEDS_EQCLASS | NEEDS_UNOPT | NEEDS_PROTO |
						    NEEDS_FUTURE)) == 0,
			      "%s: needs", r->name);
		ck_assert_ptr_nonnull(r->choose);
		/* a key only beside the cost it stands for */
		ck_assert_msg((unsigned)r->key < SCAN_KEY_COUNT && (r->key == SCAN_NONE || r->score),
			      "%s: a key without a cost", r->name);
		/* found by its name, in any case, and only by it */
		ck_assert_ptr_eq(heuristic_find(r->name), r);
		char lower[64];
		size_t k = 0;
		for (; r->name[k] && k < sizeof lower - 1; k++)
			lower[k] = (char)(r->name[k] | 0x20);
		lower[k] = 0;
		ck_assert_ptr_eq(heuristic_find(lower), r);
		ck_assert_str_eq(heuristic_suggest(lower), r->name);
		for (size_t j = 0; j < i; j++) {
			ck_assert_msg(strcasecmp(r->name, h[j].name), "%s twice", r->name);
			/* one style per figure: rows drawn together differ */
			if (h[j].family == r->family)
				ck_assert_msg(strcmp(r->color, h[j].color) || r->marker != h[j].marker,
					      "%s and %s look alike in one figure", r->name, h[j].name);
		}
		/* a name an edit away suggests the row */
		char typo[64];
		snprintf(typo, sizeof typo, "%sx", r->name);
		ck_assert_str_eq(heuristic_suggest(typo), r->name);
	}
	ck_assert_ptr_null(heuristic_find("DTRR"));
	ck_assert_ptr_null(heuristic_suggest("completely-different"));
	/* The reference's requirements, spot-checked (the exactness tests
	 * cover every row's choices). */
	ck_assert(heuristic_find("RandomStorage")->random);
	ck_assert(heuristic_find("DTR")->needs & NEEDS_REGIONS);
	ck_assert(heuristic_find("DTREqClass")->needs & NEEDS_EQCLASS);
	ck_assert(heuristic_find("DTRUnopt")->needs & NEEDS_UNOPT);
	ck_assert_uint_eq(heuristic_find("LRU")->needs, 0);
	ck_assert_int_eq(heuristic_find("AbEqSize")->family, FAMILY_EQ);
	ck_assert_str_eq(heuristic_family_name(FAMILY_NOCOST), "nocost");
	/* the DTR paper's styles where it has the series */
	ck_assert_str_eq(heuristic_find("DTR")->color, "#008000");
	ck_assert_str_eq(heuristic_find("LRU")->color, "#ffa500");
}
END_TEST

/* The runtime table: every row named, parsed in any case, and the flags
 * the reference's runtimes have. */
START_TEST(runtime_table)
{
	for (int i = 0; i < RUNTIME_KIND_COUNT; i++) {
		const struct runtime_desc *d = runtime_desc((enum runtime_kind)i);
		ck_assert_ptr_nonnull(d->name);
		ck_assert_ptr_nonnull(d->summary);
		enum runtime_kind k;
		char lower[64];
		size_t j = 0;
		for (; d->name[j] && j < sizeof lower - 1; j++)
			lower[j] = (char)(d->name[j] | 0x20);
		lower[j] = 0;
		ck_assert_int_eq(runtime_kind_parse(lower, &k), 0);
		ck_assert_int_eq(k, i);
	}
	ck_assert(runtime_desc(RUNTIME_V1)->banishing);
	ck_assert(!runtime_desc(RUNTIME_V2)->banishing);
	ck_assert(runtime_desc(RUNTIME_V2_EAGER)->eager);
	ck_assert(!runtime_desc(RUNTIME_V2_OPTIMIZED)->eager);
	ck_assert(runtime_desc(RUNTIME_V2_EAGER_OPTIMIZED)->maintains & NEEDS_REGIONS);
	ck_assert_uint_eq(runtime_desc(RUNTIME_V2_EAGER)->maintains, 0);
	ck_assert_str_eq(runtime_suggest("V2EagerOptimised"), "V2EagerOptimized");
}
END_TEST

START_TEST(exact_division)
{
	/* Small operands: plain double division. */
	ck_assert_double_eq(rt_div(1, 3), 1.0 / 3.0);
	ck_assert_double_eq(rt_div(-7, 2), -3.5);
	ck_assert_double_eq(rt_div(0, 5), 0.0);
	/* Denominators past 2^53 (size x staleness), values from Python's
	 * int / int (correctly rounded): */
	unsigned __int128 d = (unsigned __int128)3000000000ULL * 987654321ULL;
	ck_assert_double_eq(rt_div(123456789, d), 0x1.6e80fdcb345c3p-35);
	d = (unsigned __int128)25690112ULL * 731028139ULL;
	ck_assert_double_eq(rt_div(9007199254740993LL, d), 0x1.eb1f4d9e42cefp-2);
	d = ((unsigned __int128)1 << 64) + 1;
	ck_assert_double_eq(rt_div(1, d), 0x1p-64);
	ck_assert_double_eq(rt_div(3, ((unsigned __int128)1 << 55) + 1), 0x1.8p-54);
	/* Random ones (numerator < 2^40, denominator in [2^53, 2^66)). */
	static const struct {
		int64_t a;
		unsigned __int128 b;
		double q;
	} cases[] = {
		{623347347958, (unsigned __int128)17537104412604652215ULL << 2 | 3, 0x1.315326474d366p-27},
		{279443915986, (unsigned __int128)16122100922247281378ULL << 2 | 1, 0x1.29c7370280014p-28},
		{517326624932, (unsigned __int128)15587976070101709574ULL << 2 | 3, 0x1.1d142dbe55a1ep-27},
		{103980964142, (unsigned __int128)13968039494649711392ULL << 2 | 2, 0x1.ff8fdb9a2fdccp-30},
		{428791346099, (unsigned __int128)16638623167521387681ULL << 2 | 2, 0x1.babd5dc7fb580p-28},
		{3294916954, (unsigned __int128)6667923719404947094ULL << 2 | 0, 0x1.0fa8a32479434p-33},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		ck_assert_double_eq(rt_div(cases[i].a, cases[i].b), cases[i].q);
}
END_TEST

/*
 * The fast scans (vector blocks, settled ties, integer keys) choose as the
 * exact scans do. A pool is built by hand: members with keys drawn from
 * small sets, so that costs tie often (equal keys, equal fractions of
 * different keys such as 2/4 and 1/2) or nearly (fractions a rounding
 * apart, denominators past 2^53), with holes, never-accessed members,
 * members accessed at the clock (staleness 0), size 0 and compute 0.
 * Each row that names a key (runtime-scan.h) chooses three times on it,
 * through the runtime's rt_choose: with the keys narrow (the runtime's
 * key scan), marked wide (the row's own loop, with its inlined cost and
 * shortcut), and with the plain loop forced (each member's exact cost, as
 * runtime_test_switches.plain_scans), and the choices and their counts must
 * agree; LRU and DTRLocal a fourth time, from the ordered pool
 * (runtime-order.c) built over the same pool, whose groups' first
 * members must win as the plain loop's choice does, ties across groups
 * of different keys and costs past 2^53 in the denominator included.
 */
static uint64_t tie_rng = 12345;

static uint64_t tie_next(void)
{
	uint64_t z = (tie_rng += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static uint64_t tie_pick(const uint64_t *v, size_t n)
{
	return v[tie_next() % n];
}

START_TEST(fast_scans_choose_exactly)
{
	enum { MAX = 300 };
	static const char *const names[] = {
		"DTRLocal", "AbLocalSizeStale", "AbLocalSize", "AbLocalStale", "AbSizeStale",
		"AbLocal", "AbStale", "LRU", "LargestStorage", "AbSize",
	};
	static const uint64_t sizes[] = {1, 1, 2, 3, 4, 0, 1u << 20, (1u << 26) + 1, 1ULL << 30,
					 (1ULL << 30) - 1, 1ULL << 50};
	static const uint64_t computes[] = {1, 1, 2, 3, 4, 6, 0, 1u << 20, 3u << 19,
					    (1ULL << 40) + 1, 1ULL << 50};
	struct rt_key key[MAX];
	struct rt_storage st[MAX + 1];
	uint32_t pool[MAX];
	uint64_t pk_size[MAX];
	int64_t pk_compute[MAX], pk_last[MAX];
	uint64_t ordered_rounds = 0;
	for (int round = 0; round < 12000; round++) {
		struct runtime_result res;
		struct runtime_state rt;
		memset(&rt, 0, sizeof rt);
		rt.key = key, rt.pool.slot = pool, rt.pool.size = pk_size;
		rt.pool.compute = pk_compute, rt.pool.last = pk_last, rt.res = &res;
		/* clocks near 2^31 make size * staleness pass 2^53 with the big sizes */
		rt.clock = round % 3 == 0 ? 1000 : round % 3 == 1 ? (1LL << 31) + 7 : (1LL << 50);
		/* small pools half the time: their last few slots are tested apart */
		uint32_t end = 1 + (uint32_t)(tie_next() % (tie_next() % 2 ? 40 : MAX));
		/* a few distinct last accesses, so that many members share one */
		int64_t lasts[6];
		for (int k = 0; k < 6; k++)
			lasts[k] = rt.clock - (int64_t)(tie_next() % (k < 3 ? 8 : (1u << 30)));
		int mode = round % 4; /* 0: all equal keys (the chain), 1-3: mixed */
		/* per round, how often (in 16ths) a slot is a hole, never accessed,
		 * accessed at the clock, of size 0 */
		static const unsigned often[] = {0, 1, 4, 14};
		unsigned p_hole = often[tie_next() % 4], p_never = often[tie_next() % 3];
		unsigned p_now = often[tie_next() % 3], p_zero = often[tie_next() % 3];
		uint32_t members = 0;
		for (uint32_t i = 0; i < end; i++) {
			pool[i] = i;
			key[i].size = mode ? tie_pick(sizes, sizeof sizes / sizeof sizes[0]) : 1;
			key[i].compute = mode ? (int64_t)tie_pick(computes, sizeof computes / sizeof computes[0]) : 1;
			key[i].last = lasts[tie_next() % 6];
			if (tie_next() % 16 < p_never)
				key[i].last = RT_NEVER;
			else if (tie_next() % 16 < p_now)
				key[i].last = rt.clock;
			if (tie_next() % 16 < p_zero)
				key[i].size = 0;
			if (mode == 3 && tie_next() % 2) /* equal fractions of other keys */
				key[i].size *= 2, key[i].compute *= 2;
			pk_size[i] = key[i].size;
			pk_compute[i] = key[i].compute;
			pk_last[i] = key[i].last;
			if (tie_next() % 16 < p_hole && (members || i + 1 < end)) {
				pool[i] = RT_NONE;
				pk_size[i] = 0, pk_compute[i] = INT64_MAX, pk_last[i] = INT64_MAX;
			} else {
				members++;
			}
		}
		rt.pool.end = end, rt.pool.len = members;
		memset(st, 0, sizeof st);
		for (uint32_t i = 0; i < end; i++)
			st[i] = (struct rt_storage){.pool_pos = i, .in_pool = pool[i] != RT_NONE};
		struct schedule sch = {.n_storages = end};
		struct runtime_test_switches sw = {.order_at_once = true};
		struct runtime_config cfg = {.test = &sw};
		rt.st = st, rt.s = &sch, rt.cfg = &cfg, rt.test = &sw;
		for (size_t h = 0; h < sizeof names / sizeof names[0]; h++) {
			const struct heuristic *hh = heuristic_find(names[h]);
			ck_assert_int_ne(hh->key, SCAN_NONE);
			rt.h = hh;
			/* 0: the runtime's key scan; 1: the row's loop (keys marked
			 * wide); 2: the plain loop, each member's exact cost */
			static const char *const path[] = {"key scan", "row's loop", "plain loop"};
			uint32_t got[4];
			uint64_t evals[4], acc[4];
			for (int k = 0; k < 3; k++) {
				memset(&res, 0, sizeof res);
				rt.scan.wide = k == 1;
				rt.scan.plain = k == 2;
				got[k] = rt_choose(&rt);
				evals[k] = res.heuristic_evals;
				acc[k] = res.heuristic_accesses;
			}
			/* 3: the ordered pool, where the row keeps one */
			bool ordered = hh->key == SCAN_LAST || hh->key == SCAN_COMPUTE_PER_SIZE_STALE;
			if (ordered) {
				memset(&res, 0, sizeof res);
				memset(&rt.ord, 0, sizeof rt.ord);
				rt.scan.wide = rt.scan.plain = false;
				rt_order_init(&rt);
				ck_assert(rt.ord.on || hh->key == SCAN_COMPUTE_PER_SIZE_STALE); /* LRU: one group */
				if (rt.ord.on)
					rt_order_check(&rt);
				got[3] = rt_choose(&rt);
				evals[3] = res.heuristic_evals;
				acc[3] = res.heuristic_accesses;
				ordered_rounds += res.ordered_choices;
				rt_order_free(&rt);
				memset(&rt.ord, 0, sizeof rt.ord);
				ck_assert_msg(got[3] == got[2] && evals[3] == evals[2] && acc[3] == acc[2],
					      "round %d, %s: the ordered pool chose %u after %llu evaluations, "
					      "the plain loop %u after %llu",
					      round, names[h], got[3], (unsigned long long)evals[3], got[2],
					      (unsigned long long)evals[2]);
			}
			for (int k = 0; k < 2; k++)
				ck_assert_msg(got[k] == got[2] && evals[k] == evals[2] && acc[k] == acc[2],
					      "round %d, %s: the %s chose %u after %llu evaluations, the plain "
					      "loop %u after %llu",
					      round, names[h], path[k], got[k], (unsigned long long)evals[k],
					      got[2], (unsigned long long)evals[2]);
			ck_assert_uint_ne(got[0], RT_NONE);
			ck_assert_uint_ne(pool[got[0] < end ? got[0] : 0], RT_NONE);
		}
	}
	/* the ordered pool chose (not only fell back to the scans) in most rounds */
	ck_assert_uint_gt(ordered_rounds, 12000);
}
END_TEST

/* The regions' visit stamps (rt_tag_stamps): fresh, even, the material
 * bit kept; near the counter's top, the array is cleared before any of a
 * request's stamps is handed out, so that a pair taken across the top
 * (DTRUnopt's two walks) cannot meet its own old marks again. */
START_TEST(tag_stamps_wrap)
{
	uint32_t tag[4] = {0, 1, 0, 1};
	struct schedule sch = {.n_storages = 4};
	struct runtime_state rt;
	memset(&rt, 0, sizeof rt);
	rt.tag = tag, rt.s = &sch;
	uint32_t a = rt_tag_stamp(&rt), b = rt_tag_stamps(&rt, 2);
	ck_assert_uint_eq(a, 2);
	ck_assert_uint_eq(b, 4); /* and b + 2 = 6 */
	ck_assert_uint_eq(rt_tag_stamp(&rt), 8);
	/* one below the top: a single stamp still fits, a pair does not */
	rt.reg.tag_stamp = (1u << 31) - 2;
	tag[0] = tag[1] = 8 | 1, tag[2] = 8;
	ck_assert_uint_eq(rt_tag_stamp(&rt), ((1u << 31) - 1) << 1);
	ck_assert_uint_eq(tag[0], 9); /* no reset yet */
	rt.reg.tag_stamp = (1u << 31) - 2;
	uint32_t p = rt_tag_stamps(&rt, 2);
	ck_assert_uint_eq(p, 2); /* reset first: both after it */
	ck_assert_uint_eq(rt.reg.tag_stamp, 2);
	ck_assert_uint_eq(tag[0], 1);
	ck_assert_uint_eq(tag[1], 1);
	ck_assert_uint_eq(tag[2], 0);
	ck_assert_uint_eq(tag[3], 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("heuristics");
	TCase *tc = tcase_create("heuristics");
	tcase_add_test(tc, registry);
	tcase_add_test(tc, runtime_table);
	tcase_add_test(tc, exact_division);
	tcase_add_test(tc, fast_scans_choose_exactly);
	tcase_add_test(tc, tag_stamps_wrap);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
