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
};

struct pdata {
	char *experiment;
	struct pmodel *models;
	size_t n_models, cap_models;
	struct pseries *series;
	size_t n_series, cap_series;
	struct prow *rows;
	size_t n_rows;
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
	free(d->experiment);
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
	d->experiment = xstrdup(exp ? exp : "experiment");
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

/* ------------------------------------------------------------ labels */

/* Text for gnuplot's enhanced mode inside single quotes. */
static void put_enhanced(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("''", f);
		else if (strchr("_^@&~{}\\", *s))
			fprintf(f, "\\%c", *s);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

/* A curve's legend, in enhanced markup (already escaped), or NULL. */
static const char *known_label(const char *heuristic, const char *series)
{
	static const struct {
		const char *name, *label;
	} labels[] = {
		{"DTR", "h_{DTR}"},
		{"DTREqClass", "h_{DTR}^{eq}"},
		{"DTRLocal", "h_{DTR}^{local}"},
		{"MSPS", "h_{MSPS}"},
		{"LRU", "h_{LRU}"},
		{"LargestStorage", "h_{size}"},
		{"RandomStorage", "h_{rand}"},
		{"DTRUnopt", "DTR-Full"},
	};
	if (strcmp(heuristic, series))
		return NULL; /* a named series: its name is the label */
	for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
		if (!strcmp(labels[i].name, heuristic))
			return labels[i].label;
	return NULL;
}

/* Ablation heuristics: AbE*, AbEq*, AbLocal*, and the cost-free rest. */
enum family { FAM_ESTAR, FAM_EQ, FAM_LOCAL, FAM_NOCOST, FAM_NONE };
static const char *const family_name[] = {"estar", "eq", "local", "nocost"};
static const char *const family_title[] = {
	"Ablation: e^{*} cost", "Ablation: eq-class cost",
	"Ablation: local cost", "Ablation: no cost"};

static enum family ablation_family(const char *h)
{
	if (strncmp(h, "Ab", 2))
		return FAM_NONE;
	if (!strncmp(h, "AbEq", 4))
		return FAM_EQ;
	if (!strncmp(h, "AbLocal", 7))
		return FAM_LOCAL;
	if (!strncmp(h, "AbE", 3))
		return FAM_ESTAR;
	return FAM_NOCOST;
}

static const char *ablation_label(const char *h)
{
	bool size = strstr(h, "Size") != NULL, stale = strstr(h, "Stale") != NULL;
	if (!strcmp(h, "AbRandom"))
		return "random";
	return size && stale ? "size and staleness" : size ? "size" : stale ? "staleness"
									  : "no size, no staleness";
}

/* ------------------------------------------------------------ figures */

struct figure_spec {
	const char *script;
	char *name;
	char *title;      /* enhanced markup */
	bool accesses;    /* y: metadata accesses, not overhead */
	size_t *series;
	size_t n_series;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
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
			double *fail_x,
			int *fail_kind, struct rs_error *err, int *rc)
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
			cl.mean = sum / cl.n;
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
				fprintf(f, "%.17g\t%.17g\t%.17g\t%.17g\t%u\n", cells[k].ratio,
					cells[k].mean, cells[k].min, cells[k].max, cells[k].n);
		} else if (kind == 1) {
			fputs("# ratio\tmin\tmax: the min-max band as steps\n", f);
			for (size_t k = 0; k < nc; k++) {
				fprintf(f, "%.17g\t%.17g\t%.17g\n", cells[k].ratio, cells[k].min,
					cells[k].max);
				if (k + 1 < nc)
					fprintf(f, "%.17g\t%.17g\t%.17g\n", cells[k + 1].ratio,
						cells[k].min, cells[k].max);
			}
		} else {
			fputs("# ratio\tmean: the first and last points of the curve\n", f);
			if (nc)
				fprintf(f, "%.17g\t%.17g\n", cells[0].ratio, cells[0].mean);
			if (nc > 1)
				fprintf(f, "%.17g\t%.17g\n", cells[nc - 1].ratio, cells[nc - 1].mean);
		}
		fclose(f);
		if (write_file_atomic(fdir, name, text, len, false, err))
			*rc = -1;
		free(text);
	}
	free(ratios);
	free(cells);
	free(fails);
	return nc > 0;
}

static int write_figure(const char *dir, const struct pdata *d, const struct figure_spec *fs,
			struct plot_figure *out, struct rs_error *err)
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
	double *fail_x = xcalloc(np * ncur, sizeof *fail_x);
	int *fail_kind = xcalloc(np * ncur, sizeof *fail_kind);
	char **pcurves = xcalloc(np, sizeof *pcurves);
	double ylo = INFINITY, yhi = -INFINITY;
	for (size_t p = 0; p < np && !rc; p++) {
		char *list = NULL;
		size_t len = 0;
		FILE *lf = open_memstream(&list, &len);
		for (size_t c = 0; c < ncur && !rc; c++) {
			size_t k = p * ncur + c;
			if (write_curve(fdir, d, p + 1, c + 1, p, fs->series[c], fs->accesses, &ylo, &yhi,
					&fail_x[k], &fail_kind[k], err, &rc))
				fprintf(lf, "%s%zu", len ? " " : "", c + 1);
			fflush(lf);
		}
		fclose(lf);
		pcurves[p] = list;
	}

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	fprintf(f, "# written by `rematsim plot %s`: the panels and curves of this figure.\n"
		   "# Panel p, curve c: pP-cC.tsv (ratio, mean, min, max, trials),\n"
		   "# pP-cC-band.tsv (the min-max band as steps), pP-cC-ends.tsv.\n", dir);
	fputs("figtitle = ", f);
	fputs(fs->title, f);
	fprintf(f, "\nnpanels = %zu\nncurves = %zu\n", np, ncur);
	/* Log axes: whole decades around the data (1 to 10 when there is none). */
	double lo = isfinite(ylo) ? pow(10, floor(log10(ylo))) : 1;
	double hi = isfinite(yhi) ? pow(10, ceil(log10(yhi))) : 10;
	fprintf(f, "yrange_lo = %.17g\nyrange_hi = %.17g\n", lo, hi > lo ? hi : lo * 10);
	size_t ncols = np < 4 ? np : 4;
	fprintf(f, "ncols = %zu\nnrows = %zu\n", ncols ? ncols : 1, np ? (np + 3) / 4 : 1);
	fprintf(f, "array ptitle[%zu]\narray pdesc[%zu]\narray pconst[%zu]\narray pbottle[%zu]\n"
		   "array pcurves[%zu]\n", np, np, np, np, np);
	for (size_t p = 0; p < np; p++) {
		fprintf(f, "ptitle[%zu] = ", p + 1);
		put_enhanced(f, d->models[p].title);
		fprintf(f, "; pdesc[%zu] = ", p + 1);
		put_enhanced(f, d->models[p].desc);
		fprintf(f, "\npconst[%zu] = %.17g; pbottle[%zu] = %.17g; pcurves[%zu] = '%s'\n",
			p + 1, d->models[p].const_ratio, p + 1, d->models[p].bottleneck_ratio,
			p + 1, pcurves[p]);
	}
	fprintf(f, "array clabel[%zu]\narray cband[%zu]\n", ncur, ncur);
	for (size_t c = 0; c < ncur; c++) {
		const struct pseries *s = &d->series[fs->series[c]];
		fprintf(f, "clabel[%zu] = ", c + 1);
		const char *kl = known_label(s->heuristic, s->name);
		if (ablation_family(s->heuristic) != FAM_NONE)
			put_enhanced(f, ablation_label(s->heuristic));
		else if (kl)
			fprintf(f, "'%s'", kl);
		else
			put_enhanced(f, s->name);
		fprintf(f, "; cband[%zu] = %d\n", c + 1, s->trials > 1);
	}
	fputs("# failure lines: at the smallest passing ratio; kind 1 OOM below it "
	      "(dotted), 2 thrash (dashed)\n", f);
	size_t n_fail = np * ncur > 0 ? np * ncur : 1;
	fprintf(f, "array fail_x[%zu]\narray fail_kind[%zu]\n", n_fail, n_fail);
	for (size_t k = 0; k < np * ncur; k++)
		fprintf(f, "fail_x[%zu] = %.17g; fail_kind[%zu] = %d\n", k + 1, fail_x[k], k + 1,
			fs->accesses ? 0 : fail_kind[k]);
	fclose(f);
	if (!rc)
		rc = write_file_atomic(fdir, "figure.gp", text, len, false, err);
	free(text);
	for (size_t p = 0; p < np; p++)
		free(pcurves[p]);
	free(pcurves);
	free(fail_x);
	free(fail_kind);
	if (rc) {
		free(fdir);
		return -1;
	}
	out->name = xstrdup(fs->name);
	out->script = xstrdup(fs->script);
	out->data_dir = fdir;
	return 0;
}

static void add_spec(struct figure_spec *specs, size_t *n, const char *script,
		     const char *name, const char *title, bool accesses, size_t n_series)
{
	struct figure_spec *s = &specs[(*n)++];
	s->script = script;
	s->name = xstrdup(name);
	s->title = xstrdup(title);
	s->accesses = accesses;
	s->series = xcalloc(n_series ? n_series : 1, sizeof *s->series);
	s->n_series = 0;
}

static char *quoted(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	put_enhanced(f, s);
	fclose(f);
	return buf;
}

int plot_prepare(const char *dir, struct plot_figure **figs, size_t *n_figs,
		 struct rs_error *err)
{
	struct pdata d = {0};
	*figs = NULL;
	*n_figs = 0;
	if (read_models(dir, &d, err) || read_points(dir, &d, err)) {
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
	struct figure_spec specs[8];
	size_t ns = 0;
	char name[512];
	bool ablation = true;
	for (size_t s = 0; s < d.n_series; s++)
		ablation &= ablation_family(d.series[s].heuristic) != FAM_NONE;
	char *qexp = quoted(d.experiment);

	if (ablation) {
		for (int fam = 0; fam < FAM_NONE; fam++) {
			snprintf(name, sizeof name, "%s-%s", d.experiment, family_name[fam]);
			char title[256];
			snprintf(title, sizeof title, "'%s'", family_title[fam]);
			add_spec(specs, &ns, "ablation", name, title, false, d.n_series);
			for (size_t s = 0; s < d.n_series; s++)
				if ((int)ablation_family(d.series[s].heuristic) == fam)
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
	*figs = xcalloc(ns ? ns : 1, sizeof **figs);
	for (size_t i = 0; i < ns; i++) {
		if (!rc && write_figure(dir, &d, &specs[i], &(*figs)[*n_figs], err) == 0)
			(*n_figs)++;
		else
			rc = -1;
		free(specs[i].name);
		free(specs[i].title);
		free(specs[i].series);
	}
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
