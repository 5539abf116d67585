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
	char **models = NULL, **heurs = NULL;
	size_t nm = 0, nhr = 0, capm = 0, caph = 0, nr = 0, capr = 0;
	struct mrow *rows = NULL;
	int rc = 0;
	long lineno = 0;
	bool columns = false;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		lineno++;
		if (line[0] == '#')
			continue;
		if (!columns) {
			if (strcmp(line, MEASURED_COLUMNS)) {
				rc = rs_error_set(err, EXIT_DATAERR, path, lineno,
						  "not the columns `rematsim measured` writes");
				break;
			}
			columns = true;
			continue;
		}
		char *f[MC2_COUNT + 1];
		if (tsv_split(line, f, MC2_COUNT + 1) != MC2_COUNT) {
			rc = rs_error_set(err, EXIT_DATAERR, path, lineno, "expected %d tab-separated columns",
					  MC2_COUNT);
			break;
		}
		bool ok_b, ok_m, ok_s, ok_lo, ok_hi;
		struct mrow r = {
			.model = intern(&models, &nm, &capm, f[MC2_MODEL]),
			.heur = intern(&heurs, &nhr, &caph, f[MC2_HEURISTIC]),
			.budget_gb = num(f[MC2_BUDGET], &ok_b) / 1e9,
			.meas = num(f[MC2_MEASURED_PCT], &ok_m),
			.sim = num(f[MC2_SIMULATED_PCT], &ok_s),
			.lo = num(f[MC2_MIN_PCT], &ok_lo),
			.hi = num(f[MC2_MAX_PCT], &ok_hi),
		};
		if (!ok_b || !ok_s || !ok_lo || !ok_hi) {
			rc = rs_error_set(err, EXIT_DATAERR, path, lineno, "a budget or percentage is not a number");
			break;
		}
		r.meas_ok = ok_m && !strcmp(f[MC2_MEASURED_OUTCOME], "ok");
		r.sim_ok = !strcmp(f[MC2_OUTCOME], "pass");
		XGROW(rows, capr, nr + 1);
		rows[nr++] = r;
	}
	if (!rc && !nr)
		rc = rs_error_set(err, EXIT_DATAERR, path, 0, "no rows to plot");
	if (!rc) {
		/* models in the table's order (measured.c), others after */
		size_t nt, *order = xmalloc((nm + 1) * sizeof *order), k = 0;
		const struct measured_model *t = measured_models(&nt);
		bool *used = xcalloc(nm + 1, sizeof *used);
		for (size_t i = 0; i < nt; i++)
			for (size_t j = 0; j < nm; j++)
				if (!used[j] && !strcmp(models[j], t[i].key)) {
					used[j] = true;
					order[k++] = j;
				}
		for (size_t j = 0; j < nm; j++)
			if (!used[j])
				order[k++] = j;
		char **sorted = xmalloc((nm + 1) * sizeof *sorted);
		size_t *rank = xmalloc((nm + 1) * sizeof *rank);
		for (size_t i = 0; i < nm; i++) {
			sorted[i] = models[order[i]];
			rank[order[i]] = i;
		}
		for (size_t i = 0; i < nr; i++)
			rows[i].model = rank[rows[i].model];
		memcpy(models, sorted, nm * sizeof *models);
		free(sorted);
		free(rank);
		free(order);
		free(used);
	}
	free(text);
	if (rc)
		goto out;
	qsort(rows, nr, sizeof *rows, by_budget);

	char *fdir[2] = {NULL, NULL};
	*figs = xcalloc(2, sizeof **figs);
	char name[64];
	for (int fig = 0; fig < 2 && !rc; fig++) {
		/* (no symbolic link followed out of dir: plot_data_dir) */
		if (!(fdir[fig] = plot_data_dir(dir, fig ? "measured-budget" : "measured", err))) {
			rc = -1;
			break;
		}
		size_t np = fig ? nm : nhr, nc = fig ? nhr + 1 : nm;
		double vmax = 1, xlo = INFINITY, xhi = 0;
		for (size_t p = 0; p < np && !rc; p++) {
			for (size_t c = 0; c < nc && !rc; c++) {
				char *buf = NULL;
				size_t blen = 0;
				FILE *m = open_memstream(&buf, &blen);
				fputs(fig ? "# budget_GB\tremat_pct\tmin_pct\tmax_pct\n"
					  : "# measured_pct\tsimulated_pct\tmin_pct\tmax_pct\n", m);
				size_t k = 0;
				for (size_t i = 0; i < nr; i++) {
					const struct mrow *r = &rows[i];
					if (!fig && r->heur == p && r->model == c && r->meas_ok) {
						fprintf(m, "%.17g\t%.17g\t%.17g\t%.17g\n", r->meas, r->sim, r->lo, r->hi);
						vmax = fmax(vmax, fmax(r->meas, r->hi));
						k++;
					} else if (fig && r->model == p && c == 0 && r->heur == 0 && r->meas_ok) {
						/* the measured curve: once per run (its first heuristic's row) */
						fprintf(m, "%.17g\t%.17g\t%.17g\t%.17g\n", r->budget_gb, r->meas, r->meas, r->meas);
						vmax = fmax(vmax, r->meas);
						k++;
					} else if (fig && r->model == p && c > 0 && r->heur == c - 1 && r->sim_ok) {
						fprintf(m, "%.17g\t%.17g\t%.17g\t%.17g\n", r->budget_gb, r->sim, r->lo, r->hi);
						vmax = fmax(vmax, r->hi);
						k++;
					}
					if (fig && r->model == p) {
						xlo = fmin(xlo, r->budget_gb);
						xhi = fmax(xhi, r->budget_gb);
					}
				}
				if (!k) /* gnuplot skips it; never an empty file */
					fputs("NaN\tNaN\tNaN\tNaN\n", m);
				fclose(m);
				snprintf(name, sizeof name, "p%zu-c%zu.tsv", p + 1, c + 1);
				rc = write_text(fdir[fig], name, buf, blen, err);
			}
		}
		if (rc)
			break;
		char *buf = NULL;
		size_t blen = 0;
		FILE *m = open_memstream(&buf, &blen);
		fprintf(m, "# written by rematsim plot: the %s figure's settings\nfigtitle = ",
			fig ? "measured-budget" : "measured");
		gptext_enhanced(m, fig ? "Remat overhead against the budget: the DTR prototype's runs"
				       : "Simulated against measured remat overhead: the DTR prototype's runs");
		fprintf(m, "\nnpanels = %zu\nncurves = %zu\n", np, nc);
		fprintf(m, "vmax = %.17g\nxlo = %.17g\nxhi = %.17g\n", vmax, isfinite(xlo) ? xlo : 0, xhi);
		fprintf(m, "array ptitle[%zu]\narray clabel[%zu]\narray ccolor[%zu]\narray cmarker[%zu]\n", np, nc,
			nc, nc);
		for (size_t p = 0; p < np; p++) {
			/* a model's title (measured.c's table) or a heuristic's
			 * label (its registry row, markup of ours); else the
			 * file's name for it, shown literally */
			const struct measured_model *mm = fig ? measured_model_find(models[p]) : NULL;
			const struct heuristic *h = fig ? NULL : heuristic_find(heurs[p]);
			fprintf(m, "ptitle[%zu] = ", p + 1);
			if (h)
				gptext_string(m, h->tex_label);
			else
				gptext_enhanced(m, mm ? mm->title : fig ? models[p] : heurs[p]);
			fputc('\n', m);
		}
		for (size_t c = 0; c < nc; c++) {
			if (!fig) {
				/* a model's style: measured.c's table */
				const struct measured_model *mm = measured_model_find(models[c]);
				put_style(m, c + 1, mm ? mm->title : models[c], false, mm ? mm->color : "#555555",
					  mm ? mm->marker : 1);
			} else if (c == 0) {
				put_style(m, 1, "measured (prototype)", false, "#000000", 6);
			} else {
				/* a heuristic's style: its registry row */
				const struct heuristic *h = heuristic_find(heurs[c - 1]);
				put_style(m, c + 1, h ? h->tex_label : heurs[c - 1], h != NULL,
					  h ? h->color : "#555555", h ? h->marker : 1);
			}
		}
		fclose(m);
		if ((rc = write_text(fdir[fig], "figure.gp", buf, blen, err)))
			break;
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
	for (size_t i = 0; i < nm; i++)
		free(models[i]);
	for (size_t i = 0; i < nhr; i++)
		free(heurs[i]);
	free(models);
	free(heurs);
	free(rows);
	free(path);
	return rc ? -1 : 1;
}
