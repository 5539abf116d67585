/*
 * sweep.h: running an experiment's points on a thread pool into an output
 * folder, resuming what a previous run left there, and merging shards.
 *
 * Invariant: the rows written never depend on --jobs, on --shard or on
 * being resumed: each row is a function of its point alone (wall_ms aside),
 * and rows are written in canonical point order.
 */
#ifndef REMATSIM_SWEEP_H
#define REMATSIM_SWEEP_H

#include <stdbool.h>

#include "experiment.h"
#include "util.h"

struct pcache; /* cache.h */

struct sweep_options {
	const char *out_dir;      /* where the files go */
	unsigned jobs;            /* worker threads (>= 1) */
	unsigned shard, n_shards; /* run points i with i % n_shards == shard - 1 (1-based shard) */
	bool quiet;               /* no progress lines */
	const char *command_line; /* recorded in the header */
	long stop_after;          /* testing: _exit(75) after this many new rows (0: never) */
	struct pcache *cache;     /* replays kept across sweeps (cache.h), or NULL; borrowed */
};

/**
 * Check that opt->out_dir can be created and written (before logs load).
 * Returns 0 or -1 with err (EXIT_CANTCREAT).
 */
int sweep_check_output(const char *out_dir, struct rs_error *err);

/**
 * Run the points of e (loaded) that are in this shard and not already in
 * out_dir with the same config hash; write points.tsv, models.tsv and
 * frontier.tsv. Returns 0, or -1 with err filled.
 */
int sweep_run(const struct experiment *e, const struct sweep_options *opt,
	      struct rs_error *err);

/** The number of points of shard (1-based) of n_shards. */
size_t sweep_shard_points(size_t total, unsigned shard, unsigned n_shards);

/**
 * Combine the output folders of shards (or partial runs) of one experiment
 * into out_dir: rows identical to an unsharded run's. All must have the
 * same config hash, and together hold every point (else EXIT_DATAERR).
 */
int sweep_merge(const char *const *dirs, size_t n_dirs, const char *out_dir,
		const char *command_line, struct rs_error *err);

#endif
