/*
 * schedule_builder.h: making a schedule (schedule.h) from the operations of
 * an op log, whatever the input: the op-log reader (schedule.c), the
 * generator of synthetic logs (gen.c) and the graph importer (graph.c) all
 * build through it, so that none writes log text for another to parse.
 *
 * The calls are the records of LOG-FORMAT.md without their syntax: a
 * constant, a call (an op with its results, maybe writing arguments in
 * place), a mutation, a copy, a release, the start of the backward pass,
 * the ends of a module call. Tensors are named by handles (strings),
 * as in a log: a call's results define handles, a mutation re-points them,
 * a release lets go of one. The builder keeps the reference simulator's
 * rules (docs/reader.md, "What it refuses"): an argument must be defined and
 * its storage still referenced, a result must be new, totals stay within
 * 2^60; at the end each handle still holding a tensor is pinned (or, with
 * preallocate, counted in output_ram), in the order handles were first
 * defined.
 *
 * Problems: each names the source and the line the caller gives (0: none)
 * and is passed to report (if any); the first also fills *err. After
 * max_problems (1: read mode) the builder is stopped and every later call
 * does nothing. A caller's own problems (the syntax of its input) go
 * through schedule_builder_problem, so that one count decides when to stop.
 *
 * Ownership: schedule_builder_new gives a builder; schedule_builder_finish
 * takes it back and gives the schedule. Strings passed in are borrowed for
 * the call only.
 */
#ifndef REMATSIM_SCHEDULE_BUILDER_H
#define REMATSIM_SCHEDULE_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "schedule.h"
#include "util.h"

struct schedule_builder;

/**
 * A new builder of a schedule named source (a path or ARCHIVE.zip:MEMBER;
 * borrowed). preallocate: outputs preallocated at the end instead of
 * pinned. Problems as above (err and report may be NULL; ctx borrowed).
 */
struct schedule_builder *schedule_builder_new(const char *source, bool preallocate,
					      int max_problems, struct rs_error *err,
					      void (*report)(void *ctx, const struct rs_error *e),
					      void *ctx);

/** The caller's own problem at line (0: none), counted as the builder's. */
void schedule_builder_problem(struct schedule_builder *b, int status, long line,
			      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/** A problem of the input itself, as given (its own file and line): it stops the build. */
void schedule_builder_stop(struct schedule_builder *b, const struct rs_error *e);
/** Whether the builder has stopped (max_problems reached). */
bool schedule_builder_stopped(const struct schedule_builder *b);
/** Problems found so far. */
int schedule_builder_problems(const struct schedule_builder *b);
/** Ops made so far. */
size_t schedule_builder_ops(const struct schedule_builder *b);

/**
 * CONSTANT: a new pinned tensor `name` of `bytes`, made by an op named
 * "constant" of cost 0 (record on line; its size given on size_line).
 * Returns 0, or -1 after a problem (the name is then poisoned).
 */
int schedule_builder_constant(struct schedule_builder *b, long line, long size_line,
			      const char *name, uint64_t bytes);

/** One result of a call. */
struct schedule_result {
	const char *name; /* the handle it defines */
	uint64_t bytes;   /* its storage's size (ignored for a view) */
	int32_t alias;    /* -1: owns a new storage; k: a view of argument k */
	long line;        /* where its size was given (problems), or the call's */
};

/**
 * CALL: op `op` taking time_ns, over the tensors of handles args[0..n_args)
 * (duplicates kept), defining results[0..n_results) (n_results >= 1, aliases
 * within the arguments: the caller's to check). Every argument must be
 * defined and its storage referenced, every result new; an argument defined
 * by a broken record (poisoned) poisons the results quietly. An op whose
 * name holds "backward" starts the backward pass. Returns 0, or -1 after a
 * problem (results poisoned).
 */
int schedule_builder_call(struct schedule_builder *b, long line, const char *op, uint64_t time_ns,
			  const char *const *args, size_t n_args,
			  const struct schedule_result *results, size_t n_results);

/**
 * The same call, writing the arguments at writes[0..n_writes) in place (a
 * CALL's WRITES: distinct indices below n_args, the caller's to check; kept
 * in schedule.writes). writes_problem (NULL: none) is the caller's own
 * problem with the list (malformed): reported at line, and the call
 * refused, once the call's names are found sound, so that problems come in
 * the order the reader has always reported them.
 */
int schedule_builder_call_writes(struct schedule_builder *b, long line, const char *op,
				 uint64_t time_ns, const char *const *args, size_t n_args,
				 const struct schedule_result *results, size_t n_results,
				 const uint32_t *writes, size_t n_writes, const char *writes_problem);

/**
 * A call the caller could not read whole (check mode): its arguments are
 * still looked up, so that an undefined one is reported, and its results
 * (names, may be NULL) are poisoned.
 */
void schedule_builder_discard(struct schedule_builder *b, long line, const char *const *args,
			      size_t n_args, const char *const *results, size_t n_results);

/**
 * MUTATE: op `op` over args[0..n_args) makes new versions of the arguments
 * at mutated[0..n_mutated) (indices below n_args: the caller's to check),
 * each a new storage as large as the old one's, and re-points their handles
 * at them, releasing the old tensors. Returns 0, or -1 after a problem.
 */
int schedule_builder_mutate(struct schedule_builder *b, long line, const char *op,
			    uint64_t time_ns, const char *const *args, size_t n_args,
			    const size_t *mutated, size_t n_mutated);

/** COPY (from = false: dst is new) or COPY_FROM (dst re-pointed): dst takes src's tensor. */
int schedule_builder_copy(struct schedule_builder *b, long line, const char *dst,
			  const char *src, bool from);

/** RELEASE: the handle lets go of its tensor (an unknown name is ignored, as the reference does). */
int schedule_builder_release(struct schedule_builder *b, long line, const char *name);

/** ANNOTATE BACKWARD: the ops from here on are the backward pass. */
void schedule_builder_backward(struct schedule_builder *b);

/**
 * ANNOTATE ENTER (enter true; type: the module's class, may be NULL) or
 * EXIT of module call `module` (non-empty, the caller's to check), kept in
 * schedule.marks before the next op. Calls must nest: an EXIT names the
 * innermost open call. Returns 0, or -1 after a problem.
 */
int schedule_builder_module(struct schedule_builder *b, long line, const char *module,
			    const char *type, bool enter);

/**
 * The input has ended: reports what only its end shows (module calls
 * entered and never exited). schedule_builder_finish does it if the caller
 * has not, so a caller calls it only to report these before its own
 * end-of-input problems.
 */
void schedule_builder_end(struct schedule_builder *b);

/** Poison a handle: its defining record was broken (check mode); its later uses are skipped quietly. */
void schedule_builder_poison(struct schedule_builder *b, const char *name);

/**
 * Finish: the final pins (or preallocation) and the derived lists. Takes b.
 * Returns 0 and gives the schedule in *out, or returns the number of
 * problems found (over the whole build) with *out NULL.
 */
int schedule_builder_finish(struct schedule_builder *b, struct schedule **out);

#endif
