/*
 * test-differential.c: the two ways the runtime keeps regions must agree
 * to the last access. Small logs (up to 4096 storages) keep regions as
 * bitsets built from memoized reaches that live across batches and are
 * forgotten when a storage they may hold changes; `plain_regions` forces
 * the plain path (id lists, one walk per rebuild), `run_regions` the
 * runs of ids (derived from what changed, check mode comparing each
 * derived region with a walk) that logs past 4096 storages take.
 * On random op logs (seeded, so every run sees the same ones: views,
 * in-place mutations, copies, re-pointed handles, releases, constants),
 * every region and class heuristic at several budgets must give the same
 * outcome, clock, remat compute, evictions, evaluations and accesses on
 * both paths, in check mode (which also compares sampled memoized reaches
 * with a fresh walk).
 */
#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "heuristics.h"
#include "runtime-test.h"
#include "runtime.h"
#include "test-common.h"

static uint64_t rng;
/* Sizes and op times are written shifted left by these (wide_keys_agree). */
static unsigned size_shift, time_shift;

static uint32_t rnd(uint32_t n)
{
	rng += 0x9E3779B97F4A7C15ULL;
	uint64_t z = rng;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return (uint32_t)((z ^ (z >> 31)) % n);
}

struct text {
	char *p;
	size_t len, cap;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if ((size_t)n < t->cap - t->len) {
			t->len += (size_t)n;
			return;
		}
		t->cap = 2 * t->cap + (size_t)n + 64;
		t->p = realloc(t->p, t->cap);
		ck_assert(t->p != NULL);
	}
}

/* A random log: constants, then steps of calls (one or two results, some
 * views of an argument), in-place mutations, copies, re-pointings and
 * releases of live handles. Names are x<N>. Views come from one-argument,
 * one-result ops (as PyTorch's view ops), or with `wild` from any op:
 * those can make regions drift from frontiers, where simrd stops with an
 * assertion and the runtime with an error. */
static char *random_log(int steps, bool wild)
{
	struct text t = {0};
	uint32_t live[512], n_live = 0, next = 0;
	/* Handles that share their tensor with another (COPY): mutating one
	 * would leave the other on the old version, and a second MUTATE of
	 * that version is rejected (as simrd does), so neither is mutated. */
	static uint8_t shared[1 << 16];
	memset(shared, 0, sizeof shared);
	ck_assert(steps < (1 << 16) - 64);
	put(&t, "{\"ANNOTATION\":\"START\",\"INSTRUCTION\":\"ANNOTATE\"}\n");
	for (int i = 0, nc = 2 + (int)rnd(4); i < nc; i++) {
		uint32_t x = next++;
		put(&t, "{\"INSTRUCTION\":\"CONSTANT\",\"NAME\":\"x%u\"}\n", x);
		put(&t, "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"%llu\",\"NAME\":\"x%u\"}\n",
		    (unsigned long long)(8 + rnd(64)) << size_shift, x);
		live[n_live++] = x;
	}
	for (int i = 0; i < steps; i++) {
		uint32_t k = rnd(100);
		if (i == steps / 2)
			put(&t, "{\"ANNOTATION\":\"BACKWARD\",\"INSTRUCTION\":\"ANNOTATE\"}\n");
		if (k < 60 && n_live > 0 && n_live < 500) {
			uint32_t na = 1 + rnd(n_live < 3 ? n_live : 3), nr = 1 + (rnd(4) == 0);
			uint32_t args[3], res[2];
			put(&t, "{\"ARGS\":[");
			for (uint32_t a = 0; a < na; a++) {
				args[a] = live[rnd(n_live)];
				put(&t, "%s\"x%u\"", a ? "," : "", args[a]);
			}
			put(&t, "],\"INSTRUCTION\":\"CALL\",\"NAME\":\"op%d\",\"RESULT\":[", i);
			for (uint32_t r = 0; r < nr; r++) {
				res[r] = next++;
				put(&t, "%s\"x%u\"", r ? "," : "", res[r]);
			}
			put(&t, "],\"TIME\":\"%llu\"}\n", (unsigned long long)(1 + rnd(1000)) << time_shift);
			for (uint32_t r = 0; r < nr; r++) {
				bool view = (wild || (na == 1 && nr == 1)) && rnd(5) == 0;
				put(&t, "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"%llu\",\"NAME\":\"x%u\"}\n",
				    (unsigned long long)(view ? 0 : 4 + rnd(200)) << size_shift, res[r]);
				put(&t, "{\"ALIAS\":\"%d\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"x%u\"}\n",
				    view ? (int)rnd(na) : -1, res[r]);
				live[n_live++] = res[r];
			}
		} else if (k < 66 && n_live > 0 && !shared[live[0]]) {
			uint32_t a = live[0], b = live[rnd(n_live)];
			put(&t, "{\"ARGS\":[\"x%u\",\"x%u\"],\"INSTRUCTION\":\"MUTATE\",\"MUTATE\":[0],"
				"\"NAME\":\"add_\",\"TIME\":\"%llu\"}\n", a, b,
			    (unsigned long long)(1 + rnd(300)) << time_shift);
		} else if (k < 71 && n_live > 0 && n_live < 500) {
			uint32_t x = next++;
			uint32_t src = live[rnd(n_live)];
			put(&t, "{\"DST\":\"x%u\",\"INSTRUCTION\":\"COPY\",\"SRC\":\"x%u\"}\n", x, src);
			shared[x] = shared[src] = 1;
			live[n_live++] = x;
		} else if (k < 73 && n_live > 1) {
			uint32_t dst = live[rnd(n_live)], src = live[rnd(n_live)];
			if (dst == src) /* would drop its last reference first */
				continue;
			put(&t, "{\"DST\":\"x%u\",\"INSTRUCTION\":\"COPY_FROM\",\"SRC\":\"x%u\"}\n",
			    dst, src);
			shared[dst] = shared[src] = 1;
		} else if (n_live > 2) {
			uint32_t j = rnd(n_live);
			put(&t, "{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"x%u\"}\n", live[j]);
			live[j] = live[--n_live];
		}
	}
	return t.p;
}

/* The random log of a seed (min + up to span steps), read, with its
 * baseline. */
static struct schedule *random_schedule(uint64_t seed, int min, uint32_t span, bool wild,
					struct baseline *b)
{
	rng = seed;
	char *text = random_log(min + (int)rnd(span), wild);
	struct rs_error err;
	struct read_options opt = {0};
	struct schedule *s = parse_text(text, &opt, &err);
	ck_assert_msg(s != NULL, "generated log (seed %llu) rejected: line %ld: %s",
		      (unsigned long long)seed, err.line, err.msg);
	free(text);
	baseline_run(s, b);
	return s;
}

/* A region representation's numbers against the plain walk's (or the
 * fast scans' against the plain loop's: what, against). */
static void same_against(const struct runtime_result *m, const struct runtime_result *w, const char *what,
			 const char *against, int log, const char *h, enum runtime_kind rt, double ratio)
{
	ck_assert_msg(same_run(m, w),
		      "log %d, %s on %s at %.2f: %s %s clock %lld evals %llu accesses %llu, "
		      "%s %s clock %lld evals %llu accesses %llu",
		      log, h, runtime_kind_name(rt), ratio, what, outcome_name(m->outcome), (long long)m->clock,
		      (unsigned long long)m->heuristic_evals, (unsigned long long)m->heuristic_accesses,
		      against, outcome_name(w->outcome), (long long)w->clock,
		      (unsigned long long)w->heuristic_evals, (unsigned long long)w->heuristic_accesses);
}

static void same_numbers(const struct runtime_result *m, const struct runtime_result *w, const char *what,
			 int log, const char *h, enum runtime_kind rt, double ratio)
{
	same_against(m, w, what, "walk", log, h, rt, ratio);
}

START_TEST(memo_equals_walk)
{
	static const char *names[] = {
		"DTR", "MSPS", "AbE", "AbESize", "AbEStale", "AbESizeStale", "DTREqClass", "AbEq",
	};
	static const double ratios[] = {0.3, 0.5, 0.7, 0.9};
	int compared = 0, broken = 0;
	bool wild = _i % 4 == 3;
	struct baseline b;
	struct rs_error err;
	struct schedule *s = random_schedule(20261130u + (uint64_t)_i, 100, 300, wild, &b);
	for (size_t h = 0; h < sizeof names / sizeof names[0]; h++) {
		for (size_t r = 0; r < sizeof ratios / sizeof ratios[0]; r++) {
			for (int rt = 0; rt < 2; rt++) {
				struct runtime_test_switches sw = {0};
				struct point_config pc = {
					.rt.heuristic = heuristic_find(names[h]),
					.rt.runtime = rt ? RUNTIME_V2_OPTIMIZED : RUNTIME_V2_EAGER_OPTIMIZED,
					.ratio = ratios[r], .overhead_limit = 3, .rt.check = true,
					.rt.test = &sw,
				};
				struct point_result memo, walk, runs, half;
				struct rs_error err2, err3 = {0}, err4;
				int rm = point_run(s, &b, &pc, &memo, &err);
				sw.plain_regions = true;
				int rw = point_run(s, &b, &pc, &walk, &err2);
				sw.plain_regions = false;
				sw.run_regions = true;
				int rr = point_run(s, &b, &pc, &runs, &err3);
				/* runs, then bitsets from the middle of the log on
				 * (one runtime of the two: the test's time) */
				sw.bits_after_cmd = s->n_cmds / 2;
				int rh = rr;
				half = runs;
				err4 = err3;
				if (rt == 0)
					rh = point_run(s, &b, &pc, &half, &err4);
				/* All stop, at the same command, or none. */
				ck_assert_msg(rm == rw && rr == rw && rh == rw,
					      "log %d, %s at %.1f: memo %d, walk %d, runs %d, runs then bits %d",
					      _i, names[h], ratios[r], rm, rw, rr, rh);
				if (rm) {
					ck_assert_msg(wild, "log %d (tame), %s at %.1f: %s", _i, names[h], ratios[r],
						      err.msg);
					ck_assert_str_eq(err.msg, err2.msg);
					ck_assert_str_eq(err3.msg, err2.msg);
					ck_assert_str_eq(err4.msg, err2.msg);
					ck_assert_int_eq(err.status, 65);
					broken++;
					continue;
				}
				compared++;
				same_numbers(&memo.run, &walk.run, "memo", _i, names[h], pc.rt.runtime, ratios[r]);
				same_numbers(&runs.run, &walk.run, "runs", _i, names[h], pc.rt.runtime, ratios[r]);
				same_numbers(&half.run, &walk.run, "runs then bits", _i, names[h], pc.rt.runtime, ratios[r]);
			}
		}
	}
	schedule_free(s);
	/* Most points of a tame log must run (the test must compare something). */
	ck_assert_msg(wild || compared >= 48, "log %d: only %d points compared", _i, compared);
	(void)broken;
}
END_TEST

/* Past the bitsets' threshold (RMEMO_MAX_STORAGES, 4096 storages) regions
 * are runs by default: on random logs of about 9,000-10,000 storages, in
 * check mode, the same numbers as the plain walk. */
START_TEST(large_runs_equal_walk)
{
	static const char *names[] = {"DTR", "AbESize"};
	struct baseline b;
	struct rs_error err, err2;
	struct schedule *s = random_schedule(20261201u + (uint64_t)_i, 18500, 1000, false, &b);
	ck_assert_uint_gt(s->n_storages, 4096);
	for (size_t h = 0; h < sizeof names / sizeof names[0]; h++) {
		struct runtime_test_switches sw = {0};
		struct point_config pc = {
			.rt.heuristic = heuristic_find(names[h]), .rt.runtime = RUNTIME_V2_EAGER_OPTIMIZED,
			.ratio = 0.4, .overhead_limit = 3, .rt.check = true,
			.rt.test = &sw,
		};
		struct point_result runs, walk, half;
		ck_assert_int_eq(point_run(s, &b, &pc, &runs, &err), 0);
		/* runs, then bitsets from the middle on (as the switch by cost
		 * does up to RMEMO_MAX_BITSETS storages) */
		sw.run_regions = true;
		sw.bits_after_cmd = s->n_cmds / 2;
		ck_assert_int_eq(point_run(s, &b, &pc, &half, &err), 0);
		sw.run_regions = false;
		sw.bits_after_cmd = 0;
		sw.plain_regions = true;
		ck_assert_int_eq(point_run(s, &b, &pc, &walk, &err2), 0);
		ck_assert_uint_gt(walk.run.evictions, 100);
		same_numbers(&runs.run, &walk.run, "runs", _i, names[h], pc.rt.runtime, pc.ratio);
		same_numbers(&half.run, &walk.run, "runs then bits", _i, names[h], pc.rt.runtime, pc.ratio);
	}
	schedule_free(s);
}
END_TEST

/* pc run as given (fast), then again with the plain path that *plain_flag
 * (a flag inside pc) turns on: both must stop the same way; that stop. */
static int run_fast_and_plain(const struct schedule *s, const struct baseline *b, struct point_config *pc,
			      bool *plain_flag, struct point_result *fast, struct point_result *plain)
{
	struct rs_error err, err2;
	int rf = point_run(s, b, pc, fast, &err);
	*plain_flag = true;
	int rp = point_run(s, b, pc, plain, &err2);
	ck_assert_int_eq(rf, rp);
	return rf;
}

/* DTRUnopt's neighbourhood in one pass per direction, its frontiers not
 * kept (rt_unopt_neighbourhood) against two plain rebuilds and a fold
 * (plain_regions): the same numbers, accesses included, on V1 (where
 * banishing deletes edges) and on the V2 runtimes, in check mode, on
 * random logs (some with ops of many outputs and aliases: wild). */
START_TEST(unopt_one_pass_equals_rebuilds)
{
	static const enum runtime_kind kinds[] = {RUNTIME_V1, RUNTIME_V2, RUNTIME_V2_EAGER_OPTIMIZED};
	static const double ratios[] = {0.3, 0.5, 0.8};
	struct baseline b;
	bool wild = _i % 3 == 2;
	struct schedule *s = random_schedule(20261203u + (uint64_t)_i, 300, 600, wild, &b);
	uint64_t evals = 0;
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		for (size_t r = 0; r < sizeof ratios / sizeof ratios[0]; r++) {
			struct runtime_test_switches sw = {0};
			struct point_config pc = {
				.rt.heuristic = heuristic_find("DTRUnopt"), .rt.runtime = kinds[k],
				.ratio = ratios[r], .overhead_limit = 3, .rt.check = true,
				.rt.test = &sw,
			};
			struct point_result fast, plain;
			if (run_fast_and_plain(s, &b, &pc, &sw.plain_regions, &fast, &plain))
				continue;
			evals += plain.run.heuristic_evals;
			same_numbers(&fast.run, &plain.run, "one pass", _i, "DTRUnopt", pc.rt.runtime, pc.ratio);
		}
	}
	/* the test compared choices, not only empty pools */
	ck_assert_uint_gt(evals, 100);
	schedule_free(s);
}
END_TEST

/* Past RMEMO_MAX_STORAGES storages the class heuristics' kept lists of up
 * to 4 edges are deduplicated without stamps: on random logs of about
 * 9,000-10,000 storages, in check mode, the same numbers as with stamps,
 * with union-find nodes collected on the way. */
START_TEST(large_lists_equal_marks)
{
	static const char *names[] = {"DTREqClass", "AbEq", "AbEqSizeStale"};
	struct baseline b;
	struct rs_error err, err2;
	struct schedule *s = random_schedule(20261202u + (uint64_t)_i, 18500, 1000, false, &b);
	ck_assert_uint_gt(s->n_storages, 8192);
	for (size_t h = 0; h < sizeof names / sizeof names[0]; h++) {
		struct runtime_test_switches sw = {0};
		struct point_config pc = {
			.rt.heuristic = heuristic_find(names[h]), .rt.runtime = RUNTIME_V2_EAGER_OPTIMIZED,
			.ratio = 0.4, .overhead_limit = 3, .rt.check = true,
			.rt.test = &sw,
		};
		struct point_result scan, marks;
		ck_assert_int_eq(point_run(s, &b, &pc, &scan, &err), 0);
		sw.mark_lists = true;
		ck_assert_int_eq(point_run(s, &b, &pc, &marks, &err2), 0);
		ck_assert_uint_gt(marks.run.evictions, 100);
		same_numbers(&scan.run, &marks.run, "scan", _i, names[h], pc.rt.runtime, pc.ratio);
	}
	schedule_free(s);
}
END_TEST

/* Every heuristic on every runtime that serves it, with and without
 * deallocation, in check mode, on random logs: a result or the region
 * error (status 65), never a broken invariant (a crash, which Check
 * reports as an error). */
START_TEST(all_heuristics_hold)
{
	static const double ratios[] = {0.2, 0.6};
	struct baseline b;
	struct rs_error err;
	struct schedule *s = random_schedule(777u + (uint64_t)_i, 50, 400, _i % 2 == 1, &b);
	int ran = 0;
	size_t nh;
	const struct heuristic *hs = heuristic_list(&nh);
	for (size_t h = 0; h < nh; h++) {
		for (int rk = 0; rk < RUNTIME_KIND_COUNT; rk++) {
			struct runtime_config probe = {.runtime = (enum runtime_kind)rk,
						       .heuristic = &hs[h]};
			if (runtime_check_config(&probe, &err))
				continue;
			for (size_t r = 0; r < 2; r++) {
				for (int nd = 0; nd < 2; nd++) {
					struct point_config pc = {
						.rt.heuristic = &hs[h], .rt.runtime = (enum runtime_kind)rk,
						.ratio = ratios[r], .overhead_limit = 2, .rt.check = true,
						.rt.no_dealloc = nd, .rt.seed = 7,
					};
					struct point_result pr;
					if (point_run(s, &b, &pc, &pr, &err))
						ck_assert_msg(err.status == 65 && strstr(err.msg, "cannot replay this log"),
							      "log %d, %s on %s: %s", _i, hs[h].name,
							      runtime_kind_name(pc.rt.runtime), err.msg);
					else
						ran++;
				}
			}
		}
	}
	ck_assert_int_gt(ran, 200);
	schedule_free(s);
}
END_TEST

/* runtime_result's [same_from, same_below): every budget there replays as
 * the run did (fit answers bisection steps with it). For every heuristic
 * on every runtime that serves it, with and without offload, on random
 * logs: the range's ends replay alike, with the same range, and the budget
 * just past each end has a range of its own that leaves the run's budget
 * out. A range that comparisons leave unbounded above is that of a run
 * that never evicts. */
START_TEST(same_range_replays_alike)
{
	static const double ratios[] = {0.25, 0.45, 0.7};
	static const struct offload_config oc = {.bandwidth = 2e9, .policy = OFFLOAD_COST};
	struct baseline b;
	struct rs_error err;
	struct schedule *s = random_schedule(4242u + (uint64_t)_i, 80, 300, _i % 2 == 1, &b);
	size_t nh;
	const struct heuristic *hs = heuristic_list(&nh);
	int checked = 0, narrow = 0;
	for (size_t h = 0; h < nh; h++) {
		for (int rk = 0; rk < RUNTIME_KIND_COUNT; rk++) {
			for (int off = 0; off < 2; off++) {
				struct runtime_config probe = {.runtime = (enum runtime_kind)rk, .heuristic = &hs[h],
							       .offload = off ? &oc : NULL};
				if (runtime_check_config(&probe, &err))
					continue;
				for (size_t r = 0; r < sizeof ratios / sizeof ratios[0]; r++) {
					struct point_config pc = {
						.rt.heuristic = &hs[h], .rt.runtime = (enum runtime_kind)rk,
						.ratio = ratios[r], .overhead_limit = 2, .rt.seed = 7,
						.rt.offload = off ? &oc : NULL,
					};
					struct point_result at, lo, hi, past;
					if (point_run(s, &b, &pc, &at, &err))
						continue; /* a region heuristic refusing the log (65) */
					uint64_t from = at.run.same_from, below = at.run.same_below;
					ck_assert_uint_le(from, at.budget);
					ck_assert_uint_gt(below, at.budget);
					pc.ratio = 0;
					pc.budget = from ? from : 1;
					ck_assert_int_eq(point_run(s, &b, &pc, &lo, &err), 0);
					ck_assert_msg(same_run(&lo.run, &at.run) && lo.run.same_from == from &&
							      lo.run.same_below == below,
						      "log %d, %s on %s%s at %.2f: budget %llu differs from %llu", _i,
						      hs[h].name, runtime_kind_name(pc.rt.runtime), off ? " offloading" : "",
						      ratios[r], (unsigned long long)pc.budget,
						      (unsigned long long)at.budget);
					if (below == UINT64_MAX) {
						ck_assert_uint_eq(at.run.evictions, 0);
						checked++;
						continue;
					}
					pc.budget = below - 1;
					ck_assert_int_eq(point_run(s, &b, &pc, &hi, &err), 0);
					ck_assert_msg(same_run(&hi.run, &at.run) && hi.run.same_from == from &&
							      hi.run.same_below == below,
						      "log %d, %s on %s%s at %.2f: budget %llu differs from %llu", _i,
						      hs[h].name, runtime_kind_name(pc.rt.runtime), off ? " offloading" : "",
						      ratios[r], (unsigned long long)pc.budget,
						      (unsigned long long)at.budget);
					/* (past an end, a region heuristic may refuse the log) */
					pc.budget = below;
					if (!point_run(s, &b, &pc, &past, &err))
						ck_assert_uint_gt(past.run.same_from, at.budget);
					pc.budget = from - 1;
					if (from > 1 && !point_run(s, &b, &pc, &past, &err))
						ck_assert_uint_lt(past.run.same_below, at.budget + 1);
					narrow += below - from < b.memory / 4;
					checked++;
				}
			}
		}
	}
	ck_assert_int_gt(checked, 100);
	ck_assert_int_gt(narrow, 10); /* ranges that bound a bisection */
	schedule_free(s);
}
END_TEST

/* Keys past 2^50 (sizes, computes) take the heuristics' double scans
 * instead of their integer ones. Scaling every size by 2^44 and every op
 * time by 2^40 scales each cost by a power of two, which doubles keep
 * exactly, so both paths must make the same choices: the same outcome,
 * evictions, remats, evaluations and accesses, with remat compute and
 * clock scaled, for all 24 heuristics. */
START_TEST(wide_keys_agree)
{
	static const double ratios[] = {0.3, 0.6, 0.9};
	struct baseline bn, bw;
	struct rs_error err;
	struct schedule *narrow = random_schedule(4242u + (uint64_t)_i, 80, 250, false, &bn);
	size_shift = 44;
	time_shift = 40;
	struct schedule *wide = random_schedule(4242u + (uint64_t)_i, 80, 250, false, &bw);
	size_shift = time_shift = 0;
	ck_assert_uint_eq(bw.memory, bn.memory << 44);
	size_t nh;
	const struct heuristic *hs = heuristic_list(&nh);
	int compared = 0;
	for (size_t h = 0; h < nh; h++) {
		for (size_t r = 0; r < sizeof ratios / sizeof ratios[0]; r++) {
			struct point_config pc = {
				.rt.heuristic = &hs[h],
				.rt.runtime = hs[h].needs ? RUNTIME_V2_EAGER_OPTIMIZED : RUNTIME_V2_EAGER,
				.budget = (uint64_t)((double)bn.memory * ratios[r]),
				.overhead_limit = 2, .rt.seed = 11,
			};
			struct point_result pn, pw;
			if (point_run(narrow, &bn, &pc, &pn, &err))
				continue; /* the region error: nothing to compare */
			pc.budget <<= 44;
			ck_assert_msg(point_run(wide, &bw, &pc, &pw, &err) == 0, "%s", err.msg);
			const struct runtime_result *n = &pn.run, *w = &pw.run;
			ck_assert_msg(n->outcome == w->outcome && n->evictions == w->evictions &&
					      n->remats == w->remats && n->heuristic_evals == w->heuristic_evals &&
					      n->heuristic_accesses == w->heuristic_accesses &&
					      w->remat_compute == n->remat_compute << 40 &&
					      w->clock - 1 == (n->clock - 1) << 40,
				      "log %d, %s at %.1f: narrow %s %llu evictions %llu evals, "
				      "wide %s %llu evictions %llu evals",
				      _i, hs[h].name, ratios[r], outcome_name(n->outcome),
				      (unsigned long long)n->evictions, (unsigned long long)n->heuristic_evals,
				      outcome_name(w->outcome), (unsigned long long)w->evictions,
				      (unsigned long long)w->heuristic_evals);
			compared++;
		}
	}
	ck_assert_int_gt(compared, 60);
	schedule_free(narrow);
	schedule_free(wide);
}
END_TEST

/* Every heuristic's choices by the runtime (its key scans, the row's
 * inlined loop with its shortcut) and by the plain scoring loop
 * (runtime_test_switches.plain_scans: each member's exact cost): on random logs,
 * at several budgets, with and without deallocation, the same numbers. */
START_TEST(plain_scans_agree)
{
	static const double ratios[] = {0.25, 0.5, 0.75};
	struct baseline b;
	struct schedule *s = random_schedule(31337u + (uint64_t)_i, 60, 300, false, &b);
	size_t nh;
	const struct heuristic *hs = heuristic_list(&nh);
	int compared = 0;
	for (size_t h = 0; h < nh; h++) {
		for (size_t r = 0; r < sizeof ratios / sizeof ratios[0]; r++) {
			for (int nd = 0; nd < 2; nd++) {
				struct runtime_test_switches sw = {0};
				struct point_config pc = {
					.rt.heuristic = &hs[h],
					.rt.runtime = hs[h].needs & NEEDS_UNOPT ? RUNTIME_V1
						   : hs[h].needs	      ? RUNTIME_V2_EAGER_OPTIMIZED
									      : RUNTIME_V2_EAGER,
					.ratio = ratios[r], .overhead_limit = 2, .rt.seed = 5, .rt.no_dealloc = nd,
					.rt.test = &sw,
				};
				struct point_result fast, plain;
				if (run_fast_and_plain(s, &b, &pc, &sw.plain_scans, &fast, &plain))
					continue; /* the region error: nothing to compare */
				same_against(&fast.run, &plain.run, "fast scans", "plain loop", _i, hs[h].name,
					     pc.rt.runtime, ratios[r]);
				compared++;
			}
		}
	}
	ck_assert_int_gt(compared, 100);
	schedule_free(s);
}
END_TEST

/* A log of gen (shape, size n), its op times and sizes drawn from
 * {1, 2} (uniform:1:2 rounds to either), so that DTRLocal's costs fall in
 * four groups of equal (compute, size) whose costs tie across groups
 * (2 / (2 x st) = 1 / (1 x st)), read with its baseline. */
static struct schedule *gen_schedule(enum gen_shape shape, uint64_t n, bool two, uint64_t seed, struct baseline *b)
{
	struct gen_params p;
	struct rs_error err = {0};
	gen_params_default(&p, shape);
	static const char *const size_key[] = {[GEN_LINEAR] = "n", [GEN_RESIDUAL] = "blocks", [GEN_UNET] = "depth"};
	char v[32];
	snprintf(v, sizeof v, "%llu", (unsigned long long)n);
	ck_assert_msg(gen_params_set(&p, size_key[shape], v, &err) == 0, "%s", err.msg);
	if (two) {
		ck_assert_msg(gen_params_set(&p, "time-dist", "uniform:1:2", &err) == 0, "%s", err.msg);
		ck_assert_msg(gen_params_set(&p, "size-dist", "uniform:1:2", &err) == 0, "%s", err.msg);
	}
	p.seed = seed;
	struct read_options ro = {0};
	struct schedule *s = NULL;
	ck_assert_msg(gen_build(&p, "gen.log", &ro, &s, &err) == 0, "gen: %s", err.msg);
	baseline_run(s, b);
	return s;
}

/*
 * LRU's and DTRLocal's choices from the ordered pool (runtime-order.c)
 * against the vector scans (runtime_test_switches.no_order) and the plain loop:
 * on generated chains, residual chains and U-Nets, with equal keys and
 * with four groups of keys, and on random logs (views, copies, mutations,
 * multi-output ops: LRU keeps its one group there, DTRLocal's op times
 * differ and it drops the order), every runtime, several budgets, with and
 * without deallocation: the same numbers, the ordered runs in check mode
 * (its runs in order after every command), kept from the start
 * (order_at_once) and from when the scans have paid for it. The ordered
 * pool must have made choices on each heuristic.
 */
START_TEST(ordered_pool_agrees)
{
	static const double ratios[] = {0.05, 0.1, 0.2, 0.35, 0.5, 0.8};
	static const char *const names[] = {"LRU", "DTRLocal"};
	static const enum runtime_kind kinds[] = {RUNTIME_V1, RUNTIME_V2, RUNTIME_V2_EAGER,
						  RUNTIME_V2_EAGER_OPTIMIZED};
	struct baseline b;
	struct schedule *s;
	int shape = _i % 4;
	if (shape == 3)
		s = random_schedule(4242u + (uint64_t)_i, 60, 300, false, &b);
	else
		s = gen_schedule((enum gen_shape)shape, shape == GEN_LINEAR ? 40 + 37 * (uint64_t)_i : 2 + (uint64_t)_i % 5,
				 _i % 8 >= 4, (uint64_t)_i, &b);
	uint64_t ordered[2] = {0, 0}, ordered_auto[2] = {0, 0};
	for (size_t h = 0; h < 2; h++)
		for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
			for (size_t r = 0; r < sizeof ratios / sizeof ratios[0]; r++)
				for (int nd = 0; nd < 2; nd++) {
					struct runtime_test_switches sw = {0};
					struct point_config pc = {
						.rt.heuristic = heuristic_find(names[h]), .rt.runtime = kinds[k],
						.ratio = ratios[r], .overhead_limit = INFINITY, .rt.no_dealloc = nd,
						.rt.check = true,
						.rt.test = &sw,
					};
					struct point_result ord, aut, scan, plain;
					struct rs_error err;
					ck_assert_int_eq(point_run(s, &b, &pc, &aut, &err), 0);
					sw.order_at_once = true;
					ck_assert_int_eq(point_run(s, &b, &pc, &ord, &err), 0);
					sw.order_at_once = false;
					pc.rt.check = false;
					sw.no_order = true;
					ck_assert_int_eq(point_run(s, &b, &pc, &scan, &err), 0);
					sw.no_order = false;
					sw.plain_scans = true;
					ck_assert_int_eq(point_run(s, &b, &pc, &plain, &err), 0);
					same_against(&ord.run, &scan.run, "ordered pool", "scans", _i, names[h], kinds[k],
						     ratios[r]);
					same_against(&ord.run, &plain.run, "ordered pool", "plain loop", _i, names[h],
						     kinds[k], ratios[r]);
					same_against(&aut.run, &plain.run, "ordered pool once it pays", "plain loop",
						     _i, names[h], kinds[k], ratios[r]);
					ck_assert_uint_eq(scan.run.ordered_choices, 0);
					ck_assert_uint_eq(plain.run.ordered_choices, 0);
					ordered[h] += ord.run.ordered_choices;
					ordered_auto[h] += aut.run.ordered_choices;
				}
	ck_assert_msg(ordered[0] > 0, "log %d: LRU made no choice from the ordered pool", _i);
	/* the longer chains at the lowest budgets pay for it by themselves */
	if (shape == GEN_LINEAR && _i >= 8)
		ck_assert_msg(ordered_auto[0] > 0 && ordered_auto[1] > 0,
			      "log %d: the ordered pool never started by itself", _i);
	if (shape != 3)
		ck_assert_msg(ordered[1] > 0, "log %d: DTRLocal made no choice from the ordered pool", _i);
	schedule_free(s);
}
END_TEST

/*
 * The kept costs of the rows whose cost reads no clock (MSPS, AbE,
 * AbESize; struct rt_costs) against scoring every member at every choice
 * (runtime_test_switches.no_kept_costs) and the plain loop: on random logs (one
 * wild: views, multi-output ops, the region error) and generated
 * U-Nets and residual chains, both optimized runtimes, four budgets, with
 * and without deallocation, regions as bitsets, as runs and as runs
 * switched to bitsets midway (the kept costs carried across): the same
 * numbers, the kept run in check mode (every member's kept cost held to
 * its cost at every choice). Each row must have chosen from kept costs.
 */
START_TEST(kept_costs_agree)
{
	static const double ratios[] = {0.2, 0.4, 0.6, 0.8};
	static const char *const names[] = {"MSPS", "AbE", "AbESize"};
	static const enum runtime_kind kinds[] = {RUNTIME_V2_OPTIMIZED, RUNTIME_V2_EAGER_OPTIMIZED};
	struct baseline b;
	struct schedule *s;
	int shape = _i % 4;
	bool wild = _i == 3; /* (a wild log's points all stop at the region error) */
	if (shape >= 2)
		s = random_schedule(777u + (uint64_t)_i, 100, 300, wild, &b);
	else
		s = gen_schedule(shape ? GEN_UNET : GEN_RESIDUAL, 2 + (uint64_t)_i % 4, _i % 8 >= 4, (uint64_t)_i, &b);
	uint64_t kept[3] = {0, 0, 0};
	for (size_t h = 0; h < 3; h++)
		for (size_t k = 0; k < 2; k++)
			for (size_t r = 0; r < sizeof ratios / sizeof ratios[0]; r++)
				for (int way = 0; way < 3; way++) {
					struct runtime_test_switches sw = {.run_regions = way > 0, .bits_after_cmd = way == 2 ? s->n_cmds / 2 : 0};
					struct point_config pc = {
						.rt.heuristic = heuristic_find(names[h]), .rt.runtime = kinds[k],
						.ratio = ratios[r], .overhead_limit = 3, .rt.no_dealloc = r % 2,
						.rt.check = true,
						.rt.test = &sw,
					};
					struct point_result kc, scan, plain;
					struct rs_error err, err2, err3;
					int rk = point_run(s, &b, &pc, &kc, &err);
					pc.rt.check = false;
					sw.no_kept_costs = true;
					int rs = point_run(s, &b, &pc, &scan, &err2);
					sw.no_kept_costs = false;
					sw.plain_scans = true;
					int rp = point_run(s, &b, &pc, &plain, &err3);
					ck_assert_msg(rk == rp && rs == rp, "log %d, %s at %.1f: kept %d, scans %d, plain %d",
						      _i, names[h], ratios[r], rk, rs, rp);
					ck_assert_uint_eq(scan.run.kept_choices, 0);
					ck_assert_uint_eq(plain.run.kept_choices, 0);
					if (rk) { /* the region error, as the reference's */
						ck_assert_msg(wild, "log %d (tame), %s: %s", _i, names[h], err.msg);
						ck_assert_str_eq(err.msg, err3.msg);
						continue;
					}
					same_against(&kc.run, &scan.run, "kept costs", "scans", _i, names[h], kinds[k],
						     ratios[r]);
					same_against(&kc.run, &plain.run, "kept costs", "plain loop", _i, names[h], kinds[k],
						     ratios[r]);
					kept[h] += kc.run.kept_choices;
				}
	for (size_t h = 0; h < 3; h++)
		ck_assert_msg(kept[h] > 0 || wild, "log %d: %s made no choice from kept costs", _i, names[h]);
	schedule_free(s);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("differential");
	TCase *tc = tcase_create("differential");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, memo_equals_walk, 0, 60);
	tcase_add_loop_test(tc, large_runs_equal_walk, 0, 2);
	tcase_add_loop_test(tc, large_lists_equal_marks, 0, 2);
	tcase_add_loop_test(tc, unopt_one_pass_equals_rebuilds, 0, 12);
	tcase_add_loop_test(tc, all_heuristics_hold, 0, 30);
	tcase_add_loop_test(tc, same_range_replays_alike, 0, 8);
	tcase_add_loop_test(tc, wide_keys_agree, 0, 20);
	tcase_add_loop_test(tc, plain_scans_agree, 0, 12);
	tcase_add_loop_test(tc, ordered_pool_agrees, 0, 16);
	tcase_add_loop_test(tc, kept_costs_agree, 0, 16);
	suite_add_tcase(su, tc);
	return run_suite(su);
}
