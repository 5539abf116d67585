/*
 * oplog.h: write op logs (docs: docs/log-format.md), one JSON
 * record per line, plain or gzip-compressed, and keep a running count of
 * live storage bytes that follows the simulator's replay rules exactly.
 *
 * Invariants:
 * - Every CALL record is followed, for each result in order, by its MEMORY
 *   then its ALIAS record; every CONSTANT by its MEMORY record. The API
 *   writes these groups in one call, so a log can not be cut between them.
 * - peak_live_bytes is what an unbounded replay of the log reports as its
 *   peak memory (eager release, constants pinned, MUTATE allocating a new
 *   storage per mutated argument, records before the last START skipped).
 *
 * Ownership: oplog_open gives a log that oplog_close frees. Every name and
 * string argument is borrowed (copied when kept).
 */
#ifndef REMATSIM_OPLOG_H
#define REMATSIM_OPLOG_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

struct oplog;

enum oplog_annotation {
	OPLOG_START,    /* the measured iteration begins */
	OPLOG_BACKWARD, /* the backward pass begins */
};

/** Largest name the log accepts, in bytes, without the NUL. */
#define OPLOG_NAME_MAX 63

/**
 * Open PATH for writing: gzip when PATH ends in ".gz", plain otherwise.
 * The records go to PATH.tmp.PID, renamed to PATH by oplog_close, so a
 * program that dies while recording leaves no half log under PATH. The
 * side file (see oplog_meta_path) is written by oplog_close, the same way.
 * Returns NULL and fills err (EXIT_CANTCREAT) when PATH can't be created.
 */
struct oplog *oplog_open(const char *path, struct rs_error *err);

/**
 * Flush and close the log, write the meta side file, free the log.
 * Returns 0, or -1 with err filled (EXIT_IOERR / EXIT_CANTCREAT) when
 * anything could not be written. Always frees.
 */
int oplog_close(struct oplog *log, struct rs_error *err);

/**
 * The side file's name for log PATH: PATH without ".gz" and ".log", plus
 * ".meta.json" (mlp.log.gz -> mlp.meta.json). Gives a string to free.
 */
char *oplog_meta_path(const char *path);

/*
 * Fields of the meta side file, written as one JSON object with sorted keys.
 * Setting a key again replaces it. oplog_close adds records, calls,
 * peak_live_bytes and time_unit itself. (Plain C, no JSON library: the
 * recorder must build where only zlib and CUDA are installed.)
 */
void oplog_meta_str(struct oplog *log, const char *key, const char *value);
void oplog_meta_int(struct oplog *log, const char *key, int64_t value);
void oplog_meta_real(struct oplog *log, const char *key, double value);
/** An array of N strings. */
void oplog_meta_strv(struct oplog *log, const char *key, size_t n, const char *const *values);
/** VALUE is JSON text, written as is (an object the caller built). */
void oplog_meta_json(struct oplog *log, const char *key, const char *value);

/**
 * Write a fresh tensor name ("x<N>", unique within this log) into buf
 * (at least 24 bytes).
 */
void oplog_new_name(struct oplog *log, char *buf);

/*
 * The records. Each returns 0, or -1 when the call breaks the format (an
 * unknown argument name, an alias index out of range, a name too long);
 * then nothing is written and oplog_error tells what.
 */

/** CONSTANT NAME + MEMORY: a tensor from outside the iteration. */
int oplog_constant(struct oplog *log, const char *name, uint64_t bytes);

/**
 * Whether a log can be written to path (a regular file or a new one, in a
 * writable folder): 0, or -1 with err (EXIT_CANTCREAT). oplog_open checks
 * it too; a recorder calls it before its (long) work.
 */
int oplog_check_path(const char *path, struct rs_error *err);

/**
 * CALL OP(ARGS) -> RESULTS, then MEMORY and ALIAS for each result.
 * bytes[i]: size of result i's storage (for a view, the viewed storage's
 * size, as the reference writes it); alias[i]: -1 for new storage, k for a
 * view of argument k.
 */
int oplog_call(struct oplog *log, const char *op, size_t nargs, const char *const *args,
	       size_t nres, const char *const *results, const uint64_t *bytes,
	       const int *alias, uint64_t time_ns);

/**
 * The next CALL or MUTATE carries FLOPS and BYTES fields: the op's
 * floating-point operations and the bytes it reads and writes (the time
 * model of rematsim_torch reads them; replays ignore them: docs/llm.md).
 */
void oplog_set_costs(struct oplog *log, uint64_t flops, uint64_t bytes);

/** MUTATE: in-place op OP(ARGS) overwrote the arguments listed in mutated. */
int oplog_mutate(struct oplog *log, const char *op, size_t nargs, const char *const *args,
		 size_t nmutated, const int *mutated, uint64_t time_ns);

/** COPY: new handle DST for SRC's tensor. */
int oplog_copy(struct oplog *log, const char *dst, const char *src);

/** COPY_FROM: existing handle DST re-pointed at SRC's tensor. */
int oplog_copy_from(struct oplog *log, const char *dst, const char *src);

/** RELEASE: the handle NAME is dropped. */
int oplog_release(struct oplog *log, const char *name);

/** ANNOTATE START/BACKWARD. START also restarts the live-bytes count. */
int oplog_annotate(struct oplog *log, enum oplog_annotation what);

/** Last error of a record call (borrowed). */
const struct rs_error *oplog_error(const struct oplog *log);

/** Live storage bytes now, and their peak since the last START. */
uint64_t oplog_live_bytes(const struct oplog *log);
uint64_t oplog_peak_live_bytes(const struct oplog *log);
/** Records (lines) and CALL records written so far. */
uint64_t oplog_records(const struct oplog *log);
uint64_t oplog_calls(const struct oplog *log);

#endif
