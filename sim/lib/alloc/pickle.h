/*
 * pickle.h: a reader of Python's pickle format that only builds values:
 * None, bools, ints, floats, strings, bytes, tuples, lists, dicts (and
 * sets, read as lists). Every opcode that would import or call something
 * (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, NEWOBJ_EX,
 * EXT1/2/4, PERSID, BINPERSID, out-of-band buffers) is refused with the
 * opcode and its byte offset; nothing in the input is ever run.
 *
 * Invariants: the values form a DAG of bounded depth: a container is
 * frozen once it is put inside another, and a frozen container cannot
 * change, so no value can contain itself; memory is bounded by a fixed
 * multiple of the input's size (docs/limits.md).
 *
 * Ownership: pickle_parse gives a document that pickle_doc_free takes.
 * Strings and bytes point into the input, which the caller keeps alive as
 * long as the document.
 */
#ifndef REMATSIM_PICKLE_H
#define REMATSIM_PICKLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

/** The deepest nesting of containers read (a snapshot nests 7 deep). */
#define PICKLE_MAX_DEPTH 100
/** Memory the values of one input may take: this many bytes per input byte, plus 1 MiB. */
#define PICKLE_BYTES_PER_INPUT_BYTE 64

enum pickle_type {
	PICKLE_NONE,
	PICKLE_BOOL,
	PICKLE_INT,    /* fits in int64_t: .i */
	PICKLE_BIGINT, /* an integer past int64_t: its little-endian bytes in .s */
	PICKLE_FLOAT,
	PICKLE_STR,    /* UTF-8 as the pickle holds it, not NUL-terminated */
	PICKLE_BYTES,
	PICKLE_TUPLE,
	PICKLE_LIST,   /* also sets and frozensets */
	PICKLE_DICT,   /* .items holds key, value, key, value, ... */
};

struct pickle_value {
	uint8_t type;
	bool frozen;      /* inside another container: no longer changes */
	uint32_t depth;   /* 1 for a scalar, 1 + the deepest item for a container */
	union {
		int64_t i;
		double f;
		bool b;
		struct {
			const char *p;
			size_t n;
		} s;
		struct {
			struct pickle_value **items;
			size_t n, cap; /* n items (a dict: 2 per entry) */
		} c;
	} u;
};

struct pickle_doc;

/**
 * Parse the pickle in data[0..n) (borrowed: strings point into it). 0 and
 * *doc, or -1 with err filled (EXIT_DATAERR: the byte offset and what is
 * wrong; EXIT_NOMEM past the memory bound). file names the input in messages.
 */
int pickle_parse(const uint8_t *data, size_t n, const char *file, struct pickle_doc **doc, struct rs_error *err);
void pickle_doc_free(struct pickle_doc *doc);
/** The value the pickle's STOP returns. */
const struct pickle_value *pickle_root(const struct pickle_doc *doc);

/** In a dict, the value of the string key name, or NULL (the last one, as Python keeps). */
const struct pickle_value *pickle_get(const struct pickle_value *dict, const char *name);
/** Whether v is the string s. */
bool pickle_str_is(const struct pickle_value *v, const char *s);
/** The name of a pickle type ("dict", "int", ...). */
const char *pickle_type_name(int type);

#endif
