/*
 * fit.h: the smallest budget at which a log's replay passes, found by a
 * search that does not assume feasibility is monotone in the budget (it
 * is not: U-Net (6) under DTR passes at ratio 0.43, runs out of memory at
 * 0.435 and passes again from 0.44). docs/questions.md, "fit", describes
 * the search and its cost.
 *
 * The search, in budgets (bytes):
 *  1. bounds: L, the largest op's distinct input storages + its outputs
 *     (below it every replay fails: an op runs with its inputs and outputs
 *     resident), and U, the peak of the unbounded replay of the same
 *     runtime and heuristic (from it every replay passes: nothing is ever
 *     evicted);
 *  2. a grid L, L + step, ... below U, and U (step = resolution x
 *     baseline memory), all probed (on `jobs` threads);
 *  3. bisection to the byte between the smallest passing grid point and
 *     the failing one below it (unless it is L), and between the largest
 *     failing point above that and the passing one above it.
 * Reported: the smallest passing budget found (the byte below it fails),
 * the largest failing budget above it if any (feasibility is then not
 * monotone), and the budget from which every probe passed. Budgets
 * between probes are not tried: a finer resolution tries more.
 *
 * Same inputs, same result at any thread count.
 */
#ifndef REMATSIM_FIT_H
#define REMATSIM_FIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime.h"
#include "schedule.h"

struct fit_config {
	const struct heuristic *heuristic;
	enum runtime_kind runtime;
	double overhead_limit;  /* as in point_config (INFINITY: none) */
	uint64_t seed;
	bool no_dealloc;
	double resolution;      /* grid step as a fraction of the baseline memory, in (0, 1] */
	unsigned jobs;          /* threads for the grid (0: all processors) */
	const struct proto_rules *proto; /* DTRPrototype's rules (NULL: all on) */
};

struct fit_probe {
	uint64_t budget;
	enum outcome outcome;
	double overhead;
	bool grid;              /* a grid point (else a bisection step) */
};

struct fit_result {
	uint64_t lower;         /* L */
	uint64_t upper;         /* U */
	uint64_t step;          /* grid step, bytes */
	uint64_t smallest_pass; /* smallest passing budget probed */
	bool exact;             /* smallest_pass == L: no budget below it passes */
	uint64_t largest_fail;  /* largest failing budget above smallest_pass; 0: none */
	uint64_t all_pass_from; /* every probe from here up passed */
	struct fit_probe *probes; /* in budget order */
	size_t n_probes;
	size_t n_grid;
	double wall_ms;
};

/** Most grid points a search may take (a finer resolution is refused). */
#define FIT_MAX_GRID 100000

/**
 * The grid's step and size for c on s (b: its baseline): 0, or -1 with
 * err filled (EXIT_USAGE) for a resolution outside (0, 1], finer than a
 * byte, or making more than FIT_MAX_GRID points.
 */
int fit_plan(const struct schedule *s, const struct baseline *b, const struct fit_config *c,
	     uint64_t *lower, uint64_t *upper, uint64_t *step, size_t *n_grid, struct rs_error *err);

/** Run the search: 0 with r filled (free with fit_result_free), or -1 with err. */
int fit_run(const struct schedule *s, const struct baseline *b, const struct fit_config *c,
	    struct fit_result *r, struct rs_error *err);
void fit_result_free(struct fit_result *r);

/** L of the search: the largest op's distinct input storages + its outputs. */
uint64_t fit_lower_bound(const struct schedule *s);

struct experiment; /* experiment.h */

/**
 * `rematsim sweep --fit X`: the search for each model and series of a
 * loaded experiment (its overhead limit; a random heuristic with its first
 * trial's seed), at resolution X, as the text of fit.tsv (gives *text):
 * one header line, then one row per model and series in the experiment's
 * order; the same bytes at any thread count. Returns 0, or -1 with err.
 */
int fit_experiment_tsv(const struct experiment *e, double resolution, unsigned jobs,
		       char **text, size_t *len, struct rs_error *err);

#endif
