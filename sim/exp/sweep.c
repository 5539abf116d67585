/*
 * sweep.c: see sweep.h. Workers run points and hand each finished row to
 * one mutex-guarded step that appends it to the journal (so a killed sweep
 * loses at most the rows in flight) and stores it in the table; the final
 * files are written whole from the table once all points are done.
 */
#include "sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"
#include "devmem.h"
#include "config.h"
#include "gap.h"
#include "heuristics.h"
#include "outfile.h"
#include "plan.h"
#include "planners.h"
#include "pool.h"
#include "profile.h"
#include "results.h"

#define JOURNAL "points.journal"

size_t sweep_shard_points(size_t total, unsigned shard, unsigned n_shards)
{
	size_t k = shard - 1;
	return total > k ? (total - k + n_shards - 1) / n_shards : 0;
}

int sweep_check_output(const char *out_dir, struct rs_error *err)
{
	if (make_dirs(out_dir, err))
		return -1;
	/* a fresh name of ours, created exclusively: a planted file or link
	 * of a fixed name would be followed and truncated */
	char *probe = path_join(out_dir, ".rematsim-write-test"), *tmp;
	int fd = outfile_create_tmp(probe, &tmp);
	free(probe);
	if (fd < 0) {
		rs_error_set(err, EXIT_CANTCREAT, out_dir, 0, "cannot write in this folder: %s",
			     strerror(errno));
		return -1;
	}
	close(fd);
	unlink(tmp);
	outfile_tmp_done(tmp);
	free(tmp);
	return 0;
}

/* The ratio column: the configured ratio, or budget / baseline memory. */
static void ratio_text(const struct experiment *e, const struct exp_point *p, char *buf,
		       size_t size)
{
	char b[FMT_DOUBLE_LEN];
	if (e->ratios)
		snprintf(buf, size, "%s", fmt_double(b, e->ratios[p->step]));
	else
		snprintf(buf, size, "%s", fmt_double(b, (double)experiment_budget(e, p->model, p->step) /
						   (double)e->models[p->model].base.memory));
}

/*
 * A planner point's `heuristic` column: the planner and its parameter
 * ("dp:k=4", "greedy:segment_budget=1048576", "sqrtn"); its series is the
 * planner's name, so that each planner is one curve.
 */
static void plan_text(const struct experiment *e, const struct exp_point *p, char *buf,
		      size_t size)
{
	const struct exp_plan *ep = &e->plans[p->plan];
	char r[FMT_DOUBLE_LEN];
	if (ep->ratios)
		snprintf(buf, size, "%s:ratio=%s", ep->planner->name,
			 fmt_double(r, ep->ratios[p->step]));
	else if (ep->planner->param_name)
		snprintf(buf, size, "%s:%s=%llu", ep->planner->name, ep->planner->param_name,
			 (unsigned long long)ep->params[p->step]);
	else
		snprintf(buf, size, "%s", ep->planner->name);
}

/* The gen columns (POINTS_GEN_COLUMNS) of a planner's row: the model's n
 * and the plan as its step (as the rows of heuristics at a plan's peak
 * name it). Every row of a points file has them when any has: the
 * readers (plot, merge, a resume) count a row's fields. */
static void put_plan_gen_columns(FILE *f, const struct experiment *e, const struct exp_point *p)
{
	if (!e->gen_columns)
		return;
	char what[128];
	plan_text(e, p, what, sizeof what);
	fprintf(f, "\t%llu\t%s", (unsigned long long)experiment_model_n(e, p->model), what);
}

/* The offload columns (POINTS_OFFLOAD_COLUMNS) of a row: the series' link
 * (none without one, or for a planner's row: s NULL) and the run's copies. */
static void put_offload_columns(FILE *f, const struct exp_series *s, const struct runtime_result *r)
{
	if (!s || !s->offload) {
		fputs("\tnone\tnone\t0\t0\t0", f);
	} else {
		char bw[FMT_DOUBLE_LEN];
		fprintf(f, "\t%s\t%s\t%lld\t%llu\t%u", offload_policy_name(s->off.policy),
			fmt_double(bw, s->off.bandwidth), (long long)s->off.latency_ns,
			(unsigned long long)s->off.host_memory, s->off.prefetch);
	}
	fprintf(f, "\t%llu\t%llu\t%llu\t%llu\t%lld\t%lld\t%lld\t%llu",
		(unsigned long long)r->offloads, (unsigned long long)r->bytes_offloaded,
		(unsigned long long)r->fetches, (unsigned long long)r->bytes_fetched,
		(long long)r->stall_ns, (long long)r->d2h_busy_ns, (long long)r->h2d_busy_ns,
		(unsigned long long)r->peak_host_memory);
}

/* The allocator columns (POINTS_ALLOC_COLUMNS) of a row: what the model
 * saw under its replay, or `-` in each (dr NULL: a planner's row). */
static void put_alloc_columns(FILE *f, const struct experiment *e, const struct devmem_result *dr)
{
	if (!e->alloc_columns)
		return;
	if (!dr) {
		fputs("\t-\t-\t-\t-\t-\t-", f);
		return;
	}
	fprintf(f, "\t%llu\t%llu\t%llu\t%llu\t%llu\t%s", (unsigned long long)dr->reserved_peak,
		(unsigned long long)dr->allocated_peak,
		(unsigned long long)dr->fragmentation_at_reserved_peak,
		(unsigned long long)dr->segments_peak, (unsigned long long)dr->device_allocs,
		dr->oom ? "yes" : "no");
}

/* The ILP columns (results.h) of a row: what the solver found for an ILP
 * plan (r NULL: not an ILP's row) whose schedule replayed to `overhead`
 * (NAN: no schedule). */
static void ilp_fields(FILE *f, const struct experiment *e, size_t model,
		       const struct ilp_result *r, double overhead)
{
	if (!e->ilp_columns)
		return;
	if (!r) {
		fputs("\t-\t-\t-", f);
		return;
	}
	if (!r->solver) { /* not tried: the model has more ops than max_ops */
		fputs("\ttoo_large\t-\t0.000", f);
		return;
	}
	static const char *const status[] = {
		[ILP_OPTIMAL] = "optimal",       [ILP_FEASIBLE] = "feasible",
		[ILP_INFEASIBLE] = "infeasible", [ILP_UNKNOWN] = "unsolved",
		[ILP_LP_ROUNDED] = "rounded",    [ILP_NO_ROUNDING] = "unsolved",
	};
	char b[FMT_DOUBLE_LEN];
	fprintf(f, "\t%s\t", status[r->status]);
	/* The bound on the overhead: the schedule's replayed overhead less
	 * what the solver may still save (its objective, the schedule's
	 * recomputation, minus its bound), on the replay's own clock; the
	 * overhead itself when proven optimal. */
	double base = (double)e->models[model].base.compute;
	if (r->status == ILP_OPTIMAL && !isnan(overhead))
		fputs(fmt_double(b, overhead), f);
	else if ((r->status == ILP_FEASIBLE || r->status == ILP_LP_ROUNDED) && !isnan(overhead) &&
		 isfinite(r->bound) && base > 0)
		fputs(fmt_double(b, overhead - (r->objective - (r->bound > 0 ? r->bound : 0)) / base),
		      f);
	else
		fputs("-", f);
	fprintf(f, "\t%.3f", r->seconds);
}

/* Whether a plan point's failure is an ILP's answer without a schedule
 * (infeasible, nothing found in time): a row, not an error. */
static bool ilp_no_schedule(const struct experiment *e, const struct planner_plan *pp,
			    const struct rs_error *err)
{
	const struct ilp_result *r = &pp->ilp;
	return e->ilp_columns && r->solver && err->status == EXIT_DATAERR &&
	       (r->status == ILP_INFEASIBLE || r->status == ILP_UNKNOWN ||
		r->status == ILP_NO_ROUNDING);
}

/* An ILP point without a schedule at the budget it was asked (ratio and
 * budget the point's), nothing run, the solver's answer in the ILP
 * columns: outcome oom where no schedule fits (proven infeasible),
 * unsolved where nothing was found within the time limit, untried where
 * the model has more ops than max_ops; no overhead, no stopped clock. */
static char *format_noplan_row(const struct experiment *e, size_t i, const struct exp_point *p,
			       const struct ilp_result *r)
{
	const struct exp_model *m = &e->models[p->model];
	uint64_t budget = experiment_plan_param(e, p->model, p->plan, p->step);
	char ratio[FMT_DOUBLE_LEN], what[128];
	fmt_double(ratio, m->base.memory ? (double)budget / (double)m->base.memory : 0);
	if (e->plans[p->plan].ratios)
		fmt_double(ratio, e->plans[p->plan].ratios[p->step]);
	plan_text(e, p, what, sizeof what);
	char *line = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&line, &n);
	const char *outcome = !r->solver ? "untried"
			      : r->status == ILP_INFEASIBLE ? outcome_name(OUTCOME_OOM)
							    : "unsolved";
	fprintf(f, "%s\t%s\t%s\t0\t0\t%s\t%llu\t%s\t-\t0\t0\t0\t0\t0\t0\t0\t0.000\t%s\t%zu",
		m->name, what, runtime_kind_name(RUNTIME_V2), ratio, (unsigned long long)budget,
		outcome, e->plans[p->plan].planner->name, i);
	put_plan_gen_columns(f, e, p);
	if (e->offload_columns) {
		struct runtime_result none = {0}; /* nothing ran */
		put_offload_columns(f, NULL, &none);
	}
	put_alloc_columns(f, e, NULL);
	ilp_fields(f, e, p->model, r, NAN);
	fputs("\t-", f);
	fclose(f);
	return line;
}

/* A run's overhead field and its stopped_clock (results.h): the overhead
 * and `-` when it passed; `-` and the clock where it stopped when not. */
static void outcome_fields(char *overhead, char *stopped, size_t size, enum outcome outcome,
			   double value, int64_t clock)
{
	if (outcome == OUTCOME_PASS) {
		fmt_double(overhead, value); /* shortest exact: 1.7, not 1.7000000000000002 */
		snprintf(stopped, size, "-");
	} else {
		snprintf(overhead, size, "-");
		snprintf(stopped, size, "%lld", (long long)clock);
	}
}

/*
 * A planner point's row, in the same columns: runtime V2Eager (what plans
 * replay on), trial and seed 0, ratio the replayed peak / baseline memory,
 * budget the replayed peak (the budget the plan needs), no heuristic
 * evaluations. A plan obeys the experiment's overhead limit as a heuristic
 * does: one whose remat compute passes (limit - 1) x the baseline compute
 * (the runtime's rule) is a thrash, its counters those of the whole replay.
 */
static char *format_plan_row(const struct experiment *e, size_t i, const struct exp_point *p,
			     const struct plan_result *pr, const struct planner_plan *pp)
{
	const struct runtime_result *r = &pr->run;
	char ratio[64], what[128];
	fmt_double(ratio, pr->ratio);
	plan_text(e, p, what, sizeof what);
	char *line = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&line, &n);
	double limit = isinf(e->overhead_limit)
			       ? INFINITY
			       : (double)e->models[p->model].base.compute * (e->overhead_limit - 1);
	enum outcome outcome = r->outcome == OUTCOME_PASS && (double)r->remat_compute > limit
				       ? OUTCOME_THRASH
				       : r->outcome;
	char overhead[FMT_DOUBLE_LEN + 8], stopped[32];
	if (outcome == OUTCOME_PASS)
		snprintf(overhead, sizeof overhead, "%.17g", pr->overhead);
	else
		snprintf(overhead, sizeof overhead, "-");
	snprintf(stopped, sizeof stopped, outcome == OUTCOME_PASS ? "-" : "%lld", (long long)r->clock);
	fprintf(f, "%s\t%s\t%s\t0\t0\t%s\t%llu\t%s\t%s\t%llu\t%lld\t%lld\t"
		   "%llu\t%llu\t0\t0\t%.3f\t%s\t%zu",
		e->models[p->model].name, what, runtime_kind_name(pr->runtime), ratio,
		(unsigned long long)r->peak_memory, outcome_name(outcome), overhead,
		(unsigned long long)r->peak_memory, (long long)r->model_compute,
		(long long)r->remat_compute, (unsigned long long)r->evictions,
		(unsigned long long)r->remats, pr->wall_ms, e->plans[p->plan].planner->name, i);
	put_plan_gen_columns(f, e, p);
	if (e->offload_columns)
		put_offload_columns(f, NULL, r);
	put_alloc_columns(f, e, NULL);
	ilp_fields(f, e, p->model,
		   e->plans[p->plan].planner->param == PLANNER_PARAM_BUDGET ? &pp->ilp : NULL,
		   pr->overhead);
	fprintf(f, "\t%s", stopped);
	fclose(f);
	return line;
}

static char *format_row(const struct experiment *e, size_t i, const struct exp_point *p,
			const struct point_result *pr, const struct devmem_result *dr)
{
	const struct exp_series *s = &e->series[p->series];
	const struct runtime_result *r = &pr->run;
	char ratio[64], overhead[FMT_DOUBLE_LEN];
	if (p->at_peak != EXP_NONE) /* at a plan's peak: budget / baseline memory */
		fmt_double(ratio, (double)pr->budget / (double)e->models[p->model].base.memory);
	else
		ratio_text(e, p, ratio, sizeof ratio);
	char stopped[32];
	outcome_fields(overhead, stopped, sizeof stopped, r->outcome, pr->overhead, r->clock);
	char *line = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&line, &n);
	/* Column order: POINTS_COLUMNS in results.h. */
	fprintf(f, "%s\t%s\t%s\t%u\t%llu\t%s\t%llu\t%s\t%s\t%llu\t%lld\t%lld\t"
		   "%llu\t%llu\t%llu\t%llu\t%.3f\t%s\t%zu",
		e->models[p->model].name, s->heuristic->name,
		runtime_kind_name(s->runtime), p->trial, (unsigned long long)p->seed, ratio,
		(unsigned long long)pr->budget, outcome_name(r->outcome), overhead,
		(unsigned long long)r->peak_memory, (long long)r->model_compute,
		(long long)r->remat_compute, (unsigned long long)r->evictions,
		(unsigned long long)r->remats, (unsigned long long)r->heuristic_evals,
		(unsigned long long)r->heuristic_accesses, pr->wall_ms, s->name, i);
	if (e->gen_columns) {
		char step[160];
		if (p->at_peak != EXP_NONE) { /* the plan whose peak it is */
			struct exp_point pp = *p;
			experiment_plan_point(e, p->at_peak, &pp.plan, &pp.step);
			plan_text(e, &pp, step, sizeof step);
		} else {
			experiment_step_text(e, p->step, step, sizeof step);
		}
		fprintf(f, "\t%llu\t%s", (unsigned long long)experiment_model_n(e, p->model), step);
	}
	if (e->offload_columns)
		put_offload_columns(f, s, r);
	put_alloc_columns(f, e, dr);
	ilp_fields(f, e, p->model, NULL, NAN);
	fprintf(f, "\t%s", stopped);
	fclose(f);
	return line;
}

/* Does a row read back belong to point i of this experiment? */
static bool row_matches(const struct experiment *e, size_t i, const char *row)
{
	struct exp_point p;
	experiment_point(e, i, &p);
	char *copy = xstrdup(row);
	char *f[PC_COUNT];
	tsv_split(copy, f, PC_COUNT);
	char trial[16], ratio[64];
	snprintf(trial, sizeof trial, "%u", p.trial);
	if (p.plan != EXP_NONE) {
		/* the ratio is the replay's result, not the point's */
		plan_text(e, &p, ratio, sizeof ratio);
		bool ok = !strcmp(f[PC_MODEL], e->models[p.model].name) &&
			  !strcmp(f[PC_SERIES], e->plans[p.plan].planner->name) &&
			  !strcmp(f[PC_HEURISTIC], ratio);
		free(copy);
		return ok;
	}
	if (p.at_peak != EXP_NONE) {
		/* the budget is a plan's replayed peak: checked by the config hash */
		bool ok = !strcmp(f[PC_MODEL], e->models[p.model].name) &&
			  !strcmp(f[PC_SERIES], e->series[p.series].name) &&
			  !strcmp(f[PC_TRIAL], trial);
		free(copy);
		return ok;
	}
	ratio_text(e, &p, ratio, sizeof ratio);
	bool ok = !strcmp(f[PC_MODEL], e->models[p.model].name) &&
		  !strcmp(f[PC_SERIES], e->series[p.series].name) &&
		  !strcmp(f[PC_TRIAL], trial) && !strcmp(f[PC_RATIO], ratio);
	free(copy);
	return ok;
}

static char *models_text(const struct experiment *e, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	fputs(MODELS_COLUMNS "\n", f);
	for (size_t i = 0; i < e->n_models; i++) {
		const struct exp_model *m = &e->models[i];
		char sha[65], cr[64], br[64], fr[64];
		hex_encode(m->sched->sha256, 32, sha);
		double mem = (double)m->base.memory;
		uint64_t floor = schedule_floor(m->sched, false);
		fmt_double(cr, mem > 0 ? (double)m->base.const_memory / mem : 0);
		fmt_double(br, mem > 0 ? (double)m->base.bottleneck_memory / mem : 0);
		fmt_double(fr, mem > 0 ? (double)floor / mem : 0);
		/* as they are: no tab or line break (experiment.c, model_fields) */
		fprintf(f, "%s\t%s\t%s\t%s", m->name, m->title, m->desc, m->spec);
		fprintf(f, "\t%s\t%zu\t%zu\t%llu\t%lld\t%llu\t%llu\t%s\t%s\t%llu\t%s\n", sha,
			m->sched->n_ops, m->sched->n_tensors,
			(unsigned long long)m->base.memory, (long long)m->base.compute,
			(unsigned long long)m->base.const_memory,
			(unsigned long long)m->base.bottleneck_memory, cr, br,
			(unsigned long long)floor, fr);
	}
	fclose(f);
	return buf;
}

static void fill_header(const struct experiment *e, const struct sweep_options *opt,
			struct points_table *t)
{
	char buf[4096];
	points_header_add(t, "rematsim", REMATSIM_VERSION);
	points_header_add(t, "command", opt->command_line ? opt->command_line : "");
	points_header_add(t, "experiment", e->name);
	points_header_add(t, "config_hash", e->hash);
	snprintf(buf, sizeof buf, "%llu", (unsigned long long)e->seed);
	points_header_add(t, "seed", buf);
	snprintf(buf, sizeof buf, "%zu", experiment_n_points(e));
	points_header_add(t, "points", buf);
	snprintf(buf, sizeof buf, "%u/%u", opt->shard, opt->n_shards);
	points_header_add(t, "shard", buf);
	for (size_t i = 0; i < e->n_models; i++) {
		char sha[65];
		hex_encode(e->models[i].sched->sha256, 32, sha);
		snprintf(buf, sizeof buf, "%s\t%s\t%s", e->models[i].name, sha,
			 e->models[i].spec);
		points_header_add(t, "log", buf);
	}
	points_header_add(t, "seeds", "splitmix64(seed ^ fnv1a64(model \\x1f heuristic \\x1f trial))");
	/* What the figures need to know (plot.c): the limit, absolute
	 * budgets, a y range asked for. */
	fmt_double(buf, e->overhead_limit);
	points_header_add(t, "overhead_limit", buf);
	if (e->budgets) {
		size_t len = 0;
		buf[0] = 0;
		for (size_t i = 0; i < e->n_steps && len + 32 < sizeof buf; i++)
			len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%llu", i ? "," : "",
						(unsigned long long)e->budgets[i]);
		points_header_add(t, "budgets", buf);
	}
	if (e->gap)
		points_header_add(t, "gap", e->gap);
	if (e->alloc_columns) { /* the allocator columns' settings (docs/allocator.md) */
		points_header_add(t, "allocator", e->alloc_text);
		if (e->device_memory != UINT64_MAX)
			snprintf(buf, sizeof buf, "%llu", (unsigned long long)e->device_memory);
		points_header_add(t, "device_memory", e->device_memory != UINT64_MAX ? buf : "none");
	}
	if (e->at_plan_peaks) { /* the points from here on are at plan peaks (experiment.h) */
		snprintf(buf, sizeof buf, "%zu", experiment_first_peak_point(e));
		points_header_add(t, "plan_peak_points", buf);
	}
	if (e->yrange[1] > e->yrange[0]) { /* NAN compares false */
		char lo[64], hi[64];
		fmt_double(lo, e->yrange[0]);
		fmt_double(hi, e->yrange[1]);
		snprintf(buf, sizeof buf, "%s:%s", lo, hi);
		points_header_add(t, "yrange", buf);
	}
}

/* Keep the rows of an old file or journal that belong to this experiment.
 * A damaged file (a bad header count or row) is an error, not a reason to
 * silently run everything again: -1 with err. */
static long adopt_rows(const struct experiment *e, const char *path,
		       struct points_table *t, struct rs_error *err)
{
	struct points_table old;
	size_t n = 0;
	if (points_read(path, true, &old, err))
		return err && err->status == EXIT_DATAERR ? -1 : 0;
	const char *hash = points_header(&old, "config_hash");
	if (!old.rows || !hash || strcmp(hash, e->hash) || old.total != t->total) {
		points_table_free(&old);
		return 0;
	}
	for (size_t i = 0; i < old.total; i++)
		if (old.rows[i] && row_matches(e, i, old.rows[i])) {
			points_table_put(t, i, old.rows[i]);
			old.rows[i] = NULL;
			n++;
		}
	points_table_free(&old);
	return (long)n;
}

static char *table_text(const struct points_table *t, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	points_write(f, t);
	fclose(f);
	return buf;
}

static int write_outputs(const char *dir, const struct points_table *t,
			 const char *models, size_t models_len, struct rs_error *err)
{
	size_t len;
	char *text = table_text(t, &len);
	int rc = write_file_atomic(dir, "points.tsv", text, len, true, err);
	free(text);
	if (rc)
		return -1;
	if (write_file_atomic(dir, "models.tsv", models, models_len, true, err))
		return -1;
	char *fr = NULL;
	FILE *f = open_memstream(&fr, &len);
	frontier_write(f, t);
	fclose(f);
	rc = write_file_atomic(dir, "frontier.tsv", fr, len, true, err);
	free(fr);
	const char *gap = points_header(t, "gap");
	if (!rc && !gap) { /* an older table of this folder's is no longer this sweep's */
		char *old = path_join(dir, "gap.tsv");
		unlink(old);
		free(old);
	}
	if (!rc && gap) { /* an experiment with `gap:` (gap.h) */
		char *g = NULL;
		f = open_memstream(&g, &len);
		gap_write(f, t, gap);
		fclose(f);
		rc = write_file_atomic(dir, "gap.tsv", g, len, true, err);
		free(g);
	}
	return rc;
}

struct run_ctx {
	const struct experiment *e;
	const struct sweep_options *opt;
	size_t *todo;
	struct points_table *table;
	FILE *journal;
	const char *journal_path;
	pthread_mutex_t lock;
	size_t new_rows;
	struct rs_error err; /* the first point that could not run */
	size_t n_errors;
	/* The first failed journal write (a full disk): no point starts after it. */
	bool journal_failed;
	struct rs_error journal_err;
	double start_s;
	bool tty;
	bool progress_shown;
	/* [model * plan points + k]: plan k's replayed peak, the budget of the
	 * points at plan peaks (computed for the models that run some) */
	uint64_t *peaks;
	/* Per point, the next point whose replay is the same as its own
	 * (SIZE_MAX: none): only the first of each chain runs (share_replays). */
	size_t *same_next;
	size_t n_todo;
};

/* Hand a finished row (or an error) to the journal and table. */
static void point_done(struct run_ctx *rc, size_t i, char *line, const struct rs_error *err)
{
	pthread_mutex_lock(&rc->lock);
	if (!line) {
		if (!rc->n_errors++)
			rc->err = *err;
	} else if (rc->journal_failed) {
		free(line); /* run while the failure happened: rerun on resume */
	} else if (fprintf(rc->journal, "%s\n", line) < 0 || fflush(rc->journal)) {
		/* Stop at the first failed write: the rows before it are whole
		 * in the journal (a torn last line is ignored on resume). */
		rc->journal_failed = true;
		rs_error_set(&rc->journal_err, EXIT_IOERR, rc->journal_path, 0,
			     "cannot append to the journal: %s; the sweep stops, keeping the %zu "
			     "rows written (rerun it to resume)", strerror(errno),
			     rc->table->n_rows);
		free(line);
	} else {
		points_table_put(rc->table, i, line);
		rc->new_rows++;
		if (rc->opt->stop_after && (long)rc->new_rows >= rc->opt->stop_after)
			_exit(75); /* testing: a kill between two rows */
	}
	pthread_mutex_unlock(&rc->lock);
}

/* A planner point: the model's profile, the plan, its replay. */
static void run_plan_point(struct run_ctx *rc, size_t i, const struct exp_point *p)
{
	const struct experiment *e = rc->e;
	const struct exp_model *m = &e->models[p->model];
	struct rs_error err = {0};
	struct planner_plan plan;
	struct plan_result pr;
	char *line = NULL;
	const struct exp_plan *ep = &e->plans[p->plan];
	if (ep->max_ops && m->sched->n_ops > ep->max_ops) {
		struct ilp_result none = {0}; /* no solver ran */
		line = format_noplan_row(e, i, p, &none);
	} else if (!experiment_plan_replay(e, p->model, p->plan, p->step, &plan, &pr, &err)) {
		line = format_plan_row(e, i, p, &pr, &plan);
		planner_plan_free(&plan);
	} else if (ilp_no_schedule(e, &plan, &err)) {
		line = format_noplan_row(e, i, p, &plan.ilp);
	}
	if (!line && !err.file[0])
		snprintf(err.file, sizeof err.file, "%s", m->spec);
	point_done(rc, i, line, &err);
}

/* A heuristic point's replay, as run_point runs it. */
static struct point_config point_replay(const struct run_ctx *rc, const struct exp_point *pp)
{
	const struct experiment *e = rc->e;
	const struct exp_point p = *pp;
	const struct exp_series *s = &e->series[p.series];
	bool at_peak = p.at_peak != EXP_NONE;
	return (struct point_config){
		.rt.heuristic = s->heuristic,
		.rt.runtime = s->runtime,
		.ratio = e->ratios && !at_peak ? e->ratios[p.step] : 0,
		.budget = at_peak ? rc->peaks[p.model * experiment_plan_points(e) + p.at_peak]
				  : experiment_budget(e, p.model, p.step),
		.overhead_limit = e->overhead_limit,
		.rt.seed = p.seed,
		.rt.no_dealloc = s->no_dealloc,
		.rt.offload = s->offload ? &s->off : NULL,
	};
}

/* `device_memory`: the replay stops where the allocator could not reserve. */
static bool device_full(void *ctx)
{
	return devmem_failed(ctx);
}

static void run_point(void *ctx, size_t k)
{
	struct run_ctx *rc = ctx;
	const struct experiment *e = rc->e;
	size_t i = rc->todo[k];
	pthread_mutex_lock(&rc->lock);
	bool stop = rc->journal_failed;
	pthread_mutex_unlock(&rc->lock);
	if (stop)
		return;
	struct exp_point p;
	experiment_point(e, i, &p);
	const struct exp_model *m = &e->models[p.model];
	if (p.plan != EXP_NONE) {
		run_plan_point(rc, i, &p);
		return;
	}
	struct point_config pc = point_replay(rc, &p);
	struct point_result pr;
	struct rs_error err = {0};
	memset(&pr, 0, sizeof pr);
	/* a replay this program ran before (sweep --cache): its result, and
	 * the time it took then */
	struct pcache *cache = rc->opt->cache;
	char key[PCACHE_KEY_MAX];
	uint64_t budget = point_budget(&m->base, &pc);
	/* `allocator:`: the model follows the replay (its hook: no cached
	 * result, pcache_key declines a replay with one) */
	struct devmem *dm = NULL;
	if (e->alloc_columns) {
		dm = devmem_new(m->sched, &e->alloc, e->device_memory);
		pc.rt.on_event = devmem_on_event;
		pc.rt.ctx = dm;
		if (e->device_memory != UINT64_MAX)
			pc.rt.stop = device_full;
	}
	bool keyed = cache && pcache_key(cache, m->sched->sha256, &pc, budget, key);
	int failed = 0;
	if (!keyed || !pcache_get(cache, key, &m->base, budget, &pr)) {
		double t0 = now_seconds();
		failed = point_run(m->sched, &m->base, &pc, &pr, &err);
		if (!pr.wall_ms)
			pr.wall_ms = (now_seconds() - t0) * 1e3;
		if (keyed && !failed)
			pcache_put(cache, key, &pr);
	}
	struct devmem_result dres, *dr = NULL;
	if (dm) {
		devmem_result(dm, &dres);
		devmem_free(dm);
		if (!failed && dres.broken)
			rs_bug("sweep allocator: the allocator's follower lost the replay's memory");
		dr = &dres;
	}
	char *line = failed ? NULL : format_row(e, i, &p, &pr, dr);
	point_done(rc, i, line, &err);
	/* the points with the same replay: its result (and time), their rows */
	for (size_t j = rc->same_next[i]; j != SIZE_MAX; j = rc->same_next[j]) {
		struct exp_point q;
		experiment_point(e, j, &q);
		point_done(rc, j, failed ? NULL : format_row(e, j, &q, &pr, dr), &err);
	}
}

/*
 * Points whose replays are the same (model, heuristic, runtime, budget,
 * seed, no_dealloc, the series' host link; the overhead limit is the
 * experiment's) run once, the
 * first of them in todo's order; the others take its result, wall_ms
 * included. In pareto, plans of equal peaks (dp at several k) put the
 * heuristics at the same budgets: 640 of its 3,048 points on the paper's
 * logs. Leaves the first of each chain in todo (order kept), their chains in
 * rc->same_next.
 */
struct replay_key {
	uint64_t budget, seed;
	uintptr_t heuristic;
	uintptr_t offload; /* the series' host link (docs/offload.md), 0: none */
	uint32_t model, runtime, no_dealloc;
	size_t k; /* place in todo */
};

static int by_replay(const void *a, const void *b)
{
	const struct replay_key *x = a, *y = b;
#define CMP(f) if (x->f != y->f) return x->f < y->f ? -1 : 1
	CMP(model); CMP(heuristic); CMP(runtime); CMP(budget); CMP(seed); CMP(no_dealloc);
	CMP(offload); CMP(k);
#undef CMP
	return 0;
}

static size_t share_replays(struct run_ctx *rc, size_t *todo, size_t n_todo)
{
	const struct experiment *e = rc->e;
	size_t total = experiment_n_points(e);
	rc->same_next = xmalloc((total ? total : 1) * sizeof *rc->same_next);
	for (size_t i = 0; i < total; i++)
		rc->same_next[i] = SIZE_MAX;
	struct replay_key *key = xcalloc(n_todo ? n_todo : 1, sizeof *key);
	bool *follows = xcalloc(n_todo ? n_todo : 1, sizeof *follows);
	size_t n = 0;
	for (size_t k = 0; k < n_todo; k++) {
		struct exp_point p;
		experiment_point(e, todo[k], &p);
		if (p.plan != EXP_NONE)
			continue;
		struct point_config pc = point_replay(rc, &p);
		key[n++] = (struct replay_key){
			.budget = point_budget(&e->models[p.model].base, &pc), .seed = pc.rt.seed,
			.heuristic = (uintptr_t)pc.rt.heuristic, .model = p.model,
			.runtime = (uint32_t)pc.rt.runtime, .no_dealloc = pc.rt.no_dealloc,
			/* a series with a link shares only with itself: its own config */
			.offload = (uintptr_t)pc.rt.offload, .k = k,
		};
	}
	qsort(key, n, sizeof *key, by_replay);
	for (size_t a = 0, b; a < n; a = b) {
		/* [a, b): one replay, first in todo's order at a */
		for (b = a + 1; b < n; b++) {
			struct replay_key x = key[a], y = key[b];
			x.k = y.k = 0;
			if (by_replay(&x, &y))
				break;
		}
		for (size_t c = a + 1; c < b; c++) {
			rc->same_next[todo[key[c - 1].k]] = todo[key[c].k];
			follows[key[c].k] = true;
		}
	}
	size_t m = 0;
	for (size_t k = 0; k < n_todo; k++)
		if (!follows[k])
			todo[m++] = todo[k];
	free(key);
	free(follows);
	return m;
}

/*
 * Run the likely-longest points first (big logs, small ratios) so that no
 * long point starts last while the other workers idle. Only the order of
 * execution changes; rows are still written in point order.
 */
struct todo_cost {
	size_t point;
	double cost;
};

static int by_cost_desc(const void *a, const void *b)
{
	const struct todo_cost *x = a, *y = b;
	if (x->cost != y->cost)
		return x->cost < y->cost ? 1 : -1;
	return (x->point > y->point) - (x->point < y->point);
}

static void order_todo(const struct experiment *e, size_t *todo, size_t n)
{
	struct todo_cost *tc = xcalloc(n ? n : 1, sizeof *tc);
	for (size_t k = 0; k < n; k++) {
		struct exp_point p;
		experiment_point(e, todo[k], &p);
		const struct exp_model *m = &e->models[p.model];
		double r = p.plan != EXP_NONE || p.at_peak != EXP_NONE ? 1
			   : e->ratios ? e->ratios[p.step]
				       : (double)experiment_budget(e, p.model, p.step) /
					 (double)(m->base.memory + 1);
		tc[k].point = todo[k];
		tc[k].cost = (double)m->sched->n_cmds / (r > 0.05 ? r : 0.05);
	}
	qsort(tc, n, sizeof *tc, by_cost_desc);
	for (size_t k = 0; k < n; k++)
		todo[k] = tc[k].point;
	free(tc);
}

static void clock_text(double s, char *buf, size_t size)
{
	long t = (long)(s + 0.5);
	if (t >= 3600)
		snprintf(buf, size, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, size, "%ld:%02ld", t / 60, t % 60);
}

static void progress(void *ctx, size_t done, size_t n)
{
	struct run_ctx *rc = ctx;
	if (rc->opt->quiet)
		return;
	/* in points, not replays (share_replays): the rows made so far */
	bool last = done == n;
	pthread_mutex_lock(&rc->lock);
	done = last ? rc->n_todo : rc->new_rows + rc->n_errors;
	pthread_mutex_unlock(&rc->lock);
	n = rc->n_todo;
	if (done > n)
		done = n;
	double el = now_seconds() - rc->start_s;
	char elapsed[32], eta[32] = "?";
	clock_text(el, elapsed, sizeof elapsed);
	if (done > 0)
		clock_text(el / (double)done * (double)(n - done), eta, sizeof eta);
	if (rc->tty) {
		fprintf(stderr, "\r%s: %zu/%zu points, %s elapsed, ETA %s\033[K", rc->e->name,
			done, n, elapsed, eta);
		rc->progress_shown = true;
		if (done == n)
			fputc('\n', stderr);
	} else if (done < n) {
		fprintf(stderr, "rematsim: %s: %zu/%zu points, %s elapsed, ETA %s\n",
			rc->e->name, done, n, elapsed, eta);
	}
}

static int sweep_run_locked(const struct experiment *e, const struct sweep_options *opt,
			    struct rs_error *err);

/* The plans' replayed peaks, the budgets of the points at plan peaks. */
struct peaks_ctx {
	const struct experiment *e;
	size_t *tasks;          /* model * plan points + k */
	uint64_t *peaks;
	struct rs_error *errs;  /* per task */
	bool *failed;
};

static void peak_task(void *ctx, size_t i)
{
	struct peaks_ctx *pc = ctx;
	size_t np = experiment_plan_points(pc->e), t = pc->tasks[i];
	uint32_t plan, step;
	experiment_plan_point(pc->e, t % np, &plan, &step);
	const struct experiment *e = pc->e;
	const size_t model = t / np;
	const struct exp_plan *ep = &e->plans[plan];
	struct planner_plan rp;
	struct plan_result pr;
	/* A plan without a schedule (an ILP not run past max_ops, or one that
	 * proved or found none) has no peak: its heuristics run at the budget
	 * it was asked for, where its own row says what the solver answered. */
	if (ep->max_ops && e->models[model].sched->n_ops > ep->max_ops) {
		pc->peaks[t] = experiment_plan_param(e, model, plan, step);
		return;
	}
	if (experiment_plan_replay(e, model, plan, step, &rp, &pr, &pc->errs[i])) {
		if (ilp_no_schedule(e, &rp, &pc->errs[i]))
			pc->peaks[t] = experiment_plan_param(e, model, plan, step);
		else
			pc->failed[i] = true;
		return;
	}
	pc->peaks[t] = pr.run.peak_memory;
	planner_plan_free(&rp);
}

/*
 * For the models with points at plan peaks among todo, replay their plans
 * (on jobs threads) for the peaks: gives *peaks ([model * plan points +
 * k]), or -1 with err from the first plan (in order) that failed.
 */
static int plan_peaks(const struct experiment *e, unsigned jobs, const size_t *todo, size_t n_todo,
		      uint64_t **peaks, struct rs_error *err)
{
	size_t np = experiment_plan_points(e), n = 0;
	bool *need = xcalloc(e->n_models + 1, sizeof *need);
	for (size_t k = 0; k < n_todo; k++) {
		struct exp_point p;
		experiment_point(e, todo[k], &p);
		if (p.at_peak != EXP_NONE)
			need[p.model] = true;
	}
	struct peaks_ctx pc = {.e = e, .peaks = xcalloc(e->n_models * np + 1, sizeof *pc.peaks)};
	pc.tasks = xcalloc(e->n_models * np + 1, sizeof *pc.tasks);
	for (size_t m = 0; m < e->n_models; m++)
		for (size_t k = 0; need[m] && k < np; k++)
			pc.tasks[n++] = m * np + k;
	pc.errs = xcalloc(n + 1, sizeof *pc.errs);
	pc.failed = xcalloc(n + 1, sizeof *pc.failed);
	pool_run(jobs, n, peak_task, &pc, NULL, 1.0);
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++)
		if (pc.failed[i]) {
			if (err)
				*err = pc.errs[i];
			rc = -1;
		}
	free(need);
	free(pc.tasks);
	free(pc.errs);
	free(pc.failed);
	if (rc) {
		free(pc.peaks);
		return -1;
	}
	*peaks = pc.peaks;
	return 0;
}

int sweep_run(const struct experiment *e, const struct sweep_options *opt,
	      struct rs_error *err)
{
	/* One sweep at a time per folder; then what killed ones left is ours to clean. */
	int lock_fd;
	if (sweep_lock(opt->out_dir, &lock_fd, err))
		return -1;
	/* (and sweep_check_output's probe, which a kill may leave) */
	static const char *const outputs[] = {"points.tsv", "models.tsv", "frontier.tsv", "gap.tsv",
					      JOURNAL, ".rematsim-write-test"};
	clean_stale_tmp(opt->out_dir, outputs, sizeof outputs / sizeof *outputs);
	int rc = sweep_run_locked(e, opt, err);
	close(lock_fd);
	return rc;
}

static int sweep_run_locked(const struct experiment *e, const struct sweep_options *opt,
			    struct rs_error *err)
{
	size_t total = experiment_n_points(e);
	struct points_table table = {0};
	fill_header(e, opt, &table);
	points_table_size(&table, total);
	table.gen_columns = e->gen_columns;
	table.offload_columns = e->offload_columns;
	table.alloc_columns = e->alloc_columns;
	table.ilp_columns = e->ilp_columns;
	table.stop_column = true;

	char *points_path = path_join(opt->out_dir, "points.tsv");
	char *journal_path = path_join(opt->out_dir, JOURNAL);
	if (adopt_rows(e, points_path, &table, err) < 0 ||
	    adopt_rows(e, journal_path, &table, err) < 0) {
		if (err)
			snprintf(err->msg + strlen(err->msg), sizeof err->msg - strlen(err->msg),
				 " (move the file away to start over)");
		free(points_path);
		free(journal_path);
		points_table_free(&table);
		return -1;
	}
	size_t resumed = table.n_rows;

	size_t n_todo = 0;
	size_t *todo = xcalloc(total ? total : 1, sizeof *todo);
	for (size_t i = opt->shard - 1; i < total; i += opt->n_shards)
		if (!table.rows[i])
			todo[n_todo++] = i;

	order_todo(e, todo, n_todo);

	size_t models_len;
	char *models = models_text(e, &models_len);
	int rc = -1;
	struct run_ctx ctx = {.e = e, .opt = opt, .todo = todo, .table = &table};
	pthread_mutex_init(&ctx.lock, NULL);
	if (e->at_plan_peaks && n_todo && plan_peaks(e, opt->jobs, todo, n_todo, &ctx.peaks, err))
		goto out;
	size_t n_run = share_replays(&ctx, todo, n_todo);
	ctx.n_todo = n_todo;

	/* The journal starts as a whole file holding every row known so far. */
	size_t len;
	char *text = table_text(&table, &len);
	int wrc = write_file_atomic(opt->out_dir, JOURNAL, text, len, true, err);
	free(text);
	if (wrc)
		goto out;
	/* appended to where it was just written: never through a link */
	int jfd = open(journal_path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	ctx.journal = jfd < 0 ? NULL : fdopen(jfd, "a");
	if (!ctx.journal) {
		if (jfd >= 0)
			close(jfd);
		rs_error_set(err, EXIT_CANTCREAT, journal_path, 0, "cannot open: %s",
			     strerror(errno));
		goto out;
	}
	if (!opt->quiet && resumed)
		fprintf(stderr, "rematsim: %s: %zu points already in %s, %zu to run\n", e->name,
			resumed, opt->out_dir, n_todo);

	ctx.tty = isatty(STDERR_FILENO);
	ctx.start_s = now_seconds();
	ctx.journal_path = journal_path;
	pool_run(opt->jobs, n_run, run_point, &ctx, progress, ctx.tty ? 0.5 : 10);
	if (fclose(ctx.journal) && !ctx.journal_failed) {
		ctx.journal_failed = true;
		rs_error_set(&ctx.journal_err, EXIT_IOERR, journal_path, 0,
			     "cannot write the journal: %s", strerror(errno));
	}
	if (ctx.journal_failed) {
		/* The earlier points.tsv stays as it was; the journal has the rest. */
		if (err)
			*err = ctx.journal_err;
		goto out;
	}

	if (write_outputs(opt->out_dir, &table, models, models_len, err))
		goto out;
	if (ctx.n_errors) {
		/* The rows that ran are kept; the journal lets a rerun resume. */
		if (err)
			*err = ctx.err;
		fprintf(stderr, "rematsim: %zu points could not run\n", ctx.n_errors);
		goto out;
	}
	unlink(journal_path);
	rc = 0;
out:
	pthread_mutex_destroy(&ctx.lock);
	free(ctx.peaks);
	free(ctx.same_next);
	free(models);
	free(todo);
	free(points_path);
	free(journal_path);
	points_table_free(&table);
	return rc;
}

/*
 * Merge's view of one folder: its finished points.tsv, else the journal a
 * killed sweep left (an unfinished shard), else nothing (a shard that never
 * ran). *kind says which; t is empty (no header) for nothing.
 */
enum merge_kind { MERGE_DONE, MERGE_JOURNAL, MERGE_NOTHING };

static int merge_read(const char *dir, struct points_table *t, enum merge_kind *kind,
		      struct rs_error *err)
{
	char *path = path_join(dir, "points.tsv");
	char *journal = path_join(dir, JOURNAL);
	int rc;
	*kind = MERGE_DONE;
	if (access(path, F_OK) && errno == ENOENT && !access(journal, F_OK)) {
		*kind = MERGE_JOURNAL;
		rc = points_read(journal, false, t, err);
	} else {
		rc = points_read(path, true, t, err);
		if (!rc && !t->n_header)
			*kind = MERGE_NOTHING;
	}
	if (!rc && *kind != MERGE_NOTHING && !points_header(t, "config_hash"))
		rc = rs_error_set(err, EXIT_DATAERR, *kind == MERGE_JOURNAL ? journal : path, 0,
				  "no config_hash header");
	free(path);
	free(journal);
	return rc;
}

/* "I/N" of a folder's `shard` header; 0 when absent or malformed. */
static unsigned shard_of(const struct points_table *t, unsigned *n)
{
	const char *s = points_header(t, "shard");
	unsigned i = 0;
	*n = 0;
	if (!s || sscanf(s, "%u/%u", &i, n) != 2 || !i || i > *n)
		i = *n = 0;
	return i;
}

/* Append to buf (of size, holding *len bytes) without overrunning it. */
static void bprintf(char *buf, size_t size, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void bprintf(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	if (*len >= size)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	*len = n < 0 ? size : *len + (size_t)n;
}

/* Up to 8 of the missing points p with p % step == first (step 1: all). */
static void list_missing(char *buf, size_t size, size_t *len, const struct points_table *t,
			 size_t first, size_t step, size_t count)
{
	size_t shown = 0;
	for (size_t p = first; p < t->total && shown < count; p += step)
		if (!t->rows[p]) {
			if (shown == 7 && count > 8) {
				bprintf(buf, size, len, ", ...");
				break;
			}
			bprintf(buf, size, len, "%s%zu", shown ? ", " : "", p);
			shown++;
		}
}

/*
 * The error for a merge that lacks points: how many, which, and, when the
 * folders are shards of one --shard I/N split, which shards to rerun and
 * where their folders are (or that none was given). Status: EXIT_NOINPUT
 * when a named folder holds no results at all, else EXIT_DATAERR.
 */
static void report_missing(const struct points_table *t, const char *const *dirs,
			   const enum merge_kind *kinds, const unsigned *shards, unsigned n_shards,
			   size_t n_dirs, size_t first, const char *made_by, struct rs_error *err)
{
	char msg[sizeof err->msg];
	size_t len = 0, missing = t->total - t->n_rows;
	int status = EXIT_DATAERR;
	for (size_t d = 0; d < n_dirs; d++)
		if (kinds[d] == MERGE_NOTHING)
			status = EXIT_NOINPUT;
	bprintf(msg, sizeof msg, &len, "merge: %zu of %zu points are missing", missing,
		t->total);
	if (!n_shards) {
		/* Not one --shard split: partial runs, or folders of different splits. */
		bprintf(msg, sizeof msg, &len, " (points ");
		list_missing(msg, sizeof msg, &len, t, 0, 1, missing);
		bprintf(msg, sizeof msg, &len,
			"); rerun the sweep into one of the folders (it resumes), then merge again");
		rs_error_set(err, status, NULL, 0, "%s", msg);
		return;
	}
	size_t to_rerun = 0, listed = 0;
	for (unsigned s = 1; s <= n_shards; s++) {
		size_t count = 0;
		for (size_t p = s - 1; p < t->total; p += n_shards)
			count += !t->rows[p];
		to_rerun += count > 0;
	}
	bprintf(msg, sizeof msg, &len, "; rerun %zu shard%s (a rerun into the same folder "
		"resumes), then merge again:", to_rerun, to_rerun == 1 ? "" : "s");
	for (unsigned s = 1; s <= n_shards; s++) {
		size_t count = 0;
		for (size_t p = s - 1; p < t->total; p += n_shards)
			count += !t->rows[p];
		if (!count)
			continue;
		if (listed++ == 6) {
			bprintf(msg, sizeof msg, &len, "\n  ... and %zu more shards", to_rerun - 6);
			break;
		}
		const char *dir = NULL;
		enum merge_kind kind = MERGE_DONE;
		for (size_t d = 0; d < n_dirs; d++)
			if (kinds[d] != MERGE_NOTHING && shards[d] == s) {
				dir = dirs[d];
				kind = kinds[d];
			}
		bprintf(msg, sizeof msg, &len, "\n  shard %u/%u, %zu point%s (", s, n_shards, count,
			count == 1 ? "" : "s");
		list_missing(msg, sizeof msg, &len, t, s - 1, n_shards, count);
		if (!dir)
			bprintf(msg, sizeof msg, &len, "): none of the folders is this shard's");
		else
			bprintf(msg, sizeof msg, &len, "): %s %s", dir,
				kind == MERGE_JOURNAL ? "is unfinished (points.journal, no points.tsv)"
						      : "is incomplete");
	}
	for (size_t d = 0; d < n_dirs; d++)
		if (kinds[d] == MERGE_NOTHING)
			bprintf(msg, sizeof msg, &len,
				"\n  %s holds no results (no points.tsv or points.journal)", dirs[d]);
	if (made_by)
		bprintf(msg, sizeof msg, &len, "\n  (%s was made by: %s)", dirs[first], made_by);
	/* Shards that `rematsim slurm` submitted: its script reruns them. */
	char *parent = xstrdup(dirs[first]);
	char *slash = strrchr(parent, '/');
	if (slash)
		*slash = 0;
	char *script = path_join(slash ? parent : ".", "slurm/shards.sbatch");
	if (!access(script, R_OK)) {
		bprintf(msg, sizeof msg, &len, "\n  with Slurm: sbatch --array=");
		const char *sep = "";
		for (unsigned s = 1; s <= n_shards; s++) {
			bool lacks = false;
			for (size_t p = s - 1; p < t->total && !lacks; p += n_shards)
				lacks = !t->rows[p];
			if (lacks) {
				bprintf(msg, sizeof msg, &len, "%s%u", sep, s);
				sep = ",";
			}
		}
		bprintf(msg, sizeof msg, &len, " %s", script);
	}
	free(script);
	free(parent);
	if (len >= sizeof msg)
		memcpy(msg + sizeof msg - 5, "...", 4);
	rs_error_set(err, status, NULL, 0, "%s", msg);
}

/* Whether a points row's model is one of t's header `log` lines' models. */
static bool row_model_known(const struct points_table *t, const char *row)
{
	size_t n = strcspn(row, "\t");
	for (size_t i = 0; i < t->n_header; i++)
		if (!strcmp(t->keys[i], "log") && strcspn(t->values[i], "\t") == n &&
		    !strncmp(t->values[i], row, n))
			return true;
	return false;
}

/* Whether t's header (of path) differs from the merged one's (first's) in
 * a line other than the command, shard and version: -1 with err if so. */
static int header_differs(const struct points_table *t, const struct points_table *merged,
			  const char *path, const char *first, struct rs_error *err)
{
	static const char *const own[] = {"command", "shard", "rematsim"};
	size_t i = 0, j = 0;
	for (;;) {
		while (i < t->n_header && (!strcmp(t->keys[i], own[0]) ||
					   !strcmp(t->keys[i], own[1]) || !strcmp(t->keys[i], own[2])))
			i++;
		while (j < merged->n_header && (!strcmp(merged->keys[j], own[0]) ||
						!strcmp(merged->keys[j], own[1]) ||
						!strcmp(merged->keys[j], own[2])))
			j++;
		if (i == t->n_header && j == merged->n_header)
			return 0;
		if (i == t->n_header || j == merged->n_header || strcmp(t->keys[i], merged->keys[j]) ||
		    strcmp(t->values[i], merged->values[j]))
			break;
		i++;
		j++;
	}
	const char *key = i < t->n_header ? t->keys[i] : merged->keys[j];
	return rs_error_set(err, EXIT_DATAERR, path, 0,
			    "header '%s' is '%s' here but '%s' in %s: the shards disagree (one was "
			    "edited, or is of another sweep)", key,
			    i < t->n_header ? t->values[i] : "(missing)",
			    j < merged->n_header ? merged->values[j] : "(missing)", first);
}

int sweep_merge(const char *const *dirs, size_t n_dirs, const char *out_dir,
		const char *command_line, struct rs_error *err)
{
	struct points_table merged = {0};
	char *models = NULL;
	size_t models_len = 0, models_from = 0;
	int rc = -1;
	size_t first = n_dirs; /* the first folder with results: header and models.tsv */
	enum merge_kind *kinds = xcalloc(n_dirs, sizeof *kinds);
	unsigned *shards = xcalloc(n_dirs, sizeof *shards);
	unsigned n_shards = 0; /* the N all folders share, else 0 */
	bool one_split = true;
	char *made_by = NULL; /* the first folder's command line */
	for (size_t d = 0; d < n_dirs; d++) {
		struct points_table t;
		if (merge_read(dirs[d], &t, &kinds[d], err))
			goto out;
		if (kinds[d] == MERGE_NOTHING) {
			points_table_free(&t);
			continue;
		}
		char *path = path_join(dirs[d], kinds[d] == MERGE_JOURNAL ? JOURNAL : "points.tsv");
		const char *hash = points_header(&t, "config_hash");
		unsigned n;
		shards[d] = shard_of(&t, &n);
		if (!shards[d] || n < 2 || (n_shards && n != n_shards))
			one_split = false;
		n_shards = n;
		/* what is copied is checked: plot reads it (issue 27, N15) */
		if (results_check_header(&t, path, err)) {
			points_table_free(&t);
			free(path);
			goto out;
		}
		if (first == n_dirs) {
			first = d;
			const char *cmd = points_header(&t, "command");
			made_by = cmd && *cmd ? xstrdup(cmd) : NULL;
			for (size_t i = 0; i < t.n_header; i++)
				points_header_add(&merged, t.keys[i], t.values[i]);
			points_header_set(&merged, "command", command_line ? command_line : "");
			points_header_set(&merged, "shard", "1/1");
			points_table_size(&merged, t.total);
			merged.gen_columns = t.gen_columns;
			merged.offload_columns = t.offload_columns;
			merged.alloc_columns = t.alloc_columns;
			merged.ilp_columns = t.ilp_columns;
			merged.stop_column = t.stop_column;
		} else if (strcmp(hash, points_header(&merged, "config_hash")) ||
			   t.total != merged.total) {
			rs_error_set(err, EXIT_DATAERR, path, 0,
				     "config hash %s differs from %s's (%s): not the same experiment",
				     hash, dirs[first], points_header(&merged, "config_hash"));
			points_table_free(&t);
			free(path);
			goto out;
		} else if (d != first && header_differs(&t, &merged, path, dirs[first], err)) {
			points_table_free(&t);
			free(path);
			goto out;
		}
		if (kinds[d] == MERGE_DONE) {
			/* every finished shard's models.tsv: well formed, of these
			 * points' models, and the same in each */
			char *mpath = path_join(dirs[d], "models.tsv"), *text;
			size_t len;
			int mrc = read_whole_file(mpath, &text, &len, err);
			if (!mrc && strlen(text) != len)
				mrc = rs_error_set(err, EXIT_DATAERR, mpath, 0, "holds a NUL byte");
			if (!mrc)
				mrc = results_check_models(text, &t, mpath, err);
			if (!mrc && models && (len != models_len || memcmp(text, models, len)))
				mrc = rs_error_set(err, EXIT_DATAERR, mpath, 0,
						   "differs from %s/models.tsv: the shards disagree (one "
						   "was edited, or is of another sweep)", dirs[models_from]);
			if (!mrc && !models) {
				models = text;
				models_len = len;
				models_from = d;
				text = NULL;
			}
			free(text);
			free(mpath);
			if (mrc) {
				points_table_free(&t);
				free(path);
				goto out;
			}
		}
		for (size_t i = 0; i < t.total; i++)
			if (t.rows[i] && !merged.rows[i]) {
				if (!row_model_known(&merged, t.rows[i])) {
					rs_error_set(err, EXIT_DATAERR, path, 0,
						     "point %zu is of model '%.*s', which is not one of "
						     "the header's: the row was edited", i,
						     (int)strcspn(t.rows[i], "\t"), t.rows[i]);
					points_table_free(&t);
					free(path);
					goto out;
				}
				points_table_put(&merged, i, t.rows[i]);
				t.rows[i] = NULL;
			}
		points_table_free(&t);
		free(path);
	}
	if (first == n_dirs) {
		rs_error_set(err, EXIT_NOINPUT, dirs[0], 0,
			     "no points.tsv (nor points.journal): not the output folder of a sweep%s",
			     n_dirs > 1 ? ", nor are the others" : "");
		goto out;
	}
	if (merged.n_rows < merged.total) {
		report_missing(&merged, dirs, kinds, shards, one_split ? n_shards : 0, n_dirs,
			       first, made_by, err);
		goto out;
	}
	if (!models) {
		rs_error_set(err, EXIT_NOINPUT, dirs[first], 0,
			     "no models.tsv in any folder with a finished points.tsv");
		goto out;
	}
	if (make_dirs(out_dir, err) ||
	    write_outputs(out_dir, &merged, models, models_len, err))
		goto out;
	rc = 0;
out:
	free(made_by);
	free(kinds);
	free(shards);
	free(models);
	points_table_free(&merged);
	return rc;
}
