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
#include "runtime-test.h"
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
			struct runtime_test_switches sw = {.plain_regions = mode == PLAIN_REGIONS,
							   .plain_scans = mode == PLAIN_SCANS};
			struct point_config pc = {
				.rt.heuristic = run->heuristic, .rt.runtime = run->runtime,
				.ratio = run->points[j].ratio,
				.overhead_limit = run->overhead_limit, .rt.check = true,
				.rt.test = &sw,
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

/* Logs of 4,097 to 8,192 storages start on runs and switch to bitsets
 * where their work is what bitsets do cheaply (runtime-state.h,
 * RUNS_SWITCH_INTERIOR): the Unrolled GAN (5,302 storages) early in its
 * backward pass (at 0.8 to 1.0 of its peak memory under DTR, MSPS and
 * AbESize); the LSTM and the TreeLSTM never (at 0.3, the TreeLSTM's
 * rebuilds keep pace with its absorbs: RUNS_SWITCH_REBUILDS). Speed only: the numbers are the
 * reference's either way (above). */
START_TEST(switch_by_cost)
{
	static const struct {
		const char *member;
		size_t lo, hi; /* the switch within [lo, hi], or none (0, 0) */
	} logs[] = {
		{"logs/unroll_gan-512-10000000000.0-2020-10-1-18-43-42-default.log", 10000, 12000},
		{"logs/lstm-128-11000000000.0-2020-10-1-16-38-52-default.log", 0, 0},
		{"logs/treelstm-6-8000000000.0-2020-10-1-12-54-1-default.log", 0, 0},
	};
	static const char *names[] = {"DTR", "MSPS", "AbESize"};
	static const double ratios[] = {0.3, 0.8, 0.9, 1.0};
	char zip[4096], spec[8192];
	shared_path(zip, sizeof zip, "dtr-logs/logs.zip");
	for (size_t l = 0; l < sizeof logs / sizeof logs[0]; l++) {
		snprintf(spec, sizeof spec, "%s:%s", zip, logs[l].member);
		struct read_options opt = {0};
		struct schedule *s;
		struct rs_error err;
		ck_assert_msg(schedule_read(spec, &opt, &s, &err) == 0, "%s: %s", spec, err.msg);
		ck_assert_uint_gt(s->n_storages, 4096);
		struct baseline b;
		baseline_run(s, &b);
		for (size_t h = 0; h < sizeof names / sizeof names[0]; h++) {
			for (size_t r = 0; r < sizeof ratios / sizeof ratios[0]; r++) {
				double ratio = ratios[r];
				if (logs[l].hi && ratio < 0.8)
					continue;
				struct point_config pc = {
					.rt.heuristic = heuristic_find(names[h]),
					.rt.runtime = RUNTIME_V2_EAGER_OPTIMIZED, .ratio = ratio, .overhead_limit = 2,
				};
				struct point_result pr, again;
				s->regions_to_bits = 0; /* each replay decides for itself */
				ck_assert_int_eq(point_run(s, &b, &pc, &pr, &err), 0);
				size_t at = pr.run.regions_bits_at;
				ck_assert_msg(at >= logs[l].lo && at <= logs[l].hi,
					      "%s, %s at %.1f: switched to bitsets after command %zu, not in [%zu, %zu]",
					      logs[l].member, names[h], ratio, at, logs[l].lo, logs[l].hi);
				/* A switch sends the schedule's later replays to bitsets
				 * from the start: the same numbers, no switch. */
				ck_assert_uint_eq(s->regions_to_bits, at > 0);
				if (!at)
					continue;
				ck_assert_int_eq(point_run(s, &b, &pc, &again, &err), 0);
				ck_assert_uint_eq(again.run.regions_bits_at, 0);
				const struct runtime_result *x = &pr.run, *y = &again.run;
				ck_assert_msg(same_run(x, y),
					      "%s, %s at %.1f: on bitsets from the start, other numbers",
					      logs[l].member, names[h], ratio);
			}
		}
		schedule_free(s);
	}
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
	TCase *sw = tcase_create("switch");
	tcase_set_timeout(sw, 300);
	tcase_add_test(sw, switch_by_cost);
	suite_add_tcase(s, sw);
	return run_suite(s);
}
