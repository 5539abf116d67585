/*
 * test-questions.c: `peak` (live set at the peak), `fit` (smallest passing
 * budget) and `replay --trace` (Chrome trace-event JSON), on logs whose
 * answers are known by construction, against the replay's own numbers.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "fit.h"
#include "heuristics.h"
#include "peak.h"
#include "runtime.h"
#include "schedule.h"
#include "test-common.h"
#include "trace.h"

static struct schedule *read_log(const char *path)
{
	struct read_options ro = {0};
	struct schedule *s;
	struct rs_error err;
	if (schedule_read(path, &ro, &s, &err))
		ck_abort_msg("%s: %s", path, err.msg);
	return s;
}

static char *data_path(char *buf, size_t cap, const char *name)
{
	const char *src = getenv("REMATSIM_SOURCE");
	snprintf(buf, cap, "%s/tests/data/%s", src ? src : ".", name);
	return buf;
}

static const struct runtime_config unbounded = {
	.runtime = RUNTIME_V1, .budget = UINT64_MAX / 2, .remat_limit = INFINITY,
};

static const struct peak_entry *entry(const struct schedule *s, const struct peak_report *r, const char *handle,
				      uint32_t line)
{
	for (size_t i = 0; i < r->n_entries; i++) {
		uint32_t st = r->entries[i].storage;
		if (!strcmp(storage_handle(s, st), handle) && s->ops[storage_op(s, st)].line == line)
			return &r->entries[i];
	}
	return NULL;
}

/* tests/data/peak.log, by construction: w (100, constant), a = linear(w)
 * 1000, b = linear(a, w) 2000, c = relu(b) 500, t = scratch(w) 50,
 * d = dropout(c) 700 released at once, n = norm(t) 10, the last read of t,
 * in the command just before the peak (t and n are released at the very
 * end: both temporary at the peak); backward: gc = linear_backward(c, b)
 * 4000 at line 23 is the peak, with w, a, b, c, t, n and gc live: 7660
 * bytes. d is gone; after gc, c and b are released and ga (300) never
 * brings memory back up. */
START_TEST(peak_known_set)
{
	char p[4096];
	struct schedule *s = read_log(data_path(p, sizeof p, "peak.log"));
	struct peak_report r;
	struct rs_error err;
	ck_assert_int_eq(peak_find(s, &unbounded, &r, &err), 0);
	struct baseline b;
	baseline_run(s, &b);
	ck_assert_uint_eq(r.peak_bytes, 7660);
	ck_assert_uint_eq(r.peak_bytes, b.memory);
	ck_assert_uint_eq(r.dup_bytes, 0);
	ck_assert_str_eq(schedule_str(s, s->ops[r.op].name), "linear_backward");
	ck_assert_uint_eq(s->ops[r.op].line, 23);
	ck_assert(!r.remat);
	ck_assert_uint_eq(r.model_op, r.op);
	ck_assert_uint_eq(r.n_entries, 7);
	struct {
		const char *handle;
		uint32_t line;
		uint64_t bytes;
		enum storage_kind kind;
		bool pinned;
	} want[] = {
		{"gc", 23, 4000, SK_BACKWARD, false}, {"b", 6, 2000, SK_FORWARD, false},
		{"a", 3, 1000, SK_FORWARD, false},    {"c", 9, 500, SK_FORWARD, false},
		{"w", 1, 100, SK_CONSTANT, true},     {"t", 12, 50, SK_TEMPORARY, false},
		{"n", 19, 10, SK_TEMPORARY, false},
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		/* listed largest first */
		ck_assert_str_eq(storage_handle(s, r.entries[i].storage), want[i].handle);
		const struct peak_entry *e = entry(s, &r, want[i].handle, want[i].line);
		ck_assert_msg(e, "%s not live", want[i].handle);
		ck_assert_uint_eq(e->bytes, want[i].bytes);
		ck_assert_int_eq(e->kind, want[i].kind);
		ck_assert_int_eq(e->pinned, want[i].pinned);
	}
	ck_assert_uint_eq(r.by_kind[SK_CONSTANT].bytes, 100);
	ck_assert_uint_eq(r.by_kind[SK_FORWARD].bytes, 3500);
	ck_assert_uint_eq(r.by_kind[SK_FORWARD].count, 3);
	ck_assert_uint_eq(r.by_kind[SK_BACKWARD].bytes, 4000);
	ck_assert_uint_eq(r.by_kind[SK_TEMPORARY].bytes, 60);
	ck_assert_uint_eq(r.by_kind[SK_TEMPORARY].count, 2);
	/* by op name: the two linear ops fold into one row */
	ck_assert_uint_eq(r.n_by_op, 6);
	ck_assert_str_eq(r.by_op[0].name, "linear_backward");
	ck_assert_str_eq(r.by_op[1].name, "linear");
	ck_assert_uint_eq(r.by_op[1].bytes, 3000);
	ck_assert_uint_eq(r.by_op[1].count, 2);
	ck_assert_str_eq(r.by_op[4].name, "scratch");
	ck_assert_str_eq(r.by_op[5].name, "norm");
	peak_report_free(&r);
	schedule_free(s);
}
END_TEST

/*
 * The same log under budgets at which the replay runs out of memory: the
 * live set at the moment it stopped. Budget 1000: the first linear (line
 * 3, command 2) needs 1000 bytes beside w's 100; only w, pinned, is live.
 * Budget 4596: at linear_backward (line 23; c, b -> gc, 4000 bytes), with
 * w 100, a 1000, b 2000, c 500, t 50, n 10 live (d released), DTR evicts
 * a, t and n, and 2600 + 4000 still pass 4596: w (pinned), b and c (the
 * op's inputs, kept) are live.
 */
START_TEST(peak_at_failure)
{
	char p[4096];
	struct schedule *s = read_log(data_path(p, sizeof p, "peak.log"));
	struct runtime_config cfg = {
		.runtime = RUNTIME_V2_EAGER_OPTIMIZED, .heuristic = heuristic_find("DTR"),
		.budget = 1000, .remat_limit = INFINITY,
	};
	struct peak_report r;
	struct rs_error err;
	ck_assert_int_eq(peak_find(s, &cfg, &r, &err), 0);
	ck_assert(r.stopped);
	ck_assert_int_eq(r.run.outcome, OUTCOME_OOM);
	ck_assert_uint_eq(r.cmd, 2);
	ck_assert_uint_eq(s->ops[r.model_op].line, 3);
	ck_assert_uint_eq(r.n_entries, 1);
	ck_assert_uint_eq(r.live_bytes, 100);
	ck_assert_ptr_nonnull(entry(s, &r, "w", 1));
	ck_assert(entry(s, &r, "w", 1)->pinned);
	peak_report_free(&r);

	cfg.budget = 4596;
	ck_assert_int_eq(peak_find(s, &cfg, &r, &err), 0);
	ck_assert(r.stopped);
	ck_assert_int_eq(r.run.outcome, OUTCOME_OOM);
	ck_assert_uint_eq(s->ops[r.model_op].line, 23);
	ck_assert_str_eq(schedule_str(s, s->ops[r.model_op].name), "linear_backward");
	ck_assert_uint_eq(r.n_entries, 3);
	ck_assert_uint_eq(r.live_bytes, 2600);
	const struct peak_entry *b = entry(s, &r, "b", 6), *c = entry(s, &r, "c", 9);
	const struct peak_entry *w = entry(s, &r, "w", 1);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_nonnull(w);
	ck_assert(b->bytes == 2000 && b->kind == SK_FORWARD && c->bytes == 500 && c->kind == SK_FORWARD);
	ck_assert(b->input && !b->pinned);
	ck_assert(c->input && !c->pinned);
	ck_assert(w->pinned && !w->input);
	peak_report_free(&r);
	schedule_free(s);
}
END_TEST

/* Property, on every log at hand: the peak's bytes are the replay's
 * peak_memory, and the live set's bytes plus the duplicate bytes are the
 * peak. */
static void check_peak(const struct schedule *s, const struct baseline *b, const char *hname, double ratio)
{
	const struct heuristic *h = heuristic_find(hname);
	struct point_config pc = {.rt.heuristic = h, .rt.runtime = RUNTIME_V2_EAGER_OPTIMIZED, .ratio = ratio,
				  .overhead_limit = 2};
	struct point_result pr;
	struct rs_error err;
	ck_assert_int_eq(point_run(s, b, &pc, &pr, &err), 0);
	struct runtime_config cfg = {
		.runtime = pc.rt.runtime, .heuristic = h, .budget = pr.budget,
		.remat_limit = (double)b->compute * (pc.overhead_limit - 1),
	};
	struct peak_report r;
	int rc = peak_find(s, &cfg, &r, &err);
	ck_assert_msg(rc == 0, "%s %s %g: %s", s->source, hname, ratio, err.msg);
	ck_assert_int_eq(r.stopped, pr.run.outcome != OUTCOME_PASS);
	if (r.stopped) {
		/* the set where it stopped: within the budget, its bytes summed */
		uint64_t live = 0;
		for (size_t i = 0; i < r.n_entries; i++)
			live += r.entries[i].bytes;
		ck_assert_uint_eq(live, r.live_bytes);
		ck_assert_uint_le(r.live_bytes, pr.budget);
		ck_assert_uint_eq(r.cmd, pr.run.stopped_at < s->n_cmds ? pr.run.stopped_at : s->n_cmds - 1);
		peak_report_free(&r);
		return;
	}
	ck_assert_uint_eq(r.peak_bytes, pr.run.peak_memory);
	uint64_t sum = 0;
	for (size_t i = 0; i < r.n_entries; i++)
		sum += r.entries[i].bytes;
	ck_assert_uint_eq(sum + r.dup_bytes, r.peak_bytes);
	uint64_t kinds = 0;
	for (int k = 0; k < SK_COUNT; k++)
		kinds += r.by_kind[k].bytes;
	ck_assert_uint_eq(kinds, sum);
	peak_report_free(&r);
}

static void check_log(const char *path, bool heavy)
{
	struct schedule *s = read_log(path);
	struct baseline b;
	baseline_run(s, &b);
	struct peak_report r;
	struct rs_error err;
	ck_assert_int_eq(peak_find(s, &unbounded, &r, &err), 0);
	ck_assert_uint_eq(r.peak_bytes, b.memory);
	peak_report_free(&r);
	static const char *const hs[] = {"DTR", "LRU", "DTREqClass", "MSPS", "LargestStorage"};
	static const double ratios[] = {0.4, 0.6, 0.8, 1.0};
	for (size_t i = 0; i < (heavy ? 5u : 2u); i++)
		for (size_t j = 0; j < 4; j++)
			check_peak(s, &b, hs[i], ratios[j]);
	schedule_free(s);
}

START_TEST(peak_is_replay_peak)
{
	static const char *const logs[] = {"tiny.log", "peak.log", "chain8.log", "chain12.log", "chain16.log"};
	char p[4096];
	for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++)
		check_log(data_path(p, sizeof p, logs[i]), true);
	static const char *const shipped[] = {"mlp-cpu", "cnn-cpu", "transformer-cpu", "lstm-cpu"};
	const char *src = getenv("REMATSIM_SOURCE");
	for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++) {
		snprintf(p, sizeof p, "%s/logs/%s.log.gz", src ? src : ".", shipped[i]);
		check_log(p, false);
	}
}
END_TEST

START_TEST(peak_is_replay_peak_shared)
{
	char p[4096];
	if (!shared_dir())
		return;
	static const char *const models[] = {"U-Net (6)", "ResNet-32 (56)", "Transformer (10)"};
	for (size_t i = 0; i < 3; i++) {
		char spec[4200], rel[256];
		snprintf(rel, sizeof rel, "dtr-logs/dev-logs.zip");
		snprintf(spec, sizeof spec, "%s:%s", shared_path(p, sizeof p, rel), models[i]);
		check_log(spec, false);
	}
	/* U-Net under DTR at 0.5 peaks while rematerializing an op whose
	 * sibling output is resident: the duplicate bytes are counted. */
	char spec[4200];
	snprintf(spec, sizeof spec, "%s:U-Net (6)", shared_path(p, sizeof p, "dtr-logs/dev-logs.zip"));
	struct schedule *s = read_log(spec);
	struct baseline b;
	baseline_run(s, &b);
	struct runtime_config cfg = {
		.runtime = RUNTIME_V2_EAGER_OPTIMIZED, .heuristic = heuristic_find("DTR"),
		.budget = (uint64_t)((double)b.memory * 0.5), .remat_limit = (double)b.compute,
	};
	struct peak_report r;
	struct rs_error err;
	ck_assert_int_eq(peak_find(s, &cfg, &r, &err), 0);
	ck_assert(r.remat);
	ck_assert_uint_gt(r.dup_bytes, 0);
	peak_report_free(&r);
	schedule_free(s);
}
END_TEST

/* ---- fit ---------------------------------------------------------------- */

static enum outcome outcome_at(const struct schedule *s, const struct baseline *b, const char *h, uint64_t budget)
{
	struct point_config pc = {.rt.heuristic = heuristic_find(h), .rt.runtime = RUNTIME_V2_EAGER_OPTIMIZED,
				  .budget = budget, .overhead_limit = 2};
	struct point_result pr;
	struct rs_error err;
	ck_assert_int_eq(point_run(s, b, &pc, &pr, &err), 0);
	return pr.run.outcome;
}

/* chain12.log under LRU is not monotone: it passes from 34816 bytes, then
 * thrashes (overhead past 2) at budgets up to 39423, and passes from 39424
 * on. Every budget from the lower bound to the unbounded peak is replayed
 * here (about 70,000 small replays) to know the truth fit must report. */
START_TEST(fit_reports_non_monotone_range)
{
	char p[4096];
	struct schedule *s = read_log(data_path(p, sizeof p, "chain12.log"));
	struct baseline b;
	baseline_run(s, &b);
	struct fit_config fc = {.point.rt.heuristic = heuristic_find("LRU"),
				.point.rt.runtime = RUNTIME_V2_EAGER_OPTIMIZED,
				.point.overhead_limit = 2, .resolution = 0.01, .jobs = 2};
	struct fit_result r;
	struct rs_error err;
	ck_assert_int_eq(fit_run(s, &b, &fc, &r, &err), 0);
	ck_assert_uint_eq(r.smallest_pass, 34816);
	ck_assert_uint_eq(r.largest_fail, 39423);
	ck_assert_uint_eq(r.all_pass_from, 39424);
	ck_assert(!r.exact);

	/* the truth, budget by budget */
	uint64_t first_pass = 0, last_fail = 0;
	for (uint64_t x = r.lower; x <= r.upper; x++) {
		if (outcome_at(s, &b, "LRU", x) == OUTCOME_PASS) {
			if (!first_pass)
				first_pass = x;
		} else {
			last_fail = x;
		}
	}
	ck_assert_uint_eq(first_pass, r.smallest_pass);
	ck_assert_uint_eq(last_fail, r.largest_fail);
	ck_assert_int_ne(outcome_at(s, &b, "LRU", r.lower - 1), OUTCOME_PASS);

	/* the same answer on one thread, and every probe's outcome and
	 * overhead true, those known from an earlier replay's range (fit.h)
	 * as much as those replayed */
	struct fit_result r1;
	fc.jobs = 1;
	ck_assert_int_eq(fit_run(s, &b, &fc, &r1, &err), 0);
	ck_assert_uint_eq(r1.n_probes, r.n_probes);
	ck_assert_uint_eq(r1.n_known, r.n_known);
	ck_assert_uint_gt(r.n_known, 5);
	size_t known = 0;
	for (size_t i = 0; i < r.n_probes; i++) {
		ck_assert_uint_eq(r1.probes[i].budget, r.probes[i].budget);
		ck_assert_int_eq(r1.probes[i].outcome, r.probes[i].outcome);
		struct point_config pc = {.rt.heuristic = heuristic_find("LRU"),
					  .rt.runtime = RUNTIME_V2_EAGER_OPTIMIZED,
					  .budget = r.probes[i].budget, .overhead_limit = 2};
		struct point_result pr;
		ck_assert_int_eq(point_run(s, &b, &pc, &pr, &err), 0);
		ck_assert_int_eq(r.probes[i].outcome, pr.run.outcome);
		if (pr.run.outcome == OUTCOME_PASS)
			ck_assert_double_eq(r.probes[i].overhead, pr.overhead);
		known += r.probes[i].known;
	}
	ck_assert_uint_eq(known, r.n_known);
	fit_result_free(&r1);
	fit_result_free(&r);
	schedule_free(s);
}
END_TEST

/* A monotone case: fit agrees with a plain bisection, and the lower bound
 * is a bound (one byte below it fails). */
START_TEST(fit_monotone)
{
	char p[4096];
	struct schedule *s = read_log(data_path(p, sizeof p, "peak.log"));
	struct baseline b;
	baseline_run(s, &b);
	struct fit_config fc = {.point.rt.heuristic = heuristic_find("DTR"),
				.point.rt.runtime = RUNTIME_V2_EAGER_OPTIMIZED,
				.point.overhead_limit = INFINITY, .resolution = 0.05, .jobs = 1};
	struct fit_result r;
	struct rs_error err;
	ck_assert_int_eq(fit_run(s, &b, &fc, &r, &err), 0);
	ck_assert_uint_eq(r.lower, fit_floor(s, &fc));
	ck_assert_uint_eq(r.lower, r.footprint > r.floor_memory ? r.footprint : r.floor_memory);
	ck_assert_uint_eq(r.footprint, fit_lower_bound(s));
	ck_assert_uint_eq(r.floor_memory, schedule_floor(s, false));
	ck_assert_uint_eq(r.largest_fail, 0);
	ck_assert_uint_eq(r.all_pass_from, r.smallest_pass);
	ck_assert_int_eq(outcome_at(s, &b, "DTR", r.smallest_pass), OUTCOME_PASS);
	if (r.smallest_pass > r.lower)
		ck_assert_int_ne(outcome_at(s, &b, "DTR", r.smallest_pass - 1), OUTCOME_PASS);
	ck_assert_int_ne(outcome_at(s, &b, "DTR", r.lower - 1), OUTCOME_PASS);
	fit_result_free(&r);
	schedule_free(s);
}
END_TEST

START_TEST(fit_impossible_resolution)
{
	char p[4096];
	struct schedule *s = read_log(data_path(p, sizeof p, "tiny.log"));
	struct baseline b;
	baseline_run(s, &b);
	struct fit_config fc = {.point.rt.heuristic = heuristic_find("DTR"),
				.point.rt.runtime = RUNTIME_V2_EAGER_OPTIMIZED,
				.point.overhead_limit = 2, .jobs = 1};
	static const double bad[] = {0, -0.1, 1.5, NAN, 0.001 /* below a byte of 208 */};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct fit_result r;
		struct rs_error err;
		fc.resolution = bad[i];
		ck_assert_int_eq(fit_run(s, &b, &fc, &r, &err), -1);
		ck_assert_int_eq(err.status, EXIT_USAGE);
	}
	schedule_free(s);
}
END_TEST

/* ---- trace -------------------------------------------------------------- */

struct both {
	struct trace_writer *tw;
	int64_t clock[4096];
	uint64_t memory[4096];
	int kind[4096];
	uint32_t op[4096];
	size_t n;
};

static void both_event(void *ctx, const struct runtime_event *ev)
{
	struct both *b = ctx;
	if (b->n < 4096) {
		b->clock[b->n] = ev->clock;
		b->memory[b->n] = ev->memory;
		b->kind[b->n] = ev->kind;
		b->op[b->n] = ev->op;
	}
	b->n++;
	trace_on_event(b->tw, ev);
}

static const char *str_of(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* ts in microseconds (three decimals) back to nanoseconds */
static int64_t ns_of(json_t *v)
{
	ck_assert(json_is_number(v));
	return (int64_t)llround(json_number_value(v) * 1000.0);
}

/* The fields the trace-event format documents (JSON object format):
 * traceEvents, displayTimeUnit "ms" or "ns"; per event name, ph, pid, tid
 * and (but for metadata) ts in microseconds; "X" has dur; "i" has s in
 * g/p/t; "C" has args of numbers; "M" is process_name, thread_name or
 * thread_sort_index with its args. Returns the events array. */
static json_t *check_format(json_t *root)
{
	ck_assert(json_is_object(root));
	const char *unit = str_of(root, "displayTimeUnit");
	ck_assert(unit && (!strcmp(unit, "ms") || !strcmp(unit, "ns")));
	json_t *evs = json_object_get(root, "traceEvents");
	ck_assert(json_is_array(evs));
	size_t i;
	json_t *e;
	json_array_foreach(evs, i, e) {
		const char *ph = str_of(e, "ph"), *name = str_of(e, "name");
		ck_assert_msg(ph && strlen(ph) == 1 && strchr("MCXi", ph[0]), "event %zu: ph", i);
		ck_assert_msg(name, "event %zu: name", i);
		ck_assert(json_is_integer(json_object_get(e, "pid")));
		ck_assert(json_is_integer(json_object_get(e, "tid")));
		json_t *args = json_object_get(e, "args");
		if (ph[0] == 'M') {
			ck_assert(json_is_object(args));
			if (!strcmp(name, "thread_sort_index")) {
				ck_assert(json_is_integer(json_object_get(args, "sort_index")));
			} else {
				ck_assert(!strcmp(name, "process_name") || !strcmp(name, "thread_name"));
				ck_assert(json_is_string(json_object_get(args, "name")));
			}
			continue;
		}
		ck_assert(json_is_number(json_object_get(e, "ts")));
		ck_assert(json_number_value(json_object_get(e, "ts")) >= 0);
		if (ph[0] == 'X') {
			ck_assert(json_is_number(json_object_get(e, "dur")));
			ck_assert(json_number_value(json_object_get(e, "dur")) >= 0);
		} else if (ph[0] == 'i') {
			const char *sc = str_of(e, "s");
			ck_assert(sc && strlen(sc) == 1 && strchr("gpt", sc[0]));
		} else if (ph[0] == 'C') {
			ck_assert(json_is_object(args) && json_object_size(args) > 0);
			const char *k;
			json_t *v;
			json_object_foreach(args, k, v)
				ck_assert(json_is_number(v));
		}
	}
	return evs;
}

static json_t *load(const char *path)
{
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	ck_assert_msg(root, "%s:%d: %s", path, je.line, je.text);
	return root;
}

START_TEST(trace_matches_timeline)
{
	char p[4096], out[4096];
	struct schedule *s = read_log(data_path(p, sizeof p, "chain12.log"));
	struct baseline b;
	baseline_run(s, &b);
	snprintf(out, sizeof out, "%s/rematsim-trace-%d.json", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", getpid());
	struct trace_options to = {.title = "t", .budget = 40000, .from_line = 0, .to_line = UINT32_MAX};
	struct rs_error err;
	struct both *bo = xcalloc(1, sizeof *bo);
	bo->tw = trace_open(out, s, &to, &err);
	ck_assert(bo->tw);
	struct point_config pc = {.rt.heuristic = heuristic_find("DTR"), .rt.runtime = RUNTIME_V2_EAGER_OPTIMIZED,
				  .budget = 40000, .overhead_limit = INFINITY, .rt.on_event = both_event, .rt.ctx = bo};
	struct point_result pr;
	ck_assert_int_eq(point_run(s, &b, &pc, &pr, &err), 0);
	ck_assert_int_eq(pr.run.outcome, OUTCOME_PASS);
	ck_assert_uint_gt(pr.run.evictions, 0);
	ck_assert_uint_gt(pr.run.remats, 0);
	ck_assert_int_eq(trace_close(bo->tw, true, &err), 0);

	json_t *root = load(out);
	json_t *evs = check_format(root);
	/* one memory sample per runtime event, equal to the timeline's, and
	 * beside it the slice or instant of that event */
	size_t k = 0, slices[5] = {0}, i;
	uint64_t evictions = 0;
	json_t *e;
	json_array_foreach(evs, i, e) {
		const char *ph = str_of(e, "ph");
		if (ph[0] == 'C' && !strcmp(str_of(e, "name"), "memory")) {
			ck_assert_uint_lt(k, bo->n);
			ck_assert_uint_eq(json_integer_value(json_object_get(json_object_get(e, "args"), "bytes")),
					  bo->memory[k]);
			ck_assert_int_eq(ns_of(json_object_get(e, "ts")), bo->clock[k]);
			json_t *next = json_array_get(evs, i + 1);
			const char *nph = str_of(next, "ph");
			if (bo->kind[k] == EV_EVICT) {
				ck_assert_str_eq(nph, "i");
				evictions++;
			} else {
				ck_assert_str_eq(nph, "X");
				/* the slice ends at the event's clock */
				ck_assert_int_eq(ns_of(json_object_get(next, "ts")) + ns_of(json_object_get(next, "dur")),
						 bo->clock[k]);
				json_int_t tid = json_integer_value(json_object_get(next, "tid"));
				ck_assert_int_eq(tid, bo->kind[k] == EV_REMAT ? 3 : s->ops[bo->op[k]].backward ? 2 : 1);
				ck_assert_str_eq(str_of(next, "name"), schedule_str(s, s->ops[bo->op[k]].name));
				slices[tid]++;
			}
			k++;
		} else if (ph[0] == 'C') {
			ck_assert_str_eq(str_of(e, "name"), "budget");
			ck_assert_uint_eq(json_integer_value(json_object_get(json_object_get(e, "args"), "bytes")), 40000);
		}
	}
	ck_assert_uint_eq(k, bo->n);
	ck_assert_uint_eq(evictions, pr.run.evictions);
	ck_assert_uint_eq(slices[3], pr.run.remats);
	ck_assert_uint_gt(slices[1], 0);
	ck_assert_uint_gt(slices[2], 0);
	json_decref(root);

	/* a window of log lines keeps fewer events, every one inside it */
	to.from_line = 40;
	to.to_line = 60;
	bo->n = 0;
	bo->tw = trace_open(out, s, &to, &err);
	ck_assert(bo->tw);
	ck_assert_int_eq(point_run(s, &b, &pc, &pr, &err), 0);
	ck_assert_int_eq(trace_close(bo->tw, true, &err), 0);
	root = load(out);
	evs = check_format(root);
	size_t inside = 0;
	json_array_foreach(evs, i, e) {
		if (str_of(e, "ph")[0] != 'X')
			continue;
		json_int_t line = json_integer_value(json_object_get(json_object_get(e, "args"), "line"));
		if (json_integer_value(json_object_get(e, "tid")) != 3) /* a remat's op may be older */
			ck_assert(line >= 40 && line <= 60);
		inside++;
	}
	ck_assert_uint_gt(inside, 0);
	ck_assert_uint_lt(json_array_size(evs), 2 * bo->n);
	json_decref(root);
	remove(out);
	free(bo);
	schedule_free(s);
}
END_TEST

START_TEST(trace_bad_paths)
{
	char p[4096];
	struct schedule *s = read_log(data_path(p, sizeof p, "tiny.log"));
	struct trace_options to = {.budget = UINT64_MAX, .to_line = UINT32_MAX};
	struct rs_error err;
	ck_assert_ptr_null(trace_open("/nonexistent-dir/x.json", s, &to, &err));
	ck_assert_int_eq(err.status, EXIT_CANTCREAT);

	/* an abandoned trace leaves nothing */
	char out[4096];
	snprintf(out, sizeof out, "%s/rematsim-trace-gone-%d.json", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", getpid());
	struct trace_writer *w = trace_open(out, s, &to, &err);
	ck_assert(w);
	ck_assert_int_eq(trace_close(w, false, &err), 0);
	struct stat st;
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp", out);
	ck_assert_int_ne(stat(out, &st), 0);
	ck_assert_int_ne(stat(tmp, &st), 0);

	/* a full device: an I/O error, and the device is still a device */
	if (stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode)) {
		w = trace_open("/dev/full", s, &to, &err);
		ck_assert(w);
		ck_assert_int_eq(trace_close(w, true, &err), -1);
		ck_assert_int_eq(err.status, EXIT_IOERR);
		ck_assert_int_eq(stat("/dev/full", &st), 0);
		ck_assert(S_ISCHR(st.st_mode));
	}
	schedule_free(s);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("questions");
	TCase *tc = tcase_create("peak");
	tcase_add_test(tc, peak_known_set);
	tcase_add_test(tc, peak_at_failure);
	tcase_add_test(tc, peak_is_replay_peak);
	tcase_add_test(tc, peak_is_replay_peak_shared);
	suite_add_tcase(su, tc);
	tc = tcase_create("fit");
	tcase_add_test(tc, fit_reports_non_monotone_range);
	tcase_add_test(tc, fit_monotone);
	tcase_add_test(tc, fit_impossible_resolution);
	suite_add_tcase(su, tc);
	tc = tcase_create("trace");
	tcase_add_test(tc, trace_matches_timeline);
	tcase_add_test(tc, trace_bad_paths);
	suite_add_tcase(su, tc);
	return run_suite(su);
}
