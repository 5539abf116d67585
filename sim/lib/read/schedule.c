/*
 * schedule.c: the op-log reader: from op-log records to the schedule the
 * runtime replays (SIMULATION.md section 1, LOG-FORMAT.md), built through
 * schedule_builder.h.
 *
 * One pass over the lines: each line is decoded (jsonl.c), its syntax
 * checked (fields, types, the MEMORY and ALIAS records a CALL needs), and
 * the record handed to the builder, which keeps the reference simulator's
 * rules on handles, references and totals and grows the schedule's arrays.
 * The lines come through a window (source_lines): from a buffer in memory
 * (schedule_parse, schedule_check), or streamed from the log
 * (schedule_read), which is first read through once on its own to find
 * START, digest it and meet any error of its container before the parse
 * (docs/reader.md), so that no more than the window and the longest line
 * of the text is ever in memory.
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

#include "graph.h"
#include "idset.h"
#include "jsonl.h"
#include "schedule_builder.h"
#include "sha256.h"
#include "source.h"

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


struct reader {
	struct schedule_builder *sb;
	uint64_t records[REC_KIND_COUNT]; /* records in the whole log */

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

	/* a record's names and results, grown to the largest and reused */
	const char **args, **res_names;
	size_t cap_args, cap_res_names;
	struct schedule_result *res;
	size_t cap_res;
	size_t *idx;
	size_t cap_idx;
	uint32_t *writes;
	size_t cap_writes;
};

#define problem(b, ...) schedule_builder_problem((b)->sb, __VA_ARGS__)
#define stop(b) schedule_builder_stopped((b)->sb)

/* ------------------------------------------------------------------ */
/* Records */

static enum record_kind kind_of(const char *instr, bool *ok)
{
	/* The first letter leaves at most four names to compare, not nine. */
	static const enum record_kind a[] = {REC_ANNOTATE, REC_ALIAS}, c[] = {REC_CALL, REC_CONSTANT,
		REC_COPY, REC_COPY_FROM}, m[] = {REC_MEMORY, REC_MUTATE}, r[] = {REC_RELEASE};
	const enum record_kind *cand = NULL;
	size_t n = 0;
	switch (instr[0]) {
	case 'A': cand = a, n = 2; break;
	case 'C': cand = c, n = 4; break;
	case 'M': cand = m, n = 2; break;
	case 'R': cand = r, n = 1; break;
	default: break;
	}
	*ok = true;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(instr, kind_names[cand[i]]))
			return cand[i];
	*ok = false;
	return REC_ANNOTATE;
}

/* Give a record's decoded line back (kept for reuse). */
static void rec_drop(struct reader *b, struct rec *r)
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
static int next_line(struct reader *b, struct rec *r)
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
			schedule_builder_stop(b->sb, &e);
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
		b->records[r->kind]++;
		return 1;
	}
}

/* Next record, honouring the pushback slot; skips broken lines. */
static int next_rec(struct reader *b, struct rec *r)
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

static void push_back(struct reader *b, const struct rec *r)
{
	b->pushed = *r;
	b->has_pushed = true;
}

static const char *get_str(struct reader *b, const struct rec *r, const char *key)
{
	const struct jv *v = jv_get(r->j, key);
	if (jv_is_string(v))
		return jv_str(v);
	problem(b, EXIT_DATAERR, r->line, "%s record %s field \"%s\"", record_kind_name(r->kind),
		v ? "has a non-string" : "lacks the", key);
	return NULL;
}

/* A non-negative integer given as a string of digits or a JSON integer. */
static bool get_count(struct reader *b, const struct rec *r, const char *key, uint64_t *out)
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

/* ALIAS: "-1" or "k" as a string, or a JSON integer. */
static bool get_alias(struct reader *b, const struct rec *r, int64_t *out)
{
	const struct jv *v = jv_get(r->j, "ALIAS");
	if (jv_is_int(v)) {
		*out = jv_int(v);
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
			return true;
		}
	}
	problem(b, EXIT_DATAERR, r->line, "ALIAS record %s \"ALIAS\" field (want \"-1\" or an argument index)",
		v ? "has a malformed" : "lacks the");
	return false;
}

/* The ALIAS that get_alias read, as the log wrote it, for a message (a
 * string past 64 bits is not clamped there); text of size 48. */
static const char *alias_text(const struct rec *r, char *text)
{
	const struct jv *v = jv_get(r->j, "ALIAS");
	if (jv_is_int(v))
		snprintf(text, 48, "%" PRId64, jv_int(v));
	else
		snprintf(text, 48, "%.40s%s", jv_str(v), strlen(jv_str(v)) > 40 ? "..." : "");
	return text;
}

/* An array of strings; returns the array (borrowed) or NULL. */
static const struct jv *get_names(struct reader *b, const struct rec *r, const char *key)
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


/* Read the MEMORY (and, for CALL, ALIAS) record that must follow for name. */
static bool expect_follow(struct reader *b, const struct rec *owner, enum record_kind want,
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

/* ------------------------------------------------------------------ */
/* The walk: each record's syntax, then the builder */

/* The strings of a names list (checked by get_names) as an array of
 * *slot (grown and reused); NULL list: none. */
static const char *const *names_of(const struct jv *list, const char ***slot, size_t *cap)
{
	size_t n = list ? jv_size(list) : 0;
	XGROW(*slot, *cap, n + 1);
	for (size_t i = 0; i < n; i++)
		(*slot)[i] = jv_str(jv_at(list, i));
	return *slot;
}

static void do_constant(struct reader *b, const struct rec *r)
{
	const char *name = get_str(b, r, "NAME");
	if (!name)
		return;
	struct rec m;
	uint64_t size;
	if (!expect_follow(b, r, REC_MEMORY, name, &m)) {
		schedule_builder_poison(b->sb, name);
		return;
	}
	if (!get_count(b, &m, "MEMORY", &size))
		schedule_builder_poison(b->sb, name);
	else
		schedule_builder_constant(b->sb, r->line, m.line, name, size);
	rec_drop(b, &m);
}

/* A CALL's WRITES list: distinct argument indices (JSON integers) into
 * b->writes; false, with the problem in msg, if it is malformed (the
 * builder reports it once the call's names pass, as ever). */
static bool get_writes(struct reader *b, const struct jv *wr, size_t n_args, char *msg,
		       size_t cap)
{
	if (!jv_is_array(wr)) {
		snprintf(msg, cap, "CALL record has a malformed \"WRITES\" list "
			 "(want a list of argument indices)");
		return false;
	}
	XGROW(b->writes, b->cap_writes, jv_size(wr) + 1);
	struct u64set seen = {0};
	bool ok = true;
	for (size_t i = 0; ok && i < jv_size(wr); i++) {
		const struct jv *v = jv_at(wr, i);
		if (!jv_is_int(v) || jv_int(v) < 0 || jv_int(v) >= (int64_t)n_args) {
			char shown[64] = "not an integer";
			if (jv_is_int(v))
				snprintf(shown, sizeof shown, "%" PRId64, jv_int(v));
			snprintf(msg, cap, "WRITES[%zu] (%s) is out of range: the op has %zu argument%s",
				 i, shown, n_args, n_args == 1 ? "" : "s");
			ok = false;
		} else if (!u64set_add(&seen, (uint64_t)jv_int(v))) {
			snprintf(msg, cap, "WRITES lists argument %" PRId64 " twice", jv_int(v));
			ok = false;
		} else {
			b->writes[i] = (uint32_t)jv_int(v);
		}
	}
	u64set_free(&seen);
	return ok;
}

static void do_call(struct reader *b, const struct rec *r)
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
	XGROW(b->res, b->cap_res, n_res + 1);
	struct schedule_result *out = b->res;

	/* The MEMORY/ALIAS pairs come first: read them even if the CALL is broken. */
	for (size_t i = 0; i < n_res && !stop(b); i++) {
		const char *rn = jv_str(jv_at(res, i));
		struct rec m, a;
		out[i] = (struct schedule_result){.name = rn, .alias = 0};
		if (!expect_follow(b, r, REC_MEMORY, rn, &m)) {
			ok = false;
			break;
		}
		if (!get_count(b, &m, "MEMORY", &out[i].bytes))
			ok = false;
		out[i].line = m.line;
		rec_drop(b, &m);
		if (!expect_follow(b, r, REC_ALIAS, rn, &a)) {
			ok = false;
			break;
		}
		int64_t k;
		char ktext[48];
		if (!get_alias(b, &a, &k)) {
			ok = false;
		} else if (k < -1 || k >= (int64_t)n_args) {
			problem(b, EXIT_DATAERR, a.line,
				"ALIAS %s of \"%s\" is out of range: the op has %zu argument%s",
				alias_text(&a, ktext), rn, n_args, n_args == 1 ? "" : "s");
			ok = false;
		} else {
			out[i].alias = (int32_t)k;
		}
		rec_drop(b, &a);
	}
	const char *const *targs = names_of(args, &b->args, &b->cap_args);
	const struct jv *wr = ok ? jv_get(r->j, "WRITES") : NULL;
	char wmsg[256];
	bool wok = !wr || get_writes(b, wr, n_args, wmsg, sizeof wmsg);
	if (!ok)
		schedule_builder_discard(b->sb, r->line, targs, n_args,
					 names_of(res, &b->res_names, &b->cap_res_names), n_res);
	else
		schedule_builder_call_writes(b->sb, r->line, name, time, targs, n_args, out, n_res,
					     b->writes, wr && wok ? jv_size(wr) : 0,
					     wok ? NULL : wmsg);
}

static void do_mutate(struct reader *b, const struct rec *r)
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
	XGROW(b->idx, b->cap_idx, n_mut + 1);
	for (size_t i = 0; i < n_mut; i++) {
		const struct jv *v = jv_at(mut, i);
		if (!jv_is_int(v) || jv_int(v) < 0 ||
		    jv_int(v) >= (int64_t)n_args) {
			char shown[64] = "not an integer";
			if (jv_is_int(v))
				snprintf(shown, sizeof shown, "%" PRId64, jv_int(v));
			problem(b, EXIT_DATAERR, r->line,
				"MUTATE[%zu] (%s) is out of range: the op has %zu argument%s", i, shown,
				n_args, n_args == 1 ? "" : "s");
			return;
		}
		b->idx[i] = (size_t)jv_int(v);
	}
	schedule_builder_mutate(b->sb, r->line, name, time, names_of(args, &b->args, &b->cap_args),
				n_args, b->idx, n_mut);
}

static void do_copy(struct reader *b, const struct rec *r, bool from)
{
	const char *dst = get_str(b, r, "DST");
	const char *src = get_str(b, r, "SRC");
	if (!dst || !src)
		return;
	schedule_builder_copy(b->sb, r->line, dst, src, from);
}

static void do_release(struct reader *b, const struct rec *r)
{
	const char *name = get_str(b, r, "NAME");
	if (!name)
		return;
	schedule_builder_release(b->sb, r->line, name);
}

/* ANNOTATE ENTER / EXIT: a module call begins or ends (docs/log-format.md). */
static void do_module(struct reader *b, const struct rec *r, bool enter)
{
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
	schedule_builder_module(b->sb, r->line, m, ty ? jv_str(ty) : NULL, enter);
}

static void do_record(struct reader *b, struct rec *r)
{
	switch (r->kind) {
	case REC_ANNOTATE: {
		const char *a = get_str(b, r, "ANNOTATION");
		if (a && !strcmp(a, "BACKWARD"))
			schedule_builder_backward(b->sb);
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

/* The op log's row: it takes anything the rows before it did not
 * (a log's records are checked as they are read); read by this file in
 * two passes, streamed, so it has no import of its own. */
static bool log_detect(const char *text, size_t len)
{
	(void)text;
	(void)len;
	return true;
}

static void log_describe(const struct schedule *s, FILE *text, struct json_t *json)
{
	(void)json; /* the records are every schedule's (0 for other formats) */
	if (!text)
		return;
	fputs("  records       ", text);
	for (int k = 0; k < REC_KIND_COUNT; k++)
		fprintf(text, " %s %" PRIu64 "%s", record_kind_name((enum record_kind)k),
			s->records[k], k + 1 < REC_KIND_COUNT ? "," : "\n");
}

static const struct input_format log_format = {
	.name = "log",
	.detect = log_detect,
	.import = NULL,
	.describe = log_describe,
};

/* The input formats, tried in order on an input's first bytes: a new
 * format is its own file (its row, by content) and a line here, before
 * the log's (docs/architecture.md, "Adding an input format"). */
static const struct input_format *const formats[] = {
	&graph_format,
	&log_format,
};

static const struct input_format *detect(const char *text, size_t len)
{
	for (size_t i = 0; i + 1 < sizeof formats / sizeof *formats; i++)
		if (formats[i]->detect(text, len))
			return formats[i];
	return &log_format;
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
static const struct input_format *scan(const char *spec, const char *data, size_t len,
				       bool digest, uint8_t sha[32], long *start_line,
				       char **whole, size_t *whole_len, size_t *whole_cap,
				       struct pass1 *p1, struct rs_error *err)
{
	const struct input_format *fmt;
	struct source *src = NULL;
	struct source_lines l;
	*start_line = 0;
	*whole = NULL;
	*whole_len = *whole_cap = 0;
	if (!spec) {
		fmt = detect(data, len);
		source_lines_mem(&l, data, len);
		if (digest)
			sha256(data, len, sha);
	} else {
		if (source_open(spec, &src, err) < 0)
			return NULL;
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
		/* A log that says it is longer than the block (a zip member's
		 * header, a file's size) starts in the mapping: its first MiB
		 * is not written twice (270 page faults and a copy). */
		uint64_t hint = source_size_hint(src);
		bool mapped = hint > cap - piece && hint <= SMALL_LOG;
		if (mapped)
			cap = SMALL_LOG + piece;
		char *buf = mapped ? source_map(cap) : xmalloc(cap);
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
			return NULL;
		}
		fmt = detect(buf, n);
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
	int rc = 0;
	while (fmt == &log_format && (rc = source_lines_next(&l, &p, &n, err)) > 0) {
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
		return NULL;
	}
	return fmt;
}

/* An input of a format that imports whole (fmt->import), found by the
 * first pass: from data, or loaded whole from spec when it was longer than
 * a small log. */
static int build_whole(const struct input_format *fmt, const char *name, const char *spec,
		       const char *data, size_t len, const struct read_options *opt,
		       const uint8_t sha[32], char *whole,
		       size_t whole_cap, struct schedule **out, struct rs_error *err, int max_errors,
		       void (*report)(void *, const struct rs_error *), void *ctx,
		       struct rs_error *src_err)
{
	char *loaded = NULL;
	struct rs_error e = {0};
	if (spec) {
		if (source_load(spec, &loaded, &len, &e) < 0) {
			free_whole(whole, whole_cap);
			*out = NULL;
			if (src_err) {
				*src_err = e;
				return -1;
			}
			if (err)
				*err = e;
			if (report)
				report(ctx, &e);
			return 1;
		}
		data = loaded;
	}
	int n = fmt->import(name, data, len, opt, max_errors, report, ctx, out, err);
	if (!n) {
		(*out)->format = fmt;
		if (opt->digest)
			memcpy((*out)->sha256, sha, 32);
	}
	free(loaded);
	free_whole(whole, whole_cap);
	return n;
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
	const struct input_format *fmt = scan(spec, data, len, opt && opt->digest, sha, &start_line,
					      &whole, &whole_len, &whole_cap, &p1, &e);
	int scanned = fmt ? 0 : -1;
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
	if (!opt)
		opt = &defaults;
	if (fmt && fmt->import)
		return build_whole(fmt, name, spec, data, len, opt, sha, whole, whole_cap, out, err,
				   max_errors, report, ctx, src_err);
	struct reader b;
	memset(&b, 0, sizeof b);
	b.sb = schedule_builder_new(name, opt->preallocate, max_errors, err, report, ctx);

	struct source *src = NULL;
	struct source_lines lines = {0};
	if (scanned == 0 && spec && schedule_test_between_passes)
		schedule_test_between_passes(spec);
	if (scanned < 0 || open_lines(spec, data, len, &src, &lines, &e) < 0)
		schedule_builder_stop(b.sb, &e);
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
	bool from_start = opt->from_start || !start_line;
	if (!stop(&b) && !from_start) {
		/* Validate and count the warm-up records, replay nothing of them. */
		b.stop_line = start_line;
		struct rec r;
		int rc;
		while ((rc = next_rec(&b, &r)) > 0)
			rec_drop(&b, &r);
		b.stop_line = 0;
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
	schedule_builder_end(b.sb);
	if (!stop(&b) && schedule_builder_ops(b.sb) == 0 && schedule_builder_problems(b.sb) == 0) {
		if (b.line == 0)
			problem(&b, EXIT_DATAERR, 0, "empty log: no records");
		else
			problem(&b, EXIT_DATAERR, 0, "the log replays no op (%ld lines, none a CALL, MUTATE or CONSTANT%s)",
				b.line, from_start ? "" : " after START");
	}
	for (int i = 0; i < b.n_spare; i++) {
		jv_doc_free(b.spare[i]);
		free(b.spare[i]);
	}
	free(b.args);
	free(b.res_names);
	free(b.res);
	free(b.idx);
	free(b.writes);
	struct schedule *s;
	int n = schedule_builder_finish(b.sb, &s);
	*out = s;
	if (n)
		return n;
	/* Facts of the read */
	s->format = &log_format;
	memcpy(s->records, b.records, sizeof s->records);
	s->lines = (uint64_t)b.line;
	s->has_start = start_line > 0;
	s->from_start = from_start;
	if (!from_start)
		s->skipped_lines = (uint64_t)start_line;
	if (opt->digest)
		memcpy(s->sha256, sha, sizeof sha);
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
