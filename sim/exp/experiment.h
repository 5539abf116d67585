/*
 * experiment.h: an experiment as its YAML file describes it (models, the
 * series of heuristic/runtime pairs, ratios, limits, seed), the logs it
 * reads, and the canonical list of its points.
 *
 * Invariants:
 *  - points are numbered in one canonical order: models (as listed), then
 *    series (heuristics first, then `series` entries), then trials, then
 *    ratios (as listed); after all of them the planner points: models,
 *    then planners (as listed), then their parameters (as listed), so
 *    that adding planners leaves every heuristic point's number as it
 *    was; then, with `heuristics_at_plan_peaks`, the heuristic points at
 *    each plan's replayed peak: models, series, trials, then the planner
 *    points' order. Every output sorts rows by this number, so results
 *    never depend on thread timing, --jobs or --shard.
 *  - after experiment_load, each model's schedule is only read (shared by
 *    all worker threads).
 */
#ifndef REMATSIM_EXPERIMENT_H
#define REMATSIM_EXPERIMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc.h"
#include "hash.h"
#include "results.h"
#include "formula.h"
#include "gen.h"
#include "runtime.h"
#include "schedule.h"
#include "util.h"

struct exp_model {
	char *name;
	char *title;
	char *desc;
	char *spec;        /* what schedule_read takes, resolved; for a
			      generated model its description ("gen:linear n=8 ...") */
	bool has_start;
	struct gen_params *gen; /* a generated model (`gen:` entry), or NULL */
	/* Filled by experiment_load: */
	struct schedule *sched;
	struct baseline base;
};

struct exp_series {
	char *name;        /* the heuristic's name for `heuristics` entries */
	const struct heuristic *heuristic;
	enum runtime_kind runtime;
	bool no_dealloc;
	unsigned trials;   /* 1 for deterministic heuristics */
	bool offload;      /* a host link (off: its parameters, docs/offload.md) */
	struct offload_config off;
};

struct planner; /* planners.h */

/* A planner and its parameters (`planners:`), after every heuristic series. */
struct exp_plan {
	const struct planner *planner;
	uint64_t *params;  /* n_params values; one 0 for a planner without one */
	size_t n_params;
	double time_limit; /* ilp, ilp-lp: `time_limit` seconds; 0: none */
	uint64_t max_ops;  /* ilp, ilp-lp: `max_ops`, models with more ops are
			      not solved (solver_status too_large); 0: none */
	/* ilp, ilp-lp given `ratio:`: n_params ratios of each model's baseline
	 * memory, the budgets (params then 0); else NULL */
	double *ratios;
};

struct experiment {
	char *file;        /* the YAML file, as named */
	char *name;
	struct exp_model *models;
	size_t n_models;
	struct exp_series *series;
	size_t n_series;
	struct exp_plan *plans; /* static checkpoint planners (planners.h) */
	size_t n_plans;
	double *ratios;    /* n_steps ratios, or ... */
	uint64_t *budgets; /* ... n_steps absolute budgets (bytes), ... */
	struct formula **formulas; /* ... where formulas[i] is not NULL, a
				      formula of n (set with budgets) */
	uint64_t *model_budgets; /* [model * n_steps + step]: each model's
				    budgets, formulas evaluated (experiment_load) */
	size_t n_steps;
	bool gen_columns;  /* points.tsv has the n and budget_formula columns:
			      an experiment with generated models or formulas */
	bool offload_columns; /* points.tsv has the offload columns: a series
				 with a host link (results.h) */
	bool ilp_columns;  /* points.tsv has the solver columns (POINTS_ILP_COLUMNS):
			      an experiment with an ILP planner */
	bool alloc_columns; /* `allocator:` (docs/allocator.md): every heuristic
			       point also runs through the allocator model, and
			       points.tsv has POINTS_ALLOC_COLUMNS */
	char *alloc_text;   /* the `allocator:` text as given (pytorch[:CONF]) */
	struct alloc_config alloc;
	uint64_t device_memory; /* `device_memory:`; UINT64_MAX: unbounded */
	double overhead_limit;
	bool at_plan_peaks; /* `heuristics_at_plan_peaks`: every series also at
			       each plan's replayed peak (its budget) */
	double yrange[2];  /* the figures' y range; NAN when not given */
	char *gap;         /* gap.tsv's optimum (`gap:` key: a planner, or "best"); NULL: no gap.tsv */
	uint64_t seed;
	char hash[17];     /* hex config hash; set by experiment_load */
};

/** One point: indices into the experiment's arrays. A planner point has
 *  plan < n_plans (series EXP_NONE, step the index of its parameter,
 *  trial and seed 0); a heuristic point has plan EXP_NONE, and at_peak
 *  EXP_NONE, or (`heuristics_at_plan_peaks`) the planner point, within
 *  its model (experiment_plan_point), whose replayed peak is its budget
 *  (step EXP_NONE). */
#define EXP_NONE UINT32_MAX
struct exp_point {
	uint32_t model, series, trial, step;
	uint64_t seed;
	uint32_t plan;
	uint32_t at_peak;
};

/** Planner points per model; k-th of them (0-based, in the canonical
 *  order) as its plan and parameter index. */
size_t experiment_plan_points(const struct experiment *e);
void experiment_plan_point(const struct experiment *e, size_t k, uint32_t *plan, uint32_t *step);
/** The first point at a plan's peak (experiment_n_points when none). */
size_t experiment_first_peak_point(const struct experiment *e);

struct plan_result;
struct planner_plan;
/**
 * Replay model's plan `plan` with parameter index `step` (the tracker's
 * exact DP where its table fits; an ILP's ratio as floor(baseline x
 * ratio) bytes, with the plan's time limit), as the sweep's planner
 * points and the budgets of the points at plan peaks do. 0 with *plan
 * (free with planner_plan_free) and *out, or -1 with err.
 */
int experiment_plan_replay(const struct experiment *e, size_t model, uint32_t plan, uint32_t step,
			   struct planner_plan *pp, struct plan_result *out, struct rs_error *err);

/** The parameter model's plan `plan` runs with at `step`: a ratio's budget
 *  as floor(baseline memory x ratio), else the listed value. */
uint64_t experiment_plan_param(const struct experiment *e, size_t model, uint32_t plan,
			       uint32_t step);

/**
 * Read and check an experiment file. Gives *out (free with
 * experiment_free) and returns 0, or -1 with err filled:
 * EXIT_NOINPUT when the file cannot be read, EXIT_DATAERR with
 * file, line and column for bad YAML, unknown or duplicate keys, wrongly
 * typed values, unknown heuristics or runtimes.
 */
int experiment_read(const char *path, struct experiment **out, struct rs_error *err);

/** Same, from YAML text in memory; `name` (borrowed) is used in messages. */
int experiment_parse(const char *name, const char *text, size_t len,
		     struct experiment **out, struct rs_error *err);

/**
 * Read every model's log (on `jobs` threads), run its baseline and compute
 * the config hash. Returns -1 with err filled by the first model (in order)
 * whose log fails to read.
 */
int experiment_load(struct experiment *e, unsigned jobs, struct rs_error *err);

/**
 * Replace the file's models before experiment_load (sweep --manifest,
 * --models): those of a manifest (a manifest.json, or an ARCHIVE.zip
 * holding one), or else logs, a comma list of LOGs, each a model named by
 * its file (without .log...) or archive member. 0, or -1 with err
 * (EXIT_NOINPUT, EXIT_DATAERR, EXIT_USAGE).
 */
int experiment_set_models(struct experiment *e, const char *manifest, const char *logs,
			  struct rs_error *err);

void experiment_free(struct experiment *e);

/* EXPERIMENT_MAX_POINTS, the most points an experiment may have: results.h */
/** The most ratios (or budgets), and series, an experiment may list. */
#define EXPERIMENT_MAX_STEPS 100000u
#define EXPERIMENT_MAX_SERIES 1024u
/** The deepest nesting of sequences and mappings an experiment file may have. */
#define EXPERIMENT_MAX_DEPTH 64
/**
 * The budget in bytes of a model's step: the configured budget, or the
 * formula's value at the model's n; 0 for ratio experiments.
 */
uint64_t experiment_budget(const struct experiment *e, size_t model, size_t step);

/** A model's n for budget formulas: its forward (non-constant) op count. */
uint64_t experiment_model_n(const struct experiment *e, size_t model);

/** The step as the YAML gave it (ratio, budget or formula text) into buf. */
void experiment_step_text(const struct experiment *e, size_t step, char *buf, size_t size);

/** The number of points (all shards). */
size_t experiment_n_points(const struct experiment *e);

/** Point number i of the canonical order (see the invariants above). */
void experiment_point(const struct experiment *e, size_t i, struct exp_point *p);

/**
 * The seed of a trial:
 *   splitmix64(experiment seed XOR fnv1a64("MODEL" 0x1f "HEURISTIC" 0x1f "TRIAL"))
 * with TRIAL in decimal (0-based) and HEURISTIC the heuristic's name.
 */
uint64_t experiment_trial_seed(uint64_t seed, const char *model,
			       const char *heuristic, unsigned trial);


#endif
