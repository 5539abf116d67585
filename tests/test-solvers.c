/*
 * test-solvers.c: the reset-point DP. The exact mode must give the
 * tracker's value and split points on the 26 reference cases of
 * ../shared/reference/reset_points.json; the fast mode the same value
 * there and on random inputs. Hand cases run without ../shared.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "reset_points.h"
#include "test-common.h"

START_TEST(hand_cases)
{
	const uint64_t a[] = {10, 8, 8, 9, 7, 7, 5, 4, 4};
	struct reset_plan p;
	ck_assert_int_eq(reset_points_exact(a, 9, 2, &p, NULL), 0);
	ck_assert_uint_eq(p.max_chunk, 24);
	ck_assert_uint_eq(p.n_splits, 2);
	ck_assert_uint_eq(p.splits[0], 2);
	ck_assert_uint_eq(p.splits[1], 5);
	reset_plan_free(&p);
	/* more checkpoints than useful: still placed, the last at n */
	ck_assert_int_eq(reset_points_exact(a, 9, 9, &p, NULL), 0);
	ck_assert_uint_eq(p.max_chunk, 10);
	ck_assert_uint_eq(p.n_splits, 9);
	ck_assert_uint_eq(p.splits[8], 9);
	reset_plan_free(&p);
	ck_assert_int_eq(reset_points_exact(a, 9, 0, &p, NULL), 0);
	ck_assert_uint_eq(p.max_chunk, 62);
	ck_assert_uint_eq(p.n_splits, 0);
	reset_plan_free(&p);
	reset_points_fast(a, 9, 3, &p);
	ck_assert_uint_eq(p.max_chunk, 18);
	ck_assert_uint_le(p.n_splits, 3);
	reset_plan_free(&p);
}
END_TEST

START_TEST(reference_cases)
{
	char path[4096];
	if (!shared_dir())
		return; /* covered by the skip in main */
	shared_path(path, sizeof path, "reference/reset_points.json");
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	ck_assert_msg(root != NULL, "%s: %s", path, je.text);
	json_t *cases = json_object_get(root, "cases");
	ck_assert_uint_eq(json_array_size(cases), 26);
	for (size_t c = 0; c < json_array_size(cases); c++) {
		json_t *o = json_array_get(cases, c);
		json_t *acts = json_object_get(o, "activations");
		size_t n = json_array_size(acts);
		uint64_t *a = xcalloc(n + 1, sizeof *a);
		for (size_t i = 0; i < n; i++)
			a[i] = (uint64_t)json_integer_value(json_array_get(acts, i));
		size_t k = (size_t)json_integer_value(json_object_get(o, "nb_checkpoints"));
		uint64_t want = (uint64_t)json_integer_value(json_object_get(o, "max_memory"));
		json_t *splits = json_object_get(o, "split_points");
		struct reset_plan p, f;
		ck_assert_int_eq(reset_points_exact(a, n, k, &p, NULL), 0);
		reset_points_fast(a, n, k, &f);
		ck_assert_msg(p.max_chunk == want, "case %zu: exact %llu, want %llu", c,
			      (unsigned long long)p.max_chunk, (unsigned long long)want);
		ck_assert_msg(f.max_chunk == want, "case %zu: fast %llu, want %llu", c,
			      (unsigned long long)f.max_chunk, (unsigned long long)want);
		ck_assert_msg(p.n_splits == json_array_size(splits), "case %zu: %zu splits, want %zu", c,
			      p.n_splits, json_array_size(splits));
		for (size_t i = 0; i < p.n_splits; i++)
			ck_assert_msg(p.splits[i] == (size_t)json_integer_value(json_array_get(splits, i)),
				      "case %zu: split %zu is %zu", c, i, p.splits[i]);
		reset_plan_free(&p);
		reset_plan_free(&f);
		free(a);
	}
	json_decref(root);
}
END_TEST

/* The greedy plan of the fast mode must itself achieve its value. */
static uint64_t plan_max(const uint64_t *a, size_t n, const struct reset_plan *p)
{
	uint64_t best = 0, sum = 0;
	size_t s = 0;
	for (size_t i = 0; i < n; i++) {
		if (s < p->n_splits && p->splits[s] == i) {
			sum = 0;
			s++;
		}
		sum += a[i];
		if (sum > best)
			best = sum;
	}
	return best;
}

START_TEST(fast_matches_exact_on_random_inputs)
{
	uint64_t x = 12345;
	for (int round = 0; round < 400; round++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		size_t n = (size_t)(x >> 33) % 40;
		size_t k = (size_t)(x >> 20) % 8;
		uint64_t a[40];
		for (size_t i = 0; i < n; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			a[i] = (x >> 40) % (round % 2 ? 1000 : 5);
		}
		struct reset_plan p, f;
		ck_assert_int_eq(reset_points_exact(a, n, k, &p, NULL), 0);
		reset_points_fast(a, n, k, &f);
		ck_assert_uint_eq(p.max_chunk, f.max_chunk);
		ck_assert_uint_le(f.n_splits, k);
		ck_assert_uint_eq(plan_max(a, n, &f), f.max_chunk);
		ck_assert_uint_eq(plan_max(a, n, &p), p.max_chunk);
		reset_plan_free(&p);
		reset_plan_free(&f);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("solvers");
	TCase *tc = tcase_create("reset_points");
	tcase_add_test(tc, hand_cases);
	tcase_add_test(tc, fast_matches_exact_on_random_inputs);
	if (shared_dir())
		tcase_add_test(tc, reference_cases);
	else
		fprintf(stderr, "no ../shared data: reference cases not run\n");
	suite_add_tcase(s, tc);
	return run_suite(s);
}
