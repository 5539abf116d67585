/*
 * plot-measured.c: the figures of `rematsim measured --out DIR` (the DTR
 * paper's Figure 4, simulated against measured), from DIR/measured.tsv:
 *
 *  measured         one panel per heuristic: the simulated remat overhead
 *                   against the measured one, a point per run in its
 *                   model's colour and marker (measured.c's table), the
 *                   seeds' range as a bar for a random heuristic, the line
 *                   y = x and a band of +-1 point around it;
 *  measured-budget  one panel per model: remat overhead against the
 *                   budget, the measured runs in black, each heuristic in
 *                   its registry colour and marker (range bars likewise).
 *
 * Files in DIR/plot-data/measured/ (plots/measured.gp) and
 * DIR/plot-data/measured-budget/ (plots/measured-budget.gp):
 *   figure.gp     titles, labels, colours, markers, ranges
 *   pP-cC.tsv     measured: `measured_pct simulated_pct min_pct max_pct`
 *                 of panel (heuristic) P and model C; measured-budget:
 *                 `budget_GB pct min_pct max_pct` of panel (model) P and
 *                 curve C (1: measured, then the heuristics), by budget
 * Runs with a measured "error" or no recorded overhead have no point in
 * the first figure; in the second a failed replay (OOM, thrash) is left
 * out of its curve, and a failed measured run too.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gptext.h"
#include "heuristics.h"
#include "measured.h"
#include "plot.h"
#include "plot-private.h"
#include "results.h"

struct mrow {
	size_t model, heur;
	double budget_gb, meas, sim, lo, hi;
	bool meas_ok, sim_ok;
};

static int write_text(const char *dir, const char *name, char *buf, size_t len, struct rs_error *err)
{
	int rc = plot_write_data(dir, name, buf, len, err);
	free(buf);
	return rc;
}

static int by_budget(const void *a, const void *b)
{
	const struct mrow *x = a, *y = b;
	return (x->budget_gb > y->budget_gb) - (x->budget_gb < y->budget_gb);
}

static double num(const char *s, bool *ok)
{
	char *end;
	double x = strtod(s, &end);
	*ok = end != s && !*end && isfinite(x);
	return x;
}

/* A curve's label (markup: enhanced text of ours, shown as such; else a
 * name from the file, shown literally: gptext.h), colour and marker. */
static void put_style(FILE *f, size_t i, const char *label, bool markup, const char *color, int marker)
{
	fprintf(f, "clabel[%zu] = ", i);
	if (markup)
		gptext_string(f, label);
	else
		gptext_enhanced(f, label);
	fprintf(f, "\nccolor[%zu] = '%s'\ncmarker[%zu] = %d\n", i, color, i, marker);
}

/* measured.tsv's rows, its models and heuristics (interned). */
struct mdata {
	char **models, **heurs;
	size_t nm, nhr, capm, caph;
	struct mrow *rows;
	size_t nr, capr;
};

/* Read the rows of text (measured.tsv at path, changed in place): 0, or
 * -1 with err. */
static int read_rows(char *text, const char *path, struct mdata *d, struct rs_error *err)
{
	long lineno = 0;
	bool columns = false;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		lineno++;
		if (line[0] == '#')
			continue;
		if (!columns) {
			if (strcmp(line, MEASURED_COLUMNS))
				return rs_error_set(err, EXIT_DATAERR, path, lineno,
						    "not the columns `rematsim measured` writes");
			columns = true;
			continue;
		}
		char *f[MC2_COUNT + 1];
		if (tsv_split(line, f, MC2_COUNT + 1) != MC2_COUNT)
			return rs_error_set(err, EXIT_DATAERR, path, lineno, "expected %d tab-separated columns",
					    MC2_COUNT);
		bool ok_b, ok_m, ok_s, ok_lo, ok_hi;
		struct mrow r = {
			.model = intern(&d->models, &d->nm, &d->capm, f[MC2_MODEL]),
			.heur = intern(&d->heurs, &d->nhr, &d->caph, f[MC2_HEURISTIC]),
			.budget_gb = num(f[MC2_BUDGET], &ok_b) / 1e9,
			.meas = num(f[MC2_MEASURED_PCT], &ok_m),
			.sim = num(f[MC2_SIMULATED_PCT], &ok_s),
			.lo = num(f[MC2_MIN_PCT], &ok_lo),
			.hi = num(f[MC2_MAX_PCT], &ok_hi),
		};
		if (!ok_b || !ok_s || !ok_lo || !ok_hi)
			return rs_error_set(err, EXIT_DATAERR, path, lineno, "a budget or percentage is not a number");
		r.meas_ok = ok_m && !strcmp(f[MC2_MEASURED_OUTCOME], "ok");
		r.sim_ok = !strcmp(f[MC2_OUTCOME], "pass");
		XGROW(d->rows, d->capr, d->nr + 1);
		d->rows[d->nr++] = r;
	}
	if (!d->nr)
		return rs_error_set(err, EXIT_DATAERR, path, 0, "no rows to plot");
	return 0;
}

/* The models in the table's order (measured.c), others after; the rows'
 * model numbers follow. */
static void order_models(struct mdata *d)
{
	size_t nm = d->nm, nt, *order = xmalloc((nm + 1) * sizeof *order), k = 0;
	const struct measured_model *t = measured_models(&nt);
	bool *used = xcalloc(nm + 1, sizeof *used);
	for (size_t i = 0; i < nt; i++)
		for (size_t j = 0; j < nm; j++)
			if (!used[j] && !strcmp(d->models[j], t[i].key)) {
				used[j] = true;
				order[k++] = j;
			}
	for (size_t j = 0; j < nm; j++)
		if (!used[j])
			order[k++] = j;
	char **sorted = xmalloc((nm + 1) * sizeof *sorted);
	size_t *rank = xmalloc((nm + 1) * sizeof *rank);
	for (size_t i = 0; i < nm; i++) {
		sorted[i] = d->models[order[i]];
		rank[order[i]] = i;
	}
	for (size_t i = 0; i < d->nr; i++)
		d->rows[i].model = rank[d->rows[i].model];
	memcpy(d->models, sorted, nm * sizeof *d->models);
	free(sorted);
	free(rank);
	free(order);
	free(used);
}

/* The axes' extent a figure's data set. */
struct mextent {
	double vmax, xlo, xhi;
};

/* Figure fig's data (0: measured, panels by heuristic, curves by model;
 * 1: measured-budget, panels by model, the measured curve then one per
 * heuristic): one file per panel and curve in fdir. */
static int write_panels(const struct mdata *d, int fig, const char *fdir, struct mextent *x,
			struct rs_error *err)
{
	size_t np = fig ? d->nm : d->nhr, nc = fig ? d->nhr + 1 : d->nm;
	char name[64];
	*x = (struct mextent){1, INFINITY, 0};
	for (size_t p = 0; p < np; p++) {
		for (size_t c = 0; c < nc; c++) {
			char *buf = NULL;
			size_t blen = 0;
			FILE *m = open_memstream(&buf, &blen);
			fputs(fig ? "# budget_GB\tremat_pct\tmin_pct\tmax_pct\n"
				  : "# measured_pct\tsimulated_pct\tmin_pct\tmax_pct\n", m);
			size_t k = 0;
			for (size_t i = 0; i < d->nr; i++) {
				const struct mrow *r = &d->rows[i];
				if (!fig && r->heur == p && r->model == c && r->meas_ok) {
					fprintf(m, "%.17g\t%.17g\t%.17g\t%.17g\n", r->meas, r->sim, r->lo, r->hi);
					x->vmax = fmax(x->vmax, fmax(r->meas, r->hi));
					k++;
				} else if (fig && r->model == p && c == 0 && r->heur == 0 && r->meas_ok) {
					/* the measured curve: once per run (its first heuristic's row) */
					fprintf(m, "%.17g\t%.17g\t%.17g\t%.17g\n", r->budget_gb, r->meas, r->meas, r->meas);
					x->vmax = fmax(x->vmax, r->meas);
					k++;
				} else if (fig && r->model == p && c > 0 && r->heur == c - 1 && r->sim_ok) {
					fprintf(m, "%.17g\t%.17g\t%.17g\t%.17g\n", r->budget_gb, r->sim, r->lo, r->hi);
					x->vmax = fmax(x->vmax, r->hi);
					k++;
				}
				if (fig && r->model == p) {
					x->xlo = fmin(x->xlo, r->budget_gb);
					x->xhi = fmax(x->xhi, r->budget_gb);
				}
			}
			if (!k) /* gnuplot skips it; never an empty file */
				fputs("NaN\tNaN\tNaN\tNaN\n", m);
			fclose(m);
			snprintf(name, sizeof name, "p%zu-c%zu.tsv", p + 1, c + 1);
			if (write_text(fdir, name, buf, blen, err))
				return -1;
		}
	}
	return 0;
}

/* Figure fig's settings (figure.gp in fdir): titles, extent, styles. */
static int write_settings(const struct mdata *d, int fig, const char *fdir, const struct mextent *x,
			  struct rs_error *err)
{
	size_t np = fig ? d->nm : d->nhr, nc = fig ? d->nhr + 1 : d->nm;
	char *buf = NULL;
	size_t blen = 0;
	FILE *m = open_memstream(&buf, &blen);
	fprintf(m, "# written by rematsim plot: the %s figure's settings\nfigtitle = ",
		fig ? "measured-budget" : "measured");
	gptext_enhanced(m, fig ? "Remat overhead against the budget: the DTR prototype's runs"
			       : "Simulated against measured remat overhead: the DTR prototype's runs");
	fprintf(m, "\nnpanels = %zu\nncurves = %zu\n", np, nc);
	fprintf(m, "vmax = %.17g\nxlo = %.17g\nxhi = %.17g\n", x->vmax, isfinite(x->xlo) ? x->xlo : 0, x->xhi);
	fprintf(m, "array ptitle[%zu]\narray clabel[%zu]\narray ccolor[%zu]\narray cmarker[%zu]\n", np, nc,
		nc, nc);
	for (size_t p = 0; p < np; p++) {
		/* a model's title (measured.c's table) or a heuristic's
		 * label (its registry row, markup of ours); else the
		 * file's name for it, shown literally */
		const struct measured_model *mm = fig ? measured_model_find(d->models[p]) : NULL;
		const struct heuristic *h = fig ? NULL : heuristic_find(d->heurs[p]);
		fprintf(m, "ptitle[%zu] = ", p + 1);
		if (h)
			gptext_string(m, h->tex_label);
		else
			gptext_enhanced(m, mm ? mm->title : fig ? d->models[p] : d->heurs[p]);
		fputc('\n', m);
	}
	for (size_t c = 0; c < nc; c++) {
		if (!fig) {
			/* a model's style: measured.c's table */
			const struct measured_model *mm = measured_model_find(d->models[c]);
			put_style(m, c + 1, mm ? mm->title : d->models[c], false, mm ? mm->color : "#555555",
				  mm ? mm->marker : 1);
		} else if (c == 0) {
			put_style(m, 1, "measured (prototype)", false, "#000000", 6);
		} else {
			/* a heuristic's style: its registry row */
			const struct heuristic *h = heuristic_find(d->heurs[c - 1]);
			put_style(m, c + 1, h ? h->tex_label : d->heurs[c - 1], h != NULL,
				  h ? h->color : "#555555", h ? h->marker : 1);
		}
	}
	fclose(m);
	return write_text(fdir, "figure.gp", buf, blen, err);
}

int plot_measured(const char *dir, struct plot_figure **figs, size_t *n_figs, struct rs_error *err)
{
	char *path = path_join(dir, "measured.tsv");
	struct stat st;
	if (stat(path, &st)) {
		free(path);
		return 0;
	}
	char *text;
	size_t len;
	if (read_whole_file(path, &text, &len, err)) {
		free(path);
		return -1;
	}
	struct mdata d = {0};
	int rc = read_rows(text, path, &d, err);
	if (!rc)
		order_models(&d);
	free(text);
	if (rc)
		goto out;
	qsort(d.rows, d.nr, sizeof *d.rows, by_budget);

	char *fdir[2] = {NULL, NULL};
	*figs = xcalloc(2, sizeof **figs);
	for (int fig = 0; fig < 2 && !rc; fig++) {
		struct mextent x;
		/* (no symbolic link followed out of dir: plot_data_dir) */
		if (!(fdir[fig] = plot_data_dir(dir, fig ? "measured-budget" : "measured", err)) ||
		    write_panels(&d, fig, fdir[fig], &x, err) || write_settings(&d, fig, fdir[fig], &x, err)) {
			rc = -1;
			break;
		}
		(*figs)[fig].name = xstrdup(fig ? "measured-budget" : "measured");
		(*figs)[fig].script = xstrdup(fig ? "measured-budget" : "measured");
		(*figs)[fig].data_dir = fdir[fig];
		fdir[fig] = NULL;
		*n_figs = (size_t)fig + 1;
	}
	free(fdir[0]);
	free(fdir[1]);
	if (rc) {
		plot_figures_free(*figs, *n_figs);
		*figs = NULL;
		*n_figs = 0;
	}
out:
	for (size_t i = 0; i < d.nm; i++)
		free(d.models[i]);
	for (size_t i = 0; i < d.nhr; i++)
		free(d.heurs[i]);
	free(d.models);
	free(d.heurs);
	free(d.rows);
	free(path);
	return rc ? -1 : 1;
}
