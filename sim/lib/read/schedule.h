/*
 * schedule.h: the replayable form of an op log (SIMULATION.md section 1).
 *
 * A schedule is a handful of flat arrays with integer ids: ops, tensors,
 * storages and commands, plus CSR-style index arrays for the variable-length
 * lists (op arguments, storage tensors, storage-level edges). It is built once
 * by schedule_read() and then only read, so any number of threads may
 * replay it at once.
 *
 * Invariants:
 *  - ids follow creation order: op i is computed by the i-th COMPUTE
 *    command; its outputs are tensors ops[i].outs .. outs + n_outs - 1; a
 *    tensor's storage is created (if it owns one) with that tensor. So at
 *    any point of a replay, the tensors that exist are exactly the ids below
 *    the next op's `outs`, and a list ordered by tensor id (tensors of a
 *    storage) has as prefix exactly the members that exist yet: a runtime
 *    that needs "the tensors so far" keeps a count.
 *  - storages[s].tensors lists the storage's tensors in creation order; the
 *    first is its root (the tensor that owns it).
 *  - op arguments keep duplicates (an op may read a tensor twice), and so
 *    do the storage-level edge lists (one entry per argument slot and
 *    output), as the reference's children lists do.
 */
#ifndef REMATSIM_SCHEDULE_H
#define REMATSIM_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util.h"

/** The nine record types of LOG-FORMAT.md, for counting. */
enum record_kind {
	REC_ANNOTATE,
	REC_CONSTANT,
	REC_MEMORY,
	REC_ALIAS,
	REC_CALL,
	REC_MUTATE,
	REC_COPY,
	REC_COPY_FROM,
	REC_RELEASE,
	REC_KIND_COUNT
};
/** "ANNOTATE", "CONSTANT", ... */
const char *record_kind_name(enum record_kind k);

enum sched_cmd_kind {
	CMD_COMPUTE, /* id: op */
	CMD_GET,     /* id: tensor; one more external ref */
	CMD_PIN,     /* id: tensor; rematerialize if undefined, lock for good */
	CMD_RELEASE, /* id: tensor; one external ref less */
};

/* Ops and tensors a schedule may hold (the reader refuses more): their ids
 * fit a command's 30 bits, an op's output count its 29. A log that large
 * would take over 30 GB. */
#define SCHED_MAX_IDS (UINT32_C(1) << 29)

/* 4 bytes: a million-op log has two million commands or more. */
struct sched_cmd {
	uint32_t kind : 2; /* enum sched_cmd_kind */
	uint32_t id : 30;  /* an op or tensor, below SCHED_MAX_IDS */
};

struct sched_op {
	int64_t cost;        /* TIME in ns (0 for constants) */
	uint64_t total_size; /* bytes of all non-alias outputs */
	uint32_t args;       /* first index into schedule.op_args */
	uint32_t n_args;
	uint32_t outs;       /* first output tensor id */
	uint32_t n_outs : 29;  /* below SCHED_MAX_IDS; the flags share its word (40 bytes an op) */
	uint32_t backward : 1; /* after a BACKWARD annotation or a *backward* op */
	uint32_t constant : 1; /* a CONSTANT record (no inputs, cost 0) */
	uint32_t mutate : 1;   /* made from a MUTATE record */
	uint32_t name;       /* offset of the op name in schedule.strings */
	uint32_t line;       /* line of the record in the log (diagnostics) */
};

struct sched_tensor {
	uint32_t op;       /* producing op (its output t - ops[op].outs) */
	int32_t alias;     /* -1: owns its storage; k: view of op argument k */
	uint32_t storage;  /* storage id (an alias shares its argument's) */
	uint32_t name;     /* offset of the handle name in schedule.strings */
};

struct sched_storage {
	uint64_t size;      /* bytes */
	uint32_t tensors;   /* first index into schedule.storage_tensors (the
			     * first is its root: schedule_storage_root) */
	uint32_t n_tensors;
};

/* One end of a module call: an ANNOTATE ENTER or EXIT record, which a
 * recorder writes around the ops of each call of a model's module
 * (docs/log-format.md, "Module calls"). Replays ignore them; `profile` and
 * `solve --modules` read them. ENTERs and EXITs nest (the reader checks). */
struct sched_mark {
	uint32_t op;   /* ops made before the record: the next op's id */
	uint32_t name; /* MODULE, offset in strings */
	uint32_t type; /* TYPE of an ENTER (its class), offset; "" when absent and for EXIT */
	uint32_t line; /* of the record */
	bool enter;    /* ENTER, else EXIT */
};

struct schedule {
	char *source;       /* what the user named (path or ARCHIVE.zip:MEMBER) */

	struct sched_cmd *cmds;
	size_t n_cmds;
	struct sched_op *ops;
	size_t n_ops;
	struct sched_tensor *tensors;
	size_t n_tensors;
	struct sched_storage *storages;
	size_t n_storages;

	uint32_t *op_args;         /* tensor ids, CSR by op */
	size_t n_op_args;
	uint32_t *storage_tensors; /* tensor ids, CSR by storage, root first */
	char *strings;             /* NUL-terminated names, referenced by offset */
	size_t strings_len;

	/* Derived lists for replays, read-only like the rest, as flat arrays
	 * for the hot loops: the storage of each tensor and of each op_args
	 * entry; per storage (CSR by storage_fwd_off /
	 * storage_rev_off), the storages of its tensors' children and parents,
	 * one entry per edge, in the order a replay meets them (op by op: each
	 * output's parents, then each argument's outputs), so that at any
	 * point a storage's edges so far are a prefix of its list. */
	uint32_t *tensor_storage;
	uint32_t *arg_storage;

	/* Module calls and writes in place, which replays do not read: the
	 * ENTER/EXIT records in log order, and the op_args indices of the
	 * arguments CALLs list in WRITES, ascending. */
	struct sched_mark *marks;
	size_t n_marks;
	uint32_t *writes;
	size_t n_writes;
	uint32_t *storage_fwd, *storage_fwd_off;
	uint32_t *storage_rev, *storage_rev_off;

	/* What was read: the reader's row for its format (struct
	 * input_format: the op log's, graph.h's; NULL for a schedule built
	 * without text, gen.h's), and the graph's facts (then records are
	 * 0). */
	const struct input_format *format;
	enum sched_input {
		SCHED_LOG,
		SCHED_GRAPH_CHECKMATE, /* nodes with cost_cpu, cost_ram */
		SCHED_GRAPH_LAYERED,   /* nodes with duration, out_cost, param_cost */
	} input;
	bool graph_file_order;   /* ops in the file's graph.order, else simrd's depth-first order */
	uint64_t graph_nodes, graph_links;

	/* Facts of the read, for `rematsim info`. */
	uint64_t records[REC_KIND_COUNT]; /* records in the whole log */
	uint64_t lines;          /* lines in the whole log */
	uint64_t skipped_lines;  /* lines up to and including START */
	bool has_start;          /* the log has a START annotation */
	bool from_start;         /* ... and it was replayed from the top */
	bool preallocate;        /* final outputs preallocated, not pinned */
	uint64_t output_ram;     /* preallocate: bytes of the live outputs */
	size_t n_forward_ops;    /* non-constant ops before the first backward */
	size_t n_backward_ops;
	size_t n_constants;
	size_t n_aliases;        /* tensors that are views */
	size_t n_handles;        /* distinct handle names */
	size_t n_pins_final;     /* PIN commands emitted for live outputs */
	int64_t total_compute;   /* sum of op costs */
	uint64_t const_memory;   /* bytes of constant outputs */
	uint64_t max_output_size;/* largest op total output size */
	uint8_t sha256[32];      /* of the decompressed log bytes (opt.digest) */

	/* SPEED-ONLY, the one field replays write (with __atomic builtins,
	 * from any thread): set once a replay of this schedule switched its
	 * regions from runs to bitsets by what each costs, so that its later
	 * replays start on bitsets (runtime-regions.c, rt_regions_init).
	 * Which replay sets it first changes how fast the others run, never
	 * what they compute. */
	unsigned char regions_to_bits;
};

struct read_options {
	bool from_start;   /* replay the warm-up before START too */
	bool preallocate;  /* outputs preallocated instead of pinned at the end */
	bool digest;       /* fill schedule.sha256 (costs ~3 ms per MB) */
};

struct json_t; /* jansson's */

/**
 * An input format: one row of the reader's table (schedule.c, `formats`),
 * so that a new format is its own file plus a row (docs/architecture.md).
 * The reader reads the input's first bytes (up to 8 MiB, or all of it) and
 * takes the first row whose detect says yes; the op log is the last row and
 * takes anything. Every command that reads a log reads every format.
 */
struct input_format {
	const char *name; /* "log", "graph" */
	/** Whether text[0..len), an input's first bytes, is of this format
	 * (by content, never by file name). */
	bool (*detect)(const char *text, size_t len);
	/** Build the schedule of the whole input in text[0..len) (named
	 * name), as schedule_check reports problems (max_problems, report,
	 * ctx; the first in *err): 0 with *out given, or the number of
	 * problems with *out NULL. NULL for the op log alone, which the
	 * reader streams in two passes itself. */
	int (*import)(const char *name, const char *text, size_t len,
		      const struct read_options *opt, int max_problems,
		      void (*report)(void *ctx, const struct rs_error *e), void *ctx,
		      struct schedule **out, struct rs_error *err);
	/** For `rematsim info`: the format's own facts of s, as one line of
	 * text on text (when not NULL: "  KEY" padded to 17 columns, the
	 * facts, a newline) and as keys added to the object json (when not
	 * NULL; none is fine). */
	void (*describe)(const struct schedule *s, FILE *text, struct json_t *json);
};

/**
 * Read a log: a plain `.log`, a `.log.gz`, or `ARCHIVE.zip:MEMBER` (member
 * path inside the archive, or a model name from its manifest.json).
 * Gives a new schedule in *out (free with schedule_free) and returns 0, or
 * returns -1 with err filled (status EXIT_NOINPUT or EXIT_DATAERR; EXIT_IOERR
 * for a log that changed between the two passes of a streamed read:
 * another file, other bytes or another length, docs/reader.md).
 */
/** A test hook: when set, called between the two passes of a streamed
 * read (a log over 8 MiB), where a test rewrites or replaces the log. */
extern void (*schedule_test_between_passes)(const char *spec);

int schedule_read(const char *spec, const struct read_options *opt,
		  struct schedule **out, struct rs_error *err);

/** Build from bytes already in memory (tests, fuzzing). `name` borrows. */
int schedule_parse(const char *name, const char *data, size_t len,
		   const struct read_options *opt, struct schedule **out,
		   struct rs_error *err);

/**
 * Check mode: build from bytes, reporting every problem (up to
 * max_problems) through report (borrows ctx). Returns the number found.
 */
int schedule_check(const char *name, const char *data, size_t len,
		   const struct read_options *opt, int max_problems,
		   void (*report)(void *ctx, const struct rs_error *e), void *ctx);

/**
 * Check mode on a log read as schedule_read reads it (streamed): returns
 * the number of problems found in its records, or -1 with *err filled for
 * an error of the source itself (missing file, corrupt gzip or zip, a
 * limit), which is not passed to report.
 */
int schedule_check_read(const char *spec, const struct read_options *opt, int max_problems,
			void (*report)(void *ctx, const struct rs_error *e), void *ctx,
			struct rs_error *err);

void schedule_free(struct schedule *s);

static inline const char *schedule_str(const struct schedule *s, uint32_t off)
{
	return s->strings + off;
}

/**
 * The floor: the bytes of the distinct storages that a replay holds pinned
 * at the end of the log, the least memory any replay that finishes needs.
 * For the runtimes but V1: every constant's storage (pinned when made,
 * for good) and every storage a handle still holds at the end (the final
 * pins). V1 (v1 true) banishes a constant whose handles are all released,
 * so its floor is the final pins' storages alone.
 */
uint64_t schedule_floor(const struct schedule *s, bool v1);

/** The tensor that owns storage st (its first). */
static inline uint32_t schedule_storage_root(const struct schedule *s, uint32_t st)
{
	return s->storage_tensors[s->storages[st].tensors];
}

/** The storage size of a tensor (its storage's size; shared by views). */
static inline uint64_t schedule_tensor_bytes(const struct schedule *s, uint32_t t)
{
	return s->storages[s->tensors[t].storage].size;
}

/*
 * Handles: the external (model) references to a storage, as the commands
 * make and drop them: a COMPUTE makes one per output tensor, a GET one, a
 * RELEASE drops one, a PIN neither. A storage whose handles drop to none
 * is discarded by an unbounded replay (banished), so counting them along
 * the commands says which storages the model still holds. The one rule
 * for everyone who counts them: the reader as it builds, the runtime
 * (ref_ext), peak, plan replay and the activation profile.
 */
struct sched_handles {
	uint32_t first, n; /* the tensors [first, first + n), one handle each */
	int delta;         /* +1 made, -1 dropped */
};

/** The handles command c makes or drops (n == 0: none). */
static inline struct sched_handles schedule_cmd_handles(const struct schedule *s, const struct sched_cmd *c)
{
	switch (c->kind) {
	case CMD_COMPUTE:
		return (struct sched_handles){s->ops[c->id].outs, s->ops[c->id].n_outs, 1};
	case CMD_GET:
		return (struct sched_handles){c->id, 1, 1};
	case CMD_RELEASE:
		return (struct sched_handles){c->id, 1, -1};
	}
	return (struct sched_handles){c->id, 0, 0};
}

/** Add command c's handles to per-storage counts (refs[storage]). */
static inline void schedule_count_handles(const struct schedule *s, const struct sched_cmd *c, int64_t *refs)
{
	struct sched_handles h = schedule_cmd_handles(s, c);
	for (uint32_t k = 0; k < h.n; k++)
		refs[s->tensors[h.first + k].storage] += h.delta;
}

#endif
