/*
 * cmd_opts.c: option values that several commands take the same way
 * (replay, peak, fit): the overhead limit and whole numbers such as a
 * seed, and the usage errors. One parser and one message each, so the
 * commands agree.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "scalar.h"
#include "util.h"

int opt_overhead_limit(const char *cmd, const char *arg, double *out)
{
	const char *why;
	if (scalar_parse_double(arg, out, &why) || !(*out >= 1)) {
		fprintf(stderr, "rematsim %s: --overhead-limit wants a number >= 1 or 'inf', not '%s'\n",
			cmd, arg);
		return EXIT_USAGE;
	}
	return 0;
}

int opt_whole(const char *cmd, const char *opt, const char *arg, int base, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(arg, &end, base);
	if (end == arg || *end || errno || *arg == '-') {
		fprintf(stderr, "rematsim %s: %s wants a non-negative integer, not '%s'\n", cmd, opt, arg);
		return EXIT_USAGE;
	}
	*out = v;
	return 0;
}

int usage_error(const char *cmd, const char *help, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "rematsim %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fputs(help, stderr);
	return EXIT_USAGE;
}
