/*
 * experiment.h: an experiment as its YAML file describes it (models, the
 * series of heuristic/runtime pairs, ratios, limits, seed), the logs it
 * reads, and the canonical list of its points.
 *
 * Invariants:
 *  - points are numbered in one canonical order: models (as listed), then
 *    series (heuristics first, then `series` entries), then trials, then
 *    ratios (as listed). Every output sorts rows by this number, so results
 *    never depend on thread timing, --jobs or --shard.
 *  - after experiment_load, each model's schedule is only read (shared by
 *    all worker threads).
 */
#ifndef REMATSIM_EXPERIMENT_H
#define REMATSIM_EXPERIMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
};

struct experiment {
	char *file;        /* the YAML file, as named */
	char *name;
	struct exp_model *models;
	size_t n_models;
	struct exp_series *series;
	size_t n_series;
	double *ratios;    /* n_steps ratios, or ... */
	uint64_t *budgets; /* ... n_steps absolute budgets (bytes), ... */
	struct formula **formulas; /* ... where formulas[i] is not NULL, a
				      formula of n (set with budgets) */
	uint64_t *model_budgets; /* [model * n_steps + step]: each model's
				    budgets, formulas evaluated (experiment_load) */
	size_t n_steps;
	bool gen_columns;  /* points.tsv has the n and budget_formula columns:
			      an experiment with generated models or formulas */
	double overhead_limit;
	uint64_t seed;
	char hash[17];     /* hex config hash; set by experiment_load */
};

/** One point: indices into the experiment's arrays. */
struct exp_point {
	uint32_t model, series, trial, step;
	uint64_t seed;
};

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

void experiment_free(struct experiment *e);

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

/** 64-bit FNV-1a, continuing from h (start with FNV1A64_INIT). */
#define FNV1A64_INIT 0xcbf29ce484222325ull
uint64_t fnv1a64(uint64_t h, const void *data, size_t len);
uint64_t splitmix64(uint64_t x);

/** Write the shortest "%.*g" text that reads back as exactly x. */
void format_double(char *buf, size_t size, double x);

#endif
