/*
 * reference.h: the reference simulator's numbers (the JSON files of ../shared/reference:
 * simrd's baseline and its runs of each (heuristic, runtime) at ten ratios)
 * and the one rule for comparing a replay with them. `rematsim bench` and
 * the reference test both use it, so they check the same fields the same
 * way.
 *
 * The rule: same budget, outcome, remat compute and heuristic evaluations;
 * overhead within 1e-9 relative; metadata accesses exact, except for the
 * union-find (EqClass) heuristics, where simrd merges classes in the
 * iteration order of a Python set of objects (memory addresses): there
 * within 1%.
 */
#ifndef REMATSIM_REFERENCE_H
#define REMATSIM_REFERENCE_H

#include <stdbool.h>
#include <stdint.h>

#include "heuristics.h"
#include "runtime.h"
#include "util.h"

struct ref_point {
	double ratio;
	uint64_t budget;
	const char *outcome;   /* "pass", "oom", "thrash" */
	double overhead;
	int64_t remat_compute;
	uint64_t heuristic_evals;
	uint64_t heuristic_accesses;
};

struct ref_run {
	const char *heuristic_name;
	const char *runtime_name;
	const struct heuristic *heuristic; /* NULL if the name is unknown to us */
	enum runtime_kind runtime;         /* valid when runtime_known */
	bool runtime_known;
	double overhead_limit;
	double reference_seconds;          /* simrd's wall time, parsing included */
	size_t n_points;
	struct ref_point *points;
};

struct ref_file {
	const char *log;                   /* the log's file name, without .gz */
	struct baseline baseline;
	size_t n_runs;
	struct ref_run *runs;
	void *json;                        /* owns every string above */
};

/**
 * Read one reference file. Returns 0 with *out set (free with
 * reference_free), 1 when the file is JSON of another kind (no "runs",
 * e.g. reset_points.json), or -1 with err filled (EXIT_NOINPUT or
 * EXIT_DATAERR).
 */
int reference_read(const char *path, struct ref_file **out, struct rs_error *err);
void reference_free(struct ref_file *f);

/**
 * The reference files of dir (*.json, sorted by name): up to cap paths into
 * paths (each xmalloc'ed; the caller frees). Returns the count, or -1 when
 * dir cannot be opened.
 */
int reference_list(const char *dir, char **paths, int cap);

/** Whether b equals the file's baseline; the first difference into why. */
bool reference_baseline_matches(const struct ref_file *f, const struct baseline *b,
				char *why, size_t why_len);

/**
 * Compare one replayed point with the reference's. Returns true when it
 * matches by the rule above; else writes the first difference into why.
 * *accesses_differ is set when accesses differ within the EqClass tolerance
 * (a match, but worth reporting).
 */
bool reference_point_matches(const struct ref_run *run, const struct ref_point *p,
			     const struct point_result *pr, bool *accesses_differ,
			     char *why, size_t why_len);

#endif
