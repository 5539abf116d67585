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
	size_t panels;  /* at most this many SVG pages (DIR/NAME-2.svg ...: grid.gp) */
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

/*
 * The table of figures (plot.c's figures[]): one row per kind of figure,
 * asked in order whether it applies to a sweep's results; each that does
 * writes its figures' data. `rematsim plot --help` lists the rows, and
 * plots/meson.build installs every script a row names (the install test
 * checks it).
 */
struct plot_ctx;
struct plot_list;
struct plot_figure_row {
	const char *name;     /* the kind of figure */
	const char *script;   /* plots/SCRIPT.gp draws it */
	const char *applies;  /* when it applies (--help, docs) */
	const char *writes;   /* the figures it names and their data files */
	/* Names: EXP-SUFFIX, where EXP is the experiment; EXP alone for the
	 * experiment's main figure: the row whose main_of is EXP or, when no
	 * row is, a `bare` one. */
	const char *suffix;
	const char *main_of;
	bool bare;
	const char *experiment; /* applies only to the experiment of this name (NULL: any) */
	const char *title;      /* figure title (NULL: the experiment's name) */
	bool last;              /* when it applies, the rows after it are not asked */
	bool own_files;         /* reads its own files in DIR, not a sweep's: asked
				 * first, with a context of dir and opt alone */
	bool (*applies_to)(const struct plot_ctx *c, const struct plot_figure_row *row);
	int (*write)(struct plot_ctx *c, const struct plot_figure_row *row,
		     struct plot_list *out, struct rs_error *err);
};

/** The table of figures, in the order its rows are asked. */
const struct plot_figure_row *plot_figure_rows(size_t *n);

/**
 * The figures of `rematsim measured --out DIR` (plot-measured.c): when dir
 * has measured.tsv, write their data, give them in *figs and return 1;
 * 0 when it has none; -1 with err on a bad file or a write error.
 */
int plot_measured(const char *dir, struct plot_figure **figs, size_t *n_figs, struct rs_error *err);

#endif
