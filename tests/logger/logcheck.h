/*
 * logcheck.h: an independent reader of op logs for the logger's tests. It
 * checks every format rule of LOG-FORMAT.md line by line (with jansson, not
 * the logger's code) and replays the log from its START with the
 * simulator's unbounded eager rules to get the peak of live storage bytes.
 */
#ifndef REMATSIM_TEST_LOGCHECK_H
#define REMATSIM_TEST_LOGCHECK_H

#include <stdbool.h>
#include <stdint.h>

struct logcheck {
	long records, calls, mutates, copies, copy_froms, releases, constants, views;
	long starts, backwards;
	long module_calls, writes; /* ANNOTATE ENTER records; CALLs with WRITES */
	uint64_t peak_bytes;    /* from the last START on */
	/* After the last START: the ops around the BACKWARD annotation. */
	char last_forward_op[64], first_backward_op[64];
	long forward_ops, backward_ops;
	char error[512];        /* "" when the log is well-formed */
};

/** Read and check PATH (plain or gzip). Returns 0 when well-formed. */
int logcheck_file(const char *path, struct logcheck *out);

/** peak_live_bytes from the meta side file of log PATH, or -1. */
long long logcheck_meta_peak(const char *log_path);

#endif
