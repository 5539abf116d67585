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
#include <unistd.h>

#include "gptext.h"
#include "heuristics.h"
#include "planners.h"
#include "results.h"

struct prow {
	size_t model, series;
	double ratio;
	int outcome; /* 0 pass, 1 oom, 2 thrash */
	double overhead;
	double accesses;
};

struct pmodel {
	char *name, *title, *desc;
	double const_ratio, bottleneck_ratio;
};

struct pseries {
	char *name, *heuristic;
	unsigned trials;
	bool has_accesses;
	const struct planner *planner; /* a planner's points (marked), or NULL */
};

struct pdata {
	char *experiment;
	double overhead_limit;  /* from the points.tsv header; INFINITY: none */
	bool absolute;          /* the sweep gave budgets in bytes, not ratios */
	char *budgets;          /* their list, as the header says */
	double ylo, yhi;        /* a y range asked for (experiment or --yrange); NAN: none */
	struct pmodel *models;
	size_t n_models, cap_models;
	struct pseries *series;
	size_t n_series, cap_series;
	struct prow *rows;
	size_t n_rows;
	/* fit.tsv (`sweep --fit`), when the folder has one: per model m and
	 * series s (m * n_series + s), the smallest passing ratio and, where
	 * feasibility is not monotone, the ratio from which every probe
	 * passed; NAN: no row. */
	double *fit_x, *fit_to;
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
		if (tsv_split(line, f, MC_COUNT + 1) != MC_COUNT) {
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
	}
	free(text);
	free(path);
	return rc;
}

static int read_points(const char *dir, struct pdata *d, struct rs_error *err)
{
	char *path = path_join(dir, "points.tsv");
	struct points_table t;
	int rc = points_read(path, false, &t, err);
	if (rc) {
		free(path);
		return -1;
	}
	const char *exp = points_header(&t, "experiment");
	/* It names the figures' files and folders (DIR/NAME.png,
	 * DIR/plot-data/NAME): a name, as experiment files require, never a
	 * path. */
	if (exp && (!*exp || !strcmp(exp, ".") || !strcmp(exp, "..") || strchr(exp, '/') ||
		    strpbrk(exp, "\t\n\r"))) {
		rs_error_set(err, EXIT_DATAERR, path, 0,
			     "the experiment name '%s' of the header is not a name (it names "
			     "the figures' files: no '/', not '.' or '..')", exp);
		points_table_free(&t);
		free(path);
		return -1;
	}
	d->experiment = xstrdup(exp ? exp : "experiment");
	/* Older folders lack these headers: the default limit, ratios. */
	const char *lim = points_header(&t, "overhead_limit");
	d->overhead_limit = lim ? strtod(lim, NULL) : 2;
	const char *budgets = points_header(&t, "budgets");
	d->absolute = budgets != NULL;
	d->budgets = budgets ? xstrdup(budgets) : NULL;
	const char *yr = points_header(&t, "yrange");
	if (yr && isnan(d->ylo))
		plot_parse_yrange(yr, &d->ylo, &d->yhi);
	d->rows = xcalloc(t.n_rows ? t.n_rows : 1, sizeof *d->rows);
	for (size_t i = 0; i < t.total; i++) {
		if (!t.rows[i])
			continue;
		char *f[PC_COUNT];
		tsv_split(t.rows[i], f, PC_COUNT);
		size_t m = find_model(d, f[PC_MODEL]);
		if (m == (size_t)-1) {
			rc = rs_error_set(err, EXIT_DATAERR, path, 0,
					  "model '%s' is not in models.tsv", f[PC_MODEL]);
			break;
		}
		struct prow *r = &d->rows[d->n_rows++];
		r->model = m;
		r->series = find_series(d, f[PC_SERIES], f[PC_HEURISTIC]);
		r->ratio = strtod(f[PC_RATIO], NULL);
		r->outcome = !strcmp(f[PC_OUTCOME], "pass") ? 0 : !strcmp(f[PC_OUTCOME], "oom") ? 1 : 2;
		r->overhead = strtod(f[PC_OVERHEAD], NULL);
		r->accesses = strtod(f[PC_HEURISTIC_ACCESSES], NULL);
		unsigned trial = (unsigned)strtoul(f[PC_TRIAL], NULL, 10);
		struct pseries *s = &d->series[r->series];
		if (trial + 1 > s->trials)
			s->trials = trial + 1;
		if (r->accesses > 0)
			s->has_accesses = true;
	}
	points_table_free(&t);
	free(path);
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
	const char *script;
	char *name;
	char *title;      /* enhanced markup */
	bool accesses;    /* y: metadata accesses, not overhead */
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
};

/*
 * Write the files of one (panel, curve); returns the fail line through
 * *fail_x / *fail_kind and whether any point was written.
 */
static bool write_curve(const char *fdir, const struct pdata *d, size_t p, size_t c,
			size_t model, size_t series, bool accesses, double *ylo, double *yhi,
			double *fail_x, int *fail_kind, size_t *npts, struct rs_error *err, int *rc)
{
	size_t n = 0;
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
	int *fails = xcalloc(nr ? nr : 1, sizeof *fails);
	size_t nc = 0;
	double first_pass = NAN;
	for (size_t k = 0; k < nr; k++) {
		struct cell cl = {.ratio = ratios[k], .min = INFINITY, .max = -INFINITY};
		unsigned total = 0;
		int worst = 0;
		double sum = 0;
		for (size_t i = 0; i < d->n_rows; i++) {
			const struct prow *r = &d->rows[i];
			if (r->model != model || r->series != series || r->ratio != ratios[k])
				continue;
			total++;
			if (r->outcome) {
				worst = worst == 2 ? 2 : r->outcome;
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
			cl.mean = d->series[series].planner ? cl.min : sum / cl.n;
			cells[nc++] = cl;
			*ylo = fmin(*ylo, cl.min);
			*yhi = fmax(*yhi, cl.max);
			if (isnan(first_pass))
				first_pass = cl.ratio;
		}
	}
	*fail_x = 0;
	*fail_kind = 0;
	for (size_t k = 0; k < nr && !isnan(first_pass) && ratios[k] < first_pass; k++)
		if (fails[k]) {
			*fail_x = first_pass;
			*fail_kind = fails[k]; /* the failure just below first_pass wins */
		}

	char name[64];
	const char *kinds[] = {"", "-band", "-ends"};
	for (int kind = 0; kind < 3 && !*rc; kind++) {
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
		} else {
			fputs("# ratio\tmean: the first and last points of the curve\n", f);
			if (nc)
				put_row(f, 2, (double[]){cells[0].ratio, cells[0].mean}, -1);
			if (nc > 1)
				put_row(f, 2, (double[]){cells[nc - 1].ratio, cells[nc - 1].mean}, -1);
		}
		fclose(f);
		if (write_file_atomic(fdir, name, text, len, false, err))
			*rc = -1;
		free(text);
	}
	free(ratios);
	free(cells);
	free(fails);
	*npts = nc;
	return nc > 0;
}

/* A y range that holds every plotted point and the overhead limit, with a
 * margin so that a curve at the limit is not drawn into the frame. */
static void linear_range(const struct pdata *d, double dlo, double dhi, double *lo, double *hi,
			 bool *log_y)
{
	*log_y = false;
	if (!isnan(d->ylo)) {
		*lo = d->ylo;
		*hi = d->yhi;
		return;
	}
	bool data = isfinite(dlo) && isfinite(dhi);
	/* the paper's 2x, or the limit below it, or the data above it: a
	 * limit far above the data would squash the curves to the floor */
	double top = isfinite(d->overhead_limit) && d->overhead_limit < 2 ? d->overhead_limit : 2;
	if (data && dhi > top)
		top = dhi;
	double bottom = 0.9;
	if (data && dlo < 0.95)
		bottom = dlo - 0.05 * (top - dlo);
	if (bottom > 0 && top / bottom > 20) {
		/* a range this wide squashes every curve to its floor: log y */
		*log_y = true;
		*lo = pow(10, floor(log10(bottom)));
		*hi = pow(10, ceil(log10(top * 1.05)));
		return;
	}
	*lo = bottom;
	*hi = top + 0.04 * (top - bottom);
}

static int write_figure(const char *dir, const struct pdata *d, const struct figure_spec *fs,
			struct style *styles, struct plot_figure *out, struct rs_error *err)
{
	char *pd = path_join(dir, "plot-data");
	char *fdir = path_join(pd, fs->name);
	free(pd);
	int rc = make_dirs(fdir, err);
	if (rc) {
		free(fdir);
		return -1;
	}
	size_t np = d->n_models, ncur = fs->n_series;
	double *fail_x = xcalloc(np * ncur + 1, sizeof *fail_x);
	int *fail_kind = xcalloc(np * ncur + 1, sizeof *fail_kind);
	bool *lone = xcalloc(np * ncur + 1, sizeof *lone);
	char **pcurves = xcalloc(np, sizeof *pcurves);
	double ylo = INFINITY, yhi = -INFINITY;
	for (size_t p = 0; p < np && !rc; p++) {
		char *list = NULL;
		size_t len = 0;
		FILE *lf = open_memstream(&list, &len);
		for (size_t c = 0; c < ncur && !rc; c++) {
			size_t k = p * ncur + c;
			size_t npts = 0;
			if (write_curve(fdir, d, p + 1, c + 1, p, fs->series[c], fs->accesses, &ylo, &yhi,
					&fail_x[k], &fail_kind[k], &npts, err, &rc))
				fprintf(lf, "%s%zu", len ? " " : "", c + 1);
			lone[k] = npts == 1;
			fflush(lf);
		}
		fclose(lf);
		pcurves[p] = list;
	}
	/* Failure lines at the same ratio in one panel would draw over each
	 * other (a dotted and a dashed one look dash-dotted): spread them a
	 * little, centred on the ratio, in curve order. */
	double *fail_shift = xcalloc(np * ncur + 1, sizeof *fail_shift);
	for (size_t p = 0; p < np; p++) {
		for (size_t c = 0; c < ncur; c++) {
			size_t k = p * ncur + c;
			if (!fail_kind[k])
				continue;
			size_t same = 0, before = 0;
			for (size_t o = 0; o < ncur; o++) {
				size_t j = p * ncur + o;
				if (fail_kind[j] && fail_x[j] == fail_x[k]) {
					same++;
					before += o < c;
				}
			}
			fail_shift[k] = 0.012 * ((double)before - (double)(same - 1) / 2);
		}
	}

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	fputs("# written by `rematsim plot ", f);
	gptext_comment(f, dir);
	fputs("`: the panels and curves of this figure.\n"
		   "# Panel p, curve c: pP-cC.tsv (ratio, mean, min, max, trials),\n"
		   "# pP-cC-band.tsv (the min-max band as steps), pP-cC-ends.tsv.\n"
		   "# cmarked: a static planner's plans (x: replayed peak / baseline;\n"
		   "# mean: the best plan at that peak), drawn as marked points.\n", f);
	fputs("figtitle = ", f);
	fputs(fs->title, f);
	fprintf(f, "\nnpanels = %zu\nncurves = %zu\n", np, ncur);
	/* y: log axes in whole decades around the data (1 to 10 when there is
	 * none); linear ones hold the data and the overhead limit. */
	double lo, hi;
	bool log_y = fs->accesses;
	char b1[FMT_DOUBLE_LEN], b2[FMT_DOUBLE_LEN];
	if (fs->accesses) {
		lo = isfinite(ylo) ? pow(10, floor(log10(ylo))) : 1;
		hi = isfinite(yhi) ? pow(10, ceil(log10(yhi))) : 10;
		if (!(hi > lo))
			hi = lo * 10;
	} else {
		linear_range(d, ylo, yhi, &lo, &hi, &log_y);
	}
	fprintf(f, "# y range: every plotted point lies in it (data %s to %s)\n",
		fmt_double(b1, ylo), fmt_double(b2, yhi));
	/* x: 0 to 1.1 as the paper, wider when budgets go past it */
	double xmax = 1.0;
	for (size_t i = 0; i < d->n_rows; i++)
		xmax = d->rows[i].ratio > xmax ? d->rows[i].ratio : xmax;
	bool fit_marks = d->fit_x && !fs->accesses;
	for (size_t p = 0; fit_marks && p < np; p++)
		for (size_t c = 0; c < ncur; c++) {
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
	fprintf(f, "array ptitle[%zu]\narray pdesc[%zu]\narray pdescn[%zu]\narray pconst[%zu]\n"
		   "array pbottle[%zu]\narray pcurves[%zu]\n", np ? np : 1, np ? np : 1, np ? np : 1,
		np ? np : 1, np ? np : 1, np ? np : 1);
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
			fmt_double(b1, d->models[p].bottleneck_ratio), p + 1, pcurves[p]);
	}
	fprintf(f, "desc_lines = %d\ndesc_lines_print = %d\n", dl_screen, dl_print);

	/* Styles: each series keeps the one it first got; a colour already in
	 * this figure moves a series to a spare style. */
	fputs("# curves: legend (enhanced text), colour and gnuplot point type, from\n"
	      "# the heuristic's registry row (sim/lib/heuristics.c)\n", f);
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
	fputs("# failure lines: at the smallest passing ratio fail_x (drawn at\n"
	      "# fail_x + fail_shift, apart from others at the same ratio); kind 1: out\n"
	      "# of memory just below it (dotted), 2: thrash (dashed). lone: the curve\n"
	      "# has one point only.\n", f);
	size_t n_fail = np * ncur > 0 ? np * ncur : 1;
	fprintf(f, "array fail_x[%zu]\narray fail_shift[%zu]\narray fail_kind[%zu]\narray lone[%zu]\n",
		n_fail, n_fail, n_fail, n_fail);
	int any_oom = 0, any_thrash = 0, any_lone = 0;
	for (size_t k = 0; k < n_fail; k++) {
		fprintf(f, "fail_x[%zu] = %s; ", k + 1, fmt_double(b1, fail_x[k]));
		fprintf(f, "fail_shift[%zu] = %s; fail_kind[%zu] = %d; lone[%zu] = %d\n", k + 1,
			fmt_double(b1, fail_shift[k]), k + 1, fail_kind[k], k + 1, lone[k]);
		any_oom |= fail_kind[k] == 1;
		any_thrash |= fail_kind[k] == 2;
		any_lone |= lone[k];
	}
	fprintf(f, "any_oom = %d\nany_thrash = %d\nany_lone = %d\n", any_oom, any_thrash, any_lone);
	if (fit_marks)
		put_fit_marks(f, d, fs);
	fclose(f);
	if (!rc)
		rc = write_file_atomic(fdir, "figure.gp", text, len, false, err);
	free(text);
	for (size_t p = 0; p < np; p++)
		free(pcurves[p]);
	free(pcurves);
	free(fail_x);
	free(fail_shift);
	free(fail_kind);
	free(lone);
	if (rc) {
		free(fdir);
		return -1;
	}
	out->name = xstrdup(fs->name);
	out->script = xstrdup(fs->script);
	out->data_dir = fdir;
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

static void add_spec(struct figure_spec *specs, size_t *n, const char *script,
		     const char *name, const char *title, bool accesses, size_t n_series)
{
	struct figure_spec *s = &specs[(*n)++];
	s->script = script;
	s->name = xstrdup(name);
	s->title = xstrdup(title);
	s->accesses = accesses;
	s->ablation = false;
	s->series = xcalloc(n_series ? n_series : 1, sizeof *s->series);
	s->n_series = 0;
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
	/* `rematsim measured --out DIR`: its figures alone (plot-measured.c). */
	int mrc = plot_measured(dir, figs, n_figs, err);
	if (mrc) {
		pdata_free(&d);
		return mrc < 0 ? -1 : 0;
	}
	if (read_models(dir, &d, err) || read_points(dir, &d, err) || read_fit(dir, &d, err)) {
		pdata_free(&d);
		return -1;
	}
	/* Budgets given as formulas of n: the asymptotic study's figure alone. */
	char *ppath = path_join(dir, "points.tsv");
	struct points_table pt;
	bool done = false;
	int arc = points_read(ppath, false, &pt, err);
	free(ppath);
	if (!arc) {
		*figs = xcalloc(1, sizeof **figs);
		arc = plot_asymptotics(dir, &pt, &done, &(*figs)[0], err);
		points_table_free(&pt);
		if (done && !arc)
			*n_figs = 1;
		if (arc || done) {
			if (arc) {
				free(*figs);
				*figs = NULL;
			}
			pdata_free(&d);
			return arc ? -1 : 0;
		}
		free(*figs);
		*figs = NULL;
	}
	if (arc) {
		pdata_free(&d);
		return -1;
	}
	if (!d.n_rows) {
		pdata_free(&d);
		return rs_error_set(err, EXIT_DATAERR, dir, 0, "points.tsv has no rows to plot");
	}
	struct figure_spec specs[FAMILY_COUNT + 2];
	size_t ns = 0;
	char name[512];
	bool ablation = true;
	for (size_t s = 0; s < d.n_series; s++)
		ablation &= family_of(&d.series[s]) != FAMILY_PAPER;
	char *qexp = quoted(d.experiment);

	if (ablation) {
		for (int fam = FAMILY_PAPER + 1; fam < FAMILY_COUNT; fam++) {
			snprintf(name, sizeof name, "%s-%s", d.experiment,
				 heuristic_family_name((enum heuristic_family)fam));
			char title[256];
			snprintf(title, sizeof title, "'%s'",
				 heuristic_family_title((enum heuristic_family)fam));
			add_spec(specs, &ns, "ablation", name, title, false, d.n_series);
			specs[ns - 1].ablation = true;
			for (size_t s = 0; s < d.n_series; s++)
				if ((int)family_of(&d.series[s]) == fam)
					specs[ns - 1].series[specs[ns - 1].n_series++] = s;
			if (!specs[ns - 1].n_series) {
				free(specs[ns - 1].name);
				free(specs[ns - 1].title);
				free(specs[ns - 1].series);
				ns--;
			}
		}
	} else {
		bool banishing = !strcmp(d.experiment, "banishing");
		bool acc_only = !strcmp(d.experiment, "accesses");
		snprintf(name, sizeof name, acc_only ? "%s-overhead" : "%s", d.experiment);
		char title[600];
		snprintf(title, sizeof title, "%s.': compute overhead vs memory budget'",
			 banishing ? "'Banishing vs eager eviction'" : qexp);
		add_spec(specs, &ns, banishing ? "banishing" : "pareto", name, title, false,
			 d.n_series);
		for (size_t s = 0; s < d.n_series; s++)
			specs[ns - 1].series[specs[ns - 1].n_series++] = s;
		size_t with_acc = 0;
		for (size_t s = 0; s < d.n_series; s++)
			with_acc += d.series[s].has_accesses;
		if (!banishing && with_acc) {
			snprintf(name, sizeof name, acc_only ? "%s" : "%s-accesses", d.experiment);
			add_spec(specs, &ns, "accesses", name,
				 "'Metadata accesses of the heuristics'", true,
				 d.n_series);
			for (size_t s = 0; s < d.n_series; s++)
				if (d.series[s].has_accesses)
					specs[ns - 1].series[specs[ns - 1].n_series++] = s;
		}
	}
	free(qexp);

	int rc = 0;
	struct style *styles = xcalloc(d.n_series ? d.n_series : 1, sizeof *styles);
	*figs = xcalloc(ns ? ns : 1, sizeof **figs);
	for (size_t i = 0; i < ns; i++) {
		if (!rc && write_figure(dir, &d, &specs[i], styles, &(*figs)[*n_figs], err) == 0)
			(*n_figs)++;
		else
			rc = -1;
		free(specs[i].name);
		free(specs[i].title);
		free(specs[i].series);
	}
	for (size_t s = 0; s < d.n_series; s++)
		free(styles[s].label);
	free(styles);
	pdata_free(&d);
	if (rc) {
		plot_figures_free(*figs, *n_figs);
		*figs = NULL;
		*n_figs = 0;
	}
	return rc;
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
