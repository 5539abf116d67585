/*
 * cmd_sweep.c: `rematsim sweep` and `rematsim merge` (docs/experiments.md).
 * Everything that can be wrong with the input (the YAML, a log, the output
 * folder) is found here before the first point runs.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "experiment.h"
#include "pool.h"
#include "results.h"
#include "scalar.h"
#include "sweep.h"
#include "util.h"

/* The command line as one string, shell-quoted where needed (gives). */
static char *command_line(int argc, char **argv)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fputs("rematsim", f);
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		fputc(' ', f);
		if (*a && !a[strcspn(a, " \t\n'\"\\$`*?[]#;&|<>(){}")]) {
			fputs(a, f);
			continue;
		}
		fputc('\'', f);
		for (; *a; a++)
			if (*a == '\'')
				fputs("'\\''", f);
			else if (*a == '\n' || *a == '\t')
				fputc(' ', f);
			else
				fputc(*a, f);
		fputc('\'', f);
	}
	fclose(f);
	return buf;
}

static void sweep_usage(FILE *f)
{
	fprintf(f,
		"usage: rematsim sweep EXPERIMENT.yaml [--out DIR] [--jobs N] [--shard I/N]\n"
		"                      [--dry-run] [--quiet]\n\n"
		"Run every point of an experiment (models x series x trials x ratios) and\n"
		"write points.tsv, models.tsv and frontier.tsv into DIR (default\n"
		"out/EXPERIMENT). Rerunning into the same DIR resumes: points already there\n"
		"with the same config hash are kept.\n\n"
		"  -o, --out DIR     output folder\n"
		"  -j, --jobs N      worker threads (default: the number of processors)\n"
		"  -s, --shard I/N   run only points p with p %% N == I-1 (I in 1..N)\n"
		"  -n, --dry-run     print the number of points and exit\n"
		"  -q, --quiet       no progress lines on stderr\n\n"
		"Exit status: 0 done, 64 usage, 65 bad YAML or log, 66 missing file,\n"
		"73 output folder not writable, 74 write error.\n");
}

static int parse_shard(const char *s, unsigned *i, unsigned *n)
{
	char *e;
	if (*s < '0' || *s > '9') /* digits only: no sign, no space */
		return -1;
	unsigned long a = strtoul(s, &e, 10);
	if (e == s || *e != '/')
		return -1;
	const char *t = e + 1;
	if (*t < '0' || *t > '9')
		return -1;
	unsigned long b = strtoul(t, &e, 10);
	if (e == t || *e || b < 1 || a < 1 || a > b || b > 1000000)
		return -1;
	*i = (unsigned)a;
	*n = (unsigned)b;
	return 0;
}

int cmd_sweep(int argc, char **argv)
{
	static const struct option opts[] = {
		{"out", required_argument, NULL, 'o'},
		{"jobs", required_argument, NULL, 'j'},
		{"shard", required_argument, NULL, 's'},
		{"dry-run", no_argument, NULL, 'n'},
		{"quiet", no_argument, NULL, 'q'},
		{"stop-after", required_argument, NULL, 'S'}, /* testing: simulate a kill */
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct sweep_options so = {.jobs = pool_default_jobs(), .shard = 1, .n_shards = 1};
	const char *out = NULL;
	bool dry_run = false;
	int c;
	const char *why;
	uint64_t v;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:j:s:nqh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'j':
			if (scalar_parse_u64(optarg, &v, &why) || v < 1 || v > 4096) {
				fprintf(stderr, "rematsim sweep: --jobs: '%s': a number from 1 to 4096 is expected\n",
					optarg);
				return EXIT_USAGE;
			}
			so.jobs = (unsigned)v;
			break;
		case 's':
			if (parse_shard(optarg, &so.shard, &so.n_shards)) {
				fprintf(stderr, "rematsim sweep: --shard: '%s': I/N with 1 <= I <= N is expected\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'n':
			dry_run = true;
			break;
		case 'q':
			so.quiet = true;
			break;
		case 'S':
			if (scalar_parse_u64(optarg, &v, &why)) {
				fprintf(stderr, "rematsim sweep: --stop-after: %s\n", why);
				return EXIT_USAGE;
			}
			so.stop_after = (long)v;
			break;
		case 'h':
			sweep_usage(stdout);
			return 0;
		default:
			sweep_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		sweep_usage(stderr);
		return EXIT_USAGE;
	}

	struct rs_error err = {0};
	struct experiment *e = NULL;
	char *out_default = NULL;
	char *cmdline = NULL;
	int status = 0;
	if (experiment_read(argv[optind], &e, &err)) {
		rs_error_print(&err);
		return err.status ? err.status : EXIT_DATAERR;
	}
	size_t total = experiment_n_points(e);
	if (dry_run) {
		printf("%zu\n", sweep_shard_points(total, so.shard, so.n_shards));
		if (so.n_shards > 1)
			fprintf(stderr, "rematsim: shard %u/%u of %zu points\n", so.shard,
				so.n_shards, total);
		goto out;
	}
	if (!out) {
		size_t n = strlen(e->name) + 8;
		out_default = xmalloc(n);
		snprintf(out_default, n, "out/%s", e->name);
		out = out_default;
	}
	so.out_dir = out;
	cmdline = command_line(argc, argv);
	so.command_line = cmdline;
	if (sweep_check_output(out, &err) || experiment_load(e, so.jobs, &err) ||
	    sweep_run(e, &so, &err)) {
		rs_error_print(&err);
		status = err.status ? err.status : EXIT_SOFTWARE;
		goto out;
	}
	if (!so.quiet)
		fprintf(stderr, "rematsim: %s: results in %s/points.tsv\n", e->name, out);
out:
	free(cmdline);
	free(out_default);
	experiment_free(e);
	return status;
}

static void merge_usage(FILE *f)
{
	fprintf(f,
		"usage: rematsim merge DIR... --out DIR\n\n"
		"Combine the output folders of the shards of one sweep (--shard I/N) into\n"
		"one folder whose points.tsv rows equal an unsharded run's (wall_ms aside).\n\n"
		"Exit status: 0 done, 64 usage, 65 the folders are of different experiments\n"
		"or together miss points, 66 a folder has no points.tsv, 73/74 write error.\n");
}

int cmd_merge(int argc, char **argv)
{
	static const struct option opts[] = {
		{"out", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	const char *out = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'h':
			merge_usage(stdout);
			return 0;
		default:
			merge_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (!out || optind >= argc) {
		merge_usage(stderr);
		return EXIT_USAGE;
	}
	struct rs_error err = {0};
	char *cmdline = command_line(argc, argv);
	int rc = sweep_merge((const char *const *)argv + optind, (size_t)(argc - optind), out,
			     cmdline, &err);
	free(cmdline);
	if (rc) {
		rs_error_print(&err);
		return err.status ? err.status : EXIT_SOFTWARE;
	}
	return 0;
}
