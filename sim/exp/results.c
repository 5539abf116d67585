/*
 * results.c: see results.h. Rows are kept as text: a row read back from a
 * file is written out again byte for byte, which is what makes resumed,
 * merged and uninterrupted sweeps give identical files.
 */
#include "results.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "experiment.h"

char *path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = xmalloc(n);
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

size_t tsv_split(char *line, char **fields, size_t max)
{
	size_t n = 0;
	char *p = line;
	for (;;) {
		if (n < max)
			fields[n] = p;
		n++;
		char *tab = strchr(p, '\t');
		if (!tab)
			break;
		*tab = 0;
		p = tab + 1;
	}
	return n;
}

const char *points_header(const struct points_table *t, const char *key)
{
	for (size_t i = 0; i < t->n_header; i++)
		if (!strcmp(t->keys[i], key))
			return t->values[i];
	return NULL;
}

void points_header_add(struct points_table *t, const char *key, const char *value)
{
	size_t cap = t->cap_header;
	XGROW(t->keys, cap, t->n_header + 1);
	cap = t->cap_header;
	XGROW(t->values, cap, t->n_header + 1);
	t->cap_header = cap;
	t->keys[t->n_header] = xstrdup(key);
	t->values[t->n_header++] = xstrdup(value);
}

void points_header_set(struct points_table *t, const char *key, const char *value)
{
	for (size_t i = 0; i < t->n_header; i++)
		if (!strcmp(t->keys[i], key)) {
			free(t->values[i]);
			t->values[i] = xstrdup(value);
			return;
		}
	points_header_add(t, key, value);
}

void points_table_size(struct points_table *t, size_t total)
{
	t->total = total;
	t->rows = xcalloc(total, sizeof *t->rows);
	t->n_rows = 0;
}

void points_table_put(struct points_table *t, size_t point, char *line)
{
	if (point >= t->total)
		rs_bug("point %zu beyond %zu", point, t->total);
	if (t->rows[point])
		free(t->rows[point]);
	else
		t->n_rows++;
	t->rows[point] = line;
}

void points_table_free(struct points_table *t)
{
	for (size_t i = 0; i < t->n_header; i++) {
		free(t->keys[i]);
		free(t->values[i]);
	}
	free(t->keys);
	free(t->values);
	for (size_t i = 0; t->rows && i < t->total; i++)
		free(t->rows[i]);
	free(t->rows);
	memset(t, 0, sizeof *t);
}

int read_whole_file(const char *path, char **data, size_t *len, struct rs_error *err)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return rs_error_set(err, EXIT_NOINPUT, path, 0, "cannot open: %s",
				    strerror(errno));
	size_t cap = 65536, n = 0;
	char *buf = xmalloc(cap + 1);
	for (;;) {
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (!got)
			break;
		if (n == cap)
			buf = xrealloc(buf, (cap *= 2) + 1);
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		return rs_error_set(err, EXIT_NOINPUT, path, 0, "cannot read");
	}
	buf[n] = 0;
	*data = buf;
	*len = n;
	return 0;
}

int points_read(const char *path, bool missing_ok, struct points_table *t,
		struct rs_error *err)
{
	memset(t, 0, sizeof *t);
	char *data;
	size_t len;
	if (access(path, F_OK) && errno == ENOENT && missing_ok)
		return 0;
	if (read_whole_file(path, &data, &len, err))
		return -1;
	char *p = data, *end = data + len;
	long lineno = 0;
	bool columns_seen = false;
	int rc = 0;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		lineno++;
		if (!nl)
			break; /* a torn last line: the writer was killed mid-row */
		*nl = 0;
		char *line = p;
		p = nl + 1;
		if (line[0] == '#') {
			if (columns_seen)
				continue;
			char *colon = strstr(line, ": ");
			char *key = line + 1 + (line[1] == ' ');
			if (!colon) {
				continue;
			}
			*colon = 0;
			points_header_add(t, key, colon + 2);
			continue;
		}
		if (!columns_seen) {
			t->gen_columns = !strcmp(line, POINTS_COLUMNS POINTS_GEN_COLUMNS);
			if (strcmp(line, POINTS_COLUMNS) && !t->gen_columns) {
				rc = rs_error_set(err, EXIT_DATAERR, path, lineno,
						  "not a points file of this version (unexpected column line)");
				goto out;
			}
			columns_seen = true;
			const char *total = points_header(t, "points");
			char *e;
			unsigned long long n = total ? strtoull(total, &e, 10) : 0;
			if (!total || *e || !n || n > (1ull << 32)) {
				rc = rs_error_set(err, EXIT_DATAERR, path, lineno,
						  "missing or bad '# points:' header line");
				goto out;
			}
			points_table_size(t, (size_t)n);
			continue;
		}
		char *copy = xstrdup(line);
		char *f[PC_COUNT + PC_GEN_COUNT + 1];
		size_t want = PC_COUNT + (t->gen_columns ? PC_GEN_COUNT : 0);
		size_t nf = tsv_split(line, f, PC_COUNT + PC_GEN_COUNT + 1);
		char *e = "";
		unsigned long long point = nf == want ? strtoull(f[PC_POINT], &e, 10) : 0;
		if (nf != want || *e || !*f[PC_POINT] || point >= t->total) {
			free(copy);
			continue;
		}
		points_table_put(t, (size_t)point, copy);
	}
	if (!columns_seen)
		rc = rs_error_set(err, EXIT_DATAERR, path, 0,
				  "no column line: not a complete points file");
out:
	free(data);
	if (rc)
		points_table_free(t);
	return rc;
}

void points_write(FILE *f, const struct points_table *t)
{
	for (size_t i = 0; i < t->n_header; i++)
		fprintf(f, "# %s: %s\n", t->keys[i], t->values[i]);
	fputs(t->gen_columns ? POINTS_COLUMNS POINTS_GEN_COLUMNS "\n" : POINTS_COLUMNS "\n", f);
	for (size_t i = 0; i < t->total; i++)
		if (t->rows[i])
			fprintf(f, "%s\n", t->rows[i]);
}

/* ------------------------------------------------------------ frontier */

struct fpoint {
	double ratio;
	double overhead;
	bool pass;
	const char *ratio_text;
};

static int by_ratio(const void *a, const void *b)
{
	const struct fpoint *x = a, *y = b;
	return (x->ratio > y->ratio) - (x->ratio < y->ratio);
}

void frontier_write(FILE *f, const struct points_table *t)
{
	fputs("# prefix-minimum overhead of passing points, per (model, series, trial),\n"
	      "# over ratios in increasing order; from_ratio: the point that gives it\n", f);
	fputs(FRONTIER_COLUMNS "\n", f);
	/* Rows of one (model, series, trial) are consecutive in point order. */
	char **copies = xcalloc(t->total, sizeof *copies);
	char *(*fields)[PC_COUNT] = xcalloc(t->total, sizeof *fields);
	size_t n = 0;
	for (size_t i = 0; i < t->total; i++)
		if (t->rows[i]) {
			copies[n] = xstrdup(t->rows[i]);
			tsv_split(copies[n], fields[n], PC_COUNT);
			n++;
		}
	struct fpoint *group = xcalloc(n ? n : 1, sizeof *group);
	for (size_t start = 0; start < n;) {
		size_t end = start + 1;
		while (end < n && !strcmp(fields[end][PC_MODEL], fields[start][PC_MODEL]) &&
		       !strcmp(fields[end][PC_SERIES], fields[start][PC_SERIES]) &&
		       !strcmp(fields[end][PC_TRIAL], fields[start][PC_TRIAL]))
			end++;
		size_t g = 0;
		for (size_t i = start; i < end; i++, g++) {
			group[g].ratio = strtod(fields[i][PC_RATIO], NULL);
			group[g].overhead = strtod(fields[i][PC_OVERHEAD], NULL);
			group[g].pass = !strcmp(fields[i][PC_OUTCOME], "pass");
			group[g].ratio_text = fields[i][PC_RATIO];
		}
		/* qsort is not stable, but ratios within a group are distinct. */
		qsort(group, g, sizeof *group, by_ratio);
		double best = INFINITY;
		const char *best_ratio = NULL;
		for (size_t i = 0; i < g; i++) {
			if (group[i].pass && group[i].overhead < best) {
				best = group[i].overhead;
				best_ratio = group[i].ratio_text;
			}
			if (!best_ratio)
				continue;
			fprintf(f, "%s\t%s\t%s\t%s\t%s\t%s\t%.17g\t%s\n", fields[start][PC_MODEL],
				fields[start][PC_SERIES], fields[start][PC_HEURISTIC],
				fields[start][PC_RUNTIME], fields[start][PC_TRIAL],
				group[i].ratio_text, best, best_ratio);
		}
		start = end;
	}
	free(group);
	for (size_t i = 0; i < n; i++)
		free(copies[i]);
	free(copies);
	free(fields);
}

/* ------------------------------------------------------------ files */

int make_dirs(const char *dir, struct rs_error *err)
{
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

int write_file_atomic(const char *dir, const char *name, const char *data,
		      size_t len, bool durable, struct rs_error *err)
{
	char *path = path_join(dir, name);
	size_t tn = strlen(path) + 32;
	char *tmp = xmalloc(tn);
	snprintf(tmp, tn, "%s.tmp.%ld", path, (long)getpid());
	int rc = -1;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (fd < 0) {
		rs_error_set(err, EXIT_CANTCREAT, path, 0, "cannot create: %s", strerror(errno));
		goto out;
	}
	for (size_t off = 0; off < len;) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			rs_error_set(err, EXIT_IOERR, path, 0, "cannot write: %s", strerror(errno));
			close(fd);
			unlink(tmp);
			goto out;
		}
		off += (size_t)w;
	}
	if ((durable && fsync(fd)) || close(fd)) {
		rs_error_set(err, EXIT_IOERR, path, 0, "cannot write: %s", strerror(errno));
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, path)) {
		rs_error_set(err, EXIT_IOERR, path, 0, "cannot rename into place: %s",
			     strerror(errno));
		unlink(tmp);
		goto out;
	}
	rc = 0;
out:
	free(tmp);
	free(path);
	return rc;
}
