/*
 * test-runtime.c: the runtimes on tiny hand-built logs whose every step is
 * worked out by hand in the comments: eviction, rematerialization, OOM,
 * thrash, pinning, banishing, eager release, tie-breaking, cost 0, the
 * seeded random choice, and the no-deallocation and preallocation
 * variants; and the replay-case table (tests/data/replay-cases.tsv), whose
 * rows each name the rule they guard. Every run is in check mode (the
 * table's also without).
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

/* Release each of the space-separated names. */
static void release_all(struct logb *b, const char *names)
{
	char buf[256], *save = NULL;
	snprintf(buf, sizeof buf, "%s", names);
	for (char *n = strtok_r(buf, " ", &save); n; n = strtok_r(NULL, " ", &save))
		logb_release(b, n);
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
 * logb_chain (test-common.h): w (10 bytes, pinned); a = f(w) 100 t1;
 * b = g(a) 100 t2; c = h(b) 100 t4; d = k(c) 100 t8; e = m(a, d) 100 t16;
 * then every name released.
 * Clock: 1, w 1, a 2, b 4, c 8. Pool [a, c, b] after c (b rejoins last).
 * d: c locked; 410 > 310: LRU a (last access 2) vs b (4): evict a (2 evals).
 * d at clock 16. e: d locked; a rematerialized: b (4) vs c (8): evict b
 * (2 evals); a at 17; then c is the only unlocked one: evicted (1 eval);
 * e at 33. 5 evals, 3 evictions, remat 1, model 31.
 */
START_TEST(evict_and_remat)
{
	struct schedule *s = logb_chain();
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
	struct schedule *s = logb_chain();
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

/* The offline Belady heuristic on the same chain at 310 bytes, by hand:
 * computing d (w a b c in memory, 310) it evicts b, which nothing reads
 * again (cost 0), not a, which e reads next; computing e it evicts c
 * (unused again). No rematerialization, where LRU (above) recomputes a. */
START_TEST(belady_by_hand)
{
	struct schedule *s = logb_chain();
	struct evlog ev = {0};
	for (int rk = 0; rk < RUNTIME_KIND_COUNT; rk++) {
		memset(&ev, 0, sizeof ev);
		struct runtime_result r = run(s, (enum runtime_kind)rk, "Belady", 310, INFINITY, &ev);
		ck_assert_int_eq(r.outcome, OUTCOME_PASS);
		ck_assert_int_eq(r.remat_compute, 0);
		ck_assert_uint_eq(r.remats, 0);
		ck_assert_uint_le(r.peak_memory, 310);
		if (rk != RUNTIME_V2)
			continue; /* the others also evict eagerly or banish */
		ck_assert_int_eq(ev.n_evicted, 2);
		ck_assert_uint_eq(ev.evicted[0], 2); /* b */
		ck_assert_uint_eq(ev.evicted[1], 3); /* c */
	}
	schedule_free(s);
}
END_TEST

START_TEST(oom)
{
	/* b needs 100 more with a locked and w pinned: nothing to evict. */
	struct schedule *s = logb_chain();
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
	struct schedule *s = logb_chain();
	struct runtime_result r = run(s, RUNTIME_V2, "LRU", 310, 0, NULL);
	ck_assert_int_eq(r.outcome, OUTCOME_THRASH);
	ck_assert_int_eq(r.clock, 17);
	ck_assert_int_eq(r.remat_compute, 1);

	struct baseline b;
	baseline_run(s, &b);
	struct point_config pc = {
		.rt.heuristic = heuristic_find("LRU"), .rt.runtime = RUNTIME_V2, .budget = 310,
		.overhead_limit = 1, .rt.check = true,
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
	struct schedule *s = logb_chain();
	struct baseline b;
	baseline_run(s, &b);
	struct point_config pc = {
		.rt.heuristic = heuristic_find("LRU"), .rt.runtime = RUNTIME_V2,
		.ratio = 0.7, .overhead_limit = 2, .rt.check = true,
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
	logb_const(&b, "w", 10);
	logb_call(&b, "a", "\"w\"", 100, 1);
	logb_release(&b, "a");
	logb_call(&b, "b", "\"w\"", 100, 2);
	return logb_build(&b);
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
	logb_const(&lb, "w", 10);
	logb_call(&lb, "a", "\"w\"", 100, 1);
	logb_call(&lb, "b", "\"a\"", 100, 2);
	logb_release(&lb, "a");
	logb_call(&lb, "c", "\"w\"", 100, 4);
	logb_call(&lb, "d", "\"w\"", 100, 8);
	const char *names[] = {"b", "c", "d", "w"};
	for (int i = 0; i < 4; i++)
		logb_release(&lb, names[i]); /* no final pins */
	struct schedule *s = logb_build(&lb);
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
	logb_const(&lb, "w", 100);
	logb_call(&lb, "a", "\"w\"", 100, 1);
	struct schedule *s = logb_build(&lb);
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
	logb_const(&lb, "w", 10);
	logb_call(&lb, "a", "\"w\"", 100, 1);
	logb_call(&lb, "b", "\"w\"", 100, 1);
	logb_call(&lb, "c", "\"w\"", 100, 1);
	release_all(&lb, "w a b c"); /* no final pins */
	struct schedule *s = logb_build(&lb);
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
	logb_const(&lb, "w", 10);
	logb_call(&lb, "a", "\"w\"", 100, 0);
	logb_call(&lb, "b", "\"w\"", 100, 5);
	logb_call(&lb, "c", "\"w\"", 100, 5);
	release_all(&lb, "w a b c");
	struct schedule *s = logb_build(&lb);
	struct evlog ev = {0};
	struct runtime_result r = run(s, RUNTIME_V2, "AbLocal", 210, INFINITY, &ev);
	ck_assert_int_eq(r.outcome, OUTCOME_PASS);
	ck_assert_uint_eq(r.heuristic_evals, 1);
	ck_assert_uint_eq(ev.evicted[0], 1);
	schedule_free(s);
}
END_TEST

/*
 * RandomStorage draws from the seeded splitmix64 (docs/semantics.md,
 * Random heuristics), pinned on a hand-built log: w (10 bytes, a constant:
 * pinned); a..f = op(w), 100 bytes each, times 1, 2, 4, ..., 32; g =
 * op(a, b, c), 64; everything released; V2 (no eager eviction), budget
 * 410. Each eviction takes the member at a uniform index below the pool's
 * length: 4 for e's and f's, then 2 and 1 for g's (its locked arguments
 * aside). splitmix64's first outputs modulo those, computed apart
 * (Python): seed 42 gives 1, 3, 0, 0; seed 7 gives 3, 0, 0, 0. So seed 42
 * evicts b of [a, b, c, d], e of [a, c, d, e], d of [d, f] while b comes
 * back, then f: storages 2, 5, 4, 6, clock 1 + 63 + 2 + 64 = 130; seed 7
 * evicts d, a of [a, b, c, e], e of [e, f] while a comes back, then f:
 * 4, 1, 5, 6, clock 129. Each seed twice gives the same run: a change to
 * the draw (its generator, the modulo, the seeding, which member an index
 * names) fails here.
 */
START_TEST(random_is_seeded)
{
	static const struct {
		uint64_t seed;
		int64_t clock;
		int n;
		uint32_t evicted[4];
	} want[] = {
		{42, 130, 4, {2, 5, 4, 6}},
		{7, 129, 4, {4, 1, 5, 6}},
	};
	struct logb lb = {0};
	logb_const(&lb, "w", 10);
	logb_call(&lb, "a", "\"w\"", 100, 1);
	logb_call(&lb, "b", "\"w\"", 100, 2);
	logb_call(&lb, "c", "\"w\"", 100, 4);
	logb_call(&lb, "d", "\"w\"", 100, 8);
	logb_call(&lb, "e", "\"w\"", 100, 16);
	logb_call(&lb, "f", "\"w\"", 100, 32);
	logb_call(&lb, "g", "\"a\",\"b\",\"c\"", 100, 64);
	release_all(&lb, "w a b c d e f g");
	struct schedule *s = logb_build(&lb);
	for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
		for (int again = 0; again < 2; again++) {
			struct evlog ev = {0};
			struct runtime_config cfg = {
				.runtime = RUNTIME_V2, .heuristic = heuristic_find("RandomStorage"),
				.budget = 410, .remat_limit = INFINITY, .seed = want[k].seed, .check = true,
				.on_event = on_event, .ctx = &ev,
			};
			struct runtime_result r;
			struct rs_error err;
			ck_assert_int_eq(runtime_run(s, &cfg, &r, &err), 0);
			ck_assert_int_eq(r.outcome, OUTCOME_PASS);
			ck_assert_int_eq(r.clock, want[k].clock);
			ck_assert_uint_eq(r.heuristic_evals, 4); /* one per choice */
			ck_assert_int_eq(ev.n_evicted, want[k].n);
			for (int i = 0; i < ev.n_evicted; i++)
				ck_assert_msg(ev.evicted[i] == want[k].evicted[i], "seed %llu: eviction %d is %u, want %u",
					      (unsigned long long)want[k].seed, i, ev.evicted[i], want[k].evicted[i]);
		}
	}
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
	logb_const(&lb, "w", 10);
	logb_call(&lb, "a", "\"w\"", 100, 1);
	logb_call(&lb, "b", "\"w\"", 100, 2);
	struct schedule *s = logb_build(&lb);
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

/*
 * The replay-case table (tests/data/replay-cases.tsv, one driver for its
 * rows): each row a small log, a heuristic, runtime and budget, the numbers
 * its replay must give and the rule it guards, which a failure names. Each
 * row is replayed in check mode on every region representation (bitsets
 * with the memo, plain lists, runs) and by the plain scoring loop; all must
 * give the row's numbers.
 */
enum { CASE_FIELDS = 12 };

/* Appends to fails what of row f the replay r (by way how) does not give. */
static void case_check(char *fails, size_t cap, int line, const char *how, const char *const *f,
		       const struct runtime_result *r)
{
	static const char *const names[] = {"evictions", "remats", "remat_compute", "peak", "evals", "accesses"};
	const uint64_t got[] = {r->evictions, r->remats, (uint64_t)r->remat_compute, r->peak_memory,
				r->heuristic_evals, r->heuristic_accesses};
	char diff[512] = "";
	size_t len = 0;
	if (strcmp(outcome_name(r->outcome), f[5]))
		len += (size_t)snprintf(diff + len, sizeof diff - len, " outcome %s (want %s)",
					outcome_name(r->outcome), f[5]);
	for (int k = 0; k < 6 && len < sizeof diff; k++) {
		unsigned long long want = strtoull(f[6 + k], NULL, 10);
		if (got[k] != want)
			len += (size_t)snprintf(diff + len, sizeof diff - len, " %s %llu (want %llu)", names[k],
						(unsigned long long)got[k], want);
	}
	if (len) {
		size_t at = strlen(fails);
		snprintf(fails + at, cap - at, "\nreplay-cases.tsv line %d, %s: breaks the rule \"%s\":%s", line, how,
			 f[0], diff);
	}
}

/* Replays every row of the table, each on every region representation
 * and by the plain loop, in check mode or not; appends to fails what each
 * replay does not give. */
static void replay_table(bool check, char *fails, size_t cap)
{
	FILE *f = open_test_data("replay-cases.tsv");
	char buf[1024];
	int line = 0, rows = 0;
	while (fgets(buf, sizeof buf, f)) {
		line++;
		buf[strcspn(buf, "\n")] = 0;
		if (buf[0] == '#' || !buf[0])
			continue;
		const char *fld[CASE_FIELDS];
		int n = 0;
		for (char *p = buf, *tab; n < CASE_FIELDS; p = tab + 1) {
			fld[n++] = p;
			if (!(tab = strchr(p, '\t')))
				break;
			*tab = 0;
		}
		ck_assert_msg(n == CASE_FIELDS, "replay-cases.tsv line %d: %d fields, want %d", line, n,
			      CASE_FIELDS);
		char path[4096];
		snprintf(path, sizeof path, "%s/tests/data/%s", getenv("REMATSIM_SOURCE"), fld[1]);
		struct read_options opt = {0};
		struct schedule *s;
		struct rs_error err;
		ck_assert_msg(schedule_read(path, &opt, &s, &err) == 0, "%s: %s", path, err.msg);
		struct runtime_config cfg = {
			.heuristic = heuristic_find(fld[2]),
			.budget = strtoull(fld[4], NULL, 10),
			.remat_limit = INFINITY,
			.check = check,
		};
		ck_assert_msg(cfg.heuristic, "replay-cases.tsv line %d: no heuristic %s", line, fld[2]);
		ck_assert_msg(runtime_kind_parse(fld[3], &cfg.runtime) == 0, "replay-cases.tsv line %d: no runtime %s",
			      line, fld[3]);
		static const char *const how[] = {"as it comes", "plain regions", "runs regions", "plain scans"};
		for (int k = 0; k < 4; k++) {
			struct runtime_test_switches sw = {
				.plain_regions = k == 1, .run_regions = k == 2, .plain_scans = k == 3,
			};
			cfg.test = &sw;
			struct runtime_result r;
			if (runtime_run(s, &cfg, &r, &err)) {
				size_t at = strlen(fails);
				snprintf(fails + at, cap - at,
					 "\nreplay-cases.tsv line %d, %s: breaks the rule \"%s\": no replay (%s)", line,
					 how[k], fld[0], err.msg);
				continue;
			}
			case_check(fails, cap, line, how[k], fld, &r);
		}
		schedule_free(s);
		rows++;
	}
	fclose(f);
	ck_assert_int_ge(rows, 7);
}

START_TEST(replay_cases)
{
	static char fails[16384];
	/* first without check mode, so that a broken rule shows in the
	 * numbers and its row is named; then in check mode, which stops at
	 * the first broken invariant (internal error, status 70) */
	fails[0] = 0;
	replay_table(false, fails, sizeof fails);
	ck_assert_msg(!fails[0], "%s", fails);
	replay_table(true, fails, sizeof fails);
	ck_assert_msg(!fails[0], "%s (in check mode)", fails);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("runtime");
	TCase *tc = tcase_create("runtime");
	tcase_add_test(tc, evict_and_remat);
	tcase_add_test(tc, baseline);
	tcase_add_test(tc, oom);
	tcase_add_test(tc, belady_by_hand);
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
	tcase_add_test(tc, replay_cases);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
