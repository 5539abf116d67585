/*
 * results.h: the files a sweep leaves in its output folder, and reading
 * them back (resume, merge, plot).
 *
 *   points.tsv    `#` header lines (key: value), the column line, one row
 *                 per point in canonical point order (experiment.h)
 *   models.tsv    one row per model: baseline, constant, bottleneck and floor memory
 *   frontier.tsv  prefix-minimum overhead per (model, series, trial)
 *
 * Invariant: every file is written whole to a temporary name in the same
 * folder and renamed over the old one, so a kill never leaves half a file;
 * only the journal (points.journal) grows line by line, and a torn last
 * line in it is ignored when read back.
 */
#ifndef REMATSIM_RESULTS_H
#define REMATSIM_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "outfile.h" /* write_file_atomic, which results are written through */
#include "util.h"

/** The most points an experiment (and a points file's `# points:` header) may have. */
/* (results.c checks the header against it without the experiment layer) */
#define EXPERIMENT_MAX_POINTS (1u << 24)

/*
 * The column line of points.tsv (tab-separated): the columns the experiment
 * spec names, in its order, then two of our own: `series` (the curve a row
 * belongs to: the heuristic's name, or a series name such as banishing's
 * "no deallocations") and `point` (its index in canonical order, which
 * resume and merge key on).
 */
#define POINTS_COLUMNS \
	"model\theuristic\truntime\ttrial\tseed\tratio\tbudget\t" \
	"outcome\toverhead\tpeak_memory\tmodel_compute\tremat_compute\t" \
	"evictions\tremats\theuristic_evals\theuristic_accesses\twall_ms\t" \
	"series\tpoint"
enum points_col {
	PC_MODEL, PC_HEURISTIC, PC_RUNTIME, PC_TRIAL, PC_SEED,
	PC_RATIO, PC_BUDGET, PC_OUTCOME, PC_OVERHEAD, PC_PEAK_MEMORY,
	PC_MODEL_COMPUTE, PC_REMAT_COMPUTE, PC_EVICTIONS, PC_REMATS,
	PC_HEURISTIC_EVALS, PC_HEURISTIC_ACCESSES, PC_WALL_MS, PC_SERIES, PC_POINT,
	PC_COUNT
};

/*
 * Experiments with generated models or budget formulas (docs/gen.md) add
 * two columns after `point`: the model's `n` (its forward op count, the
 * chain length of `gen: linear`) and `budget_formula` (the step as the
 * YAML gave it). Readers that split on tabs see the usual columns first.
 */
#define POINTS_GEN_COLUMNS "\tn\tbudget_formula"
#define PC_GEN_COUNT 2

/*
 * Experiments with an ILP planner (ilp, ilp-lp) add three columns last
 * (after the gen and offload ones, where there are some): what the solver found for an ILP row, `-` on every other row.
 * `solver_status`: optimal (proven), feasible (a schedule, stopped at the
 * time limit), rounded (ilp-lp's rounding), infeasible (no schedule fits:
 * the row is oom), unsolved (nothing found within the time limit, nothing
 * proven: the row is oom, its other numbers 0); `lower_bound`: the
 * solver's lower bound on the overhead any schedule (of the ILP's kind)
 * reaches at the budget, `-` when it has none; `solve_s`: the solve's wall
 * seconds. The columns sit at points_ilp_col(t).
 */
#define POINTS_ILP_COLUMNS "\tsolver_status\tlower_bound\tsolve_s"
#define PC_ILP_COUNT 3
enum points_ilp_col { PIC_STATUS, PIC_LOWER_BOUND, PIC_SOLVE_S };
enum points_gen_col { PC_N = PC_COUNT, PC_BUDGET_FORMULA };

/*
 * Experiments with a series that offloads (docs/offload.md) add these after
 * those (and after the gen columns where there are some): the series' host
 * link (`offload` its policy, or none for a series without one, then its
 * bandwidth in bytes/s or none, latency, host memory (0: unbounded) and
 * prefetch) and what went over it: storages and bytes sent to the host,
 * brought back, the ops' stall, each channel's busy time, the host's peak.
 * Other experiments' files keep their columns byte for byte.
 */
#define POINTS_OFFLOAD_COLUMNS \
	"\toffload\toffload_bandwidth\toffload_latency_ns\thost_memory\toffload_prefetch" \
	"\toffloads\tbytes_offloaded\tfetches\tbytes_fetched\tstall_ns\td2h_busy_ns" \
	"\th2d_busy_ns\tpeak_host_memory"
#define PC_OFFLOAD_COUNT 13
/* Offsets from the first offload column (PC_COUNT, + PC_GEN_COUNT with gen columns). */
enum points_offload_col {
	PO_OFFLOAD, PO_BANDWIDTH, PO_LATENCY_NS, PO_HOST_MEMORY, PO_PREFETCH, PO_OFFLOADS,
	PO_BYTES_OFFLOADED, PO_FETCHES, PO_BYTES_FETCHED, PO_STALL_NS, PO_D2H_BUSY_NS,
	PO_H2D_BUSY_NS, PO_PEAK_HOST_MEMORY
};

/*
 * Experiments with `allocator:` (docs/allocator.md) add these after the
 * offload columns (before the ILP ones): what the allocator model saw
 * under the row's replay (devmem.h): the reserved peak, the allocated
 * (rounded) peak, reserved minus allocated at the reserved peak, the most
 * segments held, the device allocations (cudaMalloc) made, and
 * `device_oom`, yes where the allocator could not reserve within
 * `device_memory` (the replay stops there: outcome oom), else no. A
 * planner's row has `-` in each (plans do not replay through the model).
 */
#define POINTS_ALLOC_COLUMNS \
	"\treserved_peak\tdevice_allocated_peak\tfragmentation\tsegments_peak\tdevice_allocs" \
	"\tdevice_oom"
#define PC_ALLOC_COUNT 6
/* Offsets from the first allocator column (points_alloc_col). */
enum points_alloc_col {
	PA_RESERVED_PEAK, PA_ALLOCATED_PEAK, PA_FRAGMENTATION, PA_SEGMENTS_PEAK, PA_DEVICE_ALLOCS,
	PA_DEVICE_OOM
};

/*
 * The last column of every points file written since issue 44:
 * `stopped_clock`, the simulated clock where a run that did not pass
 * stopped (an ILP row that ran nothing: `-`), `-` on a passing row. Such
 * a row's `overhead` is `-`: a failed run has no overhead (the clock where
 * it stopped over the baseline compute is no cost of anything). Its
 * outcome is oom, thrash, or for an ILP row without a schedule unsolved
 * (nothing found within the time limit) or untried (the model has more
 * ops than max_ops); a proven infeasible budget stays oom. Files written
 * before lack the column and carry a number in a failed row's overhead:
 * points_read brings their rows to this form (the stopped clock is 1 +
 * model_compute + remat_compute (+ stall_ns), the clock's own sum).
 */
#define POINTS_STOP_COLUMNS "\tstopped_clock"
#define PC_STOP_COUNT 1

/* floor_memory: the bytes a replay holds pinned at the end (constants and
 * the outputs still held: schedule_floor, runtimes but V1), below which no
 * budget passes; floor_ratio its share of the baseline. Folders written
 * before these two columns have MC_COUNT_NO_FLOOR columns. */
#define MODELS_COLUMNS \
	"model\ttitle\tdesc\tlog\tsha256\tops\ttensors\tbaseline_memory\t" \
	"baseline_compute\tconst_memory\tbottleneck_memory\tconst_ratio\t" \
	"bottleneck_ratio\tfloor_memory\tfloor_ratio"
enum models_col {
	MC_MODEL, MC_TITLE, MC_DESC, MC_LOG, MC_SHA256, MC_OPS, MC_TENSORS,
	MC_BASELINE_MEMORY, MC_BASELINE_COMPUTE, MC_CONST_MEMORY,
	MC_BOTTLENECK_MEMORY, MC_CONST_RATIO, MC_BOTTLENECK_RATIO,
	MC_COUNT_NO_FLOOR, MC_FLOOR_MEMORY = MC_COUNT_NO_FLOOR, MC_FLOOR_RATIO, MC_COUNT
};

#define FRONTIER_COLUMNS \
	"model\tseries\theuristic\truntime\ttrial\tratio\toverhead\tfrom_ratio"

/** A points file read back: its header and its rows by point number. */
struct points_table {
	char **keys;       /* header keys ("config_hash", "log", ...), in order */
	char **values;
	size_t n_header, cap_header;
	size_t total;      /* the `points` header: points in the experiment */
	char **rows;       /* [total]: the row line (no newline), or NULL */
	size_t n_rows;     /* rows present */
	bool gen_columns;  /* rows end with POINTS_GEN_COLUMNS' fields */
	bool offload_columns; /* then with POINTS_OFFLOAD_COLUMNS' fields */
	bool alloc_columns; /* then POINTS_ALLOC_COLUMNS' */
	bool ilp_columns;  /* ... then POINTS_ILP_COLUMNS' */
	bool stop_column;  /* ... then POINTS_STOP_COLUMNS (always, once read) */
};

/** The first allocator column of t's rows (after the gen and offload ones). */
static inline size_t points_alloc_col(const struct points_table *t)
{
	return PC_COUNT + (t->gen_columns ? PC_GEN_COUNT : 0) +
	       (t->offload_columns ? PC_OFFLOAD_COUNT : 0);
}
/** The first ILP column of t's rows (after the gen, offload and allocator ones). */
static inline size_t points_ilp_col(const struct points_table *t)
{
	return points_alloc_col(t) + (t->alloc_columns ? PC_ALLOC_COUNT : 0);
}
/** All the columns of t's rows. */
static inline size_t points_columns(const struct points_table *t)
{
	return points_ilp_col(t) + (t->ilp_columns ? PC_ILP_COUNT : 0) +
	       (t->stop_column ? PC_STOP_COUNT : 0);
}
/** The most columns a points row has. */
#define PC_MAX_COLUMNS \
	(PC_COUNT + PC_GEN_COUNT + PC_OFFLOAD_COUNT + PC_ALLOC_COUNT + PC_ILP_COUNT + PC_STOP_COUNT)

/** The value of the first header `key`, or NULL. */
const char *points_header(const struct points_table *t, const char *key);
void points_header_add(struct points_table *t, const char *key, const char *value);
/** Replace the first header `key` (or add it). */
void points_header_set(struct points_table *t, const char *key, const char *value);

/**
 * Read a points file or journal into *t (zeroed first). A missing file is
 * not an error when missing_ok (t stays empty, returns 0). A torn last row
 * (no newline: the writer was killed) is skipped; when two rows have the
 * same point number the later one wins. Errors: EXIT_NOINPUT, EXIT_DATAERR
 * (no header, no or bad `points` header, a count above
 * EXPERIMENT_MAX_POINTS, or a complete row with the wrong number of
 * columns, a point number outside the count, or a number column that is
 * not one: all with the line).
 */
int points_read(const char *path, bool missing_ok, struct points_table *t,
		struct rs_error *err);
void points_table_free(struct points_table *t);
/** Give t a `total`-row empty table (after its header is filled). */
void points_table_size(struct points_table *t, size_t total);
/** Store a row (takes line) as point `point`. */
void points_table_put(struct points_table *t, size_t point, char *line);

/** Whether name can be an experiment's name: it names folders and files
 * (out/NAME, the figures), so non-empty, no '/', not "." or "..", no tab
 * or newline. */
bool results_experiment_name_ok(const char *name);
/**
 * What merge copies into a folder that plot then reads, checked: the
 * header of a points file (path, for messages) in the form sweeps write
 * it (an experiment name, an overhead limit >= 1 or inf, budgets, a y
 * range, `log` lines of a name, a SHA-256 and a path) ...
 */
int results_check_header(const struct points_table *t, const char *path, struct rs_error *err);
/**
 * ... and models.tsv's text (path, for messages): the column line, then
 * one row per `log` line of t's header, in its order, with its name and
 * SHA-256, every number a number. -1 with err (EXIT_DATAERR, the line).
 */
int results_check_models(const char *text, const struct points_table *t, const char *path,
			 struct rs_error *err);

/** Write header lines, column line and rows (in point order) to f. */
void points_write(FILE *f, const struct points_table *t);

/** Write frontier.tsv content for the rows of t to f. */
void frontier_write(FILE *f, const struct points_table *t);

/** Split a tab-separated line in place; returns the number of fields. */
size_t tsv_split(char *line, char **fields, size_t max);

/**
 * Undo rs_tsv_field's escapes in place (\t, \n, \r, \\, \xHH; any
 * other backslash stays): the text of a field of gap.tsv. Returns s.
 */
char *tsv_unescape(char *s);

/**
 * Remove the leftover temporary files (outfile.h) of the named outputs in
 * dir, as a killed writer leaves them. Call only while holding dir's sweep
 * lock. Returns how many were removed.
 */
int clean_stale_tmp(const char *dir, const char *const *bases, size_t n_bases);

/**
 * Take dir's sweep lock (dir/.lock, flock: released when the process
 * ends, even by a kill). *fd holds it; close(*fd) releases it. -1 with err
 * (EXIT_CANTCREAT) when another sweep holds it.
 */
int sweep_lock(const char *dir, int *fd, struct rs_error *err);

/**
 * Create base/rel's folders below base (which must exist; rel: names
 * joined by '/'), following no symbolic link below base: one there, or
 * anything else that is not a folder, is refused (-1 with err,
 * EXIT_CANTCREAT, naming it). For outputs inside a folder that someone
 * else may have made (plot's DIR/plot-data/NAME: issue 40, H4).
 */
int make_dirs_below(const char *base, const char *rel, struct rs_error *err);

#endif
