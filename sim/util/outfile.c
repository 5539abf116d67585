/*
 * outfile.c: see outfile.h.
 */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int outfile_create_tmp(const char *path, char **tmp)
{
	static unsigned long counter;
	size_t n = strlen(path) + sizeof OUTFILE_TMP_MARK + 24;
	char *name = xmalloc(n);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t x = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull ^ (uint64_t)ts.tv_nsec ^
		     ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)(uintptr_t)name;
	for (int attempt = 0; attempt < 100; attempt++) {
		x += __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED) * 0xbf58476d1ce4e5b9ull;
		x ^= x >> 31;
		snprintf(name, n, "%s" OUTFILE_TMP_MARK "%08lx", path, (unsigned long)(x & 0xffffffffu));
		int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd >= 0) {
			*tmp = name;
			return fd;
		}
		if (errno != EEXIST)
			break;
	}
	int e = errno;
	free(name);
	errno = e;
	return -1;
}

int outfile_open(struct outfile *o, const char *path, struct rs_error *err)
{
	memset(o, 0, sizeof *o);
	struct stat st;
	int fd;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return rs_error_set(err, EXIT_CANTCREAT, path, 0, "cannot write: is a folder");
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* A FIFO, terminal or device: write through it, never replace it. */
		fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0)
			return rs_error_set(err, EXIT_CANTCREAT, path, 0, "cannot open for writing: %s",
					    strerror(errno));
	} else {
		fd = outfile_create_tmp(path, &o->tmp);
		if (fd < 0)
			return rs_error_set(err, EXIT_CANTCREAT, path, 0, "cannot create: %s",
					    strerror(errno));
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		int e = errno;
		close(fd);
		if (o->tmp)
			unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
		return rs_error_set(err, EXIT_CANTCREAT, path, 0, "cannot open: %s", strerror(e));
	}
	o->path = xstrdup(path);
	return 0;
}

static void release(struct outfile *o)
{
	free(o->path);
	free(o->tmp);
	memset(o, 0, sizeof *o);
}

int outfile_commit(struct outfile *o, bool durable, struct rs_error *err)
{
	errno = 0;
	bool bad = fflush(o->f) != 0 || ferror(o->f);
	int e = errno;
	if (!bad && durable && o->tmp && fsync(fileno(o->f))) {
		bad = true;
		e = errno;
	}
	if (fclose(o->f) && !bad) {
		bad = true;
		e = errno;
	}
	o->f = NULL;
	if (bad) {
		rs_error_set(err, EXIT_IOERR, o->path, 0, "cannot write: %s",
			     e ? strerror(e) : "write error");
	} else if (o->tmp && rename(o->tmp, o->path)) {
		bad = true;
		rs_error_set(err, EXIT_IOERR, o->path, 0, "cannot rename into place: %s",
			     strerror(errno));
	}
	if (bad && o->tmp)
		unlink(o->tmp);
	release(o);
	return bad ? -1 : 0;
}

void outfile_abort(struct outfile *o)
{
	if (o->f)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	release(o);
}

bool outfile_is_tmp_of(const char *name, const char *base)
{
	size_t n = strlen(base), m = sizeof OUTFILE_TMP_MARK - 1;
	if (strncmp(name, base, n) || strncmp(name + n, OUTFILE_TMP_MARK, m))
		return false;
	const char *s = name + n + m;
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return false;
	return true;
}
