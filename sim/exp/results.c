/*
 * results.c: see results.h. Rows are kept as text: a row read back from a
 * file is written out again byte for byte, which is what makes resumed,
 * merged and uninterrupted sweeps give identical files.
 */
#include "results.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/file.h>

#include "outfile.h"

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

char *tsv_unescape(char *s)
{
	char *w = s;
	for (const char *r = s; *r; r++) {
		if (*r == '\\' && r[1]) {
			char c = r[1];
			char d = c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c == '\\' ? '\\' : 0;
			if (d) {
				*w++ = d;
				r++;
				continue;
			}
			unsigned x;
			if (c == 'x' && isxdigit((unsigned char)r[2]) && isxdigit((unsigned char)r[3]) &&
			    sscanf(r + 2, "%2x", &x) == 1 && x) {
				*w++ = (char)x;
				r += 3;
				continue;
			}
		}
		*w++ = *r;
	}
	*w = 0;
	return s;
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

/* What is wrong with a split row (nf fields) of a table of `total` points,
 * or NULL: the column count, the point number, and every number column. */
static const char *row_problem(char **f, size_t nf, size_t want, size_t total)
{
	static char why[160];
	if (nf != want) {
		snprintf(why, sizeof why, "%zu columns, not %zu", nf, want);
		return why;
	}
	static const int whole[] = {PC_TRIAL, PC_SEED, PC_BUDGET, PC_PEAK_MEMORY,
				    PC_MODEL_COMPUTE, PC_REMAT_COMPUTE, PC_EVICTIONS, PC_REMATS,
				    PC_HEURISTIC_EVALS, PC_HEURISTIC_ACCESSES, PC_POINT};
	static const int real[] = {PC_RATIO, PC_OVERHEAD, PC_WALL_MS};
	bool failed = strcmp(f[PC_OUTCOME], "pass") != 0;
	static const char *const names[PC_COUNT] = {
		"model", "heuristic", "runtime", "trial", "seed", "ratio", "budget", "outcome",
		"overhead", "peak_memory", "model_compute", "remat_compute", "evictions",
		"remats", "heuristic_evals", "heuristic_accesses", "wall_ms", "series", "point"};
	for (size_t i = 0; i < sizeof whole / sizeof *whole; i++) {
		const char *v = f[whole[i]];
		char *e;
		errno = 0;
		unsigned long long n = strtoull(v, &e, 10);
		bool neg_ok = whole[i] == PC_REMAT_COMPUTE || whole[i] == PC_MODEL_COMPUTE;
		if (!*v || *e || errno || (*v == '-' && !neg_ok) || *v == '+' || *v == ' ' ||
		    (whole[i] == PC_POINT && n >= total)) {
			snprintf(why, sizeof why, "%s '%.40s' is not %s", names[whole[i]], v,
				 whole[i] == PC_POINT ? "a point number of this experiment"
						      : "a whole number");
			return why;
		}
	}
	for (size_t i = 0; i < sizeof real / sizeof *real; i++) {
		const char *v = f[real[i]];
		char *e;
		if (real[i] == PC_OVERHEAD && failed && !strcmp(v, "-"))
			continue; /* a failed run has no overhead */
		strtod(v, &e);
		if (!*v || *e || *v == ' ') {
			snprintf(why, sizeof why, "%s '%.40s' is not a number", names[real[i]], v);
			return why;
		}
	}
	static const int text[] = {PC_MODEL, PC_HEURISTIC, PC_RUNTIME, PC_OUTCOME, PC_SERIES};
	for (size_t i = 0; i < sizeof text / sizeof *text; i++)
		if (!*f[text[i]]) {
			snprintf(why, sizeof why, "empty %s", names[text[i]]);
			return why;
		}
	const char *o = f[PC_OUTCOME];
	if (strcmp(o, "pass") && strcmp(o, "oom") && strcmp(o, "thrash") && strcmp(o, "unsolved") &&
	    strcmp(o, "untried")) {
		snprintf(why, sizeof why, "outcome '%.40s' is not pass, oom, thrash, unsolved or "
			 "untried", o);
		return why;
	}
	return NULL;
}

/* A row of a points file written before the stopped_clock column (its
 * split fields f, nf of them, in table t), in today's form: a failed
 * run's overhead `-`, the clock where it stopped last, and an ILP row
 * without a schedule unsolved or untried as its solver status says. */
static char *row_upgrade(char **f, size_t nf, const struct points_table *t)
{
	bool failed = strcmp(f[PC_OUTCOME], "pass") != 0;
	const char *status = t->ilp_columns ? f[points_ilp_col(t) + PIC_STATUS] : "-";
	bool noplan = failed && (!strcmp(status, "unsolved") || !strcmp(status, "too_large") ||
				 !strcmp(status, "infeasible"));
	if (noplan && strcmp(status, "infeasible"))
		f[PC_OUTCOME] = !strcmp(status, "unsolved") ? "unsolved" : "untried";
	char clock[32] = "-";
	if (failed && !noplan) {
		long long c = 1 + strtoll(f[PC_MODEL_COMPUTE], NULL, 10) +
			      strtoll(f[PC_REMAT_COMPUTE], NULL, 10);
		if (t->offload_columns)
			c += strtoll(f[PC_COUNT + (t->gen_columns ? PC_GEN_COUNT : 0) + PO_STALL_NS],
				     NULL, 10);
		snprintf(clock, sizeof clock, "%lld", c);
	}
	if (failed)
		f[PC_OVERHEAD] = "-";
	size_t len = strlen(clock) + 2;
	for (size_t i = 0; i < nf; i++)
		len += strlen(f[i]) + 1;
	char *row = xmalloc(len), *p = row;
	for (size_t i = 0; i < nf; i++)
		p += sprintf(p, "%s%s", i ? "\t" : "", f[i]);
	sprintf(p, "\t%s", clock);
	return row;
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
	long lineno = 0, points_line = 0;
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
			if (!strcmp(key, "points") && !points_line)
				points_line = lineno;
			points_header_add(t, key, colon + 2);
			continue;
		}
		if (!columns_seen) {
			/* the column line: the usual columns, then the gen ones, the
			 * offload ones and the ILP's, each where the experiment has them */
			const char *rest = line;
			bool ok = !strncmp(rest, POINTS_COLUMNS, strlen(POINTS_COLUMNS));
			rest += ok ? strlen(POINTS_COLUMNS) : 0;
			t->gen_columns = ok && !strncmp(rest, POINTS_GEN_COLUMNS, strlen(POINTS_GEN_COLUMNS));
			rest += t->gen_columns ? strlen(POINTS_GEN_COLUMNS) : 0;
			t->offload_columns =
				ok && !strncmp(rest, POINTS_OFFLOAD_COLUMNS, strlen(POINTS_OFFLOAD_COLUMNS));
			rest += t->offload_columns ? strlen(POINTS_OFFLOAD_COLUMNS) : 0;
			t->alloc_columns =
				ok && !strncmp(rest, POINTS_ALLOC_COLUMNS, strlen(POINTS_ALLOC_COLUMNS));
			rest += t->alloc_columns ? strlen(POINTS_ALLOC_COLUMNS) : 0;
			t->ilp_columns = ok && !strncmp(rest, POINTS_ILP_COLUMNS, strlen(POINTS_ILP_COLUMNS));
			rest += t->ilp_columns ? strlen(POINTS_ILP_COLUMNS) : 0;
			t->stop_column = ok && !strcmp(rest, POINTS_STOP_COLUMNS);
			if (!ok || (*rest && !t->stop_column)) {
				rc = rs_error_set(err, EXIT_DATAERR, path, lineno,
						  "not a points file of this version (unexpected column line)");
				goto out;
			}
			columns_seen = true;
			const char *total = points_header(t, "points");
			char *e;
			errno = 0;
			unsigned long long n = total ? strtoull(total, &e, 10) : 0;
			if (!total || *e || !n || errno || *total == '-') {
				rc = rs_error_set(err, EXIT_DATAERR, path, points_line ? points_line : lineno,
						  "missing or bad '# points:' header line");
				goto out;
			}
			/* The count sizes the table: never past what an experiment may have. */
			if (n > EXPERIMENT_MAX_POINTS) {
				rc = rs_error_set(err, EXIT_DATAERR, path, points_line,
						  "'# points: %s' is more than an experiment may have (%u)",
						  total, EXPERIMENT_MAX_POINTS);
				goto out;
			}
			points_table_size(t, (size_t)n);
			continue;
		}
		char *copy = xstrdup(line);
		char *f[PC_MAX_COLUMNS + 1];
		size_t want = points_columns(t);
		size_t nf = tsv_split(line, f, PC_MAX_COLUMNS + 1);
		const char *why = row_problem(f, nf, want, t->total);
		if (!why && !t->stop_column) { /* an older file's row */
			free(copy);
			copy = row_upgrade(f, nf, t);
		}
		if (why) {
			/* Complete rows are written whole: a bad one is damage, not a kill. */
			free(copy);
			rc = rs_error_set(err, EXIT_DATAERR, path, lineno, "malformed row: %s", why);
			goto out;
		}
		points_table_put(t, (size_t)strtoull(f[PC_POINT], NULL, 10), copy);
	}
	if (!columns_seen)
		rc = rs_error_set(err, EXIT_DATAERR, path, 0,
				  "no column line: not a complete points file");
	t->stop_column = true; /* every row now has it (row_upgrade) */
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
	fputs(POINTS_COLUMNS, f);
	if (t->gen_columns)
		fputs(POINTS_GEN_COLUMNS, f);
	if (t->offload_columns)
		fputs(POINTS_OFFLOAD_COLUMNS, f);
	if (t->alloc_columns)
		fputs(POINTS_ALLOC_COLUMNS, f);
	if (t->ilp_columns)
		fputs(POINTS_ILP_COLUMNS, f);
	if (t->stop_column)
		fputs(POINTS_STOP_COLUMNS, f);
	fputc('\n', f);
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
	if (x->ratio != y->ratio)
		return x->ratio < y->ratio ? -1 : 1;
	/* equal ratios (a planner's plans with the same peak): passing
	 * first, then by overhead, so the order never depends on qsort */
	if (x->pass != y->pass)
		return x->pass ? -1 : 1;
	return (x->overhead > y->overhead) - (x->overhead < y->overhead);
}

/* A row's place for grouping: its (model, series, trial) and point order. */
struct frow {
	char **f;
	size_t i;
};

static int same_key(const struct frow *x, const struct frow *y)
{
	return !strcmp(x->f[PC_MODEL], y->f[PC_MODEL]) && !strcmp(x->f[PC_SERIES], y->f[PC_SERIES]) &&
	       !strcmp(x->f[PC_TRIAL], y->f[PC_TRIAL]);
}

static int by_key_then_point(const void *a, const void *b)
{
	const struct frow *x = a, *y = b;
	int c = strcmp(x->f[PC_MODEL], y->f[PC_MODEL]);
	if (!c)
		c = strcmp(x->f[PC_SERIES], y->f[PC_SERIES]);
	if (!c)
		c = strcmp(x->f[PC_TRIAL], y->f[PC_TRIAL]);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* A group: its rows ord[at..end), its first point. */
struct fgroup {
	size_t first, at, end;
};

static int by_first_point(const void *a, const void *b)
{
	const struct fgroup *x = a, *y = b;
	return (x->first > y->first) - (x->first < y->first);
}

void frontier_write(FILE *f, const struct points_table *t)
{
	fputs("# prefix-minimum overhead of passing points, per (model, series, trial),\n"
	      "# over ratios in increasing order; from_ratio: the point that gives it\n", f);
	fputs(FRONTIER_COLUMNS "\n", f);
	char **copies = xcalloc(t->total, sizeof *copies);
	char *(*fields)[PC_COUNT] = xcalloc(t->total, sizeof *fields);
	size_t n = 0;
	for (size_t i = 0; i < t->total; i++)
		if (t->rows[i]) {
			copies[n] = xstrdup(t->rows[i]);
			tsv_split(copies[n], fields[n], PC_COUNT);
			n++;
		}
	/* The rows of one (model, series, trial), groups in the order of their
	 * first point: runs of consecutive rows, but for the points at plan
	 * peaks (experiment.h), which come after the planners' and join their
	 * series' group. */
	struct frow *ord = xcalloc(n ? n : 1, sizeof *ord);
	for (size_t i = 0; i < n; i++)
		ord[i] = (struct frow){fields[i], i};
	qsort(ord, n, sizeof *ord, by_key_then_point);
	struct fgroup *groups = xcalloc(n ? n : 1, sizeof *groups);
	size_t n_groups = 0;
	for (size_t k = 0; k < n; k++) {
		if (!k || !same_key(&ord[k], &ord[k - 1]))
			groups[n_groups++] = (struct fgroup){.first = ord[k].i, .at = k};
		groups[n_groups - 1].end = k + 1;
	}
	qsort(groups, n_groups, sizeof *groups, by_first_point);
	struct fpoint *group = xcalloc(n ? n : 1, sizeof *group);
	for (size_t gi = 0; gi < n_groups; gi++) {
		const struct fgroup *gr = &groups[gi];
		size_t start = gr->first, g = 0;
		for (size_t j = gr->at; j < gr->end; j++, g++) {
			size_t i = ord[j].i;
			group[g].ratio = strtod(fields[i][PC_RATIO], NULL);
			group[g].overhead = strtod(fields[i][PC_OVERHEAD], NULL);
			group[g].pass = !strcmp(fields[i][PC_OUTCOME], "pass");
			group[g].ratio_text = fields[i][PC_RATIO];
		}
		/* qsort is not stable: by_ratio breaks ties. */
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
			char bt[FMT_DOUBLE_LEN];
			fprintf(f, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", fields[start][PC_MODEL],
				fields[start][PC_SERIES], fields[start][PC_HEURISTIC],
				fields[start][PC_RUNTIME], fields[start][PC_TRIAL],
				group[i].ratio_text, fmt_double(bt, best), best_ratio);
		}
	}
	free(group);
	free(groups);
	free(ord);
	for (size_t i = 0; i < n; i++)
		free(copies[i]);
	free(copies);
	free(fields);
}

/* ------------------------------------------------------------ files */

int make_dirs_below(const char *base, const char *rel, struct rs_error *err)
{
	int fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return rs_error_set(err, errno == ENOENT ? EXIT_NOINPUT : EXIT_CANTCREAT, base, 0,
				    "cannot open the folder: %s", strerror(errno));
	char *path = xstrdup(base), *copy = xstrdup(rel);
	int rc = 0;
	char *save = NULL;
	for (char *name = strtok_r(copy, "/", &save); name && !rc; name = strtok_r(NULL, "/", &save)) {
		char *next = path_join(path, name);
		free(path);
		path = next;
		if (mkdirat(fd, name, 0777) && errno != EEXIST) {
			rc = rs_error_set(err, EXIT_CANTCREAT, path, 0, "cannot create folder: %s",
					  strerror(errno));
			break;
		}
		/* the folder itself, never what a link there points to */
		int sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		struct stat st;
		if (sub < 0) {
			int e = errno;
			if (!fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode))
				rc = rs_error_set(err, EXIT_CANTCREAT, path, 0,
						  "is a symbolic link: nothing is written through one "
						  "(it may lead out of %s); remove it", base);
			else if (!fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) && !S_ISDIR(st.st_mode))
				rc = rs_error_set(err, EXIT_CANTCREAT, path, 0, "exists and is not a folder");
			else
				rc = rs_error_set(err, EXIT_CANTCREAT, path, 0, "cannot open the folder: %s",
						  strerror(e));
			break;
		}
		if (fstat(sub, &st) || !S_ISDIR(st.st_mode)) {
			close(sub);
			rc = rs_error_set(err, EXIT_CANTCREAT, path, 0, "exists and is not a folder");
			break;
		}
		close(fd);
		fd = sub;
	}
	close(fd);
	free(copy);
	free(path);
	return rc ? -1 : 0;
}

bool results_experiment_name_ok(const char *name)
{
	return *name && strcmp(name, ".") && strcmp(name, "..") && !strpbrk(name, "/\t\n\r");
}

/* Whether s is a whole number >= 0 (digits only) that fits 64 bits. */
static bool is_whole(const char *s)
{
	if (!*s || strspn(s, "0123456789") != strlen(s))
		return false;
	errno = 0;
	strtoull(s, NULL, 10);
	return errno == 0;
}

static bool is_hex64(const char *s)
{
	return strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64;
}

/* Whether s is a real number (finite unless inf_ok), as strtod reads all of it. */
static bool is_real(const char *s, bool inf_ok, double *out)
{
	char *end;
	double x = strtod(s, &end);
	if (!*s || *end || isnan(x) || (!inf_ok && isinf(x)))
		return false;
	if (out)
		*out = x;
	return true;
}

int results_check_header(const struct points_table *t, const char *path, struct rs_error *err)
{
	const char *exp = points_header(t, "experiment");
	if (!exp || !results_experiment_name_ok(exp))
		return rs_error_set(err, EXIT_DATAERR, path, 0,
				    "header 'experiment' %s%s%s is not an experiment's name (it names "
				    "folders and figures: no '/', not '.' or '..')",
				    exp ? "'" : "", exp ? exp : "missing", exp ? "'" : "");
	double x;
	const char *lim = points_header(t, "overhead_limit");
	if (lim && !(is_real(lim, true, &x) && x >= 1))
		return rs_error_set(err, EXIT_DATAERR, path, 0,
				    "header 'overhead_limit' '%s' is not a number >= 1 or inf", lim);
	const char *yr = points_header(t, "yrange");
	if (yr) {
		char lo[64];
		size_t n = strcspn(yr, ":");
		double a, b;
		if (n >= sizeof lo || !yr[n] ||
		    (memcpy(lo, yr, n), lo[n] = 0, !is_real(lo, false, &a)) ||
		    !is_real(yr + n + 1, false, &b) || !(a < b))
			return rs_error_set(err, EXIT_DATAERR, path, 0,
					    "header 'yrange' '%s' is not LO:HI with LO < HI", yr);
	}
	const char *budgets = points_header(t, "budgets");
	if (budgets) {
		char *copy = xstrdup(budgets);
		bool ok = *copy != 0;
		for (char *p = copy, *comma; ok && p; p = comma ? comma + 1 : NULL) {
			comma = strchr(p, ',');
			if (comma)
				*comma = 0;
			ok = is_whole(p);
		}
		free(copy);
		if (!ok)
			return rs_error_set(err, EXIT_DATAERR, path, 0,
					    "header 'budgets' '%s' is not a list of byte counts", budgets);
	}
	for (size_t i = 0; i < t->n_header; i++) {
		if (strcmp(t->keys[i], "log"))
			continue;
		char *copy = xstrdup(t->values[i]);
		char *f[4];
		size_t nf = tsv_split(copy, f, 4);
		bool ok = nf == 3 && *f[0] && is_hex64(f[1]);
		free(copy);
		if (!ok)
			return rs_error_set(err, EXIT_DATAERR, path, 0,
					    "header 'log' '%s' is not a model's name, SHA-256 and log",
					    t->values[i]);
	}
	return 0;
}

int results_check_models(const char *text, const struct points_table *t, const char *path,
			 struct rs_error *err)
{
	char *copy = xstrdup(text);
	int rc = 0;
	long lineno = 0;
	size_t h = 0; /* the next `log` header line to meet */
	char *next;
	for (char *line = copy; line && !rc; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		else if (!*line)
			break; /* after the last newline */
		lineno++;
		if (lineno == 1) {
			if (strcmp(line, MODELS_COLUMNS))
				rc = rs_error_set(err, EXIT_DATAERR, path, 1,
						  "not the column line of models.tsv");
			continue;
		}
		while (h < t->n_header && strcmp(t->keys[h], "log"))
			h++;
		char *f[MC_COUNT + 1];
		if (tsv_split(line, f, MC_COUNT + 1) != MC_COUNT) {
			rc = rs_error_set(err, EXIT_DATAERR, path, lineno,
					  "expected %d tab-separated columns", MC_COUNT);
			break;
		}
		if (h == t->n_header) {
			rc = rs_error_set(err, EXIT_DATAERR, path, lineno,
					  "model '%s' is not one of the points' models (their 'log' "
					  "header lines)", f[MC_MODEL]);
			break;
		}
		char *want = xstrdup(t->values[h]);
		char *w[4];
		tsv_split(want, w, 4);
		if (strcmp(f[MC_MODEL], w[0]) || strcmp(f[MC_SHA256], w[1]))
			rc = rs_error_set(err, EXIT_DATAERR, path, lineno,
					  "model '%s' (sha256 %.12s...) where the points have '%s' "
					  "(%.12s...): not the models of these points",
					  f[MC_MODEL], f[MC_SHA256], w[0], w[1]);
		free(want);
		static const int whole[] = {MC_OPS, MC_TENSORS, MC_BASELINE_MEMORY,
					    MC_BASELINE_COMPUTE, MC_CONST_MEMORY, MC_BOTTLENECK_MEMORY};
		for (size_t k = 0; !rc && k < sizeof whole / sizeof whole[0]; k++)
			if (!is_whole(f[whole[k]]))
				rc = rs_error_set(err, EXIT_DATAERR, path, lineno,
						  "column %d ('%s') is not a whole number", whole[k] + 1,
						  f[whole[k]]);
		double x;
		for (int k = MC_CONST_RATIO; !rc && k <= MC_BOTTLENECK_RATIO; k++)
			if (!is_real(f[k], false, &x) || x < 0)
				rc = rs_error_set(err, EXIT_DATAERR, path, lineno,
						  "column %d ('%s') is not a ratio", k + 1, f[k]);
		h++;
	}
	if (!rc && lineno == 0)
		rc = rs_error_set(err, EXIT_DATAERR, path, 0, "empty (no column line)");
	while (!rc && h < t->n_header && strcmp(t->keys[h], "log"))
		h++;
	if (!rc && h < t->n_header)
		rc = rs_error_set(err, EXIT_DATAERR, path, lineno,
				  "no row for model '%.*s' of the points", (int)strcspn(t->values[h], "\t"),
				  t->values[h]);
	free(copy);
	return rc ? -1 : 0;
}

int clean_stale_tmp(const char *dir, const char *const *bases, size_t n_bases)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	int n = 0;
	for (struct dirent *de; (de = readdir(d));)
		for (size_t i = 0; i < n_bases; i++)
			if (outfile_is_tmp_of(de->d_name, bases[i])) {
				char *p = path_join(dir, de->d_name);
				struct stat st;
				if (!lstat(p, &st) && S_ISREG(st.st_mode) && !unlink(p))
					n++;
				free(p);
				break;
			}
	closedir(d);
	return n;
}

int sweep_lock(const char *dir, int *fd_out, struct rs_error *err)
{
	char *path = path_join(dir, ".lock");
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
	if (fd < 0) {
		rs_error_set(err, EXIT_CANTCREAT, path, 0, "cannot create the lock file: %s",
			     strerror(errno));
		free(path);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int e = errno;
		char pid[32] = "";
		ssize_t r = pread(fd, pid, sizeof pid - 1, 0);
		pid[r > 0 ? r : 0] = 0;
		pid[strcspn(pid, "\n")] = 0;
		if (e == EWOULDBLOCK)
			rs_error_set(err, EXIT_CANTCREAT, dir, 0,
				     "another sweep%s%s is writing into this folder (it holds %s); "
				     "wait for it to finish or give another --out",
				     pid[0] ? " (process " : "", pid[0] ? pid : "", path);
		else
			rs_error_set(err, EXIT_CANTCREAT, path, 0, "cannot lock: %s", strerror(e));
		close(fd);
		free(path);
		return -1;
	}
	char buf[32];
	int n = snprintf(buf, sizeof buf, "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) == 0 && pwrite(fd, buf, (size_t)n, 0) == n) {
		/* (the process number is only a hint for the message above) */
	}
	free(path);
	*fd_out = fd;
	return 0;
}
