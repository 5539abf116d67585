/*
 * revolve.h: Griewank and Walther's binomial checkpointing ("revolve",
 * ACM TOMS 2000) for uniform chains: reversing n steps x_0 -> x_1 -> ...
 * -> x_n with s snapshots (the one holding x_0 included) takes the fewest
 * forward steps possible, p(n, s) = t n - C(s + t, s + 1), t the smallest
 * integer with n <= C(s + t, s). The schedule splits the chain at a point
 * m where p(n, s) = m + p(n - m, s - 1) + p(m, s) (written here from that
 * identity, not from the original code).
 *
 * On a log shaped like `rematsim gen linear` (forward ops f_0 .. f_{n-1},
 * f_j reading f_{j-1}; the r-th backward op reverses step n - r and reads
 * at most x_{n-r-1}, the output of f_{n-r-2}), the snapshots become what
 * stays in memory between stages (steps.h), and the replay recomputes
 * p(n, s) - (n - 1) forward ops: every forward step but the first sweep's.
 */
#ifndef REMATSIM_REVOLVE_H
#define REMATSIM_REVOLVE_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"
#include "steps.h"
#include "util.h"

/** p(n, s): t n - C(s + t, s + 1) (n >= 1, s >= 1; UINT64_MAX past 64 bits). */
uint64_t revolve_closed_form(uint64_t n, uint64_t s);

enum revolve_kind {
	REVOLVE_ADVANCE,  /* from -> to: forward steps from x_from to x_to */
	REVOLVE_TAKESHOT, /* to: a snapshot of x_to */
	REVOLVE_RESTORE,  /* to: back to the snapshot of x_to */
	REVOLVE_TURN,     /* to: step `to` reversed (reads x_{to-1}) */
};
struct revolve_action {
	enum revolve_kind kind;
	uint64_t from, to;
};

/**
 * Run the schedule for n steps and s snapshots, calling emit (borrows ctx)
 * for each action in order; returns the forward steps taken (the
 * ADVANCEs' lengths), which is revolve_closed_form(n, s). No recursion:
 * an explicit stack of at most s + 1 frames.
 */
uint64_t revolve_run(uint64_t n, uint64_t s, void (*emit)(void *ctx, const struct revolve_action *a),
		     void *ctx);

/**
 * The plan for p's log (profile_graph_build made its graph) with s
 * snapshots: what stays in memory between stages, into *k
 * (steps_kept_free), and the forward steps into *fwd_steps. -1 with err:
 * EXIT_DATAERR naming the op where the log is not such a chain, EXIT_USAGE
 * for s = 0.
 */
int revolve_plan(const struct profile *p, uint64_t s, struct steps_kept *k, uint64_t *fwd_steps,
		 struct rs_error *err);

#endif
