/*
 * schedule_builder.c: see schedule_builder.h. The schedule grows as flat
 * arrays (ops, tensors, storages, commands, op arguments, strings); the
 * builder's own tables (handles, external references per tensor and per
 * storage, the line each storage lost its last reference, the line each
 * tensor was mutated) are freed by schedule_builder_finish.
 *
 * Handle names live in one open-addressing table; a handle keeps the slot
 * it got when first mapped, so the final pins of live outputs come out in
 * first-mapped order, as the reference emits them. Each distinct string is
 * stored once in schedule.strings (op names repeat, and a tensor's name is
 * its handle's).
 *
 * Hot path: a call allocates nothing once the builder's scratch arrays
 * (argument tensors, result tensors, result names) have grown to the
 * largest record.
 */
#include "schedule_builder.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idset.h"

#define POISON UINT32_MAX

struct handle {
	uint32_t name;   /* offset in strings */
	uint32_t tensor; /* POISON when its defining record was broken */
};

struct schedule_builder {
	const char *file; /* s->source: problems name it */
	bool preallocate;
	struct schedule *s;
	size_t cap_cmds, cap_ops, cap_tensors, cap_storages, cap_args, cap_strings;

	/* strings: table of offset+1 (0 = empty), keyed by the text */
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
	bool ended;     /* schedule_builder_end has run */
	uint64_t total_time;  /* ops' TIME, once per output (within_totals) */
	uint64_t total_bytes; /* MEMORY of every storage made */

	/* scratch, grown to the largest record and reused */
	uint32_t *targs, *touts;
	size_t cap_targs, cap_touts;
	const char **names;
	size_t cap_names;
	uint64_t *sizes;
	size_t cap_sizes;

	/* problems */
	int max_errors; /* stop after this many (1 = read mode) */
	int n_errors;
	struct rs_error *err;
	void (*report)(void *ctx, const struct rs_error *e);
	void *report_ctx;
};

/* ------------------------------------------------------------------ */
/* Problems */

static void vproblem(struct schedule_builder *b, int status, long line, const char *fmt,
		     va_list ap)
{
	struct rs_error e;
	rs_error_vset(&e, status, b->file, line, fmt, ap);
	/* A problem is one line, whatever the names it quotes hold: their
	 * control characters shown escaped (rs_text_safe; issue 40, H14). */
	const char *safe = rs_text_safe(e.msg);
	if (safe != e.msg)
		snprintf(e.msg, sizeof e.msg, "%s", safe);
	if (b->n_errors == 0 && b->err)
		*b->err = e;
	b->n_errors++;
	if (b->report)
		b->report(b->report_ctx, &e);
}

static void problem(struct schedule_builder *b, int status, long line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void problem(struct schedule_builder *b, int status, long line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vproblem(b, status, line, fmt, ap);
	va_end(ap);
}

void schedule_builder_problem(struct schedule_builder *b, int status, long line,
			      const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vproblem(b, status, line, fmt, ap);
	va_end(ap);
}

void schedule_builder_stop(struct schedule_builder *b, const struct rs_error *e)
{
	if (b->n_errors == 0 && b->err)
		*b->err = *e;
	if (b->report)
		b->report(b->report_ctx, e);
	b->n_errors = b->n_errors + 1 > b->max_errors ? b->n_errors + 1 : b->max_errors;
}

static bool stop(const struct schedule_builder *b)
{
	return b->n_errors >= b->max_errors;
}

bool schedule_builder_stopped(const struct schedule_builder *b)
{
	return stop(b);
}

int schedule_builder_problems(const struct schedule_builder *b)
{
	return b->n_errors;
}

size_t schedule_builder_ops(const struct schedule_builder *b)
{
	return b->s->n_ops;
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

static void stable_rehash(struct schedule_builder *b)
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
static uint32_t add_string(struct schedule_builder *b, const char *str)
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

static void table_rehash(struct schedule_builder *b)
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
static struct handle *handle_find(struct schedule_builder *b, const char *str)
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
static void handle_map(struct schedule_builder *b, const char *str, uint32_t t)
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

static inline __attribute__((always_inline)) void emit(struct schedule_builder *b,
							enum sched_cmd_kind kind, uint32_t id)
{
	struct schedule *s = b->s;
	XGROW(s->cmds, b->cap_cmds, s->n_cmds + 1);
	s->cmds[s->n_cmds].kind = kind;
	s->cmds[s->n_cmds].id = id;
	/* the storages' handles as a replay will count them */
	schedule_count_handles(s, &s->cmds[s->n_cmds], b->srefs);
	s->n_cmds++;
}

static uint32_t new_storage(struct schedule_builder *b, uint64_t size)
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
static uint32_t new_op(struct schedule_builder *b, const char *name, int64_t cost,
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
static uint32_t new_output(struct schedule_builder *b, uint32_t op_id, int32_t alias,
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
static bool storage_live(struct schedule_builder *b, long line, uint32_t t, const char *name,
			 const char *what)
{
	if (b->srefs[b->s->tensors[t].storage] > 0)
		return true;
	problem(b, EXIT_DATAERR, line,
		"%s \"%s\", whose storage has no reference left (every handle to it and its "
		"views was released or re-pointed): the baseline replay has discarded it, "
		"and the reference simulator stops here too", what, name);
	return false;
}

/* Handle `name` lets go of tensor t: a RELEASE (what: "RELEASE of"), or
 * re-pointed by a mutation or COPY_FROM ("re-pointing"). */
static void drop_ref(struct schedule_builder *b, long line, uint32_t t, const char *name,
		     const char *what)
{
	if (!storage_live(b, line, t, name, what))
		return;
	b->refs[t]--;
	emit(b, CMD_RELEASE, t);
	if (b->srefs[b->s->tensors[t].storage] == 0)
		b->sgone[b->s->tensors[t].storage] = line;
}

static void finish_op(struct schedule_builder *b, uint32_t op_id)
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
/* The records */

/* Look up a handle that must exist: its tensor, or POISON (reported if unknown). */
static bool lookup(struct schedule_builder *b, long line, const char *name, const char *role,
		   uint32_t *t)
{
	struct handle *h = handle_find(b, name);
	if (!h) {
		problem(b, EXIT_DATAERR, line, "%s names tensor \"%s\", which was never defined", role, name);
		return false;
	}
	*t = h->tensor;
	return true;
}

/* The tensors of args into b->targs: false if one is unknown or its
 * storage has no reference left (reported), *poisoned if one comes from a
 * broken record. */
static bool lookup_args(struct schedule_builder *b, long line, const char *const *args,
			size_t n_args, bool *poisoned)
{
	XGROW(b->targs, b->cap_targs, n_args + 1);
	uint32_t *targs = b->targs;
	bool ok = true;
	for (size_t i = 0; i < n_args && !stop(b); i++) {
		if (!lookup(b, line, args[i], "ARGS", &targs[i]))
			ok = false;
		else if (targs[i] == POISON)
			*poisoned = true;
		else if (!storage_live(b, line, targs[i], args[i], "ARGS use"))
			ok = false;
	}
	return ok;
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
 * (sizes[i] bytes each where alias is NULL or alias[i] < 0; their sizes
 * given on lines[i], or all on `line` when lines is NULL) stay within the
 * bounds; then they count towards them. Result i is named names[i]. */
static bool within_totals(struct schedule_builder *b, long line, uint64_t time, size_t n_outs,
			  const uint64_t *sizes, const struct schedule_result *res,
			  const char *const *names)
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
		if (res && res[i].alias >= 0)
			continue;
		uint64_t size = res ? res[i].bytes : sizes[i];
		if (size > MAX_TOTAL_BYTES - bytes) {
			problem(b, EXIT_DATAERR, res ? res[i].line : line,
				"MEMORY of \"%s\" (%" PRIu64 " bytes) takes the storages' total past "
				"2^60 bytes: the simulator's memory counters would overflow",
				res ? res[i].name : names[i], size);
			return false;
		}
		bytes += size;
	}
	b->total_time += time * k;
	b->total_bytes = bytes;
	return true;
}

void schedule_builder_poison(struct schedule_builder *b, const char *name)
{
	handle_map(b, name, POISON);
}

int schedule_builder_constant(struct schedule_builder *b, long line, long size_line,
			      const char *name, uint64_t bytes)
{
	if (stop(b))
		return -1;
	if (!within_totals(b, size_line, 0, 1, &bytes, NULL, &name)) {
		handle_map(b, name, POISON);
		return -1;
	}
	uint32_t op = new_op(b, "constant", 0, NULL, 0, line);
	b->s->ops[op].constant = 1;
	uint32_t t = new_output(b, op, -1, bytes, name);
	finish_op(b, op);
	emit(b, CMD_PIN, t);
	handle_map(b, name, t);
	return 0;
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

void schedule_builder_discard(struct schedule_builder *b, long line, const char *const *args,
			      size_t n_args, const char *const *results, size_t n_results)
{
	bool poisoned = false;
	lookup_args(b, line, args, n_args, &poisoned);
	for (size_t i = 0; i < n_results; i++)
		handle_map(b, results[i], POISON);
}

int schedule_builder_call(struct schedule_builder *b, long line, const char *name, uint64_t time,
			  const char *const *args, size_t n_args,
			  const struct schedule_result *res, size_t n_res)
{
	return schedule_builder_call_writes(b, line, name, time, args, n_args, res, n_res, NULL, 0,
					    NULL);
}

int schedule_builder_call_writes(struct schedule_builder *b, long line, const char *name,
				 uint64_t time, const char *const *args, size_t n_args,
				 const struct schedule_result *res, size_t n_res,
				 const uint32_t *writes, size_t n_writes, const char *writes_problem)
{
	if (stop(b))
		return -1;
	if (!n_res)
		rs_bug("schedule_builder_call: op \"%s\" without results", name);
	for (size_t i = 0; i < n_res; i++)
		if (res[i].alias < -1 || res[i].alias >= (int64_t)n_args)
			rs_bug("schedule_builder_call: alias %d of \"%s\" outside its %zu arguments",
			       (int)res[i].alias, res[i].name, n_args);
	for (size_t i = 0; !writes_problem && i < n_writes; i++)
		if (writes[i] >= n_args)
			rs_bug("schedule_builder_call: written argument %u of \"%s\" outside its %zu "
			       "arguments", (unsigned)writes[i], name, n_args);
	bool poisoned = false;
	bool ok = lookup_args(b, line, args, n_args, &poisoned);
	for (size_t i = 0; ok && i < n_res; i++) {
		struct handle *h = handle_find(b, res[i].name);
		if (h && h->tensor != POISON) {
			problem(b, EXIT_DATAERR, line, "RESULT \"%s\" is already defined", res[i].name);
			ok = false;
		}
	}
	if (ok && n_res > 1) {
		/* A name listed twice, found by sorting (n log n: a crafted
		 * record may list a million results). */
		XGROW(b->names, b->cap_names, n_res);
		for (size_t i = 0; i < n_res; i++)
			b->names[i] = res[i].name;
		qsort(b->names, n_res, sizeof *b->names, by_name);
		for (size_t i = 1; i < n_res && ok; i++)
			if (!strcmp(b->names[i - 1], b->names[i])) {
				problem(b, EXIT_DATAERR, line, "RESULT \"%s\" is listed twice",
					b->names[i]);
				ok = false;
			}
	}
	if (ok && writes_problem) {
		problem(b, EXIT_DATAERR, line, "%s", writes_problem);
		ok = false;
	}
	if (ok && !poisoned)
		ok = within_totals(b, line, time, n_res, NULL, res, NULL);
	if (!ok || poisoned) {
		for (size_t i = 0; i < n_res; i++)
			handle_map(b, res[i].name, POISON);
		return -1;
	}
	if (strstr(name, "backward"))
		b->in_bwd = true;
	uint32_t op = new_op(b, name, (int64_t)time, b->targs, n_args, line);
	if (n_writes) {
		/* this op's arguments are the last op_args entries: sorting its
		 * (distinct) indices keeps the list ascending */
		struct schedule *s = b->s;
		XGROW(s->writes, b->cap_writes, s->n_writes + n_writes);
		uint32_t *w = s->writes + s->n_writes;
		for (size_t i = 0; i < n_writes; i++)
			w[i] = s->ops[op].args + writes[i];
		qsort(w, n_writes, sizeof *w, by_u32);
		s->n_writes += n_writes;
	}
	XGROW(b->touts, b->cap_touts, n_res + 1);
	for (size_t i = 0; i < n_res; i++)
		b->touts[i] = new_output(b, op, res[i].alias, res[i].alias >= 0 ? 0 : res[i].bytes,
					 res[i].name);
	finish_op(b, op);
	for (size_t i = 0; i < n_res; i++)
		handle_map(b, res[i].name, b->touts[i]);
	return 0;
}

int schedule_builder_mutate(struct schedule_builder *b, long line, const char *name,
			    uint64_t time, const char *const *args, size_t n_args,
			    const size_t *idx, size_t n_mut)
{
	if (stop(b))
		return -1;
	if (!n_mut)
		rs_bug("schedule_builder_mutate: op \"%s\" mutates nothing", name);
	for (size_t i = 0; i < n_mut; i++)
		if (idx[i] >= n_args)
			rs_bug("schedule_builder_mutate: index %zu of \"%s\" outside its %zu arguments",
			       idx[i], name, n_args);
	bool poisoned = false;
	bool ok = lookup_args(b, line, args, n_args, &poisoned);
	const uint32_t *targs = b->targs;
	/* simrd names a mutated tensor's new version after it (x7 -> x7$), so a
	 * tensor can be mutated once: a second MUTATE of it (through a copy of
	 * a handle that was mutated since, or the same argument listed twice)
	 * is a duplicate name there. */
	bool twice = false;
	struct u64set seen = {0}; /* tensors met so far in this record: linear time */
	for (size_t i = 0; ok && !poisoned && !twice && i < n_mut; i++) {
		uint32_t t = targs[idx[i]];
		const char *an = args[idx[i]];
		bool again = !u64set_add(&seen, t);
		if (again || b->mutated[t]) {
			if (again)
				problem(b, EXIT_DATAERR, line,
					"MUTATE changes the tensor of \"%s\" twice in one record", an);
			else
				problem(b, EXIT_DATAERR, line,
					"MUTATE of \"%s\" changes a tensor already changed by the MUTATE on "
					"line %u (through another handle to it): the reference simulator "
					"names each new version after the old tensor and rejects a repeat",
					an, b->mutated[t]);
			twice = true;
		}
	}
	u64set_free(&seen);
	if (ok && !poisoned && !twice) {
		XGROW(b->sizes, b->cap_sizes, n_mut + 1);
		XGROW(b->names, b->cap_names, n_mut + 1);
		for (size_t i = 0; i < n_mut; i++) {
			b->sizes[i] = schedule_tensor_bytes(b->s, targs[idx[i]]);
			b->names[i] = args[idx[i]];
		}
		ok = within_totals(b, line, time, n_mut, b->sizes, NULL, b->names);
	}
	if (!ok || poisoned || twice) {
		for (size_t i = 0; i < n_mut && ok; i++)
			handle_map(b, args[idx[i]], POISON);
		return -1;
	}
	for (size_t i = 0; i < n_mut; i++)
		b->mutated[targs[idx[i]]] = (uint32_t)line;
	if (strstr(name, "backward"))
		b->in_bwd = true;
	uint32_t op = new_op(b, name, (int64_t)time, targs, n_args, line);
	b->s->ops[op].mutate = 1;
	uint32_t first = (uint32_t)b->s->n_tensors;
	for (size_t i = 0; i < n_mut; i++)
		new_output(b, op, -1, schedule_tensor_bytes(b->s, b->targs[idx[i]]), args[idx[i]]);
	finish_op(b, op);
	for (size_t i = 0; i < n_mut; i++) {
		const char *an = args[idx[i]];
		uint32_t old = POISON;
		lookup(b, line, an, "ARGS", &old); /* the current tensor of that name */
		handle_map(b, an, first + (uint32_t)i);
		if (old != POISON)
			drop_ref(b, line, old, an, "re-pointing");
	}
	return 0;
}

int schedule_builder_copy(struct schedule_builder *b, long line, const char *dst,
			  const char *src, bool from)
{
	if (stop(b))
		return -1;
	uint32_t ts, old = POISON;
	if (!lookup(b, line, src, "SRC", &ts)) {
		handle_map(b, dst, POISON);
		return -1;
	}
	struct handle *hd = handle_find(b, dst);
	if (from) {
		if (!hd) {
			problem(b, EXIT_DATAERR, line, "COPY_FROM into \"%s\", which was never defined", dst);
			return -1;
		}
		old = hd->tensor;
	} else if (hd && hd->tensor != POISON) {
		problem(b, EXIT_DATAERR, line, "COPY to \"%s\", which is already defined", dst);
		return -1;
	}
	if (from && old != POISON && old == ts && b->srefs[b->s->tensors[ts].storage] == 1) {
		problem(b, EXIT_DATAERR, line,
			"COPY_FROM re-points \"%s\" at its own tensor, dropping the last reference to "
			"its storage before taking it again: the reference simulator stops on this",
			dst);
		return -1;
	}
	handle_map(b, dst, ts);
	if (from && old != POISON)
		drop_ref(b, line, old, dst, "re-pointing");
	if (ts != POISON && storage_live(b, line, ts, src, from ? "COPY_FROM from" : "COPY from")) {
		b->refs[ts]++;
		emit(b, CMD_GET, ts);
	}
	return 0;
}

int schedule_builder_release(struct schedule_builder *b, long line, const char *name)
{
	if (stop(b))
		return -1;
	struct handle *h = handle_find(b, name);
	if (!h || h->tensor == POISON)
		return 0; /* releases of unknown names are ignored, as the reference does */
	drop_ref(b, line, h->tensor, name, "RELEASE of");
	return 0;
}

void schedule_builder_backward(struct schedule_builder *b)
{
	b->in_bwd = true;
}

int schedule_builder_module(struct schedule_builder *b, long line, const char *module,
			    const char *type, bool enter)
{
	struct schedule *s = b->s;
	if (stop(b))
		return -1;
	if (!enter) {
		if (!b->n_open) {
			problem(b, EXIT_DATAERR, line,
				"EXIT of module \"%s\", but no module call is open (no ENTER before it)",
				module);
			return -1;
		}
		const struct sched_mark *top = &s->marks[b->open[b->n_open - 1]];
		if (strcmp(schedule_str(s, top->name), module)) {
			problem(b, EXIT_DATAERR, line,
				"EXIT of module \"%s\", but the innermost open call is of \"%s\" "
				"(ENTER on line %u): calls must nest", module, schedule_str(s, top->name),
				top->line);
			return -1;
		}
		b->n_open--;
	}
	XGROW(s->marks, b->cap_marks, s->n_marks + 1);
	struct sched_mark *k = &s->marks[s->n_marks];
	k->op = (uint32_t)s->n_ops;
	k->name = add_string(b, module);
	k->type = enter && type ? add_string(b, type) : 0;
	k->line = (uint32_t)line;
	k->enter = enter;
	if (enter) {
		XGROW(b->open, b->cap_open, b->n_open + 1);
		b->open[b->n_open++] = (uint32_t)s->n_marks;
	}
	s->n_marks++;
	return 0;
}

void schedule_builder_end(struct schedule_builder *b)
{
	if (b->ended)
		return;
	b->ended = true;
	for (size_t i = 0; i < b->n_open && !stop(b); i++) {
		const struct sched_mark *k = &b->s->marks[b->open[i]];
		problem(b, EXIT_DATAERR, k->line,
			"module \"%s\" is entered here and never exited (no EXIT record)",
			rs_text_safe(schedule_str(b->s, k->name)));
	}
}

/* ------------------------------------------------------------------ */
/* The end */

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


/* The final pins of live outputs (or their preallocation). */
static void finish_outputs(struct schedule_builder *b)
{
	struct schedule *s = b->s;
	uint8_t *seen = b->preallocate ? xcalloc(s->n_tensors + 1, 1) : NULL;
	for (size_t i = 0; i < b->n_handles; i++) {
		uint32_t t = b->handles[i].tensor;
		if (t == POISON || b->refs[t] <= 0)
			continue;
		uint32_t sid = s->tensors[t].storage;
		if (!b->preallocate && b->srefs[sid] <= 0) {
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
				"needs, and the reference simulator stops here", rs_text_safe(schedule_str(s, b->handles[i].name)));
			continue;
		}
		if (!b->preallocate) {
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

struct schedule_builder *schedule_builder_new(const char *source, bool preallocate,
					      int max_problems, struct rs_error *err,
					      void (*report)(void *ctx, const struct rs_error *e),
					      void *ctx)
{
	struct schedule_builder *b = xcalloc(1, sizeof *b);
	b->preallocate = preallocate;
	b->max_errors = max_problems;
	b->err = err;
	b->report = report;
	b->report_ctx = ctx;
	b->s = xcalloc(1, sizeof *b->s);
	b->s->source = xstrdup(source);
	b->s->preallocate = preallocate;
	b->file = b->s->source;
	add_string(b, ""); /* offset 0: the empty name */
	return b;
}

int schedule_builder_finish(struct schedule_builder *b, struct schedule **out)
{
	struct schedule *s = b->s;
	schedule_builder_end(b);
	if (b->n_errors == 0) {
		finish_outputs(b);
		s->n_handles = b->n_handles;
	}
	/* The builder's tables go before the derived lists are made: the
	 * peak of a read is then the schedule and its lists alone. */
	int n = b->n_errors;
	free(b->handles);
	free(b->table);
	free(b->stable);
	free(b->refs);
	free(b->mutated);
	free(b->srefs);
	free(b->sgone);
	free(b->open);
	free(b->targs);
	free(b->touts);
	free(b->names);
	free(b->sizes);
	free(b);
	if (!n)
		build_lists(s);
	if (n) {
		schedule_free(s);
		*out = NULL;
		return n;
	}
	*out = s;
	return 0;
}

/* Every array a schedule owns is the builder's (schedule_builder_finish
 * hands them over), so the builder frees them: the reader (schedule.c),
 * graph.c and gen.c call the builder, and the builder calls none of them. */
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
