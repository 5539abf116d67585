/*
 * cmd_bench.c: `rematsim bench`, the speed check against the reference
 * simulator: for every (log, heuristic, runtime) of the reference files,
 * read the log, run the baseline and the file's ratios on one thread, and
 * compare with the reference's wall time (which also includes parsing).
 * Each row also says whether every point matched the reference's outcome,
 * overhead, remat compute and evaluations.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <jansson.h>

#include "cmd.h"
#include "heuristics.h"
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
	"time, and whether the numbers matched. Ends with the peak resident memory.\n";

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int cmd_bench(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"shared", required_argument, NULL, 'd'},
		{"heuristic", required_argument, NULL, 'H'},
		{"log", required_argument, NULL, 'l'},
		{"repeat", required_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--scale"))
			return bench_scale(argc, argv);
	const char *shared = getenv("REMATSIM_SHARED");
	const char *only_h = NULL, *only_log = NULL;
	int repeat = 1;
	if (!shared || !*shared)
		shared = "../shared";
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': shared = optarg; break;
		case 'H': only_h = optarg; break;
		case 'l': only_log = optarg; break;
		case 'n':
			repeat = atoi(optarg);
			if (repeat < 1) {
				fprintf(stderr, "rematsim bench: --repeat wants a positive count\n");
				return EXIT_USAGE;
			}
			break;
		case 'h': fputs(bench_help, stdout); return 0;
		default:
			fprintf(stderr, "rematsim bench: bad option '%s'\n", argv[optind - 1]);
			fputs(bench_help, stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fputs(bench_help, stderr);
		return EXIT_USAGE;
	}
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/reference", shared);
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "rematsim bench: cannot open %s: %s\n", dir, strerror(errno));
		return EXIT_NOINPUT;
	}
	char *files[256];
	size_t n_files = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n_files < 256) {
		size_t len = strlen(e->d_name);
		if (len > 5 && !strcmp(e->d_name + len - 5, ".json")) {
			files[n_files] = xmalloc(strlen(dir) + len + 2);
			sprintf(files[n_files++], "%s/%s", dir, e->d_name);
		}
	}
	closedir(d);
	qsort(files, n_files, sizeof files[0], cmp_str);

	printf("%-12s %-16s %-17s %9s %9s %9s %8s %8s %s\n", "log", "heuristic", "runtime", "ours_ms",
	       "cpu_ms", "ref_s", "speedup", "+read", "numbers");
	int status = 0;
	double worst = INFINITY;
	for (size_t f = 0; f < n_files; f++) {
		json_t *ref = json_load_file(files[f], 0, NULL);
		json_t *runs = ref ? json_object_get(ref, "runs") : NULL;
		const char *log = runs ? json_string_value(json_object_get(ref, "log")) : NULL;
		if (!json_is_array(runs) || !log || (only_log && !strstr(log, only_log))) {
			json_decref(ref);
			continue;
		}
		char path[8192];
		snprintf(path, sizeof path, "%s/dtr-logs/%s.gz", shared, log);
		struct schedule *s;
		struct rs_error err;
		struct read_options ro = {0};
		double read_s = INFINITY;
		for (int r = 0; r < repeat; r++) {
			double w0 = now_seconds();
			if (schedule_read(path, &ro, &s, &err) < 0) {
				rs_error_print(&err);
				return err.status;
			}
			double w = now_seconds() - w0;
			if (w < read_s)
				read_s = w;
			if (r + 1 < repeat)
				schedule_free(s);
		}
		char short_log[13];
		snprintf(short_log, sizeof short_log, "%s", log);
		printf("%-12s %-16s %-17s %9.1f\n", short_log, "(read the log)", "", read_s * 1e3);
		size_t i;
		json_t *run;
		json_array_foreach(runs, i, run) {
			const char *hname = json_string_value(json_object_get(run, "heuristic"));
			const char *rname = json_string_value(json_object_get(run, "runtime"));
			const struct heuristic *h = heuristic_find(hname ? hname : "");
			enum runtime_kind rk;
			if (!h || runtime_kind_parse(rname ? rname : "", &rk)) {
				fprintf(stderr, "rematsim bench: %s: unknown heuristic or runtime\n", files[f]);
				status = EXIT_DATAERR;
				continue;
			}
			if (only_h && strcmp(only_h, hname))
				continue;
			double ref_s = json_number_value(json_object_get(run, "reference_seconds"));
			double limit = json_number_value(json_object_get(run, "overhead_limit"));
			json_t *points = json_object_get(run, "points");
			double best_wall = INFINITY, best_cpu = INFINITY;
			bool same = true;
			for (int r = 0; r < repeat; r++) {
				double w0 = now_seconds(), c0 = cpu_seconds();
				struct baseline b;
				baseline_run(s, &b);
				size_t j;
				json_t *pt;
				json_array_foreach(points, j, pt) {
					struct point_config pc = {
						.heuristic = h, .runtime = rk, .overhead_limit = limit,
						.ratio = json_number_value(json_object_get(pt, "ratio")),
					};
					struct point_result pr;
					if (point_run(s, &b, &pc, &pr, &err)) {
						fprintf(stderr, "rematsim bench: %s\n", err.msg);
						return err.status;
					}
					double ov = json_number_value(json_object_get(pt, "overhead"));
					same &= !strcmp(outcome_name(pr.run.outcome),
							json_string_value(json_object_get(pt, "outcome")));
					same &= fabs(pr.overhead - ov) <= 1e-9 * fabs(ov);
					same &= pr.run.remat_compute == json_integer_value(json_object_get(pt, "remat_compute"));
					same &= pr.run.heuristic_evals ==
						(uint64_t)json_integer_value(json_object_get(pt, "heuristic_evals"));
				}
				double w = now_seconds() - w0, cp = cpu_seconds() - c0;
				if (w < best_wall)
					best_wall = w;
				if (cp < best_cpu)
					best_cpu = cp;
			}
			double speedup = ref_s / best_wall;
			if (ref_s > 1 && speedup < worst)
				worst = speedup;
			printf("%-12s %-16s %-17s %9.1f %9.1f %9.3f %7.0fx %7.0fx %s\n", short_log, hname, rname,
			       best_wall * 1e3, best_cpu * 1e3, ref_s, speedup, ref_s / (best_wall + read_s),
			       same ? "same" : "DIFFERENT");
			fflush(stdout);
		}
		schedule_free(s);
		json_decref(ref);
	}
	for (size_t f = 0; f < n_files; f++)
		free(files[f]);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	if (isfinite(worst))
		printf("worst speedup (without read) where the reference took over 1 s: %.0fx\n", worst);
	printf("peak resident memory: %.1f MB\n", (double)ru.ru_maxrss / 1024.0);
	return status;
}
