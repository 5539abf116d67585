/*
 * cmd_measured.c: `rematsim measured MEASURED.json --manifest ARCHIVE.zip`:
 * the DTR prototype's measured runs beside replays of their logs, one row
 * per (run, heuristic), the unmatched runs listed, and the paper's Table 1
 * runs (param_sweep) checked with fit; optionally the rows as JSON lines
 * and as DIR/measured.tsv for `rematsim plot DIR` (docs/validation.md).
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "cmd_opts.h"
#include "config.h"
#include "heuristics.h"
#include "measured.h"
#include "results.h"
#include "source.h"
#include "util.h"

static const char measured_help[] =
	"usage: rematsim measured MEASURED.json --manifest ARCHIVE.zip\n"
	"                         [--heuristic H,...] [--seed N] [--trials K]\n"
	"                         [--proto-rules RULE,...] [--overhead-limit L]\n"
	"                         [--mapping FILE] [--jobs N] [--json] [--out DIR]\n"
	"\n"
	"Compare the DTR prototype's measured runs (the artifact's data-full.json or\n"
	"large-input-table-data.json) with replays of the logs recorded from the same\n"
	"configurations. Each run is matched to a log of ARCHIVE's manifest by its\n"
	"model and batch size (the table of sim/exp/measured.c, or --mapping's rows);\n"
	"runs with no log are listed with the reason. A fixed run is replayed at its memory_budget, a\n"
	"ratio run at its ratio of its baseline run's measured total_mem, without\n"
	"the log's final pins (the prototype's timer stops when the iteration\n"
	"returns). Per run and heuristic: the measured remat overhead (the medians\n"
	"remat_compute_time / base_compute_time), the simulated one (remat compute /\n"
	"baseline compute), their difference in percentage points, the measured\n"
	"total_mem and the simulated peak, and both outcomes (\"error\": the run\n"
	"failed). param_sweep runs (the paper's Table 1, largest inputs) get fit's\n"
	"smallest passing budget and whether the replay at the run's budget agrees\n"
	"with what the prototype did.\n"
	"\n"
	"  --manifest A     the logs: the artifact's logs.zip, or a manifest.json\n"
	"  --mapping FILE   rows KEY<TAB>BATCH<TAB>LOG[<TAB>EXTRA] ('#' comments): runs\n"
	"                   of the model KEY at batch BATCH (and extra_params EXTRA,\n"
	"                   k=v,k=v) have the log LOG (a model of ARCHIVE's manifest,\n"
	"                   or its log member); a key named replaces the built-in\n"
	"                   table's rows of that key, the others stay\n"
	"  --heuristic H,.. heuristics (default DTR,DTREqClass,DTRPrototype)\n"
	"  --seed N         first seed of the random heuristics (default 1)\n"
	"  --trials K       seeds N..N+K-1 per run of a random heuristic, the median\n"
	"                   reported with the spread (default 11)\n"
	"  --proto-rules R  DTRPrototype's rules (replay --help): by default each run's\n"
	"                   use_sampling and ignore_small_tensors, the budget checked\n"
	"                   after each op and the prototype's classes; the rules named\n"
	"                   here replace those for every run (no-after: the others\n"
	"                   as they were)\n"
	"  --overhead-limit L  stop (thrash) past (L-1) x baseline compute of remats\n"
	"                   (default 10; 'inf')\n"
	"  --jobs N         threads (default: all processors)\n"
	"  --json           one JSON object per (run, heuristic), and per unmatched run\n"
	"  --out DIR        also write DIR/measured.tsv (rematsim plot DIR draws it)\n"
	"\n"
	"Exit status: 0 ok, 64 usage, 65 a file of another shape (a mapping's row:\n"
	"FILE:LINE:), a budget of 0, a\n"
	"summary neither statistics nor \"error\", a ratio run whose baseline failed\n"
	"(FILE:LINE: and the run's path), or no fixed or ratio run with a log in\n"
	"ARCHIVE and no param_sweep run (nothing to compare), 66 missing input,\n"
	"73 cannot create DIR, 74 cannot write.\n";

#define MAX_HEURISTICS 32

static const char *outcome_of(const struct measured_run *r)
{
	return r->error ? "error" : "ok";
}

/* "12.34" or "n/a" */
static const char *pct_text(double x, char *buf, size_t len)
{
	if (isnan(x))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.2f", x);
	return buf;
}

static double measured_pct(const struct measured_run *r)
{
	if (r->error || isnan(r->remat_ms) || isnan(r->base_ms) || r->base_ms <= 0)
		return NAN;
	return 100 * r->remat_ms / r->base_ms;
}

static bool agrees(const struct measured_run *r, const struct measured_point *p)
{
	return r->error == (p->outcome != OUTCOME_PASS);
}

/* A real or null (JSON has no NaN). */
static json_t *jreal(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static void put_point_json(const struct measured_file *f, const struct measured_point *p,
			   const struct measured_options *o)
{
	const struct measured_run *r = &f->runs[p->run];
	double mp = measured_pct(r);
	json_t *j = json_object();
	json_object_set_new(j, "model", json_string(r->model));
	json_object_set_new(j, "log", json_string(r->mm->log));
	json_object_set_new(j, "batch", json_integer(r->batch));
	json_object_set_new(j, "kind", json_string(measured_kind_name(r->kind)));
	json_object_set_new(j, "budget", json_integer((json_int_t)r->budget));
	json_object_set_new(j, "heuristic", json_string(p->h->name));
	json_object_set_new(j, "seed", json_integer((json_int_t)o->seed));
	json_object_set_new(j, "trials", json_integer(p->trials));
	json_object_set_new(j, "passed", json_integer(p->passed));
	json_object_set_new(j, "use_sampling", json_boolean(r->use_sampling));
	json_object_set_new(j, "ignore_small_tensors", json_boolean(r->ignore_small));
	if (p->h->needs & NEEDS_PROTO) {
		char rb[100];
		json_object_set_new(j, "proto_rules", json_string(proto_rules_text(&p->rules, rb, sizeof rb)));
	}
	json_object_set_new(j, "measured_outcome", json_string(outcome_of(r)));
	json_object_set_new(j, "outcome", json_string(outcome_name(p->outcome)));
	json_object_set_new(j, "measured_remat_pct", jreal(mp));
	json_object_set_new(j, "simulated_remat_pct", jreal(p->remat_pct));
	json_object_set_new(j, "simulated_min_pct", jreal(p->min_pct));
	json_object_set_new(j, "simulated_max_pct", jreal(p->max_pct));
	json_object_set_new(j, "diff_pp", jreal(p->remat_pct - mp));
	json_object_set_new(j, "measured_peak", isnan(r->total_mem) ? json_null()
								    : json_integer((json_int_t)llround(r->total_mem)));
	json_object_set_new(j, "simulated_peak", json_integer((json_int_t)llround(p->peak)));
	if (r->kind == MEASURED_SWEEP) {
		json_object_set_new(j, "fit_budget", p->fit_budget ? json_integer((json_int_t)p->fit_budget)
								  : json_null());
		json_object_set_new(j, "agrees", json_boolean(agrees(r, p)));
	}
	json_object_set_new(j, "matched", json_true());
	json_object_set_new(j, "line", json_integer(r->line));
	put_json_line(j);
	json_decref(j);
}

static void put_unmatched_json(const struct measured_run *r)
{
	json_t *j = json_object();
	json_object_set_new(j, "model", json_string(r->model));
	json_object_set_new(j, "log", json_null());
	json_object_set_new(j, "batch", json_integer(r->batch));
	json_object_set_new(j, "kind", json_string(measured_kind_name(r->kind)));
	json_object_set_new(j, "budget", json_integer((json_int_t)r->budget));
	json_object_set_new(j, "heuristic", json_null());
	json_object_set_new(j, "measured_outcome", json_string(outcome_of(r)));
	json_object_set_new(j, "measured_remat_pct", jreal(measured_pct(r)));
	json_object_set_new(j, "measured_peak", isnan(r->total_mem) ? json_null()
								    : json_integer((json_int_t)llround(r->total_mem)));
	json_object_set_new(j, "matched", json_false());
	json_object_set_new(j, "reason", json_string(r->why));
	json_object_set_new(j, "line", json_integer(r->line));
	put_json_line(j);
	json_decref(j);
}

static void mb_text(double bytes, char *buf, size_t len)
{
	if (isnan(bytes))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.1f", bytes / 1e6);
}

static void put_table(const struct measured_file *f, const struct measured_point *pts, size_t n,
		      const struct measured_options *o)
{
	char a[32], b[32], c[64], d[32], e[32], g[48];
	bool header = false;
	for (size_t i = 0; i < n; i++) {
		const struct measured_point *p = &pts[i];
		const struct measured_run *r = &f->runs[p->run];
		if (r->kind == MEASURED_SWEEP)
			continue;
		if (!header) {
			printf("%-16s %5s %8s  %-13s %8s %9s %8s %-15s %10s %10s  %s\n", "model", "batch",
			       "budget", "heuristic", "meas_%", "sim_%", "diff_pp", "sim_range_%",
			       "meas_MB", "sim_MB", "outcome");
			header = true;
		}
		double mp = measured_pct(r);
		if (p->trials > 1)
			snprintf(c, sizeof c, "%.2f..%.2f", p->min_pct, p->max_pct);
		else
			snprintf(c, sizeof c, "-");
		if (isnan(mp))
			snprintf(d, sizeof d, "n/a");
		else
			snprintf(d, sizeof d, "%+.2f", p->remat_pct - mp);
		mb_text(r->total_mem, a, sizeof a);
		mb_text(p->peak, b, sizeof b);
		if (p->passed < p->trials && p->trials > 1)
			snprintf(g, sizeof g, "%s/%s (%u of %u passed)", outcome_of(r), outcome_name(p->outcome),
				 p->passed, p->trials);
		else
			snprintf(g, sizeof g, "%s/%s", outcome_of(r), outcome_name(p->outcome));
		printf("%-16s %5u %5.2f GB  %-13s %8s %9.2f %8s %-15s %10s %10s  %s\n", r->model, r->batch,
		       (double)r->budget / 1e9, p->h->name, pct_text(mp, e, sizeof e), p->remat_pct, d, c, a, b, g);
	}
	if (!header)
		return;
	/* per heuristic: how far from the measured overheads */
	for (size_t h = 0; h < o->n_heuristics; h++) {
		double worst = 0;
		size_t within = 0, cmp = 0;
		for (size_t i = 0; i < n; i++) {
			const struct measured_point *p = &pts[i];
			const struct measured_run *r = &f->runs[p->run];
			double mp = measured_pct(r);
			if (p->h != o->heuristics[h] || r->kind == MEASURED_SWEEP || isnan(mp))
				continue;
			cmp++;
			within += fabs(p->remat_pct - mp) <= 1;
			worst = fmax(worst, fabs(p->remat_pct - mp));
		}
		if (cmp)
			printf("%s: %zu of %zu runs within 1 point of the measured remat overhead, "
			       "the farthest %.2f points%s\n", o->heuristics[h]->name, within, cmp, worst,
			       o->heuristics[h]->random ? " (medians over the seeds)" : "");
	}
}

static void put_sweeps(const struct measured_file *f, const struct measured_point *pts, size_t n)
{
	bool any = false;
	for (size_t i = 0; i < f->n_runs && !any; i++)
		any = f->runs[i].kind == MEASURED_SWEEP;
	if (!any)
		return;
	printf("\nlargest inputs (param_sweep runs: the paper's Table 1):\n");
	printf("%-16s %5s %8s  %-8s %-13s %9s %-6s %s\n", "model", "batch", "budget", "measured",
	       "heuristic", "fit_GB", "agrees", "replay at the budget");
	const char *last_why = NULL, *last_model = NULL;
	for (size_t i = 0; i < f->n_runs; i++) {
		const struct measured_run *r = &f->runs[i];
		if (r->kind != MEASURED_SWEEP)
			continue;
		bool shown = false;
		for (size_t k = 0; k < n; k++) {
			const struct measured_point *p = &pts[k];
			if (p->run != i)
				continue;
			char fb[32];
			if (p->fit_budget)
				snprintf(fb, sizeof fb, "%.3f", (double)p->fit_budget / 1e9);
			else
				snprintf(fb, sizeof fb, "none");
			char oc[48];
			if (p->trials > 1)
				snprintf(oc, sizeof oc, "%s (%u of %u passed)", outcome_name(p->outcome), p->passed,
					 p->trials);
			else
				snprintf(oc, sizeof oc, "%s", outcome_name(p->outcome));
			printf("%-16s %5u %5.2f GB  %-8s %-13s %9s %-6s %s\n", r->model, r->batch,
			       (double)r->budget / 1e9, outcome_of(r), p->h->name, fb, agrees(r, p) ? "yes" : "no", oc);
			shown = true;
		}
		if (!shown) {
			/* the reason once for the runs of a model that share it */
			bool same = last_why && !strcmp(last_why, r->why) && !strcmp(last_model, r->model);
			printf("%-16s %5u %5.2f GB  %-8s no log%s%s\n", r->model, r->batch, (double)r->budget / 1e9,
			       outcome_of(r), same ? " (as above)" : ": ", same ? "" : r->why);
			last_why = r->why;
			last_model = r->model;
		}
	}
	/* the largest batch each model ran under DTR, and without it */
	const char *last = NULL;
	for (size_t i = 0; i < f->n_runs; i++) {
		const struct measured_run *r = &f->runs[i];
		if (last && !strcmp(last, r->model))
			continue;
		unsigned dtr = 0, base = 0;
		uint64_t at = 0;
		bool sweep = false;
		for (size_t k = i; k < f->n_runs && !strcmp(f->runs[k].model, r->model); k++) {
			const struct measured_run *x = &f->runs[k];
			sweep |= x->kind == MEASURED_SWEEP;
			if (x->error)
				continue;
			if (x->kind == MEASURED_SWEEP && x->batch > dtr) {
				dtr = x->batch;
				at = x->budget;
			}
			if (x->kind == MEASURED_BASELINE && x->batch > base)
				base = x->batch;
		}
		last = r->model;
		if (sweep && dtr)
			printf("%s: the largest batch the prototype ran is %u, at %.2f GB (unmodified PyTorch: %u)\n",
			       r->model, dtr, (double)at / 1e9, base);
		else if (sweep)
			printf("%s: every param_sweep run of the prototype failed\n", r->model);
	}
}

static bool same_group(const struct measured_run *a, const struct measured_run *b)
{
	return !strcmp(a->model, b->model) && a->batch == b->batch && !strcmp(a->why, b->why);
}

/* model, batch, reason, then file order (the runs are one array) */
static int by_group(const void *x, const void *y)
{
	const struct measured_run *a = *(const struct measured_run *const *)x;
	const struct measured_run *b = *(const struct measured_run *const *)y;
	int c = strcmp(a->model, b->model);
	if (!c)
		c = a->batch != b->batch ? (a->batch < b->batch ? -1 : 1) : strcmp(a->why, b->why);
	return c ? c : (a > b) - (a < b);
}

struct ugroup {
	const struct measured_run *const *runs; /* in file order */
	size_t n;
};

static int by_first(const void *x, const void *y)
{
	const struct measured_run *a = ((const struct ugroup *)x)->runs[0];
	const struct measured_run *b = ((const struct ugroup *)y)->runs[0];
	return (a > b) - (a < b);
}

static void put_unmatched(const struct measured_file *f, const char *archive)
{
	size_t n = 0;
	for (size_t i = 0; i < f->n_runs; i++)
		n += f->runs[i].kind != MEASURED_BASELINE && f->runs[i].kind != MEASURED_SWEEP && !f->runs[i].mm;
	if (!n)
		return;
	printf("\nunmatched: %zu run%s with no log in %s\n", n, n == 1 ? "" : "s", archive);
	/* grouped by model, batch and reason, in file order: sorted, a group
	 * is together (10^5 models: no walk of the rest per run) */
	const struct measured_run **u = xmalloc((n + 1) * sizeof *u);
	size_t k = 0;
	for (size_t i = 0; i < f->n_runs; i++) {
		const struct measured_run *r = &f->runs[i];
		if (r->kind != MEASURED_BASELINE && r->kind != MEASURED_SWEEP && !r->mm)
			u[k++] = r;
	}
	qsort(u, n, sizeof *u, by_group);
	struct ugroup *g = xmalloc((n + 1) * sizeof *g);
	size_t ng = 0;
	for (size_t i = 0, e; i < n; i = e) {
		for (e = i + 1; e < n && same_group(u[i], u[e]); e++)
			;
		g[ng++] = (struct ugroup){u + i, e - i};
	}
	qsort(g, ng, sizeof *g, by_first);
	for (size_t i = 0; i < ng; i++) {
		const struct measured_run *r = g[i].runs[0];
		printf("  %s (batch %u): ", r->model, r->batch);
		for (size_t j = 0; j < g[i].n; j++) {
			const struct measured_run *x = g[i].runs[j];
			printf("%s%.3g GB%s", j ? ", " : "", (double)x->budget / 1e9, x->error ? " (error)" : "");
		}
		printf(": %s\n", r->why);
	}
	free(g);
	free(u);
}

static int write_tsv(const char *dir, const struct measured_file *f, const char *archive,
		     const struct measured_point *pts, size_t n, const struct measured_options *o,
		     struct rs_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	char x[FMT_DOUBLE_LEN], y[FMT_DOUBLE_LEN], z[FMT_DOUBLE_LEN], w[FMT_DOUBLE_LEN], v[FMT_DOUBLE_LEN];
	fprintf(m, "# rematsim measured %s\n# measured: ", REMATSIM_VERSION);
	rs_tsv_field(m, f->path);
	fprintf(m, "\n# logs: ");
	rs_tsv_field(m, archive);
	fprintf(m, "\n# seeds: %" PRIu64 " and %u after it (random heuristics)\n", o->seed,
		o->trials ? o->trials - 1 : 0);
	if (o->rules) {
		char rb[100];
		fprintf(m, "# proto-rules: %s (those named; the others as each run had them)\n",
			proto_rules_text(o->rules, rb, sizeof rb));
	}
	fprintf(m, "%s\n", MEASURED_COLUMNS);
	for (size_t i = 0; i < n; i++) {
		const struct measured_point *p = &pts[i];
		const struct measured_run *r = &f->runs[p->run];
		if (r->kind == MEASURED_SWEEP)
			continue;
		double mp = measured_pct(r);
		rs_tsv_field(m, r->model);
		fputc('\t', m);
		rs_tsv_field(m, r->mm->log);
		fprintf(m, "\t%u\t%s\t%" PRIu64 "\t%s\t%u\t%u\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t", r->batch,
			measured_kind_name(r->kind), r->budget, p->h->name, p->trials, p->passed, outcome_of(r),
			outcome_name(p->outcome), isnan(mp) ? "nan" : fmt_double(x, mp), fmt_double(y, p->remat_pct),
			fmt_double(z, p->min_pct), fmt_double(w, p->max_pct),
			isnan(mp) ? "nan" : fmt_double(v, p->remat_pct - mp));
		fprintf(m, "%s\t%.0f\t%d\t%d\t%ld\n", isnan(r->total_mem) ? "nan" : fmt_double(x, round(r->total_mem)),
			p->peak, r->use_sampling, r->ignore_small, r->line);
	}
	if (fclose(m)) {
		free(buf);
		return rs_error_set(err, EXIT_IOERR, dir, 0, "cannot build measured.tsv");
	}
	int rc = make_dirs(dir, err) || write_file_atomic(dir, "measured.tsv", buf, len, false, err) ? -1 : 0;
	free(buf);
	return rc;
}

/* The command line's choices. */
struct measured_cli {
	const char *archive, *mapping, *hlist, *out;
	uint64_t seed, trials, jobs;
	double overhead_limit;
	bool json, rules_set;
	struct proto_rules rules;
	unsigned rules_named;
	const struct heuristic *hs[MAX_HEURISTICS];
	size_t nh;
};

/* --heuristic's list into a->hs: 0 or a usage error's status. */
static int measured_heuristics(struct measured_cli *a)
{
	char hbuf[1024];
	snprintf(hbuf, sizeof hbuf, "%s", a->hlist);
	char *save = NULL;
	for (char *w = strtok_r(hbuf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		const struct heuristic *h = heuristic_find(w);
		if (!h) {
			const char *sug = heuristic_suggest(w);
			return usage_error("measured", measured_help, "unknown heuristic '%s'%s%s%s", w,
					   sug ? ": did you mean " : "", sug ? sug : "", sug ? "?" : "");
		}
		for (size_t k = 0; k < a->nh; k++)
			if (a->hs[k] == h)
				return usage_error("measured", measured_help, "heuristic %s given twice", h->name);
		if (a->nh == MAX_HEURISTICS)
			return usage_error("measured", measured_help, "at most %d heuristics", MAX_HEURISTICS);
		a->hs[a->nh++] = h;
	}
	if (!a->nh)
		return usage_error("measured", measured_help, "--heuristic wants a list of names");
	struct rs_error err;
	for (size_t k = 0; k < a->nh; k++) {
		struct runtime_config probe = {.runtime = RUNTIME_V2_EAGER_OPTIMIZED, .heuristic = a->hs[k]};
		if (runtime_check_config(&probe, &err))
			return usage_error("measured", measured_help, "%s", err.msg);
	}
	return 0;
}

/* Parse the options into a: 0, -1 after --help (status 0), or a usage
 * error's status. */
static int measured_parse(int argc, char **argv, struct measured_cli *a)
{
	static const struct option longopts[] = {
		{"manifest", required_argument, NULL, 'm'},
		{"heuristic", required_argument, NULL, 'H'},
		{"seed", required_argument, NULL, 'S'},
		{"trials", required_argument, NULL, 'k'},
		{"proto-rules", required_argument, NULL, 'P'},
		{"overhead-limit", required_argument, NULL, 'l'},
		{"jobs", required_argument, NULL, 'J'},
		{"json", no_argument, NULL, 'j'},
		{"out", required_argument, NULL, 'o'},
		{"mapping", required_argument, NULL, 'M'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	/* an option with a value given twice is refused (cmd_opts.h) */
	if (opt_refuse_repeats("measured", argc, argv, ":h", longopts, NULL))
		return EXIT_USAGE;
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case ':':
			return usage_error("measured", measured_help, "option '%s' needs a value", argv[optind - 1]);
		case 'm': a->archive = optarg; break;
		case 'H': a->hlist = optarg; break;
		case 'S':
			if (opt_whole("measured", "--seed", optarg, 10, &a->seed))
				return EXIT_USAGE;
			break;
		case 'k':
			if (opt_whole("measured", "--trials", optarg, 10, &a->trials))
				return EXIT_USAGE;
			if (a->trials < 1 || a->trials > 1000)
				return usage_error("measured", measured_help, "--trials wants 1 to 1000, not %s", optarg);
			break;
		case 'P': {
			char why[200];
			if (proto_rules_parse(optarg, &a->rules, &a->rules_named, why, sizeof why))
				return usage_error("measured", measured_help, "--proto-rules: %s", why);
			a->rules_set = true;
			break;
		}
		case 'l':
			if (opt_overhead_limit("measured", optarg, &a->overhead_limit))
				return EXIT_USAGE;
			break;
		case 'J':
			if (opt_whole("measured", "--jobs", optarg, 10, &a->jobs))
				return EXIT_USAGE;
			if (a->jobs < 1 || a->jobs > 1024)
				return usage_error("measured", measured_help, "--jobs wants 1 to 1024, not %s", optarg);
			break;
		case 'j': a->json = true; break;
		case 'o': a->out = optarg; break;
		case 'M': a->mapping = optarg; break;
		case 'h':
			fputs(measured_help, stdout);
			return -1;
		default:
			return usage_error("measured", measured_help, "bad option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return usage_error("measured", measured_help, "give exactly one MEASURED.json");
	if (!a->archive)
		return usage_error("measured", measured_help, "--manifest ARCHIVE.zip is required (the logs)");
	return measured_heuristics(a);
}

/* The comparison as text: the header lines, the table, the sweeps, the
 * runs with no log. */
static void measured_print_text(const struct measured_cli *a, const char *file,
				const struct measured_file *f, const struct measured_point *pts, size_t n,
				const struct measured_options *o, size_t matched, size_t runs, size_t sweeps)
{
	char rb[100];
	bool random = false;
	for (size_t k = 0; k < a->nh; k++)
		random |= a->hs[k]->random;
	printf("%s against %s: %zu of %zu runs with a log%s\n", file, a->archive, matched, runs,
	       matched ? "; replayed without the logs' final pins" : "");
	if (random && matched)
		printf("random heuristics: the median of %" PRIu64 " seeds from %" PRIu64 "\n", a->trials, a->seed);
	if (a->rules_set && matched)
		printf("DTRPrototype's rules: %s for every run (of the rules named; the others "
		       "as each run had them)\n", proto_rules_text(&a->rules, rb, sizeof rb));
	if (matched > sweeps)
		printf("\n");
	put_table(f, pts, n, o);
	put_sweeps(f, pts, n);
	put_unmatched(f, a->archive);
}

/* No run has a log: nothing to compare (Table 1's runs are listed, log or
 * not); say why for each model. */
static int measured_none(const struct measured_cli *a, const char *file, const struct measured_file *f,
			 size_t runs)
{
	struct rs_error err;
	rs_error_set(&err, EXIT_DATAERR, file, 0,
		     "none of its %zu runs has a log in %s, so nothing can be compared", runs, a->archive);
	rs_error_print(&err);
	const char *last = NULL;
	for (size_t i = 0; i < f->n_runs; i++) {
		const struct measured_run *r = &f->runs[i];
		if (r->kind == MEASURED_BASELINE || (last && !strcmp(last, r->model)))
			continue;
		fprintf(stderr, "  %s (batch %u): %s\n", r->model, r->batch, r->why);
		last = r->model;
	}
	return EXIT_DATAERR;
}

/* rematsim measured: parse; read the measured runs, the archive's
 * manifest and --mapping; match runs to logs; replay; print. */
int cmd_measured(int argc, char **argv)
{
	struct measured_cli a = {.hlist = "DTR,DTREqClass,DTRPrototype", .seed = 1, .trials = 11,
				 .overhead_limit = 10, .rules = proto_rules_default};
	int prc = measured_parse(argc, argv, &a);
	if (prc)
		return prc < 0 ? 0 : prc;
	const char *file = argv[optind];
	struct rs_error err;
	struct measured_file f;
	struct manifest *mf = NULL;
	struct measured_table *table = NULL;
	struct measured_point *pts = NULL;
	size_t n = 0;
	int status = 0;
	if (measured_read(file, &f, &err) || manifest_read(a.archive, &mf, &err) ||
	    (a.mapping && measured_table_read(a.mapping, mf, &table, &err))) {
		rs_error_print(&err);
		status = err.status;
		goto out;
	}
	measured_match(&f, mf, table); /* (runs point into table: freed with mf) */
	size_t matched = 0, runs = 0, sweeps = 0;
	for (size_t i = 0; i < f.n_runs; i++) {
		runs += f.runs[i].kind != MEASURED_BASELINE;
		matched += f.runs[i].mm != NULL;
		sweeps += f.runs[i].kind == MEASURED_SWEEP;
	}
	if (!matched && !sweeps) {
		status = measured_none(&a, file, &f, runs);
		goto out;
	}
	struct measured_options o = {
		.heuristics = a.hs, .n_heuristics = a.nh, .seed = a.seed, .trials = (unsigned)a.trials,
		.rules = a.rules_set ? &a.rules : NULL, .rules_named = a.rules_named,
		.overhead_limit = a.overhead_limit,
		.fit_resolution = 0.01, .jobs = (unsigned)a.jobs,
	};
	if (measured_replay(&f, &o, &pts, &n, &err)) {
		rs_error_print(&err);
		status = err.status;
		goto out;
	}
	if (a.json) {
		for (size_t i = 0; i < f.n_runs; i++) {
			if (f.runs[i].kind == MEASURED_BASELINE)
				continue;
			if (!f.runs[i].mm)
				put_unmatched_json(&f.runs[i]);
			for (size_t k = 0; k < n; k++)
				if (pts[k].run == i)
					put_point_json(&f, &pts[k], &o);
		}
	} else {
		measured_print_text(&a, file, &f, pts, n, &o, matched, runs, sweeps);
	}
	if (a.out) {
		if (write_tsv(a.out, &f, a.archive, pts, n, &o, &err)) {
			rs_error_print(&err);
			status = err.status;
		} else if (!a.json) {
			printf("\nwrote %s/measured.tsv: draw it with rematsim plot %s\n", a.out, a.out);
		}
	}
out:
	free(pts);
	manifest_free(mf);
	measured_table_free(table);
	measured_file_free(&f);
	return status;
}
