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

/*
 * The graph behind the profile, for the planners that schedule every op
 * (ilp, ilp-lp, revolve): the log's non-constant ops as nodes, in log
 * order (a topological order: an op reads only what earlier ops made),
 * each with its output bytes, cost and inputs. Constants are not nodes:
 * they are pinned for good from their creation, so they are memory that
 * only grows (static_bytes) and inputs that are always there.
 *
 * A node is one of three kinds. OWN: its outputs own their storages
 * (bytes: the op's total output size); they come and go together. VIEW:
 * every output is a view into one storage made by an earlier node (base):
 * no bytes of its own; it is defined while that storage stays material
 * after the view was computed. FIXED: a view into a constant's storage:
 * computed once and there for good, like a constant. An op with outputs
 * of two kinds, or views into two storages, makes the graph unsupported
 * (unsupported_op): the planners that need the graph refuse such logs.
 */
enum pgraph_kind { PGRAPH_OWN, PGRAPH_VIEW, PGRAPH_FIXED };

struct profile_graph {
	size_t n;                 /* nodes */
	uint32_t *op;             /* [n]: the schedule's op id, ascending */
	uint8_t *kind;            /* [n]: enum pgraph_kind */
	uint32_t *base;           /* [n]: VIEW: the node owning its storage; else itself */
	uint64_t *bytes;          /* [n]: OWN: the op's total output size; else 0 */
	int64_t *cost;            /* [n]: the op's cost (ns) */
	uint32_t *pred, *pred_off;/* CSR: the distinct nodes it reads, ascending (no FIXED) */
	uint32_t *succ, *succ_off;/* CSR: the reverse, ascending */
	size_t n_edges;
	uint64_t *static_bytes;   /* [n + 1]: constant bytes made before node t's
				   * command; [n]: all of them */
	uint8_t *keep;            /* [n]: an output is pinned at the end (must be
				   * material when the log ends) */
	uint32_t unsupported_op;  /* UINT32_MAX, or the first op the graph cannot take */
	const char *unsupported_why;
};

struct profile {
	size_t n;        /* forward ops */
	uint32_t *op;    /* [n]: the schedule's op id of f_i */
	uint64_t *bytes; /* [n]: the activation of f_i */
	uint64_t total;  /* their sum */
	/* The log the profile is of (NULL: a bare list of sizes), and its
	 * graph once profile_graph_build made it (NULL before). */
	const struct schedule *s;
	struct profile_graph *graph;
};

/**
 * The profile of s. Fills *p (free with profile_free) and returns 0, or -1
 * with err (EXIT_DATAERR: the log has no forward ops). Borrows s, which
 * must outlive p.
 */
int profile_build(const struct schedule *s, struct profile *p, struct rs_error *err);
/** A profile of a bare list of n sizes (no log, no graph); copies a. */
void profile_from_sizes(const uint64_t *a, size_t n, struct profile *p);
/**
 * Make p->graph from p->s if not made yet (0), or -1 with err
 * (EXIT_USAGE: a profile of bare sizes has no graph).
 */
int profile_graph_build(struct profile *p, struct rs_error *err);

/**
 * Node t's single-op need: the constants made before it, its own output
 * and the distinct storages it reads (their owners' bytes, each once).
 * stamp: g->n + 1 entries, each UINT32_MAX or a smaller node's index
 * (the marks of earlier calls, in ascending t, may stay).
 */
uint64_t profile_graph_op_need(const struct profile_graph *g, size_t t, uint32_t *stamp);
void profile_free(struct profile *p);

#endif
