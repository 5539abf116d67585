/*
 * util.c: see util.h. Allocation aborts on failure so that no caller ever
 * handles NULL; errors are values filled into struct rs_error.
 */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static _Noreturn void out_of_memory(size_t bytes)
{
	fprintf(stderr, "rematsim: out of memory (asked for %zu bytes)\n", bytes);
	abort();
}

void *xmalloc(size_t bytes)
{
	void *p = malloc(bytes ? bytes : 1);
	if (!p)
		out_of_memory(bytes);
	return p;
}

void *xcalloc(size_t n, size_t bytes)
{
	void *p = calloc(n ? n : 1, bytes ? bytes : 1);
	if (!p)
		out_of_memory(n * bytes);
	return p;
}

void *xrealloc(void *p, size_t bytes)
{
	void *q = realloc(p, bytes ? bytes : 1);
	if (!q)
		out_of_memory(bytes);
	return q;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = xmalloc(n);
	memcpy(p, s, n);
	return p;
}

void *xmemdup(const void *p, size_t n)
{
	void *q = xmalloc(n);
	memcpy(q, p, n);
	return q;
}

void xgrow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return;
	size_t c = *cap ? *cap : 16;
	while (c < need)
		c *= 2;
	*p = xrealloc(*p, c * elem);
	*cap = c;
}

int rs_error_vset(struct rs_error *err, int status, const char *file, long line,
		  const char *fmt, va_list ap)
{
	if (!err)
		return -1;
	err->status = status;
	err->line = line;
	err->column = 0;
	snprintf(err->file, sizeof err->file, "%s", file ? file : "");
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	return -1;
}

int rs_error_set(struct rs_error *err, int status, const char *file, long line,
		 const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rs_error_vset(err, status, file, line, fmt, ap);
	va_end(ap);
	return -1;
}

void rs_error_print(const struct rs_error *err)
{
	if (err->file[0] && err->line > 0 && err->column > 0)
		fprintf(stderr, "rematsim: %s:%ld:%ld: %s\n", err->file, err->line,
			err->column, err->msg);
	else if (err->file[0] && err->line > 0)
		fprintf(stderr, "rematsim: %s:%ld: %s\n", err->file, err->line, err->msg);
	else if (err->file[0])
		fprintf(stderr, "rematsim: %s: %s\n", err->file, err->msg);
	else
		fprintf(stderr, "rematsim: %s\n", err->msg);
}

_Noreturn void rs_bug(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "rematsim: internal error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
