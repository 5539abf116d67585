/*
 * test-common.h: helpers shared by the Check suites: building schedules
 * from inline log text, collecting the problems check mode reports, and
 * finding the read-only reference data in ../shared.
 */
#ifndef REMATSIM_TEST_COMMON_H
#define REMATSIM_TEST_COMMON_H

#include <check.h>
#include <stdbool.h>
#include <stdio.h>

#include "schedule.h"

struct runtime_result;

/* Exit status meson reads as "skipped". */
#define EXIT_SKIP 77

/** Parse text as a log named "t.log"; NULL on error (err filled). */
struct schedule *parse_text(const char *text, const struct read_options *opt,
			    struct rs_error *err);

/** A log built record by record (the runtime's and offload's suites). */
struct logb {
	char buf[8192];
	size_t len;
};
/** Append printf-style text; fails the test past the buffer. */
void logb_put(struct logb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** A constant of `bytes`. */
void logb_const(struct logb *b, const char *name, unsigned bytes);
/** One-result call: out = op(args), args a JSON list body like "\"w\",\"a\"". */
void logb_call(struct logb *b, const char *out, const char *args, unsigned bytes, unsigned time);
void logb_release(struct logb *b, const char *name);
/** The schedule of the log so far; fails the test if it does not parse. */
struct schedule *logb_build(const struct logb *b);
/**
 * The runtime's and offload's hand-traced chain: w (10 bytes, pinned);
 * a = f(w) 100 t1; b = g(a) 100 t2; c = h(b) 100 t4; d = k(c) 100 t8;
 * e = m(a, d) 100 t16; then every name released. Storages: w 0 .. e 5.
 */
struct schedule *logb_chain(void);

/** Problems found by check mode on text; fills up to cap messages. */
struct problems {
	int n;
	struct rs_error e[32];
};
int check_text(const char *text, struct problems *p);

/** True if some problem is on `line` and its message contains `needle`. */
bool has_problem(const struct problems *p, long line, const char *needle);

/**
 * Fail the test unless a and b are the same schedule: every array (ops,
 * tensors, storages, commands, arguments, strings, the derived lists) and
 * every fact of the read (records, lines, counts, totals, digest). `what`
 * names the case in the message.
 */
void assert_same_schedule(const struct schedule *a, const struct schedule *b, const char *what);

/**
 * Whether two replays' numbers are the same: outcome, clock, remat
 * compute, peak memory, evictions, remats, heuristic evaluations and
 * accesses, and where a stopped run stopped (what two paths of the
 * runtime that must agree are held to; speed diagnostics aside).
 */
bool same_run(const struct runtime_result *x, const struct runtime_result *y);

/**
 * The shared data folder (REMATSIM_SHARED, else ../shared beside the
 * source tree), or NULL when it is absent.
 */
const char *shared_dir(void);
/** shared_dir()/rel into buf; returns buf. */
char *shared_path(char *buf, size_t cap, const char *rel);

/** Open $REMATSIM_SOURCE/tests/data/name for reading (fails the test if it
 * cannot). */
FILE *open_test_data(const char *name);

/** Run one suite, returning a process exit status. */
int run_suite(Suite *s);

#endif
