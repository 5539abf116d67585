/*
 * plot.c: see plot.h. The data of each figure is reduced here, in C, to
 * one small file per (panel, curve), because gnuplot cannot group TSV rows
 * itself: for each ratio, the mean, minimum and maximum over trials of the
 * plotted quantity, kept only where every trial passed (the paper's curves
 * run "through the ratios that passed").
 */
#include "plot.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gptext.h"
#include "gap.h"
#include "heuristics.h"
#include "outfile.h"
#include "planners.h"
#include "plot-private.h"
#include "results.h"

/*
 * The table of figures, asked in this order (plot.h, struct
 * plot_figure_row). A new figure is a row here and a script in plots/
 * (meson installs the folder whole) and, when its data is not a grid of
 * panels, a write function in a file of its own over plot-private.h
 * (plot-asymptotics.c). docs/architecture.md, "Adding a figure".
 */
static bool applies_grid(const struct plot_ctx *c, const struct plot_figure_row *row);
static bool applies_ablation(const struct plot_ctx *c, const struct plot_figure_row *row);
static bool applies_accesses(const struct plot_ctx *c, const struct plot_figure_row *row);
static int write_ablation(struct plot_ctx *c, const struct plot_figure_row *row,
			  struct plot_list *out, struct rs_error *err);
static int write_overhead(struct plot_ctx *c, const struct plot_figure_row *row,
			  struct plot_list *out, struct rs_error *err);
static int write_accesses(struct plot_ctx *c, const struct plot_figure_row *row,
			  struct plot_list *out, struct rs_error *err);
static bool applies_measured(const struct plot_ctx *c, const struct plot_figure_row *row);
static bool applies_snapshot(const struct plot_ctx *c, const struct plot_figure_row *row);
static int write_snapshot(struct plot_ctx *c, const struct plot_figure_row *row,
			  struct plot_list *out, struct rs_error *err);
static int write_measured(struct plot_ctx *c, const struct plot_figure_row *row,
			  struct plot_list *out, struct rs_error *err);
static bool applies_gap(const struct plot_ctx *c, const struct plot_figure_row *row);
static int write_gap(struct plot_ctx *c, const struct plot_figure_row *row,
		     struct plot_list *out, struct rs_error *err);

#define GRID_FILES "figure.gp, pP-cC.tsv, pP-cC-band.tsv, pP-cC-ends.tsv"
static const struct plot_figure_row figures[] = {
	{.name = "measured", .script = "measured",
	 .applies = "the folder of `rematsim measured --out` (measured.tsv, no sweep); drawn alone",
	 .writes = "measured (plots/measured.gp): simulated against measured, a panel per "
		   "heuristic; measured-budget (plots/measured-budget.gp): overhead against budget, a "
		   "panel per model (plot-measured.c)",
	 .own_files = true, .last = true, .applies_to = applies_measured, .write = write_measured},
	{.name = "snapshot", .script = "snapshot",
	 .applies = "the folder of `rematsim snapshot FILE.pickle --out` (memory.tsv, no sweep); drawn alone",
	 .writes = "memory (plots/snapshot.gp): allocated and reserved bytes over the trace",
	 .own_files = true, .last = true, .applies_to = applies_snapshot, .write = write_snapshot},
	{.name = "asymptotics", .script = "asymptotics",
	 .applies = "budgets written as formulas of n (the asymptotic study); drawn alone",
	 .writes = "EXP: figure.gp, pP-cC.tsv, pP-cC-fail.tsv, chen.tsv, treeverse.tsv",
	 .last = true, .applies_to = plot_asymptotics_applies, .write = plot_asymptotics_write},
	{.name = "ablation", .script = "ablation",
	 .applies = "every series an ablation variant; one figure per family",
	 .writes = "EXP-FAMILY: " GRID_FILES,
	 .last = true, .applies_to = applies_ablation, .write = write_ablation},
	{.name = "banishing", .script = "banishing",
	 .applies = "the experiment named banishing; drawn alone",
	 .writes = "EXP: " GRID_FILES,
	 .bare = true, .suffix = "overhead", .experiment = "banishing",
	 .title = "Banishing vs eager eviction",
	 .last = true, .applies_to = applies_grid, .write = write_overhead},
	{.name = "offload", .script = "offload",
	 .applies = "the experiment named offload (recompute, offload or both); drawn alone",
	 .writes = "EXP: " GRID_FILES,
	 .bare = true, .suffix = "overhead", .experiment = "offload",
	 .title = "Recompute, offload or both",
	 .last = true, .applies_to = applies_grid, .write = write_overhead},
	{.name = "pareto", .script = "pareto",
	 .applies = "any other sweep: compute overhead against the budget, heuristics and planners",
	 .writes = "EXP (EXP-overhead beside another main figure): " GRID_FILES,
	 .bare = true, .suffix = "overhead", .applies_to = applies_grid, .write = write_overhead},
	{.name = "accesses", .script = "accesses",
	 .applies = "a second figure, when a series counts metadata accesses",
	 .writes = "EXP-accesses (EXP for the experiment named accesses): " GRID_FILES,
	 .suffix = "accesses", .main_of = "accesses",
	 .applies_to = applies_accesses, .write = write_accesses},
	{.name = "gap", .script = "gap",
	 .applies = "a sweep whose experiment has 'gap' (gap.tsv): each method's overhead above "
		    "the optimum at each budget",
	 .writes = "EXP-gap: " GRID_FILES,
	 .suffix = "gap", .applies_to = applies_gap, .write = write_gap},
};

static void pdata_free(struct pdata *d)
{
	for (size_t i = 0; i < d->n_models; i++) {
		free(d->models[i].name);
		free(d->models[i].title);
		free(d->models[i].desc);
	}
	for (size_t i = 0; i < d->n_series; i++) {
		free(d->series[i].name);
		free(d->series[i].heuristic);
	}
	free(d->models);
	free(d->series);
	free(d->rows);
	free(d->fit_x);
	free(d->fit_to);
	free(d->experiment);
	free(d->budgets);
}

static size_t find_model(struct pdata *d, const char *name)
{
	for (size_t i = 0; i < d->n_models; i++)
		if (!strcmp(d->models[i].name, name))
			return i;
	return (size_t)-1;
}

static size_t find_series(struct pdata *d, const char *name, const char *heuristic)
{
	for (size_t i = 0; i < d->n_series; i++)
		if (!strcmp(d->series[i].name, name))
			return i;
	XGROW(d->series, d->cap_series, d->n_series + 1);
	struct pseries *s = &d->series[d->n_series];
	memset(s, 0, sizeof *s);
	s->name = xstrdup(name);
	s->heuristic = xstrdup(heuristic);
	/* planner rows: series the planner's name, heuristic "dp:k=4" ... */
	s->planner = heuristic_find(heuristic) ? NULL : planner_find(name);
	return d->n_series++;
}

static int read_models(const char *dir, struct pdata *d, struct rs_error *err)
{
	char *path = path_join(dir, "models.tsv");
	char *text;
	size_t len;
	int rc = read_whole_file(path, &text, &len, err);
	if (rc) {
		free(path);
		return -1;
	}
	long lineno = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		lineno++;
		if (line[0] == '#' || lineno == 1)
			continue; /* the column line */
		char *f[MC_COUNT + 1];
		int nf = tsv_split(line, f, MC_COUNT + 1);
		if (nf != MC_COUNT && nf != MC_COUNT_NO_FLOOR) {
			rc = rs_error_set(err, EXIT_DATAERR, path, lineno,
					  "expected %d tab-separated columns", MC_COUNT);
			break;
		}
		XGROW(d->models, d->cap_models, d->n_models + 1);
		struct pmodel *m = &d->models[d->n_models++];
		m->name = xstrdup(f[MC_MODEL]);
		m->title = xstrdup(f[MC_TITLE]);
		m->desc = xstrdup(f[MC_DESC]);
		m->const_ratio = strtod(f[MC_CONST_RATIO], NULL);
		/* bottleneck_memory is the largest op's footprint alone (inputs
		 * and outputs, as simrd counts it): the grey region starts where
		 * the constants end and is that wide. */
		m->bottleneck_ratio = m->const_ratio + strtod(f[MC_BOTTLENECK_RATIO], NULL);
		m->floor_ratio = nf == MC_COUNT ? strtod(f[MC_FLOOR_RATIO], NULL) : NAN;
	}
	free(text);
	free(path);
	return rc;
}

enum plot_outcome plot_outcome_parse(const char *text)
{
	/* an ILP row without a schedule (unsolved, untried) is drawn as the
	 * oom it was written as before issue 44 */
	return !strcmp(text, "pass")	   ? PLOT_PASS
	       : !strcmp(text, "thrash") ? PLOT_THRASH
					 : PLOT_OOM;
}

/* The rows of points.tsv (t, read from path) by model and series. */
static int read_points(const char *path, const struct points_table *t, struct pdata *d,
		       struct rs_error *err)
{
	int rc = 0;
	const char *exp = points_header(t, "experiment");
	/* It names the figures' files and folders (DIR/NAME.png,
	 * DIR/plot-data/NAME): a name, as experiment files require, never a
	 * path. */
	if (exp && !results_experiment_name_ok(exp))
		return rs_error_set(err, EXIT_DATAERR, path, 0,
				    "the experiment name '%s' of the header is not a name (it names "
				    "the figures' files: no '/', not '.' or '..')", exp);
	d->experiment = xstrdup(exp ? exp : "experiment");
	/* Older folders lack these headers: the default limit, ratios. */
	const char *lim = points_header(t, "overhead_limit");
	d->overhead_limit = lim ? strtod(lim, NULL) : 2;
	const char *budgets = points_header(t, "budgets");
	d->absolute = budgets != NULL;
	d->budgets = budgets ? xstrdup(budgets) : NULL;
	const char *yr = points_header(t, "yrange");
	if (yr && isnan(d->ylo))
		plot_parse_yrange(yr, &d->ylo, &d->yhi);
	/* rows from this point on are heuristics at plan peaks */
	const char *pk = points_header(t, "plan_peak_points");
	size_t first_peak = pk ? (size_t)strtoull(pk, NULL, 10) : SIZE_MAX;
	d->rows = xcalloc(t->n_rows ? t->n_rows : 1, sizeof *d->rows);
	for (size_t i = 0; i < t->total; i++) {
		if (!t->rows[i])
			continue;
		char *line = xstrdup(t->rows[i]);
		char *f[PC_COUNT];
		tsv_split(line, f, PC_COUNT);
		size_t m = find_model(d, f[PC_MODEL]);
		if (m == (size_t)-1) {
			rc = rs_error_set(err, EXIT_DATAERR, path, 0,
					  "model '%s' is not in models.tsv", f[PC_MODEL]);
			free(line);
			break;
		}
		struct prow *r = &d->rows[d->n_rows++];
		r->model = m;
		r->series = find_series(d, f[PC_SERIES], f[PC_HEURISTIC]);
		r->ratio = strtod(f[PC_RATIO], NULL);
		r->outcome = plot_outcome_parse(f[PC_OUTCOME]);
		r->overhead = strtod(f[PC_OVERHEAD], NULL);
		r->accesses = strtod(f[PC_HEURISTIC_ACCESSES], NULL);
		r->at_peak = strtoull(f[PC_POINT], NULL, 10) >= first_peak;
		d->any_at_peak |= r->at_peak;
		/* A plan obeys the overhead limit as a heuristic does: one past it
		 * fails (a sweep marks it thrash; older folders said pass). */
		if (d->series[r->series].planner && r->outcome == PLOT_PASS &&
		    r->overhead > d->overhead_limit)
			r->outcome = PLOT_THRASH;
		unsigned trial = (unsigned)strtoul(f[PC_TRIAL], NULL, 10);
		struct pseries *s = &d->series[r->series];
		if (trial + 1 > s->trials)
			s->trials = trial + 1;
		if (r->accesses > 0)
			s->has_accesses = true;
		free(line);
	}
	return rc;
}

/* The column of fit.tsv's header named `name`, or -1. */
static int fit_column(char **cols, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(cols[i], name))
			return (int)i;
	return -1;
}

/* DIR/fit.tsv (docs/questions.md, "In sweeps"), if there is one: its rows
 * by model and series into d->fit_x, d->fit_to. */
static int read_fit(const char *dir, struct pdata *d, struct rs_error *err)
{
	char *path = path_join(dir, "fit.tsv");
	if (access(path, F_OK) != 0) {
		free(path);
		return 0;
	}
	char *text;
	size_t len;
	if (read_whole_file(path, &text, &len, err)) {
		free(path);
		return -1;
	}
	size_t n = d->n_models * d->n_series;
	d->fit_x = xcalloc(n ? n : 1, sizeof *d->fit_x);
	d->fit_to = xcalloc(n ? n : 1, sizeof *d->fit_to);
	for (size_t i = 0; i < n; i++)
		d->fit_x[i] = d->fit_to[i] = NAN;
	enum { F_MODEL, F_SERIES, F_PASS, F_FROM, F_MONO, F_N };
	static const char *const names[F_N] = {"model", "series", "smallest_pass_ratio",
					       "all_pass_from_ratio", "monotone"};
	int col[F_N];
	size_t ncols = 0;
	int rc = 0;
	long lineno = 0;
	char *next = text;
	while (next && *next && !rc) {
		char *line = next;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		char *f[64];
		size_t nf = tsv_split(line, f, 64);
		if (lineno == 1) {
			ncols = nf;
			for (int k = 0; k < F_N && !rc; k++)
				if ((col[k] = fit_column(f, nf, names[k])) < 0)
					rc = rs_error_set(err, EXIT_DATAERR, path, 1,
							  "no column '%s' (not a fit.tsv of `rematsim sweep --fit`)",
							  names[k]);
			continue;
		}
		if (nf != ncols) {
			rc = rs_error_set(err, EXIT_DATAERR, path, lineno,
					  "expected %zu tab-separated columns, found %zu", ncols, nf);
			break;
		}
		size_t m = find_model(d, f[col[F_MODEL]]);
		size_t s = 0;
		while (s < d->n_series && strcmp(d->series[s].name, f[col[F_SERIES]]))
			s++;
		if (m == (size_t)-1 || s == d->n_series) {
			rc = rs_error_set(err, EXIT_DATAERR, path, lineno,
					  "%s '%s' is not in this sweep's points (a fit.tsv of another "
					  "sweep? rerun it with --fit, or remove fit.tsv)",
					  m == (size_t)-1 ? "model" : "series",
					  f[col[m == (size_t)-1 ? F_MODEL : F_SERIES]]);
			break;
		}
		char *e1, *e2;
		double x = strtod(f[col[F_PASS]], &e1), to = strtod(f[col[F_FROM]], &e2);
		bool mono = !strcmp(f[col[F_MONO]], "yes");
		if (*e1 || *e2 || !(x > 0) || !(to >= x) || !isfinite(to) ||
		    (!mono && strcmp(f[col[F_MONO]], "no"))) {
			rc = rs_error_set(err, EXIT_DATAERR, path, lineno,
					  "bad ratios or monotone flag (%s, %s, %s)", f[col[F_PASS]],
					  f[col[F_FROM]], f[col[F_MONO]]);
			break;
		}
		d->fit_x[m * d->n_series + s] = x;
		d->fit_to[m * d->n_series + s] = mono ? NAN : to;
	}
	if (!rc && lineno == 0)
		rc = rs_error_set(err, EXIT_DATAERR, path, 0, "empty (no column line)");
	free(text);
	free(path);
	return rc;
}

/* ------------------------------------------------------------ labels */

/* Every text of a figure.gp goes through gptext.h (gptext_enhanced,
 * gptext_wrapped, gptext_comment): gnuplot never interprets it. */

/*
 * How a series is drawn: the registry row of its heuristic (label, colour,
 * marker), so that a heuristic looks the same in every figure. A named
 * series (banishing's "no deallocations") has its name as the label; one
 * whose colour another curve of the same figure already has takes the
 * next of the spare styles (banishing's two DTR series: the paper drew
 * the second red with a plus).
 *
 * Planners take their registry row's label and a style of their own,
 * by their registry order (planner_styles).
 */
struct style {
	char *label;      /* enhanced markup, quoted */
	const char *color;
	int marker;
	bool set;
};

static const struct {
	const char *color;
	int marker;
} spare_styles[] = {
	{"#ff0000", 1}, {"#0000ff", 6}, {"#8c564b", 8}, {"#e377c2", 10},
	{"#7f7f7f", 12}, {"#bcbd22", 14}, {"#17becf", 4}, {"#000000", 15},
};

static char *quoted(const char *s);

/* Planners, by their registry order: one style each, apart from the
 * heuristics' (drawn dashed with markers: grid.gp, cmarked). */
static const struct {
	const char *color;
	int marker;
} planner_styles[] = {
	{"#000000", 4}, {"#8c564b", 6}, {"#e377c2", 8}, {"#7f7f7f", 10}, {"#bcbd22", 12},
};

static void style_of(const struct pseries *s, struct style *st, bool ablation_fig)
{
	if (s->planner) {
		size_t n, k = 0;
		const struct planner *list = planner_list(&n);
		while (k < n && &list[k] != s->planner)
			k++;
		k %= sizeof planner_styles / sizeof planner_styles[0];
		st->label = xmalloc(strlen(s->planner->label) + 3);
		sprintf(st->label, "'%s'", s->planner->label);
		st->color = planner_styles[k].color;
		st->marker = planner_styles[k].marker;
		st->set = true;
		return;
	}
	const struct heuristic *h = heuristic_find(s->heuristic);
	bool named = strcmp(s->heuristic, s->name) != 0;
	if (h && !named) {
		/* within an ablation family's figure the family is the title */
		if (ablation_fig || h->family == FAMILY_PAPER) {
			st->label = xmalloc(strlen(h->tex_label) + 3);
			sprintf(st->label, "'%s'", h->tex_label);
		} else {
			st->label = quoted(h->label);
		}
	} else {
		st->label = quoted(s->name);
	}
	st->color = h ? h->color : spare_styles[0].color;
	st->marker = h ? h->marker : spare_styles[0].marker;
	st->set = true;
}

/* ------------------------------------------------------------ figures */

struct figure_spec {
	char *name;
	char *title;      /* enhanced markup */
	bool accesses;    /* y: metadata accesses, not overhead */
	bool log_y;       /* a log y axis over the pdata's ylo..yhi (the gap figure) */
	bool ablation;    /* one ablation family's figure */
	size_t *series;
	size_t n_series;
};

static void put_fit_marks(FILE *f, const struct pdata *d, const struct figure_spec *fs);

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* One TSV row of n doubles (shortest exact text), then the count if >= 0. */
static void put_row(FILE *f, int n, const double *v, int count)
{
	char b[FMT_DOUBLE_LEN];
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? "\t" : "", fmt_double(b, v[i]));
	if (count >= 0)
		fprintf(f, "\t%d", count);
	fputc('\n', f);
}

struct cell {
	double ratio, mean, min, max;
	unsigned n;
	bool at_peak;   /* some of its rows are at a plan's peak */
};

/* What the y axis must hold: every plotted point, and each point's
 * largest value (so that one point alone cannot switch the axis to log). */
struct yacc {
	double lo, hi;
	double *maxes;
	size_t n, cap;
};

static void yacc_add(struct yacc *y, const struct cell *cl)
{
	y->lo = fmin(y->lo, cl->min);
	y->hi = fmax(y->hi, cl->max);
	XGROW(y->maxes, y->cap, y->n + 1);
	y->maxes[y->n++] = cl->max;
}

/* One file of the curve: a comment line, then rows from put (or, when it
 * writes none, a NaN row, so that gnuplot meets no empty file). */
static void put_cells(FILE *f, const char *comment, const struct cell *cells, size_t n,
		      bool peaks_only)
{
	fputs(comment, f);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (peaks_only && !cells[i].at_peak)
			continue;
		put_row(f, 4, (double[]){cells[i].ratio, cells[i].mean, cells[i].min, cells[i].max},
			(int)cells[i].n);
		k++;
	}
	if (!k)
		fputs("NaN\tNaN\tNaN\tNaN\t0\n", f);
}

/*
 * Write the files of one (panel, curve); returns the fail line through
 * *fail_x / *fail_kind and whether any point was written. A planner's
 * curve is its Pareto frontier: a plan is drawn on it unless another plan
 * of the planner has a smaller peak and no larger overhead (dominated
 * plans go to pP-cC-faint.tsv, drawn faint). With peaks (points at plan
 * peaks in the sweep), a heuristic's cells at those ratios also go to
 * pP-cC-peaks.tsv, drawn marked.
 */
static bool write_curve(const char *fdir, const struct pdata *d, size_t p, size_t c,
			size_t model, size_t series, bool accesses, bool peaks, struct yacc *y,
			double *fail_x, enum plot_outcome *fail_kind, size_t *npts, size_t *n_faint,
			struct rs_error *err, int *rc)
{
	size_t n = 0;
	/* (a planner's values taken as they are, not its frontier: the gap
	 * figure; its files are still a planner's, the faint one empty) */
	bool marked = d->series[series].planner != NULL;
	bool planner = marked && !d->series[series].as_given;
	double *ratios = xcalloc(d->n_rows ? d->n_rows : 1, sizeof *ratios);
	for (size_t i = 0; i < d->n_rows; i++)
		if (d->rows[i].model == model && d->rows[i].series == series)
			ratios[n++] = d->rows[i].ratio;
	qsort(ratios, n, sizeof *ratios, cmp_double);
	size_t nr = 0;
	for (size_t i = 0; i < n; i++)
		if (!nr || ratios[nr - 1] != ratios[i])
			ratios[nr++] = ratios[i];

	struct cell *cells = xcalloc(nr ? nr : 1, sizeof *cells);
	struct cell *faint = xcalloc(nr ? nr : 1, sizeof *faint);
	enum plot_outcome *fails = xcalloc(nr ? nr : 1, sizeof *fails);
	size_t nc = 0, nf = 0;
	double first_pass = NAN, best = INFINITY;
	for (size_t k = 0; k < nr; k++) {
		struct cell cl = {.ratio = ratios[k], .min = INFINITY, .max = -INFINITY};
		unsigned total = 0;
		enum plot_outcome worst = PLOT_PASS;
		double sum = 0;
		for (size_t i = 0; i < d->n_rows; i++) {
			const struct prow *r = &d->rows[i];
			if (r->model != model || r->series != series || r->ratio != ratios[k])
				continue;
			total++;
			cl.at_peak |= r->at_peak;
			if (r->outcome != PLOT_PASS) {
				/* a thrash wins over running out of memory */
				worst = worst == PLOT_THRASH ? PLOT_THRASH : r->outcome;
				continue;
			}
			double y = accesses ? r->accesses : r->overhead;
			sum += y;
			cl.n++;
			cl.min = fmin(cl.min, y);
			cl.max = fmax(cl.max, y);
		}
		fails[k] = worst;
		/* Zero accesses cannot sit on a log axis: leave the point out. */
		if (cl.n == total && total > 0 && !(accesses && cl.min <= 0)) {
			/* plans of one planner at the same peak: the best of them */
			cl.mean = planner ? cl.min : sum / cl.n;
			yacc_add(y, &cl);
			if (isnan(first_pass))
				first_pass = cl.ratio;
			/* ratios ascending: a plan no better than one at a smaller
			 * peak is dominated */
			if (planner && !(cl.mean < best))
				faint[nf++] = cl;
			else
				cells[nc++] = cl;
			best = fmin(best, cl.mean);
		}
	}
	*fail_x = 0;
	*fail_kind = PLOT_PASS;
	for (size_t k = 0; k < nr && !isnan(first_pass) && ratios[k] < first_pass; k++)
		if (fails[k] != PLOT_PASS) {
			*fail_x = first_pass;
			*fail_kind = fails[k]; /* the failure just below first_pass wins */
		}

	char name[64];
	const char *kinds[] = {"", "-band", "-ends", "-faint", "-peaks"};
	for (int kind = 0; kind < 5 && !*rc; kind++) {
		if ((kind == 3 && !marked) || (kind == 4 && (!peaks || marked)))
			continue;
		snprintf(name, sizeof name, "p%zu-c%zu%s.tsv", p, c, kinds[kind]);
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		if (kind == 0) {
			fprintf(f, "# ratio\t%s_mean\tmin\tmax\ttrials (ratios where every trial passed)\n",
				accesses ? "accesses" : "overhead");
			for (size_t k = 0; k < nc; k++)
				put_row(f, 4, (double[]){cells[k].ratio, cells[k].mean, cells[k].min,
							 cells[k].max}, (int)cells[k].n);
		} else if (kind == 1) {
			fputs("# ratio\tmin\tmax: the min-max band as steps\n", f);
			for (size_t k = 0; k < nc; k++) {
				put_row(f, 3, (double[]){cells[k].ratio, cells[k].min, cells[k].max}, -1);
				if (k + 1 < nc)
					put_row(f, 3, (double[]){cells[k + 1].ratio, cells[k].min,
								 cells[k].max}, -1);
			}
		} else if (kind == 2) {
			fputs("# ratio\tmean: the first and last points of the curve\n", f);
			if (nc)
				put_row(f, 2, (double[]){cells[0].ratio, cells[0].mean}, -1);
			if (nc > 1)
				put_row(f, 2, (double[]){cells[nc - 1].ratio, cells[nc - 1].mean}, -1);
		} else if (kind == 3) {
			put_cells(f, "# ratio\toverhead\tmin\tmax\tplans: dominated plans (a smaller peak "
				     "has no larger overhead), drawn faint\n", faint, nf, false);
		} else {
			put_cells(f, "# ratio\tmean\tmin\tmax\ttrials: the cells at a plan's peak "
				     "(heuristics_at_plan_peaks), marked\n", cells, nc, true);
		}
		fclose(f);
		if (plot_write_data(fdir, name, text, len, err))
			*rc = -1;
		free(text);
	}
	free(ratios);
	free(faint);
	free(cells);
	free(fails);
	*npts = nc;
	*n_faint += nf;
	return nc > 0;
}

/* A y range that holds every plotted point and the overhead limit, with a
 * margin so that a curve at the limit is not drawn into the frame. */
static void linear_range(const struct pdata *d, const struct yacc *y, double *lo, double *hi,
			 bool *log_y)
{
	*log_y = false;
	if (!isnan(d->ylo)) {
		*lo = d->ylo;
		*hi = d->yhi;
		return;
	}
	double dlo = y->lo, dhi = y->hi;
	bool data = isfinite(dlo) && isfinite(dhi);
	/* the paper's 2x, or the limit below it, or the data above it: a
	 * limit far above the data would squash the curves to the floor */
	double top = isfinite(d->overhead_limit) && d->overhead_limit < 2 ? d->overhead_limit : 2;
	if (data && dhi > top)
		top = dhi;
	double bottom = 0.9;
	if (data && dlo < 0.95)
		bottom = dlo - 0.05 * (top - dlo);
	/* points above 20 x the bottom: one alone does not change the scale */
	size_t high = 0;
	for (size_t i = 0; i < y->n && bottom > 0; i++)
		high += y->maxes[i] / bottom > 20;
	if (bottom > 0 && top / bottom > 20 && high > 1) {
		/* a range this wide squashes every curve to its floor: log y */
		*log_y = true;
		*lo = pow(10, floor(log10(bottom)));
		*hi = pow(10, ceil(log10(top * 1.05)));
		return;
	}
	*lo = bottom;
	*hi = top + 0.04 * (top - bottom);
}

/* A figure's curves, as write_curves leaves them for the settings: per
 * panel p and curve c (k = p * ncur + c), where the curve stops passing and
 * why, whether it has one point, its failure line's shift; per panel the
 * curves with data; the y values seen; the planners' faint plans. */
struct fig_curves {
	size_t np, ncur;
	double *fail_x, *fail_shift;
	enum plot_outcome *fail_kind;
	bool *lone;
	char **pcurves;
	struct yacc yv;
	size_t n_faint;
};

static void fig_curves_free(struct fig_curves *fc)
{
	for (size_t p = 0; p < fc->np; p++)
		free(fc->pcurves[p]);
	free(fc->pcurves);
	free(fc->fail_x);
	free(fc->fail_shift);
	free(fc->fail_kind);
	free(fc->lone);
	free(fc->yv.maxes);
}

/* Every panel's curves into fdir (write_curve); then the failure lines'
 * shifts. 0, or -1 with err. */
static int write_curves(const struct pdata *d, const struct figure_spec *fs, const char *fdir, bool peaks,
			struct fig_curves *fc, struct rs_error *err)
{
	int rc = 0;
	size_t np = d->n_models, ncur = fs->n_series;
	*fc = (struct fig_curves){.np = np, .ncur = ncur, .yv = {.lo = INFINITY, .hi = -INFINITY}};
	fc->fail_x = xcalloc(np * ncur + 1, sizeof *fc->fail_x);
	fc->fail_kind = xcalloc(np * ncur + 1, sizeof *fc->fail_kind);
	fc->lone = xcalloc(np * ncur + 1, sizeof *fc->lone);
	fc->pcurves = xcalloc(np, sizeof *fc->pcurves);
	fc->fail_shift = xcalloc(np * ncur + 1, sizeof *fc->fail_shift);
	for (size_t p = 0; p < np && !rc; p++) {
		char *list = NULL;
		size_t len = 0;
		FILE *lf = open_memstream(&list, &len);
		for (size_t c = 0; c < ncur && !rc; c++) {
			size_t k = p * ncur + c;
			size_t npts = 0;
			if (write_curve(fdir, d, p + 1, c + 1, p, fs->series[c], fs->accesses, peaks, &fc->yv,
					&fc->fail_x[k], &fc->fail_kind[k], &npts, &fc->n_faint, err, &rc))
				fprintf(lf, "%s%zu", len ? " " : "", c + 1);
			fc->lone[k] = npts == 1;
			fflush(lf);
		}
		fclose(lf);
		fc->pcurves[p] = list;
	}
	/* Failure lines at the same ratio in one panel would draw over each
	 * other (a dotted and a dashed one look dash-dotted): spread them a
	 * little, centred on the ratio, in curve order. */
	for (size_t p = 0; p < np; p++) {
		for (size_t c = 0; c < ncur; c++) {
			size_t k = p * ncur + c;
			if (fc->fail_kind[k] == PLOT_PASS)
				continue;
			size_t same = 0, before = 0;
			for (size_t o = 0; o < ncur; o++) {
				size_t j = p * ncur + o;
				if (fc->fail_kind[j] != PLOT_PASS && fc->fail_x[j] == fc->fail_x[k]) {
					same++;
					before += o < c;
				}
			}
			fc->fail_shift[k] = 0.012 * ((double)before - (double)(same - 1) / 2);
		}
	}
	return rc;
}

/* The axes: y range (log in whole decades for accesses), x up to the
 * data and fit marks, the overhead limit, the x label. */
static void put_axes(FILE *f, const struct pdata *d, const struct figure_spec *fs, const struct fig_curves *fc,
		     bool fit_marks)
{
	/* y: log axes in whole decades around the data (1 to 10 when there is
	 * none); linear ones hold the data and the overhead limit. */
	double lo, hi;
	bool log_y = fs->accesses;
	char b1[FMT_DOUBLE_LEN], b2[FMT_DOUBLE_LEN];
	const struct yacc *yv = &fc->yv;
	if (fs->accesses) {
		lo = isfinite(yv->lo) ? pow(10, floor(log10(yv->lo))) : 1;
		hi = isfinite(yv->hi) ? pow(10, ceil(log10(yv->hi))) : 10;
		if (!(hi > lo))
			hi = lo * 10;
	} else {
		linear_range(d, yv, &lo, &hi, &log_y);
		log_y |= fs->log_y;
	}
	fprintf(f, "# y range: every plotted point lies in it (data %s to %s)\n",
		fmt_double(b1, yv->lo), fmt_double(b2, yv->hi));
	/* x: 0 to 1.1 as the paper, wider when budgets go past it */
	double xmax = 1.0;
	for (size_t i = 0; i < d->n_rows; i++)
		xmax = d->rows[i].ratio > xmax ? d->rows[i].ratio : xmax;
	for (size_t p = 0; fit_marks && p < fc->np; p++)
		for (size_t c = 0; c < fc->ncur; c++) {
			size_t j = p * d->n_series + fs->series[c];
			double x = isnan(d->fit_to[j]) ? d->fit_x[j] : d->fit_to[j];
			xmax = x > xmax ? x : xmax; /* (NAN compares false) */
		}
	fprintf(f, "xrange_hi = %s\n", fmt_double(b1, xmax <= 1.0 ? 1.1 : ceil(xmax * 1.1 * 10) / 10));
	fprintf(f, "ylog = %d\n", log_y);
	fprintf(f, "yrange_lo = %s\n", fmt_double(b1, lo));
	fprintf(f, "yrange_hi = %s\n", fmt_double(b1, hi));
	fprintf(f, "overhead_limit = %s\n",
		isfinite(d->overhead_limit) ? fmt_double(b1, d->overhead_limit) : "0 # none");
	fputs("xlabel_text = ", f);
	if (d->absolute) {
		/* "2000,3000,6000": the first and last */
		char first[64], last[64];
		snprintf(first, sizeof first, "%.*s", (int)strcspn(d->budgets, ","), d->budgets);
		const char *comma = strrchr(d->budgets, ',');
		snprintf(last, sizeof last, "%s", comma ? comma + 1 : d->budgets);
		char xl[600];
		snprintf(xl, sizeof xl, "memory ratio (budget / baseline peak) of absolute budgets %s%s%s B",
			 first, comma ? " to " : "", comma ? last : "");
		gptext_wrapped(f, xl, 0);
	} else {
		fputs("'memory ratio (budget / baseline peak)'", f);
	}
	fputc('\n', f);
}

/* The panels: titles, descriptions wrapped for screen and print, the
 * constants' and bottleneck's ratios, the floor, the curves with data. */
static void put_panels(FILE *f, const struct pdata *d, const struct fig_curves *fc)
{
	size_t np = fc->np;
	char b1[FMT_DOUBLE_LEN];
	fprintf(f, "array ptitle[%zu]\narray pdesc[%zu]\narray pdescn[%zu]\narray pconst[%zu]\n"
		   "array pbottle[%zu]\narray pcurves[%zu]\n", np ? np : 1, np ? np : 1, np ? np : 1,
		np ? np : 1, np ? np : 1, np ? np : 1);
	/* the floor band (grid.gp): 0 where models.tsv has no floor */
	fprintf(f, "array pfloor[%zu]\n", np ? np : 1);
	for (size_t p = 0; p < np; p++)
		fprintf(f, "pfloor[%zu] = %s\n", p + 1,
			isnan(d->models[p].floor_ratio) ? "0"
							: fmt_double(b1, d->models[p].floor_ratio));
	int dl_screen = 1, dl_print = 1;
	for (size_t p = 0; p < np; p++) {
		fprintf(f, "ptitle[%zu] = ", p + 1);
		gptext_enhanced(f, d->models[p].title);
		/* model descriptions wrapped to the panel: for screens (pdesc)
		 * and for print (pdescn, narrower panels) */
		fprintf(f, "; pdesc[%zu] = ", p + 1);
		int l = gptext_wrapped(f, d->models[p].desc, 52);
		dl_screen = l > dl_screen ? l : dl_screen;
		fprintf(f, "; pdescn[%zu] = ", p + 1);
		l = gptext_wrapped(f, d->models[p].desc, 22);
		dl_print = l > dl_print ? l : dl_print;
		fprintf(f, "\npconst[%zu] = %s; ", p + 1, fmt_double(b1, d->models[p].const_ratio));
		fprintf(f, "pbottle[%zu] = %s; pcurves[%zu] = '%s'\n", p + 1,
			fmt_double(b1, d->models[p].bottleneck_ratio), p + 1, fc->pcurves[p]);
	}
	fprintf(f, "desc_lines = %d\ndesc_lines_print = %d\n", dl_screen, dl_print);
}

/* The curves' styles (each series keeps the one it first got; a colour
 * already in this figure moves a series to a spare style) and the widest
 * legend text. */
static void put_styles(FILE *f, const struct pdata *d, const struct figure_spec *fs, struct style *styles)
{
	size_t ncur = fs->n_series;
	fputs("# curves: legend (enhanced text), colour and gnuplot point type, from\n"
	      "# the heuristic's registry row (sim/lib/runtime/heuristics.c)\n", f);
	fprintf(f, "array cseries[%zu]\narray clabel[%zu]\narray ccolor[%zu]\narray cmarker[%zu]\n"
		   "array cband[%zu]\narray cmarked[%zu]\n", ncur ? ncur : 1, ncur ? ncur : 1,
		ncur ? ncur : 1, ncur ? ncur : 1, ncur ? ncur : 1, ncur ? ncur : 1);
	for (size_t c = 0; c < ncur; c++) {
		size_t si = fs->series[c];
		struct style *st = &styles[si];
		if (!st->set) {
			style_of(&d->series[si], st, fs->ablation);
			size_t spare = 0;
			for (size_t o = 0; o < c; o++) {
				const struct style *other = &styles[fs->series[o]];
				if (strcmp(other->color, st->color))
					continue;
				st->color = spare_styles[spare].color;
				st->marker = spare_styles[spare].marker;
				spare = (spare + 1) % (sizeof spare_styles / sizeof spare_styles[0]);
				o = (size_t)-1; /* check the new colour against all again */
			}
		}
		fprintf(f, "cseries[%zu] = ", c + 1);
		gptext_wrapped(f, d->series[si].name, 0);
		fprintf(f, "; clabel[%zu] = %s; ccolor[%zu] = '%s'; cmarker[%zu] = %d; cband[%zu] = %d; "
			   "cmarked[%zu] = %d\n",
			c + 1, st->label, c + 1, st->color, c + 1, st->marker, c + 1,
			d->series[si].trials > 1, c + 1, d->series[si].planner != NULL);
	}
	/* the widest legend text, in characters shown (markup left out) */
	size_t key_chars = 0;
	for (size_t c = 0; c < ncur; c++) {
		const char *l = styles[fs->series[c]].label;
		size_t n = 0;
		for (size_t i = 1; l[i] && l[i + 1]; i++) /* inside the quotes */
			n += !strchr("{}_^\\", l[i]) && !(l[i] == '\'' && l[i + 1] == '\'');
		key_chars = n > key_chars ? n : key_chars;
	}
	fprintf(f, "key_chars = %zu\n", key_chars);
}

/* The failure lines and one-point curves. */
static void put_failures(FILE *f, const struct fig_curves *fc)
{
	char b1[FMT_DOUBLE_LEN];
	fputs("# failure lines: at the smallest passing ratio fail_x (drawn at\n"
	      "# fail_x + fail_shift, apart from others at the same ratio); kind 1: out\n"
	      "# of memory just below it (dotted), 2: thrash (dashed). lone: the curve\n"
	      "# has one point only.\n", f);
	size_t n_fail = fc->np * fc->ncur > 0 ? fc->np * fc->ncur : 1;
	fprintf(f, "array fail_x[%zu]\narray fail_shift[%zu]\narray fail_kind[%zu]\narray lone[%zu]\n",
		n_fail, n_fail, n_fail, n_fail);
	int any_oom = 0, any_thrash = 0, any_lone = 0;
	for (size_t k = 0; k < n_fail; k++) {
		fprintf(f, "fail_x[%zu] = %s; ", k + 1, fmt_double(b1, fc->fail_x[k]));
		fprintf(f, "fail_shift[%zu] = %s; fail_kind[%zu] = %d; lone[%zu] = %d\n", k + 1,
			fmt_double(b1, fc->fail_shift[k]), k + 1, (int)fc->fail_kind[k], k + 1, fc->lone[k]);
		any_oom |= fc->fail_kind[k] == PLOT_OOM;
		any_thrash |= fc->fail_kind[k] == PLOT_THRASH;
		any_lone |= fc->lone[k];
	}
	fprintf(f, "any_oom = %d\nany_thrash = %d\nany_lone = %d\n", any_oom, any_thrash, any_lone);
}

static int write_figure(struct plot_ctx *ctx, const struct figure_spec *fs, const char *script,
			struct plot_list *out, struct rs_error *err)
{
	const struct pdata *d = ctx->d;
	char *fdir = plot_data_dir(ctx->dir, fs->name, err);
	if (!fdir)
		return -1;
	/* points at plan peaks to mark, in the overhead figures */
	bool peaks = d->any_at_peak && !fs->accesses, planners = false;
	for (size_t c = 0; c < fs->n_series; c++)
		planners |= d->series[fs->series[c]].planner != NULL;
	struct fig_curves fc;
	int rc = write_curves(d, fs, fdir, peaks, &fc, err);

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	fputs("# written by `rematsim plot ", f);
	gptext_comment(f, ctx->dir);
	fputs("`: the panels and curves of this figure.\n"
		   "# Panel p, curve c: pP-cC.tsv (ratio, mean, min, max, trials),\n"
		   "# pP-cC-band.tsv (the min-max band as steps), pP-cC-ends.tsv.\n"
		   "# cmarked: a static planner's plans (x: replayed peak / baseline;\n"
		   "# mean: the best plan at that peak), drawn as marked points.\n", f);
	fputs("figtitle = ", f);
	fputs(fs->title, f);
	fprintf(f, "\nnpanels = %zu\nncurves = %zu\n", fc.np, fc.ncur);
	bool fit_marks = d->fit_x && !fs->accesses;
	put_axes(f, d, fs, &fc, fit_marks);
	put_panels(f, d, &fc);
	put_styles(f, d, fs, ctx->styles);
	put_failures(f, &fc);
	/* (only where there are planners, or points at plan peaks: other
	 * figures keep their data) */
	if (planners)
		fprintf(f, "# planners: the Pareto frontier of each (pP-cC.tsv), their dominated\n"
			   "# plans faint (pP-cC-faint.tsv)\nany_faint = %d\n", fc.n_faint > 0);
	if (peaks)
		fputs("# heuristics at plan peaks (heuristics_at_plan_peaks): pP-cC-peaks.tsv,\n"
		      "# marked\nany_peaks = 1\n", f);
	if (fit_marks)
		put_fit_marks(f, d, fs);
	fclose(f);
	if (!rc)
		rc = plot_write_data(fdir, "figure.gp", text, len, err);
	free(text);
	fig_curves_free(&fc);
	if (rc) {
		free(fdir);
		return -1;
	}
	plot_list_add(out, fs->name, script, fdir, d->n_models);
	return 0;
}

/*
 * The marks of fit.tsv (only when the folder has one, so that figures
 * without it keep their data): per panel and curve the smallest passing
 * ratio (0: none) and, where feasibility is not monotone, the ratio from
 * which every probe passed (0: monotone). Marks whose spans (with a little
 * room) overlap in a panel go into lanes stacked up from the x axis, the
 * first free one in curve order, so that none hides another and each
 * stays at its exact x.
 */
static void put_fit_marks(FILE *f, const struct pdata *d, const struct figure_spec *fs)
{
	size_t np = d->n_models, ncur = fs->n_series, n = np * ncur > 0 ? np * ncur : 1;
	double *lo = xcalloc(n, sizeof *lo), *hi = xcalloc(n, sizeof *hi);
	int *lane = xcalloc(n, sizeof *lane);
	int any_fit = 0, any_range = 0;
	const double room = 0.01; /* in ratio: about a tick's width and a gap */
	for (size_t p = 0; p < np; p++)
		for (size_t c = 0; c < ncur; c++) {
			size_t k = p * ncur + c, j = p * d->n_series + fs->series[c];
			lane[k] = -1;
			if (isnan(d->fit_x[j]))
				continue;
			any_fit = 1;
			any_range |= !isnan(d->fit_to[j]);
			lo[k] = d->fit_x[j] - room;
			hi[k] = (isnan(d->fit_to[j]) ? d->fit_x[j] : d->fit_to[j]) + room;
			for (int l = 0; lane[k] < 0; l++) {
				bool taken = false;
				for (size_t o = 0; o < c && !taken; o++) {
					size_t q = p * ncur + o;
					taken = lane[q] == l && lo[q] < hi[k] && lo[k] < hi[q];
				}
				if (!taken)
					lane[k] = l;
			}
		}
	fputs("# fit marks (DIR/fit.tsv, `rematsim sweep --fit`): fit_x, the smallest\n"
	      "# passing ratio found (a tick on the x axis; 0: no row); fit_to, where\n"
	      "# feasibility is not monotone, the ratio from which every probe passed\n"
	      "# (a hatched bar from fit_x; 0: monotone); fit_lane, the mark's lane\n"
	      "# up from the axis (marks that would overlap stack).\n", f);
	fprintf(f, "array fit_x[%zu]\narray fit_to[%zu]\narray fit_lane[%zu]\n", n, n, n);
	char b1[FMT_DOUBLE_LEN], b2[FMT_DOUBLE_LEN];
	for (size_t p = 0; p < np; p++)
		for (size_t c = 0; c < ncur; c++) {
			size_t k = p * ncur + c, j = p * d->n_series + fs->series[c];
			bool has = !isnan(d->fit_x[j]), range = has && !isnan(d->fit_to[j]);
			fprintf(f, "fit_x[%zu] = %s; fit_to[%zu] = %s; fit_lane[%zu] = %d\n", k + 1,
				has ? fmt_double(b1, d->fit_x[j]) : "0", k + 1,
				range ? fmt_double(b2, d->fit_to[j]) : "0", k + 1, has ? lane[k] : 0);
		}
	fprintf(f, "any_fit = %d\nany_fit_range = %d\n", any_fit, any_range);
	free(lo);
	free(hi);
	free(lane);
}

/* A grid figure named for row (figure_name) with the given title, its
 * series chosen by the caller; free with spec_free. */
static void spec_init(struct figure_spec *fs, const struct plot_ctx *c, char *name,
		      const char *title, bool accesses)
{
	memset(fs, 0, sizeof *fs);
	fs->name = name;
	const struct points_table *t = c->points;
	if (t && t->n_rows < t->total) {
		/* a sweep that did not finish: the figure says so (issue 40, H9) */
		size_t n = strlen(title) + 96;
		fs->title = xmalloc(n);
		snprintf(fs->title, n, "%s.' (partial: %zu of %zu points missing)'", title,
			 t->total - t->n_rows, t->total);
	} else {
		fs->title = xstrdup(title);
	}
	fs->accesses = accesses;
	fs->series = xcalloc(c->d->n_series ? c->d->n_series : 1, sizeof *fs->series);
}

static void spec_free(struct figure_spec *fs)
{
	free(fs->name);
	free(fs->title);
	free(fs->series);
}

static char *quoted(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	gptext_enhanced(f, s);
	fclose(f);
	return buf;
}

int plot_parse_yrange(const char *text, double *lo, double *hi)
{
	char *end;
	double a = strtod(text, &end);
	if (end == text || (*end != ':' && *end != ','))
		return -1;
	const char *q = end + 1;
	double b = strtod(q, &end);
	if (end == q || *end || !isfinite(a) || !isfinite(b) || !(b > a))
		return -1;
	*lo = a;
	*hi = b;
	return 0;
}

/* The family a series is drawn in: its heuristic's, the paper's for
 * anything else (planners, named series of unknown heuristics). */
static enum heuristic_family family_of(const struct pseries *s)
{
	const struct heuristic *h = heuristic_find(s->heuristic);
	return h ? h->family : FAMILY_PAPER;
}

/* ------------------------------------------------------------ the rows */

/* Whether a row names the experiment's main figure (main_of). */
static bool has_main(const char *exp)
{
	for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++)
		if (figures[i].main_of && !strcmp(figures[i].main_of, exp))
			return true;
	return false;
}

/* The figure's name (gives): plot.h, struct plot_figure_row. */
static char *figure_name(const struct plot_ctx *c, const struct plot_figure_row *row)
{
	const char *exp = c->d->experiment;
	bool main = row->main_of ? !strcmp(row->main_of, exp) : row->bare && !has_main(exp);
	char *name = xmalloc(strlen(exp) + 1 + strlen(row->suffix ? row->suffix : "") + 1);
	sprintf(name, main || !row->suffix ? "%s" : "%s-%s", exp, row->suffix);
	return name;
}

static bool applies_grid(const struct plot_ctx *c, const struct plot_figure_row *row)
{
	return c->d->n_rows > 0 && (!row->experiment || !strcmp(row->experiment, c->d->experiment));
}

/* Every series of an ablation variant (none of the paper's heuristics, no
 * planner): the ablation study. */
static bool applies_ablation(const struct plot_ctx *c, const struct plot_figure_row *row)
{
	if (!applies_grid(c, row))
		return false;
	for (size_t s = 0; s < c->d->n_series; s++)
		if (family_of(&c->d->series[s]) == FAMILY_PAPER)
			return false;
	return true;
}

static bool applies_accesses(const struct plot_ctx *c, const struct plot_figure_row *row)
{
	if (!applies_grid(c, row))
		return false;
	for (size_t s = 0; s < c->d->n_series; s++)
		if (c->d->series[s].has_accesses)
			return true;
	return false;
}

/* One figure per ablation family with series, EXP-FAMILY, titled by it. */
static int write_ablation(struct plot_ctx *c, const struct plot_figure_row *row,
			  struct plot_list *out, struct rs_error *err)
{
	const struct pdata *d = c->d;
	for (int fam = FAMILY_PAPER + 1; fam < FAMILY_COUNT; fam++) {
		const char *fname = heuristic_family_name((enum heuristic_family)fam);
		char *name = xmalloc(strlen(d->experiment) + strlen(fname) + 2);
		sprintf(name, "%s-%s", d->experiment, fname);
		char title[256];
		snprintf(title, sizeof title, "'%s'",
			 heuristic_family_title((enum heuristic_family)fam));
		struct figure_spec fs;
		spec_init(&fs, c, name, title, false);
		fs.ablation = true;
		for (size_t s = 0; s < d->n_series; s++)
			if ((int)family_of(&d->series[s]) == fam)
				fs.series[fs.n_series++] = s;
		int rc = fs.n_series ? write_figure(c, &fs, row->script, out, err) : 0;
		spec_free(&fs);
		if (rc)
			return -1;
	}
	return 0;
}

/* Compute overhead against the budget, every series (pareto, banishing). */
static int write_overhead(struct plot_ctx *c, const struct plot_figure_row *row,
			  struct plot_list *out, struct rs_error *err)
{
	const struct pdata *d = c->d;
	char *head = row->title ? quoted(row->title) : quoted(d->experiment);
	char *title = xmalloc(strlen(head) + 64);
	sprintf(title, "%s.': compute overhead vs memory budget'", head);
	struct figure_spec fs;
	spec_init(&fs, c, figure_name(c, row), title, false);
	for (size_t s = 0; s < d->n_series; s++)
		fs.series[fs.n_series++] = s;
	int rc = write_figure(c, &fs, row->script, out, err);
	spec_free(&fs);
	free(title);
	free(head);
	return rc;
}

/* The heuristics' metadata accesses, the series that count any. */
static int write_accesses(struct plot_ctx *c, const struct plot_figure_row *row,
			  struct plot_list *out, struct rs_error *err)
{
	const struct pdata *d = c->d;
	struct figure_spec fs;
	spec_init(&fs, c, figure_name(c, row), "'Metadata accesses of the heuristics'", true);
	for (size_t s = 0; s < d->n_series; s++)
		if (d->series[s].has_accesses)
			fs.series[fs.n_series++] = s;
	int rc = write_figure(c, &fs, row->script, out, err);
	spec_free(&fs);
	return rc;
}

/* `rematsim measured --out DIR`: DIR/measured.tsv (plot-measured.c). */
static bool applies_measured(const struct plot_ctx *c, const struct plot_figure_row *row)
{
	(void)row;
	char *path = path_join(c->dir, "measured.tsv");
	struct stat st;
	bool there = !stat(path, &st);
	free(path);
	return there;
}

static int write_measured(struct plot_ctx *c, const struct plot_figure_row *row,
			  struct plot_list *out, struct rs_error *err)
{
	(void)row;
	struct plot_figure *figs = NULL;
	size_t n = 0;
	int rc = plot_measured(c->dir, &figs, &n, err);
	for (size_t i = 0; i < n && rc > 0; i++) {
		plot_list_add(out, figs[i].name, figs[i].script, figs[i].data_dir, 1);
		figs[i].data_dir = NULL;
	}
	plot_figures_free(figs, n);
	return rc < 0 ? -1 : 0;
}

/* `rematsim snapshot FILE.pickle --out DIR`: DIR/memory.tsv, which
 * plots/snapshot.gp reads from DIR itself. */
static bool applies_snapshot(const struct plot_ctx *c, const struct plot_figure_row *row)
{
	(void)row;
	char *path = path_join(c->dir, "memory.tsv");
	struct stat st;
	bool there = !stat(path, &st);
	free(path);
	return there;
}

static int write_snapshot(struct plot_ctx *c, const struct plot_figure_row *row,
			  struct plot_list *out, struct rs_error *err)
{
	(void)row;
	(void)err;
	plot_list_add(out, "memory", "snapshot", xstrdup(c->dir), 1);
	return 0;
}

/* A sweep with `gap:` (gap.h): DIR/gap.tsv. */
static bool applies_gap(const struct plot_ctx *c, const struct plot_figure_row *row)
{
	(void)row;
	char *path = path_join(c->dir, "gap.tsv");
	bool there = access(path, F_OK) == 0;
	free(path);
	return there && c->d->n_rows > 0;
}

/*
 * The gap figure (gap.tsv; docs/graphs.md): the grid of the Pareto figure,
 * one panel per model, with each method's overhead above the optimum at
 * each budget instead of its overhead; planners marked as there, failures
 * as there. Its own pdata, read from gap.tsv over the sweep's models.
 */
static int write_gap(struct plot_ctx *c, const struct plot_figure_row *row,
		     struct plot_list *out, struct rs_error *err)
{
	const struct pdata *base = c->d;
	char *path = path_join(c->dir, "gap.tsv");
	char *text;
	size_t len;
	if (read_whole_file(path, &text, &len, err)) {
		free(path);
		return -1;
	}
	struct pdata g = {0};
	g.experiment = xstrdup(base->experiment);
	g.overhead_limit = base->overhead_limit; /* what "thrash" means in the legend */
	g.n_models = g.cap_models = base->n_models;
	g.models = xcalloc(base->n_models + 1, sizeof *g.models);
	for (size_t m = 0; m < base->n_models; m++) {
		g.models[m] = base->models[m];
		g.models[m].name = xstrdup(base->models[m].name);
		g.models[m].title = xstrdup(base->models[m].title);
		g.models[m].desc = xstrdup(base->models[m].desc);
	}
	size_t cap_rows = 0;
	bool ilp = false;
	double hi = 0;
	int rc = 0;
	long lineno = 0;
	for (char *next = text, *line; next && *next && !rc;) {
		line = next;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if (line[0] == '#' || !strncmp(line, "model\t", 6))
			continue;
		char *f[GC_COUNT + 1];
		size_t m;
		size_t nf = tsv_split(line, f, GC_COUNT + 1);
		if (nf == GC_COUNT) {
			/* gap.tsv escapes its names (rs_tsv_field: a\\b for a\b);
			 * models.tsv and the series do not */
			tsv_unescape(f[GC_MODEL]);
			tsv_unescape(f[GC_METHOD]);
		}
		if (nf != GC_COUNT) {
			rc = rs_error_set(err, EXIT_DATAERR, path, lineno,
					  "expected %d tab-separated columns", GC_COUNT);
		} else if ((m = find_model(&g, f[GC_MODEL])) == (size_t)-1) {
			rc = rs_error_set(err, EXIT_DATAERR, path, lineno,
					  "model '%s' is not in models.tsv", f[GC_MODEL]);
		} else {
			bool pass = !strcmp(f[GC_OUTCOME], "pass");
			if (pass && !strcmp(f[GC_GAP], "-"))
				continue;
			XGROW(g.rows, cap_rows, g.n_rows + 1);
			struct prow *r = &g.rows[g.n_rows++];
			memset(r, 0, sizeof *r);
			r->model = m;
			r->series = find_series(&g, f[GC_METHOD], f[GC_METHOD]);
			g.series[r->series].trials = 1;
			g.series[r->series].as_given = true; /* a planner's best plan at each budget */
			r->ratio = strtod(f[GC_RATIO], NULL);
			/* a planner with no plan that fits ("none") is drawn as out of memory */
			r->outcome = pass ? PLOT_PASS
					  : !strcmp(f[GC_OUTCOME], "thrash") ? PLOT_THRASH : PLOT_OOM;
			r->overhead = pass ? strtod(f[GC_GAP], NULL) : 0;
			hi = pass && r->overhead > hi ? r->overhead : hi;
			ilp |= !strcmp(f[GC_KIND], "optimum");
		}
	}
	free(text);
	if (!rc && !g.n_rows)
		rc = rs_error_set(err, EXIT_DATAERR, path, 0, "gap.tsv has no rows to plot");
	free(path);
	if (rc) {
		pdata_free(&g);
		return -1;
	}
	/* Panels only for the models with a row to draw; the others are
	 * named in the title. */
	bool *used = xcalloc(g.n_models + 1, sizeof *used);
	size_t *to = xcalloc(g.n_models + 1, sizeof *to);
	for (size_t i = 0; i < g.n_rows; i++)
		used[g.rows[i].model] = true;
	char *missing = NULL;
	size_t missing_len = 0, n_missing = 0, kept = 0;
	FILE *mf = open_memstream(&missing, &missing_len);
	for (size_t m = 0; m < g.n_models; m++) {
		if (used[m]) {
			to[m] = kept;
			g.models[kept++] = g.models[m];
			continue;
		}
		/* (names joined by 0x1f, split again for the title's lines) */
		fprintf(mf, "%s%s", n_missing++ ? "\x1f" : "", g.models[m].title && *g.models[m].title
								    ? g.models[m].title : g.models[m].name);
		free(g.models[m].name);
		free(g.models[m].title);
		free(g.models[m].desc);
	}
	fclose(mf);
	g.n_models = kept;
	for (size_t i = 0; i < g.n_rows; i++)
		g.rows[i].model = to[g.rows[i].model];
	free(used);
	free(to);
	/* y: gaps run from 0 (the optimum itself) over decades (1e-4 to 0.9
	 * in the optimal sweep): a log axis from the smallest positive gap's
	 * decade to the largest's, gaps at or below the bottom (0, and a
	 * negative gap below an unproven optimum) drawn on it. A y range
	 * asked for wins, linear. */
	double pos = INFINITY;
	for (size_t i = 0; i < g.n_rows; i++)
		if (g.rows[i].outcome == PLOT_PASS && g.rows[i].overhead > 0 &&
		    g.rows[i].overhead < pos)
			pos = g.rows[i].overhead;
	bool log_y = isnan(base->ylo) && hi > 0;
	double bottom = 0;
	if (log_y) {
		bottom = pow(10, floor(log10(pos < 1e-6 ? 1e-6 : pos)));
		double top = pow(10, ceil(log10(hi * 1.05)));
		g.ylo = bottom;
		g.yhi = top > bottom * 10 ? top : bottom * 10;
		for (size_t i = 0; i < g.n_rows; i++)
			if (g.rows[i].outcome == PLOT_PASS && g.rows[i].overhead < bottom)
				g.rows[i].overhead = bottom;
	} else {
		g.ylo = isnan(base->ylo) ? -0.03 * (hi > 0 ? hi : 1) : base->ylo;
		g.yhi = isnan(base->ylo) ? (hi > 0 ? hi : 1) * 1.05 : base->yhi;
	}
	char *head = quoted(g.experiment); /* a gnuplot string expression (gptext.h) */
	char bot[FMT_DOUBLE_LEN];
	char *what = NULL;
	size_t what_len = 0;
	FILE *wf = open_memstream(&what, &what_len);
	fprintf(wf, ": overhead above the %s at each budget",
		ilp ? "optimum (ILP; unproven: best method)" : "best method");
	fclose(wf);
	char *qwhat = quoted(what);
	free(what);
	/* lines of their own ("\n" in gnuplot), of about 70 characters at
	 * most: the log axis's floor, the models without a result */
	char *more = NULL;
	size_t more_len = 0;
	FILE *tf = open_memstream(&more, &more_len);
	if (log_y)
		fprintf(tf, ".\"\\n\".");
	if (log_y) {
		char *q, line[128];
		snprintf(line, sizeof line, "log axis: a gap of %s or less (0 too) on its floor",
			 fmt_double(bot, bottom));
		fputs(q = quoted(line), tf);
		free(q);
	}
	size_t col = 71; /* past 70: a new line first */
	for (char *p = missing, *save = NULL, *name; n_missing && (name = strtok_r(p, "\x1f", &save));
	     p = NULL) {
		char *piece = xmalloc(strlen(name) + 32);
		bool first = p != NULL;
		sprintf(piece, "%s%s", first ? "no result to draw for: " : ", ", name);
		if (col + strlen(piece) > 70) {
			fputs(".\"\\n\".", tf);
			col = 0;
			if (!first)
				memmove(piece, piece + 2, strlen(piece + 2) + 1);
		} else {
			fputc('.', tf);
		}
		char *q = quoted(piece);
		fputs(q, tf);
		free(q);
		col += strlen(piece);
		free(piece);
	}
	fclose(tf);
	free(missing);
	char *title = xmalloc(strlen(head) + strlen(qwhat) + strlen(more) + 8);
	sprintf(title, "%s.%s%s", head, qwhat, more);
	free(qwhat);
	free(more);
	free(head);
	struct plot_ctx gc = {.dir = c->dir, .opt = c->opt, .points = c->points, .d = &g};
	gc.styles = xcalloc(g.n_series + 1, sizeof *gc.styles);
	struct figure_spec fs;
	spec_init(&fs, &gc, figure_name(&gc, row), title, false);
	fs.log_y = log_y;
	for (size_t s = 0; s < g.n_series; s++)
		fs.series[fs.n_series++] = s;
	rc = write_figure(&gc, &fs, row->script, out, err);
	spec_free(&fs);
	free(title);
	for (size_t s = 0; s < g.n_series; s++)
		free(gc.styles[s].label);
	free(gc.styles);
	pdata_free(&g);
	return rc;
}

const struct plot_figure_row *plot_figure_rows(size_t *n)
{
	*n = sizeof figures / sizeof figures[0];
	return figures;
}

void plot_list_add(struct plot_list *l, const char *name, const char *script, char *data_dir,
		   size_t panels)
{
	XGROW(l->figs, l->cap, l->n + 1);
	l->figs[l->n].name = xstrdup(name);
	l->figs[l->n].script = xstrdup(script);
	l->figs[l->n].data_dir = data_dir;
	l->figs[l->n].panels = panels;
	l->n++;
}

char *plot_data_dir(const char *dir, const char *name, struct rs_error *err)
{
	char *rel = path_join("plot-data", name);
	if (make_dirs_below(dir, rel, err)) {
		free(rel);
		return NULL;
	}
	char *fdir = path_join(dir, rel);
	free(rel);
	return fdir;
}

int plot_write_data(const char *fdir, const char *name, const char *data, size_t len,
		    struct rs_error *err)
{
	char *path = path_join(fdir, name);
	int rc = outfile_check(path, false, err);
	free(path);
	if (rc < 0)
		return -1;
	return write_file_atomic(fdir, name, data, len, false, err);
}

/*
 * A points.tsv with fewer rows than its experiment has points (a sweep
 * stopped, or one whose planner had no solver: it exits 69 and keeps what
 * it finished) is drawn, and said: here, naming the points that have no
 * row (the first runs of them), and in each figure's title (spec_init).
 * The status stays 0: the figures are what the rows hold (docs/plots.md).
 */
static void warn_partial(const char *path, const struct points_table *t)
{
	fprintf(stderr, "rematsim plot: warning: %s has rows for %zu of its %zu points; the "
			"figures are marked partial. Points with no row:", path, t->n_rows, t->total);
	size_t runs = 0;
	for (size_t i = 0; i < t->total; i++) {
		if (t->rows[i])
			continue;
		size_t j = i;
		while (j + 1 < t->total && !t->rows[j + 1])
			j++;
		if (runs++ == 8) {
			fprintf(stderr, " ...");
			break;
		}
		if (j > i)
			fprintf(stderr, " %zu-%zu", i, j);
		else
			fprintf(stderr, " %zu", i);
		i = j;
	}
	fprintf(stderr, " (numbers of the point column; run the sweep again to finish them)\n");
}

int plot_prepare(const char *dir, const struct plot_options *opt, struct plot_figure **figs,
		 size_t *n_figs, struct rs_error *err)
{
	struct pdata d = {0};
	d.ylo = d.yhi = NAN;
	if (opt && opt->has_yrange) {
		d.ylo = opt->ylo;
		d.yhi = opt->yhi;
	}
	*figs = NULL;
	*n_figs = 0;
	/* Rows that read their own files, not a sweep's, first. */
	struct plot_ctx own = {.dir = dir, .opt = opt};
	for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++) {
		const struct plot_figure_row *row = &figures[i];
		if (!row->own_files || !row->applies_to(&own, row))
			continue;
		struct plot_list out = {0};
		if (row->write(&own, row, &out, err)) {
			plot_figures_free(out.figs, out.n);
			return -1;
		}
		*figs = out.figs;
		*n_figs = out.n;
		return 0;
	}
	char *ppath = path_join(dir, "points.tsv");
	struct points_table pt = {0};
	char *mpath = path_join(dir, "models.tsv"), *jpath = path_join(dir, "points.journal");
	bool none = access(mpath, F_OK) && errno == ENOENT && access(ppath, F_OK) &&
		    errno == ENOENT;
	bool journal = none && !access(jpath, F_OK);
	free(mpath);
	free(jpath);
	if (none) {
		/* a folder with no sweep in it: say what plot reads */
		free(ppath);
		return rs_error_set(err, EXIT_NOINPUT, dir, 0,
				    "%s: plot draws the results of a finished sweep (points.tsv and "
				    "models.tsv, from `rematsim sweep EXP.yaml --out DIR` or `rematsim "
				    "merge`), or of `rematsim measured --out`",
				    journal ? "a sweep is unfinished here (points.journal, no points.tsv): "
					      "run the sweep again to finish it, then plot"
					    : "no sweep here");
	}
	int rc = read_models(dir, &d, err);
	if (!rc)
		rc = points_read(ppath, false, &pt, err);
	if (!rc)
		rc = read_points(ppath, &pt, &d, err);
	if (!rc)
		rc = read_fit(dir, &d, err);
	if (!rc && pt.n_rows < pt.total)
		warn_partial(ppath, &pt);
	free(ppath);
	struct plot_ctx c = {.dir = dir, .opt = opt, .points = &pt, .d = &d};
	c.styles = xcalloc(d.n_series ? d.n_series : 1, sizeof *c.styles);
	struct plot_list out = {0};
	for (size_t i = 0; i < sizeof figures / sizeof figures[0] && !rc; i++) {
		const struct plot_figure_row *row = &figures[i];
		if (row->own_files)
			continue; /* (asked before the sweep's files were read) */
		if (!row->applies_to(&c, row))
			continue;
		rc = row->write(&c, row, &out, err);
		if (row->last)
			break;
	}
	if (!rc && !out.n)
		rc = rs_error_set(err, EXIT_DATAERR, dir, 0, "points.tsv has no rows to plot");
	for (size_t s = 0; s < d.n_series; s++)
		free(c.styles[s].label);
	free(c.styles);
	points_table_free(&pt);
	pdata_free(&d);
	if (rc) {
		plot_figures_free(out.figs, out.n);
		return -1;
	}
	*figs = out.figs;
	*n_figs = out.n;
	return 0;
}

void plot_figures_free(struct plot_figure *figs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(figs[i].name);
		free(figs[i].script);
		free(figs[i].data_dir);
	}
	free(figs);
}
