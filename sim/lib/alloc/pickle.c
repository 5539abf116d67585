/*
 * pickle.c: the value-only pickle reader (pickle.h). One pass over the
 * opcodes with Python's unpickler's stack, mark stack and memo; each
 * opcode makes at most one value, so the work and the memory are linear
 * in the input. Values, container arrays and the stacks come from one
 * arena freed at once; the arena's size is checked against the bound
 * before each allocation.
 */
#include "pickle.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"

struct chunk {
	struct chunk *next;
	size_t used, cap;
	max_align_t data[];
};

struct pickle_doc {
	struct chunk *chunks;
	size_t bytes, limit;
	const struct pickle_value *root;
};

void pickle_doc_free(struct pickle_doc *doc)
{
	if (!doc)
		return;
	while (doc->chunks) {
		struct chunk *n = doc->chunks->next;
		free(doc->chunks);
		doc->chunks = n;
	}
	free(doc);
}

const struct pickle_value *pickle_root(const struct pickle_doc *doc)
{
	return doc->root;
}

/* Arena allocation: NULL past the bound. */
static void *arena(struct pickle_doc *d, size_t bytes)
{
	bytes = (bytes + 15) & ~(size_t)15;
	if (bytes > d->limit || d->bytes > d->limit - bytes)
		return NULL;
	d->bytes += bytes;
	struct chunk *c = d->chunks;
	if (!c || c->cap - c->used < bytes) {
		size_t cap = bytes > (1u << 20) ? bytes : (1u << 20);
		c = xmalloc(sizeof *c + cap);
		c->used = 0;
		c->cap = cap;
		c->next = d->chunks;
		d->chunks = c;
	}
	void *p = (char *)c->data + c->used;
	c->used += bytes;
	return p;
}

struct parser {
	const uint8_t *p;
	size_t n, pos, op_pos;
	const char *file;
	struct pickle_doc *doc;
	struct rs_error *err;
	struct pickle_value **stack;
	size_t sn, scap;
	size_t *marks;
	size_t mn, mcap;
	struct alloc_map memo; /* index -> value */
	uint64_t memo_next;
	int status;
};

static int fail(struct parser *ps, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct parser *ps, int status, const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return rs_error_set(ps->err, status, ps->file, 0, "byte %zu: %s", ps->op_pos, msg);
}

static int nomem(struct parser *ps)
{
	char b[32];
	return fail(ps, EXIT_NOMEM, "the values would take more than %s (%d bytes per byte of input, "
		    "plus 1 MiB: docs/limits.md)", rs_bytes_text(ps->doc->limit, b, sizeof b),
		    PICKLE_BYTES_PER_INPUT_BYTE);
}

static struct pickle_value *value(struct parser *ps, int type)
{
	struct pickle_value *v = arena(ps->doc, sizeof *v);
	if (!v)
		return NULL;
	memset(v, 0, sizeof *v);
	v->type = (uint8_t)type;
	v->depth = 1;
	return v;
}

static int push(struct parser *ps, struct pickle_value *v)
{
	if (!v)
		return nomem(ps);
	if (ps->sn == ps->scap) {
		/* the stack counts against the bound too */
		size_t add = (ps->scap ? ps->scap : 64) * sizeof *ps->stack;
		if (add > ps->doc->limit || ps->doc->bytes > ps->doc->limit - add)
			return nomem(ps);
		ps->doc->bytes += add;
	}
	XGROW(ps->stack, ps->scap, ps->sn + 1);
	ps->stack[ps->sn++] = v;
	return 0;
}

static int need(struct parser *ps, size_t k, const char *what)
{
	if (ps->n - ps->pos < k)
		return fail(ps, EXIT_DATAERR, "the input ends inside %s (truncated?)", what);
	return 0;
}

static uint64_t le(const uint8_t *p, int k)
{
	uint64_t x = 0;
	for (int i = k - 1; i >= 0; i--)
		x = x << 8 | p[i];
	return x;
}

/* The items from the topmost mark to the top of the stack; pops the mark. */
static int pop_mark(struct parser *ps, size_t *from, const char *op)
{
	if (!ps->mn)
		return fail(ps, EXIT_DATAERR, "%s without a MARK before it", op);
	*from = ps->marks[--ps->mn];
	return 0;
}

static int top(struct parser *ps, size_t k, const char *op)
{
	size_t base = ps->mn ? ps->marks[ps->mn - 1] : 0;
	if (ps->sn < base + k)
		return fail(ps, EXIT_DATAERR, "%s needs %zu value%s on the stack", op, k, k == 1 ? "" : "s");
	return 0;
}

/* Put items[0..k) into container c (not frozen, not among them). */
static int add_items(struct parser *ps, struct pickle_value *c, struct pickle_value **items, size_t k, const char *op)
{
	if (c->type != PICKLE_LIST && c->type != PICKLE_DICT)
		return fail(ps, EXIT_DATAERR, "%s on a %s, not a list or dict", op, pickle_type_name(c->type));
	if (c->frozen)
		return fail(ps, EXIT_DATAERR, "%s changes a container that is already inside another "
			    "(refused: it could make a value contain itself)", op);
	if (c->u.c.n + k > c->u.c.cap) {
		size_t cap = c->u.c.cap ? c->u.c.cap : 4;
		while (cap < c->u.c.n + k)
			cap *= 2;
		struct pickle_value **items2 = arena(ps->doc, cap * sizeof *items2);
		if (!items2)
			return nomem(ps);
		if (c->u.c.n)
			memcpy(items2, c->u.c.items, c->u.c.n * sizeof *items2);
		c->u.c.items = items2;
		c->u.c.cap = cap;
	}
	for (size_t i = 0; i < k; i++) {
		struct pickle_value *v = items[i];
		if (v == c)
			return fail(ps, EXIT_DATAERR, "%s puts a container inside itself", op);
		if (v->depth + 1 > PICKLE_MAX_DEPTH)
			return fail(ps, EXIT_DATAERR, "values nest deeper than %d (docs/limits.md)", PICKLE_MAX_DEPTH);
		if (v->depth + 1 > c->depth)
			c->depth = v->depth + 1;
		v->frozen = true;
		c->u.c.items[c->u.c.n++] = v;
	}
	return 0;
}

/* A new tuple, list or dict of items[0..k). */
static int make(struct parser *ps, int type, struct pickle_value **items, size_t k, const char *op)
{
	struct pickle_value *c = value(ps, type == PICKLE_TUPLE ? PICKLE_LIST : type);
	if (!c)
		return nomem(ps);
	if (k && add_items(ps, c, items, k, op))
		return -1;
	c->type = (uint8_t)type;
	return push(ps, c);
}

static const char *refused(int op)
{
	switch (op) {
	case 'c': return "GLOBAL";
	case 0x93: return "STACK_GLOBAL";
	case 'R': return "REDUCE";
	case 'b': return "BUILD";
	case 'i': return "INST";
	case 'o': return "OBJ";
	case 0x81: return "NEWOBJ";
	case 0x92: return "NEWOBJ_EX";
	case 0x82: return "EXT1";
	case 0x83: return "EXT2";
	case 0x84: return "EXT4";
	case 'P': return "PERSID";
	case 'Q': return "BINPERSID";
	case 0x97: return "NEXT_BUFFER";
	case 0x98: return "READONLY_BUFFER";
	}
	return NULL;
}

static int memo_put(struct parser *ps, uint64_t idx)
{
	if (top(ps, 1, "a memo store"))
		return -1;
	/* the memo counts against the bound: 17 bytes an entry, doubled */
	if (ps->doc->bytes > ps->doc->limit - 48)
		return nomem(ps);
	ps->doc->bytes += 48;
	alloc_map_put(&ps->memo, idx, (uint64_t)(uintptr_t)ps->stack[ps->sn - 1]);
	return 0;
}

static int memo_get(struct parser *ps, uint64_t idx)
{
	uint64_t v;
	if (!alloc_map_get(&ps->memo, idx, &v))
		return fail(ps, EXIT_DATAERR, "memo entry %llu was never stored", (unsigned long long)idx);
	return push(ps, (struct pickle_value *)(uintptr_t)v);
}

static int run(struct parser *ps)
{
	while (ps->pos < ps->n) {
		ps->op_pos = ps->pos;
		int op = ps->p[ps->pos++];
		const char *bad = refused(op);
		if (bad)
			return fail(ps, EXIT_DATAERR, "opcode %s (0x%02x) would import or call a Python object: "
				    "refused (this reader only builds values; nothing was run)", bad, op);
		struct pickle_value *v;
		size_t from = 0, k;
		switch (op) {
		case 0x80: /* PROTO */
			if (need(ps, 1, "PROTO"))
				return -1;
			if (ps->p[ps->pos] < 2 || ps->p[ps->pos] > 5)
				return fail(ps, EXIT_DATAERR, "pickle protocol %d: only protocols 2 to 5 are read",
					    ps->p[ps->pos]);
			ps->pos++;
			break;
		case 0x95: /* FRAME: a length hint only */
			if (need(ps, 8, "FRAME"))
				return -1;
			ps->pos += 8;
			break;
		case '.': /* STOP */
			if (ps->sn != 1 || ps->mn)
				return fail(ps, EXIT_DATAERR, "STOP with %zu values and %zu marks left (want 1 and 0)",
					    ps->sn, ps->mn);
			ps->doc->root = ps->stack[0];
			if (ps->pos != ps->n)
				return fail(ps, EXIT_DATAERR, "%zu bytes after STOP", ps->n - ps->pos);
			return 0;
		case '(': /* MARK */
			XGROW(ps->marks, ps->mcap, ps->mn + 1);
			ps->marks[ps->mn++] = ps->sn;
			if (ps->doc->bytes > ps->doc->limit - 8)
				return nomem(ps);
			ps->doc->bytes += 8;
			break;
		case '0': /* POP */
			if (ps->mn && ps->marks[ps->mn - 1] == ps->sn) {
				ps->mn--; /* POP of an empty mark drops the mark, as Python does */
				break;
			}
			if (top(ps, 1, "POP"))
				return -1;
			ps->sn--;
			break;
		case '1': /* POP_MARK */
			if (pop_mark(ps, &from, "POP_MARK"))
				return -1;
			ps->sn = from;
			break;
		case '2': /* DUP */
			if (top(ps, 1, "DUP"))
				return -1;
			if (push(ps, ps->stack[ps->sn - 1]))
				return -1;
			break;
		case '}':
		case ']':
		case 0x8f: /* EMPTY_SET */
			if (push(ps, value(ps, op == '}' ? PICKLE_DICT : PICKLE_LIST)))
				return -1;
			break;
		case ')':
			if (push(ps, value(ps, PICKLE_TUPLE)))
				return -1;
			break;
		case 't':
		case 'l':
		case 'd':
		case 0x91: /* FROZENSET */
			if (pop_mark(ps, &from, op == 't' ? "TUPLE" : op == 'l' ? "LIST" : op == 'd' ? "DICT" : "FROZENSET"))
				return -1;
			k = ps->sn - from;
			if (op == 'd' && k % 2)
				return fail(ps, EXIT_DATAERR, "DICT with an odd number of items");
			ps->sn = from;
			/* An empty stack has no array yet: no pointer arithmetic on it. */
			if (make(ps, op == 't' ? PICKLE_TUPLE : op == 'd' ? PICKLE_DICT : PICKLE_LIST,
				 k ? ps->stack + from : NULL, k, "TUPLE"))
				return -1;
			break;
		case 0x85:
		case 0x86:
		case 0x87: /* TUPLE1..3 */
			k = (size_t)(op - 0x84);
			if (top(ps, k, "TUPLE1/2/3"))
				return -1;
			ps->sn -= k;
			if (make(ps, PICKLE_TUPLE, ps->stack + ps->sn, k, "TUPLE1/2/3"))
				return -1;
			break;
		case 'a': /* APPEND */
			if (top(ps, 2, "APPEND"))
				return -1;
			if (add_items(ps, ps->stack[ps->sn - 2], ps->stack + ps->sn - 1, 1, "APPEND"))
				return -1;
			ps->sn--;
			break;
		case 's': /* SETITEM */
			if (top(ps, 3, "SETITEM"))
				return -1;
			if (ps->stack[ps->sn - 3]->type != PICKLE_DICT)
				return fail(ps, EXIT_DATAERR, "SETITEM on a %s", pickle_type_name(ps->stack[ps->sn - 3]->type));
			if (add_items(ps, ps->stack[ps->sn - 3], ps->stack + ps->sn - 2, 2, "SETITEM"))
				return -1;
			ps->sn -= 2;
			break;
		case 'e':
		case 'u':
		case 0x90: /* APPENDS, SETITEMS, ADDITEMS */
			if (pop_mark(ps, &from, op == 'u' ? "SETITEMS" : "APPENDS"))
				return -1;
			if (from == 0)
				return fail(ps, EXIT_DATAERR, "%s with nothing below its MARK", op == 'u' ? "SETITEMS" : "APPENDS");
			k = ps->sn - from;
			v = ps->stack[from - 1];
			if (op == 'u' && (k % 2 || v->type != PICKLE_DICT))
				return fail(ps, EXIT_DATAERR, "SETITEMS with an odd number of items or on a %s",
					    pickle_type_name(v->type));
			if (op != 'u' && v->type != PICKLE_LIST)
				return fail(ps, EXIT_DATAERR, "APPENDS on a %s", pickle_type_name(v->type));
			if (add_items(ps, v, ps->stack + from, k, op == 'u' ? "SETITEMS" : "APPENDS"))
				return -1;
			ps->sn = from;
			break;
		case 'J':
		case 'K':
		case 'M': {
			int bytes = op == 'J' ? 4 : op == 'K' ? 1 : 2;
			if (need(ps, (size_t)bytes, "an integer"))
				return -1;
			uint64_t x = le(ps->p + ps->pos, bytes);
			ps->pos += (size_t)bytes;
			v = value(ps, PICKLE_INT);
			if (v)
				v->u.i = op == 'J' ? (int64_t)(int32_t)(uint32_t)x : (int64_t)x;
			if (push(ps, v))
				return -1;
			break;
		}
		case 0x8a:
		case 0x8b: { /* LONG1, LONG4: little-endian two's complement */
			int lb = op == 0x8a ? 1 : 4;
			if (need(ps, (size_t)lb, "LONG1/LONG4"))
				return -1;
			uint64_t len = le(ps->p + ps->pos, lb);
			ps->pos += (size_t)lb;
			if (op == 0x8b && (len >> 31))
				return fail(ps, EXIT_DATAERR, "LONG4 with a negative length");
			if (need(ps, len, "a long integer"))
				return -1;
			const uint8_t *b = ps->p + ps->pos;
			ps->pos += len;
			bool neg = len && (b[len - 1] & 0x80);
			/* fits in int64_t when the bytes past 8 only extend the sign */
			bool fits = true;
			for (uint64_t i = 8; i < len; i++)
				fits &= b[i] == (neg ? 0xff : 0);
			if (len > 8 && fits && ((b[7] & 0x80) != 0) != neg)
				fits = false;
			if (fits) {
				uint64_t x = neg ? UINT64_MAX : 0;
				for (uint64_t i = 0; i < len && i < 8; i++)
					x = (x & ~(UINT64_C(0xff) << (8 * i))) | (uint64_t)b[i] << (8 * i);
				v = value(ps, PICKLE_INT);
				if (v)
					v->u.i = (int64_t)x;
			} else {
				v = value(ps, PICKLE_BIGINT);
				if (v) {
					v->u.s.p = (const char *)b;
					v->u.s.n = len;
				}
			}
			if (push(ps, v))
				return -1;
			break;
		}
		case 'N':
			if (push(ps, value(ps, PICKLE_NONE)))
				return -1;
			break;
		case 0x88:
		case 0x89:
			v = value(ps, PICKLE_BOOL);
			if (v)
				v->u.b = op == 0x88;
			if (push(ps, v))
				return -1;
			break;
		case 'G': { /* BINFLOAT: big-endian double */
			if (need(ps, 8, "BINFLOAT"))
				return -1;
			uint64_t x = 0;
			for (int i = 0; i < 8; i++)
				x = x << 8 | ps->p[ps->pos + (size_t)i];
			ps->pos += 8;
			v = value(ps, PICKLE_FLOAT);
			if (v)
				memcpy(&v->u.f, &x, sizeof x);
			if (push(ps, v))
				return -1;
			break;
		}
		case 'X':
		case 0x8c:
		case 0x8d:
		case 'B':
		case 'C':
		case 0x8e:
		case 0x96:
		case 'T':
		case 'U': { /* strings and bytes with a length */
			int lb = (op == 0x8c || op == 'C' || op == 'U') ? 1 : (op == 0x8d || op == 0x8e || op == 0x96) ? 8 : 4;
			if (need(ps, (size_t)lb, "a length"))
				return -1;
			uint64_t len = le(ps->p + ps->pos, lb);
			ps->pos += (size_t)lb;
			if (op == 'T' && (len >> 31))
				return fail(ps, EXIT_DATAERR, "BINSTRING with a negative length");
			if (need(ps, len, "a string"))
				return -1;
			v = value(ps, (op == 'X' || op == 0x8c || op == 0x8d) ? PICKLE_STR : PICKLE_BYTES);
			if (v) {
				v->u.s.p = (const char *)ps->p + ps->pos;
				v->u.s.n = len;
			}
			ps->pos += len;
			if (push(ps, v))
				return -1;
			break;
		}
		case 0x94: /* MEMOIZE */
			if (memo_put(ps, ps->memo_next++))
				return -1;
			break;
		case 'q':
		case 'r':
		case 'h':
		case 'j': {
			int lb = (op == 'q' || op == 'h') ? 1 : 4;
			if (need(ps, (size_t)lb, "a memo index"))
				return -1;
			uint64_t idx = le(ps->p + ps->pos, lb);
			ps->pos += (size_t)lb;
			if ((op == 'q' || op == 'r') ? memo_put(ps, idx) : memo_get(ps, idx))
				return -1;
			break;
		}
		case 'I':
		case 'L':
		case 'F':
		case 'S':
		case 'V':
		case 'p':
		case 'g':
			return fail(ps, EXIT_DATAERR, "opcode '%c' of the text protocols 0 and 1: only the binary "
				    "protocols 2 to 5 are read", op);
		default:
			return fail(ps, EXIT_DATAERR, "unknown opcode 0x%02x (not a pickle, or a protocol past 5?)", op);
		}
	}
	ps->op_pos = ps->n;
	return fail(ps, EXIT_DATAERR, "the input ends before STOP (truncated?)");
}

int pickle_parse(const uint8_t *data, size_t n, const char *file, struct pickle_doc **out, struct rs_error *err)
{
	struct pickle_doc *doc = xcalloc(1, sizeof *doc);
	size_t per = PICKLE_BYTES_PER_INPUT_BYTE;
	doc->limit = n > (SIZE_MAX - (1u << 20)) / per ? SIZE_MAX : n * per + (1u << 20);
	struct parser ps = {.p = data, .n = n, .file = file, .doc = doc, .err = err};
	alloc_map_init(&ps.memo);
	int rc = run(&ps);
	free(ps.stack);
	free(ps.marks);
	alloc_map_done(&ps.memo);
	if (rc) {
		pickle_doc_free(doc);
		return -1;
	}
	*out = doc;
	return 0;
}

const struct pickle_value *pickle_get(const struct pickle_value *d, const char *name)
{
	if (!d || d->type != PICKLE_DICT)
		return NULL;
	for (size_t i = d->u.c.n; i >= 2; i -= 2)
		if (pickle_str_is(d->u.c.items[i - 2], name))
			return d->u.c.items[i - 1];
	return NULL;
}

bool pickle_str_is(const struct pickle_value *v, const char *s)
{
	size_t n = strlen(s);
	return v && v->type == PICKLE_STR && v->u.s.n == n && !memcmp(v->u.s.p, s, n);
}

const char *pickle_type_name(int type)
{
	static const char *const names[] = {"None", "bool", "int", "int", "float", "str", "bytes", "tuple", "list", "dict"};
	return type >= 0 && type <= PICKLE_DICT ? names[type] : "?";
}
