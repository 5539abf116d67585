/*
 * test-offload.c: the host link (runtime-offload.c, docs/offload.md). Two
 * hand-made logs whose every copy and stall is worked out in the comments
 * (swap, the cost rule, prefetch); and on the shipped logs the properties
 * of the model: an infinite link recomputes nothing and waits for nothing
 * (overhead exactly the unbounded run's at every budget that passes), a
 * link near zero gives the replay without offload to the last counter, the
 * host memory limit holds, a budget no op fits in is OOM as without
 * offload, and the refusals. Every run is in check mode (memory == the
 * material storages + the copies under way, after every command).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heuristics.h"
#include "runtime-test.h"
#include "runtime.h"
#include "test-common.h"

/* The copies seen through the event hook: (kind, storage, start, end). */
struct copies {
	int n;
	struct {
		enum runtime_event_kind kind;
		uint32_t s;
		int64_t start, end;
	} c[32];
};

static void on_event(void *ctx, const struct runtime_event *ev)
{
	struct copies *l = ctx;
	if ((ev->kind == EV_OFFLOAD || ev->kind == EV_FETCH) && l->n < 32) {
		l->c[l->n].kind = ev->kind;
		l->c[l->n].s = ev->storage;
		l->c[l->n].start = ev->start;
		l->c[l->n++].end = ev->end;
	}
}

static struct runtime_result run(const struct schedule *s, enum runtime_kind rk, const char *h,
				 uint64_t budget, const struct offload_config *oc, struct copies *cp)
{
	struct runtime_config cfg = {
		.runtime = rk,
		.heuristic = heuristic_find(h),
		.budget = budget,
		.remat_limit = INFINITY,
		.check = true,
		.offload = oc,
		.on_event = cp ? on_event : NULL,
		.ctx = cp,
	};
	struct runtime_result res;
	struct rs_error err;
	ck_assert_msg(runtime_run(s, &cfg, &res, &err) == 0, "refused: %s", err.msg);
	return res;
}

static void copy_is(const struct copies *cp, int i, enum runtime_event_kind kind, uint32_t s,
		    int64_t start, int64_t end)
{
	ck_assert_int_gt(cp->n, i);
	ck_assert_int_eq(cp->c[i].kind, kind);
	ck_assert_uint_eq(cp->c[i].s, s);
	ck_assert_int_eq(cp->c[i].start, start);
	ck_assert_int_eq(cp->c[i].end, end);
}

/* The chain of these cases is logb_chain (test-common.h): storages w 0,
 * a 1, b 2, c 3, d 4, e 5. */

/*
 * Swap, LRU, V2, budget 310, a link of 1e10 bytes/s and 5 ns: a copy of
 * 100 bytes takes 10 + 5 = 15 ns. Clock: w 1, a 2, b 4, c 8 (310 bytes).
 * d: c locked; LRU a (last 2) before b (4): a's copy out 8..23; nothing
 * else can go until it ends: stall 15, d runs 23..31.
 * e: a is on the host: room for it first: LRU b (4) before c (8): b out
 * 31..46, stall to 46 (30 in all); a in 46..61, stall to 61 (45); then
 * room for e: c (the only unlocked) out 61..76, stall to 76 (60); e runs
 * 76..92. Clock 92 = 1 + 31 + 60; nothing recomputed.
 */
START_TEST(swap_by_hand)
{
	struct schedule *s = logb_chain();
	struct offload_config oc = {.bandwidth = 1e10, .latency_ns = 5, .policy = OFFLOAD_SWAP};
	struct copies cp = {0};
	struct runtime_result r = run(s, RUNTIME_V2, "LRU", 310, &oc, &cp);
	ck_assert_int_eq(r.outcome, OUTCOME_PASS);
	ck_assert_int_eq(r.clock, 92);
	ck_assert_int_eq(r.model_compute, 31);
	ck_assert_int_eq(r.remat_compute, 0);
	ck_assert_int_eq(r.stall_ns, 60);
	ck_assert_uint_eq(r.offloads, 3);
	ck_assert_uint_eq(r.evictions, 3);
	ck_assert_uint_eq(r.bytes_offloaded, 300);
	ck_assert_uint_eq(r.fetches, 1);
	ck_assert_uint_eq(r.bytes_fetched, 100);
	ck_assert_int_eq(r.d2h_busy_ns, 45);
	ck_assert_int_eq(r.h2d_busy_ns, 15);
	ck_assert_uint_eq(r.peak_host_memory, 200); /* a and b, before a came back */
	ck_assert_uint_eq(r.peak_memory, 310);
	ck_assert_int_eq(cp.n, 4);
	copy_is(&cp, 0, EV_OFFLOAD, 1, 8, 23);
	copy_is(&cp, 1, EV_OFFLOAD, 2, 31, 46);
	copy_is(&cp, 2, EV_FETCH, 1, 46, 61);
	copy_is(&cp, 3, EV_OFFLOAD, 3, 61, 76);

	/* A link slower back (a measured one): 5e9 bytes/s and 10 ns to the
	 * device, 100 bytes in 30 ns. The same until a comes back: a in
	 * 46..76, stall to 76 (45); c out 76..91, stall to 91 (60 + 15); e
	 * runs 91..107. */
	struct offload_config slow_back = oc;
	slow_back.h2d_bandwidth = 5e9;
	slow_back.h2d_latency_ns = 10;
	cp.n = 0;
	r = run(s, RUNTIME_V2, "LRU", 310, &slow_back, &cp);
	ck_assert_int_eq(r.outcome, OUTCOME_PASS);
	ck_assert_int_eq(r.clock, 107);
	ck_assert_int_eq(r.stall_ns, 75);
	ck_assert_int_eq(r.d2h_busy_ns, 45);
	ck_assert_int_eq(r.h2d_busy_ns, 30);
	ck_assert_int_eq(cp.n, 4);
	copy_is(&cp, 1, EV_OFFLOAD, 2, 31, 46);
	copy_is(&cp, 2, EV_FETCH, 1, 46, 76);
	copy_is(&cp, 3, EV_OFFLOAD, 3, 76, 91);

	/* A host of 150 bytes holds a, not b as well: swap cannot make room
	 * for a's return (at e, clock 31): out of memory. */
	oc.host_memory = 150;
	r = run(s, RUNTIME_V2, "LRU", 310, &oc, NULL);
	ck_assert_int_eq(r.outcome, OUTCOME_OOM);
	ck_assert_int_eq(r.clock, 31);
	ck_assert_uint_eq(r.peak_host_memory, 100);
	schedule_free(s);
}
END_TEST

/*
 * The cost rule, LRU (no regions: recompute = compute(s)), a link of 1e11
 * bytes/s and no latency: 1 ns a copy, 2 there and back. d: LRU a,
 * compute 1 < 2: dropped; d runs 8..16. e: a is recomputed (not held):
 * room for it: LRU b, compute 2 >= 2: offloaded 16..17, stall to 17; a
 * runs 17..18 (remat 1); room for e: c (compute 4) out 18..19, stall to
 * 19; e runs 19..35. Clock 35 = 1 + 31 + 1 + 2.
 */
START_TEST(cost_rule_by_hand)
{
	struct schedule *s = logb_chain();
	struct offload_config oc = {.bandwidth = 1e11, .policy = OFFLOAD_COST};
	struct copies cp = {0};
	struct runtime_result r = run(s, RUNTIME_V2, "LRU", 310, &oc, &cp);
	ck_assert_int_eq(r.outcome, OUTCOME_PASS);
	ck_assert_int_eq(r.clock, 35);
	ck_assert_int_eq(r.remat_compute, 1);
	ck_assert_uint_eq(r.remats, 1);
	ck_assert_int_eq(r.stall_ns, 2);
	ck_assert_uint_eq(r.evictions, 3);
	ck_assert_uint_eq(r.offloads, 2);
	ck_assert_uint_eq(r.fetches, 0);
	ck_assert_int_eq(cp.n, 2);
	copy_is(&cp, 0, EV_OFFLOAD, 2, 16, 17);
	copy_is(&cp, 1, EV_OFFLOAD, 3, 18, 19);
	schedule_free(s);
}
END_TEST

/*
 * The copies queued before a victim's count in its rule. w 10; a, b, c =
 * f(w), g(w), h(w), 100 bytes and 5 ns each; d = k(w) 200 bytes, 1 ns;
 * every name released at the end. LRU, V2, budget 310, a copy of 100
 * bytes 2 ns (5e10 bytes/s): there and back 4 ns.
 * a 1..6, b 6..11, c 11..16 (310 bytes). d needs 200: LRU a: nothing
 * queued, 4 <= 5: offloaded 16..18; room only when it ends, and 100 more:
 * LRU b: 2 ns queued before it, 2 + 4 > 5: dropped. Then the wait for a:
 * stall 2, d 18..19. (Without the queue in the rule b would go out too,
 * 18..20, and d would wait for it: clock 21.)
 */
START_TEST(queue_counts_in_the_rule)
{
	struct logb b = {0};
	logb_const(&b, "w", 10);
	logb_call(&b, "a", "\"w\"", 100, 5);
	logb_call(&b, "b", "\"w\"", 100, 5);
	logb_call(&b, "c", "\"w\"", 100, 5);
	logb_call(&b, "d", "\"w\"", 200, 1);
	const char *names[] = {"w", "a", "b", "c", "d"};
	for (int i = 0; i < 5; i++)
		logb_release(&b, names[i]);
	struct schedule *s = logb_build(&b);
	struct offload_config oc = {.bandwidth = 5e10, .policy = OFFLOAD_COST};
	struct copies cp = {0};
	struct runtime_result r = run(s, RUNTIME_V2, "LRU", 310, &oc, &cp);
	ck_assert_int_eq(r.outcome, OUTCOME_PASS);
	ck_assert_int_eq(r.clock, 19);
	ck_assert_int_eq(r.stall_ns, 2);
	ck_assert_uint_eq(r.evictions, 2);
	ck_assert_uint_eq(r.offloads, 1);
	ck_assert_int_eq(cp.n, 1);
	copy_is(&cp, 0, EV_OFFLOAD, 1, 16, 18);
	schedule_free(s);
}
END_TEST

/*
 * Prefetch, swap, LRU, V2Eager, budget 310, 15 ns a copy. w 10; a = f(w)
 * 100 t1; b = g(a) 100 t1; c = h(b) 100 t1; d = k(c) 100 t1; release b,
 * c; y = p(d) 100 t50; e = m(a, y) 100 t1; release the rest. Storages: w 0, a 1, b 2,
 * c 3, d 4, y 5, e 6.
 * Clock: a 2, b 3, c 4 (310). d: LRU a (2) out 4..19, stall 15; d 19..20.
 * The releases drop b and c (eager), a is on the host: 110 bytes.
 * y runs 20..70 (210). e: a back 70..85 (310, stall 30); room for e: d
 * out 85..100 (stall 45); e 100..101.
 * With --offload-prefetch 2, after the release of c (clock 20, 110 bytes)
 * the next two ops are y and e, and e needs a: a comes back 20..35 while
 * y runs; at e it is there, no wait; d out 70..85 (stall 30); e 85..86.
 * Prefetch 1 sees only y there, and after y e's a does not fit: as none.
 */
static struct schedule *later_use(void)
{
	struct logb b = {0};
	logb_const(&b, "w", 10);
	logb_call(&b, "a", "\"w\"", 100, 1);
	logb_call(&b, "b", "\"a\"", 100, 1);
	logb_call(&b, "c", "\"b\"", 100, 1);
	logb_call(&b, "d", "\"c\"", 100, 1);
	logb_release(&b, "b");
	logb_release(&b, "c");
	logb_call(&b, "y", "\"d\"", 100, 50);
	logb_call(&b, "e", "\"a\",\"y\"", 100, 1);
	const char *names[] = {"w", "a", "d", "y", "e"}; /* no final pins */
	for (int i = 0; i < 5; i++)
		logb_release(&b, names[i]);
	return logb_build(&b);
}

START_TEST(prefetch_by_hand)
{
	struct schedule *s = later_use();
	struct offload_config oc = {.bandwidth = 1e10, .latency_ns = 5, .policy = OFFLOAD_SWAP};
	struct copies cp = {0};
	struct runtime_result r = run(s, RUNTIME_V2_EAGER, "LRU", 310, &oc, &cp);
	ck_assert_int_eq(r.outcome, OUTCOME_PASS);
	ck_assert_int_eq(r.clock, 101);
	ck_assert_int_eq(r.stall_ns, 45);
	ck_assert_int_eq(cp.n, 3);
	copy_is(&cp, 0, EV_OFFLOAD, 1, 4, 19);
	copy_is(&cp, 1, EV_FETCH, 1, 70, 85);
	copy_is(&cp, 2, EV_OFFLOAD, 4, 85, 100);

	oc.prefetch = 1;
	r = run(s, RUNTIME_V2_EAGER, "LRU", 310, &oc, NULL);
	ck_assert_int_eq(r.clock, 101);

	oc.prefetch = 2;
	cp.n = 0;
	r = run(s, RUNTIME_V2_EAGER, "LRU", 310, &oc, &cp);
	ck_assert_int_eq(r.outcome, OUTCOME_PASS);
	ck_assert_int_eq(r.clock, 86);
	ck_assert_int_eq(r.stall_ns, 30);
	ck_assert_uint_eq(r.fetches, 1);
	ck_assert_int_eq(r.h2d_busy_ns, 15);
	ck_assert_int_eq(cp.n, 3);
	copy_is(&cp, 0, EV_OFFLOAD, 1, 4, 19);
	copy_is(&cp, 1, EV_FETCH, 1, 20, 35);
	copy_is(&cp, 2, EV_OFFLOAD, 4, 70, 85);
	schedule_free(s);
}
END_TEST

/* ---- properties on the shipped logs ---------------------------------------- */

static const char *const shipped[] = {"mlp-cpu", "cnn-cpu", "lstm-cpu", "transformer-cpu"};

static struct schedule *read_shipped(const char *name)
{
	const char *src = getenv("REMATSIM_SOURCE");
	char path[4096];
	snprintf(path, sizeof path, "%s/logs/%s.log.gz", src ? src : ".", name);
	struct read_options opt = {0};
	struct schedule *s;
	struct rs_error err;
	if (schedule_read(path, &opt, &s, &err) < 0)
		ck_abort_msg("%s: %s", path, err.msg);
	return s;
}

static const double ratios[] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};

static struct point_result point(const struct schedule *s, const struct baseline *b, const char *h,
				 double ratio, const struct offload_config *oc)
{
	struct point_config pc = {
		.rt.heuristic = heuristic_find(h), .rt.runtime = RUNTIME_V2_EAGER_OPTIMIZED,
		.ratio = ratio, .overhead_limit = 2, .rt.offload = oc, .rt.check = true,
	};
	struct point_result pr;
	struct rs_error err;
	ck_assert_msg(point_run(s, b, &pc, &pr, &err) == 0, "refused: %s", err.msg);
	return pr;
}

/* An infinite link and no latency: every victim offloaded for nothing,
 * nothing recomputed, no wait: every budget that passes has exactly the
 * unbounded run's clock (1 + the model compute) and overhead. */
START_TEST(infinite_link_costs_nothing)
{
	const char *heur[] = {"DTR", "LRU", "DTREqClass"};
	for (size_t m = 0; m < sizeof shipped / sizeof *shipped; m++) {
		struct schedule *s = read_shipped(shipped[m]);
		struct baseline b;
		baseline_run(s, &b);
		double unbounded = (double)(1 + b.compute) / (double)b.compute;
		for (int pol = 0; pol < 3; pol++)
			for (size_t h = 0; h < 3; h++) {
				int passed = 0;
				for (size_t i = 0; i < sizeof ratios / sizeof *ratios; i++) {
					struct offload_config oc = {.bandwidth = INFINITY,
								    .policy = (enum offload_policy)pol};
					struct point_result pr = point(s, &b, heur[h], ratios[i], &oc);
					if (pr.run.outcome != OUTCOME_PASS)
						continue;
					passed++;
					ck_assert_msg(pr.run.clock == 1 + b.compute && pr.overhead == unbounded,
						      "%s %s %s ratio %g: clock %lld, overhead %.17g",
						      shipped[m], heur[h], offload_policy_name((enum offload_policy)pol), ratios[i],
						      (long long)pr.run.clock, pr.overhead);
					ck_assert_int_eq(pr.run.remat_compute, 0);
					ck_assert_int_eq(pr.run.stall_ns, 0);
				}
				/* a budget of 10% fails; one of 100% passes */
				ck_assert_int_gt(passed, 0);
			}
		schedule_free(s);
	}
}
END_TEST

/* A link near zero: no copy is ever cheaper than a recompute, and the cost
 * rule's runs are the runs without offload, counter for counter. */
START_TEST(slow_link_is_no_link)
{
	const char *heur[] = {"DTR", "DTREqClass", "MSPS", "LRU", "LargestStorage", "DTRLocal"};
	for (size_t m = 0; m < sizeof shipped / sizeof *shipped; m++) {
		struct schedule *s = read_shipped(shipped[m]);
		struct baseline b;
		baseline_run(s, &b);
		for (size_t h = 0; h < sizeof heur / sizeof *heur; h++)
			for (size_t i = 0; i < sizeof ratios / sizeof *ratios; i++) {
				struct offload_config oc = {.bandwidth = 1e-12, .policy = OFFLOAD_COST,
							    .prefetch = 4};
				struct point_result off = point(s, &b, heur[h], ratios[i], NULL);
				struct point_result on = point(s, &b, heur[h], ratios[i], &oc);
				const struct runtime_result *x = &off.run, *y = &on.run;
				ck_assert_msg(same_run(x, y) && off.overhead == on.overhead,
					      "%s %s ratio %g differs", shipped[m], heur[h], ratios[i]);
				ck_assert_uint_eq(y->offloads, 0);
				ck_assert_uint_eq(y->peak_host_memory, 0);
			}
		schedule_free(s);
	}
}
END_TEST

/* The local rule weighs a victim's own compute alone: under DTR, whose
 * e* adds its evicted neighbourhood's, it offloads fewer victims than the
 * cost rule somewhere; under LRU (no regions kept) the two are one rule. */
START_TEST(local_rule_counts_compute_alone)
{
	struct schedule *s = read_shipped("transformer-cpu");
	struct baseline b;
	baseline_run(s, &b);
	bool fewer = false;
	for (size_t i = 0; i < sizeof ratios / sizeof *ratios; i++) {
		struct offload_config cost = {.bandwidth = 25e9, .policy = OFFLOAD_COST};
		struct offload_config local = {.bandwidth = 25e9, .policy = OFFLOAD_LOCAL};
		struct point_result c = point(s, &b, "DTR", ratios[i], &cost);
		struct point_result l = point(s, &b, "DTR", ratios[i], &local);
		fewer |= l.run.offloads < c.run.offloads;
		c = point(s, &b, "LRU", ratios[i], &cost);
		l = point(s, &b, "LRU", ratios[i], &local);
		ck_assert_int_eq(c.run.clock, l.run.clock);
		ck_assert_uint_eq(c.run.offloads, l.run.offloads);
	}
	ck_assert(fewer);
	schedule_free(s);
}
END_TEST

/* The speed-only choices (regions as bitsets, walks or runs; the plain
 * scans) make the same runs with a link too: a storage brought back joins
 * the regions as a computed one does. */
START_TEST(speed_choices_agree)
{
	struct schedule *s = read_shipped("transformer-cpu");
	struct baseline b;
	baseline_run(s, &b);
	const char *heur[] = {"DTR", "DTREqClass", "MSPS"};
	for (size_t h = 0; h < 3; h++)
		for (size_t i = 1; i < 9; i += 2) {
			struct offload_config oc = {.bandwidth = 25e9, .latency_ns = 1000, .prefetch = 2,
						    .policy = (enum offload_policy)(i % 3)};
			struct runtime_result r[4];
			for (int k = 0; k < 4; k++) {
				struct runtime_test_switches sw = {
					.plain_regions = k == 1, .run_regions = k == 2, .plain_scans = k == 3,
				};
				struct runtime_config cfg = {
					.runtime = RUNTIME_V2_EAGER_OPTIMIZED, .heuristic = heuristic_find(heur[h]),
					.budget = (uint64_t)((double)b.memory * ratios[i]), .remat_limit = INFINITY,
					.offload = &oc, .test = &sw, .check = true,
				};
				struct rs_error err;
				ck_assert_int_eq(runtime_run(s, &cfg, &r[k], &err), 0);
			}
			for (int k = 1; k < 4; k++) {
				ck_assert_int_eq(r[k].outcome, r[0].outcome);
				ck_assert_int_eq(r[k].clock, r[0].clock);
				ck_assert_uint_eq(r[k].offloads, r[0].offloads);
				ck_assert_uint_eq(r[k].evictions, r[0].evictions);
				ck_assert_int_eq(r[k].stall_ns, r[0].stall_ns);
				ck_assert_uint_eq(r[k].heuristic_accesses, r[0].heuristic_accesses);
			}
		}
	schedule_free(s);
}
END_TEST

/* The host holds at most --host-memory bytes, whatever the budget; with
 * the cost rule a full host means dropping, so the runs still pass where
 * recomputation alone does. */
START_TEST(host_limit_holds)
{
	struct schedule *s = read_shipped("transformer-cpu");
	struct baseline b;
	baseline_run(s, &b);
	uint64_t limit = b.memory / 10;
	for (size_t i = 0; i < sizeof ratios / sizeof *ratios; i++) {
		struct offload_config oc = {.bandwidth = INFINITY, .host_memory = limit};
		struct point_result pr = point(s, &b, "DTR", ratios[i], &oc);
		struct point_result plain = point(s, &b, "DTR", ratios[i], NULL);
		ck_assert_uint_le(pr.run.peak_host_memory, limit);
		if (plain.run.outcome == OUTCOME_PASS)
			ck_assert_int_eq(pr.run.outcome, OUTCOME_PASS);
		oc.policy = OFFLOAD_SWAP;
		pr = point(s, &b, "DTR", ratios[i], &oc);
		ck_assert_uint_le(pr.run.peak_host_memory, limit);
		ck_assert_int_eq(pr.run.remat_compute, 0);
	}
	/* unbounded, the host takes more than that at a low budget */
	struct offload_config oc = {.bandwidth = INFINITY};
	ck_assert_uint_gt(point(s, &b, "DTR", 0.5, &oc).run.peak_host_memory, limit);
	schedule_free(s);
}
END_TEST

/* A budget below what one op needs at once stays OOM, at the same command:
 * no link can help an op whose inputs and outputs do not fit. */
START_TEST(unmeetable_budget_is_oom)
{
	struct schedule *s = logb_chain();
	/* b = g(a) needs a (locked) and b with w pinned: 210 bytes */
	struct runtime_result plain = run(s, RUNTIME_V2, "LRU", 150, NULL, NULL);
	struct offload_config oc = {.bandwidth = INFINITY, .policy = OFFLOAD_SWAP};
	struct runtime_result r = run(s, RUNTIME_V2, "LRU", 150, &oc, NULL);
	ck_assert_int_eq(plain.outcome, OUTCOME_OOM);
	ck_assert_int_eq(r.outcome, OUTCOME_OOM);
	ck_assert_uint_eq(r.stopped_at, plain.stopped_at);
	ck_assert_int_eq(r.clock, plain.clock);
	schedule_free(s);
}
END_TEST

START_TEST(refusals)
{
	struct schedule *s = logb_chain();
	struct offload_config oc = {.bandwidth = 1e9};
	struct runtime_config cfg = {.runtime = RUNTIME_V1, .heuristic = heuristic_find("DTRUnopt"),
				     .budget = 310, .remat_limit = INFINITY, .offload = &oc};
	struct runtime_result res;
	struct rs_error err;
	ck_assert_int_eq(runtime_run(s, &cfg, &res, &err), -1);
	ck_assert_int_eq(err.status, EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(err.msg, "banishing"));
	cfg.runtime = RUNTIME_V2_EAGER_OPTIMIZED;
	cfg.heuristic = heuristic_find("DTRPrototype");
	ck_assert_int_eq(runtime_run(s, &cfg, &res, &err), -1);
	cfg.heuristic = heuristic_find("DTR");
	oc.bandwidth = 0;
	ck_assert_int_eq(runtime_run(s, &cfg, &res, &err), -1);
	oc.bandwidth = NAN;
	ck_assert_int_eq(runtime_run(s, &cfg, &res, &err), -1);
	oc.bandwidth = 1e9;
	oc.latency_ns = -1;
	ck_assert_int_eq(runtime_run(s, &cfg, &res, &err), -1);
	oc.latency_ns = 0;
	oc.h2d_latency_ns = -1;
	ck_assert_int_eq(runtime_run(s, &cfg, &res, &err), -1);
	oc.h2d_latency_ns = 0;
	oc.h2d_bandwidth = -1;
	ck_assert_int_eq(runtime_run(s, &cfg, &res, &err), -1);
	oc.h2d_bandwidth = NAN;
	ck_assert_int_eq(runtime_run(s, &cfg, &res, &err), -1);
	oc.h2d_bandwidth = 0;
	ck_assert_int_eq(runtime_run(s, &cfg, &res, &err), 0);
	schedule_free(s);
}
END_TEST

START_TEST(copy_times)
{
	struct offload_config c = {.bandwidth = 25e9, .latency_ns = 0};
	ck_assert_int_eq(offload_copy_ns(&c, 0, false), 0);
	ck_assert_int_eq(offload_copy_ns(&c, 25, false), 1);    /* 1 ns exactly */
	ck_assert_int_eq(offload_copy_ns(&c, 26, false), 2);    /* rounded up */
	ck_assert_int_eq(offload_copy_ns(&c, 1u << 30, false), 42949673); /* 1 GiB: 42.95 ms */
	c.latency_ns = 7;
	ck_assert_int_eq(offload_copy_ns(&c, 25, false), 8);
	c.bandwidth = INFINITY;
	ck_assert_int_eq(offload_copy_ns(&c, UINT64_MAX, false), 7);
	c.bandwidth = 1e-30; /* capped: the clock cannot overflow */
	ck_assert_int_eq(offload_copy_ns(&c, 1, false), INT64_C(1) << 61);
	ck_assert_int_eq(offload_copy_ns(&c, 1, true), INT64_C(1) << 61); /* back: the same link */
	c.h2d_bandwidth = 5e9; /* back at its own rate and latency */
	c.h2d_latency_ns = 3;
	ck_assert_int_eq(offload_copy_ns(&c, 26, true), 9);
	ck_assert_int_eq(offload_copy_ns(&c, 26, false), INT64_C(1) << 61);
	enum offload_policy p;
	ck_assert_int_eq(offload_policy_parse("Swap", &p), 0);
	ck_assert_int_eq(p, OFFLOAD_SWAP);
	ck_assert_str_eq(offload_policy_name(OFFLOAD_COST), "cost");
	ck_assert_int_eq(offload_policy_parse("LOCAL", &p), 0);
	ck_assert_int_eq(p, OFFLOAD_LOCAL);
	ck_assert_int_eq(offload_policy_parse("drop", &p), -1);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("offload");
	TCase *tc = tcase_create("offload");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, swap_by_hand);
	tcase_add_test(tc, cost_rule_by_hand);
	tcase_add_test(tc, queue_counts_in_the_rule);
	tcase_add_test(tc, prefetch_by_hand);
	tcase_add_test(tc, infinite_link_costs_nothing);
	tcase_add_test(tc, slow_link_is_no_link);
	tcase_add_test(tc, local_rule_counts_compute_alone);
	tcase_add_test(tc, speed_choices_agree);
	tcase_add_test(tc, host_limit_holds);
	tcase_add_test(tc, unmeetable_budget_is_oom);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, copy_times);
	suite_add_tcase(su, tc);
	return run_suite(su);
}
