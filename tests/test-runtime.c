/*
 * test-runtime.c: the runtimes on tiny hand-built logs whose every step is
 * worked out by hand in the comments: eviction, rematerialization, OOM,
 * thrash, pinning, banishing, eager release, tie-breaking, cost 0, and the
 * no-deallocation and preallocation variants. Every run is in check mode.
 */
#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heuristics.h"
#include "runtime.h"
#include "test-common.h"

/* A log built record by record. */
struct logb {
	char buf[8192];
	size_t len;
};

static void put(struct logb *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	b->len += (size_t)vsnprintf(b->buf + b->len, sizeof b->buf - b->len, fmt, ap);
	va_end(ap);
	ck_assert_uint_lt(b->len, sizeof b->buf);
}

static void lconst(struct logb *b, const char *name, unsigned bytes)
{
	put(b, "{\"INSTRUCTION\":\"CONSTANT\",\"NAME\":\"%s\"}\n", name);
	put(b, "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"%u\",\"NAME\":\"%s\"}\n", bytes, name);
}

/* One-result call: out = op(args), args a JSON list body like "\"w\",\"a\"". */
static void lcall(struct logb *b, const char *out, const char *args, unsigned bytes, unsigned time)
{
	put(b, "{\"ARGS\":[%s],\"INSTRUCTION\":\"CALL\",\"NAME\":\"op_%s\",\"RESULT\":[\"%s\"],\"TIME\":\"%u\"}\n",
	    args, out, out, time);
	put(b, "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"%u\",\"NAME\":\"%s\"}\n", bytes, out);
	put(b, "{\"ALIAS\":\"-1\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"%s\"}\n", out);
}

static void lrelease(struct logb *b, const char *name)
{
	put(b, "{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"%s\"}\n", name);
}

/* Release each of the space-separated names. */
static void release_all(struct logb *b, const char *names)
{
	char buf[256], *save = NULL;
	snprintf(buf, sizeof buf, "%s", names);
	for (char *n = strtok_r(buf, " ", &save); n; n = strtok_r(NULL, " ", &save))
		lrelease(b, n);
}

static struct schedule *build(struct logb *b)
{
	struct rs_error err;
	struct read_options opt = {0};
	struct schedule *s = parse_text(b->buf, &opt, &err);
	if (!s)
		ck_abort_msg("log did not parse: %s", err.msg);
	return s;
}

/* Evicted storages, in order, seen through the event hook. */
struct evlog {
	uint32_t evicted[64];
	int n_evicted;
	int n_remat;
};

static void on_event(void *ctx, const struct runtime_event *ev)
{
	struct evlog *l = ctx;
	if (ev->kind == EV_EVICT && l->n_evicted < 64)
		l->evicted[l->n_evicted++] = ev->storage;
	if (ev->kind == EV_REMAT)
		l->n_remat++;
}

static struct runtime_result run(const struct schedule *s, enum runtime_kind rk, const char *h,
				 uint64_t budget, double remat_limit, struct evlog *ev)
{
	struct runtime_config cfg = {
		.runtime = rk,
		.heuristic = h ? heuristic_find(h) : NULL,
		.budget = budget,
		.remat_limit = remat_limit,
		.check = true,
		.on_event = ev ? on_event : NULL,
		.ctx = ev,
	};
	struct runtime_result res;
	struct rs_error err;
	ck_assert_int_eq(runtime_run(s, &cfg, &res, &err), 0);
	return res;
}

/*
 * w (10 bytes, pinned); a = f(w) 100 t1; b = g(a) 100 t2; c = h(b) 100 t4;
 * d = k(c) 100 t8; e = m(a, d) 100 t16; then every name released.
 * Clock: 1, w 1, a 2, b 4, c 8. Pool [a, c, b] after c (b rejoins last).
 * d: c locked; 410 > 310: LRU a (last access 2) vs b (4): evict a (2 evals).
 * d at clock 16. e: d locked; a rematerialized: b (4) vs c (8): evict b
 * (2 evals); a at 17; then c is the only unlocked one: evicted (1 eval);
 * e at 33. 5 evals, 3 evictions, remat 1, model 31.
 */
static struct schedule *chain(void)
{
	struct logb b = {0};
	lconst(&b, "w", 10);
	lcall(&b, "a", "\"w\"", 100, 1);
	lcall(&b, "b", "\"a\"", 100, 2);
	lcall(&b, "c", "\"b\"", 100, 4);
	lcall(&b, "d", "\"c\"", 100, 8);
	lcall(&b, "e", "\"a\",\"d\"", 100, 16);
	const char *names[] = {"w", "a", "b", "c", "d", "e"};
	for (int i = 0; i < 6; i++)
		lrelease(&b, names[i]);
	return build(&b);
}

START_TEST(evict_and_remat)
{
	struct schedule *s = chain();
	struct evlog ev = {0};
	struct runtime_result r = run(s, RUNTIME_V2, "LRU", 310, INFINITY, &ev);
	ck_assert_int_eq(r.outcome, OUTCOME_PASS);
	ck_assert_int_eq(r.clock, 33);
	ck_assert_int_eq(r.model_compute, 31);
	ck_assert_int_eq(r.remat_compute, 1);
	ck_assert_uint_eq(r.heuristic_evals, 5);
	ck_assert_uint_eq(r.heuristic_accesses, 5);
	ck_assert_uint_eq(r.evictions, 3);
	ck_assert_uint_eq(r.remats, 1);
	ck_assert_uint_eq(r.peak_memory, 310);
	ck_assert_uint_eq(r.const_memory, 10);
	/* storages: w 0, a 1, b 2, c 3 */
	ck_assert_int_eq(ev.n_evicted, 3);
	ck_assert_uint_eq(ev.evicted[0], 1);
	ck_assert_uint_eq(ev.evicted[1], 2);
	ck_assert_uint_eq(ev.evicted[2], 3);
	ck_assert_int_eq(ev.n_remat, 1);
	schedule_free(s);
}
END_TEST

START_TEST(baseline)
{
	struct schedule *s = chain();
	struct baseline b;
	baseline_run(s, &b);
	ck_assert_uint_eq(b.memory, 510);
	ck_assert_int_eq(b.compute, 31);
	ck_assert_uint_eq(b.const_memory, 10);
	/* e = m(a, d): 100 out + 100 + 100 in */
	ck_assert_uint_eq(b.bottleneck_memory, 300);
	schedule_free(s);
}
END_TEST

START_TEST(oom)
{
	/* b needs 100 more with a locked and w pinned: nothing to evict. */
	struct schedule *s = chain();
	struct runtime_result r = run(s, RUNTIME_V2, "LRU", 150, INFINITY, NULL);
	ck_assert_int_eq(r.outcome, OUTCOME_OOM);
	ck_assert_int_eq(r.clock, 2);
	ck_assert_uint_eq(r.heuristic_evals, 0);
	/* commands: Compute w, Pin w, Compute a, Compute b */
	ck_assert_uint_eq(r.stopped_at, 3);
	schedule_free(s);
}
END_TEST

START_TEST(thrash)
{
	/* Any remat exceeds a limit of 0: stops right after a's recompute. */
	struct schedule *s = chain();
	struct runtime_result r = run(s, RUNTIME_V2, "LRU", 310, 0, NULL);
	ck_assert_int_eq(r.outcome, OUTCOME_THRASH);
	ck_assert_int_eq(r.clock, 17);
	ck_assert_int_eq(r.remat_compute, 1);

	struct baseline b;
	baseline_run(s, &b);
	struct point_config pc = {
		.heuristic = heuristic_find("LRU"), .runtime = RUNTIME_V2, .budget = 310,
		.overhead_limit = 1, .check = true,
	};
	struct point_result pr;
	struct rs_error err;
	ck_assert_int_eq(point_run(s, &b, &pc, &pr, &err), 0);
	ck_assert_int_eq(pr.run.outcome, OUTCOME_THRASH);
	ck_assert_double_eq(pr.overhead, 17.0 / 31.0);
	schedule_free(s);
}
END_TEST

START_TEST(ratio_budget)
{
	struct schedule *s = chain();
	struct baseline b;
	baseline_run(s, &b);
	struct point_config pc = {
		.heuristic = heuristic_find("LRU"), .runtime = RUNTIME_V2,
		.ratio = 0.7, .overhead_limit = 2, .check = true,
	};
	struct point_result pr;
	struct rs_error err;
	ck_assert_int_eq(point_run(s, &b, &pc, &pr, &err), 0);
	ck_assert_uint_eq(pr.budget, 357); /* floor(510 * 0.7) */
	ck_assert_int_eq(pr.run.outcome, OUTCOME_PASS);
	schedule_free(s);
}
END_TEST

/* w 10; a = f(w) 100 t1; release a; b = g(w) 100 t2. Budget 110. */
static struct schedule *released(void)
{
	struct logb b = {0};
	lconst(&b, "w", 10);
	lcall(&b, "a", "\"w\"", 100, 1);
	lrelease(&b, "a");
	lcall(&b, "b", "\"w\"", 100, 2);
	return build(&b);
}

START_TEST(eager_release)
{
	struct schedule *s = released();
	/* V2 keeps a until b needs room: one evaluation. */
	struct runtime_result r = run(s, RUNTIME_V2, "LRU", 110, INFINITY, NULL);
	ck_assert_int_eq(r.outcome, OUTCOME_PASS);
	ck_assert_uint_eq(r.heuristic_evals, 1);
	ck_assert_uint_eq(r.evictions, 1);
	/* V2Eager drops a at its last release: nothing to choose. */
	r = run(s, RUNTIME_V2_EAGER, "LRU", 110, INFINITY, NULL);
	ck_assert_int_eq(r.outcome, OUTCOME_PASS);
	ck_assert_uint_eq(r.heuristic_evals, 0);
	ck_assert_uint_eq(r.evictions, 1);
	/* Without releases the eager runtime behaves as V2. */
	struct runtime_config cfg = {
		.runtime = RUNTIME_V2_EAGER, .heuristic = heuristic_find("LRU"),
		.budget = 110, .remat_limit = INFINITY, .no_dealloc = true, .check = true,
	};
	struct rs_error err;
	ck_assert_int_eq(runtime_run(s, &cfg, &r, &err), 0);
	ck_assert_uint_eq(r.heuristic_evals, 1);
	schedule_free(s);
}
END_TEST

START_TEST(banishing)
{
	/*
	 * w 10; a = f(w) 100; b = g(a) 100; release a; c = h(w) 100;
	 * d = k(w) 100; budget 210. V1: once released, a has no external refs
	 * and no evicted dependents: banished (evicted for good) and its child
	 * b pinned. d then evicts c, the only unpinned storage (1 evaluation).
	 */
	struct logb lb = {0};
	lconst(&lb, "w", 10);
	lcall(&lb, "a", "\"w\"", 100, 1);
	lcall(&lb, "b", "\"a\"", 100, 2);
	lrelease(&lb, "a");
	lcall(&lb, "c", "\"w\"", 100, 4);
	lcall(&lb, "d", "\"w\"", 100, 8);
	const char *names[] = {"b", "c", "d", "w"};
	for (int i = 0; i < 4; i++)
		lrelease(&lb, names[i]); /* no final pins */
	struct schedule *s = build(&lb);
	struct evlog ev = {0};
	struct runtime_result r = run(s, RUNTIME_V1, "LRU", 210, INFINITY, &ev);
	ck_assert_int_eq(r.outcome, OUTCOME_PASS);
	ck_assert_int_ge(ev.n_evicted, 2); /* then the releases banish the rest */
	ck_assert_uint_eq(ev.evicted[0], 1); /* a, banished */
	ck_assert_uint_eq(ev.evicted[1], 3); /* c; b is pinned */
	ck_assert_uint_eq(r.heuristic_evals, 1);
	/* V2 keeps a and evicts by LRU instead: a (last access 2) first. */
	ev.n_evicted = 0;
	r = run(s, RUNTIME_V2, "LRU", 210, INFINITY, &ev);
	ck_assert_int_eq(r.outcome, OUTCOME_PASS);
	ck_assert_uint_eq(ev.evicted[0], 1);
	ck_assert_uint_eq(r.heuristic_evals, 2 + 2);
	/* The unbounded V1 baseline frees a: 210, then 110, c, d: 310. */
	struct baseline b;
	baseline_run(s, &b);
	ck_assert_uint_eq(b.memory, 310);
	schedule_free(s);
}
END_TEST

START_TEST(pinned_never_evicted)
{
	/* Constants are pinned: with only w material, nothing can go. */
	struct logb lb = {0};
	lconst(&lb, "w", 100);
	lcall(&lb, "a", "\"w\"", 100, 1);
	struct schedule *s = build(&lb);
	struct runtime_result r = run(s, RUNTIME_V2_EAGER_OPTIMIZED, "DTR", 150, INFINITY, NULL);
	ck_assert_int_eq(r.outcome, OUTCOME_OOM);
	ck_assert_uint_eq(r.heuristic_evals, 0);
	schedule_free(s);
}
END_TEST

START_TEST(ties_keep_later)
{
	/* a and b (same size) in the pool in that order: h_size ties, b goes. */
	struct logb lb = {0};
	lconst(&lb, "w", 10);
	lcall(&lb, "a", "\"w\"", 100, 1);
	lcall(&lb, "b", "\"w\"", 100, 1);
	lcall(&lb, "c", "\"w\"", 100, 1);
	release_all(&lb, "w a b c"); /* no final pins */
	struct schedule *s = build(&lb);
	struct evlog ev = {0};
	struct runtime_result r = run(s, RUNTIME_V2, "LargestStorage", 210, INFINITY, &ev);
	ck_assert_int_eq(r.outcome, OUTCOME_PASS);
	ck_assert_uint_eq(r.heuristic_evals, 2);
	ck_assert_int_eq(ev.n_evicted, 1);
	ck_assert_uint_eq(ev.evicted[0], 2);
	schedule_free(s);
}
END_TEST

START_TEST(zero_cost_taken_at_once)
{
	/* a cost 0 (TIME 0) first in the pool: AbLocal takes it, one eval. */
	struct logb lb = {0};
	lconst(&lb, "w", 10);
	lcall(&lb, "a", "\"w\"", 100, 0);
	lcall(&lb, "b", "\"w\"", 100, 5);
	lcall(&lb, "c", "\"w\"", 100, 5);
	release_all(&lb, "w a b c");
	struct schedule *s = build(&lb);
	struct evlog ev = {0};
	struct runtime_result r = run(s, RUNTIME_V2, "AbLocal", 210, INFINITY, &ev);
	ck_assert_int_eq(r.outcome, OUTCOME_PASS);
	ck_assert_uint_eq(r.heuristic_evals, 1);
	ck_assert_uint_eq(ev.evicted[0], 1);
	schedule_free(s);
}
END_TEST

START_TEST(random_is_seeded)
{
	struct schedule *s = chain();
	struct runtime_config cfg = {
		.runtime = RUNTIME_V2_EAGER_OPTIMIZED, .heuristic = heuristic_find("RandomStorage"),
		.budget = 310, .remat_limit = INFINITY, .seed = 42, .check = true,
	};
	struct runtime_result r1, r2;
	struct rs_error err;
	ck_assert_int_eq(runtime_run(s, &cfg, &r1, &err), 0);
	ck_assert_int_eq(runtime_run(s, &cfg, &r2, &err), 0);
	ck_assert_int_eq(r1.clock, r2.clock);
	ck_assert_uint_eq(r1.heuristic_evals, r2.heuristic_evals);
	schedule_free(s);
}
END_TEST

START_TEST(refusals)
{
	struct rs_error err;
	struct runtime_config cfg = {.runtime = RUNTIME_V2, .heuristic = heuristic_find("DTR")};
	ck_assert_int_eq(runtime_check_config(&cfg, &err), -1);
	ck_assert_int_eq(err.status, EXIT_USAGE);
	cfg.heuristic = heuristic_find("DTREqClass");
	cfg.runtime = RUNTIME_V1;
	ck_assert_int_eq(runtime_check_config(&cfg, &err), -1);
	cfg.runtime = RUNTIME_V2_OPTIMIZED;
	ck_assert_int_eq(runtime_check_config(&cfg, &err), 0);
	cfg.heuristic = heuristic_find("DTRUnopt");
	cfg.runtime = RUNTIME_V1;
	ck_assert_int_eq(runtime_check_config(&cfg, &err), 0);
	cfg.heuristic = heuristic_find("LRU");
	cfg.runtime = RUNTIME_V2_EAGER;
	ck_assert_int_eq(runtime_check_config(&cfg, &err), 0);
}
END_TEST

START_TEST(kind_names)
{
	for (int i = 0; i < RUNTIME_KIND_COUNT; i++) {
		enum runtime_kind k;
		ck_assert_int_eq(runtime_kind_parse(runtime_kind_name((enum runtime_kind)i), &k), 0);
		ck_assert_int_eq(k, i);
	}
	enum runtime_kind k;
	ck_assert_int_eq(runtime_kind_parse("V3", &k), -1);
	ck_assert_str_eq(outcome_name(OUTCOME_THRASH), "thrash");
}
END_TEST

START_TEST(preallocate)
{
	/*
	 * w 10; a = f(w) 100; b = g(w) 100; budget 110: b evicts a. The final
	 * pins then rematerialize a (evicting b) and OOM on b. Preallocated
	 * outputs have no final pins (simrd only records their bytes).
	 */
	struct logb lb = {0};
	lconst(&lb, "w", 10);
	lcall(&lb, "a", "\"w\"", 100, 1);
	lcall(&lb, "b", "\"w\"", 100, 2);
	struct schedule *s = build(&lb);
	struct runtime_result r = run(s, RUNTIME_V2, "LRU", 110, INFINITY, NULL);
	ck_assert_int_eq(r.outcome, OUTCOME_OOM);
	ck_assert_int_eq(r.remat_compute, 1);
	schedule_free(s);

	struct rs_error err;
	struct read_options opt = {.preallocate = true};
	s = parse_text(lb.buf, &opt, &err);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->output_ram, 210);
	r = run(s, RUNTIME_V2, "LRU", 110, INFINITY, NULL);
	ck_assert_int_eq(r.outcome, OUTCOME_PASS);
	ck_assert_int_eq(r.remat_compute, 0);
	schedule_free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("runtime");
	TCase *tc = tcase_create("runtime");
	tcase_add_test(tc, evict_and_remat);
	tcase_add_test(tc, baseline);
	tcase_add_test(tc, oom);
	tcase_add_test(tc, thrash);
	tcase_add_test(tc, ratio_budget);
	tcase_add_test(tc, eager_release);
	tcase_add_test(tc, banishing);
	tcase_add_test(tc, pinned_never_evicted);
	tcase_add_test(tc, ties_keep_later);
	tcase_add_test(tc, zero_cost_taken_at_once);
	tcase_add_test(tc, random_is_seeded);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, kind_names);
	tcase_add_test(tc, preallocate);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
