/*
 * util.c: see util.h. Allocation stops the process on failure (EXIT_NOMEM)
 * so that no caller ever handles NULL; errors are values filled into
 * struct rs_error.
 */
#include "util.h"

#include <errno.h>
#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int read_whole_file_limit(const char *path, uint64_t limit, char **data, size_t *len,
			  struct rs_error *err)
{
	*data = NULL;
	*len = 0;
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return rs_error_set(err, EXIT_NOINPUT, path, 0, "is a directory, not a file");
	FILE *f = fopen(path, "rb");
	if (!f)
		return rs_error_set(err, EXIT_NOINPUT, path, 0, "cannot open: %s", strerror(errno));
	size_t cap = 65536, n = 0;
	char *buf = xmalloc(cap + 1);
	for (;;) {
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (!got)
			break;
		if (n > limit) {
			fclose(f);
			free(buf);
			return rs_error_set(err, EXIT_DATAERR, path, 0, "more than %" PRIu64 " bytes: over the "
					    "input size limit; set REMATSIM_MAX_INPUT to raise it", limit);
		}
		if (n == cap)
			buf = xrealloc(buf, (cap *= 2) + 1);
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		return rs_error_set(err, EXIT_NOINPUT, path, 0, "read error");
	}
	buf[n] = '\0';
	*data = buf;
	*len = n;
	return 0;
}

int read_whole_file(const char *path, char **data, size_t *len, struct rs_error *err)
{
	return read_whole_file_limit(path, UINT64_MAX, data, len, err);
}

char *path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = xmalloc(n);
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

int make_dirs(const char *dir, struct rs_error *err)
{
	if (!*dir) /* (and the walk below starts past the first byte) */
		return rs_error_set(err, EXIT_CANTCREAT, "''", 0, "an empty name is no folder");
	char *p = xstrdup(dir);
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s)
			continue;
		char c = *s;
		*s = 0;
		struct stat st;
		if (mkdir(p, 0777) && errno != EEXIST) {
			int e = errno;
			rs_error_set(err, EXIT_CANTCREAT, p, 0, "cannot create folder: %s",
				     strerror(e));
			free(p);
			return -1;
		}
		if (stat(p, &st) || !S_ISDIR(st.st_mode)) {
			rs_error_set(err, EXIT_CANTCREAT, p, 0, "exists and is not a folder");
			free(p);
			return -1;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return 0;
}

size_t intern(char ***names, size_t *n, size_t *cap, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*names)[i], s))
			return i;
	XGROW(*names, *cap, *n + 1);
	(*names)[*n] = xstrdup(s);
	return (*n)++;
}

static uint64_t memory_limit = UINT64_MAX;

uint64_t rs_physical_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : UINT64_MAX;
}

#if defined(__SANITIZE_ADDRESS__)
#define RS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RS_ASAN 1
#endif
#endif

int rs_memory_limit_set(uint64_t bytes)
{
	memory_limit = bytes;
#ifndef RS_ASAN
	struct rlimit rl;
	if (getrlimit(RLIMIT_DATA, &rl))
		return -1;
	rlim_t want = bytes >= (uint64_t)RLIM_INFINITY ? RLIM_INFINITY : (rlim_t)bytes;
	if (rl.rlim_max != RLIM_INFINITY && (want == RLIM_INFINITY || want > rl.rlim_max))
		want = rl.rlim_max; /* an outer limit stays the tighter one */
	rl.rlim_cur = want;
	if (setrlimit(RLIMIT_DATA, &rl))
		return -1;
#endif
	return 0;
}

uint64_t rs_memory_limit(void)
{
	return memory_limit;
}

_Noreturn void rs_out_of_memory(size_t bytes)
{
	if (memory_limit != UINT64_MAX)
		fprintf(stderr, "rematsim: the memory limit of %.1f MiB was reached (asking for %zu bytes "
				"more); raise it with --memory-limit BYTES (default: 3/4 of physical "
				"memory), or replay a smaller log or fewer points at once\n",
			(double)memory_limit / 1048576.0, bytes);
	else
		fprintf(stderr, "rematsim: out of memory (asking for %zu bytes more)\n", bytes);
	fflush(stdout);
	_exit(EXIT_NOMEM);
}

_Noreturn void rs_cannot_start(unsigned thread, unsigned threads, size_t stack, int error)
{
	fflush(stdout);
	if (memory_limit != UINT64_MAX)
		fprintf(stderr, "rematsim: cannot start worker thread %u of %u (%s): the memory limit "
				"of %.1f MiB was reached, each thread's stack taking %.1f MiB; give fewer "
				"--jobs or raise --memory-limit\n", thread, threads, strerror(error),
			(double)memory_limit / 1048576.0, (double)stack / 1048576.0);
	else
		fprintf(stderr, "rematsim: cannot start worker thread %u of %u (%s): give fewer "
				"--jobs\n", thread, threads, strerror(error));
	_exit(EXIT_NOMEM);
}

static _Noreturn void out_of_memory(size_t bytes)
{
	rs_out_of_memory(bytes);
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
	/* the file's name and the message may quote a log's names: control
	 * characters shown escaped (rs_text_safe; issue 40, H14). The
	 * message's own lines stay lines (merge's list of shards, ...): the
	 * names it quotes were escaped as they were put in. */
	const char *file = rs_text_safe(err->file), *msg = rs_text_safe_lines(err->msg);
	if (err->file[0] && err->line > 0 && err->column > 0)
		fprintf(stderr, "rematsim: %s:%ld:%ld: %s\n", file, err->line, err->column, msg);
	else if (err->file[0] && err->line > 0)
		fprintf(stderr, "rematsim: %s:%ld: %s\n", file, err->line, msg);
	else if (err->file[0])
		fprintf(stderr, "rematsim: %s: %s\n", file, msg);
	else
		fprintf(stderr, "rematsim: %s\n", msg);
}

_Noreturn void rs_bug(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "rematsim: internal error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	/* The documented status of an internal error, not abort()'s 134; a
	 * fuzzer still sees the exit as a crash and keeps the input. */
	exit(EXIT_SOFTWARE);
}

double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool deadline_past(double deadline)
{
	return deadline > 0 && now_seconds() >= deadline;
}

uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

uint64_t rs_limit(const char *env, uint64_t dflt)
{
	const char *v = getenv(env);
	if (!v || !*v)
		return dflt;
	if (!strcasecmp(v, "inf") || !strcmp(v, "0"))
		return UINT64_MAX;
	char *end;
	unsigned long long n = strtoull(v, &end, 10);
	if (end == v || *v == '-')
		return dflt;
	static const char *const units[] = {"k", "M", "G", "T"};
	uint64_t mul = 1;
	if (*end) {
		int u;
		for (u = 0; u < 4; u++)
			if (tolower((unsigned char)*end) == tolower((unsigned char)units[u][0]))
				break;
		if (u == 4)
			return dflt;
		bool binary = !strcasecmp(end + 1, "iB");
		if (!binary && end[1] && strcasecmp(end + 1, "B"))
			return dflt;
		for (int i = 0; i <= u; i++)
			mul *= binary ? 1024 : 1000;
	}
	if (n > UINT64_MAX / mul)
		return UINT64_MAX;
	return (uint64_t)n * mul;
}

const char *rs_bytes_text(uint64_t bytes, char *buf, size_t size)
{
	static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	int u = 0;
	uint64_t v = bytes;
	while (v >= 1024 && v % 1024 == 0 && u < 6) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, "%" PRIu64 " %s", v, units[u]);
	return buf;
}

int rs_tsv_field(FILE *f, const char *s)
{
	int rc = 0;
	static const char specials[] = "\\\001\002\003\004\005\006\007\010\011\012\013\014\015"
				       "\016\017\020\021\022\023\024\025\026\027\030\031\032\033"
				       "\034\035\036\037\177";
	for (const char *p = s; *p;) {
		size_t n = strcspn(p, specials);
		if (n && fwrite(p, 1, n, f) != n)
			rc = EOF;
		p += n;
		if (!*p)
			break;
		char hex[8];
		const char *esc = *p == '\t' ? "\\t" : *p == '\n' ? "\\n" : *p == '\r' ? "\\r" : *p == '\\' ? "\\\\"
				: (snprintf(hex, sizeof hex, "\\x%02x", (unsigned char)*p), hex);
		if (fputs(esc, f) == EOF)
			rc = EOF;
		p++;
	}
	return rc;
}
