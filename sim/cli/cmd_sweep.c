/*
 * cmd_sweep.c: `rematsim sweep` and `rematsim merge` (docs/experiments.md).
 * Everything that can be wrong with the input (the YAML, a log, the output
 * folder) is found here before the first point runs.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "cmd.h"
#include "cmd_opts.h"
#include "experiment.h"
#include "fit.h"
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
		/* one line: a newline or tab in an argument recorded as a space */
		char *a = xstrdup(argv[i]);
		for (char *p = a; *p; p++)
			if (*p == '\n' || *p == '\t')
				*p = ' ';
		fputc(' ', f);
		shell_quote(f, a);
		free(a);
	}
	fclose(f);
	return buf;
}

static void sweep_usage(FILE *f)
{
	fprintf(f,
		"usage: rematsim sweep EXPERIMENT.yaml [--out DIR] [--jobs N] [--shard I/N]\n"
		"                      [--cache DIR] [--dry-run] [--quiet] [--fit X]\n\n"
		"Run every point of an experiment (models x series x trials x ratios) and\n"
		"write points.tsv, models.tsv and frontier.tsv into DIR (default\n"
		"out/EXPERIMENT); with the experiment key 'gap', also gap.tsv (each method's\n"
		"overhead above the optimum, per model and budget). Rerunning into the same\n"
		"DIR resumes: points already there with the same config hash are kept.\n\n"
		"  -o, --out DIR     output folder; one that holds another experiment's\n"
		"                    results (a different config hash) is refused (73)\n"
		"      --force       replace such results instead\n"
		"      --manifest F  the models of this manifest instead of the file's: a\n"
		"                    manifest.json or an ARCHIVE.zip holding one (the DTR\n"
		"                    paper's logs.zip as it is)\n"
		"      --models L,.. these logs instead (LOG[,LOG...]), each a model named\n"
		"                    by its file or archive member (ARCHIVE.zip:NAME)\n"
		"      --cache DIR   keep each replay's result in DIR (made if need be) and\n"
		"                    take those run before by this same program: sweeps of\n"
		"                    several experiments, or an edited one, run each\n"
		"                    replay once (docs/experiments.md, \"A cache of replays\")\n"
		"      --format F,.. tsv (always written) and csv: also points.csv,\n"
		"                    models.csv, frontier.csv (no '#' lines)\n"
		"  -j, --jobs N      worker threads (default: the number of processors)\n"
		"  -s, --shard I/N   run only points p with p %% N == I-1 (I in 1..N)\n"
		"  -n, --dry-run     print the number of points and exit\n"
		"  -q, --quiet       no progress lines on stderr\n"
		"      --fit X       also find each model and series' smallest passing budget\n"
		"                    (`rematsim fit`, resolution X) into DIR/fit.tsv; unsharded\n\n"
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

enum { OPT_MANIFEST = 1000, OPT_MODELS, OPT_FORCE, OPT_FORMAT, OPT_CACHE };

static int parse_formats(const char *arg, bool *csv)
{
	char buf[64];
	snprintf(buf, sizeof buf, "%s", arg);
	*csv = false;
	for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
		if (!strcmp(t, "csv"))
			*csv = true;
		else if (strcmp(t, "tsv"))
			return -1;
	}
	return 0;
}

/*
 * Whether out holds the results of another experiment (a points.tsv or
 * journal with a different config hash): an error (EXIT_CANTCREAT) that
 * says whose and how to go on, since the sweep would replace them.
 * The same hash resumes.
 */
static int other_results(const char *out, const struct experiment *e, struct rs_error *err)
{
	const char *names[] = {"points.tsv", "points.journal"};
	for (size_t i = 0; i < 2; i++) {
		char *path = path_join(out, names[i]);
		struct points_table t;
		struct rs_error ignore;
		int rc = 0;
		if (!points_read(path, true, &t, &ignore)) {
			const char *hash = points_header(&t, "config_hash");
			const char *exp = points_header(&t, "experiment");
			if (hash && strcmp(hash, e->hash) && exp && !strcmp(exp, e->name))
				rc = rs_error_set(err, EXIT_CANTCREAT, path, 0,
						  "holds the results of a different configuration of "
						  "experiment '%s' (config hash %s, this file's %s: its "
						  "models, series, ratios or limit differ); give --force to "
						  "replace them, or another --out", exp, hash, e->hash);
			else if (hash && strcmp(hash, e->hash))
				rc = rs_error_set(err, EXIT_CANTCREAT, path, 0,
						  "holds the results of %s%s%s (config hash %s, not %s's %s); "
						  "give --force to replace them, or another --out",
						  exp ? "experiment '" : "another experiment", exp ? exp : "",
						  exp ? "'" : "", hash, e->name, e->hash);
			points_table_free(&t);
		}
		free(path);
		if (rc)
			return rc;
	}
	return 0;
}

/* points.csv, models.csv, frontier.csv beside the TSVs: the same rows, no
 * '#' lines, fields quoted where they hold a comma or a quote (RFC 4180). */
static int write_csvs(const char *out, struct rs_error *err)
{
	static const char *const names[] = {"points", "models", "frontier"};
	for (size_t i = 0; i < 3; i++) {
		char name[32];
		snprintf(name, sizeof name, "%s.tsv", names[i]);
		char *path = path_join(out, name);
		char *text;
		size_t len;
		int rc = read_whole_file(path, &text, &len, err);
		free(path);
		if (rc)
			return -1;
		char *csv = NULL;
		size_t clen = 0;
		FILE *f = open_memstream(&csv, &clen);
		for (char *line = text; *line;) {
			char *nl = strchr(line, '\n');
			size_t n = nl ? (size_t)(nl - line) : strlen(line);
			if (line[0] != '#') {
				const char *field = line;
				for (const char *end = line + n; field <= end;) {
					size_t w = strcspn(field, "\t\n");
					if (field + w > end)
						w = (size_t)(end - field);
					bool quote = memchr(field, ',', w) || memchr(field, '"', w);
					if (quote) {
						fputc('"', f);
						for (size_t k = 0; k < w; k++) {
							if (field[k] == '"')
								fputc('"', f);
							fputc(field[k], f);
						}
						fputc('"', f);
					} else {
						fwrite(field, 1, w, f);
					}
					field += w + 1;
					if (field <= end)
						fputc(',', f);
				}
				fputc('\n', f);
			}
			line += n + (nl != NULL);
		}
		fclose(f);
		free(text);
		snprintf(name, sizeof name, "%s.csv", names[i]);
		rc = write_file_atomic(out, name, csv, clen, true, err);
		free(csv);
		if (rc)
			return -1;
	}
	return 0;
}

/* The command line's choices besides the sweep's own options. */
struct sweep_cli {
	struct sweep_options so;
	const char *manifest, *models; /* instead of the file's models */
	bool force, csv, dry_run;
	const char *out, *cache;
	double fit_res; /* --fit: docs/questions.md */
};

/* Parse the options into a: 0, -1 after --help (status 0), or
 * EXIT_USAGE after a message. */
static int sweep_parse(int argc, char **argv, struct sweep_cli *a)
{
	static const struct option opts[] = {
		/* long only: codes past any letter */
		{"manifest", required_argument, NULL, OPT_MANIFEST},
		{"models", required_argument, NULL, OPT_MODELS},
		{"force", no_argument, NULL, OPT_FORCE},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"cache", required_argument, NULL, OPT_CACHE},
		{"out", required_argument, NULL, 'o'},
		{"jobs", required_argument, NULL, 'j'},
		{"shard", required_argument, NULL, 's'},
		{"dry-run", no_argument, NULL, 'n'},
		{"quiet", no_argument, NULL, 'q'},
		{"stop-after", required_argument, NULL, 'S'}, /* testing: simulate a kill */
		{"fit", required_argument, NULL, 'F'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct sweep_options *so = &a->so;
	int c;
	const char *why;
	uint64_t v;
	/* an option with a value given twice is refused (cmd_opts.h) */
	if (opt_refuse_repeats("sweep", argc, argv, "o:j:s:nqh", opts, NULL))
		return EXIT_USAGE;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:j:s:nqh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg) {
				fprintf(stderr, "rematsim %s: --out: an empty name is no folder\n", argv[0]);
				return EXIT_USAGE;
			}
			a->out = optarg;
			break;
		case OPT_MANIFEST:
		case OPT_MODELS:
			if (c == OPT_MANIFEST ? a->models != NULL : a->manifest != NULL) {
				fprintf(stderr, "rematsim sweep: give --manifest or --models, not both\n");
				return EXIT_USAGE;
			}
			*(c == OPT_MANIFEST ? &a->manifest : &a->models) = optarg;
			break;
		case OPT_FORCE:
			a->force = true;
			break;
		case OPT_CACHE:
			if (!*optarg) {
				fprintf(stderr, "rematsim sweep: --cache: an empty name is no folder\n");
				return EXIT_USAGE;
			}
			a->cache = optarg;
			break;
		case OPT_FORMAT:
			if (parse_formats(optarg, &a->csv)) {
				fprintf(stderr, "rematsim sweep: --format: '%s': tsv and csv expected\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'j':
			if (scalar_parse_u64(optarg, &v, &why) || v < 1 || v > 4096) {
				fprintf(stderr, "rematsim sweep: --jobs: '%s': a number from 1 to 4096 is expected\n",
					optarg);
				return EXIT_USAGE;
			}
			so->jobs = (unsigned)v;
			break;
		case 's':
			if (parse_shard(optarg, &so->shard, &so->n_shards)) {
				fprintf(stderr, "rematsim sweep: --shard: '%s': I/N with 1 <= I <= N is expected\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'n':
			a->dry_run = true;
			break;
		case 'q':
			so->quiet = true;
			break;
		case 'S':
			if (scalar_parse_u64(optarg, &v, &why)) {
				fprintf(stderr, "rematsim sweep: --stop-after: %s\n", why);
				return EXIT_USAGE;
			}
			so->stop_after = (long)v;
			break;
		case 'F':
			if (scalar_parse_double(optarg, &a->fit_res, &why) || !(a->fit_res > 0 && a->fit_res <= 1)) {
				fprintf(stderr, "rematsim sweep: --fit: '%s': a resolution in (0,1] is expected\n",
					optarg);
				return EXIT_USAGE;
			}
			/* the grid it makes for a peak at the baseline: refused now,
			 * not once every point has run */
			if (1 / a->fit_res > FIT_MAX_GRID) {
				fprintf(stderr, "rematsim sweep: --fit: %s makes more than %d grid points "
						"from a bound to the peak: take a coarser one\n", optarg,
					FIT_MAX_GRID);
				return EXIT_USAGE;
			}
			break;
		case 'h':
			sweep_usage(stdout);
			return -1;
		default:
			sweep_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		sweep_usage(stderr);
		return EXIT_USAGE;
	}
	if (a->fit_res > 0 && so->n_shards > 1) {
		fprintf(stderr, "rematsim sweep: --fit runs unsharded (or run `rematsim fit` per model)\n");
		return EXIT_USAGE;
	}
	return 0;
}

/* --fit: fit.tsv beside points.tsv in out; the status. */
static int sweep_fit(const struct experiment *e, const struct sweep_cli *a, const char *out)
{
	/* every pair that could be searched is written, whatever the
	 * others (each left out is named); the status is the first's */
	struct rs_error err = {0};
	char *text;
	size_t len;
	int status = 0;
	int frc = fit_experiment_tsv(e, a->fit_res, a->so.jobs, &text, &len, &err);
	struct rs_error werr = {0};
	if (write_file_atomic(out, "fit.tsv", text, len, true, &werr)) {
		rs_error_print(&werr);
		status = werr.status;
	} else if (frc) {
		status = err.status ? err.status : EXIT_SOFTWARE;
	}
	free(text);
	return status;
}

/* rematsim sweep: parse, read the experiment, run its points (or count
 * them), write the results. */
int cmd_sweep(int argc, char **argv)
{
	struct sweep_cli a = {.so = {.jobs = pool_default_jobs(), .shard = 1, .n_shards = 1}};
	int prc = sweep_parse(argc, argv, &a);
	if (prc)
		return prc < 0 ? 0 : prc;
	struct sweep_options so = a.so;
	const char *out = a.out;
	struct rs_error err = {0};
	struct experiment *e = NULL;
	char *out_default = NULL;
	char *cmdline = NULL;
	int status = 0;
	if (experiment_read(argv[optind], &e, &err) ||
	    ((a.manifest || a.models) && experiment_set_models(e, a.manifest, a.models, &err))) {
		if (err.status == EXIT_USAGE && !err.file[0])
			fprintf(stderr, "rematsim sweep: %s\n", err.msg);
		else
			rs_error_print(&err);
		experiment_free(e);
		return err.status ? err.status : EXIT_DATAERR;
	}
	size_t total = experiment_n_points(e);
	if (a.dry_run) {
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
	if (a.cache && !(so.cache = pcache_open(a.cache, &err))) {
		rs_error_print(&err);
		status = err.status;
		goto out;
	}
	cmdline = command_line(argc, argv);
	so.command_line = cmdline;
	if (sweep_check_output(out, &err) || experiment_load(e, so.jobs, &err) ||
	    (!a.force && other_results(out, e, &err)) || sweep_run(e, &so, &err) ||
	    (a.csv && write_csvs(out, &err))) {
		rs_error_print(&err);
		status = err.status ? err.status : EXIT_SOFTWARE;
		goto out;
	}
	if (a.fit_res > 0 && (status = sweep_fit(e, &a, out)))
		goto out;
	if (!so.quiet)
		fprintf(stderr, "rematsim: %s: results in %s/points.tsv%s\n", e->name, out,
			a.fit_res > 0 ? " and fit.tsv" : "");
	if (!so.quiet && so.cache) {
		uint64_t hits, stored;
		pcache_counts(so.cache, &hits, &stored);
		fprintf(stderr, "rematsim: %s: %" PRIu64 " replays taken from the cache %s, %" PRIu64
				" stored there\n", e->name, hits, a.cache, stored);
	}
out:
	pcache_free(so.cache);
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
	/* an option with a value given twice is refused (cmd_opts.h) */
	if (opt_refuse_repeats("merge", argc, argv, "o:h", opts, NULL))
		return EXIT_USAGE;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg) {
				fprintf(stderr, "rematsim %s: --out: an empty name is no folder\n", argv[0]);
				return EXIT_USAGE;
			}
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
