/*
 * sweep.c: see sweep.h. Workers run points and hand each finished row to
 * one mutex-guarded step that appends it to the journal (so a killed sweep
 * loses at most the rows in flight) and stores it in the table; the final
 * files are written whole from the table once all points are done.
 */
#include "sweep.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "heuristics.h"
#include "pool.h"
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
	char *probe = path_join(out_dir, ".rematsim-write-test");
	FILE *f = fopen(probe, "w");
	if (!f) {
		rs_error_set(err, EXIT_CANTCREAT, out_dir, 0, "cannot write in this folder: %s",
			     strerror(errno));
		free(probe);
		return -1;
	}
	fclose(f);
	unlink(probe);
	free(probe);
	return 0;
}

/* The ratio column: the configured ratio, or budget / baseline memory. */
static void ratio_text(const struct experiment *e, const struct exp_point *p, char *buf,
		       size_t size)
{
	if (e->ratios)
		format_double(buf, size, e->ratios[p->step]);
	else
		format_double(buf, size, (double)experiment_budget(e, p->model, p->step) /
					 (double)e->models[p->model].base.memory);
}

static char *format_row(const struct experiment *e, size_t i, const struct exp_point *p,
			const struct point_result *pr)
{
	const struct exp_series *s = &e->series[p->series];
	const struct runtime_result *r = &pr->run;
	char ratio[64];
	ratio_text(e, p, ratio, sizeof ratio);
	char *line = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&line, &n);
	/* Column order: POINTS_COLUMNS in results.h. */
	fprintf(f, "%s\t%s\t%s\t%u\t%llu\t%s\t%llu\t%s\t%.17g\t%llu\t%lld\t%lld\t"
		   "%llu\t%llu\t%llu\t%llu\t%.3f\t%s\t%zu",
		e->models[p->model].name, s->heuristic->name,
		runtime_kind_name(s->runtime), p->trial, (unsigned long long)p->seed, ratio,
		(unsigned long long)pr->budget, outcome_name(r->outcome), pr->overhead,
		(unsigned long long)r->peak_memory, (long long)r->model_compute,
		(long long)r->remat_compute, (unsigned long long)r->evictions,
		(unsigned long long)r->remats, (unsigned long long)r->heuristic_evals,
		(unsigned long long)r->heuristic_accesses, pr->wall_ms, s->name, i);
	if (e->gen_columns) {
		char step[160];
		experiment_step_text(e, p->step, step, sizeof step);
		fprintf(f, "\t%llu\t%s", (unsigned long long)experiment_model_n(e, p->model), step);
	}
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
	ratio_text(e, &p, ratio, sizeof ratio);
	bool ok = !strcmp(f[PC_MODEL], e->models[p.model].name) &&
		  !strcmp(f[PC_SERIES], e->series[p.series].name) &&
		  !strcmp(f[PC_TRIAL], trial) && !strcmp(f[PC_RATIO], ratio);
	free(copy);
	return ok;
}

static void hex(const uint8_t *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

/* A field of models.tsv: no tabs or newlines. */
static void put_field(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

static char *models_text(const struct experiment *e, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	fputs(MODELS_COLUMNS "\n", f);
	for (size_t i = 0; i < e->n_models; i++) {
		const struct exp_model *m = &e->models[i];
		char sha[65], cr[64], br[64];
		hex(m->sched->sha256, 32, sha);
		double mem = (double)m->base.memory;
		format_double(cr, sizeof cr, mem > 0 ? (double)m->base.const_memory / mem : 0);
		format_double(br, sizeof br, mem > 0 ? (double)m->base.bottleneck_memory / mem : 0);
		put_field(f, m->name);
		fputc('\t', f);
		put_field(f, m->title);
		fputc('\t', f);
		put_field(f, m->desc);
		fputc('\t', f);
		put_field(f, m->spec);
		fprintf(f, "\t%s\t%zu\t%zu\t%llu\t%lld\t%llu\t%llu\t%s\t%s\n", sha,
			m->sched->n_ops, m->sched->n_tensors,
			(unsigned long long)m->base.memory, (long long)m->base.compute,
			(unsigned long long)m->base.const_memory,
			(unsigned long long)m->base.bottleneck_memory, cr, br);
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
		hex(e->models[i].sched->sha256, 32, sha);
		snprintf(buf, sizeof buf, "%s\t%s\t%s", e->models[i].name, sha,
			 e->models[i].spec);
		points_header_add(t, "log", buf);
	}
	points_header_add(t, "seeds", "splitmix64(seed ^ fnv1a64(model \\x1f heuristic \\x1f trial))");
}

/* Keep the rows of an old file or journal that belong to this experiment. */
static size_t adopt_rows(const struct experiment *e, const char *path,
			 struct points_table *t)
{
	struct points_table old;
	struct rs_error ignore;
	size_t n = 0;
	if (points_read(path, true, &old, &ignore))
		return 0; /* unreadable: run everything again */
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
	return n;
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
	return rc;
}

struct run_ctx {
	const struct experiment *e;
	const struct sweep_options *opt;
	size_t *todo;
	struct points_table *table;
	FILE *journal;
	pthread_mutex_t lock;
	size_t new_rows;
	struct rs_error err; /* the first point that could not run */
	size_t n_errors;
	double start_s;
	bool tty;
	bool progress_shown;
};

static void run_point(void *ctx, size_t k)
{
	struct run_ctx *rc = ctx;
	const struct experiment *e = rc->e;
	size_t i = rc->todo[k];
	struct exp_point p;
	experiment_point(e, i, &p);
	const struct exp_model *m = &e->models[p.model];
	const struct exp_series *s = &e->series[p.series];
	struct point_config pc = {
		.heuristic = s->heuristic,
		.runtime = s->runtime,
		.ratio = e->ratios ? e->ratios[p.step] : 0,
		.budget = experiment_budget(e, p.model, p.step),
		.overhead_limit = e->overhead_limit,
		.seed = p.seed,
		.no_dealloc = s->no_dealloc,
	};
	struct point_result pr;
	struct rs_error err = {0};
	memset(&pr, 0, sizeof pr);
	double t0 = now_seconds();
	int failed = point_run(m->sched, &m->base, &pc, &pr, &err);
	if (!pr.wall_ms)
		pr.wall_ms = (now_seconds() - t0) * 1e3;
	char *line = failed ? NULL : format_row(e, i, &p, &pr);

	pthread_mutex_lock(&rc->lock);
	if (failed) {
		if (!rc->n_errors++)
			rc->err = err;
	} else {
		fprintf(rc->journal, "%s\n", line);
		fflush(rc->journal);
		points_table_put(rc->table, i, line);
		rc->new_rows++;
		if (rc->opt->stop_after && (long)rc->new_rows >= rc->opt->stop_after)
			_exit(75); /* testing: a kill between two rows */
	}
	pthread_mutex_unlock(&rc->lock);
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
		double r = e->ratios ? e->ratios[p.step]
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

int sweep_run(const struct experiment *e, const struct sweep_options *opt,
	      struct rs_error *err)
{
	size_t total = experiment_n_points(e);
	struct points_table table = {0};
	fill_header(e, opt, &table);
	points_table_size(&table, total);
	table.gen_columns = e->gen_columns;

	char *points_path = path_join(opt->out_dir, "points.tsv");
	char *journal_path = path_join(opt->out_dir, JOURNAL);
	adopt_rows(e, points_path, &table);
	adopt_rows(e, journal_path, &table);
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

	/* The journal starts as a whole file holding every row known so far. */
	size_t len;
	char *text = table_text(&table, &len);
	int wrc = write_file_atomic(opt->out_dir, JOURNAL, text, len, true, err);
	free(text);
	if (wrc)
		goto out;
	ctx.journal = fopen(journal_path, "a");
	if (!ctx.journal) {
		rs_error_set(err, EXIT_CANTCREAT, journal_path, 0, "cannot open: %s",
			     strerror(errno));
		goto out;
	}
	if (!opt->quiet && resumed)
		fprintf(stderr, "rematsim: %s: %zu points already in %s, %zu to run\n", e->name,
			resumed, opt->out_dir, n_todo);

	ctx.tty = isatty(STDERR_FILENO);
	ctx.start_s = now_seconds();
	pool_run(opt->jobs, n_todo, run_point, &ctx, progress, ctx.tty ? 0.5 : 10);
	fclose(ctx.journal);

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
	free(models);
	free(todo);
	free(points_path);
	free(journal_path);
	points_table_free(&table);
	return rc;
}

int sweep_merge(const char *const *dirs, size_t n_dirs, const char *out_dir,
		const char *command_line, struct rs_error *err)
{
	struct points_table merged = {0};
	char *models = NULL;
	size_t models_len = 0;
	int rc = -1;
	for (size_t d = 0; d < n_dirs; d++) {
		char *path = path_join(dirs[d], "points.tsv");
		struct points_table t;
		if (points_read(path, false, &t, err)) {
			free(path);
			goto out;
		}
		const char *hash = points_header(&t, "config_hash");
		if (!hash) {
			rs_error_set(err, EXIT_DATAERR, path, 0, "no config_hash header");
			points_table_free(&t);
			free(path);
			goto out;
		}
		if (d == 0) {
			for (size_t i = 0; i < t.n_header; i++)
				points_header_add(&merged, t.keys[i], t.values[i]);
			points_header_set(&merged, "command", command_line ? command_line : "");
			points_header_set(&merged, "shard", "1/1");
			points_table_size(&merged, t.total);
			merged.gen_columns = t.gen_columns;
			char *mpath = path_join(dirs[d], "models.tsv");
			int mrc = read_whole_file(mpath, &models, &models_len, err);
			free(mpath);
			if (mrc) {
				points_table_free(&t);
				free(path);
				goto out;
			}
		} else if (strcmp(hash, points_header(&merged, "config_hash")) ||
			   t.total != merged.total) {
			rs_error_set(err, EXIT_DATAERR, path, 0,
				     "config hash %s differs from %s's (%s): not the same experiment",
				     hash, dirs[0], points_header(&merged, "config_hash"));
			points_table_free(&t);
			free(path);
			goto out;
		}
		for (size_t i = 0; i < t.total; i++)
			if (t.rows[i] && !merged.rows[i]) {
				points_table_put(&merged, i, t.rows[i]);
				t.rows[i] = NULL;
			}
		points_table_free(&t);
		free(path);
	}
	if (merged.n_rows < merged.total) {
		size_t first = 0;
		while (merged.rows[first])
			first++;
		rs_error_set(err, EXIT_DATAERR, NULL, 0,
			     "the folders hold %zu of %zu points (point %zu is missing): "
			     "a shard is missing or unfinished",
			     merged.n_rows, merged.total, first);
		goto out;
	}
	if (make_dirs(out_dir, err) ||
	    write_outputs(out_dir, &merged, models, models_len, err))
		goto out;
	rc = 0;
out:
	free(models);
	points_table_free(&merged);
	return rc;
}
