/*
 * test-experiment.c: the experiment layer. Unit tests of the scalar rules,
 * the YAML reader's errors and the frontier; integration tests that run the
 * `rematsim` named by $REMATSIM (sweep, resume, shards, merge) on the small
 * logs of tests/data ($TEST_DATA_DIR).
 */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "experiment.h"
#include "plot.h"
#include "results.h"
#include "scalar.h"

/* ---------------------------------------------------------------- helpers */

static const char *data_dir(void)
{
	const char *d = getenv("TEST_DATA_DIR");
	return d ? d : "tests/data";
}

static const char *rematsim(void)
{
	const char *r = getenv("REMATSIM");
	return r ? r : "build/rematsim";
}

static char *tmp_dir(void)
{
	char *t = strdup("/tmp/rematsim-test-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(t));
	return t;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static char *read_text(const char *path)
{
	char *data;
	size_t len;
	struct rs_error err;
	if (read_whole_file(path, &data, &len, &err))
		return NULL;
	return data;
}

/* Run a shell command; returns its exit status. */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* The rows of a points file without `#` lines and without wall_ms (gives). */
static char *rows_sans_wall(const char *path)
{
	char *text = read_text(path);
	ck_assert_msg(text != NULL, "cannot read %s", path);
	char *out = calloc(1, strlen(text) + 1);
	char *o = out;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] == '#')
			continue;
		/* copy every field but wall_ms */
		size_t col = 0;
		for (char *p = line;; col++) {
			char *tab = strchr(p, '\t');
			size_t n = tab ? (size_t)(tab - p) : strlen(p);
			if (col != PC_WALL_MS) {
				memcpy(o, p, n);
				o += n;
				*o++ = '\t';
			}
			if (!tab)
				break;
			p = tab + 1;
		}
		o[-1] = '\n';
	}
	free(text);
	return out;
}

static size_t count_rows(const char *path)
{
	char *rows = rows_sans_wall(path);
	size_t n = 0;
	for (char *p = rows; *p; p++)
		n += *p == '\n';
	free(rows);
	return n ? n - 1 : 0; /* minus the column line */
}

/* An experiment over the three test logs (absolute paths). */
static void write_experiment(const char *dir, const char *name, const char *extra)
{
	char path[4096], text[8192];
	snprintf(path, sizeof path, "%s/%s.yaml", dir, name);
	snprintf(text, sizeof text,
		 "experiment: %s\n"
		 "models:\n"
		 "  - {name: chain8, log: %s/chain8.log, title: Chain (8), desc: tiny}\n"
		 "  - {name: chain12, log: %s/chain12.log, title: Chain (12)}\n"
		 "  - {name: chain16, log: %s/chain16.log}\n"
		 "heuristics: [DTR, LRU, RandomStorage]\n"
		 "trials: 3\n"
		 "seed: 7\n"
		 "ratios: [0.1, 0.2, 0.3, 0.5, 0.7, 1.0]\n"
		 "%s",
		 name, data_dir(), data_dir(), data_dir(), extra ? extra : "");
	write_text(path, text);
}

/* ---------------------------------------------------------------- scalars */

START_TEST(scalar_numbers)
{
	double d;
	uint64_t u;
	const char *why;
	ck_assert_int_eq(scalar_parse_double("0.25", &d, &why), 0);
	ck_assert(d == 0.25);
	ck_assert_int_eq(scalar_parse_double("1e9", &d, &why), 0);
	ck_assert(d == 1e9);
	ck_assert_int_eq(scalar_parse_double("-2.5E-3", &d, &why), 0);
	ck_assert(d == -2.5e-3);
	ck_assert_int_eq(scalar_parse_double(".5", &d, &why), 0);
	ck_assert(d == 0.5);
	ck_assert_int_eq(scalar_parse_double("inf", &d, &why), 0);
	ck_assert(isinf(d) && d > 0);
	ck_assert_int_eq(scalar_parse_double(".inf", &d, &why), 0);
	ck_assert(isinf(d));
	ck_assert_int_eq(scalar_parse_double("1.5KiB", &d, &why), 0);
	ck_assert(d == 1536);

	ck_assert_int_eq(scalar_parse_u64("2GiB", &u, &why), 0);
	ck_assert_uint_eq(u, 2ull << 30);
	ck_assert_int_eq(scalar_parse_u64("3MB", &u, &why), 0);
	ck_assert_uint_eq(u, 3000000);
	ck_assert_int_eq(scalar_parse_u64("1e9", &u, &why), 0);
	ck_assert_uint_eq(u, 1000000000);
	ck_assert_int_eq(scalar_parse_u64("18446744073709551615", &u, &why), 0);
	ck_assert_uint_eq(u, UINT64_MAX);
	ck_assert_int_eq(scalar_parse_u64("1.5KiB", &u, &why), 0);
	ck_assert_uint_eq(u, 1536);
	ck_assert_int_eq(scalar_parse_u64("7KB", &u, &why), 0);
	ck_assert_uint_eq(u, 7000);
	/* suffixes in any case (issue 44): 30mb is 30MB, 1gib 1GiB */
	ck_assert_int_eq(scalar_parse_u64("30mb", &u, &why), 0);
	ck_assert_uint_eq(u, 30000000);
	ck_assert_int_eq(scalar_parse_u64("1gib", &u, &why), 0);
	ck_assert_uint_eq(u, 1ull << 30);
}
END_TEST

START_TEST(scalar_rejects)
{
	double d;
	uint64_t u;
	const char *why;
	const char *bad[] = {"", "abc", "1e", "0x10", "nan", "1 GiB", " 1", "1,000",
			     "1_000", "1GB2", "1M", "30g", "1gibs", "--1", "."};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(scalar_parse_double(bad[i], &d, &why) == -1, "'%s' accepted", bad[i]);
	ck_assert_int_eq(scalar_parse_u64("0.5", &u, &why), -1);
	ck_assert_int_eq(scalar_parse_u64("-1", &u, &why), -1);
	ck_assert_int_eq(scalar_parse_u64("inf", &u, &why), -1);
	ck_assert_int_eq(scalar_parse_u64("18446744073709551616", &u, &why), -1);
	ck_assert_int_eq(scalar_parse_u64("20000000TiB", &u, &why), -1);
	int b;
	ck_assert_int_eq(scalar_parse_bool("yes", &b, &why), 0);
	ck_assert_int_eq(b, 1);
	ck_assert_int_eq(scalar_parse_bool("False", &b, &why), 0);
	ck_assert_int_eq(b, 0);
	ck_assert_int_eq(scalar_parse_bool("2", &b, &why), -1);
}
END_TEST

/* ---------------------------------------------------------------- YAML */

/* Parse text; expect failure with message "FILE:LINE:COL: ...needle...". */
static void expect_error(const char *text, long line, long col, const char *needle)
{
	struct experiment *e;
	struct rs_error err;
	/* not zeroed: a parser that reads err before it fills it gets garbage
	 * (issue 27, N18: a yrange of the wrong length) */
	memset(&err, 0x5a, sizeof err);
	int rc = experiment_parse("t.yaml", text, strlen(text), &e, &err);
	ck_assert_msg(rc == -1, "accepted:\n%s", text);
	ck_assert_int_eq(err.status, EXIT_DATAERR);
	ck_assert_msg(err.line == line && err.column == col,
		      "error at %ld:%ld, expected %ld:%ld (%s)", err.line, err.column, line,
		      col, err.msg);
	ck_assert_msg(strstr(err.msg, needle), "'%s' lacks '%s'", err.msg, needle);
	ck_assert_str_eq(err.file, "t.yaml");
}

START_TEST(yaml_errors)
{
	/* issue 40, H17: gap: names a planner the experiment lacks */
	expect_error("experiment: x\nmodels: [{name: a, log: a.log}]\nheuristics: [DTR]\n"
		     "ratios: [0.5]\ngap: ilp-lp\nplanners: {ilp: {ratio: [0.5]}}\n",
		     5, 6, "'gap' names planner 'ilp-lp', which 'planners' lacks");
	expect_error("experiment: x\nmodels: [{name: a, log: a.log}]\nheuristics: [DTR]\n"
		     "ratios: [0.5]\ngap: ilp\n",
		     5, 6, "'gap' names planner 'ilp', which 'planners' lacks");
	expect_error("experiment: x\nmodels: [{name: a, log: a.log}]\nheuristics: [DTR]\n"
		     "ratio: [0.5]\n",
		     4, 1, "unknown key 'ratio'");
	expect_error("experiment: x\nmodels: [{name: a, log: a.log}]\nheuristics: [DTR]\n"
		     "seed: 1\nseed: 2\n",
		     5, 1, "duplicate key 'seed'");
	expect_error("experiment: x\nmodels: [{name: a, log: a.log}]\n"
		     "heuristics: DTR\n",
		     3, 13, "must be a list");
	expect_error("experiment: x\nmodels: [{name: a, log: a.log}]\nheuristics: [DTR]\n"
		     "ratios: [0.1, big]\n",
		     4, 15, "not a number");
	expect_error("experiment: x\nmodels: [{name: a, log: a.log}]\nheuristics: [DTR]\n"
		     "no_dealloc: maybe\n",
		     4, 13, "true or false");
	expect_error("experiment: x\nmodels:\n  - {name: a, log: a.log, colour: red}\n"
		     "heuristics: [DTR]\n",
		     3, 27, "unknown key 'colour'");
	expect_error("experiment: x\nmodels: [{name: a, log: a.log}]\n"
		     "heuristics: [DTR, Nope]\n",
		     3, 19, "unknown heuristic 'Nope'");
	expect_error("experiment: x\nmodels: [{name: a, log: a.log}]\nheuristics: [DTR]\n"
		     "runtime: V3\n",
		     4, 10, "unknown runtime 'V3'");
	expect_error("experiment: x\nmodels: [{name: a, log: a.log}]\nheuristics: [DTR]\n"
		     "seed: -4\n",
		     4, 7, "non-negative");
	expect_error("experiment: x\nmodels: [{name: a}]\nheuristics: [DTR]\n", 2, 10,
		     "needs 'name' and 'log'");
	expect_error("experiment: x\nmodels: [{name: a, log: a.log}]\nheuristics: [DTR, LRU, DTR]\n",
		     3, 24, "series 'DTR' appears twice");
	expect_error("experiment: x\nmodels: [{name: a, log: a.log}]\nseries:\n"
		     "  - {name: s, heuristic: DTR}\n  - {name: s, heuristic: LRU}\n",
		     5, 12, "series 's' appears twice");
	expect_error("experiment: x\nmodels: [{name: a, log: a.log}]\nheuristics: [DTR]\n"
		     "yrange: [1]\n", 4, 9, "'yrange' must be [LOW, HIGH]");
	expect_error("experiment: x\nmodels: [{name: a, log: a.log}]\nheuristics: [DTR]\n"
		     "yrange: [1, 2, 3]\n", 4, 9, "'yrange' must be [LOW, HIGH]");
	expect_error("experiment: x\nmodels: [{name: a, log: a.log}]\nheuristics: [DTR]\n"
		     "yrange: [2, 1]\n", 4, 9, "'yrange' must be [LOW, HIGH]");
	expect_error("experiment: x\nmodels: [{name: a, log: a.log}]\nheuristics: [DTR]\n"
		     "yrange: [1, high]\n", 4, 13, "not a number");
	expect_error("experiment: x\nmodels: [{name: a, log: a.log}]\n"
		     "heuristics: [DTR]\nseries:\n  - {name: DTR, heuristic: LRU}\n",
		     5, 12, "appears twice"); /* (was 1:1: issue 27, D18) */
	expect_error("experiment: x\n  bad: [\n", 2, 6, "YAML");
	expect_error("experiment: x\nmodels: [{name: a, log: a.log}]\nheuristics: [DTR]\n"
		     "overhead_limit: 0.5\n",
		     4, 17, "at least 1");
	expect_error("experiment: x\nmodels: [{name: a, log: a.log}]\nheuristics: [DTR]\n"
		     "yrange: [3, 1]\n",
		     4, 9, "'yrange' must be [LOW, HIGH]");
	expect_error("experiment: x\nmodels: [{name: a, log: a.log}]\nheuristics: [DTR]\n"
		     "yrange: [1]\n",
		     4, 9, "'yrange' must be [LOW, HIGH]");
	expect_error("experiment: x\nmodels: [{name: a, log: a.log}]\n"
		     "heuristics: [DTR, DTRLocl]\n",
		     3, 19, "did you mean DTRLocal?");
	/* A heuristic its runtime cannot serve: caught before any log is read. */
	expect_error("experiment: x\nmodels: [{name: a, log: a.log}]\n"
		     "series:\n  - {name: s, heuristic: DTR, runtime: V1}\n",
		     4, 5, "only the V2Optimized");
	expect_error("experiment: x\nmodels: [{name: a, log: a.log}]\nruntime: V2\n"
		     "heuristics: [LRU, DTREqClass]\n",
		     4, 19, "DTREqClass");
	expect_error("experiment: x\nmodels: [{name: a, log: a.log}]\n"
		     "series:\n  - {name: s, heuristic: DTR, trials: 3}\n",
		     4, 39, "deterministic");
	expect_error("experiment: x\nmodels: [{name: a, log: a.log}]\nheuristics: [LRU]\n"
		     "ratios: [0.5, 0.5]\n",
		     4, 15, "listed twice");
	expect_error("experiment: x\nmodels: [{name: a, log: a.log}]\nheuristics: [LRU]\n"
		     "---\nexperiment: y\n",
		     5, 1, "second YAML document");
}
END_TEST

START_TEST(yaml_good)
{
	const char *text =
		"experiment: banishing\n"
		"models:\n"
		"  - {name: a, log: logs/a.log, title: A, desc: 'd e'}\n"
		"  - {name: b, log: 'z.zip:logs/b.log'}\n"
		"heuristics: [DTR, RandomStorage]\n"
		"trials: 4\n"
		"seed: 1e3\n"
		"overhead_limit: inf\n"
		"yrange: [0.8, 4]\n"
		"ratios: [0.5, 1]\n"
		"series:\n"
		"  - {name: banishing, heuristic: DTRUnopt, runtime: V1}\n"
		"  - {name: no deallocations, heuristic: DTR, no_dealloc: true}\n";
	struct experiment *e;
	struct rs_error err = {0};
	ck_assert_int_eq(experiment_parse("dir/x.yaml", text, strlen(text), &e, &err), 0);
	ck_assert_str_eq(e->name, "banishing");
	ck_assert_uint_eq(e->n_models, 2);
	ck_assert_str_eq(e->models[0].spec, "dir/logs/a.log");
	ck_assert_str_eq(e->models[1].spec, "dir/z.zip:logs/b.log");
	ck_assert_str_eq(e->models[1].title, "b");
	ck_assert_str_eq(e->models[0].desc, "d e");
	ck_assert_uint_eq(e->n_series, 4);
	ck_assert_uint_eq(e->series[0].trials, 1);
	ck_assert_uint_eq(e->series[1].trials, 4);
	ck_assert_str_eq(e->series[2].name, "banishing");
	ck_assert_int_eq(e->series[2].runtime, RUNTIME_V1);
	ck_assert_int_eq(e->series[3].runtime, RUNTIME_V2_EAGER_OPTIMIZED);
	ck_assert(e->series[3].no_dealloc);
	ck_assert_uint_eq(e->seed, 1000);
	ck_assert(isinf(e->overhead_limit));
	ck_assert(e->yrange[0] == 0.8 && e->yrange[1] == 4);
	ck_assert_uint_eq(e->n_steps, 2);
	/* (1 + 4 + 1 + 1) series-trials x 2 ratios x 2 models */
	ck_assert_uint_eq(experiment_n_points(e), 28);
	struct exp_point p;
	experiment_point(e, 27, &p);
	ck_assert_uint_eq(p.model, 1);
	ck_assert_uint_eq(p.series, 3);
	ck_assert_uint_eq(p.step, 1);
	experiment_point(e, 2 + 2 * 2 + 1, &p); /* model 0, RandomStorage trial 2, step 1 */
	ck_assert_uint_eq(p.series, 1);
	ck_assert_uint_eq(p.trial, 2);
	ck_assert_uint_eq(p.step, 1);
	ck_assert_uint_eq(p.seed, experiment_trial_seed(1000, "a", "RandomStorage", 2));
	ck_assert_uint_ne(p.seed, experiment_trial_seed(1000, "a", "RandomStorage", 1));
	experiment_free(e);

	/* Defaults: ratios 0.1 .. 1.0, limit 2, 10 random trials. */
	const char *small = "experiment: s\nmodels: [{name: a, log: a.log}]\n"
			    "heuristics: [RandomStorage]\nbudgets: [1MiB, 2e6]\n";
	ck_assert_int_eq(experiment_parse("s.yaml", small, strlen(small), &e, &err), 0);
	ck_assert_uint_eq(e->series[0].trials, 10);
	ck_assert(e->overhead_limit == 2);
	ck_assert_uint_eq(e->budgets[0], 1u << 20);
	ck_assert_uint_eq(e->budgets[1], 2000000);
	experiment_free(e);
	const char *dflt = "experiment: s\nmodels: [{name: a, log: a.log}]\nheuristics: [LRU]\n";
	ck_assert_int_eq(experiment_parse("s.yaml", dflt, strlen(dflt), &e, &err), 0);
	ck_assert_uint_eq(e->n_steps, 10);
	ck_assert(e->ratios[2] == 0.3);
	ck_assert(e->ratios[9] == 1.0);
	experiment_free(e);
}
END_TEST

START_TEST(seed_formula)
{
	/* The documented formula, spelled out once more. */
	uint64_t h = FNV1A64_INIT;
	h = fnv1a64(h, "m\x1fh\x1f" "3", 5);
	ck_assert_uint_eq(experiment_trial_seed(42, "m", "h", 3), splitmix64(42 ^ h));
	/* Pinned, so that a change of fnv1a64 or splitmix64 (hash.h), which the
	 * line above would follow, is caught: the values of an independent
	 * FNV-1a and splitmix64 (Python, by hand), and the seeds of chain8's
	 * RandomStorage trials in a sweep with seed 0 (the `seed` column of
	 * points.tsv, docs/experiments.md). */
	ck_assert_uint_eq(experiment_trial_seed(42, "m", "h", 3), 0x9b65b78dfbddf3d1ull);
	ck_assert_uint_eq(experiment_trial_seed(0, "chain8", "RandomStorage", 0), 12297602080500157274ull);
	ck_assert_uint_eq(experiment_trial_seed(0, "chain8", "RandomStorage", 1), 1990471138663067992ull);
	ck_assert_uint_eq(experiment_trial_seed(0, "chain8", "RandomStorage", 2), 2223387291497870509ull);
	char buf[FMT_DOUBLE_LEN];
	fmt_double(buf, 0.1);
	ck_assert_str_eq(buf, "0.1");
	fmt_double(buf, 1.0 / 3);
	ck_assert(strtod(buf, NULL) == 1.0 / 3);
}
END_TEST

/* fmt_double's bisection gives the text of its definition (the first
 * of 1..17 digits that reads back) on every kind of double: random bits,
 * quotients like the overheads and ratios it prints, powers of two (the
 * linear search) and their neighbours, subnormals. */
START_TEST(fmt_double_bisection)
{
	char a[FMT_DOUBLE_LEN], b[FMT_DOUBLE_LEN];
	uint64_t r = 0x9e3779b97f4a7c15ull;
	long n = 0;
	for (int i = 0; i < 300000; i++) {
		r = splitmix64(r);
		double x;
		switch (i % 6) {
		case 0: /* any bit pattern */
			memcpy(&x, &r, sizeof x);
			break;
		case 1: /* a quotient of small whole numbers */
			x = (double)(r % 100000) / (double)((r >> 32) % 9999 + 1);
			break;
		case 2: /* a ratio of large counts, as an overhead */
			x = (double)(r >> 20) / (double)((r & 0xfffff) + 1) / 1e6;
			break;
		case 3: /* a power of two, or a double next to one */
			x = ldexp(1.0, (int)(r % 2098) - 1074);
			if (r & (1ull << 40))
				x = nextafter(x, (r & (1ull << 41)) ? INFINITY : 0);
			break;
		case 4: /* a subnormal */
			r &= 0x800fffffffffffffull;
			memcpy(&x, &r, sizeof x);
			break;
		default: /* a short decimal and its neighbours */
			x = (double)(r % 1000) / 1000.0 * pow(10, (int)((r >> 40) % 40) - 20);
			if (r & (1ull << 60))
				x = nextafter(x, (r & (1ull << 61)) ? INFINITY : -INFINITY);
			break;
		}
		fmt_double(a, x);
		if (x == floor(x) && fabs(x) < 1e15)
			continue; /* whole numbers: %.0f, not searched */
		fmt_double_linear(b, x);
		ck_assert_msg(!strcmp(a, b), "%a: %s against %s", x, a, b);
		n++;
	}
	ck_assert_int_gt(n, 200000);
	const double special[] = {INFINITY, -INFINITY, NAN, 0.5, 0.1, 1e-310, 5e-324, 1.7976931348623157e308,
				  2.2250738585072014e-308, 0.30000000000000004, 1e15 + 0.5, -0.125};
	for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
		ck_assert_str_eq(fmt_double(a, special[i]), fmt_double_linear(b, special[i]));
	ck_assert_str_eq(fmt_double(a, 0.30000000000000004), "0.30000000000000004");
	ck_assert_str_eq(fmt_double(a, 1e-310), "1e-310");
	ck_assert_str_eq(fmt_double(a, -INFINITY), "-inf");
}
END_TEST

/* ---------------------------------------------------------------- frontier */

START_TEST(frontier_prefix_min)
{
	struct points_table t = {0};
	points_header_add(&t, "points", "5");
	points_table_size(&t, 5);
	/* ratios out of order on purpose; 0.2 fails, 0.6 is worse than 0.4 */
	const char *rows[] = {
		"m\tH\tV2\t0\t1\t0.6\t6\tpass\t1.5\t0\t0\t0\t0\t0\t0\t0\t1\tS\t0",
		"m\tH\tV2\t0\t1\t0.2\t2\toom\t1.1\t0\t0\t0\t0\t0\t0\t0\t1\tS\t1",
		"m\tH\tV2\t0\t1\t0.4\t4\tpass\t1.25\t0\t0\t0\t0\t0\t0\t0\t1\tS\t2",
		"m\tH\tV2\t0\t1\t0.8\t8\tthrash\t3\t0\t0\t0\t0\t0\t0\t0\t1\tS\t3",
		"m\tH\tV2\t0\t1\t1\t10\tpass\t1\t0\t0\t0\t0\t0\t0\t0\t1\tS\t4",
	};
	for (size_t i = 0; i < 5; i++)
		points_table_put(&t, i, strdup(rows[i]));
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	frontier_write(f, &t);
	fclose(f);
	const char *want = FRONTIER_COLUMNS "\n"
			   "m\tS\tH\tV2\t0\t0.4\t1.25\t0.4\n"
			   "m\tS\tH\tV2\t0\t0.6\t1.25\t0.4\n"
			   "m\tS\tH\tV2\t0\t0.8\t1.25\t0.4\n"
			   "m\tS\tH\tV2\t0\t1\t1\t1\n";
	char *body = strstr(buf, FRONTIER_COLUMNS);
	ck_assert_ptr_nonnull(body);
	ck_assert_str_eq(body, want);
	free(buf);
	points_table_free(&t);
}
END_TEST

/* Two trials of one series: each its own prefix minimum, never the other
 * trial's (a group keyed on model and series alone would carry trial 1's
 * better overhead into trial 0's rows and label them all trial 0). */
START_TEST(frontier_two_trials)
{
	struct points_table t = {0};
	points_header_add(&t, "points", "4");
	points_table_size(&t, 4);
	const char *rows[] = {
		"m\tH\tV2\t0\t1\t0.5\t5\tpass\t1.5\t0\t0\t0\t0\t0\t0\t0\t1\tS\t0",
		"m\tH\tV2\t0\t1\t1\t10\tpass\t1.2\t0\t0\t0\t0\t0\t0\t0\t1\tS\t1",
		"m\tH\tV2\t1\t2\t0.5\t5\tpass\t1.1\t0\t0\t0\t0\t0\t0\t0\t1\tS\t2",
		"m\tH\tV2\t1\t2\t1\t10\tpass\t1.3\t0\t0\t0\t0\t0\t0\t0\t1\tS\t3",
	};
	for (size_t i = 0; i < 4; i++)
		points_table_put(&t, i, strdup(rows[i]));
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	frontier_write(f, &t);
	fclose(f);
	const char *want = FRONTIER_COLUMNS "\n"
			   "m\tS\tH\tV2\t0\t0.5\t1.5\t0.5\n"
			   "m\tS\tH\tV2\t0\t1\t1.2\t1\n"
			   "m\tS\tH\tV2\t1\t0.5\t1.1\t0.5\n"
			   "m\tS\tH\tV2\t1\t1\t1.1\t0.5\n";
	char *body = strstr(buf, FRONTIER_COLUMNS);
	ck_assert_ptr_nonnull(body);
	ck_assert_str_eq(body, want);
	free(buf);
	points_table_free(&t);
}
END_TEST

/* A figure's points (plot.c, write_curve), rule-named rows on one sweep:
 * chain8 under RandomStorage, 2 trials at ratios 0.5 and 1 (all pass),
 * its points.tsv then edited so that trials at 0.5 fail; the figure's
 * curve file (plot-data/known/p1-c1.tsv) must hold the ratios listed. */
START_TEST(plot_points_where_every_trial_passed)
{
	static const struct {
		const char *rule;
		int fail_trial; /* at ratio 0.5: -1 none, 0 or 1 that one, 2 both */
		const char *want_ratios;
	} rows[] = {
		{"a point where every trial passed is drawn (the mean of its trials)", -1, "0.5 1"},
		{"a point where only some trials passed is left out (trial 1 out of memory)", 1, "1"},
		{"a point where only some trials passed is left out (trial 0 out of memory)", 0, "1"},
		{"a point where no trial passed is left out", 2, "1"},
	};
	char *d = tmp_dir();
	char yaml[8192];
	snprintf(yaml, sizeof yaml,
		 "experiment: known\n"
		 "models:\n  - {name: chain8, log: %s/chain8.log}\n"
		 "heuristics: [RandomStorage]\ntrials: 2\nseed: 7\nratios: [0.5, 1.0]\n",
		 data_dir());
	char path[4096];
	snprintf(path, sizeof path, "%s/known.yaml", d);
	write_text(path, yaml);
	ck_assert_int_eq(sh("'%s' sweep '%s/known.yaml' --out '%s/sweep' --quiet", rematsim(), d, d), 0);
	snprintf(path, sizeof path, "%s/sweep/points.tsv", d);
	char *points = read_text(path);
	ck_assert_ptr_nonnull(points);
	static char fails[4096];
	fails[0] = 0;
	for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
		/* the sweep's files, with the row's trials at 0.5 out of memory */
		ck_assert_int_eq(sh("rm -rf '%s/r' && mkdir '%s/r' && cp '%s/sweep/models.tsv' '%s/r/'", d, d, d, d), 0);
		char *text = NULL;
		size_t text_len = 0;
		FILE *out = open_memstream(&text, &text_len);
		int edited = 0;
		for (const char *line = points; *line;) {
			size_t len = strcspn(line, "\n");
			char copy[1024], *f[8];
			bool fail = false;
			if (line[0] != '#' && len < sizeof copy) {
				memcpy(copy, line, len);
				copy[len] = 0;
				fail = tsv_split(copy, f, 8) >= 8 && !strcmp(f[5], "0.5") && !strcmp(f[7], "pass") &&
				       (rows[r].fail_trial == 2 || atoi(f[3]) == rows[r].fail_trial);
			}
			const char *pass = fail ? strstr(line, "\tpass\t") : NULL;
			if (pass) {
				fprintf(out, "%.*s\toom\t%.*s\n", (int)(pass - line), line,
					(int)(len - (size_t)(pass + 6 - line)), pass + 6);
				edited++;
			} else {
				fprintf(out, "%.*s\n", (int)len, line);
			}
			line += len + (line[len] == '\n');
		}
		fclose(out);
		int want_edited = rows[r].fail_trial < 0 ? 0 : rows[r].fail_trial == 2 ? 2 : 1;
		ck_assert_int_eq(edited, want_edited);
		snprintf(path, sizeof path, "%s/r/points.tsv", d);
		write_text(path, text);
		free(text);
		snprintf(path, sizeof path, "%s/r", d);
		struct plot_options opt = {0};
		struct plot_figure *figs = NULL;
		size_t n_figs = 0;
		struct rs_error err = {0};
		ck_assert_msg(plot_prepare(path, &opt, &figs, &n_figs, &err) == 0, "%s", err.msg);
		plot_figures_free(figs, n_figs);
		snprintf(path, sizeof path, "%s/r/plot-data/known/p1-c1.tsv", d);
		char *curve = read_text(path);
		ck_assert_msg(curve != NULL, "%s: missing", path);
		char got[256] = "";
		size_t n = 0;
		for (char *line = strtok(curve, "\n"); line; line = strtok(NULL, "\n"))
			if (line[0] != '#' && n < sizeof got)
				n += (size_t)snprintf(got + n, sizeof got - n, "%s%.*s", n ? " " : "",
						      (int)strcspn(line, "\t"), line);
		free(curve);
		if (strcmp(got, rows[r].want_ratios)) {
			size_t at = strlen(fails);
			snprintf(fails + at, sizeof fails - at, "\nbreaks the rule \"%s\": points at %s, want %s",
				 rows[r].rule, got, rows[r].want_ratios);
		}
	}
	ck_assert_msg(!fails[0], "%s", fails);
	free(points);
	sh("rm -rf '%s'", d);
	free(d);
}
END_TEST

/* ---------------------------------------------------------------- sweeps */

START_TEST(sweep_jobs_identical)
{
	char *d = tmp_dir();
	write_experiment(d, "exp", NULL);
	ck_assert_int_eq(sh("%s sweep -q %s/exp.yaml --out %s/j1 --jobs 1", rematsim(), d, d), 0);
	ck_assert_int_eq(sh("%s sweep -q %s/exp.yaml --out %s/j2 --jobs 2", rematsim(), d, d), 0);
	char p1[4096], p2[4096];
	snprintf(p1, sizeof p1, "%s/j1/points.tsv", d);
	snprintf(p2, sizeof p2, "%s/j2/points.tsv", d);
	char *a = rows_sans_wall(p1), *b = rows_sans_wall(p2);
	ck_assert_str_eq(a, b);
	/* 3 models x (1 + 1 + 3 trials) x 6 ratios */
	ck_assert_uint_eq(count_rows(p1), 90);
	ck_assert_int_eq(sh("grep -qx '%s' %s", POINTS_COLUMNS POINTS_STOP_COLUMNS, p1), 0);
	free(a);
	free(b);
	ck_assert_int_eq(sh("cmp -s %s/j1/models.tsv %s/j2/models.tsv", d, d), 0);
	ck_assert_int_eq(sh("cmp -s %s/j1/frontier.tsv %s/j2/frontier.tsv", d, d), 0);
	ck_assert_int_eq(sh("test ! -e %s/j1/points.journal", d), 0);
	ck_assert_int_eq(sh("grep -q '^# config_hash: [0-9a-f]\\{16\\}$' %s", p1), 0);
	ck_assert_int_eq(sh("grep -q '^# log: chain8\t[0-9a-f]\\{64\\}\t' %s", p1), 0);
	ck_assert_int_eq(sh("grep -q '^# command: rematsim sweep' %s", p1), 0);
	ck_assert_int_eq(sh("rm -rf %s", d), 0);
	free(d);
}
END_TEST

START_TEST(sweep_resume)
{
	char *d = tmp_dir();
	write_experiment(d, "exp", NULL);
	ck_assert_int_eq(sh("%s sweep -q %s/exp.yaml --out %s/full --jobs 2", rematsim(), d, d), 0);
	char full[4096], part[4096];
	snprintf(full, sizeof full, "%s/full/points.tsv", d);
	snprintf(part, sizeof part, "%s/part/points.tsv", d);
	char *want = rows_sans_wall(full);

	/* Deleted rows are run again, the rest kept byte for byte. */
	ck_assert_int_eq(sh("mkdir %s/part && grep -v -P '\\t(3|17|40|89)\\t[^\\t]*$' %s > %s", d, full,
			    part), 0);
	ck_assert_uint_eq(count_rows(part), 86);
	ck_assert_int_eq(sh("%s sweep %s/exp.yaml --out %s/part --jobs 2 2>%s/log", rematsim(),
			    d, d, d), 0);
	ck_assert_int_eq(sh("grep -q '86 points already in' %s/log", d), 0);
	char *got = rows_sans_wall(part);
	ck_assert_str_eq(got, want);
	free(got);

	/* A kill after 20 rows: the journal keeps them; a torn line is ignored. */
	ck_assert_int_eq(sh("%s sweep -q %s/exp.yaml --out %s/kill --jobs 2 --stop-after 20",
			    rematsim(), d, d), 75);
	ck_assert_int_eq(sh("test ! -e %s/kill/points.tsv", d), 0);
	ck_assert_int_eq(sh("printf 'chain16\\tLR' >> %s/kill/points.journal", d), 0);
	ck_assert_int_eq(sh("%s sweep %s/exp.yaml --out %s/kill --jobs 1 2>%s/log2", rematsim(),
			    d, d, d), 0);
	ck_assert_int_eq(sh("grep -q ' 70 to run' %s/log2", d), 0);
	char kill[4096];
	snprintf(kill, sizeof kill, "%s/kill/points.tsv", d);
	got = rows_sans_wall(kill);
	ck_assert_str_eq(got, want);
	free(got);

	/* A changed configuration is refused (it would replace the other
	 * results), and starts over with --force. */
	write_experiment(d, "exp", "overhead_limit: 1.5\n");
	ck_assert_int_eq(sh("%s sweep %s/exp.yaml --out %s/part 2>%s/log3", rematsim(), d, d, d),
			 73);
	ck_assert_int_eq(sh("grep -q 'give --force to replace them' %s/log3", d), 0);
	/* the same experiment's name twice would read as no difference */
	ck_assert_int_eq(sh("grep -q 'a different configuration of experiment .exp.' %s/log3", d), 0);
	got = rows_sans_wall(part);
	ck_assert_str_eq(got, want); /* untouched */
	free(got);
	ck_assert_int_eq(sh("%s sweep %s/exp.yaml --out %s/part --force 2>%s/log3", rematsim(), d, d, d),
			 0);
	ck_assert_int_eq(sh("grep -q 'already in' %s/log3", d), 1);
	free(want);
	ck_assert_int_eq(sh("rm -rf %s", d), 0);
	free(d);
}
END_TEST

/* The models from the command line (--manifest, --models), CSV copies,
 * options after the experiment file. */
START_TEST(sweep_models_csv)
{
	char *d = tmp_dir();
	write_experiment(d, "exp", NULL);
	/* 3 models x (DTR + LRU + 3 random trials) x 6 ratios */
	ck_assert_int_eq(sh("test \"$(%s sweep %s/exp.yaml --dry-run --manifest %s/manifest.json)\" = 90",
			    rematsim(), d, data_dir()), 0);
	/* an archive as the paper's logs.zip is: logs/manifest.json inside */
	ck_assert_int_eq(sh("test \"$(%s sweep %s/exp.yaml --dry-run --manifest %s/chains.zip)\" = 90",
			    rematsim(), d, data_dir()), 0);
	ck_assert_int_eq(sh("%s sweep %s/exp.yaml -q --out %s/m --models %s/chain8.log,%s/chain12.log "
			    "--format tsv,csv", rematsim(), d, d, data_dir(), data_dir()), 0);
	ck_assert_int_eq(sh("test \"$(cut -f1 %s/m/models.tsv | tr '\\n' ' ')\" = 'model chain8 chain12 '", d), 0);
	ck_assert_int_eq(sh("head -1 %s/m/points.csv | grep -q '^model,heuristic,runtime,'", d), 0);
	ck_assert_int_eq(sh("! grep -q '^#' %s/m/points.csv", d), 0);
	ck_assert_int_eq(sh("test $(wc -l < %s/m/points.csv) = $(grep -vc '^#' %s/m/points.tsv)", d, d), 0);
	ck_assert_int_eq(sh("test -s %s/m/models.csv && test -s %s/m/frontier.csv", d, d), 0);
	/* bad uses */
	ck_assert_int_eq(sh("%s sweep %s/exp.yaml -q --manifest x --models y 2>/dev/null", rematsim(), d), 64);
	ck_assert_int_eq(sh("%s sweep %s/exp.yaml -q --format xls 2>/dev/null", rematsim(), d), 64);
	ck_assert_int_eq(sh("%s sweep %s/exp.yaml -q --manifest %s/none.json 2>/dev/null", rematsim(), d, d), 66);
	ck_assert_int_eq(sh("rm -rf %s", d), 0);
	free(d);
}
END_TEST

/* The two routes to a manifest, the `manifest:` key and `--manifest`, read
 * it the same way (issue 29): a description on several lines (the DTR
 * paper's LSTM) or a title with a tab is text, folded to spaces in
 * models.tsv by both; a name with a newline keys rows and is refused by
 * both. */
START_TEST(sweep_manifest_routes)
{
	char *d = tmp_dir();
	char path[4096], text[8192];
	snprintf(path, sizeof path, "%s/manifest.json", d);
	snprintf(text, sizeof text,
		 "{\"models\": [{\"name\": \"lstm\", \"title\": \"LSTM\\t(512)\", "
		 "\"desc\": \"Input dimension 512,\\nHidden dimension 1700,\\nSequence length 128\", "
		 "\"log\": \"%s/chain8.log\", \"has_start\": true}]}\n", data_dir());
	write_text(path, text);
	snprintf(path, sizeof path, "%s/key.yaml", d);
	snprintf(text, sizeof text, "experiment: e\nmanifest: %s/manifest.json\n"
		 "heuristics: [DTR]\nratios: [0.5, 1]\n", d);
	write_text(path, text);
	snprintf(path, sizeof path, "%s/opt.yaml", d);
	snprintf(text, sizeof text, "experiment: e\nmodels:\n  - {name: x, log: %s/chain12.log}\n"
		 "heuristics: [DTR]\nratios: [0.5, 1]\n", data_dir());
	write_text(path, text);
	ck_assert_int_eq(sh("%s sweep -q %s/key.yaml --out %s/key", rematsim(), d, d), 0);
	ck_assert_int_eq(sh("%s sweep -q %s/opt.yaml --out %s/opt --manifest %s/manifest.json",
			    rematsim(), d, d, d), 0);
	ck_assert_int_eq(sh("cmp %s/key/models.tsv %s/opt/models.tsv", d, d), 0);
	ck_assert_int_eq(sh("awk -F '\\t' 'NR == 2 && $2 == \"LSTM (512)\" && $3 == \"Input dimension "
			    "512, Hidden dimension 1700, Sequence length 128\" { ok = 1 } END { exit !ok }' "
			    "%s/key/models.tsv", d), 0);
	/* a name that keys rows may not hold a newline: refused by both */
	ck_assert_int_eq(sh("sed -i 's/\"name\": \"lstm\"/\"name\": \"ls\\\\ntm\"/' %s/manifest.json", d), 0);
	ck_assert_int_eq(sh("%s sweep -q %s/key.yaml --dry-run 2>%s/err1", rematsim(), d, d), 65);
	ck_assert_int_eq(sh("%s sweep -q %s/opt.yaml --dry-run --manifest %s/manifest.json 2>%s/err2",
			    rematsim(), d, d, d), 65);
	ck_assert_int_eq(sh("grep -q 'model names cannot hold tabs or newlines' %s/err1 && "
			    "grep -q 'model names cannot hold tabs or newlines' %s/err2", d, d), 0);
	ck_assert_int_eq(sh("rm -rf %s", d), 0);
	free(d);
}
END_TEST

/*
 * heuristics_at_plan_peaks: every series' trial also runs at each plan's
 * replayed peak, after the planners' rows: its budget is that plan row's
 * budget, point for point; the rows are the same sharded and merged; the
 * frontier keeps one block per (model, series, trial) though the rows at
 * plan peaks come after the planners'; and the key needs planners.
 */
START_TEST(sweep_at_plan_peaks)
{
	char *d = tmp_dir();
	write_experiment(d, "pk", "planners:\n  dp: {k: [1, 2]}\n  sqrtn: {}\n"
			 "heuristics_at_plan_peaks: true\n");
	/* 3 models x (5 series-trials x 6 ratios + 3 plans + 5 x 3 at their peaks) */
	ck_assert_int_eq(sh("test \"$(%s sweep %s/pk.yaml --dry-run)\" = 144", rematsim(), d), 0);
	ck_assert_int_eq(sh("%s sweep -q %s/pk.yaml --out %s/full", rematsim(), d, d), 0);
	char path[4096];
	snprintf(path, sizeof path, "%s/full/points.tsv", d);
	ck_assert_int_eq(sh("grep -qx '# plan_peak_points: 99' %s", path), 0);
	/* point 99 + 15m + 3s + k: series s (DTR, LRU, RandomStorage x3) at plan k of
	 * model m, whose row is point 90 + 3m + k; the same budget, its ratio */
	ck_assert_int_eq(sh("awk -F '\\t' '!/^#/ && $19 != \"point\" { budget[$19] = $7; ratio[$19] = $6; model[$19] = $1 }"
			    " END { for (p = 99; p < 144; p++) { m = int((p - 99) / 15); k = (p - 99) %% 3;"
			    " q = 90 + 3 * m + k; if (budget[p] != budget[q] || ratio[p] != ratio[q] ||"
			    " model[p] != model[q]) { print p, q; bad = 1 } } exit bad }' %s", path), 0);
	/* sharded and merged: the same rows */
	ck_assert_int_eq(sh("%s sweep -q %s/pk.yaml --out %s/s1 --shard 1/2 && "
			    "%s sweep -q %s/pk.yaml --out %s/s2 --shard 2/2 && "
			    "%s merge %s/s1 %s/s2 --out %s/m 2>/dev/null", rematsim(), d, d, rematsim(), d, d,
			    rematsim(), d, d, d), 0);
	char merged[4096];
	snprintf(merged, sizeof merged, "%s/m/points.tsv", d);
	char *a = rows_sans_wall(path), *b = rows_sans_wall(merged);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	/* one frontier block per (model, series, trial): ratios rise within it */
	ck_assert_int_eq(sh("awk -F '\\t' '!/^#/ && $1 != \"model\" { key = $1 \"/\" $2 \"/\" $5;"
			    " if (key != last) { if (key in seen) { print \"split: \" key; bad = 1 }"
			    " seen[key] = 1; last = key; prev = -1 }"
			    " if ($6 + 0 < prev) { print \"not rising: \" key; bad = 1 } prev = $6 + 0 }"
			    " END { exit bad }' %s/full/frontier.tsv", d), 0);
	/* the key needs planners */
	write_experiment(d, "np", "heuristics_at_plan_peaks: true\n");
	ck_assert_int_eq(sh("%s sweep %s/np.yaml --dry-run 2>%s/err", rematsim(), d, d), 65);
	ck_assert_int_eq(sh("grep -q \"'heuristics_at_plan_peaks' needs 'planners'\" %s/err", d), 0);
	ck_assert_int_eq(sh("rm -rf %s", d), 0);
	free(d);
}
END_TEST

/*
 * Points whose replays are the same (here two series of one heuristic and
 * runtime) run once in a sweep and share the result: the rows are those
 * of shards that run them apart, merged, and the two series' rows agree
 * but for their names.
 */
START_TEST(sweep_shares_replays)
{
	char *d = tmp_dir();
	char path[4096], text[8192];
	snprintf(path, sizeof path, "%s/tw.yaml", d);
	snprintf(text, sizeof text,
		 "experiment: tw\nmodels:\n  - {name: chain12, log: %s/chain12.log}\n"
		 "  - {name: chain16, log: %s/chain16.log}\n"
		 "series:\n  - {name: one, heuristic: DTR, runtime: V2EagerOptimized}\n"
		 "  - {name: two, heuristic: DTR, runtime: V2EagerOptimized}\n"
		 "  - {name: lru, heuristic: LRU, runtime: V2EagerOptimized}\n"
		 "ratios: [0.1, 0.2, 0.3, 0.5, 0.7, 1.0]\n", data_dir(), data_dir());
	write_text(path, text);
	ck_assert_int_eq(sh("%s sweep -q %s/tw.yaml --out %s/full", rematsim(), d, d), 0);
	ck_assert_int_eq(sh("for i in 1 2 3 4 5; do %s sweep -q %s/tw.yaml --out %s/s$i --shard $i/5 || exit 1; done && "
			    "%s merge %s/s1 %s/s2 %s/s3 %s/s4 %s/s5 --out %s/m 2>/dev/null", rematsim(), d, d,
			    rematsim(), d, d, d, d, d, d), 0);
	char full[4096], merged[4096];
	snprintf(full, sizeof full, "%s/full/points.tsv", d);
	snprintf(merged, sizeof merged, "%s/m/points.tsv", d);
	char *a = rows_sans_wall(full), *b = rows_sans_wall(merged);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	/* series two's rows are series one's: the numbers, wall_ms too */
	ck_assert_int_eq(sh("awk -F '\\t' '!/^#/ && $1 != \"model\" && $18 != \"lru\" {"
			    " k = $1 \"/\" $7; $18 = \"\"; $19 = \"\"; if (k in row) { n++; if (row[k] != $0) bad = 1 }"
			    " else row[k] = $0 } END { exit bad || n != 12 }' %s", full), 0);
	ck_assert_int_eq(sh("rm -rf %s", d), 0);
	free(d);
}
END_TEST

START_TEST(sweep_shards_merge)
{
	char *d = tmp_dir();
	write_experiment(d, "exp", NULL);
	ck_assert_int_eq(sh("%s sweep -q %s/exp.yaml --out %s/full", rematsim(), d, d), 0);
	ck_assert_int_eq(sh("test \"$(%s sweep %s/exp.yaml --dry-run)\" = 90", rematsim(), d), 0);
	ck_assert_int_eq(sh("test \"$(%s sweep %s/exp.yaml --dry-run --shard 3/4)\" = 22",
			    rematsim(), d), 0);
	for (int i = 1; i <= 3; i++)
		ck_assert_int_eq(sh("%s sweep -q %s/exp.yaml --out %s/s%d --shard %d/3 --jobs %d",
				    rematsim(), d, d, i, i, i), 0);
	char s1[4096];
	snprintf(s1, sizeof s1, "%s/s1/points.tsv", d);
	ck_assert_uint_eq(count_rows(s1), 30);
	/* Missing a shard is an error that names the shard and its points. */
	ck_assert_int_eq(sh("%s merge %s/s1 %s/s3 --out %s/m 2>%s/err", rematsim(), d, d, d, d),
			 65);
	ck_assert_int_eq(sh("grep -q '^rematsim: merge: 30 of 90 points are missing; rerun 1 shard' "
			    "%s/err && grep -q '^  shard 2/3, 30 points (1, 4, 7, 10, 13, 16, 19, "
			    "\\.\\.\\.): none of the folders' %s/err", d, d), 0);
	/* An unfinished shard (a killed sweep's journal) is named as such ... */
	ck_assert_int_eq(sh("%s sweep -q %s/exp.yaml --out %s/s2k --shard 2/3 --stop-after 10",
			    rematsim(), d, d), 75);
	ck_assert_int_eq(sh("%s merge %s/s1 %s/s2k %s/s3 --out %s/m 2>%s/err", rematsim(), d, d,
			    d, d, d), 65);
	ck_assert_int_eq(sh("grep -q '^  shard 2/3, 20 points (.*): %s/s2k is unfinished' %s/err",
			    d, d), 0);
	/* ... and a folder without results makes it 66. */
	ck_assert_int_eq(sh("mkdir %s/empty && %s merge %s/s1 %s/empty %s/s3 --out %s/m 2>%s/err",
			    d, rematsim(), d, d, d, d, d), 66);
	ck_assert_int_eq(sh("grep -q '^  %s/empty holds no results' %s/err", d, d), 0);
	ck_assert_int_eq(sh("%s merge %s/s3 %s/s1 %s/s2 --out %s/m", rematsim(), d, d, d, d), 0);
	char full[4096], merged[4096];
	snprintf(full, sizeof full, "%s/full/points.tsv", d);
	snprintf(merged, sizeof merged, "%s/m/points.tsv", d);
	char *a = rows_sans_wall(full), *b = rows_sans_wall(merged);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	ck_assert_int_eq(sh("cmp -s %s/full/models.tsv %s/m/models.tsv", d, d), 0);
	ck_assert_int_eq(sh("cmp -s %s/full/frontier.tsv %s/m/frontier.tsv", d, d), 0);
	/* A different experiment does not merge. */
	write_experiment(d, "exp", "overhead_limit: 3\n");
	ck_assert_int_eq(sh("%s sweep -q %s/exp.yaml --out %s/other --shard 2/3", rematsim(), d,
			    d), 0);
	ck_assert_int_eq(sh("%s merge %s/s1 %s/other %s/s3 --out %s/m2 2>/dev/null", rematsim(),
			    d, d, d, d), 65);
	ck_assert_int_eq(sh("rm -rf %s", d), 0);
	free(d);
}
END_TEST

START_TEST(sweep_bad_input)
{
	char *d = tmp_dir();
	char path[4096];
	/* YAML error: message with file:line:column, status 65, no output. */
	snprintf(path, sizeof path, "%s/bad.yaml", d);
	write_text(path, "experiment: bad\nmodels: [{name: a, log: a.log}]\nheuristics: [DTR]\n"
			 "ratios: [0.5]\nratios: [0.6]\n");
	ck_assert_int_eq(sh("%s sweep %s --out %s/o 2>%s/err", rematsim(), path, d, d), 65);
	ck_assert_int_eq(sh("grep -q 'bad.yaml:5:1: duplicate key' %s/err", d), 0);
	ck_assert_int_eq(sh("test ! -e %s/o", d), 0);
	/* Missing log: 66 before any point. */
	write_text(path, "experiment: bad\nmodels: [{name: a, log: nowhere.log}]\n"
			 "heuristics: [DTR]\n");
	ck_assert_int_eq(sh("%s sweep %s --out %s/o 2>%s/err", rematsim(), path, d, d), 66);
	ck_assert_int_eq(sh("grep -q 'nowhere.log' %s/err", d), 0);
	ck_assert_int_eq(sh("test ! -e %s/o/points.tsv", d), 0);
	/* A log that does not parse: 65 with the log's file:line, no points. */
	snprintf(path, sizeof path, "%s/badlog.yaml", d);
	char text[4096];
	snprintf(text, sizeof text,
		 "experiment: bad\nmodels:\n  - {name: a, log: %s/chain8.log}\n"
		 "  - {name: b, log: %s/bad/out-of-order.log}\nheuristics: [DTR]\n",
		 data_dir(), data_dir());
	write_text(path, text);
	ck_assert_int_eq(sh("%s sweep %s --out %s/o2 2>%s/err", rematsim(), path, d, d), 65);
	ck_assert_int_eq(sh("grep -q 'out-of-order.log:4: expected the MEMORY record' %s/err", d),
			 0);
	ck_assert_int_eq(sh("test ! -e %s/o2/points.tsv && test ! -e %s/o2/points.journal", d, d),
			 0);
	/* Missing YAML: 66. */
	ck_assert_int_eq(sh("%s sweep %s/none.yaml 2>/dev/null", rematsim(), d), 66);
	/* Unwritable output: 73. */
	write_experiment(d, "exp", NULL);
	ck_assert_int_eq(sh("touch %s/file && %s sweep %s/exp.yaml --out %s/file/sub 2>%s/err",
			    d, rematsim(), d, d, d), 73);
	/* Usage errors: 64. */
	ck_assert_int_eq(sh("%s sweep %s/exp.yaml --shard 4/3 2>/dev/null", rematsim(), d), 64);
	ck_assert_int_eq(sh("%s sweep %s/exp.yaml --jobs 0 2>/dev/null", rematsim(), d), 64);
	ck_assert_int_eq(sh("%s sweep 2>/dev/null", rematsim()), 64);
	ck_assert_int_eq(sh("rm -rf %s", d), 0);
	free(d);
}
END_TEST

/* The paper's experiment files, pointed at tests/data/manifest.json. */
START_TEST(experiment_scripts)
{
	const char *src = getenv("REMATSIM_SOURCE");
	if (!src)
		src = ".";
	static const struct {
		const char *name;
		const char *points;
	} files[] = {
		/* 3 models x series-trials x 10 ratios (+ planner points) */
		/* 6 deterministic + 10 random trials; 7 dp + 5 greedy + 1 sqrtn plans;
		 * the 16 series-trials at each of the 13 plans' peaks: 3 x (160 + 13 + 208) */
		{"pareto", "1143"},
		{"ablation", "750"},  /* 15 + 10 */
		{"banishing", "90"},  /* 3 */
		{"accesses", "90"},   /* 3 */
	};
	char *d = tmp_dir();
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		/* The default and the logs.zip alternative are one line apart. */
		ck_assert_int_eq(sh("grep -q '^manifest: ../../logs/manifest.json$' "
				    "%s/scripts/experiments/%s.yaml && "
				    "grep -q '^# manifest: ../../logs.zip$' %s/scripts/experiments/%s.yaml",
				    src, files[i].name, src, files[i].name), 0);
		ck_assert_int_eq(sh("sed 's|^manifest: .*|manifest: %s/manifest.json|' "
				    "%s/scripts/experiments/%s.yaml > %s/%s.yaml",
				    data_dir(), src, files[i].name, d, files[i].name), 0);
		ck_assert_int_eq(sh("test \"$(%s sweep %s/%s.yaml --dry-run)\" = %s", rematsim(), d,
				    files[i].name, files[i].points), 0);
	}
	/* The smallest ones run for real on the test logs. */
	ck_assert_int_eq(sh("%s sweep -q %s/banishing.yaml --out %s/b", rematsim(), d, d), 0);
	ck_assert_int_eq(sh("grep -c '^[^\t]*\tDTR\tV2EagerOptimized\t.*\tno deallocations\t[0-9]*\t[-0-9]*$' "
			    "%s/b/points.tsv | grep -qx 30", d), 0);
	ck_assert_int_eq(sh("grep -q '^[^\t]*\tDTRUnopt\tV1\t.*\tbanishing\t[0-9]*\t[-0-9]*$' %s/b/points.tsv", d), 0);
	ck_assert_int_eq(sh("rm -rf %s", d), 0);
	free(d);
}
END_TEST

/* The dev logs of ../shared: same rows for --jobs 1 and 2 (exit 77 without). */
START_TEST(shared_jobs_identical)
{
	const char *shared = getenv("REMATSIM_SHARED");
	const char *src = getenv("REMATSIM_SOURCE");
	char *d = tmp_dir();
	ck_assert_int_eq(sh("sed 's|^manifest: .*|manifest: %s/dtr-logs/dev-logs.zip|' "
			    "%s/scripts/experiments/accesses.yaml > %s/acc.yaml",
			    shared, src ? src : ".", d), 0);
	ck_assert_int_eq(sh("%s sweep -q %s/acc.yaml --out %s/j1 --jobs 1", rematsim(), d, d), 0);
	ck_assert_int_eq(sh("%s sweep -q %s/acc.yaml --out %s/j2 --jobs 2", rematsim(), d, d), 0);
	char p1[4096], p2[4096];
	snprintf(p1, sizeof p1, "%s/j1/points.tsv", d);
	snprintf(p2, sizeof p2, "%s/j2/points.tsv", d);
	char *a = rows_sans_wall(p1), *b = rows_sans_wall(p2);
	ck_assert_str_eq(a, b);
	ck_assert_uint_eq(count_rows(p1), 90);
	free(a);
	free(b);
	ck_assert_int_eq(sh("grep -q '^U-Net (6)\t' %s/j1/models.tsv", d), 0);
	/* A model given as ARCHIVE.zip:MODEL NAME, relative to the YAML folder. */
	ck_assert_int_eq(sh("mkdir %s/sub && ln -s %s/dtr-logs/dev-logs.zip %s/dev.zip", d, shared,
			    d), 0);
	char yaml[4096];
	snprintf(yaml, sizeof yaml, "%s/sub/m.yaml", d);
	write_text(yaml, "experiment: m\n"
			 "models: [{name: u, log: '../dev.zip:U-Net (6)', title: U-Net}]\n"
			 "heuristics: [DTR]\nratios: [0.5, 1]\n");
	ck_assert_int_eq(sh("%s sweep -q %s --out %s/m", rematsim(), yaml, d), 0);
	ck_assert_int_eq(sh("grep -q '^# log: u\t[0-9a-f]*\t%s/sub/../dev.zip:U-Net (6)$' "
			    "%s/m/points.tsv", d, d), 0);
	ck_assert_int_eq(sh("grep -c '\tpass\t' %s/m/points.tsv | grep -qx 2", d), 0);
	ck_assert_int_eq(sh("rm -rf %s", d), 0);
	free(d);
}
END_TEST

static Suite *experiment_suite(void)
{
	Suite *s = suite_create("experiment");
	TCase *unit = tcase_create("unit");
	tcase_add_test(unit, fmt_double_bisection);
	tcase_add_test(unit, scalar_numbers);
	tcase_add_test(unit, scalar_rejects);
	tcase_add_test(unit, yaml_errors);
	tcase_add_test(unit, yaml_good);
	tcase_add_test(unit, seed_formula);
	tcase_add_test(unit, frontier_prefix_min);
	tcase_add_test(unit, frontier_two_trials);
	suite_add_tcase(s, unit);
	TCase *sweep = tcase_create("sweep");
	tcase_set_timeout(sweep, 240);
	tcase_add_test(sweep, sweep_jobs_identical);
	tcase_add_test(sweep, sweep_resume);
	tcase_add_test(sweep, sweep_shards_merge);
	tcase_add_test(sweep, sweep_models_csv);
	tcase_add_test(sweep, sweep_manifest_routes);
	tcase_add_test(sweep, sweep_at_plan_peaks);
	tcase_add_test(sweep, sweep_shares_replays);
	tcase_add_test(sweep, sweep_bad_input);
	tcase_add_test(sweep, experiment_scripts);
	tcase_add_test(sweep, plot_points_where_every_trial_passed);
	suite_add_tcase(s, sweep);
	return s;
}

static Suite *shared_suite(void)
{
	Suite *s = suite_create("experiment-shared");
	TCase *tc = tcase_create("shared");
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, shared_jobs_identical);
	suite_add_tcase(s, tc);
	return s;
}

/* `test-experiment shared`: only the tests on ../shared (77 when absent). */
int main(int argc, char **argv)
{
	bool shared = argc > 1 && !strcmp(argv[1], "shared");
	if (shared) {
		const char *dir = getenv("REMATSIM_SHARED");
		char path[4096];
		snprintf(path, sizeof path, "%s/dtr-logs/dev-logs.zip", dir ? dir : "");
		if (!dir || access(path, R_OK))
			return 77;
	}
	SRunner *sr = srunner_create(shared ? shared_suite() : experiment_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
