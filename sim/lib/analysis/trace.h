/*
 * trace.h: a replay as a Chrome trace-event file (JSON object format, which
 * Perfetto and chrome://tracing open): a counter of memory against the
 * budget, one complete slice per op on a forward, backward or
 * rematerialization track, an instant per eviction (docs/questions.md,
 * Trace).
 *
 * Times are the replay's simulated clock: "ts" and "dur" in microseconds
 * with three decimals, so exact to the nanosecond. The file is written
 * under a temporary name (PATH.tmp) and renamed to PATH only by a
 * trace_close that keeps it: never half-written. A path that exists and
 * is not a regular file (a device, a pipe) is written directly.
 */
#ifndef REMATSIM_TRACE_H
#define REMATSIM_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime.h"
#include "schedule.h"

struct trace_options {
	const char *title;  /* the process name shown by viewers (borrowed) */
	uint64_t budget;    /* drawn beside memory unless UINT64_MAX */
	/* Only events while the model's op at a log line in [from_line,
	 * to_line] is in progress (evictions and rematerializations that
	 * make room for an op belong to it; those after the last op, to it). */
	uint32_t from_line, to_line;
	/* The replay offloads (runtime_config.offload): two more tracks, the
	 * copies to the host and back as slices from start to end. */
	bool offload;
};

struct trace_writer;

/**
 * Start a trace of schedule s (borrowed until trace_close) at path: gives
 * a writer, or NULL with err filled (EXIT_CANTCREAT).
 */
struct trace_writer *trace_open(const char *path, const struct schedule *s,
				const struct trace_options *opt, struct rs_error *err);

/** The runtime's on_event hook: ctx is the writer. */
void trace_on_event(void *ctx, const struct runtime_event *ev);

/**
 * Finish and free w. keep: complete the file and rename it into place
 * (0, or -1 with err filled: EXIT_IOERR); !keep: remove it (returns 0).
 */
int trace_close(struct trace_writer *w, bool keep, struct rs_error *err);

/** Events written so far (all kinds, metadata included). */
uint64_t trace_events(const struct trace_writer *w);
/** The runtime events the window kept (memory samples, 0: none). */
uint64_t trace_kept(const struct trace_writer *w);

#endif
