/*
 * plot-asymptotics.c: the data of the asymptotic study's figure (the DTR
 * paper's chain figure): remat compute against n, one panel per budget
 * formula, one curve per series, with Chen et al.'s sqrt(n) checkpointing
 * (y = n) and Griewank's TREEVERSE (treeverse(n) - n) as references.
 *
 * The row "asymptotics" of plot.c's table of figures: it applies to
 * results whose points.tsv has the n and budget_formula columns and some
 * formula of n; plots/asymptotics.gp draws it. Files in DIR/plot-data/NAME/ (docs/gen.md):
 *   figure.gp        title, panel titles (formulas), curve labels, ranges
 *   pP-cC.tsv        `n remat_compute` of the passing points, n ascending
 *   pP-cC-fail.tsv   `n outcome` of the points that ran out of memory or
 *                    thrashed (marked at the foot of the panel, not joined)
 *   chen.tsv         `n n`;  treeverse.tsv  `n treeverse(n)-n` (powers of 2)
 * Passing points with no remat compute are left out: a log axis has no 0.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gptext.h"
#include "heuristics.h"
#include "plot-private.h"
#include "results.h"

struct arow {
	size_t panel, curve;
	double n, remat;
	enum plot_outcome outcome;
};

static bool is_number(const char *s)
{
	char *end;
	if (!*s)
		return false;
	strtod(s, &end);
	return !*end;
}

static int by_n(const void *a, const void *b)
{
	const struct arow *x = a, *y = b;
	return (x->n > y->n) - (x->n < y->n);
}

/* treeverse(1) = 2, treeverse(n) = n/2 + 2 treeverse(n/2) (simrd's reference). */
static double treeverse(double n)
{
	double t = 2;
	for (double m = 1; m < n; m *= 2)
		t = m + 2 * t;
	return t;
}

static int write_text(const char *dir, const char *name, char *buf, size_t len,
		      struct rs_error *err)
{
	int rc = plot_write_data(dir, name, buf, len, err);
	free(buf);
	return rc;
}

bool plot_asymptotics_applies(const struct plot_ctx *ctx, const struct plot_figure_row *row)
{
	(void)row;
	const struct points_table *t = ctx->points;
	if (!t->gen_columns)
		return false;
	for (size_t i = 0; i < t->total; i++) {
		if (!t->rows[i])
			continue;
		char *copy = xstrdup(t->rows[i]);
		char *f[PC_COUNT + PC_GEN_COUNT];
		tsv_split(copy, f, PC_COUNT + PC_GEN_COUNT);
		bool formula = !is_number(f[PC_BUDGET_FORMULA]);
		free(copy);
		if (formula)
			return true;
	}
	return false;
}

int plot_asymptotics_write(struct plot_ctx *ctx, const struct plot_figure_row *row,
			   struct plot_list *out, struct rs_error *err)
{
	const struct points_table *t = ctx->points;
	char **panels = NULL, **curves = NULL;
	size_t np = 0, nc = 0, capp = 0, capc = 0, nr = 0;
	struct arow *rows = xcalloc(t->n_rows ? t->n_rows : 1, sizeof *rows);
	for (size_t i = 0; i < t->total; i++) {
		if (!t->rows[i])
			continue;
		char *copy = xstrdup(t->rows[i]);
		char *f[PC_COUNT + PC_GEN_COUNT];
		tsv_split(copy, f, PC_COUNT + PC_GEN_COUNT);
		struct arow *r = &rows[nr++];
		r->panel = intern(&panels, &np, &capp, f[PC_BUDGET_FORMULA]);
		r->curve = intern(&curves, &nc, &capc, f[PC_SERIES]);
		r->n = strtod(f[PC_N], NULL);
		r->remat = strtod(f[PC_REMAT_COMPUTE], NULL);
		r->outcome = plot_outcome_parse(f[PC_OUTCOME]);
		free(copy);
	}
	int rc = 0;
	const char *exp = points_header(t, "experiment");
	char *fdir = plot_data_dir(ctx->dir, exp ? exp : "asymptotics", err);
	if (!fdir) {
		rc = -1;
		goto out;
	}
	qsort(rows, nr, sizeof *rows, by_n);
	double nmin = INFINITY, nmax = 0, ymax = 1;
	for (size_t i = 0; i < nr; i++) {
		nmin = fmin(nmin, rows[i].n);
		nmax = fmax(nmax, rows[i].n);
		if (rows[i].outcome == PLOT_PASS)
			ymax = fmax(ymax, rows[i].remat);
	}
	if (!(nmin >= 1))
		nmin = 1;
	ymax = fmax(ymax, treeverse(nmax) - nmax);
	ymax = fmax(ymax, nmax);
	char name[64];
	for (size_t p = 0; p < np && !rc; p++)
		for (size_t c = 0; c < nc && !rc; c++)
			for (int fail = 0; fail < 2 && !rc; fail++) {
				char *buf = NULL;
				size_t len = 0;
				FILE *f = open_memstream(&buf, &len);
				fprintf(f, fail ? "# n\toutcome (1 oom, 2 thrash)\n" : "# n\tremat_compute\n");
				size_t k = 0;
				for (size_t i = 0; i < nr; i++) {
					const struct arow *r = &rows[i];
					if (r->panel != p || r->curve != c || (r->outcome != PLOT_PASS) != fail)
						continue;
					if (!fail && r->remat <= 0)
						continue;
					if (fail)
						fprintf(f, "%.17g\t%d\n", r->n, (int)r->outcome);
					else
						fprintf(f, "%.17g\t%.17g\n", r->n, r->remat);
					k++;
				}
				if (!k) /* a row gnuplot skips, so that the file is never empty */
					fputs("NaN\tNaN\n", f);
				fclose(f);
				snprintf(name, sizeof name, "p%zu-c%zu%s.tsv", p + 1, c + 1,
					 fail ? "-fail" : "");
				rc = write_text(fdir, name, buf, len, err);
			}
	if (!rc) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		fputs("# n\tn (sqrt(n) checkpointing, Chen et al.: extra compute n)\n", f);
		for (double n = nmin; n <= nmax * 1.0000001; n *= 2)
			fprintf(f, "%.17g\t%.17g\n", n, n);
		fprintf(f, "%.17g\t%.17g\n", nmax, nmax);
		fclose(f);
		rc = write_text(fdir, "chen.tsv", buf, len, err);
	}
	if (!rc) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		fputs("# n\ttreeverse(n) - n (TREEVERSE, Griewank: log2(n) memory)\n", f);
		for (double n = 1; n <= nmax; n *= 2)
			if (n >= nmin / 2)
				fprintf(f, "%.17g\t%.17g\n", n, treeverse(n) - n);
		fclose(f);
		rc = write_text(fdir, "treeverse.tsv", buf, len, err);
	}
	if (!rc) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		fputs("# written by rematsim plot: the asymptotics figure's settings\n", f);
		fputs("figtitle = ", f);
		char title[512];
		snprintf(title, sizeof title, "%s: extra compute (remat compute) against n",
			 exp ? exp : "asymptotics");
		gptext_enhanced(f, title);
		fprintf(f, "\nnpanels = %zu\nncurves = %zu\n", np, nc);
		fprintf(f, "ncols = %zu\nnrows = %zu\n", np < 3 ? np : 3, (np + 2) / 3);
		fprintf(f, "xmin = %.17g\nxmax = %.17g\nymax = %.17g\n", nmin, nmax, ymax);
		fprintf(f, "array ptitle[%zu]\narray clabel[%zu]\n", np, nc);
		for (size_t p = 0; p < np; p++) {
			char pt[200];
			snprintf(pt, sizeof pt, "budget %s", panels[p]);
			fprintf(f, "ptitle[%zu] = ", p + 1);
			gptext_enhanced(f, pt);
			fputc('\n', f);
		}
		/* Each heuristic's label, colour and marker from its registry
		 * row, as in every other figure. */
		fprintf(f, "array ccolor[%zu]\narray cmarker[%zu]\n", nc, nc);
		for (size_t c = 0; c < nc; c++) {
			const struct heuristic *h = heuristic_find(curves[c]);
			fprintf(f, "clabel[%zu] = ", c + 1);
			if (h)
				gptext_string(f, h->tex_label); /* markup of ours */
			else
				gptext_enhanced(f, curves[c]);
			fprintf(f, "\nccolor[%zu] = '%s'\ncmarker[%zu] = %d\n", c + 1,
				h ? h->color : "#555555", c + 1, h ? h->marker : 1);
		}
		fclose(f);
		rc = write_text(fdir, "figure.gp", buf, len, err);
	}
	if (!rc) {
		plot_list_add(out, exp ? exp : "asymptotics", row->script, fdir, 1);
		fdir = NULL;
	}
	free(fdir);
out:
	for (size_t i = 0; i < np; i++)
		free(panels[i]);
	for (size_t i = 0; i < nc; i++)
		free(curves[i]);
	free(panels);
	free(curves);
	free(rows);
	return rc ? -1 : 0;
}
