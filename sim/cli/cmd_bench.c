/*
 * cmd_bench.c: `rematsim bench`, the speed check against the reference
 * simulator: for every (log, heuristic, runtime) of the reference files,
 * read the log, run the baseline and the file's ratios on one thread, and
 * compare with the reference's wall time (which also includes parsing).
 * Each row also says whether every point matched the reference by the
 * rule of reference.h (the reference test's rule); any mismatch makes the
 * command exit 70, since it is a bug of ours.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>

#include "cmd.h"
#include "cmd_opts.h"
#include "heuristics.h"
#include "reference.h"
#include "runtime.h"
#include "schedule.h"
#include "util.h"

static const char bench_help[] =
	"usage: rematsim bench [--shared DIR] [--heuristic H] [--log SUBSTRING] [--repeat N]\n"
	"       rematsim bench --scale [...]   (log sizes: see rematsim bench --scale --help)\n"
	"\n"
	"Time the replay of each reference log at the reference ratios for each\n"
	"(heuristic, runtime) of DIR/reference/*.json (logs in DIR/dtr-logs; DIR\n"
	"defaults to $REMATSIM_SHARED, else ../shared). Each log is read once (its\n"
	"read time is shown on its own line); per row: our wall and CPU time for the\n"
	"baseline and all ratios on one thread (best of N repeats), the reference's\n"
	"seconds (which include its parsing), the speedup without and with our read\n"
	"time, and whether the numbers matched. Ends with the peak resident memory.\n"
	"--heuristic H keeps that heuristic's rows, --log the logs whose name holds\n"
	"SUBSTRING; --repeat N is 1 (the default) to 1000.\n"
	"\n"
	"Exit status: 0 when every number matched the reference; 70 when some\n"
	"differ (a bug: please report it); 64 for an unknown heuristic or a\n"
	"selection that matches no reference run; 66 without the reference data.\n";

/* Repeats of each row, at most: each is a whole pass over the reference
 * logs, so more would only run for days. */
#define BENCH_MAX_REPEAT 1000

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cmd_bench(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"shared", required_argument, NULL, 'd'},
		OPT_ROW_HEURISTIC,
		{"log", required_argument, NULL, 'l'},
		{"repeat", required_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--scale"))
			return bench_scale(argc, argv);
	const char *shared = getenv("REMATSIM_SHARED");
	const char *only_log = NULL;
	int repeat = 1;
	if (!shared || !*shared)
		shared = "../shared";
	struct opt_parser o;
	opt_init(&o, "bench", bench_help, 1);
	int c;
	while ((c = opt_next(&o, argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case OPT_FAIL: return o.status;
		case 'd': shared = optarg; break;
		case 'l': only_log = optarg; break;
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
	if (optind != argc) {
		fputs(bench_help, stderr);
		return EXIT_USAGE;
	}
	if (opt_resolve(&o, OPT_NO_RUNTIME))
		return EXIT_USAGE;
	const char *only_h = o.hname;
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/reference", shared);
	char *files[256];
	int n_files = reference_list(dir, files, 256);
	if (n_files < 0) {
		fprintf(stderr, "rematsim bench: cannot open %s: %s\n", dir, strerror(errno));
		return EXIT_NOINPUT;
	}

	printf("%-12s %-16s %-17s %9s %9s %9s %8s %8s %s\n", "log", "heuristic", "runtime", "ours_ms",
	       "cpu_ms", "ref_s", "speedup", "+read", "numbers");
	int status = 0, n_rows = 0;
	double worst = INFINITY;
	char why[512];
	for (int f = 0; f < n_files && !status; f++) {
		struct ref_file *ref;
		struct rs_error err;
		int rc = reference_read(files[f], &ref, &err);
		if (rc < 0) {
			rs_error_print(&err);
			status = err.status;
			break;
		}
		if (rc > 0 || (only_log && !strstr(ref->log, only_log))) {
			reference_free(ref);
			continue;
		}
		char path[8192];
		snprintf(path, sizeof path, "%s/dtr-logs/%s.gz", shared, ref->log);
		struct schedule *s = NULL;
		struct read_options ro = {0};
		double read_s = INFINITY;
		for (int r = 0; r < repeat; r++) {
			if (s)
				schedule_free(s);
			double w0 = now_seconds();
			if (schedule_read(path, &ro, &s, &err) < 0) {
				rs_error_print(&err);
				reference_free(ref);
				status = err.status;
				goto done;
			}
			double w = now_seconds() - w0;
			if (w < read_s)
				read_s = w;
		}
		char short_log[13];
		snprintf(short_log, sizeof short_log, "%s", ref->log);
		printf("%-12s %-16s %-17s %9.1f\n", short_log, "(read the log)", "", read_s * 1e3);
		for (size_t i = 0; i < ref->n_runs; i++) {
			const struct ref_run *run = &ref->runs[i];
			if (!run->heuristic || !run->runtime_known) {
				fprintf(stderr, "rematsim bench: %s: unknown heuristic or runtime %s/%s\n",
					files[f], run->heuristic_name, run->runtime_name);
				status = EXIT_DATAERR;
				continue;
			}
			if (only_h && strcasecmp(only_h, run->heuristic_name))
				continue;
			double best_wall = INFINITY, best_cpu = INFINITY;
			bool same = true;
			for (int r = 0; r < repeat; r++) {
				double w0 = now_seconds(), c0 = cpu_seconds();
				struct baseline b;
				baseline_run(s, &b);
				same &= reference_baseline_matches(ref, &b, why, sizeof why);
				for (size_t j = 0; j < run->n_points; j++) {
					struct point_config pc = {
						.heuristic = run->heuristic, .runtime = run->runtime,
						.overhead_limit = run->overhead_limit,
						.ratio = run->points[j].ratio,
					};
					struct point_result pr;
					if (point_run(s, &b, &pc, &pr, &err)) {
						rs_error_print(&err);
						schedule_free(s);
						reference_free(ref);
						status = err.status;
						goto done;
					}
					bool acc_differ;
					if (!reference_point_matches(run, &run->points[j], &pr, &acc_differ,
								     why, sizeof why) && same) {
						fprintf(stderr, "rematsim bench: %s: %s\n", ref->log, why);
						same = false;
					}
				}
				double w = now_seconds() - w0, cp = cpu_seconds() - c0;
				if (w < best_wall)
					best_wall = w;
				if (cp < best_cpu)
					best_cpu = cp;
			}
			double ref_s = run->reference_seconds, speedup = ref_s / best_wall;
			if (ref_s > 1 && speedup < worst)
				worst = speedup;
			printf("%-12s %-16s %-17s %9.1f %9.1f %9.3f %7.0fx %7.0fx %s\n", short_log,
			       run->heuristic_name, run->runtime_name, best_wall * 1e3, best_cpu * 1e3, ref_s,
			       speedup, ref_s / (best_wall + read_s), same ? "same" : "DIFFERENT");
			fflush(stdout);
			n_rows++;
			if (!same && !status)
				status = EXIT_SOFTWARE;
		}
		schedule_free(s);
		reference_free(ref);
	}
done:
	for (int f = 0; f < n_files; f++)
		free(files[f]);
	if (!status && !n_rows) {
		fprintf(stderr, "rematsim bench: no reference run matched the selection\n");
		status = EXIT_USAGE;
	}
	if (status == EXIT_SOFTWARE)
		fprintf(stderr, "rematsim bench: numbers DIFFERENT from the reference simulator's: "
			"a bug, please report it\n");
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	if (isfinite(worst))
		printf("worst speedup (without read) where the reference took over 1 s: %.0fx\n", worst);
	printf("peak resident memory: %.1f MB\n", (double)ru.ru_maxrss / 1024.0);
	return status;
}
