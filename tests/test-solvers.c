/*
 * test-solvers.c: the static planners. The reset-point DP: the exact mode
 * gives the tracker's value and split points on the 26 reference cases of
 * ../shared/reference/reset_points.json (`test-solvers reference`, with the
 * profiles and plans of the DTR paper's logs; skipped without ../shared) and the split points of the tracker's own O(k n^2)
 * recursion on random inputs; the fast mode the same value; split points
 * valid; more splits never a larger value. The profile and plan replay on
 * the test logs and the shipped ones: totals, no-split replays equal to
 * unbounded ones, invariants under --check.
 */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "plan.h"
#include "modules.h"
#include "planners.h"
#include "profile.h"
#include "reset_points.h"
#include "runtime.h"
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

/* planner_max_chunk, the largest chunk sum of a plan, on worked answers:
 * a = 10 8 8 9 7 7 5 4 4 (62 in all); a split at i starts a chunk at a[i].
 * The random tests below check every plan's value with it. */
START_TEST(max_chunk_worked_answers)
{
	const uint64_t a[] = {10, 8, 8, 9, 7, 7, 5, 4, 4};
	static const struct {
		size_t n_splits, splits[9];
		uint64_t want;
	} rows[] = {
		{0, {0}, 62},                          /* one chunk: the sum */
		{2, {2, 5}, 24},                       /* 10+8 | 8+9+7 | 7+5+4+4 = 18, 24, 20 */
		{2, {3, 6}, 26},                       /* 10+8+8 | 9+7+7 | 5+4+4 = 26, 23, 13 */
		{1, {4}, 35},                          /* 10+8+8+9 | 7+7+5+4+4 = 35, 27 */
		{1, {8}, 58},                          /* all but the last 4 | 4 */
		{1, {1}, 52},                          /* 10 | the other 52 */
		{3, {2, 4, 6}, 18},                    /* 18, 17, 14, 13 */
		{9, {1, 2, 3, 4, 5, 6, 7, 8, 9}, 10},  /* each alone; a split at n is empty */
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		ck_assert_msg(planner_max_chunk(a, 9, rows[i].splits, rows[i].n_splits) == rows[i].want,
			      "row %zu: %llu, want %llu", i,
			      (unsigned long long)planner_max_chunk(a, 9, rows[i].splits, rows[i].n_splits),
			      (unsigned long long)rows[i].want);
	/* nothing to split: 0; zeros: 0 */
	ck_assert_uint_eq(planner_max_chunk(a, 0, NULL, 0), 0);
	const uint64_t z[] = {0, 0, 0};
	ck_assert_uint_eq(planner_max_chunk(z, 3, (size_t[]){1}, 1), 0);
	/* the fast mode's plan at k = 3 on a, worked out: 18 (its own value) */
	struct reset_plan f;
	reset_points_fast(a, 9, 3, &f);
	ck_assert_uint_eq(f.max_chunk, 18);
	ck_assert_uint_eq(planner_max_chunk(a, 9, f.splits, f.n_splits), 18);
	reset_plan_free(&f);
}
END_TEST

/* Split points ascending, in 1..n, at most k. */
static void assert_valid(const struct reset_plan *p, size_t n, size_t k)
{
	ck_assert_uint_le(p->n_splits, k);
	for (size_t i = 0; i < p->n_splits; i++) {
		ck_assert_uint_ge(p->splits[i], 1);
		ck_assert_uint_le(p->splits[i], n);
		if (i)
			ck_assert_uint_gt(p->splits[i], p->splits[i - 1]);
	}
}

static uint64_t lcg(uint64_t *x)
{
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	return *x >> 33;
}

/* Thousands of seeded inputs: small values (many ties), large ones, zeros. */
START_TEST(fast_matches_exact_on_random_inputs)
{
	uint64_t x = 12345;
	for (int round = 0; round < 5000; round++) {
		size_t n = lcg(&x) % 48;
		size_t k = lcg(&x) % 12;
		uint64_t a[48];
		uint64_t range = round % 3 == 0 ? 5 : round % 3 == 1 ? 1000 : (UINT64_C(1) << 40);
		for (size_t i = 0; i < n; i++)
			a[i] = (lcg(&x) << 20 ^ lcg(&x)) % range;
		struct reset_plan p, f, r;
		ck_assert_int_eq(reset_points_exact(a, n, k, &p, NULL), 0);
		reset_points_fast(a, n, k, &f);
		reset_points_exact_naive(a, n, k, &r);
		ck_assert_uint_eq(p.max_chunk, r.max_chunk);
		ck_assert_uint_eq(p.max_chunk, f.max_chunk);
		/* the very split points of the tracker's recursion */
		ck_assert_uint_eq(p.n_splits, r.n_splits);
		for (size_t i = 0; i < p.n_splits; i++)
			ck_assert_uint_eq(p.splits[i], r.splits[i]);
		assert_valid(&p, n, k);
		assert_valid(&f, n, k);
		/* chunk sums consistent with the value */
		ck_assert_uint_eq(planner_max_chunk(a, n, f.splits, f.n_splits), f.max_chunk);
		ck_assert_uint_eq(planner_max_chunk(a, n, p.splits, p.n_splits), p.max_chunk);
		reset_plan_free(&p);
		reset_plan_free(&f);
		reset_plan_free(&r);
	}
}
END_TEST

/* More checkpoints never raise the DP's value. */
START_TEST(more_splits_never_worse)
{
	uint64_t x = 777;
	for (int round = 0; round < 300; round++) {
		size_t n = 1 + lcg(&x) % 200;
		uint64_t *a = xcalloc(n, sizeof *a);
		for (size_t i = 0; i < n; i++)
			a[i] = lcg(&x) % (round % 2 ? 7 : 100000);
		uint64_t prev = UINT64_MAX;
		for (size_t k = 0; k <= n + 1; k++) {
			struct reset_plan p;
			reset_points_fast(a, n, k, &p);
			ck_assert_uint_le(p.max_chunk, prev);
			prev = p.max_chunk;
			reset_plan_free(&p);
		}
		free(a);
	}
}
END_TEST

/* Big inputs the tracker's recursion could not do: exact == fast. */
START_TEST(exact_on_large_inputs)
{
	uint64_t x = 99;
	size_t n = 20000;
	uint64_t *a = xcalloc(n, sizeof *a);
	for (size_t i = 0; i < n; i++)
		a[i] = lcg(&x) % 1000000;
	struct reset_plan p, f;
	ck_assert_int_eq(reset_points_exact(a, n, 30, &p, NULL), 0);
	reset_points_fast(a, n, 30, &f);
	ck_assert_uint_eq(p.max_chunk, f.max_chunk);
	assert_valid(&p, n, 30);
	ck_assert_uint_eq(planner_max_chunk(a, n, p.splits, p.n_splits), p.max_chunk);
	reset_plan_free(&p);
	reset_plan_free(&f);
	/* k far beyond n: every item alone, no giant table */
	ck_assert_int_eq(reset_points_exact(a, 100, SIZE_MAX / 2, &p, NULL), 0);
	ck_assert_uint_eq(p.n_splits, 100);
	reset_plan_free(&p);
	/* a table over the limit is refused, not allocated */
	struct rs_error err = {0};
	ck_assert_int_eq(reset_points_exact(a, n, 20000, &p, &err), -1);
	ck_assert_int_eq(err.status, EXIT_USAGE);
	free(a);
}
END_TEST

/* A planner on a bare list of sizes (the split planners need no log). */
static int plan_sizes(const char *name, const uint64_t *a, size_t n, uint64_t param, bool exact,
		      struct reset_plan *out)
{
	struct profile p;
	profile_from_sizes(a, n, &p);
	struct planner_plan plan;
	struct planner_args args = {.param = param, .exact = exact};
	int rc = planner_plan(planner_find(name), &p, &args, &plan, NULL);
	profile_free(&p);
	if (!rc) {
		ck_assert_int_eq(plan.kind, PLAN_SPLITS);
		*out = plan.split;
		memset(&plan.split, 0, sizeof plan.split);
		planner_plan_free(&plan);
	}
	return rc;
}

/* The planners on a hand profile. */
START_TEST(planners_by_hand)
{
	const uint64_t a[] = {100, 200, 300, 400};
	struct reset_plan p;
	const struct planner *pl = planner_find("sqrtn");
	ck_assert_ptr_nonnull(pl);
	ck_assert_int_eq(plan_sizes("sqrtn", a, 4, 0, false, &p), 0);
	ck_assert_uint_eq(p.n_splits, 1);
	ck_assert_uint_eq(p.splits[0], 2);
	ck_assert_uint_eq(p.max_chunk, 700);
	reset_plan_free(&p);
	pl = planner_find("greedy");
	ck_assert_int_eq(plan_sizes("greedy", a, 4, 250, false, &p), 0);
	ck_assert_uint_eq(p.n_splits, 2); /* passes 250 at 300 and at 300 */
	ck_assert_uint_eq(p.splits[0], 2);
	ck_assert_uint_eq(p.splits[1], 3);
	reset_plan_free(&p);
	/* A running sum equal to the segment budget does not pass it: no
	 * split there (100 + 200 = 300 is not past 300; 600 is, after op 2;
	 * none after the last op): one split, at 3 (">=" would give 2, 3). */
	ck_assert_int_eq(plan_sizes("greedy", a, 4, 300, false, &p), 0);
	ck_assert_uint_eq(p.n_splits, 1);
	ck_assert_uint_eq(p.splits[0], 3);
	ck_assert_uint_eq(p.max_chunk, 600);
	reset_plan_free(&p);
	struct rs_error err = {0};
	ck_assert_int_eq(planner_check_param(pl, a, 4, 399, &err), -1);
	ck_assert_int_eq(planner_check_param(pl, a, 4, 400, &err), 0);
	pl = planner_find("DP"); /* case-insensitive */
	ck_assert_ptr_nonnull(pl);
	ck_assert_int_eq(plan_sizes("dp", a, 4, 1, true, &p), 0);
	ck_assert_uint_eq(p.max_chunk, 600);
	ck_assert_uint_eq(p.splits[0], 3);
	reset_plan_free(&p);
	ck_assert_int_eq(plan_sizes("none", a, 4, 0, false, &p), 0);
	ck_assert_uint_eq(p.n_splits, 0);
	ck_assert_uint_eq(p.max_chunk, 1000);
	reset_plan_free(&p);
	ck_assert_ptr_null(planner_find("dtr"));
	/* sqrt on perfect squares and around them */
	uint64_t ones[101];
	for (size_t i = 0; i < 101; i++)
		ones[i] = 1;
	size_t ns[] = {1, 3, 4, 99, 100, 101};
	size_t want_step[] = {1, 1, 2, 9, 10, 10};
	for (size_t c = 0; c < 6; c++) {
		ck_assert_int_eq(plan_sizes("sqrtn", ones, ns[c], 0, false, &p), 0);
		if (p.n_splits)
			ck_assert_uint_eq(p.splits[0], want_step[c]);
		ck_assert_uint_eq(p.n_splits, (ns[c] - 1) / want_step[c]);
		reset_plan_free(&p);
	}
	/* a planner of every op wants a log, not a list of sizes */
	struct profile bare;
	profile_from_sizes(a, 4, &bare);
	struct planner_plan plan;
	struct planner_args args = {.param = 1000};
	ck_assert_int_eq(planner_plan(planner_find("ilp"), &bare, &args, &plan, &err), -1);
	ck_assert_int_eq(err.status, EXIT_USAGE);
	profile_free(&bare);
}
END_TEST

/* ---------------------------------------------------------------- logs */

static const char *const data_logs[] = {"solvers-chain.log", "tiny.log", "chain8.log",
					 "chain12.log", "chain16.log", "region-drift.log"};
static const char *const shipped_logs[] = {
	"cnn-cpu.log.gz", "cnn-cuda-h200.log.gz", "lstm-cpu.log.gz", "lstm-cuda-h200.log.gz",
	"mlp-cpu.log.gz", "mlp-cuda-h200.log.gz", "transformer-cpu.log.gz",
	"transformer-cuda-h200.log.gz"};

static struct schedule *load(const char *folder, const char *name)
{
	const char *src = getenv("REMATSIM_SOURCE");
	char path[4096];
	snprintf(path, sizeof path, "%s/%s/%s", src ? src : "..", folder, name);
	struct read_options ro = {0};
	struct schedule *s = NULL;
	struct rs_error err = {0};
	ck_assert_msg(schedule_read(path, &ro, &s, &err) == 0, "%s: %s", path, err.msg);
	return s;
}

/* The runtime's memory just before the first backward op computes, in an
 * unbounded eager replay (its first backward EV_COMPUTE, less that op's
 * new outputs). */
struct first_bwd {
	const struct schedule *s;
	bool seen;
	uint64_t memory;
};

static void on_first_bwd(void *ctx, const struct runtime_event *ev)
{
	struct first_bwd *fb = ctx;
	if (fb->seen || ev->kind != EV_COMPUTE || !fb->s->ops[ev->op].backward)
		return;
	fb->seen = true;
	fb->memory = ev->memory - fb->s->ops[ev->op].total_size;
}

/* Each log's profile: per-op bytes sum to the total; and, against the
 * runtime's own accounting, the memory when the backward pass starts is
 * the profile's total plus the constants still held then (by a handle, or
 * pinned: the paper's logs pin constants, which then outlive their
 * handles). */
static void check_profile(struct schedule *s)
{
	struct profile p;
	struct rs_error err = {0};
	if (profile_build(s, &p, &err)) {
		ck_assert_int_eq(err.status, EXIT_DATAERR);
		ck_assert_uint_eq(s->n_forward_ops, 0);
		return;
	}
	ck_assert_uint_eq(p.n, s->n_forward_ops);
	uint64_t sum = 0;
	for (size_t i = 0; i < p.n; i++) {
		sum += p.bytes[i];
		ck_assert(!s->ops[p.op[i]].constant && !s->ops[p.op[i]].backward);
		if (i)
			ck_assert_uint_gt(p.op[i], p.op[i - 1]);
	}
	ck_assert_uint_eq(sum, p.total);
	struct baseline b;
	baseline_run(s, &b);
	ck_assert_uint_le(p.total, b.memory);
	struct first_bwd fb = {.s = s};
	struct runtime_config cfg = {
		.runtime = RUNTIME_V2_EAGER, .budget = UINT64_MAX / 2, .remat_limit = INFINITY,
		.on_event = on_first_bwd, .ctx = &fb,
	};
	struct runtime_result res;
	ck_assert_int_eq(runtime_run(s, &cfg, &res, NULL), 0);
	if (fb.seen) {
		/* constants held when the first backward op runs */
		uint32_t *refs = xcalloc(s->n_storages + 1, sizeof *refs);
		size_t i = 0;
		for (; i < s->n_cmds; i++) {
			const struct sched_cmd *c = &s->cmds[i];
			if (c->kind == CMD_COMPUTE && s->ops[c->id].backward)
				break;
			if (c->kind == CMD_COMPUTE) {
				const struct sched_op *op = &s->ops[c->id];
				for (uint32_t k = 0; k < op->n_outs; k++)
					refs[s->tensor_storage[op->outs + k]]++;
			} else if (c->kind == CMD_GET) {
				refs[s->tensor_storage[c->id]]++;
			} else if (c->kind == CMD_RELEASE) {
				refs[s->tensor_storage[c->id]]--;
			} else if (c->kind == CMD_PIN) {
				refs[s->tensor_storage[c->id]] = UINT32_MAX / 2; /* kept for good */
			}
		}
		uint64_t consts = 0;
		for (size_t st = 0; st < s->n_storages; st++)
			if (refs[st] && s->ops[s->tensors[schedule_storage_root(s, st)].op].constant)
				consts += s->storages[st].size;
		free(refs);
		ck_assert_msg(fb.memory == p.total + consts, "%s: memory %llu, profile %llu + constants %llu",
			      s->source, (unsigned long long)fb.memory, (unsigned long long)p.total,
			      (unsigned long long)consts);
	}
	profile_free(&p);
}

START_TEST(profile_of_logs)
{
	struct schedule *s = load("tests/data", "solvers-chain.log");
	struct profile p;
	ck_assert_int_eq(profile_build(s, &p, NULL), 0);
	ck_assert_uint_eq(p.n, 4);
	const uint64_t want[] = {100, 200, 300, 400};
	for (size_t i = 0; i < 4; i++)
		ck_assert_uint_eq(p.bytes[i], want[i]);
	ck_assert_uint_eq(p.total, 1000);
	profile_free(&p);
	schedule_free(s);
	for (size_t i = 0; i < sizeof data_logs / sizeof *data_logs; i++) {
		s = load("tests/data", data_logs[i]);
		check_profile(s);
		schedule_free(s);
	}
	for (size_t i = 0; i < sizeof shipped_logs / sizeof *shipped_logs; i++) {
		s = load("logs", shipped_logs[i]);
		check_profile(s);
		schedule_free(s);
	}
}
END_TEST

/* A plan with no split points is an unbounded eager replay: the same peak
 * and clock, no rematerialization; plans at many k keep the runtime's
 * invariants (check mode) and pass. */
static void check_plans(struct schedule *s)
{
	struct baseline b;
	baseline_run(s, &b);
	struct runtime_config cfg = {
		.runtime = RUNTIME_V2_EAGER, .budget = UINT64_MAX / 2, .remat_limit = INFINITY,
	};
	struct runtime_result un;
	ck_assert_int_eq(runtime_run(s, &cfg, &un, NULL), 0);
	struct plan_result r;
	ck_assert_int_eq(plan_replay(s, &b, NULL, 0, true, &r, NULL), 0);
	ck_assert_uint_eq(r.run.peak_memory, un.peak_memory);
	ck_assert_int_eq(r.run.clock, un.clock);
	ck_assert_uint_eq(r.run.remats, 0);
	ck_assert_int_eq(r.run.remat_compute, 0);
	ck_assert_int_eq(r.run.outcome, OUTCOME_PASS);
	struct profile p;
	if (profile_build(s, &p, NULL))
		return;
	const struct planner *dp = planner_find("dp");
	for (uint64_t k = 0; k <= 64; k = k ? 2 * k : 1) {
		for (int exact = 0; exact < 2; exact++) {
			struct planner_plan plan;
			struct planner_args args = {.param = k, .exact = exact};
			ck_assert_int_eq(planner_replay(dp, s, &b, &p, &args, true, &plan, &r, NULL), 0);
			ck_assert_int_eq(r.run.outcome, OUTCOME_PASS);
			ck_assert_int_eq(r.run.model_compute, b.compute);
			/* the plan only ever adds compute */
			ck_assert_int_ge(r.run.clock, un.clock);
			planner_plan_free(&plan);
		}
	}
	profile_free(&p);
	/* bad split points */
	size_t bad[] = {3, 2};
	struct rs_error err = {0};
	ck_assert_int_eq(plan_replay(s, &b, bad, 2, false, &r, &err), -1);
	ck_assert_int_eq(err.status, EXIT_USAGE);
	size_t past = s->n_forward_ops + 1;
	ck_assert_int_eq(plan_replay(s, &b, &past, 1, false, &r, &err), -1);
}

START_TEST(plan_replay_of_logs)
{
	for (size_t i = 0; i < sizeof data_logs / sizeof *data_logs; i++) {
		struct schedule *s = load("tests/data", data_logs[i]);
		check_plans(s);
		schedule_free(s);
	}
	for (size_t i = 0; i < sizeof shipped_logs / sizeof *shipped_logs; i++) {
		struct schedule *s = load("logs", shipped_logs[i]);
		check_plans(s);
		schedule_free(s);
	}
}
END_TEST

/* Known answers of a plan's replay on the hand-made chain (the numbers of
 * cli-solvers.sh's header): dp k=1 splits at forward op 3, so f0..f2 are
 * checkpointed: a0 goes after f1 reads it, a1 after f2; a2 (read by f3, in
 * the next segment) is the checkpoint. f2_backward rematerializes f0 then
 * f1 (their handles still hold them: kept until released); memory peaks
 * there at x0 10 + a2 300 + g2 300 + a0 100 + a1 200 + g1 200 = 1110. */
struct trace {
	uint32_t evicted[32], evicted_at[32], remat_op[8], remat_at[8];
	size_t n_evicted, n_remat;
};

static void on_trace(void *ctx, const struct runtime_event *ev)
{
	struct trace *tr = ctx;
	if (ev->kind == EV_EVICT && tr->n_evicted < 32) {
		tr->evicted[tr->n_evicted] = ev->storage;
		tr->evicted_at[tr->n_evicted++] = (uint32_t)ev->cmd;
	} else if (ev->kind == EV_REMAT && tr->n_remat < 8) {
		tr->remat_op[tr->n_remat] = ev->op;
		tr->remat_at[tr->n_remat++] = (uint32_t)ev->cmd;
	}
}

START_TEST(plan_replay_known_answers)
{
	struct schedule *s = load("tests/data", "solvers-chain.log");
	struct baseline b;
	baseline_run(s, &b);
	/* storages: 0 x0, 1 a0, 2 a1, 3 a2, 4 a3, 5 g2, 6 g1, 7 g0; commands:
	 * 2-5 f0..f3, 6 f3_backward, 7 release a3, 8 f2_backward, 9 release
	 * g2, 10 release a2, 11 f1_backward, 12-14 release g1, a1, a0 */
	ck_assert_int_eq(s->cmds[8].kind, CMD_COMPUTE);
	ck_assert_str_eq(schedule_str(s, s->ops[s->cmds[8].id].name), "f2_backward");
	size_t split = 3;
	struct trace tr = {0};
	struct plan_result r;
	ck_assert_int_eq(plan_replay_observed(s, &b, &split, 1, true, on_trace, &tr, &r, NULL), 0);
	const uint32_t want[][2] = {{1, 3}, {2, 4}, {4, 7}, {5, 9}, {3, 10}, {6, 12}, {2, 13}, {1, 14}};
	ck_assert_uint_eq(tr.n_evicted, 8);
	for (size_t i = 0; i < 8; i++) {
		ck_assert_msg(tr.evicted[i] == want[i][0] && tr.evicted_at[i] == want[i][1],
			      "eviction %zu: storage %u at command %u, want %u at %u", i,
			      tr.evicted[i], tr.evicted_at[i], want[i][0], want[i][1]);
	}
	ck_assert_uint_eq(tr.n_remat, 2);
	ck_assert_uint_eq(tr.remat_op[0], 1); /* f0, then f1, both within f2_backward */
	ck_assert_uint_eq(tr.remat_op[1], 2);
	ck_assert_uint_eq(tr.remat_at[0], 8);
	ck_assert_uint_eq(tr.remat_at[1], 8);
	ck_assert_uint_eq(r.run.peak_memory, 1110);
	ck_assert_int_eq(r.run.remat_compute, 300);
	ck_assert_int_eq(r.run.clock, 1 + 1900 + 300);
	ck_assert_int_eq(r.runtime, RUNTIME_V2_EAGER);
	schedule_free(s);
}
END_TEST

/* solvers/modules.c on tests/data/modules.log (make-logs.py): the calls,
 * why some cannot be wrapped, the boundaries and units, how plans are
 * tiled with wraps, and the replay of a plan as applied, traced by hand. */
START_TEST(modules_of_a_log)
{
	struct schedule *s = load("tests/data", "modules.log");
	struct profile p;
	struct module_calls m;
	struct rs_error err = {0};
	ck_assert_int_eq(profile_build(s, &p, NULL), 0);
	ck_assert_uint_eq(p.n, 9); /* stem, lin, act_, lin, side, lin, act, act, loss */
	ck_assert_int_eq(modules_build(s, &p, &m, &err), 0);
	static const struct {
		const char *name;
		uint32_t depth;
		int32_t parent;
		size_t first, end;
		uint64_t bytes;
		enum module_veto veto;
	} want[] = {
		{"seq", 0, -1, 1, 6, 2500, MODULE_OK},
		{"seq.0", 1, 0, 1, 2, 2000, MODULE_OK},
		{"seq.1", 1, 0, 2, 3, 0, MODULE_WRITES_INPUT}, /* act_ writes h, made by seq.0 */
		{"seq.2", 1, 0, 3, 5, 500, MODULE_OK},
		{"seq.3", 1, 0, 5, 6, 0, MODULE_OK},
		{"act", 0, -1, 6, 7, 400, MODULE_CALLED_AGAIN},
		{"act", 0, -1, 7, 8, 400, MODULE_CALLED_AGAIN},
		{"empty", 0, -1, 8, 8, 0, MODULE_EMPTY},
	};
	ck_assert_uint_eq(m.n, 8);
	for (size_t i = 0; i < 8; i++) {
		const struct module_call *c = &m.c[i];
		ck_assert_str_eq(schedule_str(s, c->name), want[i].name);
		ck_assert_uint_eq(c->depth, want[i].depth);
		ck_assert_int_eq(c->parent, want[i].parent);
		ck_assert_uint_eq(c->first, want[i].first);
		ck_assert_uint_eq(c->end, want[i].end);
		ck_assert_uint_eq(c->bytes, want[i].bytes);
		ck_assert_int_eq(c->veto, want[i].veto);
	}
	/* seq writes h too, but h is its own: it can be wrapped */
	const size_t bounds[] = {1, 2, 3, 5, 6};
	ck_assert_uint_eq(m.n_bound, 5);
	for (size_t i = 0; i < 5; i++)
		ck_assert_uint_eq(m.bound[i], bounds[i]);
	ck_assert(modules_is_bound(&m, 3) && !modules_is_bound(&m, 4));
	size_t nu;
	uint64_t *u = modules_units(&m, &nu);
	const uint64_t units[] = {0, 2000, 0, 500, 0, 804};
	ck_assert_uint_eq(nu, 6);
	for (size_t i = 0; i < nu; i++)
		ck_assert_uint_eq(u[i], units[i]);
	free(u);
	ck_assert_uint_eq(modules_unit_split(&m, 1), 1);
	ck_assert_uint_eq(modules_unit_split(&m, 5), 6);
	ck_assert_uint_eq(modules_unit_split(&m, 6), 9);
	ck_assert_int_eq(modules_starting(&m, 1), 0); /* seq, the outermost */
	ck_assert_int_eq(modules_ending(&m, 5), 3);   /* seq.2 */
	ck_assert_int_eq(modules_find(&m, "seq.3"), 4);
	ck_assert_int_eq(modules_find(&m, "nope"), -1);

	/* One checkpointed segment [0, 6): the stem runs as usual, seq is one
	 * wrap. */
	struct module_plan mp;
	size_t one[] = {6};
	modules_apply(&m, one, 1, &mp);
	ck_assert_uint_eq(mp.n_wraps, 1);
	ck_assert_uint_eq(mp.off[1] - mp.off[0], 1);
	ck_assert_uint_eq(mp.calls[0], 0);
	ck_assert_uint_eq(mp.unwrapped_ops, 1);
	ck_assert_uint_eq(mp.n_splits, 2);
	ck_assert_uint_eq(mp.splits[0], 1);
	ck_assert_uint_eq(mp.splits[1], 6);
	ck_assert(mp.as_usual[0] && !mp.as_usual[1]);
	/* The replay of that plan as applied, traced by hand (bytes in use):
	 * x, w 110; stem a 1110; lin h 3110; act_ (a view); lin b 6110, then h
	 * evicted (last used in seq) 4110; side s 4610, evicted 4110; lin e
	 * 4710, b evicted 1710; a released but held (seq's input, until the
	 * last backward op reading what seq made) 1710; act c 2110, e freed
	 * 1510; act d 1910; loss l 1914; backward: gd 2314, gc 2714, gd and d
	 * freed 1914; ge 2514, gc and c freed 1714; gb 4714, ge freed 4114.
	 * side_backward reads ss (s, evicted): seq is recomputed whole, each
	 * storage that handles hold, in order: h (sh, h2) 6114, h2; s (ss),
	 * whose parent b is rebuilt first 9114, then s 9614 (the peak), b
	 * freed (no handle) 6614; gb2 9614 too. */
	struct baseline b;
	baseline_run(s, &b);
	struct plan_result r;
	ck_assert_int_eq(plan_replay_wraps(s, &b, mp.splits, mp.n_splits, mp.as_usual, true, &r, &err), 0);
	ck_assert_int_eq(r.run.outcome, OUTCOME_PASS);
	ck_assert_uint_eq(r.run.peak_memory, 9614);
	ck_assert_uint_eq(b.memory, 8614);
	/* every segment as usual: the unbounded replay */
	bool all[] = {true, true};
	ck_assert_int_eq(plan_replay_wraps(s, &b, mp.splits, mp.n_splits, all, true, &r, &err), 0);
	ck_assert_uint_eq(r.run.peak_memory, 8614);
	ck_assert_uint_eq(r.run.remats, 0);
	module_plan_free(&mp);

	/* [0, 3) and [3, 6): seq.0 alone (seq.1 cannot be wrapped, and seq
	 * ends past 3), then seq.2 and seq.3 as one wrap (one nn.Sequential);
	 * the stem and seq.1's act_ run as usual. */
	size_t two[] = {3, 6};
	modules_apply(&m, two, 2, &mp);
	ck_assert_uint_eq(mp.n_wraps, 2);
	ck_assert_uint_eq(mp.off[1], 1);
	ck_assert_uint_eq(mp.off[2], 3);
	ck_assert_uint_eq(mp.calls[0], 1);
	ck_assert_uint_eq(mp.calls[1], 3);
	ck_assert_uint_eq(mp.calls[2], 4);
	ck_assert_uint_eq(mp.unwrapped_ops, 2);
	const size_t applied[] = {1, 2, 3, 6};
	const bool usual[] = {true, false, true, false};
	ck_assert_uint_eq(mp.n_splits, 4);
	for (size_t i = 0; i < 4; i++) {
		ck_assert_uint_eq(mp.splits[i], applied[i]);
		ck_assert_int_eq(mp.as_usual[i], usual[i]);
	}
	ck_assert_int_eq(plan_replay_wraps(s, &b, mp.splits, mp.n_splits, mp.as_usual, true, &r, &err), 0);
	ck_assert_int_eq(r.run.outcome, OUTCOME_PASS);
	module_plan_free(&mp);
	modules_free(&m);
	profile_free(&p);
	schedule_free(s);

	/* a log without module calls */
	s = load("tests/data", "solvers-chain.log");
	ck_assert_int_eq(profile_build(s, &p, NULL), 0);
	ck_assert_int_eq(modules_build(s, &p, &m, &err), -1);
	ck_assert_int_eq(err.status, EXIT_DATAERR);
	ck_assert_ptr_nonnull(strstr(err.msg, "no module calls"));
	profile_free(&p);
	schedule_free(s);
}
END_TEST

/* The DTR paper's logs (../shared): profiles and plans as above. */
START_TEST(paper_logs)
{
	static const char *const models[] = {"ResNet-32 (56)", "Transformer (10)", "U-Net (6)"};
	char zip[4096], spec[4200];
	shared_path(zip, sizeof zip, "dtr-logs/dev-logs.zip");
	for (size_t i = 0; i < sizeof models / sizeof *models; i++) {
		snprintf(spec, sizeof spec, "%s:%s", zip, models[i]);
		struct read_options ro = {0};
		struct schedule *s = NULL;
		struct rs_error err = {0};
		ck_assert_msg(schedule_read(spec, &ro, &s, &err) == 0, "%s: %s", spec, err.msg);
		check_profile(s);
		check_plans(s);
		schedule_free(s);
	}
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("solvers");
	TCase *tc = tcase_create("reset_points");
	if (argc > 1 && !strcmp(argv[1], "reference")) {
		if (!shared_dir()) {
			fprintf(stderr, "no ../shared data: reference cases skipped\n");
			return EXIT_SKIP;
		}
		tcase_add_test(tc, reference_cases);
		tcase_add_test(tc, paper_logs);
		tcase_set_timeout(tc, 300);
		suite_add_tcase(s, tc);
		return run_suite(s);
	}
	tcase_add_test(tc, hand_cases);
	tcase_add_test(tc, max_chunk_worked_answers);
	tcase_add_test(tc, fast_matches_exact_on_random_inputs);
	tcase_add_test(tc, more_splits_never_worse);
	tcase_add_test(tc, exact_on_large_inputs);
	tcase_add_test(tc, planners_by_hand);
	suite_add_tcase(s, tc);
	TCase *tl = tcase_create("logs");
	tcase_set_timeout(tl, 120);
	tcase_add_test(tl, profile_of_logs);
	tcase_add_test(tl, plan_replay_of_logs);
	tcase_add_test(tl, plan_replay_known_answers);
	tcase_add_test(tl, modules_of_a_log);
	suite_add_tcase(s, tl);
	return run_suite(s);
}
