/*
 * test-scale.c: replays that must not depend on the size of the log for
 * their stack or their region memory. A uniform chain (x0, then n ops of
 * time 1 and size 1, then the backward pass releasing as it goes) of 2^18
 * ops whose backward pass rematerializes from the start (LRU evicts the
 * oldest, so the first gradient that needs an evicted activation recurses
 * through some 2^17 evicted ancestors), replayed on a thread with the
 * default 8 MB stack; and DTR on the same chain, whose 262,146 storages
 * take the runs regions (past 4,096 storages).
 */
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "heuristics.h"
#include "runtime.h"
#include "test-common.h"

#define CHAIN_N (1u << 17) /* forward ops; with the backward ones, 2^18 */

static char *chain_log(uint32_t n)
{
	size_t cap = (size_t)n * 560 + 4096, len = 0;
	char *t = malloc(cap);
	ck_assert(t != NULL);
#define PUT(...) (len += (size_t)snprintf(t + len, cap - len, __VA_ARGS__))
	PUT("{\"ANNOTATION\":\"START\",\"INSTRUCTION\":\"ANNOTATE\"}\n"
	    "{\"INSTRUCTION\":\"CONSTANT\",\"NAME\":\"x0\"}\n"
	    "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"1\",\"NAME\":\"x0\"}\n");
	for (uint32_t i = 1; i <= n; i++)
		PUT("{\"ARGS\":[\"x%u\"],\"INSTRUCTION\":\"CALL\",\"NAME\":\"f\",\"RESULT\":[\"x%u\"],\"TIME\":\"1\"}\n"
		    "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"1\",\"NAME\":\"x%u\"}\n"
		    "{\"ALIAS\":\"-1\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"x%u\"}\n", i - 1, i, i, i);
	PUT("{\"ANNOTATION\":\"BACKWARD\",\"INSTRUCTION\":\"ANNOTATE\"}\n"
	    "{\"ARGS\":[\"x%u\"],\"INSTRUCTION\":\"CALL\",\"NAME\":\"loss\",\"RESULT\":[\"g%u\"],\"TIME\":\"1\"}\n"
	    "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"1\",\"NAME\":\"g%u\"}\n"
	    "{\"ALIAS\":\"-1\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"g%u\"}\n", n, n, n, n);
	for (uint32_t i = n; i >= 1; i--)
		PUT("{\"ARGS\":[\"x%u\",\"g%u\"],\"INSTRUCTION\":\"CALL\",\"NAME\":\"f_backward\",\"RESULT\":[\"g%u\"],\"TIME\":\"1\"}\n"
		    "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"1\",\"NAME\":\"g%u\"}\n"
		    "{\"ALIAS\":\"-1\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"g%u\"}\n"
		    "{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"g%u\"}\n"
		    "{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"x%u\"}\n", i - 1, i, i - 1, i - 1, i - 1, i, i);
#undef PUT
	ck_assert(len < cap);
	return t;
}

struct job {
	const struct schedule *s;
	struct baseline b;
	struct point_config pc;
	struct point_result pr;
	int rc;
};

static void *run_job(void *arg)
{
	struct job *j = arg;
	struct rs_error err;
	j->rc = point_run(j->s, &j->b, &j->pc, &j->pr, &err);
	return NULL;
}

/* point_run on a thread with the default 8 MB stack, whatever ulimit -s
 * the test runs under. */
static void run_on_default_stack(struct job *j)
{
	pthread_attr_t a;
	pthread_t th;
	ck_assert_int_eq(pthread_attr_init(&a), 0);
	ck_assert_int_eq(pthread_attr_setstacksize(&a, 8u << 20), 0);
	ck_assert_int_eq(pthread_create(&th, &a, run_job, j), 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	pthread_attr_destroy(&a);
	ck_assert_int_eq(j->rc, 0);
}

static struct schedule *chain;
static struct baseline chain_base;

static void chain_setup(void)
{
	char *text = chain_log(CHAIN_N);
	struct rs_error err;
	struct read_options opt = {0};
	chain = parse_text(text, &opt, &err);
	free(text);
	ck_assert_msg(chain != NULL, "chain rejected: %s", err.msg);
	ck_assert_uint_eq(chain->n_ops, 2 * CHAIN_N + 2);
	baseline_run(chain, &chain_base);
	ck_assert_uint_eq(chain_base.compute, 2 * CHAIN_N + 1);
}

static void chain_teardown(void)
{
	schedule_free(chain);
}

/* LRU at a budget of 64: the first gradient that needs an evicted x
 * rematerializes x1..x(n-63) in one depth-first chain; the run goes on
 * until its remat compute passes the baseline's (overhead limit 2). */
START_TEST(lru_deep_chain)
{
	struct job j = {
		.s = chain, .b = chain_base,
		.pc = {.rt.heuristic = heuristic_find("LRU"), .rt.runtime = RUNTIME_V2_EAGER_OPTIMIZED,
		       .budget = 64, .overhead_limit = 2},
	};
	run_on_default_stack(&j);
	const struct runtime_result *r = &j.pr.run;
	ck_assert_int_eq(r->outcome, OUTCOME_THRASH);
	ck_assert_int_gt(r->remat_compute, chain_base.compute); /* why it stopped */
	ck_assert_uint_ge(r->remats, CHAIN_N - 64);             /* the deep chain ran */
	ck_assert_uint_le(r->peak_memory, 64);
	ck_assert_uint_ge(r->evictions, r->remats);
}
END_TEST

/* DTR on the same chain (runs regions) through to the end, with no
 * overhead limit: derived regions make it a few seconds (the walks they
 * replace counted some 10^11 edges here). */
START_TEST(dtr_chain)
{
	ck_assert_uint_gt(chain->n_storages, 4096);
	struct job j = {
		.s = chain, .b = chain_base,
		.pc = {.rt.heuristic = heuristic_find("DTR"), .rt.runtime = RUNTIME_V2_EAGER_OPTIMIZED,
		       .budget = 64, .overhead_limit = INFINITY},
	};
	run_on_default_stack(&j);
	const struct runtime_result *r = &j.pr.run;
	ck_assert_int_eq(r->outcome, OUTCOME_PASS);
	ck_assert_uint_le(r->peak_memory, 64);
	ck_assert_uint_gt(r->evictions, CHAIN_N);
	ck_assert_uint_gt(r->heuristic_accesses, r->heuristic_evals);
	printf("dtr_chain: %llu evictions, %llu evaluations, %llu accesses\n",
	       (unsigned long long)r->evictions, (unsigned long long)r->heuristic_evals,
	       (unsigned long long)r->heuristic_accesses);
}
END_TEST

/* The generator's chain at n = 2^16 (131,072 ops and storages), budget
 * ceil(2 sqrt n) = 512, no overhead limit: DTR and MSPS run it through
 * (runs regions, derived rebuilds) with the counters the walking
 * implementation gave (rematsim before the derived regions, which took
 * some 4 CPU minutes per heuristic for the 3 x 10^10 accesses: main at
 * a86f6da; checked by hand with the reference on the chain up to n = 4,096,
 * tests/data/simrd-chain.tsv up to 1,024). */
START_TEST(gen_chain_2p16)
{
	static const struct {
		const char *h;
		int64_t remat;
		uint64_t evictions, evals, accesses;
	} want[] = {
		{"DTR", 74799, 205870, 38212514, UINT64_C(30983142915)},
		{"MSPS", 132733, 263804, 67758854, UINT64_C(41158727390)},
	};
	struct gen_params p;
	gen_params_default(&p, GEN_LINEAR);
	p.n = 1u << 16;
	char *text;
	size_t len;
	struct rs_error err = {0};
	ck_assert_int_eq(gen_text(&p, &text, &len, &err), 0);
	struct read_options ro = {0};
	struct schedule *s = NULL;
	ck_assert_msg(schedule_parse("chain.log", text, len, &ro, &s, &err) == 0, "%s", err.msg);
	free(text);
	ck_assert_uint_gt(s->n_storages, 4096);
	struct baseline b;
	baseline_run(s, &b);
	for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
		struct job j = {
			.s = s, .b = b,
			.pc = {.rt.heuristic = heuristic_find(want[k].h), .rt.runtime = RUNTIME_V2_EAGER_OPTIMIZED,
			       .budget = 512, .overhead_limit = INFINITY},
		};
		run_on_default_stack(&j);
		const struct runtime_result *r = &j.pr.run;
		ck_assert_int_eq(r->outcome, OUTCOME_PASS);
		ck_assert_int_eq(r->remat_compute, want[k].remat);
		ck_assert_uint_eq(r->remats, (uint64_t)want[k].remat);
		ck_assert_uint_eq(r->evictions, want[k].evictions);
		ck_assert_uint_eq(r->heuristic_evals, want[k].evals);
		ck_assert_uint_eq(r->heuristic_accesses, want[k].accesses);
		ck_assert_uint_eq(r->peak_memory, 512);
	}
	schedule_free(s);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("scale");
	TCase *tc = tcase_create("chain");
	tcase_add_unchecked_fixture(tc, chain_setup, chain_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, lru_deep_chain);
	tcase_add_test(tc, dtr_chain);
	suite_add_tcase(su, tc);
	TCase *tg = tcase_create("generated");
	tcase_set_timeout(tg, 120);
	tcase_add_test(tg, gen_chain_2p16);
	suite_add_tcase(su, tg);
	return run_suite(su);
}
