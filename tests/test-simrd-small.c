/*
 * test-simrd-small.c: exactness on 40 small random logs
 * (tests/data/small/, DAGs with multi-argument ops, views, two-result ops
 * and releases) for every deterministic heuristic on every runtime that
 * accepts it, against simrd's own numbers (tests/data/simrd-small.tsv,
 * whose header says how they were made). Small graphs reach rules that the
 * large logs meet rarely or never (an absorbed storage already inside the
 * region, V1's last-access rule, ties), so one-line changes to them fail
 * here, without ../shared. Every run is in check mode; clock, remat
 * compute, evaluations, accesses (EqClass within 1%, docs/semantics.md)
 * and peak memory must match.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heuristics.h"
#include "runtime.h"
#include "test-common.h"

struct row {
	char log[64], heuristic[32], runtime[32], outcome[8];
	double ratio;
	unsigned long long budget, evals, accesses, peak, base_memory;
	long long clock, remat, base_compute;
};

static int parse_row(const char *line, struct row *r)
{
	return sscanf(line, "%63[^\t]\t%31[^\t]\t%31[^\t]\t%lf\t%llu\t%7[^\t]\t%lld\t%lld\t%llu\t%llu\t%llu\t%llu\t%lld",
		      r->log, r->heuristic, r->runtime, &r->ratio, &r->budget, r->outcome, &r->clock,
		      &r->remat, &r->evals, &r->accesses, &r->peak, &r->base_memory,
		      &r->base_compute) == 13 ? 0 : -1;
}

START_TEST(small_logs)
{
	const char *src = getenv("REMATSIM_SOURCE");
	ck_assert_msg(src != NULL, "REMATSIM_SOURCE is not set");
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/data/simrd-small.tsv", src);
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	char line[1024], cur[64] = "";
	struct schedule *s = NULL;
	struct baseline b;
	int points = 0, logs = 0;
	bool header = true;
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '#')
			continue;
		if (header) {
			header = false;
			continue;
		}
		struct row r;
		ck_assert_msg(parse_row(line, &r) == 0, "%s: cannot read: %s", path, line);
		if (strcmp(cur, r.log)) {
			if (s)
				schedule_free(s);
			char logpath[4096];
			snprintf(logpath, sizeof logpath, "%s/tests/data/small/%s", src, r.log);
			struct read_options opt = {0};
			struct rs_error err;
			ck_assert_msg(schedule_read(logpath, &opt, &s, &err) == 0, "%s: %s", logpath, err.msg);
			baseline_run(s, &b);
			ck_assert_msg(b.memory == r.base_memory && b.compute == r.base_compute,
				      "%s: baseline %llu bytes %lld ns, simrd %llu bytes %lld ns", r.log,
				      (unsigned long long)b.memory, (long long)b.compute, r.base_memory,
				      r.base_compute);
			snprintf(cur, sizeof cur, "%s", r.log);
			logs++;
		}
		const struct heuristic *h = heuristic_find(r.heuristic);
		enum runtime_kind rk;
		ck_assert_msg(h != NULL, "unknown heuristic %s", r.heuristic);
		ck_assert_msg(runtime_kind_parse(r.runtime, &rk) == 0, "unknown runtime %s", r.runtime);
		struct point_config pc = {
			.rt.heuristic = h, .rt.runtime = rk, .ratio = r.ratio, .overhead_limit = 3, .rt.check = true,
		};
		struct point_result pr;
		struct rs_error err;
		ck_assert_msg(point_run(s, &b, &pc, &pr, &err) == 0, "%s %s %s: %s", r.log, r.heuristic,
			      r.runtime, err.msg);
		char at[160];
		snprintf(at, sizeof at, "%s %s %s %.1f", r.log, r.heuristic, r.runtime, r.ratio);
		ck_assert_msg(pr.budget == r.budget, "%s: budget %llu, simrd %llu", at,
			      (unsigned long long)pr.budget, r.budget);
		ck_assert_msg(!strcmp(outcome_name(pr.run.outcome), r.outcome), "%s: outcome %s, simrd %s",
			      at, outcome_name(pr.run.outcome), r.outcome);
		ck_assert_msg(pr.run.clock == r.clock, "%s: clock %lld, simrd %lld", at,
			      (long long)pr.run.clock, r.clock);
		ck_assert_msg(pr.run.remat_compute == r.remat, "%s: remat compute %lld, simrd %lld", at,
			      (long long)pr.run.remat_compute, r.remat);
		ck_assert_msg(pr.run.heuristic_evals == r.evals, "%s: evaluations %llu, simrd %llu", at,
			      (unsigned long long)pr.run.heuristic_evals, r.evals);
		ck_assert_msg(pr.run.peak_memory == r.peak, "%s: peak memory %llu, simrd %llu", at,
			      (unsigned long long)pr.run.peak_memory, r.peak);
		if (pr.run.heuristic_accesses != r.accesses)
			ck_assert_msg((h->needs & NEEDS_EQCLASS) &&
					      fabs((double)pr.run.heuristic_accesses - (double)r.accesses) <=
						      0.01 * (double)r.accesses + 2,
				      "%s: accesses %llu, simrd %llu", at,
				      (unsigned long long)pr.run.heuristic_accesses, r.accesses);
		points++;
	}
	fclose(f);
	if (s)
		schedule_free(s);
	ck_assert_int_eq(logs, 40);
	printf("%d points on %d small random logs match simrd\n", points, logs);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("simrd-small");
	TCase *tc = tcase_create("simrd-small");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, small_logs);
	suite_add_tcase(su, tc);
	return run_suite(su);
}
