/*
 * jsonl.h: one JSON line decoded into a small read-only tree, for the log
 * reader. Op-log records are flat objects of short strings, string arrays
 * and small integers; parsing them into jansson's hash-table objects cost
 * most of a log's read time. Such lines are decoded here directly, into
 * one buffer per document; any other line (escapes, non-ASCII, reals,
 * nesting, true/false/null, bad syntax) goes through jansson, whose result
 * (or error message) is converted, so values and messages are exactly
 * what jansson gives.
 */
#ifndef REMATSIM_JSONL_H
#define REMATSIM_JSONL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum jv_type { JV_NULL, JV_TRUE, JV_FALSE, JV_INT, JV_REAL, JV_STRING, JV_ARRAY, JV_OBJECT };

struct jv {
	uint8_t type;      /* enum jv_type */
	uint32_t n;        /* array: items; object: members (in items) */
	const char *key;   /* when a member of an object: its key */
	union {
		int64_t i;
		double d;
		const char *s;          /* NUL-terminated */
		const struct jv *items; /* array items, or object members */
	} u;
};

/* A decoded line and the memory behind it; reusable (jv_parse resets). */
struct jv_doc {
	struct jv *nodes;
	size_t n_nodes, cap_nodes;
	char *strs;
	size_t n_strs, cap_strs;
	struct jv *stack; /* scratch: children of open containers */
	size_t n_stack, cap_stack;
	const struct jv *root;
	bool fast;        /* whether the last jv_parse took the fast path */
};

/**
 * Decode one line (no newline) into doc. Returns 0 and sets doc->root, or
 * -1 with *column and msg (at most msg_cap bytes) as jansson reports them.
 */
int jv_parse(struct jv_doc *doc, const char *p, size_t len, int *column, char *msg, size_t msg_cap);
/** jv_parse through jansson only (what the fast path must equal: tests). */
int jv_parse_jansson(struct jv_doc *doc, const char *p, size_t len, int *column, char *msg,
		     size_t msg_cap);
void jv_doc_free(struct jv_doc *doc);

/* Accessors in jansson's manner: a NULL value is of no type. */
/** The member named key (the last one, as jansson keeps), or NULL. */
const struct jv *jv_get(const struct jv *obj, const char *key);
static inline bool jv_is_object(const struct jv *v) { return v && v->type == JV_OBJECT; }
static inline bool jv_is_array(const struct jv *v) { return v && v->type == JV_ARRAY; }
static inline bool jv_is_string(const struct jv *v) { return v && v->type == JV_STRING; }
static inline bool jv_is_int(const struct jv *v) { return v && v->type == JV_INT; }
/** The string, or NULL when v is not one. */
static inline const char *jv_str(const struct jv *v) { return jv_is_string(v) ? v->u.s : NULL; }
static inline int64_t jv_int(const struct jv *v) { return jv_is_int(v) ? v->u.i : 0; }
static inline size_t jv_size(const struct jv *v) { return jv_is_array(v) ? v->n : 0; }
static inline const struct jv *jv_at(const struct jv *v, size_t i)
{
	return jv_is_array(v) && i < v->n ? &v->u.items[i] : NULL;
}

#endif
