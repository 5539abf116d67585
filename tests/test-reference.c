/*
 * test-reference.c: exactness against the reference simulator. For every
 * log, (heuristic, runtime) and ratio in the reference JSON files:
 * same outcome, overhead within 1e-9 relative, same remat compute, same
 * number of heuristic evaluations, and the baseline's four numbers. All
 * runs in check mode. Metadata accesses must match exactly too, except for
 * the union-find (EqClass) heuristics: there the reference merges classes
 * in the iteration order of a Python set of objects, which follows memory
 * addresses; those are held to 1% and reported. Skipped (77) without
 * ../shared.
 */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "heuristics.h"
#include "runtime.h"
#include "test-common.h"

static int n_files;

/* Check every run of one reference file; with plain_regions, only the
 * region heuristics, on the list-and-walk path that large logs take. */
static void check_file(const char *path, bool plain_regions)
{
	json_error_t jerr;
	json_t *ref = json_load_file(path, 0, &jerr);
	ck_assert_msg(ref != NULL, "%s: %s", path, jerr.text);
	json_t *runs = json_object_get(ref, "runs");
	if (!json_is_array(runs)) { /* another kind of reference file */
		json_decref(ref);
		return;
	}
	n_files++;
	const char *log = json_string_value(json_object_get(ref, "log"));
	char rel[1024], logpath[4096];
	snprintf(rel, sizeof rel, "dtr-logs/%s.gz", log);
	shared_path(logpath, sizeof logpath, rel);

	struct read_options opt = {0};
	struct schedule *s;
	struct rs_error err;
	ck_assert_msg(schedule_read(logpath, &opt, &s, &err) == 0, "%s: %s", logpath, err.msg);
	struct baseline b;
	baseline_run(s, &b);
	ck_assert_uint_eq(b.memory, json_integer_value(json_object_get(ref, "baseline_memory")));
	ck_assert_int_eq(b.compute, json_integer_value(json_object_get(ref, "baseline_compute")));
	ck_assert_uint_eq(b.const_memory, json_integer_value(json_object_get(ref, "const_memory")));
	ck_assert_uint_eq(b.bottleneck_memory, json_integer_value(json_object_get(ref, "bottleneck_memory")));

	size_t i;
	json_t *run;
	json_array_foreach(runs, i, run) {
		const char *hname = json_string_value(json_object_get(run, "heuristic"));
		const char *rname = json_string_value(json_object_get(run, "runtime"));
		const struct heuristic *h = heuristic_find(hname);
		enum runtime_kind rk;
		ck_assert_msg(h != NULL, "unknown heuristic %s", hname);
		if (plain_regions && !(h->needs & NEEDS_REGIONS))
			continue;
		ck_assert_msg(runtime_kind_parse(rname, &rk) == 0, "unknown runtime %s", rname);
		double limit = json_number_value(json_object_get(run, "overhead_limit"));
		uint64_t acc_ours = 0, acc_ref = 0;
		int acc_diff = 0;
		size_t j;
		json_t *pt;
		json_array_foreach(json_object_get(run, "points"), j, pt) {
			struct point_config pc = {
				.heuristic = h, .runtime = rk,
				.ratio = json_number_value(json_object_get(pt, "ratio")),
				.overhead_limit = limit, .check = true,
				.plain_regions = plain_regions,
			};
			struct point_result pr;
			ck_assert_int_eq(point_run(s, &b, &pc, &pr, &err), 0);
			double ratio = pc.ratio;
			ck_assert_msg(pr.budget == (uint64_t)json_integer_value(json_object_get(pt, "budget")),
				      "%s %s %s %.1f: budget", log, hname, rname, ratio);
			const char *out = json_string_value(json_object_get(pt, "outcome"));
			ck_assert_msg(!strcmp(outcome_name(pr.run.outcome), out), "%s %s %s %.1f: outcome %s, reference %s",
				      log, hname, rname, ratio, outcome_name(pr.run.outcome), out);
			double ov = json_number_value(json_object_get(pt, "overhead"));
			ck_assert_msg(fabs(pr.overhead - ov) <= 1e-9 * fabs(ov), "%s %s %s %.1f: overhead %.17g, reference %.17g",
				      log, hname, rname, ratio, pr.overhead, ov);
			ck_assert_msg(pr.run.remat_compute == json_integer_value(json_object_get(pt, "remat_compute")),
				      "%s %s %s %.1f: remat compute", log, hname, rname, ratio);
			ck_assert_msg(pr.run.heuristic_evals == (uint64_t)json_integer_value(json_object_get(pt, "heuristic_evals")),
				      "%s %s %s %.1f: evaluations %llu, reference %lld", log, hname, rname, ratio,
				      (unsigned long long)pr.run.heuristic_evals,
				      (long long)json_integer_value(json_object_get(pt, "heuristic_evals")));
			uint64_t ra = (uint64_t)json_integer_value(json_object_get(pt, "heuristic_accesses"));
			acc_ours += pr.run.heuristic_accesses;
			acc_ref += ra;
			if (pr.run.heuristic_accesses != ra) {
				acc_diff++;
				ck_assert_msg(h->needs & NEEDS_EQCLASS, "%s %s %s %.1f: accesses %llu, reference %llu",
					      log, hname, rname, ratio, (unsigned long long)pr.run.heuristic_accesses,
					      (unsigned long long)ra);
				ck_assert_msg(fabs((double)pr.run.heuristic_accesses - (double)ra) <= 0.01 * (double)ra,
					      "%s %s %s %.1f: accesses %llu, reference %llu (over 1%%)", log, hname,
					      rname, ratio, (unsigned long long)pr.run.heuristic_accesses,
					      (unsigned long long)ra);
			}
		}
		printf("%-14.14s %-16s %-17s%s match%s", log, hname, rname,
		       plain_regions ? " (plain regions)" : "", acc_diff ? "" : " (accesses too)\n");
		if (acc_diff)
			printf(" (accesses differ at %d ratios: %llu vs %llu in all, %+.3f%%)\n", acc_diff,
			       (unsigned long long)acc_ours, (unsigned long long)acc_ref,
			       100.0 * ((double)acc_ours - (double)acc_ref) / (double)acc_ref);
	}
	schedule_free(s);
	json_decref(ref);
}

static int reference_files(char names[][4096 + 256 + 8], int cap)
{
	char dir[4096];
	shared_path(dir, sizeof dir, "reference");
	DIR *d = opendir(dir);
	ck_assert_msg(d != NULL, "cannot open %s", dir);
	struct dirent *e;
	int n = 0;
	while ((e = readdir(d)) && n < cap) {
		size_t len = strlen(e->d_name);
		if (len > 5 && !strcmp(e->d_name + len - 5, ".json"))
			snprintf(names[n++], sizeof names[0], "%s/%s", dir, e->d_name);
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
	return n;
}

START_TEST(reference)
{
	static char names[64][4096 + 256 + 8];
	int n = reference_files(names, 64);
	for (int i = 0; i < n; i++)
		check_file(names[i], false);
	ck_assert_int_gt(n_files, 0);
}
END_TEST

START_TEST(reference_plain_regions)
{
	static char names[64][4096 + 256 + 8];
	int n = reference_files(names, 64);
	for (int i = 0; i < n; i++)
		check_file(names[i], true);
	ck_assert_int_gt(n_files, 0);
}
END_TEST

int main(void)
{
	if (!shared_dir()) {
		fprintf(stderr, "no shared data (../shared): skipped\n");
		return EXIT_SKIP;
	}
	Suite *s = suite_create("reference");
	TCase *tc = tcase_create("reference");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, reference);
	tcase_add_test(tc, reference_plain_regions);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
