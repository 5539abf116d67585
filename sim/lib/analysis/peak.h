/*
 * peak.h: what is live when a replay's memory peaks (`rematsim peak`), and
 * the names by which a storage can be found in its log (op name, log line,
 * handle), shared by peak, the timeline and the trace.
 *
 * The peak is found in two replays, through the runtime's public event
 * hook only: the first is an ordinary run (its peak_memory); the second
 * follows the events, keeping the set of material storages, and copies
 * that set once, at the first event whose memory reaches that peak. A
 * normal replay pays nothing for this.
 *
 * Invariant, checked at every event of the second replay: the bytes of the
 * followed set equal the runtime's memory; the moment's bytes equal the
 * run's peak_memory (else EXIT_SOFTWARE: a bug of ours).
 *
 * A run that does not pass (out of memory, or past the overhead limit) is
 * reported at the moment it stopped instead: the set the runtime held when
 * nothing more could be evicted (OOM) or when the limit was passed
 * (thrash), with the arguments of the op in progress marked (the runtime
 * keeps them while it runs the op). The second replay must stop at the
 * same command with the same outcome.
 */
#ifndef REMATSIM_PEAK_H
#define REMATSIM_PEAK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime.h"
#include "schedule.h"

/** What a storage is, from the log alone (docs/questions.md, "Kinds"). */
enum storage_kind {
	SK_CONSTANT,  /* made by a CONSTANT record: parameters, inputs, buffers */
	SK_FORWARD,   /* made by an op before the backward pass, read again later */
	SK_BACKWARD,  /* made by an op of the backward pass, read again later */
	SK_TEMPORARY, /* made by an op, read by no later op and not kept at the end */
	SK_COUNT
};
/** "constant", "forward", "backward", "temporary". */
const char *storage_kind_name(enum storage_kind k);

/** The op that made storage s (its root tensor's op). */
static inline uint32_t storage_op(const struct schedule *s, uint32_t st)
{
	return s->tensors[schedule_storage_root(s, st)].op;
}
/** The log's handle name of the tensor that owns storage st. */
static inline const char *storage_handle(const struct schedule *s, uint32_t st)
{
	return schedule_str(s, s->tensors[schedule_storage_root(s, st)].name);
}

struct peak_entry {
	uint32_t storage;
	uint64_t bytes;
	enum storage_kind kind;
	bool pinned;          /* pinned by the log (a constant, a kept output) by then */
	bool input;           /* (a run that stopped) an argument of the op in progress */
};

struct peak_group {
	const char *name;     /* op name or kind name (borrowed) */
	uint64_t bytes;
	size_t count;
};

struct peak_report {
	struct runtime_result run;  /* the replay's (its peak_memory is the peak) */
	bool stopped;               /* the run did not pass: the moment is where it stopped */
	uint64_t live_bytes;        /* bytes of the live set (entries) */
	uint64_t peak_bytes;        /* == run.peak_memory */
	uint64_t dup_bytes;         /* counted twice at the moment (see peak.c) */
	size_t cmd;                 /* command in progress at the moment */
	uint32_t op;                /* the op whose outputs made the peak */
	bool remat;                 /* ... rematerialized, not run by the model */
	uint32_t model_op;          /* the model's op in progress (RT_NONE_OP: a final pin) */
	int64_t clock;              /* simulated time after that op */
	struct peak_entry *entries; /* live storages, by bytes (largest first), then id */
	size_t n_entries;
	struct peak_group *by_op;   /* per op name, by bytes, then name */
	size_t n_by_op;
	struct peak_group by_kind[SK_COUNT];
};
#define RT_NONE_OP UINT32_MAX

/**
 * Replay s under cfg (its on_event must be NULL) twice and fill *out (free
 * with peak_report_free): the moment of the peak, or for a run that does
 * not pass (out->stopped; out->run says how) the moment it stopped. Returns
 * 0, or -1 with err filled: EXIT_USAGE for a configuration the runtime
 * refuses; EXIT_SOFTWARE for a broken invariant.
 */
int peak_find(const struct schedule *s, const struct runtime_config *cfg,
	      struct peak_report *out, struct rs_error *err);
void peak_report_free(struct peak_report *r);

/**
 * Per storage, the storage's kind as seen at command `cmd` (temporary if no
 * command from `cmd` on reads it), and whether the log has pinned it before
 * `cmd`. Either output may be NULL.
 */
void peak_classify(const struct schedule *s, size_t cmd, uint8_t *kind, uint8_t *pinned);

/**
 * Module calls (issue 44): for a log with module ENTER/EXIT annotations
 * (docs/log-format.md, "Module calls"), per op the name of the innermost
 * module call it ran in, as an offset in s->strings, PEAK_NO_MODULE for an
 * op outside every call (constants, the backward pass's ops); NULL for a
 * log without annotations. One pass over the ops and marks with a stack
 * as deep as the calls nest: linear time and memory. Free with free().
 */
#define PEAK_NO_MODULE UINT32_MAX
uint32_t *peak_op_modules(const struct schedule *s);

#endif
