/*
 * test-heuristics.c: the registry (24 rows, names and needs as the
 * reference's), and the exact division every cost goes through.
 */
#include <check.h>
#include <math.h>
#include <string.h>

#include "heuristics.h"
#include "runtime-state.h"
#include "test-common.h"

START_TEST(registry)
{
	static const char *const names[] = {
		"DTR", "DTREqClass", "DTRLocal", "MSPS", "LRU", "LargestStorage",
		"RandomStorage", "DTRUnopt", "AbESizeStale", "AbESize", "AbEStale", "AbE",
		"AbEqSizeStale", "AbEqSize", "AbEqStale", "AbEq", "AbLocalSizeStale",
		"AbLocalSize", "AbLocalStale", "AbLocal", "AbSizeStale", "AbSize", "AbStale",
		"AbRandom",
	};
	size_t n;
	const struct heuristic *h = heuristic_list(&n);
	ck_assert_uint_eq(n, 24);
	for (size_t i = 0; i < 24; i++) {
		const struct heuristic *f = heuristic_find(names[i]);
		ck_assert_ptr_nonnull(f);
		ck_assert_str_eq(f->name, names[i]);
		ck_assert_ptr_nonnull(f->label);
		ck_assert(f->random == (f->cost == NULL));
		for (size_t j = 0; j < i; j++)
			ck_assert_str_ne(h[i].name, h[j].name);
	}
	ck_assert_ptr_null(heuristic_find("dtr"));
	ck_assert(heuristic_find("RandomStorage")->random);
	ck_assert(heuristic_find("AbRandom")->random);
	ck_assert(heuristic_find("DTR")->needs & NEEDS_REGIONS);
	ck_assert(heuristic_find("MSPS")->needs & NEEDS_REGIONS);
	ck_assert(heuristic_find("AbEStale")->needs & NEEDS_REGIONS);
	ck_assert(heuristic_find("AbEq")->needs & NEEDS_EQCLASS);
	ck_assert(heuristic_find("DTREqClass")->needs & NEEDS_EQCLASS);
	ck_assert(heuristic_find("DTRUnopt")->needs & NEEDS_UNOPT);
	ck_assert_uint_eq(heuristic_find("LRU")->needs, 0);
	ck_assert_uint_eq(heuristic_find("AbLocalSize")->needs, 0);
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

int main(void)
{
	Suite *s = suite_create("heuristics");
	TCase *tc = tcase_create("heuristics");
	tcase_add_test(tc, registry);
	tcase_add_test(tc, exact_division);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
