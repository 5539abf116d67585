/*
 * measured.h: measured runs of the DTR prototype against replays of their
 * logs (`rematsim measured`, docs/validation.md).
 *
 * A measured file is the DTR artifact's `data-full.json` or
 * `large-input-table-data.json` (../shared/dtr-measured/README.md): an
 * object whose list-valued members are models, each a list of runs
 * ({specific_params, summary}). measured_read checks its shape and gives
 * one struct measured_run per run, budgets resolved; measured_match pairs
 * each run with a log of an archive's manifest through the one table of
 * models (measured_models); measured_replay replays the matched runs under
 * heuristics (fixed and ratio runs: the remat overhead at the budget;
 * param_sweep runs, the paper's Table 1: the smallest passing budget and
 * whether the replay passes at the run's).
 *
 * Invariant: a run's `line` is the line of the file where it starts, and
 * every error names the file, a line and the run's path in the file.
 */
#ifndef REMATSIM_MEASURED_H
#define REMATSIM_MEASURED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heuristics.h"
#include "runtime.h"
#include "util.h"

/*
 * A model of the measured files and the log recorded from the same
 * configuration, or why there is none. The table is measured.c's
 * `models[]`; the first row of a key also gives its figure style.
 */
struct measured_model {
	const char *key;   /* as the measured file names it: "tv_densenet121" */
	unsigned batch;    /* the batch size of the logged run (0: no log) */
	const char *extra; /* extra_params the logged run had, "k=v,k=v"; a run
			    * giving one of these keys must agree; NULL: none */
	const char *log;   /* its model name in the archive's manifest; NULL: no log */
	const char *title; /* for figures */
	const char *color; /* "#rrggbb" */
	int marker;        /* gnuplot point type */
	const char *why;   /* no log: why not (a sentence) */
};
/** The table, in a stable order; *n set to its length. */
const struct measured_model *measured_models(size_t *n);
/** The first row of key, or NULL. */
const struct measured_model *measured_model_find(const char *key);

enum measured_kind {
	MEASURED_BASELINE,  /* type baseline: unmodified PyTorch */
	MEASURED_FIXED,     /* dtr, kind fixed: memory_budget bytes */
	MEASURED_RATIO,     /* dtr, kind ratio: ratio of the baseline's total_mem */
	MEASURED_SWEEP,     /* dtr, kind param_sweep: Table 1's largest inputs */
};
/** "baseline", "fixed", "ratio", "param_sweep". */
const char *measured_kind_name(enum measured_kind k);

struct measured_run {
	char *model;        /* the file's key */
	size_t index;       /* its place in the model's list */
	long line;          /* where it starts in the file */
	enum measured_kind kind;
	unsigned batch;
	char *extra;        /* extra_params as "k=v,..." in file order ("" none) */
	double ratio;       /* MEASURED_RATIO */
	uint64_t budget;    /* bytes (a ratio run's resolved from its baseline) */
	bool use_sampling;  /* the prototype's flags (default true, as its own) */
	bool ignore_small;
	bool error;         /* its summary is "error": the run failed */
	/* Medians of its summary; NAN where not recorded (-1e-06, or absent):
	 * remat and base compute in ms, total_mem in bytes (the file's MB). */
	double remat_ms, base_ms, total_mem;
	/* measured_match: the log's row and what schedule_read takes, or why
	 * the run has no log (NULL and a sentence). */
	const struct measured_model *mm;
	char *spec;
	char *why;
};

struct measured_file {
	char *path;
	struct measured_run *runs; /* in file order */
	size_t n_runs;
};

/**
 * Read and check a measured file: 0, or -1 with err (EXIT_NOINPUT: cannot
 * read; EXIT_DATAERR: not JSON, another shape, a budget of 0, a ratio run
 * whose baseline failed or is missing, ...: FILE:LINE: and the run's path).
 */
int measured_read(const char *path, struct measured_file *f, struct rs_error *err);
void measured_file_free(struct measured_file *f);

struct manifest; /* source.h */

/*
 * A mapping file (`rematsim measured --mapping FILE`, docs/validation.md):
 * rows KEY<TAB>BATCH<TAB>LOG[<TAB>EXTRA], `#` lines and blank lines
 * ignored. KEY is the measured file's model name, BATCH the runs' batch
 * size, LOG a model of the manifest m (its name, or its log member as the
 * manifest writes it), EXTRA extra_params "k=v,k=v" the log's run had.
 * The file's rows replace the compiled table's rows of the keys it names;
 * the other keys keep theirs.
 */
struct measured_table;
/**
 * Read a mapping file against the manifest m: 0 and *out, or -1 with err
 * (EXIT_NOINPUT: cannot read; EXIT_DATAERR: FILE:LINE: a row of another
 * shape, a batch that is not one, a LOG not in m, a row twice, no rows).
 */
int measured_table_read(const char *path, const struct manifest *m, struct measured_table **out,
			struct rs_error *err);
void measured_table_free(struct measured_table *t);

/** Pair each run other than the baselines with a log of m through the
 * table t (NULL: the compiled one), or say why not. Linear in the runs and
 * rows but for a log factor. */
void measured_match(struct measured_file *f, const struct manifest *m, const struct measured_table *t);

/* One matched run under one heuristic. */
struct measured_point {
	size_t run;                  /* index in the file's runs */
	const struct heuristic *h;
	unsigned trials, passed;     /* seeds replayed, and how many passed */
	enum outcome outcome;        /* pass if all passed, else the first failure's */
	double remat_pct;            /* median over trials: remat / baseline compute, % */
	double min_pct, max_pct;     /* their spread */
	double peak;                 /* median peak memory, bytes */
	uint64_t baseline_memory;
	/* MEASURED_SWEEP: the smallest passing budget found (fit.h), 0 none */
	uint64_t fit_budget;
	struct proto_rules rules;    /* DTRPrototype's rules for this run */
};

struct measured_options {
	const struct heuristic *const *heuristics;
	size_t n_heuristics;
	uint64_t seed;          /* the first seed of the random heuristics */
	unsigned trials;        /* seeds seed.. seed+trials-1 of a random heuristic */
	/* DTRPrototype's rules: each run's use_sampling and
	 * ignore_small_tensors, the other rules on, except those named in
	 * rules_named (PROTO_* bits), which come from *rules */
	const struct proto_rules *rules;
	unsigned rules_named;
	double overhead_limit;  /* as in point_config */
	double fit_resolution;  /* param_sweep runs' fit (fit.h) */
	unsigned jobs;          /* threads (0: all processors) */
};

/**
 * Replay the matched runs of f (not the baselines) under each heuristic:
 * logs read once each, without their final pins (the prototype's timer
 * stops when the iteration returns; docs/validation.md). Gives *pts in
 * (run, heuristic) order; 0, or -1 with err (a log that cannot be read).
 */
int measured_replay(const struct measured_file *f, const struct measured_options *o,
		    struct measured_point **pts, size_t *n_pts, struct rs_error *err);

/* measured.tsv, what `rematsim measured --out DIR` writes and `rematsim
 * plot DIR` reads (plot-measured.c): `#` lines, the column line, then one
 * row per matched fixed or ratio run and heuristic. */
#define MEASURED_COLUMNS \
	"model\tlog\tbatch\tkind\tbudget\theuristic\ttrials\tpassed\tmeasured_outcome\t" \
	"outcome\tmeasured_remat_pct\tsimulated_remat_pct\tsimulated_min_pct\t" \
	"simulated_max_pct\tdiff_pp\tmeasured_peak\tsimulated_peak\tuse_sampling\t" \
	"ignore_small_tensors\tline"
enum measured_col {
	MC2_MODEL, MC2_LOG, MC2_BATCH, MC2_KIND, MC2_BUDGET, MC2_HEURISTIC, MC2_TRIALS,
	MC2_PASSED, MC2_MEASURED_OUTCOME, MC2_OUTCOME, MC2_MEASURED_PCT, MC2_SIMULATED_PCT,
	MC2_MIN_PCT, MC2_MAX_PCT, MC2_DIFF, MC2_MEASURED_PEAK, MC2_SIMULATED_PEAK,
	MC2_USE_SAMPLING, MC2_IGNORE_SMALL, MC2_LINE,
	MC2_COUNT
};

#endif
