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

/* The fast path reads a copy of the line in doc->strs, and ends each
 * string there in place (its closing quote becomes its NUL). */
struct fp {
	char *p, *end;
	struct jv_doc *d;
};

static void reserve(struct jv_doc *d, size_t len)
{
	if (d->cap_nodes < len + 2) {
		free(d->nodes);
		free(d->stack);
		d->cap_nodes = d->cap_stack = len + 2;
		d->nodes = xmalloc(d->cap_nodes * sizeof *d->nodes);
		d->stack = xmalloc(d->cap_stack * sizeof *d->stack);
	}
	if (d->cap_strs < 2 * len + 2) {
		free(d->strs);
		d->cap_strs = 2 * len + 2;
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

static inline void ws(struct fp *f)
{
	while (f->p < f->end && (*f->p == ' ' || *f->p == '\t' || *f->p == '\n' || *f->p == '\r'))
		f->p++;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ONES UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)
/* A high bit in each byte of w that is a quote, a backslash, a control
 * byte or not ASCII, exact up to the first such byte (the bits above it
 * may be false), 0 when none. */
static inline uint64_t string_stops(uint64_t w)
{
	uint64_t q = w ^ (ONES * '"'), bs = w ^ (ONES * '\\');
	return ((q - ONES) & ~q) | ((bs - ONES) & ~bs) | (w - ONES * 0x20) | w;
}
#endif

/* A plain string at f->p (at its opening quote), ended in place, or NULL. */
static inline __attribute__((always_inline)) const char *fast_string(struct fp *f)
{
	const char *s = ++f->p;
#ifdef ONES
	/* Eight bytes at a time to the first byte that ends or spoils it. */
	while (f->end - f->p >= 8) {
		uint64_t w;
		memcpy(&w, f->p, sizeof w);
		uint64_t stops = string_stops(w) & HIGHS;
		if (stops) {
			f->p += __builtin_ctzll(stops) / 8;
			break;
		}
		f->p += 8;
	}
#endif
	while (f->p < f->end) {
		unsigned char c = (unsigned char)*f->p;
		if (c == '"') {
			*f->p++ = '\0';
			return s;
		}
		if (c == '\\' || c < 0x20 || c >= 0x80)
			return NULL;
		f->p++;
	}
	return NULL;
}

static int fast_value(struct fp *f, int depth);

/* An array (members "key": value with `object`) at f->p, at its opening
 * bracket. */
static int fast_list(struct fp *f, int depth, bool object)
{
	const char close = object ? '}' : ']';
	f->p++;
	size_t base = f->d->n_stack;
	ws(f);
	if (f->p < f->end && *f->p == close) {
		f->p++;
		close_container(f->d, base, object ? JV_OBJECT : JV_ARRAY);
		return 0;
	}
	for (;;) {
		const char *key = NULL;
		if (object) {
			ws(f);
			if (f->p >= f->end || *f->p != '"' || !(key = fast_string(f)))
				return -1;
			ws(f);
			if (f->p >= f->end || *f->p != ':')
				return -1;
			f->p++;
		}
		if (fast_value(f, depth + 1))
			return -1;
		f->d->stack[f->d->n_stack - 1].key = key;
		ws(f);
		if (f->p >= f->end)
			return -1;
		if (*f->p == ',') {
			f->p++;
			continue;
		}
		if (*f->p != close)
			return -1;
		f->p++;
		close_container(f->d, base, object ? JV_OBJECT : JV_ARRAY);
		return 0;
	}
}

static int fast_value(struct fp *f, int depth)
{
	ws(f);
	if (f->p >= f->end)
		return -1;
	char c = *f->p;
	if (c == '"') {
		const char *s = fast_string(f);
		if (!s)
			return -1;
		push(f->d, JV_STRING)->u.s = s;
		return 0;
	}
	if (c == '-' || (c >= '0' && c <= '9')) {
		char *q = f->p;
		bool neg = *q == '-';
		if (neg)
			q++;
		const char *digits = q;
		int64_t x = 0;
		while (q < f->end && *q >= '0' && *q <= '9' && q - digits < 18)
			x = x * 10 + (*q++ - '0');
		size_t nd = (size_t)(q - digits);
		if (nd == 0 || nd > 18 || (nd > 1 && digits[0] == '0'))
			return -1;
		if (q < f->end && (*q == '.' || *q == 'e' || *q == 'E' || (*q >= '0' && *q <= '9')))
			return -1;
		f->p = q;
		push(f->d, JV_INT)->u.i = neg ? -x : x;
		return 0;
	}
	if ((c == '[' && depth < 2) || (c == '{' && depth == 0))
		return fast_list(f, depth, c == '{');
	return -1;
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
	d->n_strs = len;
	struct fp f = {.p = d->strs, .end = d->strs + len, .d = d};
	ws(&f);
	/* Only an object at the top (jansson takes no bare scalar there). */
	if (f.p < f.end && *f.p == '{' && fast_value(&f, 0) == 0) {
		ws(&f);
		if (f.p == f.end) {
			finish(d);
			d->fast = true;
			return 0;
		}
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
