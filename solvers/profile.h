/*
 * profile.h: the activation profile of a log (SOLVERS.md section 2): for
 * each forward op f_i (non-constant, before the first backward op, in log
 * order), the bytes of the storages f_i made that a handle still holds when
 * the first backward op runs, in an unbounded replay. It is the log's
 * counterpart of the layer memory tracker's per-module activations; the
 * planners split it.
 *
 * Invariant: total == the sum of bytes[0..n-1], and every storage counts
 * once, for the op that made it (views make none).
 */
#ifndef REMATSIM_PROFILE_H
#define REMATSIM_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "schedule.h"
#include "util.h"

struct profile {
	size_t n;        /* forward ops */
	uint32_t *op;    /* [n]: the schedule's op id of f_i */
	uint64_t *bytes; /* [n]: the activation of f_i */
	uint64_t total;  /* their sum */
};

/**
 * The profile of s. Fills *p (free with profile_free) and returns 0, or -1
 * with err (EXIT_DATAERR: the log has no forward ops).
 */
int profile_build(const struct schedule *s, struct profile *p, struct rs_error *err);
void profile_free(struct profile *p);

#endif
