/*
 * test-gen.c: the synthetic logs of sim/lib/read/gen.c and the budget formulas
 * of sim/exp/formula.c.
 *
 *  - every shape's log passes check mode and has the op, tensor and
 *    compute totals its graph (docs/gen.md) says;
 *  - the chain: baseline compute 2n and memory n, nothing rematerialized
 *    without budget pressure, hand-computed runs of tiny chains;
 *  - tests/data/simrd-chain.tsv: the reference simulator's own numbers on
 *    the chain (outcome, clock, remat compute, evictions, remats,
 *    evaluations, accesses, peak memory) for every deterministic heuristic
 *    simrd has (22; one it lacks needs no rows), n = 1..16 and up to 1024,
 *    budgets 2*sqrt(n), sqrt(n), log2(n), 4*sqrt(n) and 3 (n <= 128); its
 *    header says how;
 *  - tests/data/simrd-chain-random.tsv: simrd's random heuristics over 200
 *    seeds, against rematsim's in distribution and, drawing as Python does,
 *    exactly (chain_random); simrd-chain-random-seeds.tsv run by run
 *    (chain_random_python_seeds); pyrandom.c against Python's outputs;
 *  - tests/data/simrd-gen-shapes.tsv: simrd's numbers on generated logs of
 *    every shape (residual, U-Net with its two-result backward ops,
 *    heterogeneous chains, a transformer with views and three-result layer
 *    norms), replayed as its pareto driver replays a log;
 *  - seeds: the same parameters give the same bytes; distributions parse
 *    and their bad forms are refused;
 *  - gen_build (the schedule built without text) is the schedule a read of
 *    gen_text gives, array by array and fact by fact, for every shape, with
 *    and without the digest and preallocation, and fails where the read
 *    fails, with the same message and line.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formula.h"
#include "gen.h"
#include "heuristics.h"
#include "pyrandom.h"
#include "runtime.h"
#include "test-common.h"

static void ignore(void *ctx, const struct rs_error *e)
{
	(void)ctx;
	fprintf(stderr, "check mode: %ld: %s\n", e->line, e->msg);
}

static struct schedule *make(const struct gen_params *p)
{
	char *text;
	size_t len;
	struct rs_error err = {0};
	ck_assert_msg(gen_text(p, &text, &len, &err) == 0, "gen: %s", err.msg);
	struct read_options ro = {0};
	int n = schedule_check("gen.log", text, len, &ro, 32, ignore, NULL);
	ck_assert_msg(n == 0, "check mode finds %d problems in the generated log", n);
	struct schedule *s = NULL;
	ck_assert_msg(schedule_parse("gen.log", text, len, &ro, &s, &err) == 0, "%s", err.msg);
	free(text);
	return s;
}

static struct gen_params chain(uint64_t n)
{
	struct gen_params p;
	gen_params_default(&p, GEN_LINEAR);
	p.n = n;
	return p;
}

static struct runtime_result run(const struct schedule *s, const char *h, enum runtime_kind rk,
				 uint64_t budget)
{
	struct runtime_config cfg = {
		.runtime = rk, .heuristic = heuristic_find(h), .budget = budget,
		.remat_limit = INFINITY, .check = true,
	};
	ck_assert_ptr_nonnull(cfg.heuristic);
	struct runtime_result r;
	struct rs_error err = {0};
	ck_assert_msg(runtime_run(s, &cfg, &r, &err) == 0, "%s", err.msg);
	return r;
}

START_TEST(chain_totals)
{
	for (uint64_t n = 1; n <= 40; n += 3) {
		struct gen_params p = chain(n);
		struct schedule *s = make(&p);
		ck_assert_uint_eq(s->n_ops, 2 * n);
		ck_assert_uint_eq(s->n_forward_ops, n);
		ck_assert_uint_eq(s->n_backward_ops, n);
		ck_assert_uint_eq(s->n_constants, 0);
		ck_assert_uint_eq(s->n_tensors, 2 * n);
		ck_assert_int_eq(s->total_compute, (int64_t)(2 * n));
		ck_assert_uint_eq(s->n_pins_final, 1); /* b0 */
		struct baseline b;
		baseline_run(s, &b);
		ck_assert_int_eq(b.compute, (int64_t)(2 * n));
		ck_assert_uint_eq(b.memory, n);
		schedule_free(s);
	}
}
END_TEST

/* With the baseline's memory as budget nothing is ever rematerialized. */
START_TEST(chain_no_pressure)
{
	size_t nh;
	const struct heuristic *hs = heuristic_list(&nh);
	struct gen_params p = chain(50);
	struct schedule *s = make(&p);
	for (size_t i = 0; i < nh; i++) {
		if (hs[i].random)
			continue;
		enum runtime_kind rk = !strcmp(hs[i].name, "DTRUnopt") ? RUNTIME_V1
								       : RUNTIME_V2_EAGER_OPTIMIZED;
		struct runtime_result r = run(s, hs[i].name, rk, 50);
		ck_assert_msg(r.outcome == OUTCOME_PASS && r.remat_compute == 0 && r.remats == 0,
			      "%s: remat %lld", hs[i].name, (long long)r.remat_compute);
		ck_assert_int_eq(r.clock, 1 + 100);
	}
	schedule_free(s);
}
END_TEST

/*
 * Tiny chains by hand (unit ops; clock starts at 1; V2EagerOptimized).
 *
 * n = 3, budget 2: f0 f1 f2: f2 needs a third byte, f1 is locked (f2's
 * input), so f0 goes (1 evaluation). Release f2 (evicted at once), b2 from
 * nothing, release f1 (evicted). b1 needs f0 back: remat f0 (clock 6,
 * memory 2: b2, f0), then b1 needs a third byte with both in memory locked
 * as its inputs: the pool is empty, OOM. Any heuristic.
 *
 * n = 4, budget 3, LRU: f3 needs room; pool {f0 (last access 2), f1 (3)}
 * (f2 locked): f0 goes. f3 is released and evicted, b3, release f2, b2
 * (from f1, b3), release b3, release f1, b1 needs f0: remat f0 (clock 8),
 * b1 (9), release b2 and f0, b0 (10), release b1. 8 evictions (1 by the
 * budget, 7 eager), 1 remat, 2 evaluations, peak 3.
 */
START_TEST(chain_by_hand)
{
	struct gen_params p = chain(3);
	struct schedule *s = make(&p);
	static const char *const hs[] = {"DTR", "DTREqClass", "DTRLocal", "MSPS", "LRU",
					 "LargestStorage"};
	for (size_t i = 0; i < sizeof hs / sizeof hs[0]; i++) {
		struct runtime_result r = run(s, hs[i], RUNTIME_V2_EAGER_OPTIMIZED, 2);
		ck_assert_msg(r.outcome == OUTCOME_OOM, "%s", hs[i]);
		ck_assert_int_eq(r.clock, 6);
		ck_assert_int_eq(r.remat_compute, 1);
		ck_assert_uint_eq(r.evictions, 3);
		ck_assert_uint_eq(r.heuristic_evals, 1);
	}
	schedule_free(s);

	p = chain(4);
	s = make(&p);
	struct runtime_result r = run(s, "LRU", RUNTIME_V2_EAGER_OPTIMIZED, 3);
	ck_assert(r.outcome == OUTCOME_PASS);
	ck_assert_int_eq(r.clock, 10);
	ck_assert_int_eq(r.model_compute, 8);
	ck_assert_int_eq(r.remat_compute, 1);
	ck_assert_uint_eq(r.evictions, 8);
	ck_assert_uint_eq(r.remats, 1);
	ck_assert_uint_eq(r.heuristic_evals, 2);
	ck_assert_uint_eq(r.peak_memory, 3);
	/* Budget 4 = n: the baseline's memory, no remat. */
	r = run(s, "LRU", RUNTIME_V2_EAGER_OPTIMIZED, 4);
	ck_assert(r.outcome == OUTCOME_PASS && r.remat_compute == 0 && r.clock == 9);
	schedule_free(s);
}
END_TEST

/* A row of simrd's chain files: the point, then every counter. */
struct chain_row {
	unsigned long long n, budget, seed, evictions, remats, evals, accesses, peak;
	long long clock, model, remat;
	char bound[32], h[32], rt[32], outcome[8];
};

/* Parse a row of simrd-chain.tsv, or (with_seed) of
 * simrd-chain-random-seeds.tsv, whose seed follows the runtime. */
static void parse_chain_row(const char *line, bool with_seed, struct chain_row *w)
{
	char head[128];
	int got = sscanf(line, "%llu\t%31[^\t]\t%llu\t%31[^\t]\t%31[^\t]\t%127[^\n]", &w->n, w->bound,
			 &w->budget, w->h, w->rt, head);
	ck_assert_msg(got == 6, "bad line: %s", line);
	const char *rest = head;
	int used = 0;
	w->seed = 0;
	if (with_seed) {
		ck_assert_msg(sscanf(rest, "%llu\t%n", &w->seed, &used) == 1, "bad line: %s", line);
		rest += used;
	}
	got = sscanf(rest, "%7[^\t]\t%lld\t%lld\t%lld\t%llu\t%llu\t%llu\t%llu\t%llu", w->outcome, &w->clock,
		     &w->model, &w->remat, &w->evictions, &w->remats, &w->evals, &w->accesses, &w->peak);
	ck_assert_msg(got == 9, "bad line: %s", line);
}

/* Every counter of run r is the row's. */
static void expect_chain_row(const struct runtime_result *r, const struct chain_row *w, const char *what)
{
	ck_assert_msg(!strcmp(outcome_name(r->outcome), w->outcome), "%s: outcome %s", what,
		      outcome_name(r->outcome));
	ck_assert_msg(r->clock == w->clock, "%s: clock %lld", what, (long long)r->clock);
	ck_assert_msg(r->model_compute == w->model, "%s: model compute %lld", what, (long long)r->model_compute);
	ck_assert_msg(r->remat_compute == w->remat, "%s: remat compute %lld", what, (long long)r->remat_compute);
	ck_assert_msg(r->evictions == w->evictions, "%s: evictions %llu", what, (unsigned long long)r->evictions);
	ck_assert_msg(r->remats == w->remats, "%s: remats %llu", what, (unsigned long long)r->remats);
	ck_assert_msg(r->heuristic_evals == w->evals, "%s: evaluations %llu", what,
		      (unsigned long long)r->heuristic_evals);
	ck_assert_msg(r->heuristic_accesses == w->accesses, "%s: accesses %llu", what,
		      (unsigned long long)r->heuristic_accesses);
	ck_assert_msg(r->peak_memory == w->peak, "%s: peak %llu", what, (unsigned long long)r->peak_memory);
}

/* simrd's numbers on the chain (tests/data/simrd-chain.tsv). */
START_TEST(chain_simrd)
{
	FILE *f = open_test_data("simrd-chain.tsv");
	char line[512];
	struct schedule *s = NULL;
	unsigned long long cur_n = 0;
	int rows = 0;
	bool header = true;
	size_t nh;
	const struct heuristic *hs = heuristic_list(&nh);
	int per_h[64] = {0};
	ck_assert_uint_le(nh, sizeof per_h / sizeof per_h[0]);
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '#')
			continue;
		if (header) { /* the column line */
			header = false;
			continue;
		}
		struct chain_row w;
		parse_chain_row(line, false, &w);
		if (w.n != cur_n) {
			if (s)
				schedule_free(s);
			struct gen_params p = chain(w.n);
			s = make(&p);
			cur_n = w.n;
		}
		enum runtime_kind rk;
		ck_assert_int_eq(runtime_kind_parse(w.rt, &rk), 0);
		struct runtime_result r = run(s, w.h, rk, w.budget);
		expect_chain_row(&r, &w, line);
		per_h[heuristic_find(w.h) - hs]++;
		rows++;
	}
	fclose(f);
	if (s)
		schedule_free(s);
	/* Every heuristic the file has rows for has as many as DTR (one per
	 * point (n, bound)), and the file has the 22 deterministic heuristics
	 * of simrd's; the random ones have none here (chain_random). A
	 * heuristic simrd lacks (the offline Belady bound, held by
	 * test-heuristics' belady_by_hand and test-ilp) has none either, so a
	 * new one needs no edit here (docs/adding-a-heuristic.md). */
	int named = 0;
	for (size_t i = 0; i < nh; i++) {
		ck_assert_msg(per_h[i] == 0 || (!hs[i].random && per_h[i] == per_h[0]),
			      "%s: %d rows, DTR %d", hs[i].name, per_h[i], per_h[0]);
		named += per_h[i] > 0;
	}
	ck_assert_int_ge(named, 22);
	ck_assert_int_ge(per_h[0], 107);
	ck_assert_int_ge(rows, 2354);
	printf("simrd-chain: %d points match simrd in every counter\n", rows);
}
END_TEST

/*
 * The random heuristics against simrd (tests/data/simrd-chain-random.tsv).
 * simrd's chain driver never seeds Python's random, and rematsim draws from
 * its own seeded splitmix64, so single runs cannot be compared; samples can.
 * Each row holds simrd's sample over S seeds (random.seed(k) first) of one
 * (n, budget, heuristic) point as histograms; rematsim runs the point with
 * its seeds 0..S-1 and must give:
 *  - on every run, the counters no draw can change: accesses = evaluations
 *    (a choice is one of each), remats = remat compute (unit ops), clock =
 *    1 + model + remat compute, peak <= budget; and (first 20 seeds) the
 *    same counters under RandomStorage and AbRandom (one class in simrd, one
 *    chooser here);
 *  - for an outcome or counter on which all of simrd's seeds agree: that
 *    value on every one of its own seeds;
 *  - for the others, the same distribution: the two-sample Kolmogorov-
 *    Smirnov distance D <= 2.23 sqrt(2/S) (level 1e-4 per comparison: a
 *    rematsim right in distribution fails one of the file's comparisons
 *    with odds under 1%) and means within 4.5 standard errors;
 *  - drawing as Python does (python_random) from simrd's own seeds
 *    (first_seed ...): simrd's sample of every counter exactly.
 * Fixed seeds on both sides: the test is deterministic and cannot flake.
 */
#define HIST_MAX 4096

struct hist {
	int n, total;
	int64_t v[HIST_MAX];
	int c[HIST_MAX];
};

static int outcome_index(const char *name, size_t len)
{
	static const char *const names[] = {"pass", "oom", "thrash"};
	for (int i = 0; i < 3; i++)
		if (strlen(names[i]) == len && !strncmp(name, names[i], len))
			return i;
	ck_abort_msg("unknown outcome %.*s", (int)len, name);
	return -1;
}

/* "v:c,v:c,..." (values ascending; outcome names for the outcome column). */
static void hist_parse(const char *text, struct hist *h, bool outcome)
{
	h->n = h->total = 0;
	const char *p = text;
	while (*p) {
		ck_assert_int_lt(h->n, HIST_MAX);
		const char *colon = strchr(p, ':');
		ck_assert_msg(colon != NULL, "bad histogram %s", text);
		char *end;
		if (outcome) {
			h->v[h->n] = outcome_index(p, (size_t)(colon - p));
		} else {
			h->v[h->n] = strtoll(p, &end, 10);
			ck_assert_msg(end == colon, "bad histogram %s", text);
		}
		h->c[h->n] = (int)strtol(colon + 1, &end, 10);
		ck_assert_msg(h->c[h->n] > 0 && (*end == ',' || *end == '\0'), "bad histogram %s",
			      text);
		ck_assert_msg(h->n == 0 || h->v[h->n] > h->v[h->n - 1], "unsorted histogram %s",
			      text);
		h->total += h->c[h->n++];
		p = *end ? end + 1 : end;
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Largest |F_simrd - F_ours| over all values, ours sorted. */
static double ks_distance(const struct hist *h, const int64_t *ours, int m)
{
	double d = 0;
	int i = 0, j = 0, cs = 0;
	while (i < h->n || j < m) {
		int64_t x = i < h->n && (j >= m || h->v[i] <= ours[j]) ? h->v[i] : ours[j];
		while (i < h->n && h->v[i] == x)
			cs += h->c[i++];
		while (j < m && ours[j] == x)
			j++;
		d = fmax(d, fabs((double)cs / h->total - (double)j / m));
	}
	return d;
}

struct chain_random_stats {
	int exact, dist, python;
	double worst_ks, worst_z; /* as fractions of their limits */
};

/* Compare our sample (m values) of one counter with simrd's histogram. */
static void compare_sample(const char *what, const char *counter, const struct hist *h,
			   int64_t *ours, int m, struct chain_random_stats *st)
{
	if (h->n == 1) { /* all of simrd's seeds agree: so must all of ours */
		for (int k = 0; k < m; k++)
			ck_assert_msg(ours[k] == h->v[0], "%s: %s seed %d: %lld, simrd always %lld",
				      what, counter, k, (long long)ours[k], (long long)h->v[0]);
		st->exact++;
		return;
	}
	qsort(ours, (size_t)m, sizeof *ours, cmp_i64);
	double d = ks_distance(h, ours, m);
	double dmax = 2.23 * sqrt((double)(h->total + m) / ((double)h->total * m));
	double ms = 0, vs = 0, mr = 0, vr = 0;
	for (int i = 0; i < h->n; i++)
		ms += (double)h->v[i] * h->c[i];
	ms /= h->total;
	for (int i = 0; i < h->n; i++)
		vs += h->c[i] * ((double)h->v[i] - ms) * ((double)h->v[i] - ms);
	vs /= h->total - 1;
	for (int k = 0; k < m; k++)
		mr += (double)ours[k];
	mr /= m;
	for (int k = 0; k < m; k++)
		vr += ((double)ours[k] - mr) * ((double)ours[k] - mr);
	vr /= m - 1;
	double se = sqrt(vs / h->total + vr / m);
	double z = se > 0 ? fabs(ms - mr) / se : (ms == mr ? 0 : INFINITY);
	ck_assert_msg(d <= dmax, "%s: %s: KS distance %.3f > %.3f (simrd mean %.2f, ours %.2f)",
		      what, counter, d, dmax, ms, mr);
	ck_assert_msg(z <= 4.5, "%s: %s: means %.2f (simrd) and %.2f (ours) %.1f standard errors apart",
		      what, counter, ms, mr, z);
	st->worst_ks = fmax(st->worst_ks, d / dmax);
	st->worst_z = fmax(st->worst_z, z / 4.5);
	st->dist++;
}

static struct runtime_result run_seed(const struct schedule *s, const char *h, uint64_t budget,
				      uint64_t seed)
{
	struct runtime_config cfg = {
		.runtime = RUNTIME_V2_EAGER_OPTIMIZED, .heuristic = heuristic_find(h),
		.budget = budget, .remat_limit = INFINITY, .seed = seed,
	};
	ck_assert_ptr_nonnull(cfg.heuristic);
	struct runtime_result r;
	struct rs_error err = {0};
	ck_assert_msg(runtime_run(s, &cfg, &r, &err) == 0, "%s", err.msg);
	return r;
}

START_TEST(chain_random)
{
	FILE *f = open_test_data("simrd-chain-random.tsv");
	enum { NC = 6 }; /* outcome, model, remat, evictions, evaluations, peak */
	static const char *const counters[NC] = {"outcome", "model compute", "remat compute",
						 "evictions", "evaluations", "peak"};
	static struct hist hs[NC];
	char *line = NULL;
	size_t cap = 0;
	struct schedule *s = NULL;
	unsigned long long cur_n = 0;
	int rows = 0;
	bool header = true;
	struct chain_random_stats st = {0};
	while (getline(&line, &cap, f) > 0) {
		if (line[0] == '#')
			continue;
		if (header) {
			header = false;
			continue;
		}
		line[strcspn(line, "\n")] = '\0';
		char *field[13];
		int nf = 0;
		for (char *p = line, *tab; nf < 13; p = tab + 1) {
			field[nf++] = p;
			if (!(tab = strchr(p, '\t')))
				break;
			*tab = '\0';
		}
		ck_assert_msg(nf == 13, "%d fields in a row of simrd-chain-random.tsv", nf);
		unsigned long long n = strtoull(field[0], NULL, 10);
		uint64_t budget = strtoull(field[2], NULL, 10);
		const char *h = field[3];
		int seeds = atoi(field[5]);
		uint64_t first_seed = strtoull(field[6], NULL, 10);
		ck_assert_msg(!strcmp(field[4], "V2EagerOptimized"), "runtime %s", field[4]);
		ck_assert_msg(heuristic_find(h) && heuristic_find(h)->random, "%s is not random", h);
		ck_assert_int_ge(seeds, 2);
		for (int c = 0; c < NC; c++) {
			hist_parse(field[7 + c], &hs[c], c == 0);
			ck_assert_int_eq(hs[c].total, seeds);
		}
		if (n != cur_n) {
			if (s)
				schedule_free(s);
			struct gen_params p = chain(n);
			s = make(&p);
			cur_n = n;
		}
		const char *other = !strcmp(h, "RandomStorage") ? "AbRandom" : "RandomStorage";
		char what[128];
		snprintf(what, sizeof what, "n=%llu budget=%llu %s", n, (unsigned long long)budget, h);
		int64_t *vals = malloc(sizeof *vals * NC * (size_t)seeds);
		ck_assert_ptr_nonnull(vals);
		for (int k = 0; k < seeds; k++) {
			struct runtime_result r = run_seed(s, h, budget, (uint64_t)k);
			ck_assert_msg(r.heuristic_accesses == r.heuristic_evals &&
					      r.remats == (uint64_t)r.remat_compute &&
					      r.clock == 1 + r.model_compute + r.remat_compute &&
					      r.peak_memory <= budget,
				      "%s seed %d: a draw-independent identity fails", what, k);
			if (k < 20) { /* the other class, as simrd checked it */
				struct runtime_result o = run_seed(s, other, budget, (uint64_t)k);
				ck_assert_msg(r.outcome == o.outcome && r.clock == o.clock &&
						      r.evictions == o.evictions &&
						      r.heuristic_evals == o.heuristic_evals &&
						      r.peak_memory == o.peak_memory,
					      "%s seed %d: %s differs", what, k, other);
			}
			int64_t v[NC] = {r.outcome,
					 r.model_compute,
					 r.remat_compute,
					 (int64_t)r.evictions,
					 (int64_t)r.heuristic_evals,
					 (int64_t)r.peak_memory};
			for (int c = 0; c < NC; c++)
				vals[c * seeds + k] = v[c];
		}
		for (int c = 0; c < NC; c++)
			compare_sample(what, counters[c], &hs[c], vals + c * seeds, seeds, &st);
		/* Drawing as Python does from simrd's seeds: simrd's very sample. */
		for (int k = 0; k < seeds; k++) {
			struct runtime_config cfg = {
				.runtime = RUNTIME_V2_EAGER_OPTIMIZED, .heuristic = heuristic_find(h),
				.budget = budget, .remat_limit = INFINITY,
				.seed = first_seed + (uint64_t)k, .python_random = true,
			};
			struct runtime_result r;
			struct rs_error err = {0};
			ck_assert_msg(runtime_run(s, &cfg, &r, &err) == 0, "%s", err.msg);
			int64_t v[NC] = {r.outcome,
					 r.model_compute,
					 r.remat_compute,
					 (int64_t)r.evictions,
					 (int64_t)r.heuristic_evals,
					 (int64_t)r.peak_memory};
			for (int c = 0; c < NC; c++)
				vals[c * seeds + k] = v[c];
		}
		for (int c = 0; c < NC; c++) {
			int64_t *ours = vals + c * seeds;
			qsort(ours, (size_t)seeds, sizeof *ours, cmp_i64);
			for (int i = 0, j = 0; i < hs[c].n; i++)
				for (int m = 0; m < hs[c].c[i]; m++, j++)
					ck_assert_msg(ours[j] == hs[c].v[i],
						      "%s: %s with Python's draws, seeds %llu..: not simrd's sample",
						      what, counters[c], (unsigned long long)first_seed);
		}
		st.python += seeds;
		free(vals);
		rows++;
	}
	free(line);
	fclose(f);
	if (s)
		schedule_free(s);
	ck_assert_int_ge(rows, 76);
	ck_assert_int_ge(st.dist, 150);
	printf("simrd-chain-random: %d samples: %d counters equal on every seed, %d agree in "
	       "distribution (worst KS distance %.2f, worst mean gap %.2f of the limit); "
	       "with Python's draws, %d runs give simrd's samples exactly\n",
	       rows, st.exact, st.dist, st.worst_ks, st.worst_z, st.python);
}
END_TEST

/* pyrandom.c against Python 3.11's own outputs (python3 -c 'import random;
 * random.seed(0); print([random.getrandbits(32) for _ in range(3)])' etc.). */
START_TEST(py_random_matches_python)
{
	struct py_random r;
	py_random_seed(&r, 0);
	static const uint64_t bits0[] = {3626764237u, 1654615998u, 3255389356u};
	for (int i = 0; i < 3; i++)
		ck_assert_uint_eq(py_random_bits(&r, 32), bits0[i]);
	for (int i = 3; i < 700; i++) /* past the first refill of the state */
		py_random_bits(&r, 32);
	ck_assert_uint_eq(py_random_bits(&r, 32), 2140787315u);
	ck_assert_uint_eq(py_random_below(&r, 1ull << 40), 1099503824002ull);
	static const uint64_t ns[] = {1, 2, 3, 7, 100, 1000, 5};
	static const uint64_t below1[] = {0, 0, 1, 0, 63, 779, 3};
	static const uint64_t below_big[] = {0, 0, 2, 6, 97, 912, 0};
	py_random_seed(&r, 1);
	for (int i = 0; i < 7; i++)
		ck_assert_uint_eq(py_random_below(&r, ns[i]), below1[i]);
	py_random_seed(&r, (1ull << 40) + 5); /* a two-word key */
	for (int i = 0; i < 7; i++)
		ck_assert_uint_eq(py_random_below(&r, ns[i]), below_big[i]);
	static const uint64_t below199[] = {0, 1, 1, 2, 0,  3,  5,  5, 4,  3,  9,  5,  12, 8, 6,
					    0, 16, 12, 15, 16, 7, 15, 4, 19, 22, 16, 10, 12, 26};
	py_random_seed(&r, 199);
	for (uint64_t n = 1; n < 30; n++)
		ck_assert_uint_eq(py_random_below(&r, n), below199[n - 1]);
}
END_TEST

/*
 * The random heuristics draw for draw (tests/data/simrd-chain-random-seeds.tsv):
 * simrd's runs after random.seed(k), 10 seeds per point of chain_random's
 * file, replayed with python_random (Python's generator, seeded alike).
 * Both pools list storages in the order they became evictable, so equal
 * draws pick equal storages, and every counter must be equal.
 */
START_TEST(chain_random_python_seeds)
{
	FILE *f = open_test_data("simrd-chain-random-seeds.tsv");
	char line[512];
	struct schedule *s = NULL;
	unsigned long long cur_n = 0;
	int rows = 0, choices = 0;
	bool header = true;
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '#')
			continue;
		if (header) {
			header = false;
			continue;
		}
		struct chain_row w;
		parse_chain_row(line, true, &w);
		ck_assert_msg(!strcmp(w.rt, "V2EagerOptimized"), "runtime %s", w.rt);
		if (w.n != cur_n) {
			if (s)
				schedule_free(s);
			struct gen_params p = chain(w.n);
			s = make(&p);
			cur_n = w.n;
		}
		struct runtime_config cfg = {
			.runtime = RUNTIME_V2_EAGER_OPTIMIZED, .heuristic = heuristic_find(w.h),
			.budget = w.budget, .remat_limit = INFINITY, .seed = w.seed,
			.python_random = true, .check = w.n <= 128, /* check mode: slow past that */
		};
		ck_assert_msg(cfg.heuristic && cfg.heuristic->random, "%s", w.h);
		struct runtime_result r;
		struct rs_error err = {0};
		ck_assert_msg(runtime_run(s, &cfg, &r, &err) == 0, "%s", err.msg);
		expect_chain_row(&r, &w, line);
		choices += (int)w.evals;
		rows++;
	}
	fclose(f);
	if (s)
		schedule_free(s);
	ck_assert_int_ge(rows, 760);
	printf("simrd-chain-random-seeds: %d seeded runs (%d random choices) match simrd in "
	       "every counter\n",
	       rows, choices);
}
END_TEST

/* simrd's numbers on generated logs of every shape (tests/data/simrd-gen-shapes.tsv). */
START_TEST(shapes_simrd)
{
	FILE *f = open_test_data("simrd-gen-shapes.tsv");
	char line[1024], cur[256] = "";
	struct schedule *s = NULL;
	struct baseline b;
	int rows = 0, acc_diff = 0;
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '#')
			continue;
		char args[256], h[32], rt[32], outcome[8];
		double ratio;
		unsigned long long budget, evals, accesses, peak, bmem;
		long long clock, remat, bcomp;
		int got = sscanf(line, "%255[^\t]\t%31[^\t]\t%31[^\t]\t%lf\t%llu\t%7[^\t]\t%lld\t%lld\t"
				 "%llu\t%llu\t%llu\t%llu\t%lld", args, h, rt, &ratio, &budget, outcome,
				 &clock, &remat, &evals, &accesses, &peak, &bmem, &bcomp);
		ck_assert_msg(got == 13, "bad line: %s", line);
		if (strcmp(args, cur)) {
			/* "SHAPE --key value ..." */
			char words[256], *w[32] = {0};
			int nw = 0;
			snprintf(words, sizeof words, "%s", args);
			for (char *t = strtok(words, " "); t && nw < 32; t = strtok(NULL, " "))
				w[nw++] = t;
			struct gen_params p;
			enum gen_shape shape;
			ck_assert_msg(nw > 0 && gen_shape_parse(w[0], &shape) == 0, "%s", args);
			gen_params_default(&p, shape);
			struct rs_error err;
			for (int i = 1; i + 1 < nw; i += 2)
				ck_assert_msg(gen_params_set(&p, w[i], w[i + 1], &err) == 0, "%s", err.msg);
			if (s)
				schedule_free(s);
			s = make(&p);
			baseline_run(s, &b);
			snprintf(cur, sizeof cur, "%s", args);
		}
		ck_assert_uint_eq(b.memory, bmem);
		ck_assert_int_eq(b.compute, bcomp);
		struct point_config pc = {.rt.heuristic = heuristic_find(h), .ratio = ratio,
					  .overhead_limit = 2, .rt.check = true};
		ck_assert_ptr_nonnull(pc.rt.heuristic);
		ck_assert_int_eq(runtime_kind_parse(rt, &pc.rt.runtime), 0);
		struct point_result pr;
		struct rs_error err = {0};
		ck_assert_msg(point_run(s, &b, &pc, &pr, &err) == 0, "%s", err.msg);
		const char *what = line;
		ck_assert_msg(pr.budget == budget, "%s: budget %llu", what, (unsigned long long)pr.budget);
		ck_assert_msg(!strcmp(outcome_name(pr.run.outcome), outcome), "%s: outcome %s", what,
			      outcome_name(pr.run.outcome));
		ck_assert_msg(pr.run.clock == clock, "%s: clock %lld", what, (long long)pr.run.clock);
		ck_assert_msg(pr.run.remat_compute == remat, "%s: remat %lld", what,
			      (long long)pr.run.remat_compute);
		ck_assert_msg(pr.run.heuristic_evals == evals, "%s: evaluations %llu", what,
			      (unsigned long long)pr.run.heuristic_evals);
		ck_assert_msg(pr.run.peak_memory == peak, "%s: peak %llu", what,
			      (unsigned long long)pr.run.peak_memory);
		if (pr.run.heuristic_accesses != accesses) {
			ck_assert_msg(pc.rt.heuristic->needs & NEEDS_EQCLASS, "%s: accesses %llu", what,
				      (unsigned long long)pr.run.heuristic_accesses);
			ck_assert_msg(fabs((double)pr.run.heuristic_accesses - (double)accesses) <=
					      0.01 * (double)accesses,
				      "%s: accesses %llu (over 1%%)", what,
				      (unsigned long long)pr.run.heuristic_accesses);
			acc_diff++;
		}
		rows++;
	}
	fclose(f);
	if (s)
		schedule_free(s);
	ck_assert_int_ge(rows, 300);
	printf("simrd-gen-shapes: %d points match simrd (union-find accesses differ at %d, "
	       "within 1%%)\n", rows, acc_diff);
}
END_TEST

START_TEST(shapes_totals)
{
	/* residual: 5 ops a block forward and back, plus input and seed */
	for (uint64_t B = 1; B <= 9; B += 4) {
		struct gen_params p;
		gen_params_default(&p, GEN_RESIDUAL);
		p.blocks = B;
		struct schedule *s = make(&p);
		ck_assert_uint_eq(s->n_ops, 10 * B + 2);
		ck_assert_uint_eq(s->n_forward_ops, 5 * B + 1);
		ck_assert_uint_eq(s->n_tensors, 10 * B + 2);
		ck_assert_int_eq(s->total_compute, (int64_t)(10 * B + 2));
		ck_assert_uint_eq(s->n_pins_final, 1);
		schedule_free(s);
	}
	/* unet: forward 2D + 3, backward 3D + 4 (up_backward has two results) */
	for (uint64_t D = 1; D <= 7; D += 3) {
		struct gen_params p;
		gen_params_default(&p, GEN_UNET);
		p.depth = D;
		struct schedule *s = make(&p);
		ck_assert_uint_eq(s->n_forward_ops, 2 * D + 3);
		ck_assert_uint_eq(s->n_backward_ops, 3 * D + 4);
		ck_assert_uint_eq(s->n_tensors, 5 * D + 7 + D + 1);
		ck_assert_int_eq(s->total_compute, (int64_t)(5 * D + 7));
		schedule_free(s);
	}
	/* transformer: 10 + 7H forward and 18 + 6H backward ops a layer,
	 * 12 weights a layer; 1 ns per op at a tiny size */
	struct gen_params p;
	gen_params_default(&p, GEN_TRANSFORMER);
	p.layers = 3, p.heads = 4, p.width = 32, p.seq = 8, p.batch = 1, p.vocab = 20;
	struct schedule *s = make(&p);
	ck_assert_uint_eq(s->n_constants, 4 + 12 * 3);
	ck_assert_uint_eq(s->n_forward_ops, 1 + 3 * (10 + 7 * 4) + 3);
	ck_assert_uint_eq(s->n_backward_ops, 5 + 3 * (18 + 6 * 4));
	ck_assert_uint_eq(s->n_aliases, 3 * (4 * 4 + 4));
	ck_assert_int_eq(s->total_compute, (int64_t)(s->n_ops - s->n_constants));
	schedule_free(s);
}
END_TEST

/* Sizes from shapes, times from FLOPs at 1e9 FLOP/s (1 FLOP = 1 ns). */
START_TEST(transformer_sizes)
{
	struct gen_params p;
	gen_params_default(&p, GEN_TRANSFORMER);
	p.layers = 1, p.heads = 2, p.width = 64, p.seq = 8, p.batch = 2, p.vocab = 16;
	p.flops = 1e9;
	p.dtype_bytes = 4;
	struct schedule *s = make(&p);
	/* op 0: tokens (2*8 int64), op 1: the embedding table (16 x 64 fp32) */
	ck_assert_uint_eq(s->ops[0].total_size, 2 * 8 * 8);
	ck_assert_uint_eq(s->ops[1].total_size, 16 * 64 * 4);
	size_t k = 2 + 12 + 2; /* after the weights: the embedding lookup */
	ck_assert_str_eq(schedule_str(s, s->ops[k].name), "embedding");
	ck_assert_int_eq(s->ops[k].cost, 2 * 8 * 64);
	ck_assert_uint_eq(s->ops[k].total_size, 2 * 8 * 64 * 4);
	/* layer norm: y [B,S,W] and fp32 mean, rstd [B,S] */
	ck_assert_uint_eq(s->ops[k + 1].n_outs, 3);
	ck_assert_uint_eq(s->ops[k + 1].total_size, 2 * 8 * 64 * 4 + 2 * 2 * 8 * 4);
	/* fused q/k/v projection: 2 * tokens * W * 3W FLOPs */
	ck_assert_str_eq(schedule_str(s, s->ops[k + 2].name), "addmm");
	ck_assert_int_eq(s->ops[k + 2].cost, 2 * 16 * 64 * 192);
	ck_assert_uint_eq(s->ops[k + 2].total_size, 16 * 192 * 4);
	schedule_free(s);

	/* --layers 96 with GPT-3's block (width 12288, 96 heads, 2048
	 * tokens): about 1.2e5 ops, (10 + 7H) + (18 + 6H) a layer */
	gen_params_default(&p, GEN_TRANSFORMER);
	p.layers = 96, p.width = 12288, p.heads = 96, p.seq = 2048;
	s = make(&p);
	ck_assert_uint_eq(s->n_ops, 1156 + 65476 + 57029);
	schedule_free(s);
	/* ... and at the defaults (12 heads): 96 x (94 + 90) + 9 + 1156 */
	gen_params_default(&p, GEN_TRANSFORMER);
	ck_assert_uint_eq(p.width, 768);
	ck_assert_uint_eq(p.heads, 12);
	ck_assert_uint_eq(p.seq, 1024);
	ck_assert_uint_eq(p.batch, 1);
	p.layers = 96;
	s = make(&p);
	ck_assert_uint_eq(s->n_ops, 96 * (94 + 90) + 9 + 1156);
	schedule_free(s);
}
END_TEST

START_TEST(seeds)
{
	struct gen_params p = chain(300);
	const char *why;
	ck_assert_int_eq(gen_dist_parse("lognormal:3:1", &p.time, &why), 0);
	ck_assert_int_eq(gen_dist_parse("uniform:10:1000", &p.size, &why), 0);
	p.seed = 42;
	char *a, *b, *c;
	size_t la, lb, lc;
	struct rs_error err;
	ck_assert_int_eq(gen_text(&p, &a, &la, &err), 0);
	ck_assert_int_eq(gen_text(&p, &b, &lb, &err), 0);
	p.seed = 43;
	ck_assert_int_eq(gen_text(&p, &c, &lc, &err), 0);
	ck_assert(la == lb && !memcmp(a, b, la));
	ck_assert(la != lc || memcmp(a, c, la));
	free(a);
	free(b);
	free(c);
	/* const draws take no randomness: the seed does not matter */
	p = chain(20);
	p.seed = 7;
	ck_assert_int_eq(gen_text(&p, &a, &la, &err), 0);
	p.seed = 8;
	ck_assert_int_eq(gen_text(&p, &b, &lb, &err), 0);
	ck_assert(la == lb && !memcmp(a, b, la));
	free(a);
	free(b);

	/* heterogeneous chains: sizes and times within their bounds */
	p = chain(500);
	ck_assert_int_eq(gen_dist_parse("uniform:10:20", &p.size, &why), 0);
	ck_assert_int_eq(gen_dist_parse("const:7", &p.time, &why), 0);
	struct schedule *s = make(&p);
	for (size_t i = 0; i < s->n_storages; i++)
		ck_assert(s->storages[i].size >= 10 && s->storages[i].size <= 20);
	ck_assert_int_eq(s->total_compute, 7 * 1000);
	schedule_free(s);
}
END_TEST

/* gen_build against a read of gen_text, with options ro. */
static void built_vs_read(const struct gen_params *p, const struct read_options *ro, const char *what)
{
	char *text;
	size_t len;
	struct rs_error err = {0}, berr = {0};
	ck_assert_msg(gen_text(p, &text, &len, &err) == 0, "%s: %s", what, err.msg);
	struct schedule *read = NULL, *built = NULL;
	int rr = schedule_parse("gen.log", text, len, ro, &read, &err);
	int rb = gen_build(p, "gen.log", ro, &built, &berr);
	free(text);
	ck_assert_msg(rr == rb, "%s: read %d, built %d (%s)", what, rr, rb, rr ? err.msg : berr.msg);
	if (rr) {
		ck_assert_str_eq(err.msg, berr.msg);
		ck_assert_str_eq(err.file, berr.file);
		ck_assert_int_eq(err.line, berr.line);
		ck_assert_int_eq(err.status, berr.status);
		ck_assert_ptr_null(built);
		return;
	}
	assert_same_schedule(read, built, what);
	schedule_free(read);
	schedule_free(built);
}

START_TEST(built_is_read)
{
	static const char *const dists[][2] = {
		{"const:1", "const:1"},
		{"lognormal:3:1", "uniform:10:1000"},
		{"uniform:1:9", "lognormal:5:2"},
	};
	static const struct read_options opts[] = {
		{0}, {.digest = true}, {.preallocate = true, .digest = true}, {.from_start = true},
	};
	const char *why;
	char what[128];
	for (int shape = 0; shape < GEN_SHAPE_COUNT; shape++)
		for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++)
			for (size_t o = 0; o < sizeof opts / sizeof opts[0]; o++) {
				struct gen_params p;
				gen_params_default(&p, (enum gen_shape)shape);
				p.n = 1 + 37 * d;
				p.blocks = 1 + 3 * d;
				p.depth = 1 + 2 * d;
				p.layers = 1 + d;
				p.width = 60, p.heads = 1 + 2 * d, p.seq = 8, p.vocab = 50;
				p.seed = 11 * d + o;
				ck_assert_int_eq(gen_dist_parse(dists[d][0], &p.time, &why), 0);
				ck_assert_int_eq(gen_dist_parse(dists[d][1], &p.size, &why), 0);
				snprintf(what, sizeof what, "%s, dists %zu, options %zu",
					 gen_shape_name((enum gen_shape)shape), d, o);
				built_vs_read(&p, &opts[o], what);
			}
	/* A U-Net whose ops' times pass the reader's bound only when counted
	 * once per result (depth 40: 207 ops, 41 of them with two results;
	 * 207 x 5e15 <= 2^60 < 248 x 5e15): the generator's own check lets
	 * it through, the reader refuses it, and so does the build. */
	struct gen_params p;
	gen_params_default(&p, GEN_UNET);
	p.depth = 40;
	ck_assert_int_eq(gen_dist_parse("const:5000000000000000", &p.time, &why), 0);
	built_vs_read(&p, &opts[1], "unet past the time bound");
	/* The generator's own refusal wins, as when its text came first. */
	p = chain(20);
	ck_assert_int_eq(gen_dist_parse("const:1e17", &p.time, &why), 0);
	struct schedule *s = NULL;
	struct rs_error err = {0};
	ck_assert_int_eq(gen_build(&p, "gen.log", &opts[0], &s, &err), -1);
	ck_assert_int_eq(err.status, EXIT_USAGE);
	ck_assert_ptr_null(s);
}
END_TEST

START_TEST(distributions)
{
	struct gen_dist d;
	const char *why;
	ck_assert_int_eq(gen_dist_parse("const:3", &d, &why), 0);
	ck_assert(d.kind == DIST_CONST && d.a == 3);
	ck_assert_int_eq(gen_dist_parse("uniform:1:2.5", &d, &why), 0);
	ck_assert(d.kind == DIST_UNIFORM && d.a == 1 && d.b == 2.5);
	ck_assert_int_eq(gen_dist_parse("lognormal:-1:0.5", &d, &why), 0);
	ck_assert(d.kind == DIST_LOGNORMAL && d.a == -1 && d.b == 0.5);
	ck_assert_int_eq(gen_dist_parse("uniform:4:4", &d, &why), 0);
	static const char *const bad[] = {
		"", "const", "const:", "const:0", "const:-1", "const:1:2", "const:x",
		"const:nan", "const:inf", "const:0x10", "uniform:1", "uniform:2:1",
		"uniform:0:1", "uniform:-1:1", "lognormal:1:0", "lognormal:1:-1",
		"lognormal:100:1", "normal:1:1", "Const:1", "const:1e30", "const: 1",
		"uniform:1:2:3",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(gen_dist_parse(bad[i], &d, &why) == -1, "'%s' accepted", bad[i]);

	struct gen_params p;
	struct rs_error err;
	gen_params_default(&p, GEN_LINEAR);
	ck_assert_int_eq(gen_check(&p, &err), -1); /* no n */
	ck_assert_int_eq(gen_params_set(&p, "n", "0", &err), -1);
	ck_assert_int_eq(gen_params_set(&p, "n", "-3", &err), -1);
	ck_assert_int_eq(gen_params_set(&p, "n", "2.5", &err), -1);
	ck_assert_int_eq(gen_params_set(&p, "blocks", "3", &err), -1); /* not linear's */
	ck_assert_int_eq(gen_params_set(&p, "nope", "3", &err), -1);
	ck_assert_int_eq(gen_params_set(&p, "--n", "8", &err), 0);
	ck_assert_int_eq(gen_params_set(&p, "size_dist", "const:2", &err), 0);
	ck_assert_int_eq(gen_check(&p, &err), 0);
	/* a total past the reader's 2^60 bytes: refused, nothing half written */
	ck_assert_int_eq(gen_params_set(&p, "size-dist", "const:1e17", &err), 0);
	char *t;
	size_t l;
	ck_assert_int_eq(gen_text(&p, &t, &l, &err), -1);
	ck_assert_int_eq(err.status, EXIT_USAGE);
	ck_assert_ptr_null(t);
	gen_params_default(&p, GEN_TRANSFORMER);
	ck_assert_int_eq(gen_params_set(&p, "heads", "7", &err), 0);
	ck_assert_int_eq(gen_check(&p, &err), -1); /* 768 % 7 */
}
END_TEST

START_TEST(formulas)
{
	struct formula f;
	const char *why;
	int at;
	uint64_t b;
	static const struct {
		const char *text;
		double n;
		uint64_t want;
	} ok[] = {
		{"2*sqrt(n)", 8, 6}, {"sqrt(n)", 65536, 256}, {"log2(n)", 1024, 10},
		{"log2(n)", 1000, 10}, {"4*sqrt(n)", 10, 13}, {"64", 5, 64},
		{"n/2", 7, 4}, {"2^3 + n", 1, 9}, {"-(1-n)", 5, 4}, {"ceil(n/3)*2", 7, 6},
		{" 3 * log(exp(2)) ", 1, 6}, {"floor(1.5e1)", 0, 15}, {"2^2^3", 0, 256},
	};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		ck_assert_msg(formula_parse(ok[i].text, &f, &why, &at) == 0, "%s: %s", ok[i].text, why);
		ck_assert_int_eq(formula_budget(&f, ok[i].n, &b, &why), 0);
		ck_assert_msg(b == ok[i].want, "%s at %g: %llu", ok[i].text, ok[i].n,
			      (unsigned long long)b);
	}
	/* simrd's bounds: ceil(2 sqrt n), ceil(sqrt n), ceil(log2 n) for every n */
	struct formula tq, sq, lg;
	formula_parse("2*sqrt(n)", &tq, &why, &at);
	formula_parse("sqrt(n)", &sq, &why, &at);
	formula_parse("log2(n)", &lg, &why, &at);
	for (double n = 1; n <= 70000; n++) {
		ck_assert_double_eq(ceil(formula_eval(&tq, n)), ceil(2 * sqrt(n)));
		ck_assert_double_eq(ceil(formula_eval(&sq, n)), ceil(sqrt(n)));
		ck_assert_double_eq(ceil(formula_eval(&lg, n)), ceil(log2(n)));
	}
	static const char *const bad[] = {"", "2*", "sqrt n", "sqrt(n", "m", "2n", "(n))",
					  "0x10", "nan", "inf*n", "n**2", "n,2"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(formula_parse(bad[i], &f, &why, &at) == -1, "'%s' accepted", bad[i]);
	formula_parse("n-10", &f, &why, &at);
	ck_assert_int_eq(formula_budget(&f, 3, &b, &why), -1);
	formula_parse("log2(n)", &f, &why, &at);
	ck_assert_int_eq(formula_budget(&f, 0, &b, &why), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("gen");
	TCase *tc = tcase_create("gen");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, chain_totals);
	tcase_add_test(tc, chain_no_pressure);
	tcase_add_test(tc, chain_by_hand);
	tcase_add_test(tc, chain_simrd);
	tcase_add_test(tc, chain_random);
	tcase_add_test(tc, py_random_matches_python);
	tcase_add_test(tc, chain_random_python_seeds);
	tcase_add_test(tc, shapes_simrd);
	tcase_add_test(tc, shapes_totals);
	tcase_add_test(tc, transformer_sizes);
	tcase_add_test(tc, seeds);
	tcase_add_test(tc, built_is_read);
	tcase_add_test(tc, distributions);
	tcase_add_test(tc, formulas);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
