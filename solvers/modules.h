/*
 * modules.h: a log's module calls (the ANNOTATE ENTER/EXIT records a
 * recorder writes around each call of a model's module,
 * docs/log-format.md) laid over its forward ops: the activations each
 * call holds (`profile --modules`), which calls a checkpoint wrapper can
 * take, and plans whose split points are module boundaries (`solve
 * --modules`, docs/solvers.md "Module plans").
 *
 * A plan on modules is made in three steps:
 *  1. the candidate split points are the boundaries of the calls that can
 *     be wrapped (each one's first forward op and the op after its last);
 *     the profile is summed between consecutive boundaries ("units") and
 *     a planner splits those sums, as the layer tracker splits its
 *     per-module activations;
 *  2. each checkpointed segment of that plan is tiled by wraps: at each
 *     position the outermost wrappable call that starts there and ends
 *     within the segment, extended over the following calls of the same
 *     nn.Sequential (which runs its children one after the other with
 *     nothing in between, so a run of them is one checkpoint); an op in
 *     no such call is left unwrapped;
 *  3. the plan as applied, the one a replay predicts once those wraps are
 *     made in the program, has a split point at the start and the end of
 *     each wrap; the segments between wraps (ops in no wrappable call, and
 *     whatever precedes the first wrap) run as usual, as they do in the
 *     program (plan_replay_some).
 * A call cannot be wrapped when it has no forward op, when its module is
 * called more than once in the forward pass (a wrapper wraps every call),
 * or when it writes in place a tensor that it did not make and that is no
 * constant (its input: recomputing it would write that tensor again).
 *
 * Invariants: calls are in ENTER order, each inside its parent's ops;
 * boundaries are ascending, in (0, n); wraps are ascending and disjoint,
 * within the checkpointed segments.
 */
#ifndef REMATSIM_MODULES_H
#define REMATSIM_MODULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"
#include "schedule.h"
#include "util.h"

/* Why a call cannot be wrapped (MODULE_OK: it can). */
enum module_veto {
	MODULE_OK,
	MODULE_EMPTY,        /* no forward op */
	MODULE_CALLED_AGAIN, /* its module has several calls in the forward pass */
	MODULE_WRITES_INPUT, /* writes in place a tensor made before it (not a constant) */
	MODULE_OFF_LEVEL,    /* not at the depth, or in the container, the plan is made at */
};

struct module_call {
	uint32_t name, type; /* offsets in the schedule's strings (type "" when not given) */
	uint32_t line;       /* of the ENTER record */
	uint32_t depth;      /* calls open around it */
	int32_t parent;      /* the enclosing call, -1 at the top */
	size_t first, end;   /* its forward ops [first, end) */
	uint32_t calls;      /* its module's calls in the forward pass */
	uint64_t bytes;      /* activations of its forward ops (profile.h) */
	enum module_veto veto;
	uint32_t veto_line;  /* MODULE_WRITES_INPUT: the writing op's line */
};

struct module_calls {
	const struct schedule *s; /* borrowed */
	const struct profile *p;  /* borrowed */
	struct module_call *c;    /* the forward pass's calls, in ENTER order */
	size_t n;
	size_t *bound;            /* candidate split points, ascending, in (0, n) */
	size_t n_bound;
	size_t *by_first;         /* call indices by (first, depth) */
};

/**
 * The module calls of s over its profile p (both borrowed, kept in m).
 * Returns 0 (free with modules_free), or -1 with err: EXIT_DATAERR when
 * the log has no module call in its forward pass.
 */
int modules_build(const struct schedule *s, const struct profile *p, struct module_calls *m,
		  struct rs_error *err);
void modules_free(struct module_calls *m);

/**
 * Plans at one level (solve --modules --depth/--within): only calls at
 * depth `depth` (when depth >= 0) and only direct children of call
 * `parent` (when parent >= 0) stay wrappable; the others are vetoed
 * MODULE_OFF_LEVEL and the boundaries are those of the calls left.
 * Returns how many calls can be wrapped after it.
 */
size_t modules_restrict(struct module_calls *m, long depth, long parent);

/** Why a call cannot be wrapped, in a few words ("" for MODULE_OK). */
const char *module_veto_text(enum module_veto v);

/**
 * The profile summed between boundaries: units[j] covers forward ops
 * [b_j, b_{j+1}) with b_0 = 0 and b_{n_bound+1} = n. Gives the array (free
 * it); *n_units = n_bound + 1.
 */
uint64_t *modules_units(const struct module_calls *m, size_t *n_units);

/** The forward op where a split u (1 ..= n_units) of the units falls. */
size_t modules_unit_split(const struct module_calls *m, size_t u);

/** Whether forward-op index at is a boundary. */
bool modules_is_bound(const struct module_calls *m, size_t at);

/** The outermost call starting at forward op at (any call), or -1. */
long modules_starting(const struct module_calls *m, size_t at);
/** The innermost call ending just before forward op at, or -1. */
long modules_ending(const struct module_calls *m, size_t at);

/** The first call of the module named name, or -1. */
long modules_find(const struct module_calls *m, const char *name);

/* A plan's wraps (step 2 above): wrap i is calls[off[i] .. off[i + 1]). */
struct module_plan {
	size_t n_wraps;
	size_t *off;           /* [n_wraps + 1] */
	size_t *calls;         /* call indices */
	size_t *splits;        /* the plan as applied (step 3) */
	size_t n_splits;
	bool *as_usual;        /* [n_splits]: segment i is no wrap (plan_replay_some) */
	size_t unwrapped_ops;  /* forward ops of checkpointed segments in no wrap */
	uint64_t unwrapped_bytes; /* their activations */
};

/**
 * Tile the checkpointed segments of the plan `splits` (ascending, each at
 * most n) with wraps. Fills *mp (free with module_plan_free).
 */
void modules_apply(const struct module_calls *m, const size_t *splits, size_t n_splits,
		   struct module_plan *mp);
void module_plan_free(struct module_plan *mp);

#endif
