/*
 * plot-private.h: what the figure files of `rematsim plot` share (plot.c,
 * plot-asymptotics.c, and any plot-NAME.c a new figure brings): the
 * sweep's results as read once (struct plot_ctx), outcomes by name, and
 * the list the figures are added to. The table of figures itself is
 * plot.c's `figures[]` (plot.h: struct plot_figure_row).
 *
 * Invariant: points.tsv, models.tsv and fit.tsv are read once, before any
 * row is asked whether it applies; a figure reads them from the context,
 * never from the folder again.
 */
#ifndef REMATSIM_PLOT_PRIVATE_H
#define REMATSIM_PLOT_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include "plot.h"
#include "results.h"
#include "util.h"

/*
 * A point's outcome, as points.tsv's `outcome` column names it. The
 * values are those figure.gp files give gnuplot (fail_kind: 1 out of
 * memory, 2 thrash) and that grid.gp reads, so they are fixed.
 */
enum plot_outcome { PLOT_PASS = 0, PLOT_OOM = 1, PLOT_THRASH = 2 };

/** "pass", "oom"; anything else (points_read has checked the column) is a
 * thrash. */
enum plot_outcome plot_outcome_parse(const char *text);

struct prow {
	size_t model, series;
	double ratio;
	enum plot_outcome outcome;
	double overhead;
	double accesses;
	bool at_peak;   /* a heuristic at a plan's peak (heuristics_at_plan_peaks) */
};

struct pmodel {
	char *name, *title, *desc;
	double const_ratio, bottleneck_ratio;
	double floor_ratio; /* pinned at the end; NAN in folders written before models.tsv had it */
};

struct planner;
struct pseries {
	char *name, *heuristic;
	unsigned trials;
	bool has_accesses;
	const struct planner *planner; /* a planner's points (marked), or NULL */
	bool as_given;                 /* a planner's points drawn as they are, not as its
					* Pareto frontier (the gap figure: its best plan at
					* each budget) */
};

/* models.tsv, the rows of points.tsv and fit.tsv, by index. */
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
	bool any_at_peak;       /* some rows are at plan peaks */
	/* fit.tsv (`sweep --fit`), when the folder has one: per model m and
	 * series s (m * n_series + s), the smallest passing ratio and, where
	 * feasibility is not monotone, the ratio from which every probe
	 * passed; NAN: no row. */
	double *fit_x, *fit_to;
};

struct style;
/* One `rematsim plot DIR`: its inputs, read once, and what the figures
 * keep across each other. */
struct plot_ctx {
	const char *dir;
	const struct plot_options *opt;
	const struct points_table *points; /* points.tsv as read */
	struct pdata *d;                   /* reduced from it, models.tsv and fit.tsv */
	struct style *styles;              /* per series: the style it first got */
};

/* The figures written so far. */
struct plot_list {
	struct plot_figure *figs;
	size_t n, cap;
};

/** Add a figure of `panels` panels: name and script copied, data_dir taken. */
void plot_list_add(struct plot_list *l, const char *name, const char *script, char *data_dir,
		   size_t panels);

/**
 * DIR/plot-data/NAME, created (gives); NULL with err when it cannot be. A
 * results folder may come from someone else: a symbolic link at
 * plot-data or NAME is refused (EXIT_CANTCREAT), never followed out of
 * DIR (make_dirs_below; issue 40, H4).
 */
char *plot_data_dir(const char *dir, const char *name, struct rs_error *err);

/**
 * Write a data file of a figure, fdir/name (fdir from plot_data_dir),
 * through outfile's temporary and rename; an entry of that name that is
 * not a regular file (a link, a FIFO, a device) is refused
 * (EXIT_CANTCREAT), never written through. 0 or -1 with err.
 */
int plot_write_data(const char *fdir, const char *name, const char *data, size_t len,
		    struct rs_error *err);

/* The asymptotic study's figure (plot-asymptotics.c): whether points.tsv
 * has budget formulas of n, and its data. */
bool plot_asymptotics_applies(const struct plot_ctx *c, const struct plot_figure_row *row);
int plot_asymptotics_write(struct plot_ctx *c, const struct plot_figure_row *row,
			   struct plot_list *out, struct rs_error *err);

#endif
