/*
 * schedule.c: from op-log records to the schedule the runtime replays
 * (SIMULATION.md section 1, LOG-FORMAT.md).
 *
 * One pass over the lines: each line is decoded (jsonl.c), checked, and
 * turned into ops, tensors, storages and commands appended to flat arrays.
 * The lines come through a window (source_lines): from a buffer in memory
 * (schedule_parse, schedule_check), or streamed from the log
 * (schedule_read), which is first read through once on its own to find
 * START, digest it and meet any error of its container before the parse
 * (docs/reader.md), so that no more than the window and the longest line
 * of the text is ever in memory.
 * Handle names live in one open-addressing table; a handle keeps the slot
 * it got when first mapped, so the final pins of live outputs come out in
 * first-mapped order, as the reference emits them.
 *
 * Errors: in read mode the first problem stops the build; in check mode
 * (schedule_check) every problem is reported and the build goes on, the
 * results of a broken record being "poisoned" so that one bad record does
 * not cascade into a report on every later use of its names.
 */
#include "schedule.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idset.h"
#include "jsonl.h"
#include "sha256.h"
#include "source.h"

#define POISON UINT32_MAX

static const char *const kind_names[REC_KIND_COUNT] = {
	"ANNOTATE", "CONSTANT", "MEMORY", "ALIAS", "CALL",
	"MUTATE", "COPY", "COPY_FROM", "RELEASE",
};

const char *record_kind_name(enum record_kind k)
{
	return (unsigned)k < REC_KIND_COUNT ? kind_names[k] : "?";
}

/* A decoded record: its kind, line and JSON object (in doc, owned: give
 * it back with rec_drop). */
struct rec {
	enum record_kind kind;
	long line;
	struct jv_doc *doc;
	const struct jv *j;
};

struct handle {
	uint32_t name;   /* offset in strings */
	uint32_t tensor; /* POISON when its defining record was broken */
};

struct builder {
	const char *file;
	const struct read_options *opt;
	struct schedule *s;
	size_t cap_cmds, cap_ops, cap_tensors, cap_storages, cap_args, cap_strings;

	/* lines */
	struct source_lines *in;
	long line;
	long stop_line; /* no lines past this one (the warm-up), 0: to the end */
	struct rec pushed; /* one record of lookahead, pushed back */
	bool has_pushed;
	/* Decoded lines not in use (a CALL holds its MEMORY and ALIAS
	 * records and maybe one more: a handful at most). */
	struct jv_doc *spare[8];
	int n_spare;

	/* strings: table of offset+1 (0 = empty), keyed by the text, so
	 * that each distinct name is stored once (op names repeat, and a
	 * tensor's name is its handle's) */
	uint32_t *stable;
	size_t stable_size, n_strs;
	/* handles: table of slot+1 (0 = empty), keyed by name */
	struct handle *handles;
	size_t n_handles, cap_handles;
	uint32_t *table;
	size_t table_size;

	int64_t *refs; /* external refs per tensor */
	size_t cap_refs;
	uint32_t *mutated; /* per tensor: line of the MUTATE that changed it, or 0 */
	size_t cap_mutated;
	int64_t *srefs; /* external refs per storage (its tensors' together) */
	size_t cap_srefs;
	long *sgone; /* per storage: line of the release of its last reference */
	size_t cap_sgone;
	bool in_bwd;
	size_t cap_marks, cap_writes;
	uint32_t *open; /* marks of the module calls entered and not yet exited */
	size_t n_open, cap_open;
	uint64_t total_time;  /* ops' TIME, once per output (within_totals) */
	uint64_t total_bytes; /* MEMORY of every storage made */

	/* errors */
	int max_errors; /* stop after this many (1 = read mode) */
	int n_errors;
	struct rs_error *err;
	void (*report)(void *ctx, const struct rs_error *e);
	void *report_ctx;
};

/* ------------------------------------------------------------------ */
/* Errors */

static void problem(struct builder *b, int status, long line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void problem(struct builder *b, int status, long line, const char *fmt, ...)
{
	struct rs_error e;
	va_list ap;
	va_start(ap, fmt);
	rs_error_vset(&e, status, b->file, line, fmt, ap);
	va_end(ap);
	if (b->n_errors == 0 && b->err)
		*b->err = e;
	b->n_errors++;
	if (b->report)
		b->report(b->report_ctx, &e);
}

/* An error of the source itself, as it was given (its own file name); it
 * ends the build. */
static void source_problem(struct builder *b, const struct rs_error *e)
{
	if (b->n_errors == 0 && b->err)
		*b->err = *e;
	if (b->report)
		b->report(b->report_ctx, e);
	b->n_errors = b->n_errors + 1 > b->max_errors ? b->n_errors + 1 : b->max_errors;
}

static bool stop(const struct builder *b)
{
	return b->n_errors >= b->max_errors;
}

/* ------------------------------------------------------------------ */
/* Strings and handles */

static uint64_t hash_str(const char *str)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *str; str++)
		h = (h ^ (unsigned char)*str) * 1099511628211ULL;
	return h;
}

static void stable_rehash(struct builder *b)
{
	size_t size = b->stable_size ? b->stable_size * 2 : 1024;
	uint32_t *t = xcalloc(size, sizeof *t);
	for (size_t i = 0; i < b->stable_size; i++) {
		if (!b->stable[i])
			continue;
		size_t k = hash_str(b->s->strings + b->stable[i] - 1) & (size - 1);
		while (t[k])
			k = (k + 1) & (size - 1);
		t[k] = b->stable[i];
	}
	free(b->stable);
	b->stable = t;
	b->stable_size = size;
}

/* The offset of str in s->strings, added if new: equal names share one
 * copy (readers take names as read-only C strings by offset). */
static uint32_t add_string(struct builder *b, const char *str)
{
	struct schedule *s = b->s;
	if ((b->n_strs + 1) * 2 > b->stable_size)
		stable_rehash(b);
	size_t k = hash_str(str) & (b->stable_size - 1);
	while (b->stable[k]) {
		if (!strcmp(s->strings + b->stable[k] - 1, str))
			return b->stable[k] - 1;
		k = (k + 1) & (b->stable_size - 1);
	}
	size_t n = strlen(str) + 1;
	XGROW(s->strings, b->cap_strings, s->strings_len + n);
	uint32_t off = (uint32_t)s->strings_len;
	memcpy(s->strings + off, str, n);
	s->strings_len += n;
	b->stable[k] = off + 1;
	b->n_strs++;
	return off;
}

static void table_rehash(struct builder *b)
{
	size_t size = b->table_size ? b->table_size * 2 : 1024;
	uint32_t *t = xcalloc(size, sizeof *t);
	for (size_t i = 0; i < b->n_handles; i++) {
		size_t k = hash_str(b->s->strings + b->handles[i].name) & (size - 1);
		while (t[k])
			k = (k + 1) & (size - 1);
		t[k] = (uint32_t)i + 1;
	}
	free(b->table);
	b->table = t;
	b->table_size = size;
}

/* The handle named str, or NULL. */
static struct handle *handle_find(struct builder *b, const char *str)
{
	if (!b->table_size)
		return NULL;
	size_t k = hash_str(str) & (b->table_size - 1);
	while (b->table[k]) {
		struct handle *h = &b->handles[b->table[k] - 1];
		if (!strcmp(b->s->strings + h->name, str))
			return h;
		k = (k + 1) & (b->table_size - 1);
	}
	return NULL;
}

/* Map str to tensor t: re-points an existing handle (keeping its slot). */
static void handle_map(struct builder *b, const char *str, uint32_t t)
{
	struct handle *h = handle_find(b, str);
	if (h) {
		h->tensor = t;
		return;
	}
	if ((b->n_handles + 1) * 2 > b->table_size)
		table_rehash(b);
	XGROW(b->handles, b->cap_handles, b->n_handles + 1);
	h = &b->handles[b->n_handles++];
	h->name = add_string(b, str);
	h->tensor = t;
	size_t k = hash_str(str) & (b->table_size - 1);
	while (b->table[k])
		k = (k + 1) & (b->table_size - 1);
	b->table[k] = (uint32_t)b->n_handles;
}

/* ------------------------------------------------------------------ */
/* Schedule growth */

/* The sizes docs/scale.md counts per command, op, tensor and storage. */
_Static_assert(sizeof(struct sched_cmd) == 4, "a command in 4 bytes");
_Static_assert(sizeof(struct sched_op) <= 40, "an op in 40 bytes");
_Static_assert(sizeof(struct sched_tensor) <= 16, "a tensor in 16 bytes");
_Static_assert(sizeof(struct sched_storage) <= 16, "a storage in 16 bytes");

static inline __attribute__((always_inline)) void emit(struct builder *b, enum sched_cmd_kind kind, uint32_t id)
{
	struct schedule *s = b->s;
	XGROW(s->cmds, b->cap_cmds, s->n_cmds + 1);
	s->cmds[s->n_cmds].kind = kind;
	s->cmds[s->n_cmds].id = id;
	/* the storages' handles as a replay will count them */
	schedule_count_handles(s, &s->cmds[s->n_cmds], b->srefs);
	s->n_cmds++;
}

static uint32_t new_storage(struct builder *b, uint64_t size)
{
	struct schedule *s = b->s;
	XGROW(s->storages, b->cap_storages, s->n_storages + 1);
	XGROW(b->srefs, b->cap_srefs, s->n_storages + 1);
	XGROW(b->sgone, b->cap_sgone, s->n_storages + 1);
	b->srefs[s->n_storages] = 0;
	b->sgone[s->n_storages] = 0;
	struct sched_storage *st = &s->storages[s->n_storages];
	memset(st, 0, sizeof *st);
	st->size = size;
	return (uint32_t)s->n_storages++;
}

/* Start an op with the given argument tensors; outputs are added after. */
static uint32_t new_op(struct builder *b, const char *name, int64_t cost,
		       const uint32_t *args, size_t n_args, long line)
{
	struct schedule *s = b->s;
	XGROW(s->ops, b->cap_ops, s->n_ops + 1);
	struct sched_op *op = &s->ops[s->n_ops];
	memset(op, 0, sizeof *op);
	op->cost = cost;
	op->name = add_string(b, name);
	op->line = (uint32_t)line;
	op->backward = b->in_bwd;
	size_t first = s->n_op_args;
	XGROW(s->op_args, b->cap_args, first + n_args + 1);
	if (n_args)
		memcpy(s->op_args + first, args, n_args * sizeof *args);
	s->n_op_args += n_args;
	op->args = (uint32_t)first;
	op->n_args = (uint32_t)n_args;
	op->outs = (uint32_t)s->n_tensors;
	s->total_compute += cost;
	return (uint32_t)s->n_ops++;
}

/* Add output `index` of op: a view of argument `alias`, or new storage. */
static uint32_t new_output(struct builder *b, uint32_t op_id, int32_t alias,
			   uint64_t size, const char *name)
{
	struct schedule *s = b->s;
	struct sched_op *op = &s->ops[op_id];
	XGROW(s->tensors, b->cap_tensors, s->n_tensors + 1);
	XGROW(b->refs, b->cap_refs, s->n_tensors + 1);
	XGROW(b->mutated, b->cap_mutated, s->n_tensors + 1);
	uint32_t t = (uint32_t)s->n_tensors++;
	struct sched_tensor *st = &s->tensors[t];
	memset(st, 0, sizeof *st);
	st->op = op_id;
	op->n_outs++;
	st->alias = alias;
	st->name = add_string(b, name);
	if (alias >= 0) {
		st->storage = s->tensors[s->op_args[op->args + (uint32_t)alias]].storage;
		s->n_aliases++;
	} else {
		st->storage = new_storage(b, size);
		op->total_size += size;
	}
	b->refs[t] = 1;
	b->mutated[t] = 0;
	return t;
}

/* External references are counted per storage as commands are emitted
 * (schedule_count_handles), as the runtimes count them (a tensor and its
 * views together). Once a storage has none left,
 * the baseline replay (V1) discards it for good ("banishing"), and simrd
 * stops with an assertion on any later release, copy or use of it; so do
 * we, here, with the line. */
static bool storage_live(struct builder *b, const struct rec *r, uint32_t t, const char *name,
			 const char *what)
{
	if (b->srefs[b->s->tensors[t].storage] > 0)
		return true;
	problem(b, EXIT_DATAERR, r->line,
		"%s \"%s\", whose storage has no reference left (every handle to it and its "
		"views was released or re-pointed): the baseline replay has discarded it, "
		"and the reference simulator stops here too", what, name);
	return false;
}

/* Handle `name` lets go of tensor t (RELEASE, or re-pointed by MUTATE or
 * COPY_FROM). */
static void drop_ref(struct builder *b, const struct rec *r, uint32_t t, const char *name)
{
	if (!storage_live(b, r, t, name, r->kind == REC_RELEASE ? "RELEASE of" : "re-pointing"))
		return;
	b->refs[t]--;
	emit(b, CMD_RELEASE, t);
	if (b->srefs[b->s->tensors[t].storage] == 0)
		b->sgone[b->s->tensors[t].storage] = r->line;
}

static void finish_op(struct builder *b, uint32_t op_id)
{
	struct schedule *s = b->s;
	struct sched_op *op = &s->ops[op_id];
	if (op->total_size > s->max_output_size)
		s->max_output_size = op->total_size;
	if (op->constant) {
		s->n_constants++;
		s->const_memory += op->total_size;
	} else if (op->backward) {
		s->n_backward_ops++;
	} else {
		s->n_forward_ops++;
	}
	emit(b, CMD_COMPUTE, op_id);
}

/* ------------------------------------------------------------------ */
/* Records */

static enum record_kind kind_of(const char *instr, bool *ok)
{
	*ok = true;
	for (int k = 0; k < REC_KIND_COUNT; k++)
		if (!strcmp(instr, kind_names[k]))
			return (enum record_kind)k;
	*ok = false;
	return REC_ANNOTATE;
}

/* Give a record's decoded line back (kept for reuse). */
static void rec_drop(struct builder *b, struct rec *r)
{
	if (!r->doc)
		return;
	if (b->n_spare < (int)(sizeof b->spare / sizeof b->spare[0])) {
		b->spare[b->n_spare++] = r->doc;
	} else {
		jv_doc_free(r->doc);
		free(r->doc);
	}
	r->doc = NULL;
	r->j = NULL;
}

/*
 * Decode the next non-blank line into r. Returns 1 for a record, 0 at the
 * end, -1 for a broken line (reported; skipped by the caller).
 */
static int next_line(struct builder *b, struct rec *r)
{
	for (;;) {
		if (b->stop_line && b->line >= b->stop_line)
			return 0;
		const char *start;
		size_t len;
		struct rs_error e;
		int got = source_lines_next(b->in, &start, &len, &e);
		if (got == 0)
			return 0;
		if (got < 0) {
			source_problem(b, &e);
			return -1;
		}
		b->line++;
		while (len && (start[len - 1] == '\r' || start[len - 1] == ' ' || start[len - 1] == '\t'))
			len--;
		if (len == 0)
			continue; /* blank lines carry nothing */
		int column;
		char msg[256];
		r->doc = b->n_spare ? b->spare[--b->n_spare] : xcalloc(1, sizeof *r->doc);
		if (jv_parse(r->doc, start, len, &column, msg, sizeof msg)) {
			rec_drop(b, r);
			problem(b, EXIT_DATAERR, b->line, "invalid JSON at column %d: %s", column, msg);
			return -1;
		}
		const struct jv *j = r->doc->root;
		if (!jv_is_object(j)) {
			rec_drop(b, r);
			problem(b, EXIT_DATAERR, b->line, "a record must be a JSON object");
			return -1;
		}
		const struct jv *ins = jv_get(j, "INSTRUCTION");
		if (!jv_is_string(ins)) {
			rec_drop(b, r);
			problem(b, EXIT_DATAERR, b->line, "record has no string \"INSTRUCTION\" field");
			return -1;
		}
		bool ok;
		r->kind = kind_of(jv_str(ins), &ok);
		if (!ok) {
			problem(b, EXIT_DATAERR, b->line, "unknown instruction \"%s\"", jv_str(ins));
			rec_drop(b, r);
			return -1;
		}
		r->line = b->line;
		r->j = j;
		b->s->records[r->kind]++;
		return 1;
	}
}

/* Next record, honouring the pushback slot; skips broken lines. */
static int next_rec(struct builder *b, struct rec *r)
{
	if (b->has_pushed) {
		*r = b->pushed;
		b->has_pushed = false;
		return 1;
	}
	int rc;
	while ((rc = next_line(b, r)) < 0)
		if (stop(b))
			return -1;
	return rc;
}

static void push_back(struct builder *b, const struct rec *r)
{
	b->pushed = *r;
	b->has_pushed = true;
}

static const char *get_str(struct builder *b, const struct rec *r, const char *key)
{
	const struct jv *v = jv_get(r->j, key);
	if (jv_is_string(v))
		return jv_str(v);
	problem(b, EXIT_DATAERR, r->line, "%s record %s field \"%s\"", record_kind_name(r->kind),
		v ? "has a non-string" : "lacks the", key);
	return NULL;
}

/* A non-negative integer given as a string of digits or a JSON integer. */
static bool get_count(struct builder *b, const struct rec *r, const char *key, uint64_t *out)
{
	const struct jv *v = jv_get(r->j, key);
	if (!v) {
		problem(b, EXIT_DATAERR, r->line, "%s record lacks the \"%s\" field",
			record_kind_name(r->kind), key);
		return false;
	}
	if (jv_is_int(v)) {
		if (jv_int(v) < 0) {
			problem(b, EXIT_DATAERR, r->line, "%s is negative (%" PRId64 ")",
				key, jv_int(v));
			return false;
		}
		*out = (uint64_t)jv_int(v);
		return true;
	}
	if (jv_is_string(v)) {
		const char *p = jv_str(v);
		uint64_t x = 0;
		if (*p == '-') {
			problem(b, EXIT_DATAERR, r->line, "%s is negative (\"%s\")", key, p);
			return false;
		}
		if (!*p)
			goto bad;
		for (; *p; p++) {
			if (*p < '0' || *p > '9')
				goto bad;
			if (x > (UINT64_C(1) << 62) / 10) {
				problem(b, EXIT_DATAERR, r->line, "%s is too large (\"%s\")", key,
					jv_str(v));
				return false;
			}
			x = x * 10 + (uint64_t)(*p - '0');
		}
		*out = x;
		return true;
	}
bad:
	problem(b, EXIT_DATAERR, r->line, "%s must be a non-negative integer (a string of digits), not %s",
		key, jv_is_string(v) ? jv_str(v) : "a JSON value of another type");
	return false;
}

/* ALIAS: "-1" or "k" as a string, or a JSON integer; text (of size 48)
 * gets it as the log wrote it, for messages (a string past 64 bits is not
 * clamped there). */
static bool get_alias(struct builder *b, const struct rec *r, int64_t *out, char *text)
{
	const struct jv *v = jv_get(r->j, "ALIAS");
	if (jv_is_int(v)) {
		*out = jv_int(v);
		snprintf(text, 48, "%" PRId64, *out);
		return true;
	}
	if (jv_is_string(v)) {
		const char *p = jv_str(v);
		char *endp;
		errno = 0;
		long long x = strtoll(p, &endp, 10);
		if (*p && !*endp && (p[0] == '-' || (p[0] >= '0' && p[0] <= '9'))) {
			/* past 64 bits: out of range whatever the op (strtoll clamps) */
			*out = errno == ERANGE ? (x < 0 ? INT64_MIN : INT64_MAX) : x;
			snprintf(text, 48, "%.40s%s", p, strlen(p) > 40 ? "..." : "");
			return true;
		}
	}
	problem(b, EXIT_DATAERR, r->line, "ALIAS record %s \"ALIAS\" field (want \"-1\" or an argument index)",
		v ? "has a malformed" : "lacks the");
	return false;
}

/* An array of strings; returns the array (borrowed) or NULL. */
static const struct jv *get_names(struct builder *b, const struct rec *r, const char *key)
{
	const struct jv *v = jv_get(r->j, key);
	if (!jv_is_array(v)) {
		problem(b, EXIT_DATAERR, r->line, "%s record %s \"%s\" list", record_kind_name(r->kind),
			v ? "has a malformed" : "lacks the", key);
		return NULL;
	}
	for (size_t i = 0; i < jv_size(v); i++)
		if (!jv_is_string(jv_at(v, i))) {
			problem(b, EXIT_DATAERR, r->line, "%s[%zu] is not a string", key, i);
			return NULL;
		}
	return v;
}

/* Look up a handle that must exist: its tensor, or POISON (reported if unknown). */
static bool lookup(struct builder *b, const struct rec *r, const char *name, const char *role,
		   uint32_t *t)
{
	struct handle *h = handle_find(b, name);
	if (!h) {
		problem(b, EXIT_DATAERR, r->line, "%s names tensor \"%s\", which was never defined", role, name);
		return false;
	}
	*t = h->tensor;
	return true;
}

/* The tensors of a record's ARGS into targs: false if one is unknown or
 * its storage has no reference left (reported), *poisoned if one comes
 * from a broken record. */
static bool lookup_args(struct builder *b, const struct rec *r, const struct jv *args,
			uint32_t *targs, bool *poisoned)
{
	bool ok = true;
	for (size_t i = 0; i < jv_size(args) && !stop(b); i++) {
		const char *an = jv_str(jv_at(args, i));
		if (!lookup(b, r, an, "ARGS", &targs[i]))
			ok = false;
		else if (targs[i] == POISON)
			*poisoned = true;
		else if (!storage_live(b, r, targs[i], an, "ARGS use"))
			ok = false;
	}
	return ok;
}

/* ------------------------------------------------------------------ */
/* The walk */

static void poison_names(struct builder *b, const struct jv *names)
{
	for (size_t i = 0; names && i < jv_size(names); i++)
		handle_map(b, jv_str(jv_at(names, i)), POISON);
}

/* Read the MEMORY (and, for CALL, ALIAS) record that must follow for name. */
static bool expect_follow(struct builder *b, const struct rec *owner, enum record_kind want,
			  const char *name, struct rec *got)
{
	int rc = next_rec(b, got);
	if (rc <= 0) {
		if (rc == 0)
			problem(b, EXIT_DATAERR, owner->line,
				"%s of \"%s\" is not followed by its %s record (end of log)",
				record_kind_name(owner->kind), name, record_kind_name(want));
		return false;
	}
	if (got->kind != want) {
		problem(b, EXIT_DATAERR, got->line,
			"expected the %s record of \"%s\" (from the %s on line %ld), found %s",
			record_kind_name(want), name, record_kind_name(owner->kind), owner->line,
			record_kind_name(got->kind));
		/* Resynchronise: a record that starts something is replayed;
		 * a misplaced MEMORY/ALIAS belongs to this op and is dropped. */
		if (got->kind == REC_MEMORY || got->kind == REC_ALIAS)
			rec_drop(b, got);
		else
			push_back(b, got);
		return false;
	}
	const char *n = get_str(b, got, "NAME");
	if (!n) {
		rec_drop(b, got);
		return false;
	}
	if (strcmp(n, name) != 0) {
		problem(b, EXIT_DATAERR, got->line,
			"%s record names \"%s\" but the %s on line %ld expects \"%s\" here",
			record_kind_name(want), n, record_kind_name(owner->kind), owner->line, name);
		rec_drop(b, got);
		return false;
	}
	return true;
}

/* Bounds on a log's totals that keep the simulator's 64-bit counters
 * from overflowing (with room for remats, runtime.h's RT_REMAT_CAP, and
 * for budgets up to 10x the peak): the ops' TIME, each counted once per
 * result (a storage's compute is a sum of its ops' times), at most 2^60 ns
 * (36 years); the storages' MEMORY at most 2^60 bytes (1 EiB). Only
 * corrupt or adversarial logs come near them. */
#define MAX_TOTAL_TIME (UINT64_C(1) << 60)
#define MAX_TOTAL_BYTES (UINT64_C(1) << 60)

/* Whether an op (taking `time`, with n_outs results) and its new storages
 * (sizes[i] bytes each where alias is NULL or alias[i] < 0; their MEMORY
 * records on lines[i], or all on `line` when lines is NULL) stay within
 * the bounds; then they count towards them. Result i is named
 * list[idx[i]] (list[i] without idx), or `name` without list. */
static bool within_totals(struct builder *b, long line, uint64_t time, size_t n_outs,
			  const uint64_t *sizes, const int32_t *alias, const long *lines,
			  const struct jv *list, const size_t *idx, const char *name)
{
	if (n_outs > SCHED_MAX_IDS - b->s->n_tensors) {
		problem(b, EXIT_DATAERR, line,
			"the log has more than 2^29 tensors (results of its ops): the simulator's "
			"ids are 29 bits");
		return false;
	}
	uint64_t k = n_outs ? n_outs : 1; /* an op without results still takes time */
	if (time > MAX_TOTAL_TIME || time > (MAX_TOTAL_TIME - b->total_time) / k) {
		problem(b, EXIT_DATAERR, line,
			"TIME %" PRIu64 " takes the ops' total time (each op's counted once per "
			"result) past 2^60 ns: the simulator's counters would overflow",
			time);
		return false;
	}
	uint64_t bytes = b->total_bytes;
	for (size_t i = 0; i < n_outs; i++) {
		if (alias && alias[i] >= 0)
			continue;
		if (sizes[i] > MAX_TOTAL_BYTES - bytes) {
			problem(b, EXIT_DATAERR, lines ? lines[i] : line,
				"MEMORY of \"%s\" (%" PRIu64 " bytes) takes the storages' total past "
				"2^60 bytes: the simulator's memory counters would overflow",
				list ? jv_str(jv_at(list, idx ? idx[i] : i)) : name, sizes[i]);
			return false;
		}
		bytes += sizes[i];
	}
	b->total_time += time * k;
	b->total_bytes = bytes;
	return true;
}

static void do_constant(struct builder *b, const struct rec *r)
{
	const char *name = get_str(b, r, "NAME");
	if (!name)
		return;
	struct rec m;
	uint64_t size;
	if (!expect_follow(b, r, REC_MEMORY, name, &m)) {
		handle_map(b, name, POISON);
		return;
	}
	bool ok = get_count(b, &m, "MEMORY", &size) &&
		  within_totals(b, m.line, 0, 1, &size, NULL, NULL, NULL, NULL, name);
	rec_drop(b, &m);
	if (!ok) {
		handle_map(b, name, POISON);
		return;
	}
	uint32_t op = new_op(b, "constant", 0, NULL, 0, r->line);
	b->s->ops[op].constant = 1;
	uint32_t t = new_output(b, op, -1, size, name);
	finish_op(b, op);
	emit(b, CMD_PIN, t);
	handle_map(b, name, t);
}

static int by_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A CALL's WRITES list: distinct argument indices (JSON integers). */
static bool get_writes(struct builder *b, const struct rec *r, const struct jv *wr, size_t n_args)
{
	if (!jv_is_array(wr)) {
		problem(b, EXIT_DATAERR, r->line, "CALL record has a malformed \"WRITES\" list "
			"(want a list of argument indices)");
		return false;
	}
	struct u64set seen = {0};
	bool ok = true;
	for (size_t i = 0; ok && i < jv_size(wr); i++) {
		const struct jv *v = jv_at(wr, i);
		if (!jv_is_int(v) || jv_int(v) < 0 || jv_int(v) >= (int64_t)n_args) {
			char shown[64] = "not an integer";
			if (jv_is_int(v))
				snprintf(shown, sizeof shown, "%" PRId64, jv_int(v));
			problem(b, EXIT_DATAERR, r->line,
				"WRITES[%zu] (%s) is out of range: the op has %zu argument%s", i, shown,
				n_args, n_args == 1 ? "" : "s");
			ok = false;
		} else if (!u64set_add(&seen, (uint64_t)jv_int(v))) {
			problem(b, EXIT_DATAERR, r->line, "WRITES lists argument %" PRId64 " twice",
				jv_int(v));
			ok = false;
		}
	}
	u64set_free(&seen);
	return ok;
}

static void do_call(struct builder *b, const struct rec *r)
{
	const char *name = get_str(b, r, "NAME");
	const struct jv *args = get_names(b, r, "ARGS");
	const struct jv *res = get_names(b, r, "RESULT");
	uint64_t time = 0;
	bool ok = name && args && res && get_count(b, r, "TIME", &time);
	size_t n_args = args ? jv_size(args) : 0;
	size_t n_res = res ? jv_size(res) : 0;
	if (res && !n_res) {
		/* The reference simulator cannot parse such a record (its CALL
		 * reader unpacks the MEMORY/ALIAS pairs of at least one result),
		 * and its runtime materializes an op through its first output. */
		problem(b, EXIT_DATAERR, r->line,
			"CALL \"%s\" has an empty RESULT list: an op with no outputs cannot be "
			"replayed (the reference simulator rejects it too)", name ? name : "?");
		ok = false;
		res = NULL;
	}
	uint64_t *sizes = xcalloc(n_res + 1, sizeof *sizes);
	long *mlines = xcalloc(n_res + 1, sizeof *mlines);
	int32_t *alias = xcalloc(n_res + 1, sizeof *alias);
	uint32_t *targs = xcalloc(n_args + 1, sizeof *targs);
	bool poisoned = false;

	/* The MEMORY/ALIAS pairs come first: read them even if the CALL is broken. */
	for (size_t i = 0; i < n_res && !stop(b); i++) {
		const char *rn = jv_str(jv_at(res, i));
		struct rec m, a;
		if (!expect_follow(b, r, REC_MEMORY, rn, &m)) {
			ok = false;
			break;
		}
		if (!get_count(b, &m, "MEMORY", &sizes[i]))
			ok = false;
		mlines[i] = m.line;
		rec_drop(b, &m);
		if (!expect_follow(b, r, REC_ALIAS, rn, &a)) {
			ok = false;
			break;
		}
		int64_t k;
		char ktext[48];
		if (!get_alias(b, &a, &k, ktext)) {
			ok = false;
		} else if (k < -1 || k >= (int64_t)n_args) {
			problem(b, EXIT_DATAERR, a.line,
				"ALIAS %s of \"%s\" is out of range: the op has %zu argument%s",
				ktext, rn, n_args, n_args == 1 ? "" : "s");
			ok = false;
		} else {
			alias[i] = (int32_t)k;
		}
		rec_drop(b, &a);
	}
	if (!lookup_args(b, r, args, targs, &poisoned))
		ok = false;
	for (size_t i = 0; ok && i < n_res; i++) {
		const char *rn = jv_str(jv_at(res, i));
		struct handle *h = handle_find(b, rn);
		if (h && h->tensor != POISON) {
			problem(b, EXIT_DATAERR, r->line, "RESULT \"%s\" is already defined", rn);
			ok = false;
		}
	}
	if (ok && n_res > 1) {
		/* A name listed twice, found by sorting (n log n: a crafted
		 * record may list a million results). */
		const char **names = xcalloc(n_res, sizeof *names);
		for (size_t i = 0; i < n_res; i++)
			names[i] = jv_str(jv_at(res, i));
		qsort(names, n_res, sizeof *names, by_name);
		for (size_t i = 1; i < n_res && ok; i++)
			if (!strcmp(names[i - 1], names[i])) {
				problem(b, EXIT_DATAERR, r->line, "RESULT \"%s\" is listed twice",
					names[i]);
				ok = false;
			}
		free(names);
	}
	const struct jv *wr = jv_get(r->j, "WRITES");
	size_t n_wr = 0;
	if (ok && wr && !get_writes(b, r, wr, n_args))
		ok = false;
	else if (wr)
		n_wr = jv_size(wr);
	if (ok && !poisoned)
		ok = within_totals(b, r->line, time, n_res, sizes, alias, mlines, res, NULL, NULL);
	if (!ok || poisoned) {
		poison_names(b, res);
		goto out;
	}
	if (strstr(name, "backward"))
		b->in_bwd = true;
	uint32_t op = new_op(b, name, (int64_t)time, targs, n_args, r->line);
	if (n_wr) {
		/* this op's arguments are the last op_args entries: sorting its
		 * (distinct) indices keeps the list ascending */
		struct schedule *s = b->s;
		XGROW(s->writes, b->cap_writes, s->n_writes + n_wr);
		uint32_t *w = s->writes + s->n_writes;
		for (size_t i = 0; i < n_wr; i++)
			w[i] = s->ops[op].args + (uint32_t)jv_int(jv_at(wr, i));
		qsort(w, n_wr, sizeof *w, by_u32);
		s->n_writes += n_wr;
	}
	uint32_t *outs = xcalloc(n_res + 1, sizeof *outs);
	for (size_t i = 0; i < n_res; i++)
		outs[i] = new_output(b, op, alias[i], alias[i] >= 0 ? 0 : sizes[i],
				     jv_str(jv_at(res, i)));
	finish_op(b, op);
	for (size_t i = 0; i < n_res; i++)
		handle_map(b, jv_str(jv_at(res, i)), outs[i]);
	free(outs);
out:
	free(sizes);
	free(mlines);
	free(alias);
	free(targs);
}

static void do_mutate(struct builder *b, const struct rec *r)
{
	const char *name = get_str(b, r, "NAME");
	const struct jv *args = get_names(b, r, "ARGS");
	const struct jv *mut = jv_get(r->j, "MUTATE");
	uint64_t time = 0;
	bool ok = name && args && get_count(b, r, "TIME", &time);
	if (!jv_is_array(mut)) {
		problem(b, EXIT_DATAERR, r->line, "MUTATE record %s \"MUTATE\" list",
			mut ? "has a malformed" : "lacks the");
		return;
	}
	if (!ok)
		return;
	size_t n_args = jv_size(args), n_mut = jv_size(mut);
	if (!n_mut) {
		/* simrd builds an op with no outputs from it, then fails to
		 * materialize it (its runtime computes an op through its first
		 * output): refuse it here, with the line. */
		problem(b, EXIT_DATAERR, r->line,
			"MUTATE \"%s\" has an empty MUTATE list: an op that changes no argument "
			"cannot be replayed (the reference simulator rejects it too)", name);
		return;
	}
	uint32_t *targs = xcalloc(n_args + 1, sizeof *targs);
	size_t *idx = xcalloc(n_mut + 1, sizeof *idx);
	bool poisoned = false;
	for (size_t i = 0; ok && i < n_mut; i++) {
		const struct jv *v = jv_at(mut, i);
		if (!jv_is_int(v) || jv_int(v) < 0 ||
		    jv_int(v) >= (int64_t)n_args) {
			char shown[64] = "not an integer";
			if (jv_is_int(v))
				snprintf(shown, sizeof shown, "%" PRId64, jv_int(v));
			problem(b, EXIT_DATAERR, r->line,
				"MUTATE[%zu] (%s) is out of range: the op has %zu argument%s", i, shown,
				n_args, n_args == 1 ? "" : "s");
			ok = false;
		} else {
			idx[i] = (size_t)jv_int(v);
		}
	}
	if (ok && !lookup_args(b, r, args, targs, &poisoned))
		ok = false;
	/* simrd names a mutated tensor's new version after it (x7 -> x7$), so a
	 * tensor can be mutated once: a second MUTATE of it (through a copy of
	 * a handle that was mutated since, or the same argument listed twice)
	 * is a duplicate name there. */
	bool twice = false;
	struct u64set seen = {0}; /* tensors met so far in this record: linear time */
	for (size_t i = 0; ok && !poisoned && !twice && i < n_mut; i++) {
		uint32_t t = targs[idx[i]];
		const char *an = jv_str(jv_at(args, idx[i]));
		bool again = !u64set_add(&seen, t);
		if (again || b->mutated[t]) {
			if (again)
				problem(b, EXIT_DATAERR, r->line,
					"MUTATE changes the tensor of \"%s\" twice in one record", an);
			else
				problem(b, EXIT_DATAERR, r->line,
					"MUTATE of \"%s\" changes a tensor already changed by the MUTATE on "
					"line %u (through another handle to it): the reference simulator "
					"names each new version after the old tensor and rejects a repeat",
					an, b->mutated[t]);
			twice = true;
		}
	}
	u64set_free(&seen);
	if (ok && !poisoned && !twice) {
		uint64_t *sizes = xcalloc(n_mut + 1, sizeof *sizes);
		for (size_t i = 0; i < n_mut; i++)
			sizes[i] = schedule_tensor_bytes(b->s, targs[idx[i]]);
		ok = within_totals(b, r->line, time, n_mut, sizes, NULL, NULL, args, idx, NULL);
		free(sizes);
	}
	if (!ok || poisoned || twice) {
		for (size_t i = 0; i < n_mut && ok; i++)
			handle_map(b, jv_str(jv_at(args, idx[i])), POISON);
		goto out;
	}
	for (size_t i = 0; i < n_mut; i++)
		b->mutated[targs[idx[i]]] = (uint32_t)r->line;
	if (strstr(name, "backward"))
		b->in_bwd = true;
	uint32_t op = new_op(b, name, (int64_t)time, targs, n_args, r->line);
	b->s->ops[op].mutate = 1;
	uint32_t first = (uint32_t)b->s->n_tensors;
	for (size_t i = 0; i < n_mut; i++)
		new_output(b, op, -1, schedule_tensor_bytes(b->s, targs[idx[i]]),
			   jv_str(jv_at(args, idx[i])));
	finish_op(b, op);
	for (size_t i = 0; i < n_mut; i++) {
		const char *an = jv_str(jv_at(args, idx[i]));
		uint32_t old = POISON;
		lookup(b, r, an, "ARGS", &old); /* the current tensor of that name */
		handle_map(b, an, first + (uint32_t)i);
		if (old != POISON)
			drop_ref(b, r, old, an);
	}
out:
	free(targs);
	free(idx);
}

static void do_copy(struct builder *b, const struct rec *r, bool from)
{
	const char *dst = get_str(b, r, "DST");
	const char *src = get_str(b, r, "SRC");
	if (!dst || !src)
		return;
	uint32_t ts, old = POISON;
	if (!lookup(b, r, src, "SRC", &ts)) {
		handle_map(b, dst, POISON);
		return;
	}
	struct handle *hd = handle_find(b, dst);
	if (from) {
		if (!hd) {
			problem(b, EXIT_DATAERR, r->line, "COPY_FROM into \"%s\", which was never defined", dst);
			return;
		}
		old = hd->tensor;
	} else if (hd && hd->tensor != POISON) {
		problem(b, EXIT_DATAERR, r->line, "COPY to \"%s\", which is already defined", dst);
		return;
	}
	if (from && old != POISON && old == ts && b->srefs[b->s->tensors[ts].storage] == 1) {
		problem(b, EXIT_DATAERR, r->line,
			"COPY_FROM re-points \"%s\" at its own tensor, dropping the last reference to "
			"its storage before taking it again: the reference simulator stops on this",
			dst);
		return;
	}
	handle_map(b, dst, ts);
	if (from && old != POISON)
		drop_ref(b, r, old, dst);
	if (ts != POISON && storage_live(b, r, ts, src, from ? "COPY_FROM from" : "COPY from")) {
		b->refs[ts]++;
		emit(b, CMD_GET, ts);
	}
}

static void do_release(struct builder *b, const struct rec *r)
{
	const char *name = get_str(b, r, "NAME");
	if (!name)
		return;
	struct handle *h = handle_find(b, name);
	if (!h || h->tensor == POISON)
		return; /* releases of unknown names are ignored, as the reference does */
	drop_ref(b, r, h->tensor, name);
}

/* ANNOTATE ENTER / EXIT: a module call begins or ends (docs/log-format.md). */
static void do_module(struct builder *b, const struct rec *r, bool enter)
{
	struct schedule *s = b->s;
	const char *m = get_str(b, r, "MODULE");
	if (!m)
		return;
	if (!*m) {
		problem(b, EXIT_DATAERR, r->line, "%s has an empty MODULE name", enter ? "ENTER" : "EXIT");
		return;
	}
	const struct jv *ty = enter ? jv_get(r->j, "TYPE") : NULL;
	if (ty && !jv_is_string(ty)) {
		problem(b, EXIT_DATAERR, r->line, "ENTER record has a non-string field \"TYPE\"");
		return;
	}
	if (!enter) {
		if (!b->n_open) {
			problem(b, EXIT_DATAERR, r->line,
				"EXIT of module \"%s\", but no module call is open (no ENTER before it)", m);
			return;
		}
		const struct sched_mark *top = &s->marks[b->open[b->n_open - 1]];
		if (strcmp(schedule_str(s, top->name), m)) {
			problem(b, EXIT_DATAERR, r->line,
				"EXIT of module \"%s\", but the innermost open call is of \"%s\" "
				"(ENTER on line %u): calls must nest", m, schedule_str(s, top->name),
				top->line);
			return;
		}
		b->n_open--;
	}
	XGROW(s->marks, b->cap_marks, s->n_marks + 1);
	struct sched_mark *k = &s->marks[s->n_marks];
	k->op = (uint32_t)s->n_ops;
	k->name = add_string(b, m);
	k->type = enter && ty ? add_string(b, jv_str(ty)) : 0;
	k->line = (uint32_t)r->line;
	k->enter = enter;
	if (enter) {
		XGROW(b->open, b->cap_open, b->n_open + 1);
		b->open[b->n_open++] = (uint32_t)s->n_marks;
	}
	s->n_marks++;
}

static void do_record(struct builder *b, struct rec *r)
{
	switch (r->kind) {
	case REC_ANNOTATE: {
		const char *a = get_str(b, r, "ANNOTATION");
		if (a && !strcmp(a, "BACKWARD"))
			b->in_bwd = true;
		else if (a && (!strcmp(a, "ENTER") || !strcmp(a, "EXIT")))
			do_module(b, r, a[1] == 'N');
		else if (a && strcmp(a, "START"))
			/* LOG-FORMAT.md knows these; a typo would silently lose the
			 * backward marker or the warm-up split. */
			problem(b, EXIT_DATAERR, r->line,
				"unknown ANNOTATION \"%s\": START, BACKWARD, ENTER or EXIT is expected", a);
		break; /* START (a later one) changes nothing */
	}
	case REC_CONSTANT:
		do_constant(b, r);
		break;
	case REC_CALL:
		do_call(b, r);
		break;
	case REC_MUTATE:
		do_mutate(b, r);
		break;
	case REC_COPY:
		do_copy(b, r, false);
		break;
	case REC_COPY_FROM:
		do_copy(b, r, true);
		break;
	case REC_RELEASE:
		do_release(b, r);
		break;
	case REC_MEMORY:
	case REC_ALIAS:
		problem(b, EXIT_DATAERR, r->line, "stray %s record: it must follow a %s",
			record_kind_name(r->kind), r->kind == REC_MEMORY ? "CONSTANT or CALL" : "CALL");
		break;
	case REC_KIND_COUNT:
		break;
	}
}

/* Is line [p, q) an ANNOTATE START record? */
static bool is_start_line(const char *p, size_t len)
{
	struct jv_doc d = {0};
	int column;
	char msg[256];
	bool yes = jv_parse(&d, p, len, &column, msg, sizeof msg) == 0 &&
		   jv_is_object(d.root) &&
		   jv_is_string(jv_get(d.root, "INSTRUCTION")) &&
		   !strcmp(jv_str(jv_get(d.root, "INSTRUCTION")), "ANNOTATE") &&
		   jv_is_string(jv_get(d.root, "ANNOTATION")) &&
		   !strcmp(jv_str(jv_get(d.root, "ANNOTATION")), "START");
	jv_doc_free(&d);
	return yes;
}

/* The window of a streamed log (it grows for a longer line). A log whose
 * text is no longer than SMALL_LOG is read once into memory and parsed
 * there: the paper's logs (at most 2.8 MB) are not inflated twice. */
#define STREAM_WINDOW ((size_t)1 << 20)
#define SMALL_LOG ((size_t)8 << 20)

/* Open the lines of the log: spec streamed, else data in memory. */
static int open_lines(const char *spec, const char *data, size_t len, struct source **src,
		      struct source_lines *l, struct rs_error *err)
{
	*src = NULL;
	if (!spec) {
		source_lines_mem(l, data, len);
		return 0;
	}
	if (source_open(spec, src, err) < 0)
		return -1;
	source_lines_src(l, *src, STREAM_WINDOW, NULL, 0, 0);
	return 0;
}

static void free_whole(char *whole, size_t whole_cap)
{
	if (whole_cap)
		source_unmap(whole, whole_cap);
	else
		free(whole);
}

/* What the second pass of a streamed log must read again: the same file
 * (a log replaced by `mv` is another), as many bytes, the same check
 * digest (a log rewritten in place). */
struct pass1 {
	uint64_t bytes;
	uint64_t check;
	struct source_file_id id;
};

void (*schedule_test_between_passes)(const char *spec);

/*
 * The first pass: the line of the first START record (0 if none), the
 * digest, and for a streamed log every error of its source (a truncated
 * gzip, a zip CRC, a limit), which must come before any record's, as when
 * the log was loaded whole. Only lines up to START are split. A source of
 * at most SMALL_LOG bytes is given whole in *whole instead (free it with
 * free_whole).
 */
static int scan(const char *spec, const char *data, size_t len, bool digest, uint8_t sha[32],
		long *start_line, char **whole, size_t *whole_len, size_t *whole_cap,
		struct pass1 *p1, struct rs_error *err)
{
	struct source *src = NULL;
	struct source_lines l;
	*start_line = 0;
	*whole = NULL;
	*whole_len = *whole_cap = 0;
	if (!spec) {
		source_lines_mem(&l, data, len);
		if (digest)
			sha256(data, len, sha);
	} else {
		if (source_open(spec, &src, err) < 0)
			return -1;
		if (digest)
			source_digest(src);
		const size_t piece = (size_t)1 << 16; /* source_read's least */
		/* The paper's logs (1 MB) fit a first malloc'ed block, reused
		 * from one read to the next (fresh pages cost a fault each);
		 * past it, the bytes move once to a mapping of SMALL_LOG
		 * (source_map says why). A pipe cannot be read twice, so it
		 * is read whole, as any log was before. */
		bool whole_only = !source_reopenable(src);
		size_t cap = STREAM_WINDOW + 2 * piece, n = 0;
		char *buf = xmalloc(cap);
		bool mapped = false;
		long got = 1;
		while (n < SMALL_LOG || (whole_only && got > 0)) {
			if (cap - n < piece) {
				size_t more = mapped ? 2 * cap : SMALL_LOG + piece;
				char *bigger = source_map(more);
				memcpy(bigger, buf, n);
				if (mapped)
					source_unmap(buf, cap);
				else
					free(buf);
				buf = bigger;
				cap = more;
				mapped = true;
			}
			if ((got = source_read(src, buf + n, cap - n, err)) <= 0)
				break;
			n += (size_t)got;
		}
		if (got < 0) {
			if (mapped)
				source_unmap(buf, cap);
			else
				free(buf);
			source_close(src);
			return -1;
		}
		if (got == 0) { /* all of it */
			if (digest)
				source_sha256(src, sha);
			source_close(src);
			src = NULL;
			*whole = buf;
			*whole_len = n;
			*whole_cap = mapped ? cap : 0; /* 0: malloc'ed */
			source_lines_mem(&l, buf, n);
		} else {
			/* read twice: the second pass must read these bytes again */
			source_check_start(src, buf, n);
			source_lines_src(&l, src, STREAM_WINDOW, buf, n, cap);
			/* a line over the limit is an error of the source: not kept */
			uint64_t max = rs_limit(RS_MAX_LINE_ENV, RS_MAX_LINE_DEFAULT);
			l.max_line = max == UINT64_MAX ? 0 : max;
		}
	}
	const char *p;
	size_t n;
	long line = 0;
	int rc;
	while ((rc = source_lines_next(&l, &p, &n, err)) > 0) {
		line++;
		if (memmem(p, n, "\"START\"", 7) && is_start_line(p, n)) {
			*start_line = line;
			break;
		}
	}
	if (rc >= 0 && src) {
		long got;
		while ((got = source_read(src, l.buf, l.cap, err)) > 0)
			;
		rc = got < 0 ? -1 : 0;
		if (rc == 0 && digest)
			source_sha256(src, sha);
		p1->bytes = source_bytes(src);
		p1->check = source_check_digest(src);
		p1->id = source_file_id(src);
	}
	source_lines_free(&l);
	source_close(src);
	if (rc < 0) {
		free_whole(*whole, *whole_cap);
		*whole = NULL;
		return -1;
	}
	return 0;
}

/* The final pins of live outputs (or their preallocation). */
static void finish_outputs(struct builder *b)
{
	struct schedule *s = b->s;
	uint8_t *seen = b->opt->preallocate ? xcalloc(s->n_tensors + 1, 1) : NULL;
	for (size_t i = 0; i < b->n_handles; i++) {
		uint32_t t = b->handles[i].tensor;
		if (t == POISON || b->refs[t] <= 0)
			continue;
		uint32_t sid = s->tensors[t].storage;
		if (!b->opt->preallocate && b->srefs[sid] <= 0) {
			/* The release that emptied the storage left this handle's
			 * tensor with a reference: the baseline replay has discarded
			 * the storage, which its final pin would need, and simrd
			 * asserts at that release (a storage banished with a live
			 * tensor). Any later use of the handle is refused by
			 * storage_live; this is the case of a handle never used again. */
			problem(b, EXIT_DATAERR, b->sgone[sid],
				"this drops the last reference to a storage that \"%s\" still holds at "
				"the end (a tensor released through another handle to it or its views): "
				"the baseline replay discards the storage, which that handle's final pin "
				"needs, and the reference simulator stops here", schedule_str(s, b->handles[i].name));
			continue;
		}
		if (!b->opt->preallocate) {
			emit(b, CMD_PIN, t);
			s->n_pins_final++;
			continue;
		}
		/* The reference keys outputs by the tensor a view was taken of
		 * (one step, not the root) and counts each key once. */
		const struct sched_tensor *st = &s->tensors[t];
		uint32_t key = st->alias >= 0 ? s->op_args[s->ops[st->op].args + (uint32_t)st->alias] : t;
		if (!seen[key]) {
			seen[key] = 1;
			s->output_ram += schedule_tensor_bytes(s, t);
		}
	}
	free(seen);
}

/* The derived lists of struct schedule that replays read (see there):
 * storage-level edges in the order runtime-commands.c's rt_cmd_compute meets them. */
static void build_replay_lists(struct schedule *s)
{
	const size_t nt = s->n_tensors, ns = s->n_storages;
	s->tensor_storage = xmalloc((nt + 1) * sizeof *s->tensor_storage);
	for (size_t t = 0; t < nt; t++)
		s->tensor_storage[t] = s->tensors[t].storage;
	s->arg_storage = xmalloc((s->n_op_args + 1) * sizeof *s->arg_storage);
	for (size_t i = 0; i < s->n_op_args; i++)
		s->arg_storage[i] = s->tensor_storage[s->op_args[i]];

	uint32_t *nf = xcalloc(ns + 1, sizeof *nf), *nr = xcalloc(ns + 1, sizeof *nr);
	for (size_t o = 0; o < s->n_ops; o++) {
		const struct sched_op *op = &s->ops[o];
		for (uint32_t k = 0; k < op->n_outs; k++)
			nr[s->tensor_storage[op->outs + k]] += op->n_args;
		for (uint32_t a = 0; a < op->n_args; a++)
			nf[s->arg_storage[op->args + a]] += op->n_outs;
	}
	s->storage_fwd_off = xmalloc((ns + 1) * sizeof *s->storage_fwd_off);
	s->storage_rev_off = xmalloc((ns + 1) * sizeof *s->storage_rev_off);
	uint32_t af = 0, ar = 0;
	for (size_t x = 0; x < ns; x++) {
		s->storage_fwd_off[x] = af;
		s->storage_rev_off[x] = ar;
		af += nf[x];
		ar += nr[x];
		nf[x] = nr[x] = 0;
	}
	s->storage_fwd_off[ns] = af;
	s->storage_rev_off[ns] = ar;
	s->storage_fwd = xmalloc(((size_t)af + 1) * sizeof *s->storage_fwd);
	s->storage_rev = xmalloc(((size_t)ar + 1) * sizeof *s->storage_rev);
	for (size_t o = 0; o < s->n_ops; o++) {
		const struct sched_op *op = &s->ops[o];
		for (uint32_t k = 0; k < op->n_outs; k++) {
			uint32_t os = s->tensor_storage[op->outs + k];
			for (uint32_t a = 0; a < op->n_args; a++)
				s->storage_rev[s->storage_rev_off[os] + nr[os]++] = s->arg_storage[op->args + a];
		}
		for (uint32_t a = 0; a < op->n_args; a++) {
			uint32_t ps = s->arg_storage[op->args + a];
			for (uint32_t k = 0; k < op->n_outs; k++)
				s->storage_fwd[s->storage_fwd_off[ps] + nf[ps]++] = s->tensor_storage[op->outs + k];
		}
	}
	free(nf);
	free(nr);
}

/* Storage members, as CSR. */
static void build_lists(struct schedule *s)
{
	uint32_t acc;
	for (size_t t = 0; t < s->n_tensors; t++)
		s->storages[s->tensors[t].storage].n_tensors++;
	s->storage_tensors = xmalloc((s->n_tensors + 1) * sizeof *s->storage_tensors);
	acc = 0;
	for (size_t i = 0; i < s->n_storages; i++) {
		s->storages[i].tensors = acc;
		acc += s->storages[i].n_tensors;
		s->storages[i].n_tensors = 0;
	}
	for (size_t t = 0; t < s->n_tensors; t++) {
		struct sched_storage *st = &s->storages[s->tensors[t].storage];
		s->storage_tensors[st->tensors + st->n_tensors++] = (uint32_t)t;
	}
	build_replay_lists(s);
}

/* Build from spec, streamed, or else from data in memory. An error of the
 * source found by the first pass goes to *src_err (returns -1) when
 * src_err is given, else it is the build's first problem. */
static int build(const char *name, const char *spec, const char *data, size_t len,
		 const struct read_options *opt, struct schedule **out, struct rs_error *err,
		 int max_errors, void (*report)(void *, const struct rs_error *), void *ctx,
		 struct rs_error *src_err)
{
	static const struct read_options defaults = {0};
	long start_line = 0;
	uint8_t sha[32] = {0};
	struct rs_error e = {0};
	char *whole;
	size_t whole_len, whole_cap = 0;
	struct pass1 p1 = {0};
	int scanned = scan(spec, data, len, opt && opt->digest, sha, &start_line, &whole, &whole_len,
			   &whole_cap, &p1, &e);
	if (whole) { /* a small log: parsed in memory */
		spec = NULL;
		data = whole;
		len = whole_len;
	}
	if (scanned < 0 && src_err) {
		*src_err = e;
		*out = NULL;
		return -1;
	}
	struct builder b;
	memset(&b, 0, sizeof b);
	b.file = name;
	b.opt = opt ? opt : &defaults;
	b.max_errors = max_errors;
	b.err = err;
	b.report = report;
	b.report_ctx = ctx;
	b.s = xcalloc(1, sizeof *b.s);
	struct schedule *s = b.s;
	s->source = xstrdup(name);
	s->preallocate = b.opt->preallocate;
	add_string(&b, ""); /* offset 0: the empty name */

	struct source *src = NULL;
	struct source_lines lines = {0};
	if (b.opt->digest)
		memcpy(s->sha256, sha, sizeof sha);
	if (scanned == 0 && spec && schedule_test_between_passes)
		schedule_test_between_passes(spec);
	if (scanned < 0 || open_lines(spec, data, len, &src, &lines, &e) < 0)
		source_problem(&b, &e);
	if (src) { /* the second pass: the same file, digested again */
		struct source_file_id id = source_file_id(src);
		if (id.dev != p1.id.dev || id.ino != p1.id.ino)
			/* not even the same file: its records are not the log's */
			problem(&b, EXIT_IOERR, 0, "changed while it was read (replaced by another "
				"file of that name between the two passes: docs/reader.md): read it "
				"again once it is written");
		source_check_start(src, NULL, 0);
	}
	b.in = &lines;
	s->has_start = start_line > 0;
	s->from_start = b.opt->from_start || !start_line;
	if (!stop(&b) && !s->from_start) {
		/* Validate and count the warm-up records, replay nothing of them. */
		b.stop_line = start_line;
		struct rec r;
		int rc;
		while ((rc = next_rec(&b, &r)) > 0)
			rec_drop(&b, &r);
		b.stop_line = 0;
		s->skipped_lines = (uint64_t)start_line;
	}
	struct rec r;
	int rc;
	while (!stop(&b) && (rc = next_rec(&b, &r)) > 0) {
		do_record(&b, &r);
		rec_drop(&b, &r);
	}
	if (b.has_pushed)
		rec_drop(&b, &b.pushed);
	if (src && !stop(&b) && source_bytes(src) != p1.bytes)
		/* read to its end both times, but not the same */
		problem(&b, EXIT_IOERR, 0, "changed while it was read (%" PRIu64 " bytes, then %" PRIu64
			"): read it again once it is written", p1.bytes, source_bytes(src));
	else if (src && !stop(&b) && source_check_digest(src) != p1.check)
		/* as many bytes, other bytes: rewritten in place */
		problem(&b, EXIT_IOERR, 0, "changed while it was read (the same %" PRIu64 " bytes, "
			"but other bytes the second time: docs/reader.md): read it again once it "
			"is written", p1.bytes);
	source_lines_free(&lines);
	source_close(src);
	free_whole(whole, whole_cap);
	s->lines = (uint64_t)b.line;
	for (size_t i = 0; i < b.n_open && !stop(&b); i++) {
		const struct sched_mark *k = &s->marks[b.open[i]];
		problem(&b, EXIT_DATAERR, k->line,
			"module \"%s\" is entered here and never exited (no EXIT record)",
			schedule_str(s, k->name));
	}
	if (!stop(&b) && s->n_ops == 0 && b.n_errors == 0) {
		if (b.line == 0)
			problem(&b, EXIT_DATAERR, 0, "empty log: no records");
		else
			problem(&b, EXIT_DATAERR, 0, "the log replays no op (%ld lines, none a CALL, MUTATE or CONSTANT%s)",
				b.line, s->from_start ? "" : " after START");
	}
	if (b.n_errors == 0) {
		finish_outputs(&b);
		build_lists(s);
		s->n_handles = b.n_handles;
	}
	for (int i = 0; i < b.n_spare; i++) {
		jv_doc_free(b.spare[i]);
		free(b.spare[i]);
	}
	free(b.handles);
	free(b.table);
	free(b.stable);
	free(b.refs);
	free(b.mutated);
	free(b.srefs);
	free(b.sgone);
	free(b.open);
	if (b.n_errors) {
		schedule_free(s);
		*out = NULL;
		return b.n_errors;
	}
	*out = s;
	return 0;
}

int schedule_parse(const char *name, const char *data, size_t len,
		   const struct read_options *opt, struct schedule **out, struct rs_error *err)
{
	return build(name, NULL, data, len, opt, out, err, 1, NULL, NULL, NULL) ? -1 : 0;
}

int schedule_check(const char *name, const char *data, size_t len, const struct read_options *opt,
		   int max_problems, void (*report)(void *ctx, const struct rs_error *e), void *ctx)
{
	struct schedule *s = NULL;
	int n = build(name, NULL, data, len, opt, &s, NULL, max_problems, report, ctx, NULL);
	schedule_free(s);
	return n;
}

int schedule_check_read(const char *spec, const struct read_options *opt, int max_problems,
			void (*report)(void *ctx, const struct rs_error *e), void *ctx,
			struct rs_error *err)
{
	struct schedule *s = NULL;
	int n = build(spec, spec, NULL, 0, opt, &s, NULL, max_problems, report, ctx, err);
	schedule_free(s);
	return n;
}

int schedule_read(const char *spec, const struct read_options *opt, struct schedule **out,
		  struct rs_error *err)
{
	*out = NULL;
	return build(spec, spec, NULL, 0, opt, out, err, 1, NULL, NULL, NULL) ? -1 : 0;
}

void schedule_free(struct schedule *s)
{
	if (!s)
		return;
	free(s->source);
	free(s->cmds);
	free(s->ops);
	free(s->tensors);
	free(s->storages);
	free(s->op_args);
	free(s->storage_tensors);
	free(s->tensor_storage);
	free(s->arg_storage);
	free(s->storage_fwd);
	free(s->storage_fwd_off);
	free(s->storage_rev);
	free(s->storage_rev_off);
	free(s->strings);
	free(s->marks);
	free(s->writes);
	free(s);
}

uint64_t schedule_floor(const struct schedule *s, bool v1)
{
	uint8_t *seen = xcalloc(s->n_storages / 8 + 1, 1);
	uint64_t bytes = 0;
	size_t from = v1 ? s->n_cmds - s->n_pins_final : 0;
	for (size_t i = from; i < s->n_cmds; i++) {
		if (s->cmds[i].kind != CMD_PIN)
			continue;
		uint32_t st = s->tensors[s->cmds[i].id].storage;
		if (!(seen[st / 8] & (1u << (st % 8)))) {
			seen[st / 8] |= (uint8_t)(1u << (st % 8));
			bytes += s->storages[st].size;
		}
	}
	free(seen);
	return bytes;
}
