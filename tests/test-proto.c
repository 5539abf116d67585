/*
 * test-proto.c: DTRPrototype's rules (runtime-proto.c) on hand-built logs,
 * each run in check mode: the sample's size and its seed, small storages
 * kept out of the candidates, the budget checked after an op, the
 * prototype's classes, and the rules' names.
 *
 * The fan: a constant c (1 byte), then n ops f_i(c) of 10 ns, each making
 * an x_i of SZ bytes that stays referenced, then g(c) making SZ bytes more.
 * With a budget of 1 + SZ n bytes exactly one storage goes, chosen among
 * the n x_i (all unlocked, none pinned: replayed without final pins), the
 * oldest being the cheapest (equal compute and size, the largest
 * staleness). So the run's evaluations are the candidates the one scan
 * scored: n without sampling, about 2 sqrt(n) with.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heuristics.h"
#include "runtime.h"
#include "test-common.h"

#define SZ 10000 /* bytes of each x_i and of y */

static char *fan_text(unsigned n, unsigned small_first)
/* small_first: x0's bytes (0: no x0) */
{
	size_t cap = 512 + (size_t)n * 400, len = 0;
	char *b = malloc(cap);
	ck_assert_ptr_nonnull(b);
#define PUT(...) (len += (size_t)snprintf(b + len, cap - len, __VA_ARGS__))
	PUT("{\"INSTRUCTION\":\"CONSTANT\",\"NAME\":\"c\"}\n");
	PUT("{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"1\",\"NAME\":\"c\"}\n");
	for (unsigned i = 0; i <= n; i++) {
		/* x0 only with small_first: its bytes, made at no cost (cost 0) */
		if (i == 0 && !small_first)
			continue;
		PUT("{\"ARGS\":[\"c\"],\"INSTRUCTION\":\"CALL\",\"NAME\":\"f\",\"RESULT\":[\"x%u\"],"
		    "\"TIME\":\"%u\"}\n", i, i ? 10 : 0);
		PUT("{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"%u\",\"NAME\":\"x%u\"}\n", i ? SZ : small_first, i);
		PUT("{\"ALIAS\":\"-1\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"x%u\"}\n", i);
	}
	PUT("{\"ARGS\":[\"c\"],\"INSTRUCTION\":\"CALL\",\"NAME\":\"g\",\"RESULT\":[\"y\"],\"TIME\":\"10\"}\n");
	PUT("{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"%u\",\"NAME\":\"y\"}\n", SZ);
	PUT("{\"ALIAS\":\"-1\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"y\"}\n");
#undef PUT
	ck_assert_uint_lt(len, cap);
	return b;
}

static struct schedule *fan(unsigned n, unsigned small_first)
{
	char *text = fan_text(n, small_first);
	struct read_options ro = {.preallocate = true}; /* no final pins */
	struct rs_error err;
	struct schedule *s = parse_text(text, &ro, &err);
	ck_assert_msg(s != NULL, "%s", err.msg);
	free(text);
	return s;
}

/* The storage each eviction took, in order. */
struct evicted {
	uint32_t s[16];
	int n;
};

static void on_event(void *ctx, const struct runtime_event *ev)
{
	struct evicted *e = ctx;
	if (ev->kind == EV_EVICT && e->n < 16)
		e->s[e->n++] = ev->storage;
}

static struct runtime_result run(const struct schedule *s, const char *rules, uint64_t budget,
				 uint64_t seed, struct evicted *ev)
{
	struct proto_rules r = proto_rules_default;
	char why[200];
	ck_assert_msg(proto_rules_parse(rules, &r, NULL, why, sizeof why) == 0, "%s", why);
	struct runtime_config cfg = {
		.runtime = RUNTIME_V2_EAGER_OPTIMIZED,
		.heuristic = heuristic_find("DTRPrototype"),
		.budget = budget,
		.remat_limit = INFINITY,
		.seed = seed,
		.check = true,
		.proto = &r,
		.on_event = ev ? on_event : NULL,
		.ctx = ev,
	};
	struct runtime_result res;
	struct rs_error err;
	ck_assert_msg(runtime_run(s, &cfg, &res, &err) == 0, "%s", err.msg);
	return res;
}

/* Without sampling the scan scores every candidate and takes the oldest. */
START_TEST(full_scan_scores_all)
{
	const unsigned n = 400;
	struct schedule *s = fan(n, 0);
	struct evicted ev = {0};
	struct runtime_result r = run(s, "no-sampling", 1 + SZ * n, 1, &ev);
	ck_assert_int_eq(r.outcome, OUTCOME_PASS);
	ck_assert_uint_eq(r.evictions, 1);
	ck_assert_uint_eq(r.heuristic_evals, n);
	ck_assert_int_eq(ev.n, 1);
	ck_assert_uint_eq(ev.s[0], 1); /* x1: storage 1 (c is 0) */
	schedule_free(s);
}
END_TEST

/* With sampling: entry 0, then steps of 1..floor(sqrt(n)): between
 * n / floor(sqrt(n)) and n candidates, about 2 sqrt(n) on average; the
 * same seed gives the same run, other seeds other samples. */
START_TEST(sample_size_and_seed)
{
	const unsigned n = 400; /* floor(sqrt(n)) = 20 */
	struct schedule *s = fan(n, 0);
	struct evicted e1 = {0}, e2 = {0};
	struct runtime_result a = run(s, "all", 1 + SZ * n, 1, &e1);
	struct runtime_result b = run(s, "all", 1 + SZ * n, 1, &e2);
	ck_assert_int_eq(a.outcome, OUTCOME_PASS);
	ck_assert_uint_eq(a.evictions, 1);
	ck_assert_uint_eq(a.heuristic_evals, b.heuristic_evals);
	ck_assert_uint_eq(e1.s[0], e2.s[0]);
	ck_assert_mem_eq(&a, &b, sizeof a);
	/* pinned: the seeded draws (splitmix64 from the seed) */
	ck_assert_uint_eq(a.heuristic_evals, 37);
	ck_assert_uint_eq(e1.s[0], 1); /* entry 0 is x1, the oldest, always scored */
	double sum = 0;
	uint64_t lo = UINT64_MAX, hi = 0;
	for (uint64_t seed = 1; seed <= 60; seed++) {
		struct runtime_result r = run(s, "all", 1 + SZ * n, seed, NULL);
		ck_assert_uint_eq(r.evictions, 1);
		ck_assert_uint_ge(r.heuristic_evals, n / 20);
		ck_assert_uint_le(r.heuristic_evals, n);
		sum += (double)r.heuristic_evals;
		lo = r.heuristic_evals < lo ? r.heuristic_evals : lo;
		hi = r.heuristic_evals > hi ? r.heuristic_evals : hi;
	}
	double mean = sum / 60, root = sqrt((double)n);
	ck_assert_msg(mean > 1.5 * root && mean < 2.5 * root, "mean sample %.1f, sqrt(n) %.1f", mean, root);
	ck_assert_uint_lt(lo, hi); /* the seed matters */
	schedule_free(s);
}
END_TEST

/* x0, made at no cost (cost 0, the cheapest), is under 1% of the mean
 * storage size: with `small` it never becomes a candidate and x1 goes;
 * without, x0 goes first (freeing too little) and then x1. At n = 50 the
 * storages are c (1 byte), x0, x1..x50 and y (SZ each): 53 of them,
 * 510001 + |x0| bytes, so x0 is a candidate from 100 |x0| 53 >= 510001 +
 * |x0|, 97 bytes (the prototype's test, exactly). */
START_TEST(small_storages_ignored)
{
	const unsigned n = 50;
	struct schedule *s = fan(n, 1);
	struct evicted ev = {0};
	struct runtime_result r = run(s, "no-sampling", 2 + SZ * n, 1, &ev);
	ck_assert_uint_eq(r.evictions, 1);
	ck_assert_int_eq(ev.n, 1);
	ck_assert_uint_eq(ev.s[0], 2); /* x1 (c 0, x0 1) */
	memset(&ev, 0, sizeof ev);
	r = run(s, "no-sampling,no-small", 2 + SZ * n, 1, &ev);
	ck_assert_uint_eq(r.evictions, 2);
	ck_assert_uint_eq(ev.s[0], 1);
	ck_assert_uint_eq(ev.s[1], 2);
	schedule_free(s);
	/* at the threshold: 96 bytes stay out, 97 are a candidate */
	for (unsigned b = 96; b <= 97; b++) {
		s = fan(n, b);
		memset(&ev, 0, sizeof ev);
		r = run(s, "no-sampling", b + 1 + SZ * n, 1, &ev);
		ck_assert_uint_eq(r.evictions, b == 96 ? 1 : 2);
		ck_assert_uint_eq(ev.s[0], b == 96 ? 2 : 1);
		schedule_free(s);
	}
}
END_TEST

/* `after`: g runs with every x_i resident (the peak is the budget plus its
 * SZ bytes) and only then is one evicted; without it, one goes first. */
START_TEST(budget_checked_after)
{
	const unsigned n = 30;
	struct schedule *s = fan(n, 0);
	uint64_t budget = 1 + SZ * n;
	struct runtime_result r = run(s, "no-sampling", budget, 1, NULL);
	ck_assert_uint_eq(r.peak_memory, budget + SZ);
	ck_assert_uint_eq(r.evictions, 1);
	r = run(s, "no-sampling,no-after", budget, 1, NULL);
	ck_assert_uint_eq(r.peak_memory, budget);
	ck_assert_uint_eq(r.evictions, 1);
	/* nothing to evict but what g reads: out of memory either way */
	r = run(s, "no-sampling", SZ, 1, NULL);
	ck_assert_int_eq(r.outcome, OUTCOME_OOM);
	schedule_free(s);
}
END_TEST

/*
 * Classes. c (1 byte); m(c) -> a, b: one op of 1000 ns with two 100-byte
 * outputs; b released at once (evicted eagerly: m's class node now exists);
 * d1, d2 = f(c), 10 ns and 100 bytes each; then e = h(c) needs room. a's
 * only neighbour is c, never evicted, so its numerator is m's compute
 * (1000) under eq(s) but 0 under the prototype's classes (get_cpi: an
 * output of its op is evicted). Clock: m ends at 1001, d1 1011, d2 1021,
 * e 1031: with classes a costs 0 and goes; without, a costs 1000 / (100 x
 * 30), d1 10 / (100 x 20), d2 10 / (100 x 10): d1 goes.
 */
START_TEST(op_classes_sibling_free)
{
	const char *text =
		"{\"INSTRUCTION\":\"CONSTANT\",\"NAME\":\"c\"}\n"
		"{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"1\",\"NAME\":\"c\"}\n"
		"{\"ARGS\":[\"c\"],\"INSTRUCTION\":\"CALL\",\"NAME\":\"m\",\"RESULT\":[\"a\",\"b\"],\"TIME\":\"1000\"}\n"
		"{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"100\",\"NAME\":\"a\"}\n"
		"{\"ALIAS\":\"-1\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"a\"}\n"
		"{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"100\",\"NAME\":\"b\"}\n"
		"{\"ALIAS\":\"-1\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"b\"}\n"
		"{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"b\"}\n"
		"{\"ARGS\":[\"c\"],\"INSTRUCTION\":\"CALL\",\"NAME\":\"f\",\"RESULT\":[\"d1\"],\"TIME\":\"10\"}\n"
		"{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"100\",\"NAME\":\"d1\"}\n"
		"{\"ALIAS\":\"-1\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"d1\"}\n"
		"{\"ARGS\":[\"c\"],\"INSTRUCTION\":\"CALL\",\"NAME\":\"f\",\"RESULT\":[\"d2\"],\"TIME\":\"10\"}\n"
		"{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"100\",\"NAME\":\"d2\"}\n"
		"{\"ALIAS\":\"-1\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"d2\"}\n"
		"{\"ARGS\":[\"c\"],\"INSTRUCTION\":\"CALL\",\"NAME\":\"h\",\"RESULT\":[\"e\"],\"TIME\":\"10\"}\n"
		"{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"100\",\"NAME\":\"e\"}\n"
		"{\"ALIAS\":\"-1\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"e\"}\n";
	struct read_options ro = {.preallocate = true};
	struct rs_error err;
	struct schedule *s = parse_text(text, &ro, &err);
	ck_assert_msg(s != NULL, "%s", err.msg);
	/* storages: c 0, a 1, b 2, d1 3, d2 4, e 5; resident before e: c, a,
	 * d1, d2 (301 bytes); e makes 401 */
	struct evicted ev = {0};
	struct runtime_result r = run(s, "no-sampling", 301, 1, &ev);
	ck_assert_int_eq(r.outcome, OUTCOME_PASS);
	ck_assert_int_eq(ev.n, 2); /* b (released), then the choice */
	ck_assert_uint_eq(ev.s[0], 2);
	ck_assert_uint_eq(ev.s[1], 1); /* a: its op's compute is b's class's */
	memset(&ev, 0, sizeof ev);
	r = run(s, "no-sampling,no-classes", 301, 1, &ev);
	ck_assert_int_eq(ev.n, 2);
	ck_assert_uint_eq(ev.s[1], 3); /* d1 */
	schedule_free(s);
}
END_TEST

START_TEST(rule_names)
{
	struct proto_rules r = proto_rules_default;
	char why[200], buf[100];
	ck_assert_str_eq(proto_rules_text(&r, buf, sizeof buf), "sampling,small,after,classes");
	unsigned named = 0;
	ck_assert_int_eq(proto_rules_parse("no-sampling,no-classes", &r, &named, why, sizeof why), 0);
	ck_assert_uint_eq(named, PROTO_SAMPLING | PROTO_CLASSES);
	ck_assert_str_eq(proto_rules_text(&r, buf, sizeof buf), "no-sampling,small,after,no-classes");
	ck_assert_int_eq(proto_rules_parse("none,after", &r, &named, why, sizeof why), 0);
	ck_assert_uint_eq(named, PROTO_ALL);
	ck_assert_str_eq(proto_rules_text(&r, buf, sizeof buf), "no-sampling,no-small,after,no-classes");
	ck_assert_int_eq(proto_rules_parse("all", &r, NULL, why, sizeof why), 0);
	ck_assert(r.sampling && r.ignore_small && r.after && r.op_classes);
	ck_assert_int_eq(proto_rules_parse("sampling,smal", &r, NULL, why, sizeof why), -1);
	ck_assert_msg(strstr(why, "'smal'"), "%s", why);
	ck_assert_int_eq(proto_rules_parse("", &r, NULL, why, sizeof why), -1);
	ck_assert_int_eq(proto_rules_parse("no-all", &r, NULL, why, sizeof why), -1);
	const struct heuristic *h = heuristic_find("dtrprototype");
	ck_assert_ptr_nonnull(h);
	ck_assert(h->random && (h->needs & NEEDS_PROTO) && (h->needs & NEEDS_EQCLASS));
}
END_TEST

int main(void)
{
	Suite *su = suite_create("proto");
	TCase *tc = tcase_create("proto");
	tcase_add_test(tc, full_scan_scores_all);
	tcase_add_test(tc, sample_size_and_seed);
	tcase_add_test(tc, small_storages_ignored);
	tcase_add_test(tc, budget_checked_after);
	tcase_add_test(tc, op_classes_sibling_free);
	tcase_add_test(tc, rule_names);
	suite_add_tcase(su, tc);
	return run_suite(su);
}
