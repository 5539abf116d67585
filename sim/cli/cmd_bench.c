/*
 * cmd_bench.c: `rematsim bench`, the speed check against the reference
 * simulator. Every row of DIR/reference/speed.tsv names a log of
 * DIR/dtr-logs/logs.zip, a heuristic, a runtime and ratios, and the wall
 * seconds simrd took to read that log and replay all of them in one
 * process. Each row is run here as one whole process too (`rematsim
 * replay ARCHIVE:LOG ... --json`: start, read, baseline, every ratio), and
 * its CPU time (user + system, from wait4) is set beside the reference's.
 * With --against OLD, the binary OLD runs the same rows in the same run,
 * alternating with this one, and the medians of --repeat runs are
 * compared.
 *
 * A benchmark, but also an exactness check: each row says whether its
 * numbers matched the reference's own (the JSON files of DIR/reference, by
 * the rule of reference.h) where those exist, OLD's output with --against
 * (every field OLD prints, wall_ms and version aside: fields added since
 * are new), and its own on every repeat. Any mismatch makes the command
 * exit 70, since it is a bug of ours.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "cmd.h"
#include "cmd_opts.h"
#include "heuristics.h"
#include "reference.h"
#include "runtime.h"
#include "source.h"
#include "util.h"

static const char bench_help[] =
	"usage: rematsim bench [--shared DIR] [--heuristic H[,H...]] [--log TEXT] [--repeat N]\n"
	"                      [--against OLD_BINARY] [--min]\n"
	"       rematsim bench --scale [...]   (log sizes: see rematsim bench --scale --help)\n"
	"\n"
	"Time this rematsim against the reference simulator (simrd) on the paper's\n"
	"logs. Each row of DIR/reference/speed.tsv (a log of DIR/dtr-logs/logs.zip,\n"
	"a heuristic, a runtime, ratios, and simrd's wall seconds for one process\n"
	"that read the log and replayed every ratio) runs as one whole process,\n"
	"`rematsim replay ARCHIVE:LOG --heuristic H --runtime R --ratio ...\n"
	"--overhead-limit 2 --json --jobs 1`, one after another (one thread, as\n"
	"the reference ran: the CPU seconds of the work, not of threads sharing\n"
	"a core). DIR defaults to $REMATSIM_SHARED, else ../shared.\n"
	"\n"
	"Per row: the reference's seconds, our CPU seconds (user + system of the\n"
	"whole process: start, read, baseline run, every ratio), the speedup\n"
	"(reference seconds / our CPU seconds), the process's peak resident\n"
	"memory, and whether the numbers matched. Ends with the totals and the\n"
	"slowest rows. The first line names the machine's processor (/proc/cpuinfo).\n"
	"\n"
	"Rows under 100x: their allowance is the reference's seconds / 100. Under\n"
	"the totals, per log of such rows, its floor here: the CPU seconds of the\n"
	"least process that replays the log at all (`rematsim replay ARCHIVE:LOG\n"
	"--heuristic LRU --ratio 10 --json`: start, read, baseline, one replay\n"
	"with nothing to evict; of max(--repeat, 5) runs), and how many of its\n"
	"rows under 100x have an allowance below that floor: those no replay\n"
	"could bring to 100x on this machine (bounded by start and read). Then\n"
	"the start alone (`rematsim --version`, of 21 runs).\n"
	"\n"
	"  --against OLD_BINARY  also run the rematsim at OLD_BINARY on every row,\n"
	"                     alternating with this one (this, old; then old, this),\n"
	"                     and print its CPU seconds and the ratio this / old;\n"
	"                     the rows' numbers must be the same as OLD's\n"
	"  --repeat N         run each row N times (per binary) and print medians\n"
	"                     (default 1, or 3 with --against)\n"
	"  --min              print the least of the N runs instead of the median:\n"
	"                     on a machine shared with others, their load only adds\n"
	"                     to a run's CPU time (shared caches and cores), so the\n"
	"                     least is the steadier figure\n"
	"  --heuristic H,...  only these heuristics\n"
	"  --log TEXT         only logs whose file or model name contains TEXT\n"
	"\n"
	"Numbers: 'same' when every check that applies passed: the reference's\n"
	"own numbers (DIR/reference/*.json, for the logs they cover), OLD's\n"
	"output with --against (every field OLD prints but wall_ms and version;\n"
	"fields this build adds are not compared), and each repeat's output;\n"
	"'-' when no check applies (one run, no reference).\n"
	"\n"
	"Exit status: 0 when every number matched; 70 when some differ (a bug:\n"
	"please report it; the message names the field); 64 for a bad option or\n"
	"a selection that matches no row; 65 for a malformed speed.tsv (FILE:LINE);\n"
	"66 without the reference data or OLD_BINARY; or the status of a run of\n"
	"this binary that failed.\n";

/* Repeats of each row, at most: each is a whole pass over the reference
 * logs, so more would only run for days. */
#define BENCH_MAX_REPEAT 1000

/* The overhead limit of the reference's runs (SIMULATION.md, section 7). */
#define BENCH_OVERHEAD_LIMIT "2"

/* One row of speed.tsv. */
struct bench_row {
	long line;
	char *log;        /* the log's file name */
	char *heuristic;
	char *runtime;
	char *seed;       /* "" when the row has none */
	char *ratios;     /* "0.1,0.2,..." */
	double ref_s;
	const struct manifest_model *model; /* the archive's model of this log */
};

/* One process's run: what it printed and what it cost. */
struct bench_run {
	int status;       /* the wait status */
	char *out;        /* stdout (the JSON lines) */
	char *err;        /* stderr */
	double cpu_s;     /* user + system */
	long rss_kib;     /* peak resident memory */
};

static void bench_run_free(struct bench_run *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

/* Parse speed.tsv into rows (gives *rows); -1 with err (EXIT_DATAERR with
 * the line, EXIT_NOINPUT when it cannot be read). */
static int speed_read(const char *path, struct bench_row **rows, size_t *n_rows,
		      char **text_out, struct rs_error *err)
{
	static const char header[] = "log\theuristic\truntime\tseed\tratios\treference_seconds";
	char *text;
	size_t len;
	*rows = NULL;
	*n_rows = 0;
	if (read_whole_file(path, &text, &len, err))
		return -1;
	*text_out = text;
	size_t cap = 0;
	bool have_header = false;
	long line = 0;
	for (char *p = text, *next; p < text + len; p = next) {
		char *nl = strchr(p, '\n');
		next = nl ? nl + 1 : text + len;
		if (nl)
			*nl = 0;
		line++;
		size_t l = strlen(p);
		if (l && p[l - 1] == '\r')
			p[--l] = 0;
		if (!*p || *p == '#')
			continue;
		if (!have_header) {
			if (strcmp(p, header))
				return rs_error_set(err, EXIT_DATAERR, path, line,
						    "the header line should be '%s' (tab-separated)",
						    "log heuristic runtime seed ratios reference_seconds");
			have_header = true;
			continue;
		}
		char *f[7];
		size_t nf = 0;
		for (char *q = p; nf < 7;) {
			f[nf++] = q;
			char *tab = strchr(q, '\t');
			if (!tab)
				break;
			*tab = 0;
			q = tab + 1;
		}
		if (nf != 6)
			return rs_error_set(err, EXIT_DATAERR, path, line,
					    "%zu tab-separated fields, the header has 6", nf);
		if (!*f[0])
			return rs_error_set(err, EXIT_DATAERR, path, line, "no log name");
		if (!heuristic_find(f[1]))
			return rs_error_set(err, EXIT_DATAERR, path, line, "unknown heuristic '%s'",
					    f[1]);
		enum runtime_kind rk;
		if (runtime_kind_parse(f[2], &rk))
			return rs_error_set(err, EXIT_DATAERR, path, line, "unknown runtime '%s'", f[2]);
		if (*f[3] && strspn(f[3], "0123456789") != strlen(f[3]))
			return rs_error_set(err, EXIT_DATAERR, path, line,
					    "the seed '%s' is not a non-negative integer", f[3]);
		if (!*f[4] || strspn(f[4], "0123456789.,eE+-") != strlen(f[4]))
			return rs_error_set(err, EXIT_DATAERR, path, line,
					    "the ratios '%s' are not a comma-separated list of numbers",
					    f[4]);
		char *end;
		errno = 0;
		double s = strtod(f[5], &end);
		if (end == f[5] || *end || errno || !(s > 0) || !isfinite(s))
			return rs_error_set(err, EXIT_DATAERR, path, line,
					    "reference_seconds '%s' is not a positive number", f[5]);
		if (*n_rows == cap)
			XGROW(*rows, cap, *n_rows + 1);
		(*rows)[(*n_rows)++] = (struct bench_row){
			.line = line, .log = f[0], .heuristic = f[1], .runtime = f[2],
			.seed = f[3], .ratios = f[4], .ref_s = s,
		};
	}
	if (!have_header)
		return rs_error_set(err, EXIT_DATAERR, path, 0, "no header line (an empty file?)");
	return 0;
}

/* Whether list (comma-separated, any case) names h; NULL names all. */
static bool list_has(const char *list, const char *h)
{
	if (!list)
		return true;
	size_t n = strlen(h);
	for (const char *p = list; *p;) {
		const char *c = strchr(p, ',');
		size_t l = c ? (size_t)(c - p) : strlen(p);
		if (l == n && !strncasecmp(p, h, n))
			return true;
		p += l + (c != NULL);
	}
	return false;
}

/* Append what fd gives until its end to a new string. */
static char *read_all(int fd)
{
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap);
	for (;;) {
		if (n + 1 >= cap)
			XGROW(buf, cap, cap * 2);
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = 0;
	return buf;
}

/*
 * Run bin with argv as a child process, stdout into a pipe and stderr into
 * a temporary file, and wait for it: 0 with *r filled (even if it failed:
 * r->status), or -1 (errno) when it could not be started.
 */
static int run_process(const char *bin, char *const argv[], struct bench_run *r);

/* Whether the rematsim at bin has replay --jobs (those before it did not). */
static bool replay_has_jobs(const char *bin)
{
	char *argv[] = {"rematsim", "replay", "--help", NULL};
	struct bench_run r;
	if (run_process(bin, argv, &r))
		return false;
	bool has = r.out && strstr(r.out, "--jobs N") != NULL;
	bench_run_free(&r);
	return has;
}

static int run_process(const char *bin, char *const argv[], struct bench_run *r)
{
	memset(r, 0, sizeof *r);
	int fd[2];
	FILE *errf = tmpfile();
	if (!errf)
		return -1;
	if (pipe(fd)) {
		fclose(errf);
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		fclose(errf);
		return -1;
	}
	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY);
		if (in >= 0)
			dup2(in, 0);
		dup2(fd[1], 1);
		dup2(fileno(errf), 2);
		close(fd[0]);
		close(fd[1]);
		execv(bin, argv);
		fprintf(stderr, "cannot run %s: %s\n", bin, strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	r->out = read_all(fd[0]);
	close(fd[0]);
	struct rusage ru;
	while (wait4(pid, &r->status, 0, &ru) < 0)
		if (errno != EINTR) {
			memset(&ru, 0, sizeof ru);
			r->status = -1;
			break;
		}
	r->cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
		   (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	r->rss_kib = ru.ru_maxrss;
	fflush(errf);
	rewind(errf);
	r->err = read_all(fileno(errf));
	fclose(errf);
	return 0;
}

/* The output's JSON lines, parsed (gives an array), or NULL with why. */
static json_t *parse_lines(const char *out, char *why, size_t why_len)
{
	json_t *arr = json_array();
	for (const char *p = out; *p;) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		if (l) {
			json_error_t je;
			json_t *o = json_loadb(p, l, 0, &je);
			if (!json_is_object(o)) {
				snprintf(why, why_len, "line %zu of the output is not a JSON object",
					 json_array_size(arr) + 1);
				json_decref(o);
				json_decref(arr);
				return NULL;
			}
			/* What legitimately differs from run to run. */
			json_object_del(o, "wall_ms");
			json_object_del(o, "version");
			json_array_append_new(arr, o);
		}
		p += l + (nl != NULL);
	}
	return arr;
}

/* Whether two outputs say the same (wall_ms and version aside); else the
 * first difference into why. With `older`, b is an older build's: a field
 * that only a has is one added since, not a difference. */
static bool outputs_same(const char *a, const char *b, const char *what_b, bool older, char *why,
			 size_t why_len)
{
	json_t *x = parse_lines(a, why, why_len), *y = x ? parse_lines(b, why, why_len) : NULL;
	bool same = x && y;
	if (same && json_array_size(x) != json_array_size(y)) {
		snprintf(why, why_len, "%zu result lines, %s %zu", json_array_size(x), what_b,
			 json_array_size(y));
		same = false;
	}
	for (size_t i = 0; same && i < json_array_size(x); i++) {
		json_t *p = json_array_get(x, i), *q = json_array_get(y, i);
		const char *key;
		json_t *v;
		json_object_foreach(p, key, v) {
			json_t *w = json_object_get(q, key);
			if (!w && older)
				continue;
			if (!w || !json_equal(v, w)) {
				char *vt = json_dumps(v, JSON_ENCODE_ANY);
				char *wt = w ? json_dumps(w, JSON_ENCODE_ANY) : NULL;
				snprintf(why, why_len, "ratio %g: %s %s, %s %s",
					 json_number_value(json_object_get(p, "ratio")), key,
					 vt ? vt : "?", what_b, wt ? wt : "missing");
				free(vt);
				free(wt);
				same = false;
				break;
			}
		}
		/* and every field of b is one of a's */
		json_object_foreach(q, key, v) {
			if (same && !json_object_get(p, key)) {
				snprintf(why, why_len, "ratio %g: %s has a field %s, this one not",
					 json_number_value(json_object_get(p, "ratio")), what_b, key);
				same = false;
			}
		}
	}
	json_decref(x);
	json_decref(y);
	return same;
}

static uint64_t u64_of(json_t *o, const char *key)
{
	return (uint64_t)json_integer_value(json_object_get(o, key));
}

/* Compare the output's lines with the reference run's points of the same
 * ratios (reference.h's rule), and its baseline with the file's: 1 when
 * they match, 0 when not (why says where), -1 when the reference has none
 * of these ratios. */
static int matches_reference(const char *out, const struct ref_file *rf, const struct ref_run *run,
			     char *why, size_t why_len)
{
	json_t *arr = parse_lines(out, why, why_len);
	if (!arr)
		return 0;
	int verdict = -1;
	for (size_t i = 0; verdict && i < json_array_size(arr); i++) {
		json_t *o = json_array_get(arr, i);
		double ratio = json_number_value(json_object_get(o, "ratio"));
		const struct ref_point *rp = NULL;
		for (size_t j = 0; j < run->n_points && !rp; j++)
			if (run->points[j].ratio == ratio)
				rp = &run->points[j];
		if (!rp)
			continue;
		struct baseline b = {
			.memory = u64_of(o, "baseline_memory"),
			.compute = (int64_t)u64_of(o, "baseline_compute"),
			.const_memory = u64_of(o, "baseline_const_memory"),
			.bottleneck_memory = u64_of(o, "baseline_bottleneck_memory"),
		};
		if (!reference_baseline_matches(rf, &b, why, why_len)) {
			verdict = 0;
			break;
		}
		json_t *ov = json_object_get(o, "overhead");
		json_t *stop = json_object_get(o, "stopped_clock");
		struct point_result pr = {
			.budget = u64_of(o, "budget"),
			.overhead = json_is_null(ov) ? INFINITY : json_number_value(ov),
		};
		/* a run that did not pass has no overhead (issue 44): the
		 * reference's is the clock where it stopped over the baseline's */
		if (json_is_integer(stop) && b.compute > 0)
			pr.overhead = (double)json_integer_value(stop) / (double)b.compute;
		const char *oc = json_string_value(json_object_get(o, "outcome"));
		pr.run.outcome = OUTCOME_PASS;
		for (int k = OUTCOME_PASS; k <= OUTCOME_THRASH; k++)
			if (oc && !strcmp(oc, outcome_name((enum outcome)k)))
				pr.run.outcome = (enum outcome)k;
		if (!oc || strcmp(oc, outcome_name(pr.run.outcome))) {
			snprintf(why, why_len, "ratio %g: outcome '%s' unknown", ratio, oc ? oc : "");
			verdict = 0;
			break;
		}
		pr.run.remat_compute = (int64_t)u64_of(o, "remat_compute");
		pr.run.heuristic_evals = u64_of(o, "heuristic_evals");
		pr.run.heuristic_accesses = u64_of(o, "heuristic_accesses");
		bool acc_differ;
		verdict = reference_point_matches(run, rp, &pr, &acc_differ, why, why_len);
	}
	json_decref(arr);
	return verdict;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double least(double *v, int n)
{
	double m = v[0];
	for (int i = 1; i < n; i++)
		m = v[i] < m ? v[i] : m;
	return m;
}

/* --min: rows' figures are the least of their runs, not the median. */
static bool use_min;

/* The figure of n runs' CPU seconds: their median, or with --min the least. */
static double summary(double *v, int n)
{
	return use_min ? least(v, n) : median(v, n);
}

/* What summary() gives, in words. */
static const char *summary_name(void)
{
	return use_min ? "least" : "median";
}

/* The short name of a process's failure, into buf. */
static const char *failure_text(int status, char *buf, size_t size)
{
	if (status == -1)
		snprintf(buf, size, "lost");
	else if (WIFSIGNALED(status))
		snprintf(buf, size, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, size, "exit status %d", WEXITSTATUS(status));
	return buf;
}

/* The last line of a child's stderr, for a message. */
static const char *last_line(char *text)
{
	size_t n = strlen(text);
	while (n && text[n - 1] == '\n')
		text[--n] = 0;
	char *nl = strrchr(text, '\n');
	return nl ? nl + 1 : text;
}

struct bench_totals {
	int rows, differ;
	double ref_s, cpu_s, old_s;
	double worst;          /* the lowest speedup */
	const struct bench_row *worst_row;
	int under_100;
	const struct bench_row **under; /* the rows under 100x, in run order */
	int slower_10;         /* rows over 10% slower than OLD */
	int old_rows;          /* rows OLD ran */
	double log_ratio_sum;  /* for the geometric mean of this / old */
	double max_ratio;
	const struct bench_row *max_row;
};

/* The reference's run of a row in the reference files, or NULL. */
static const struct ref_run *find_ref_run(struct ref_file **refs, int n_refs,
					  const struct bench_row *row, const struct ref_file **rf)
{
	for (int f = 0; f < n_refs; f++) {
		if (!refs[f] || strcmp(refs[f]->log, row->log))
			continue;
		for (size_t i = 0; i < refs[f]->n_runs; i++) {
			const struct ref_run *run = &refs[f]->runs[i];
			if (!strcasecmp(run->heuristic_name, row->heuristic) &&
			    !strcasecmp(run->runtime_name, row->runtime)) {
				*rf = refs[f];
				return run;
			}
		}
	}
	return NULL;
}

/* Run one row (repeat times per binary) and print it: 0, or the exit
 * status of a run of this binary that failed. */
static int bench_one(const struct bench_row *row, const char *self, const char *old, bool old_jobs,
		     int repeat, struct ref_file **refs, int n_refs, struct bench_totals *t)
{
	char *argv[20] = {0}, *old_argv[20] = {0};
	int a = 0;
	argv[a++] = "rematsim";
	argv[a++] = "replay";
	argv[a++] = row->model->spec;
	argv[a++] = "--heuristic";
	argv[a++] = row->heuristic;
	argv[a++] = "--runtime";
	argv[a++] = row->runtime;
	argv[a++] = "--ratio";
	argv[a++] = row->ratios;
	argv[a++] = "--overhead-limit";
	argv[a++] = BENCH_OVERHEAD_LIMIT;
	argv[a++] = "--json";
	if (*row->seed) {
		argv[a++] = "--seed";
		argv[a++] = row->seed;
	}
	argv[a] = NULL;
	/* One thread, as the reference ran: the work in CPU seconds, not two
	 * threads contending for one core (replay --jobs). OLD the same where
	 * it has --jobs; an older one is one thread anyway. */
	memcpy(old_argv, argv, sizeof argv);
	argv[a] = "--jobs";
	argv[a + 1] = "1";
	argv[a + 2] = NULL;
	if (old_jobs)
		memcpy(old_argv, argv, sizeof argv);

	double *cpu = xcalloc((size_t)repeat * 2, sizeof *cpu), *old_cpu = cpu + repeat;
	long rss = 0;
	char *first = NULL, *old_first = NULL;
	char why[1024] = "", fail[64];
	bool same = true, checked = false, old_failed = false;
	int status = 0;
	for (int r = 0; r < repeat && !status; r++) {
		for (int k = 0; k < (old ? 2 : 1); k++) {
			/* alternate which binary goes first */
			bool is_old = old && (k ^ (r & 1));
			struct bench_run run;
			if (is_old && old_failed)
				continue;
			if (run_process(is_old ? old : self, is_old ? old_argv : argv, &run)) {
				fprintf(stderr, "rematsim bench: cannot start %s: %s\n",
					is_old ? old : self, strerror(errno));
				status = EXIT_SOFTWARE;
				break;
			}
			if (run.status == -1 || !WIFEXITED(run.status) || WEXITSTATUS(run.status)) {
				fprintf(stderr, "rematsim bench: %s, %s %s: %s failed (%s): %s\n",
					row->model->name, row->heuristic, row->runtime,
					is_old ? old : "this rematsim",
					failure_text(run.status, fail, sizeof fail), last_line(run.err));
				if (is_old) {
					old_failed = true;
				} else {
					status = WIFEXITED(run.status) && WEXITSTATUS(run.status)
							 ? WEXITSTATUS(run.status) : EXIT_SOFTWARE;
				}
				bench_run_free(&run);
				continue;
			}
			if (is_old) {
				old_cpu[r] = run.cpu_s;
				if (!old_first) {
					old_first = run.out;
					run.out = NULL;
				} else if (same && !outputs_same(old_first, run.out, "another run", false,
								 why, sizeof why)) {
					same = false;
					fprintf(stderr, "rematsim bench: %s, %s %s: OLD's repeats differ: %s\n",
						row->model->name, row->heuristic, row->runtime, why);
				}
			} else {
				cpu[r] = run.cpu_s;
				if (run.rss_kib > rss)
					rss = run.rss_kib;
				if (!first) {
					first = run.out;
					run.out = NULL;
				} else if (same) {
					checked = true;
					if (!outputs_same(first, run.out, "another run", false, why, sizeof why)) {
						same = false;
						fprintf(stderr, "rematsim bench: %s, %s %s: repeats differ: %s\n",
							row->model->name, row->heuristic, row->runtime,
							why);
					}
				}
			}
			bench_run_free(&run);
		}
	}
	if (status) {
		free(first);
		free(old_first);
		free(cpu);
		return status;
	}
	const struct ref_file *rf = NULL;
	const struct ref_run *rr = find_ref_run(refs, n_refs, row, &rf);
	if (same && rr) {
		int v = matches_reference(first, rf, rr, why, sizeof why);
		checked |= v >= 0;
		if (!v) {
			same = false;
			fprintf(stderr, "rematsim bench: %s, %s %s: not the reference's numbers: %s\n",
				row->model->name, row->heuristic, row->runtime, why);
		}
	}
	if (same && old_first) {
		checked = true;
		if (!outputs_same(first, old_first, "OLD", true, why, sizeof why)) {
			same = false;
			fprintf(stderr, "rematsim bench: %s, %s %s: not OLD's numbers: %s\n",
				row->model->name, row->heuristic, row->runtime, why);
		}
	}
	double c = summary(cpu, repeat);
	double speedup = row->ref_s / c;
	printf("%-18.18s %-16s %-17s %9.2f %8.3f %8.0fx", row->model->name, row->heuristic,
	       row->runtime, row->ref_s, c, speedup);
	t->rows++;
	t->ref_s += row->ref_s;
	t->cpu_s += c;
	if (speedup < t->worst) {
		t->worst = speedup;
		t->worst_row = row;
	}
	if (speedup < 100)
		t->under[t->under_100++] = row;
	if (old) {
		if (old_failed) {
			printf(" %8s %7s", "failed", "-");
		} else {
			double o = summary(old_cpu, repeat), ratio = c / o;
			printf(" %8.3f %7.2f", o, ratio);
			t->old_s += o;
			t->old_rows++;
			t->log_ratio_sum += log(ratio);
			if (ratio > 1.1)
				t->slower_10++;
			if (ratio > t->max_ratio) {
				t->max_ratio = ratio;
				t->max_row = row;
			}
		}
	}
	printf(" %7.1f  %s\n", (double)rss / 1024.0, !same ? "DIFFERENT" : checked ? "same" : "-");
	fflush(stdout);
	if (!same)
		t->differ++;
	free(first);
	free(old_first);
	free(cpu);
	return 0;
}

void bench_print_machine(void)
{
	char model[256] = "unknown processor", line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");
	while (f && fgets(line, sizeof line, f)) {
		const char *colon = strchr(line, ':');
		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon += 1 + strspn(colon + 1, " \t");
		snprintf(model, sizeof model, "%.*s", (int)strcspn(colon, "\n"), colon);
		break;
	}
	if (f)
		fclose(f);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	printf("# machine: %s, %ld processor%s\n", model, n, n == 1 ? "" : "s");
}

/* The CPU seconds of n runs of self with argv, as summary() gives them
 * (0 and a message on stderr when a run fails: the section then says so,
 * the rows stand). */
static double run_cpu(const char *self, char *const argv[], int n)
{
	double *v = xcalloc((size_t)n, sizeof *v), m = 0;
	int ok = 0;
	char fail[64];
	for (int r = 0; r < n; r++) {
		struct bench_run run;
		if (run_process(self, argv, &run))
			break;
		bool good = run.status != -1 && WIFEXITED(run.status) && !WEXITSTATUS(run.status);
		if (!good)
			fprintf(stderr, "rematsim bench: `rematsim %s%s%s` failed (%s): %s\n", argv[1],
				argv[2] ? " " : "", argv[2] ? argv[2] : "",
				failure_text(run.status, fail, sizeof fail), last_line(run.err));
		else
			v[ok++] = run.cpu_s;
		bench_run_free(&run);
		if (!good)
			break;
	}
	if (ok == n)
		m = summary(v, n);
	free(v);
	return m;
}

/*
 * Rows under 100x: per log, the floor of any row of it on this machine
 * (start, read, baseline, one replay that evicts nothing) beside its rows'
 * allowances (reference seconds / 100); rows whose allowance is under the
 * floor cannot reach 100x here whatever their replays cost.
 */
static void bench_floors(const struct bench_totals *t, const char *self, int repeat)
{
	if (!t->under_100)
		return;
	int n = repeat < 5 ? 5 : repeat, bounded = 0;
	printf("\nrows under 100x, by log\n"
	       "  floor_s      the least process that replays the log (replay --heuristic LRU\n"
	       "               --ratio 10: start, read, baseline, one replay that evicts nothing),\n"
	       "               %s of %d runs\n"
	       "  allowance_s  the rows' reference seconds / 100\n"
	       "  bounded      rows whose allowance is under the floor: no replay could reach 100x here\n",
	       summary_name(), n);
	printf("%-18s %9s %23s %6s %8s\n", "model", "floor_s", "allowance_s", "rows", "bounded");
	bool *done = xcalloc((size_t)t->under_100, sizeof *done);
	for (int i = 0; i < t->under_100; i++) {
		if (done[i])
			continue;
		const struct manifest_model *m = t->under[i]->model;
		char *argv[] = {"rematsim", "replay", m->spec, "--heuristic", "LRU",
				"--runtime", "V2EagerOptimized", "--ratio", "10", "--json", NULL};
		double floor_s = run_cpu(self, argv, n), lo = INFINITY, hi = 0;
		int rows = 0, under = 0;
		for (int j = i; j < t->under_100; j++) {
			if (t->under[j]->model != m)
				continue;
			done[j] = true;
			double allow = t->under[j]->ref_s / 100;
			lo = allow < lo ? allow : lo;
			hi = allow > hi ? allow : hi;
			rows++;
			under += floor_s > 0 && allow < floor_s;
		}
		bounded += under;
		char range[64];
		snprintf(range, sizeof range, lo == hi ? "%.4f" : "%.4f-%.4f", lo, hi);
		if (floor_s > 0)
			printf("%-18.18s %9.4f %23s %6d %8d\n", m->name, floor_s, range, rows, under);
		else
			printf("%-18.18s %9s %23s %6d %8s\n", m->name, "failed", range, rows, "-");
	}
	free(done);
	char *version[] = {"rematsim", "--version", NULL};
	double start_s = run_cpu(self, version, 21);
	printf("rows under 100x: %d, of which bounded by their log's floor: %d, not: %d\n",
	       t->under_100, bounded, t->under_100 - bounded);
	if (start_s > 0)
		printf("process start alone here (rematsim --version, %s of 21): %.4f s\n",
		       summary_name(), start_s);
}

int cmd_bench(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"shared", required_argument, NULL, 'd'},
		{"heuristic", required_argument, NULL, 'H'},
		{"log", required_argument, NULL, 'l'},
		{"repeat", required_argument, NULL, 'n'},
		{"against", required_argument, NULL, 'a'},
		{"min", no_argument, NULL, 'm'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--scale"))
			return bench_scale(argc, argv);
	const char *shared = getenv("REMATSIM_SHARED");
	const char *only_h = NULL, *only_log = NULL, *old = NULL;
	int repeat = 0;
	if (!shared || !*shared)
		shared = "../shared";
	struct opt_parser o;
	opt_init(&o, "bench", bench_help, 1);
	int c;
	while ((c = opt_next(&o, argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case OPT_FAIL: return o.status;
		case 'd': shared = optarg; break;
		case 'H': only_h = optarg; break;
		case 'l': only_log = optarg; break;
		case 'a': old = optarg; break;
		case 'm': use_min = true; break;
		case 'n': {
			uint64_t v;
			if (opt_count("bench", "--repeat", optarg, 1, BENCH_MAX_REPEAT, &v))
				return EXIT_USAGE;
			repeat = (int)v;
			break;
		}
		case 'h': fputs(bench_help, stdout); return 0;
		}
	}
	if (optind != argc)
		return usage_error("bench", bench_help, "unexpected argument '%s'", argv[optind]);
	if (!repeat)
		repeat = old ? 3 : 1;
	for (const char *p = only_h; p && *p;) {
		const char *comma = strchr(p, ',');
		size_t l = comma ? (size_t)(comma - p) : strlen(p);
		char name[64];
		snprintf(name, sizeof name, "%.*s", (int)(l < 63 ? l : 63), p);
		if (!heuristic_find(name)) {
			fprintf(stderr, "rematsim bench: unknown heuristic '%s' (rematsim replay --help lists them)\n",
				name);
			return EXIT_USAGE;
		}
		p += l + (comma != NULL);
	}
	if (old && access(old, X_OK)) {
		fprintf(stderr, "rematsim bench: --against %s: %s\n", old, strerror(errno));
		return EXIT_NOINPUT;
	}
	char self[4096];
	ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
	if (sl <= 0) {
		fprintf(stderr, "rematsim bench: cannot find this program (/proc/self/exe): %s\n",
			strerror(errno));
		return EXIT_SOFTWARE;
	}
	self[sl] = 0;

	char path[4096];
	struct rs_error err;
	struct bench_row *rows = NULL;
	size_t n_rows = 0;
	char *text = NULL;
	struct manifest *man = NULL;
	struct ref_file *refs[256] = {0};
	char *files[256];
	int n_files = 0, status = 0;
	struct bench_totals t = {.worst = INFINITY};
	snprintf(path, sizeof path, "%s/reference/speed.tsv", shared);
	if (speed_read(path, &rows, &n_rows, &text, &err)) {
		rs_error_print(&err);
		status = err.status;
		goto done;
	}
	snprintf(path, sizeof path, "%s/dtr-logs/logs.zip", shared);
	if (manifest_read(path, &man, &err)) {
		rs_error_print(&err);
		status = err.status;
		goto done;
	}
	for (size_t i = 0; i < n_rows; i++) {
		for (size_t m = 0; m < man->n_models; m++) {
			const char *base = strrchr(man->models[m].log, '/');
			base = base ? base + 1 : man->models[m].log;
			if (!strcmp(base, rows[i].log))
				rows[i].model = &man->models[m];
		}
		if (!rows[i].model) {
			fprintf(stderr, "rematsim: %s/reference/speed.tsv:%ld: no log '%s' in %s\n", shared,
				rows[i].line, rows[i].log, path);
			status = EXIT_DATAERR;
			goto done;
		}
	}
	snprintf(path, sizeof path, "%s/reference", shared);
	n_files = reference_list(path, files, 256);
	for (int f = 0; f < n_files; f++) {
		int rc = reference_read(files[f], &refs[f], &err);
		if (rc < 0) {
			rs_error_print(&err);
			status = err.status;
			goto done;
		}
	}

	bool old_jobs = old && replay_has_jobs(old);
	bench_print_machine();
	printf("%-18s %-16s %-17s %9s %8s %9s", "model", "heuristic", "runtime", "ref_s", "cpu_s",
	       "speedup");
	if (old)
		printf(" %8s %7s", "old_s", "new/old");
	printf(" %7s  %s\n", "rss_MB", "numbers");
	t.under = xcalloc(n_rows ? n_rows : 1, sizeof *t.under);
	for (size_t i = 0; i < n_rows && !status; i++) {
		const struct bench_row *row = &rows[i];
		if (!list_has(only_h, row->heuristic))
			continue;
		if (only_log && !strstr(row->log, only_log) && !strstr(row->model->name, only_log))
			continue;
		status = bench_one(row, self, old, old_jobs, repeat, refs, n_files, &t);
	}
	if (status)
		goto done;
	if (!t.rows) {
		fprintf(stderr, "rematsim bench: no row of speed.tsv matched the selection\n");
		status = EXIT_USAGE;
		goto done;
	}
	printf("%d rows, CPU %.3f s (%s of %d), the reference %.1f s: %.0fx; numbers %s\n",
	       t.rows, t.cpu_s, summary_name(), repeat, t.ref_s, t.ref_s / t.cpu_s,
	       t.differ ? "DIFFERENT in some rows" : "matched");
	printf("slowest against the reference: %s %s %s, %.0fx; rows under 100x: %d\n",
	       t.worst_row->model->name, t.worst_row->heuristic, t.worst_row->runtime, t.worst,
	       t.under_100);
	if (old && t.max_row)
		printf("against OLD: CPU %.3f s, this / OLD %.2f; geometric mean of the rows' ratios %.3f, "
		       "largest %.2f (%s %s %s); rows over 10%% slower: %d\n",
		       t.old_s, t.cpu_s / t.old_s, exp(t.log_ratio_sum / t.old_rows), t.max_ratio,
		       t.max_row->model->name, t.max_row->heuristic, t.max_row->runtime, t.slower_10);
	bench_floors(&t, self, repeat);
	if (t.differ) {
		fprintf(stderr, "rematsim bench: numbers DIFFERENT in %d rows: a bug, please report it\n",
			t.differ);
		status = EXIT_SOFTWARE;
	}
done:
	free(t.under);
	for (int f = 0; f < n_files; f++) {
		reference_free(refs[f]);
		free(files[f]);
	}
	manifest_free(man);
	free(rows);
	free(text);
	return status;
}
