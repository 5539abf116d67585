/*
 * fit.h: the smallest budget at which a log's replay passes, found by a
 * search that does not assume feasibility is monotone in the budget (it
 * is not: U-Net (6) under DTR passes at ratio 0.43, runs out of memory at
 * 0.435 and passes again from 0.44). docs/questions.md, "fit", describes
 * the search and its cost.
 *
 * The search, in budgets (bytes):
 *  1. bounds: L (fit_floor), the larger of the largest op's distinct input
 *     storages + its outputs (an op runs with its inputs and outputs
 *     resident) and the log's floor for the runtime (schedule_floor: what
 *     stays pinned at the end must all be resident then), below which
 *     every replay fails; and U, the peak of the unbounded replay of the
 *     same runtime and heuristic (from it every replay passes: nothing is
 *     ever evicted);
 *  2. L alone: when it passes it is the answer, and the search stops
 *     there (no grid: the budgets above it are untried);
 *  3. a grid L + step, ... below U, and U (step = resolution x baseline
 *     memory), all probed (on `jobs` threads);
 *  4. bisection to the byte between the smallest passing grid point and
 *     the failing one below it, and between the largest failing point
 *     above that and the passing one above it;
 *  5. with a scan (fit_config.scan), every scan step above the smallest
 *     pass up to the scan's span.
 * Reported: the smallest passing budget found (the byte below it fails),
 * the largest failing budget above it if any (feasibility is then not
 * monotone), the budget from which every probe passed, and the budgets
 * not tried: the gaps between probes above the smallest pass (a finer
 * resolution, or a scan, tries more).
 *
 * Same inputs, same result at any thread count.
 */
#ifndef REMATSIM_FIT_H
#define REMATSIM_FIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc.h"
#include "runtime.h"
#include "schedule.h"

struct fit_config {
	/* Every probe's point (runtime.h): its runtime configuration
	 * (heuristic, runtime, seed, no_dealloc, proto, offload) and overhead
	 * limit (INFINITY: none); each probe sets the budget. */
	struct point_config point;
	double resolution;      /* grid step as a fraction of the baseline memory, in (0, 1] */
	unsigned jobs;          /* threads for the grid (0: all processors) */
	double scan;            /* probe every scan step above the smallest pass, up to
				 * this fraction of the baseline memory above it; 0: none */
	double scan_step;       /* the scan's step, a fraction of the baseline memory;
				 * 0: a tenth of the resolution */
	/* The device's terms (docs/allocator.md, "fit --allocator"): after
	 * the search, for each passing probe but the scan's, the smallest
	 * device memory on which its replay passes through this allocator
	 * model (borrowed), by bisection; the answer is the smallest over
	 * them. NULL: live bytes only. */
	const struct alloc_config *alloc;
};

struct fit_probe {
	uint64_t budget;
	enum outcome outcome;
	double overhead;
	bool grid;              /* a grid point (else a bisection step or a scan probe) */
	bool scan;              /* a scan probe */
	uint64_t device;        /* with an allocator: the smallest device on which it
				 * passes (0: not searched: a failure or a scan probe) */
	size_t device_replays;  /* the replays that search took */
	/* Every budget in [same_from, same_below) replays as this one did
	 * (runtime_result): a bisection step there is answered without a
	 * replay. */
	uint64_t same_from, same_below;
	bool known;             /* answered so, not replayed */
};

struct fit_result {
	uint64_t lower;         /* L (fit_floor): the larger of the two below */
	uint64_t footprint;     /* fit_lower_bound: the largest op's inputs and outputs */
	uint64_t floor_memory;  /* schedule_floor for the runtime: pinned at the end */
	uint64_t upper;         /* U */
	/* With an allocator (fit_config.alloc): the smallest device over the
	 * passing probes and the budget that gives it, the device the
	 * smallest passing budget needs, the reserved peak of the replay at
	 * U on an unbounded device, and the device search's replays. */
	uint64_t device_min, device_budget, device_at_smallest, reserved_upper;
	size_t n_device_replays;
	uint64_t step;          /* grid step, bytes */
	uint64_t smallest_pass; /* smallest passing budget probed */
	bool exact;             /* smallest_pass == L: no budget below it passes */
	uint64_t largest_fail;  /* largest failing budget above smallest_pass; 0: none */
	uint64_t all_pass_from; /* every probe from here up passed */
	bool floor_passes;      /* L passed: the search stopped there */
	/* Budgets not tried above the smallest pass: the gaps between
	 * consecutive probes (U, which passes, closing the last), their count
	 * and the widest, [untried_lo, untried_hi] (0, 0: none). */
	size_t n_untried_gaps;
	uint64_t untried_lo, untried_hi;
	/* The scan: its step and last budget (0: none), and its probes. */
	uint64_t scan_step, scan_to;
	size_t n_scan;
	struct fit_probe *probes; /* in budget order */
	size_t n_probes;
	size_t n_known;         /* probes answered without a replay (fit_probe.known) */
	size_t n_grid;
	double wall_ms;
};

/** Most grid points (and scan probes) a search may take (more are refused). */
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

/** The largest op's distinct input storages + its outputs: below it every
 * replay fails (an op runs with its inputs and outputs resident). */
uint64_t fit_lower_bound(const struct schedule *s);

/**
 * L, where the search starts: a budget below which no replay of s under
 * c's runtime passes, the larger of fit_lower_bound and the bytes the log
 * keeps pinned at its end (schedule_floor; on V1 its final pins alone).
 * When L passes, the search stops at it.
 */
uint64_t fit_floor(const struct schedule *s, const struct fit_config *c);

struct experiment; /* experiment.h */

/**
 * `rematsim sweep --fit X`: the search for each model and series of a
 * loaded experiment (its overhead limit; a random heuristic with its first
 * trial's seed), at resolution X, as the text of fit.tsv (gives *text):
 * one header line, then one row per model and series in the experiment's
 * order; the same bytes at any thread count. A model whose baseline memory
 * makes X finer than one byte is searched at one byte (its `resolution`
 * column says so); a model of baseline memory 0 has nothing to search, and
 * a pair whose search fails (a grid past FIT_MAX_GRID, a log its
 * heuristic cannot replay) is left out with a note on stderr: one model
 * does not stop the others. Returns 0, or -1 with err (the first pair left
 * out: the text holds the others).
 */
int fit_experiment_tsv(const struct experiment *e, double resolution, unsigned jobs,
		       char **text, size_t *len, struct rs_error *err);

#endif
