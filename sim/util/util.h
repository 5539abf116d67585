/*
 * util.h: allocation that never returns NULL, the error record every
 * fallible function fills, and small helpers shared by the whole tool.
 *
 * Ownership rule for the project: a function that returns a pointer the
 * caller must free says "takes"/"gives" in its comment; `*_new` pairs with
 * `*_free`. Allocation failure is not an input error: the process stops
 * with a message and EXIT_NOMEM (the memory limit, rs_memory_limit_set).
 */
#ifndef REMATSIM_UTIL_H
#define REMATSIM_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit statuses, from sysexits(3). */
enum {
	EXIT_USAGE = 64,    /* bad command line */
	EXIT_DATAERR = 65,  /* malformed input data (log, YAML) */
	EXIT_NOINPUT = 66,  /* an input file is missing or unreadable */
	EXIT_UNAVAILABLE = 69, /* a program or device we need is missing (gnuplot, CUDA) */
	EXIT_SOFTWARE = 70, /* internal error (a broken invariant of ours) */
	EXIT_NOMEM = 71,    /* the memory limit was reached (sysexits' EX_OSERR) */
	EXIT_CANTCREAT = 73,/* an output file cannot be created */
	EXIT_IOERR = 74,    /* an I/O error while writing */
};

/**
 * Limit the process's data memory (heap and private mappings: RLIMIT_DATA)
 * to bytes, so that a run that would pass it stops with a message and
 * EXIT_NOMEM instead of being killed by the kernel; UINT64_MAX: no limit of
 * ours. Not applied under AddressSanitizer (its shadow memory counts).
 * Returns 0, or -1 if the kernel refused.
 */
int rs_memory_limit_set(uint64_t bytes);
/** The limit set (UINT64_MAX: none); the machine's physical memory. */
uint64_t rs_memory_limit(void);
uint64_t rs_physical_memory(void);
/** Stop: an allocation of `bytes` failed (message, EXIT_NOMEM). */
_Noreturn void rs_out_of_memory(size_t bytes);
/** Stop: worker thread `thread` of `threads` (its stack: stack bytes) could
 * not start, errno error (EAGAIN, ENOMEM): a message saying why (the memory
 * limit, the process limit) and what to do (fewer --jobs), EXIT_NOMEM
 * (sysexits' EX_OSERR, "cannot fork"). */
_Noreturn void rs_cannot_start(unsigned thread, unsigned threads, size_t stack, int error);

/** Allocation wrappers: rs_out_of_memory on failure. */
void *xmalloc(size_t bytes);
void *xcalloc(size_t n, size_t bytes);
void *xrealloc(void *p, size_t bytes);
char *xstrdup(const char *s);
/** A new copy of the n bytes at p. */
void *xmemdup(const void *p, size_t n);
/** Grow *p (of *cap elements of elem bytes) to hold at least need elements. */
void xgrow(void **p, size_t *cap, size_t need, size_t elem);
/* (the test inline: most calls need no growth; need is read twice) */
#define XGROW(p, cap, need) \
	((size_t)(need) <= (cap) ? (void)0 : xgrow((void **)&(p), &(cap), (need), sizeof(*(p))))

/**
 * An error as a value: where (file and 1-based line of the *input*, 0 when
 * not tied to a line), what, and the exit status it maps to.
 */
struct rs_error {
	int status;        /* EXIT_* above; 0 = no error */
	long line;         /* input line, 0 if none */
	long column;       /* input column, 0 if none */
	char file[1024];   /* input file (as the user named it) */
	char msg[1024];
};

/** Fill err (if not NULL) and return -1. printf-style message. */
int rs_error_set(struct rs_error *err, int status, const char *file, long line,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
int rs_error_vset(struct rs_error *err, int status, const char *file, long line,
		  const char *fmt, va_list ap);
/** Print "FILE:LINE: msg" (or "FILE: msg") on stderr, prefixed by "rematsim: ". */
void rs_error_print(const struct rs_error *err);

/** Exit 70 with "internal error: ...": a broken invariant of ours, never the user's input. */
_Noreturn void rs_bug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/**
 * Read a whole file into a NUL-terminated buffer (gives *data; *len bytes
 * before the NUL). -1 with err filled (EXIT_NOINPUT: missing, unreadable,
 * or a directory). The one whole-file reader of the project.
 */
int read_whole_file(const char *path, char **data, size_t *len, struct rs_error *err);
/**
 * read_whole_file, stopping past limit bytes (an endless input, /dev/zero
 * or a pipe, stops there): -1 with EXIT_DATAERR naming the limit and
 * REMATSIM_MAX_INPUT (docs/limits.md). read_whole_file is this with no limit.
 */
int read_whole_file_limit(const char *path, uint64_t limit, char **data, size_t *len,
			  struct rs_error *err);

/** Create dir and its parents (mkdir -p). Returns 0 or -1 with err (EXIT_CANTCREAT). */
int make_dirs(const char *dir, struct rs_error *err);

/** "dir/name" (gives). */
char *path_join(const char *dir, const char *name);

/**
 * The index of s in the list *names (*n of them, room for *cap), appending
 * a copy of s first when it is not there: names in order of first sight.
 * A linear search: for the few names of a figure (models, series).
 */
size_t intern(char ***names, size_t *n, size_t *cap, const char *s);

/**
 * Write s to f as one word of a POSIX shell command line: as it is when
 * every byte is in a short allow-list (letters, digits, / . _ - + = : , @ %),
 * else in single quotes, each ' written as '\''. The shell then expands
 * nothing in it (no $, `, glob, ~, !, space or newline is left bare), and
 * an empty s is ''. The one shell quoting of the project (sbatch scripts,
 * the command line a sweep records).
 */
void shell_quote(FILE *f, const char *s);

/*
 * Input limits (docs/limits.md): a limit is its default unless the named
 * environment variable holds a byte count (digits, optionally followed by
 * k, M, G, T or KiB, MiB, GiB, TiB; "inf" or 0 for none).
 */
#define RS_MAX_INPUT_ENV "REMATSIM_MAX_INPUT"   /* bytes of one input, decompressed */
#define RS_MAX_INPUT_DEFAULT (UINT64_C(1) << 30) /* 1 GiB */
#define RS_MAX_LINE_ENV "REMATSIM_MAX_LINE"     /* bytes of one line of a log */
#define RS_MAX_LINE_DEFAULT (UINT64_C(16) << 20) /* 16 MiB */
/** The limit set by env (UINT64_MAX for none), else dflt; a malformed value is dflt. */
uint64_t rs_limit(const char *env, uint64_t dflt);
/** "1 GiB"-style text of a byte count into buf. */
const char *rs_bytes_text(uint64_t bytes, char *buf, size_t size);

/**
 * Write s to f as one TSV field: a tab, newline, carriage return or
 * backslash in it becomes \t, \n, \r or \\, any other control character
 * (below 0x20, 0x7f: a terminal's escape) \xHH (names from logs may hold
 * them). Returns what fputs returns for the last piece (EOF on error).
 */
int rs_tsv_field(FILE *f, const char *s);

/** Monotonic wall clock in seconds. */
double now_seconds(void);

/** Whether deadline (now_seconds()'s clock; 0 or less: none) has passed. */
bool deadline_past(double deadline);

/** The greatest common divisor of a and b (gcd(0, b) = b). */
uint64_t gcd_u64(uint64_t a, uint64_t b);

/**
 * The name of names[0..n) nearest to name by edit distance, ignoring case,
 * for "did you mean" hints; NULL when none is within a third of its length
 * (at least 2 edits). Names up to 63 characters.
 */
const char *nearest_name(const char *name, const char *const *names, size_t n);

/** The size of a buffer for fmt_double. */
#define FMT_DOUBLE_LEN 32
/**
 * x as the shortest %g text that reads back (strtod) as exactly x: "0.7",
 * not "0.69999999999999996"; whole numbers below 1e15 in full ("10", not
 * "1e+01"); "inf", "-inf", "nan" as printf writes them.
 * Returns buf.
 */
char *fmt_double(char buf[FMT_DOUBLE_LEN], double x);
/** fmt_double's reals by its definition, trying p = 1, 2, ... 17 in turn
 * (what its faster search must equal: tests). */
char *fmt_double_linear(char buf[FMT_DOUBLE_LEN], double x);

/**
 * The length of the valid UTF-8 sequence at p (1 for ASCII, 2 to 4), or 0
 * for a byte that does not start one (overlong forms, surrogates and code
 * points past U+10FFFF are not valid). Reads no byte past a NUL.
 */
size_t rs_utf8_len(const char *p);
/** A copy of s (gives) with each byte that is not part of valid UTF-8
 * replaced by U+FFFD: text for JSON and figures, which must be UTF-8. */
char *rs_utf8_clean(const char *s);

/**
 * s for a line of text output (a table, a TSV row, a message): s itself
 * when it holds no control character (a byte below 0x20, or 0x7f), else a
 * copy in one of a few buffers of this thread with each shown as \t, \n,
 * \r or \xHH (a copy past 4 KiB cut, "..." at its end). A name from a log
 * then cannot end a line, forge a row, or send the terminal an escape
 * sequence (issue 40, H14). Valid until 8 more calls in this thread.
 */
const char *rs_text_safe(const char *s);
/** rs_text_safe, but a newline stays one: for a message of our own whose
 * lines are meant (rs_error_print), where each name quoted in it was
 * escaped with rs_text_safe when it was put in. */
const char *rs_text_safe_lines(const char *s);

/** A log's side file (the recorders' metadata, docs/log-format.md): PATH
 * without ".gz" and ".log", plus ".meta.json" (mlp.log.gz ->
 * mlp.meta.json). Gives a string to free. */
char *rs_meta_path(const char *path);

#endif
