/*
 * plan.h: a static checkpoint plan replayed on the simulator (SOLVERS.md
 * section 3). A plan is a list of split points p_1 < ... < p_k into the
 * log's forward ops f_0 .. f_{n-1}; segments [0, p_1) ... [p_{k-1}, p_k)
 * are checkpointed, the last one [p_k, n) runs as usual.
 *
 * The replay runs the schedule on the V2Eager runtime with no bound and no
 * heuristic. A storage made by an op of a checkpointed segment is evicted
 * right after its last use by a forward op (or right after it is made, if
 * no forward op uses it), unless a forward op of a later segment uses it
 * (a checkpoint: kept). The backward pass rematerializes evicted storages
 * on demand, recursively, by the runtime's usual materialize step; a
 * storage so rematerialized that no handle holds (a temporary of the
 * segment) is evicted again right after the command that needed it, as a
 * framework's recomputation frees its temporaries.
 *
 * Invariant: with no split points nothing is evicted but what an
 * unbounded eager replay evicts, so the peak is the unbounded one and
 * there are no rematerializations.
 *
 * A plan may also be an explicit schedule (struct plan_steps, what the
 * ILP and revolve give): over the log's nodes (its non-constant ops, in
 * log order), stage t computes, before node t's own COMPUTE command, the
 * nodes it names for recomputation, in order, then node t itself; after
 * each computation it frees the nodes it names. A last stage, after the
 * last COMPUTE command and before the log's final pins, recomputes what
 * they need. The replay runs exactly
 * that on the V2 runtime (no eager eviction: the plan says when every
 * value goes), so its peak and compute are the schedule's own.
 */
#ifndef REMATSIM_PLAN_H
#define REMATSIM_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime.h"
#include "schedule.h"

/**
 * The forward ops of s (non-constant ops before the first backward op), in
 * log order. Gives *ops (free it); returns their number (0: *ops NULL).
 */
size_t plan_forward_ops(const struct schedule *s, uint32_t **ops);

struct plan_result {
	struct runtime_result run; /* peak_memory, remats, remat_compute, ... */
	enum runtime_kind runtime; /* the runtime the plan ran on */
	double overhead;           /* final clock / baseline compute */
	double ratio;              /* peak memory / baseline memory */
	double wall_ms;
};

/**
 * Replay the plan `splits` (n_splits ascending forward-op indices, each at
 * most the number of forward ops) on s, whose baseline is b; check: verify
 * the runtime's invariants after every command. Returns 0 with *out
 * filled, or -1 with err (EXIT_USAGE: split points out of order or range).
 */
int plan_replay(const struct schedule *s, const struct baseline *b, const size_t *splits,
		size_t n_splits, bool check, struct plan_result *out, struct rs_error *err);
/** plan_replay, calling observe (borrows ctx) for each runtime event. */
int plan_replay_observed(const struct schedule *s, const struct baseline *b, const size_t *splits,
			 size_t n_splits, bool check,
			 void (*observe)(void *ctx, const struct runtime_event *ev), void *ctx,
			 struct plan_result *out, struct rs_error *err);

/**
 * Replay a plan of saved and recomputed activations (the knapsack planner,
 * solvers/knapsack.h): recompute[i] for forward op i (plan_forward_ops'
 * order) evicts every storage that op made right after its last use by a
 * forward op (right after it is made if none uses it); the rest is
 * plan_replay's: the backward pass rematerializes on demand, recursively,
 * and temporaries so made go again after the command that needed them.
 * All false: the unbounded eager replay.
 */
int plan_replay_recompute(const struct schedule *s, const struct baseline *b,
			  const bool *recompute, bool check, struct plan_result *out,
			  struct rs_error *err);

/* One computation of an explicit schedule and the frees right after it. */
struct plan_step {
	uint32_t node;   /* the node computed: below the stage's own node, a
			  * recomputation; equal to it, the node's COMPUTE command */
	uint32_t n_free; /* the next n_free entries of plan_steps.frees */
};

/* An explicit schedule: stage by stage, each stage's steps ending with its
 * own node's, then the last stage's (recomputations only). A freed node's
 * storages are evicted (its views go with its storage); a node that is
 * only a view of another's storage is never named in frees. */
struct plan_steps {
	size_t n_nodes;
	uint32_t *node_op;       /* [n_nodes]: each node's op, ascending */
	struct plan_step *steps; /* every stage's steps, in order */
	size_t n_steps;
	uint32_t *frees;         /* node ids */
	size_t n_frees;
};
void plan_steps_free(struct plan_steps *ps);

/**
 * Replay the explicit schedule ps on s (baseline b) on the V2 runtime:
 * before each node's COMPUTE command its stage's recomputations (each with
 * its frees), after it the frees of its own step. Returns 0 with *out
 * filled, or -1 with err (EXIT_SOFTWARE: a schedule out of shape, which
 * only a planner's bug makes). The caller compares the result with what
 * the planner predicted.
 */
int plan_replay_steps(const struct schedule *s, const struct baseline *b,
		      const struct plan_steps *ps, bool check, struct plan_result *out,
		      struct rs_error *err);
/** plan_replay_steps, calling observe (borrows ctx) for each runtime event. */
int plan_replay_steps_observed(const struct schedule *s, const struct baseline *b,
			       const struct plan_steps *ps, bool check,
			       void (*observe)(void *ctx, const struct runtime_event *ev), void *ctx,
			       struct plan_result *out, struct rs_error *err);

/**
 * A plan as a program applies it with checkpoint wrappers (`solve
 * --modules`, solvers/modules.h): plan_replay, except that as_usual[i]
 * (n_splits entries; NULL: none) leaves segment i ([p_i, p_i+1), p_0 = 0)
 * unwrapped, its storages kept as the last segment's are, and that a
 * wrapped segment is recomputed whole, as torch.utils.checkpoint
 * recomputes the wrapped function at the first use of any tensor it
 * saved: before the first backward op that reads a storage the plan
 * evicted from segment g, every storage that segment's ops made, that the
 * plan evicted and that a handle still holds (what autograd saved) is
 * rematerialized, each of its tensors in order.
 */
int plan_replay_wraps(const struct schedule *s, const struct baseline *b, const size_t *splits,
		      size_t n_splits, const bool *as_usual, bool check, struct plan_result *out,
		      struct rs_error *err);

#endif
