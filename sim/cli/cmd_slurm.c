/*
 * cmd_slurm.c: `rematsim slurm EXP.yaml --shards N --out DIR`: write two
 * batch scripts into DIR/slurm/ and submit them with sbatch (docs/slurm.md):
 *
 *   shards.sbatch  a job array; task I runs `rematsim sweep EXP.yaml
 *                  [--manifest F | --models L,...] --shard I/N
 *                  --out DIR/shard-I` (a requeued task resumes
 *                  its folder; near the time limit a task that made progress
 *                  requeues itself)
 *   merge.sbatch   `rematsim merge DIR/shard-* --out DIR`, then `rematsim
 *                  plot DIR`; submitted with --dependency=afterok: on the array
 *
 * Everything is named by absolute path (the executable, the YAML file, the
 * manifest or logs given instead of the file's models, DIR),
 * so the scripts run from any node that sees the same shared filesystem, and
 * they can be resubmitted by hand. The experiment file is checked here,
 * before anything is submitted.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cache.h"
#include "cmd.h"
#include "cmd_opts.h"
#include "experiment.h"
#include "results.h"
#include "scalar.h"
#include "sweep.h"
#include "util.h"

extern char **environ;

static void slurm_usage(FILE *f)
{
	fprintf(f,
		"usage: rematsim slurm EXPERIMENT.yaml --shards N --out DIR [--cpus C]\n"
		"                      [--manifest F | --models LOG,...] [--cache DIR]\n"
		"                      [--time T] [--mem M] [--partition P] [--account A]\n"
		"                      [--max-running K] [--sbatch OPTION]... [--dry-run]\n\n"
		"Run a sweep on a Slurm cluster: a job array of N tasks, task I running\n"
		"`rematsim sweep EXPERIMENT.yaml --shard I/N --jobs C --out DIR/shard-I`,\n"
		"then a job that waits for all of them (--dependency=afterok) and runs\n"
		"`rematsim merge` into DIR and `rematsim plot DIR`. DIR must be on a\n"
		"filesystem every node sees. Writes DIR/slurm/shards.sbatch and\n"
		"DIR/slurm/merge.sbatch, submits them, and prints the job ids\n"
		"(`shards ID` and `merge ID`). Job logs: DIR/logs/. A task that is\n"
		"requeued (preemption, `scontrol requeue`) resumes its shard.\n\n"
		"  -n, --shards N        array tasks (shards), 1 to 100000\n"
		"  -o, --out DIR         results folder (shards in DIR/shard-I)\n"
		"  -c, --cpus C          CPUs per task = sweep threads (default 1)\n"
		"      --manifest F      the models of this manifest instead of the file's,\n"
		"                        as `rematsim sweep --manifest` (the DTR paper's\n"
		"                        logs.zip as it is)\n"
		"      --models L,...    these logs instead, as `rematsim sweep --models`\n"
		"      --cache DIR       one replay cache for every task, as `rematsim sweep\n"
		"                        --cache` (made now; on a filesystem every node sees)\n"
		"  -t, --time T          time limit per task (sbatch --time: MIN, H:M:S,\n"
		"                        D-H:M...); from 5 minutes on, a task requeues\n"
		"                        itself shortly before it, if it made progress\n"
		"      --mem M           memory per task (sbatch --mem: 500M, 4G, ...)\n"
		"  -p, --partition P     partition\n"
		"  -A, --account A       account to charge\n"
		"      --max-running K   at most K tasks at once (--array=1-N%%K)\n"
		"      --sbatch OPTION   any other sbatch option, as one word\n"
		"                        (--sbatch=--qos=long); repeatable\n"
		"      --dry-run         write the scripts, print the sbatch commands,\n"
		"                        submit nothing\n\n"
		"Exit status: 0 submitted, 64 usage, 65 bad YAML, 66 YAML or log missing,\n"
		"69 sbatch missing or refused a script, 73 DIR not writable.\n");
}

/* A value that goes into an #SBATCH line or a script: one line, printable. */
static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

/*
 * An #SBATCH argument: sbatch reads double quotes and backslash escapes
 * there, and an unescaped '#' starts a comment even inside quotes. With a
 * pattern (the file name patterns of --output, such as "%a"), value is a
 * folder whose '%' are doubled, and pattern follows it as it is.
 */
static void put_sbatch(FILE *f, const char *opt, const char *value, const char *pattern)
{
	fprintf(f, "#SBATCH %s=\"", opt);
	for (const char *s = value; *s; s++) {
		if (*s == '"' || *s == '\\' || *s == '#')
			fputc('\\', f);
		if (*s == '%' && pattern)
			fputc('%', f);
		fputc(*s, f);
	}
	fprintf(f, "%s\"\n", pattern ? pattern : "");
}

/*
 * Seconds of a Slurm time limit (MIN, MIN:SEC, H:MIN:SEC, D-H, D-H:MIN,
 * D-H:MIN:SEC), or -1 when it is none of these (sbatch then judges it).
 */
static long time_seconds(const char *t)
{
	long v[4] = {0};
	int n = 0;
	long days = -1;
	const char *p = t;
	char *e;
	const char *dash = strchr(t, '-');
	if (dash) {
		days = strtol(t, &e, 10);
		if (e != dash || e == t || days < 0)
			return -1;
		p = dash + 1;
	}
	for (;;) {
		if (n == 3 || *p < '0' || *p > '9')
			return -1;
		v[n++] = strtol(p, &e, 10);
		if (!*e)
			break;
		if (*e != ':')
			return -1;
		p = e + 1;
	}
	if (days >= 0) /* D-H, D-H:M, D-H:M:S */
		return days * 86400 + v[0] * 3600 + v[1] * 60 + v[2];
	if (n == 1)
		return v[0] * 60;
	if (n == 2)
		return v[0] * 60 + v[1];
	return v[0] * 3600 + v[1] * 60 + v[2];
}

struct slurm_options {
	const char *experiment_name;
	char *exe, *yaml, *dir; /* absolute */
	unsigned shards, cpus, max_running;
	size_t points;
	const char *time, *mem, *partition, *account;
	const char **extra;
	size_t n_extra;
	const char *command_line;
	char *manifest, *models; /* absolute, or NULL: the file's own models */
	char *cache;             /* absolute, or NULL: no replay cache */
};

/* The #SBATCH lines both scripts share. */
static void put_common(FILE *f, const struct slurm_options *o)
{
	if (o->partition)
		put_sbatch(f, "--partition", o->partition, NULL);
	if (o->account)
		put_sbatch(f, "--account", o->account, NULL);
	if (o->time)
		put_sbatch(f, "--time", o->time, NULL);
	for (size_t i = 0; i < o->n_extra; i++) {
		const char *eq = strchr(o->extra[i], '=');
		if (eq) {
			char *opt = xstrdup(o->extra[i]);
			opt[eq - o->extra[i]] = 0;
			put_sbatch(f, opt, eq + 1, NULL);
			free(opt);
		} else {
			fprintf(f, "#SBATCH %s\n", o->extra[i]);
		}
	}
	put_sbatch(f, "--chdir", o->dir, NULL);
	fputs("#SBATCH --open-mode=append\n", f);
}

static char *shards_script(const struct slurm_options *o, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	char name[256];
	snprintf(name, sizeof name, "rematsim-%s", o->experiment_name);
	fputs("#!/bin/sh\n", f);
	put_sbatch(f, "--job-name", name, NULL);
	if (o->max_running)
		fprintf(f, "#SBATCH --array=1-%u%%%u\n", o->shards, o->max_running);
	else
		fprintf(f, "#SBATCH --array=1-%u\n", o->shards);
	fprintf(f, "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=%u\n", o->cpus);
	if (o->mem)
		put_sbatch(f, "--mem", o->mem, NULL);
	put_common(f, o);
	put_sbatch(f, "--output", o->dir, "/logs/shard-%a.out");
	fputs("#SBATCH --requeue\n", f);
	long limit = o->time ? time_seconds(o->time) : -1;
	if (limit >= 300)
		fputs("#SBATCH --signal=B:USR1@90\n", f);
	fprintf(f,
		"#\n"
		"# The shards of experiment %s: %zu points in %u shards. Written by\n"
		"#   %s\n"
		"# Task I runs shard I/%u into $out/shard-I; a task that is requeued or\n"
		"# rerun resumes the points its folder already holds. Rerun shards by hand:\n"
		"#   sbatch --array=3,7 %s/slurm/shards.sbatch\n"
		"set -u\n",
		o->experiment_name, o->points, o->shards, o->command_line, o->shards, o->dir);
	fputs("rematsim=", f);
	shell_quote(f, o->exe);
	fputs("\nexperiment=", f);
	shell_quote(f, o->yaml);
	fputs("\nout=", f);
	shell_quote(f, o->dir);
	if (o->manifest || o->models) {
		/* the models instead of the file's, as `sweep --manifest/--models` */
		fputs(o->manifest ? "\nmanifest=" : "\nmodels=", f);
		shell_quote(f, o->manifest ? o->manifest : o->models);
	}
	if (o->cache) {
		fputs("\ncache=", f);
		shell_quote(f, o->cache);
	}
	fprintf(f, "\nn=%u\n", o->shards);
	fputs("i=${SLURM_ARRAY_TASK_ID:?submit this script with sbatch: it is a job array}\n"
	      "shard=\"$out/shard-$i\"\n"
	      "try=$((${SLURM_RESTART_COUNT:-0} + 1))\n"
	      "echo \"rematsim slurm: shard $i/$n, job ${SLURM_ARRAY_JOB_ID:-?}_$i, try $try, "
	      "on $(hostname) at $(date -u +%Y-%m-%dT%H:%M:%SZ)\"\n"
	      "\n"
	      "# Rows in the shard's journal (a sweep in progress appends each point).\n"
	      "rows() { grep -vc '^#' \"$shard/points.journal\" 2>/dev/null || true; }\n"
	      "before=$(rows)\n", f);
	if (limit >= 300)
		fputs("\n"
		      "# Near the time limit (--signal=B:USR1@90) put the task back in the queue\n"
		      "# if this try finished points, so that the next try resumes the shard.\n"
		      "requeue_self() {\n"
		      "\tnow=$(rows)\n"
		      "\tif [ \"${now:-0}\" -gt \"${before:-0}\" ]; then\n"
		      "\t\techo \"rematsim slurm: time limit near; $((now - before)) points done in "
		      "this try; requeueing shard $i\"\n"
		      "\t\tscontrol requeue \"${SLURM_ARRAY_JOB_ID}_$i\"\n"
		      "\telse\n"
		      "\t\techo \"rematsim slurm: time limit near and no point finished in this try: "
		      "not requeued; give the tasks a longer --time or use more shards\" >&2\n"
		      "\tfi\n"
		      "}\n"
		      "trap requeue_self USR1\n", f);
	fprintf(f, "\n"
		"\"$rematsim\" sweep \"$experiment\"%s%s --shard \"$i/$n\" --jobs "
		"\"${SLURM_CPUS_PER_TASK:-1}\" --out \"$shard\" &\n",
		o->manifest ? " --manifest \"$manifest\"" : o->models ? " --models \"$models\"" : "",
		o->cache ? " --cache \"$cache\"" : "");
	fputs("pid=$!\n"
	      "# wait returns early when a trapped signal arrives: wait until the sweep ends.\n"
	      "while :; do\n"
	      "\twait \"$pid\"\n"
	      "\tstatus=$?\n"
	      "\tkill -0 \"$pid\" 2>/dev/null || break\n"
	      "done\n"
	      "echo \"rematsim slurm: shard $i/$n: sweep exited with status $status at "
	      "$(date -u +%Y-%m-%dT%H:%M:%SZ)\"\n"
	      "exit \"$status\"\n", f);
	fclose(f);
	return buf;
}

static char *merge_script(const struct slurm_options *o, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	char name[256];
	snprintf(name, sizeof name, "rematsim-%s-merge", o->experiment_name);
	fputs("#!/bin/sh\n", f);
	put_sbatch(f, "--job-name", name, NULL);
	fputs("#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n", f);
	put_common(f, o);
	put_sbatch(f, "--output", o->dir, "/logs/merge.out");
	fprintf(f,
		"#\n"
		"# Merge the %u shards of experiment %s into $out and draw its figures.\n"
		"# Submitted with --dependency=afterok:ARRAY by\n"
		"#   %s\n"
		"# Rerun by hand once every shard is done: sbatch %s/slurm/merge.sbatch\n"
		"set -u\n",
		o->shards, o->experiment_name, o->command_line, o->dir);
	fputs("rematsim=", f);
	shell_quote(f, o->exe);
	fputs("\nout=", f);
	shell_quote(f, o->dir);
	fprintf(f, "\nn=%u\n", o->shards);
	fputs("echo \"rematsim slurm: merging $n shards into $out on $(hostname) at "
	      "$(date -u +%Y-%m-%dT%H:%M:%SZ)\"\n"
	      "set --\n"
	      "i=1\n"
	      "while [ \"$i\" -le \"$n\" ]; do\n"
	      "\tset -- \"$@\" \"$out/shard-$i\"\n"
	      "\ti=$((i + 1))\n"
	      "done\n"
	      "\"$rematsim\" merge \"$@\" --out \"$out\" || exit\n"
	      "echo \"rematsim slurm: results in $out/points.tsv\"\n"
	      "\"$rematsim\" plot \"$out\"\n"
	      "status=$?\n"
	      "if [ \"$status\" -eq 69 ]; then\n"
	      "\techo \"rematsim slurm: no gnuplot on this node: the results are merged; "
	      "draw the figures where gnuplot is: rematsim plot $out\" >&2\n"
	      "\tstatus=0\n"
	      "fi\n"
	      "exit \"$status\"\n", f);
	fclose(f);
	return buf;
}

/*
 * Run argv (sbatch) and give its first stdout line's leading job id (for
 * `--parsable`: "ID" or "ID;CLUSTER"), or NULL with err (its stderr passes
 * through to ours).
 */
static char *submit(char *const *argv, struct rs_error *err)
{
	int fd[2];
	if (pipe(fd))
		return rs_error_set(err, EXIT_SOFTWARE, NULL, 0, "pipe: %s", strerror(errno)),
		       NULL;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addclose(&fa, fd[0]);
	posix_spawn_file_actions_addclose(&fa, fd[1]);
	pid_t pid;
	int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	if (rc) {
		close(fd[0]);
		rs_error_set(err, EXIT_UNAVAILABLE, NULL, 0, "cannot run %s: %s", argv[0],
			     strerror(rc));
		return NULL;
	}
	char out[4096];
	size_t n = 0;
	ssize_t k;
	while ((k = read(fd[0], out + n, sizeof out - 1 - n)) > 0 || (k < 0 && errno == EINTR))
		if (k > 0)
			n += (size_t)k;
	out[n] = 0;
	close(fd[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	size_t digits = strspn(out, "0123456789");
	if (!WIFEXITED(st) || WEXITSTATUS(st) || !digits ||
	    (out[digits] && !strchr(";\n", out[digits]))) {
		out[strcspn(out, "\n")] = 0;
		rs_error_set(err, EXIT_UNAVAILABLE, NULL, 0,
			     "%s failed (%s %d)%s%s", argv[0],
			     WIFEXITED(st) ? "status" : "signal",
			     WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
			     *out ? ", said: " : "", out);
		return NULL;
	}
	out[digits] = 0;
	return xstrdup(out);
}

/* The log file a model reads, without the `:MEMBER` of an archive. */
static int check_logs(const struct experiment *e, struct rs_error *err)
{
	for (size_t i = 0; i < e->n_models; i++) {
		char *file = xstrdup(e->models[i].spec);
		char *zip = strstr(file, ".zip:");
		if (zip)
			zip[4] = 0;
		if (access(file, R_OK)) {
			rs_error_set(err, EXIT_NOINPUT, file, 0, "model %s: cannot read its log: %s",
				     e->models[i].name, strerror(errno));
			free(file);
			return -1;
		}
		free(file);
	}
	return 0;
}

static bool parse_count(const char *opt, const char *s, unsigned max, unsigned *out)
{
	uint64_t v;
	const char *why;
	if (scalar_parse_u64(s, &v, &why) || v < 1 || v > max) {
		fprintf(stderr, "rematsim slurm: %s: '%s': a whole number from 1 to %u is expected\n",
			opt, s, max);
		return false;
	}
	*out = (unsigned)v;
	return true;
}

/*
 * The logs of `--models L,...` by absolute path (gives), so that the
 * scripts find them from any node: each LOG, or ARCHIVE.zip:MEMBER with
 * the archive's path made absolute. NULL with err when one cannot be
 * resolved.
 */
static char *absolute_models(const char *list, struct rs_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = 0;
	for (const char *p = list; *p && !rc;) {
		size_t n = strcspn(p, ",");
		char *item = xmalloc(n + 1);
		memcpy(item, p, n);
		item[n] = 0;
		char *zip = strstr(item, ".zip:");
		if (zip)
			zip[4] = 0; /* the archive's path */
		char *abs = realpath(item, NULL);
		if (!abs)
			rc = rs_error_set(err, EXIT_NOINPUT, item, 0, "--models: cannot resolve the path: %s",
					  strerror(errno));
		else
			fprintf(f, "%s%s%s%s", p == list ? "" : ",", abs, zip ? ":" : "",
				zip ? zip + 5 : "");
		free(abs);
		free(item);
		p += n;
		p += *p == ',';
	}
	fclose(f);
	if (rc) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The command line as one string (gives). */
static char *command_line(int argc, char **argv)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fputs("rematsim", f);
	for (int i = 0; i < argc; i++) {
		fputc(' ', f);
		shell_quote(f, argv[i]);
	}
	fclose(f);
	return buf;
}

/* The command line's choices besides the script's options. */
struct slurm_cli {
	struct slurm_options o;
	const char *out;
	const char *manifest, *models; /* instead of the file's models */
	const char *cache;
	bool dry_run;
	const char **extra; /* --sbatch options, o.extra */
	char *cmdline;
};

/* Parse the options into a: 0, -1 after --help (status 0), or
 * EXIT_USAGE after a message. */
static int slurm_parse(int argc, char **argv, struct slurm_cli *a)
{
	enum { O_MEM = 256, O_MAX_RUNNING, O_SBATCH, O_DRY_RUN, O_MANIFEST, O_MODELS, O_CACHE };
	static const struct option opts[] = {
		{"shards", required_argument, NULL, 'n'},
		{"out", required_argument, NULL, 'o'},
		{"cpus", required_argument, NULL, 'c'},
		{"time", required_argument, NULL, 't'},
		{"mem", required_argument, NULL, O_MEM},
		{"partition", required_argument, NULL, 'p'},
		{"account", required_argument, NULL, 'A'},
		{"max-running", required_argument, NULL, O_MAX_RUNNING},
		{"sbatch", required_argument, NULL, O_SBATCH},
		{"dry-run", no_argument, NULL, O_DRY_RUN},
		{"manifest", required_argument, NULL, O_MANIFEST},
		{"models", required_argument, NULL, O_MODELS},
		{"cache", required_argument, NULL, O_CACHE},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct slurm_options *o = &a->o;
	int c;
	/* an option with a value given twice is refused (cmd_opts.h) */
	if (opt_refuse_repeats("slurm", argc, argv, "n:o:c:t:p:A:h", opts, "sbatch"))
		return EXIT_USAGE;
	optind = 1;
	while ((c = getopt_long(argc, argv, "n:o:c:t:p:A:h", opts, NULL)) != -1) {
		const char *bad = NULL;
		switch (c) {
		case 'n':
			if (!parse_count("--shards", optarg, 100000, &o->shards))
				return EXIT_USAGE;
			break;
		case 'o':
			if (!*optarg) {
				fprintf(stderr, "rematsim slurm: --out: an empty name is no folder\n");
				return EXIT_USAGE;
			}
			a->out = optarg;
			break;
		case 'c':
			if (!parse_count("--cpus", optarg, 4096, &o->cpus))
				return EXIT_USAGE;
			break;
		case O_MAX_RUNNING:
			if (!parse_count("--max-running", optarg, 100000, &o->max_running))
				return EXIT_USAGE;
			break;
		case 't':
			o->time = optarg;
			bad = *optarg ? NULL : "--time";
			break;
		case O_MEM:
			o->mem = optarg;
			bad = *optarg ? NULL : "--mem";
			break;
		case 'p':
			o->partition = optarg;
			bad = *optarg ? NULL : "--partition";
			break;
		case 'A':
			o->account = optarg;
			bad = *optarg ? NULL : "--account";
			break;
		case O_SBATCH:
			if (strncmp(optarg, "--", 2) || optarg[2] == '=' || !optarg[2]) {
				fprintf(stderr, "rematsim slurm: --sbatch: '%s': one long sbatch option "
						"is expected, such as --sbatch=--qos=long\n", optarg);
				return EXIT_USAGE;
			}
			a->extra[o->n_extra++] = optarg;
			break;
		case O_DRY_RUN:
			a->dry_run = true;
			break;
		case O_MANIFEST:
		case O_MODELS:
			if (c == O_MANIFEST ? a->models != NULL : a->manifest != NULL) {
				fprintf(stderr, "rematsim slurm: give --manifest or --models, not both\n");
				return EXIT_USAGE;
			}
			*(c == O_MANIFEST ? &a->manifest : &a->models) = optarg;
			bad = *optarg ? NULL : c == O_MANIFEST ? "--manifest" : "--models";
			break;
		case O_CACHE:
			a->cache = optarg;
			bad = *optarg ? NULL : "--cache";
			break;
		case 'h':
			slurm_usage(stdout);
			return -1;
		default:
			slurm_usage(stderr);
			return EXIT_USAGE;
		}
		if (bad) {
			fprintf(stderr, "rematsim slurm: %s: a value is expected\n", bad);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1 || !o->shards || !a->out) {
		if (optind == argc - 1)
			fprintf(stderr, "rematsim slurm: %s is required\n",
				!o->shards ? "--shards N" : "--out DIR");
		slurm_usage(stderr);
		return EXIT_USAGE;
	}
	for (int i = 1; i < argc; i++)
		if (!printable(argv[i])) {
			fprintf(stderr, "rematsim slurm: argument %d has a control character "
					"(a newline?): it cannot go into a batch script\n", i);
			return EXIT_USAGE;
		}
	if (strchr(a->out, '\\')) {
		fprintf(stderr, "rematsim slurm: --out: '%s': a folder without backslashes is "
				"expected (Slurm reads them in log file names)\n", a->out);
		return EXIT_USAGE;
	}
	return 0;
}

/* The experiment's checks and the absolute paths the scripts name
 * (manifest, models, cache, executable, experiment file, output folder,
 * made with its logs/ and slurm/): 0, -1 with err, or EXIT_USAGE after a
 * message. */
static int slurm_prepare(const char *yaml, struct slurm_cli *a, struct experiment **e,
			 struct rs_error *err)
{
	struct slurm_options *o = &a->o;
	if (experiment_read(yaml, e, err) ||
	    ((a->manifest || a->models) && experiment_set_models(*e, a->manifest, a->models, err)) ||
	    check_logs(*e, err))
		return -1;
	/* the scripts name them by absolute path, as everything else */
	if (a->manifest && !(o->manifest = realpath(a->manifest, NULL))) {
		rs_error_set(err, EXIT_NOINPUT, a->manifest, 0, "--manifest: cannot resolve the path: %s",
			     strerror(errno));
		return -1;
	}
	if (a->models && !(o->models = absolute_models(a->models, err)))
		return -1;
	/* made now, as sweep --cache would (a file there is refused now) */
	if (a->cache) {
		struct pcache *pc = pcache_open(a->cache, err);
		if (!pc)
			return -1;
		pcache_free(pc);
		if (!(o->cache = realpath(a->cache, NULL))) {
			rs_error_set(err, EXIT_NOINPUT, a->cache, 0, "--cache: cannot resolve the path: %s",
				     strerror(errno));
			return -1;
		}
	}
	o->experiment_name = (*e)->name;
	o->points = experiment_n_points(*e);
	if (o->shards > o->points) {
		fprintf(stderr, "rematsim slurm: --shards %u: the experiment has %zu points; "
				"more shards than points would leave some empty\n",
			o->shards, o->points);
		return EXIT_USAGE;
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0) {
		rs_error_set(err, EXIT_SOFTWARE, "/proc/self/exe", 0,
			     "cannot find the rematsim executable: %s", strerror(errno));
		return -1;
	}
	exe[n] = 0;
	o->exe = xstrdup(exe);
	o->yaml = realpath(yaml, NULL);
	char *logs = path_join(a->out, "logs");
	char *slurm_dir = path_join(a->out, "slurm");
	int mk = make_dirs(logs, err) || make_dirs(slurm_dir, err);
	free(slurm_dir);
	free(logs);
	if (mk || sweep_check_output(a->out, err))
		return -1;
	o->dir = realpath(a->out, NULL);
	if (!o->yaml || !o->dir) {
		rs_error_set(err, EXIT_NOINPUT, o->yaml ? a->out : yaml, 0,
			     "cannot resolve the path: %s", strerror(errno));
		return -1;
	}
	o->command_line = a->cmdline;
	return 0;
}

/* Write slurm/shards.sbatch and slurm/merge.sbatch in the output folder. */
static int slurm_write_scripts(const struct slurm_options *o, struct rs_error *err)
{
	size_t len;
	char *slurm_abs = path_join(o->dir, "slurm");
	char *script = shards_script(o, &len);
	int wrc = write_file_atomic(slurm_abs, "shards.sbatch", script, len, true, err);
	free(script);
	if (!wrc) {
		script = merge_script(o, &len);
		wrc = write_file_atomic(slurm_abs, "merge.sbatch", script, len, true, err);
		free(script);
	}
	free(slurm_abs);
	return wrc;
}

/* Submit the array and the merge that depends on it, printing their job
 * ids; the exit status. */
static int slurm_submit(const struct slurm_options *o, const char *shards_path, const char *merge_path)
{
	struct rs_error err = {0};
	char *array_argv[] = {"sbatch", "--parsable", (char *)shards_path, NULL};
	char *array_id = submit(array_argv, &err);
	if (!array_id) {
		rs_error_print(&err);
		fprintf(stderr, "rematsim slurm: nothing was submitted; the scripts are in %s/slurm/\n",
			o->dir);
		return err.status;
	}
	printf("shards %s\n", array_id);
	fflush(stdout);
	char dep[64];
	snprintf(dep, sizeof dep, "--dependency=afterok:%s", array_id);
	char *merge_argv[] = {"sbatch", "--parsable", dep, (char *)merge_path, NULL};
	char *merge_id = submit(merge_argv, &err);
	if (!merge_id) {
		rs_error_print(&err);
		fprintf(stderr, "rematsim slurm: the shards are job array %s, but the merge job was "
				"not submitted; submit it with: sbatch %s %s\n",
			array_id, dep, merge_path);
		free(array_id);
		return err.status;
	}
	printf("merge %s\n", merge_id);
	fprintf(stderr,
		"rematsim slurm: watch with `squeue -j %s,%s`; logs in %s/logs/; results in %s/points.tsv\n"
		"rematsim slurm: rerun a shard with `sbatch --array=I %s` (it resumes)\n",
		array_id, merge_id, o->dir, o->dir, shards_path);
	free(array_id);
	free(merge_id);
	return 0;
}

/* rematsim slurm: parse, prepare the folder and scripts, submit. */
int cmd_slurm(int argc, char **argv)
{
	struct slurm_cli a = {.o = {.cpus = 1}};
	a.extra = xcalloc((size_t)argc + 1, sizeof *a.extra);
	a.o.extra = a.extra;
	a.cmdline = command_line(argc, argv); /* before getopt reorders argv */
	int status = slurm_parse(argc, argv, &a);
	if (status) {
		free(a.cmdline);
		free(a.extra);
		return status < 0 ? 0 : status;
	}

	struct rs_error err = {0};
	struct experiment *e = NULL;
	char *shards_path = NULL, *merge_path = NULL;
	int rc = slurm_prepare(argv[optind], &a, &e, &err);
	if (!rc)
		rc = slurm_write_scripts(&a.o, &err);
	if (rc > 0) {
		status = rc;
	} else if (rc) {
		rs_error_print(&err);
		status = err.status ? err.status : EXIT_SOFTWARE;
	} else {
		const struct slurm_options *o = &a.o;
		shards_path = path_join(o->dir, "slurm/shards.sbatch");
		merge_path = path_join(o->dir, "slurm/merge.sbatch");
		size_t per = (o->points + o->shards - 1) / o->shards;
		fprintf(stderr, "rematsim slurm: %s: %zu points in %u shards of %zu%s, %u CPU%s each\n",
			e->name, o->points, o->shards, per, o->points % o->shards ? " or fewer" : "",
			o->cpus, o->cpus == 1 ? "" : "s");
		if (a.dry_run) {
			printf("sbatch --parsable ");
			shell_quote(stdout, shards_path);
			printf("\nsbatch --parsable --dependency=afterok:ARRAY_JOB_ID ");
			shell_quote(stdout, merge_path);
			printf("\n");
		} else {
			status = slurm_submit(o, shards_path, merge_path);
		}
	}
	free(shards_path);
	free(merge_path);
	free(a.cmdline);
	free(a.o.exe);
	free(a.o.yaml);
	free(a.o.dir);
	free(a.o.manifest);
	free(a.o.models);
	free(a.o.cache);
	free(a.extra);
	experiment_free(e);
	return status;
}
