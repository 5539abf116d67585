/*
 * test-reference.c: exactness against the reference simulator. For every
 * log, (heuristic, runtime) and ratio in the reference JSON files:
 * same outcome, overhead within 1e-9 relative, same remat compute, same
 * number of heuristic evaluations, and the baseline's four numbers. All
 * runs in check mode. Metadata accesses must match exactly too, except for
 * the union-find (EqClass) heuristics: there the reference merges classes
 * in the iteration order of a Python set of objects, which follows memory
 * addresses; those are held to 1% and reported. The region heuristics
 * again on plain regions, and the heuristics the runtime scans by key
 * again by their plain loops. Skipped (77) without ../shared.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heuristics.h"
#include "reference.h"
#include "runtime.h"
#include "test-common.h"

static int n_files;

/* How a file's runs are replayed: as they come; the region heuristics on
 * the list-and-walk path that large logs take (plain_regions); the
 * heuristics whose rows name a key of the pool by their plain scoring
 * loop, each member's exact cost, not the runtime's key scans
 * (plain_scans). */
enum mode { AS_IS, PLAIN_REGIONS, PLAIN_SCANS };

/* Check every run of one reference file that the mode replays. The
 * comparison rule is reference.h's, which `rematsim bench` uses too. */
static void check_file(const char *path, enum mode mode)
{
	struct ref_file *ref;
	struct rs_error err;
	int rc = reference_read(path, &ref, &err);
	ck_assert_msg(rc >= 0, "%s: %s", path, err.msg);
	if (rc > 0) /* another kind of reference file */
		return;
	n_files++;
	char rel[1024], logpath[4096], why[512];
	snprintf(rel, sizeof rel, "dtr-logs/%s.gz", ref->log);
	shared_path(logpath, sizeof logpath, rel);

	struct read_options opt = {0};
	struct schedule *s;
	ck_assert_msg(schedule_read(logpath, &opt, &s, &err) == 0, "%s: %s", logpath, err.msg);
	struct baseline b;
	baseline_run(s, &b);
	ck_assert_msg(reference_baseline_matches(ref, &b, why, sizeof why), "%s", why);

	for (size_t i = 0; i < ref->n_runs; i++) {
		const struct ref_run *run = &ref->runs[i];
		ck_assert_msg(run->heuristic != NULL, "unknown heuristic %s", run->heuristic_name);
		ck_assert_msg(run->runtime_known, "unknown runtime %s", run->runtime_name);
		if ((mode == PLAIN_REGIONS && !(run->heuristic->needs & NEEDS_REGIONS)) ||
		    (mode == PLAIN_SCANS && run->heuristic->key == SCAN_NONE))
			continue;
		uint64_t acc_ours = 0, acc_ref = 0;
		int acc_diff = 0;
		for (size_t j = 0; j < run->n_points; j++) {
			struct point_config pc = {
				.heuristic = run->heuristic, .runtime = run->runtime,
				.ratio = run->points[j].ratio,
				.overhead_limit = run->overhead_limit, .check = true,
				.plain_regions = mode == PLAIN_REGIONS,
				.plain_scans = mode == PLAIN_SCANS,
			};
			struct point_result pr;
			ck_assert_int_eq(point_run(s, &b, &pc, &pr, &err), 0);
			bool differ;
			ck_assert_msg(reference_point_matches(run, &run->points[j], &pr, &differ,
							      why, sizeof why),
				      "%s %s", ref->log, why);
			acc_ours += pr.run.heuristic_accesses;
			acc_ref += run->points[j].heuristic_accesses;
			acc_diff += differ;
		}
		printf("%-14.14s %-16s %-17s%s match%s", ref->log, run->heuristic_name,
		       run->runtime_name,
		       mode == PLAIN_REGIONS ? " (plain regions)" : mode == PLAIN_SCANS ? " (plain scans)" : "",
		       acc_diff ? "" : " (accesses too)\n");
		if (acc_diff)
			printf(" (accesses differ at %d ratios: %llu vs %llu in all, %+.3f%%)\n", acc_diff,
			       (unsigned long long)acc_ours, (unsigned long long)acc_ref,
			       100.0 * ((double)acc_ours - (double)acc_ref) / (double)acc_ref);
	}
	schedule_free(s);
	reference_free(ref);
}

static int reference_files(char **names, int cap)
{
	char dir[4096];
	shared_path(dir, sizeof dir, "reference");
	int n = reference_list(dir, names, cap);
	ck_assert_msg(n >= 0, "cannot open %s", dir);
	return n;
}

START_TEST(reference)
{
	char *names[64];
	int n = reference_files(names, 64);
	for (int i = 0; i < n; i++) {
		check_file(names[i], AS_IS);
		free(names[i]);
	}
	ck_assert_int_gt(n_files, 0);
}
END_TEST

START_TEST(reference_plain_regions)
{
	char *names[64];
	int n = reference_files(names, 64);
	for (int i = 0; i < n; i++) {
		check_file(names[i], PLAIN_REGIONS);
		free(names[i]);
	}
	ck_assert_int_gt(n_files, 0);
}
END_TEST

START_TEST(reference_plain_scans)
{
	char *names[64];
	int n = reference_files(names, 64);
	for (int i = 0; i < n; i++) {
		check_file(names[i], PLAIN_SCANS);
		free(names[i]);
	}
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
	tcase_add_test(tc, reference_plain_scans);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
