/*
 * jsonl.c: see jsonl.h. The fast path takes what op logs hold: one object
 * whose values are plain strings (printable ASCII, no escapes), integers
 * of up to 18 digits, or arrays of those. Everything else is jansson's.
 *
 * A document's buffers are sized from the line before decoding (a line of
 * n bytes holds at most n + 1 values and n string bytes), so the pointers
 * handed out never move while it is in use.
 */
#include "jsonl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "util.h"

/* The fast path reads a copy of the line in doc->strs, ended by a NUL
 * (which no test below takes for anything it wants, so the end needs no
 * test of its own, and an eight-byte read from a string's last bytes
 * stays in the buffer), and ends each string there in place: its closing
 * quote becomes its NUL. */

static void reserve(struct jv_doc *d, size_t len)
{
	if (d->cap_nodes < len + 2) {
		free(d->nodes);
		free(d->stack);
		d->cap_nodes = d->cap_stack = len + 2;
		d->nodes = xmalloc(d->cap_nodes * sizeof *d->nodes);
		d->stack = xmalloc(d->cap_stack * sizeof *d->stack);
	}
	if (d->cap_strs < 2 * len + 16) {
		free(d->strs);
		d->cap_strs = 2 * len + 16;
		d->strs = xmalloc(d->cap_strs);
	}
	d->n_nodes = d->n_stack = d->n_strs = 0;
	d->root = NULL;
}

static inline struct jv *push(struct jv_doc *d, uint8_t type)
{
	struct jv *v = &d->stack[d->n_stack++];
	v->type = type;
	v->n = 0;
	v->key = NULL;
	return v;
}

/* Close a container whose children are stack[base..]: move them to the
 * final array and leave the container in their place. */
static void close_container(struct jv_doc *d, size_t base, uint8_t type)
{
	size_t n = d->n_stack - base;
	struct jv *items = d->nodes + d->n_nodes;
	memcpy(items, d->stack + base, n * sizeof *items);
	d->n_nodes += n;
	d->n_stack = base;
	struct jv *c = push(d, type);
	c->n = (uint32_t)n;
	c->u.items = items;
}

static char *save(struct jv_doc *d, const char *s, size_t n)
{
	char *out = d->strs + d->n_strs;
	memcpy(out, s, n);
	out[n] = '\0';
	d->n_strs += n + 1;
	return out;
}

static inline char *ws(char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ONES UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)
/* A high bit in each byte of w that is a quote, a backslash, a control
 * byte (the NUL at the end too) or not ASCII, exact up to the first such
 * byte (the bits above it may be false), 0 when none. */
static inline uint64_t string_stops(uint64_t w)
{
	uint64_t q = w ^ (ONES * '"'), bs = w ^ (ONES * '\\');
	return (((q - ONES) & ~q) | ((bs - ONES) & ~bs) | (w - ONES * 0x20) | w) & HIGHS;
}
#endif

/* A plain string whose first byte is at p, ended in place: the byte after
 * its closing quote, or NULL (an escape, a control or non-ASCII byte, the
 * end of the line). */
static inline char *fast_string(char *p)
{
#ifdef ONES
	/* Eight bytes at a time to the first byte that ends or spoils it. */
	for (;;) {
		uint64_t w;
		memcpy(&w, p, sizeof w);
		uint64_t stops = string_stops(w);
		if (stops) {
			p += __builtin_ctzll(stops) / 8;
			break;
		}
		p += 8;
	}
#else
	while (*p != '"' && *p != '\\' && (unsigned char)*p >= 0x20 && (unsigned char)*p < 0x80)
		p++;
#endif
	if (*p != '"')
		return NULL;
	*p = '\0';
	return p + 1;
}

/* A string or an integer of up to 18 digits at p: pushed, and the byte
 * after it; NULL for anything else. */
static inline char *fast_scalar(struct jv_doc *d, char *p)
{
	if (*p == '"') {
		char *s = p + 1;
		if (!(p = fast_string(s)))
			return NULL;
		push(d, JV_STRING)->u.s = s;
		return p;
	}
	bool neg = *p == '-';
	char *digits = p + neg;
	int64_t x = 0;
	p = digits;
	while (*p >= '0' && *p <= '9' && p - digits < 18)
		x = x * 10 + (*p++ - '0');
	size_t nd = (size_t)(p - digits);
	if (nd == 0 || (nd > 1 && digits[0] == '0'))
		return NULL;
	if (*p == '.' || *p == 'e' || *p == 'E' || (*p >= '0' && *p <= '9'))
		return NULL;
	push(d, JV_INT)->u.i = neg ? -x : x;
	return p;
}

/* A line that is one object of plain strings, integers and arrays of
 * those, decoded into d: the end of the object, or NULL for anything else
 * (left to jansson). */
static char *fast_object(struct jv_doc *d, char *p)
{
	p = ws(p);
	if (*p != '{')
		return NULL;
	p = ws(p + 1);
	if (*p == '}') {
		close_container(d, 0, JV_OBJECT);
		return p + 1;
	}
	for (;;) {
		if (*p != '"')
			return NULL;
		char *key = p + 1;
		if (!(p = fast_string(key)))
			return NULL;
		p = ws(p);
		if (*p != ':')
			return NULL;
		p = ws(p + 1);
		if (*p == '[') {
			size_t base = d->n_stack;
			p = ws(p + 1);
			if (*p != ']') {
				for (;;) {
					if (!(p = fast_scalar(d, p)))
						return NULL;
					p = ws(p);
					if (*p != ',')
						break;
					p = ws(p + 1);
				}
				if (*p != ']')
					return NULL;
			}
			p++;
			close_container(d, base, JV_ARRAY);
		} else if (!(p = fast_scalar(d, p))) {
			return NULL;
		}
		d->stack[d->n_stack - 1].key = key;
		p = ws(p);
		if (*p == '}') {
			close_container(d, 0, JV_OBJECT);
			return p + 1;
		}
		if (*p != ',')
			return NULL;
		p = ws(p + 1);
	}
}

/* jansson's tree into doc (the slow path). */
static void convert(struct jv_doc *d, json_t *j)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT: {
		size_t base = d->n_stack;
		const char *key;
		json_t *v;
		json_object_foreach(j, key, v) {
			convert(d, v);
			d->stack[d->n_stack - 1].key = save(d, key, strlen(key));
		}
		close_container(d, base, JV_OBJECT);
		break;
	}
	case JSON_ARRAY: {
		size_t base = d->n_stack, i;
		json_t *v;
		json_array_foreach(j, i, v)
			convert(d, v);
		close_container(d, base, JV_ARRAY);
		break;
	}
	case JSON_STRING:
		push(d, JV_STRING)->u.s = save(d, json_string_value(j), json_string_length(j));
		break;
	case JSON_INTEGER:
		push(d, JV_INT)->u.i = json_integer_value(j);
		break;
	case JSON_REAL:
		push(d, JV_REAL)->u.d = json_real_value(j);
		break;
	case JSON_TRUE:
		push(d, JV_TRUE);
		break;
	case JSON_FALSE:
		push(d, JV_FALSE);
		break;
	case JSON_NULL:
		push(d, JV_NULL);
		break;
	}
}

/* The root, left alone on the stack, into the node array. */
static void finish(struct jv_doc *d)
{
	d->nodes[d->n_nodes] = d->stack[0];
	d->root = &d->nodes[d->n_nodes++];
	d->n_stack = 0;
}

int jv_parse(struct jv_doc *d, const char *p, size_t len, int *column, char *msg, size_t msg_cap)
{
	reserve(d, len);
	memcpy(d->strs, p, len);
	d->strs[len] = '\0';
	d->n_strs = len + 1;
	/* Only an object at the top (jansson takes no bare scalar there). */
	char *end = fast_object(d, d->strs);
	if (end && ws(end) == d->strs + len) {
		finish(d);
		d->fast = true;
		return 0;
	}
	return jv_parse_jansson(d, p, len, column, msg, msg_cap);
}

int jv_parse_jansson(struct jv_doc *d, const char *p, size_t len, int *column, char *msg,
		     size_t msg_cap)
{
	reserve(d, len);
	json_error_t je;
	json_t *j = json_loadb(p, len, 0, &je);
	if (!j) {
		*column = je.column;
		snprintf(msg, msg_cap, "%s", je.text);
		return -1;
	}
	convert(d, j);
	json_decref(j);
	finish(d);
	d->fast = false;
	return 0;
}

void jv_doc_free(struct jv_doc *d)
{
	free(d->nodes);
	free(d->strs);
	free(d->stack);
	memset(d, 0, sizeof *d);
}

const struct jv *jv_get(const struct jv *obj, const char *key)
{
	if (!jv_is_object(obj))
		return NULL;
	const struct jv *found = NULL;
	for (uint32_t i = 0; i < obj->n; i++) {
		const char *k = obj->u.items[i].key;
		if (k[0] == key[0] && !strcmp(k, key))
			found = &obj->u.items[i];
	}
	return found;
}
