/*
 * plot.h: turning a sweep's output folder into figures. plot_prepare reads
 * points.tsv and models.tsv and writes, per figure, a folder of small data
 * files (DIR/plot-data/FIGURE/) that the figure's gnuplot script reads;
 * rendering is running `gnuplot -c plots/SCRIPT.gp DATA OUT` on them.
 *
 * Invariant: everything a figure shows is in its data folder, so that the
 * .gp scripts can be rerun by hand and the numbers loaded elsewhere.
 */
#ifndef REMATSIM_PLOT_H
#define REMATSIM_PLOT_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

struct plot_figure {
	char *name;     /* output file stem: DIR/NAME.png, DIR/NAME.pdf */
	char *script;   /* "pareto", "ablation", "banishing", "accesses" */
	char *data_dir; /* DIR/plot-data/NAME */
};

/* Choices of `rematsim plot` that change the data. */
struct plot_options {
	bool has_yrange; /* y axis of the overhead figures: [ylo, yhi] */
	double ylo, yhi;
};

/** Parse "LO:HI" (or "LO,HI"), LO < HI, finite: 0, or -1. */
int plot_parse_yrange(const char *text, double *lo, double *hi);

/**
 * Write the data of every figure that dir's results support. Gives the
 * list in *figs (free with plot_figures_free). Errors: EXIT_NOINPUT (no
 * points.tsv or models.tsv), EXIT_DATAERR, EXIT_CANTCREAT.
 */
int plot_prepare(const char *dir, const struct plot_options *opt, struct plot_figure **figs,
		 size_t *n_figs, struct rs_error *err);
void plot_figures_free(struct plot_figure *figs, size_t n);

struct points_table;
/**
 * The asymptotic study's figure (plot-asymptotics.c): when t (dir's
 * points) has budget formulas of n, write its data, fill *out and set
 * *done; otherwise leave *done false. -1 with err on a write error.
 */
int plot_asymptotics(const char *dir, const struct points_table *t, bool *done,
		     struct plot_figure *out, struct rs_error *err);

/**
 * The figures of `rematsim measured --out DIR` (plot-measured.c): when dir
 * has measured.tsv, write their data, give them in *figs and return 1;
 * 0 when it has none; -1 with err on a bad file or a write error.
 */
int plot_measured(const char *dir, struct plot_figure **figs, size_t *n_figs, struct rs_error *err);

#endif
