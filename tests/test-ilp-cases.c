/*
 * test-ilp-cases.c: the table tests/data/ilp-cases.tsv (file, budget,
 * status, least recomputation): for each row, the ILP (CBC; with and
 * without its MIP start) and a brute force over every kept set of the
 * stages (each built by steps_build and costed by steps_eval) must both
 * give the row's answer. The cases hold what no other test did: a
 * constant made after the first stage (const-late.log) and graphs whose
 * nodes are listed out of id order with no graph.order. And the MIP
 * start: handed over (a point of the model) and never beaten by the
 * answer's cost. `test-ilp-cases print` prints the brute force's answers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ilp.h"
#include "lagrange.h"
#include "planners.h"
#include "profile.h"
#include "start.h"
#include "steps.h"
#include "test-common.h"

static bool print_mode;

#define MAXPAIRS 64
/* Past this many (stage, node) pairs the brute force is skipped (2^n sets). */
#define BRUTE_MAX 16

/* The least recomputation over every kept set that fits budget; -1 if none. */
static int64_t brute_force(const struct profile_graph *g, uint64_t budget)
{
	size_t T = g->n;
	uint32_t pt[64], pi[64];
	size_t np = 0;
	for (uint32_t i = 0; i < T; i++) {
		if (g->kind[i] != PGRAPH_OWN)
			continue;
		uint32_t reach = g->keep[i] ? (uint32_t)T : i;
		for (uint32_t e = g->succ_off[i]; e < g->succ_off[i + 1]; e++)
			if (g->succ[e] > reach)
				reach = g->succ[e];
		for (uint32_t t = i + 1; t <= reach && t <= T; t++) {
			ck_assert_uint_lt(np, MAXPAIRS);
			pt[np] = t;
			pi[np++] = i;
		}
	}
	if (np > BRUTE_MAX && !print_mode)
		return -2; /* too many: the table's answer stands alone */
	int64_t best = -1;
	struct steps_kept k = {.T = T};
	k.off = calloc(T + 2, sizeof *k.off);
	k.node = calloc(np + 1, sizeof *k.node);
	for (uint64_t mask = 0; mask < (UINT64_C(1) << np); mask++) {
		size_t n = 0;
		for (uint32_t t = 1; t <= T; t++) {
			k.off[t] = (uint32_t)n;
			for (size_t q = 0; q < np; q++) /* pairs come by i, then t */
				if (pt[q] == t && (mask >> q & 1))
					k.node[n++] = pi[q];
		}
		k.off[T + 1] = (uint32_t)n;
		/* ascending within a stage: pairs are listed by ascending i */
		struct plan_steps ps;
		struct steps_cost c;
		struct rs_error err = {0};
		ck_assert_int_eq(steps_build(g, &k, true, &ps, &err), 0);
		ck_assert_int_eq(steps_eval(g, &ps, &c, &err), 0);
		plan_steps_free(&ps);
		if (c.peak <= budget && (best < 0 || c.remat_compute < best))
			best = c.remat_compute;
	}
	free(k.off);
	free(k.node);
	return best;
}

START_TEST(table)
{
	const char *src = getenv("REMATSIM_SOURCE");
	char path[4096], line[512];
	snprintf(path, sizeof path, "%s/tests/data/ilp-cases.tsv", src ? src : ".");
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "%s", path);
	/* the whole table first: the solver's child processes (ilp-deadline.c)
	 * share the file's offset with this process */
	static char text[16384];
	size_t len = fread(text, 1, sizeof text - 1, f);
	text[len] = 0;
	fclose(f);
	int rows = 0;
	char *cursor = text;
	while (*cursor) {
		char *nl = strchr(cursor, '\n');
		size_t ll = nl ? (size_t)(nl - cursor) + 1 : strlen(cursor);
		ck_assert_uint_lt(ll, sizeof line);
		memcpy(line, cursor, ll);
		line[ll] = 0;
		cursor += ll;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		char file[256], status[32];
		unsigned long long budget;
		long long expected;
		ck_assert_int_eq(sscanf(line, "%255s %llu %31s %lld", file, &budget, status, &expected),
				 4);
		char lp[4096];
		snprintf(lp, sizeof lp, "%s/tests/data/ilp-cases/%s", src ? src : ".", file);
		struct read_options ro = {0};
		struct schedule *s;
		struct rs_error err = {0};
		ck_assert_msg(schedule_read(lp, &ro, &s, &err) == 0, "%s", err.msg);
		struct profile p;
		ck_assert_int_eq(profile_build(s, &p, &err), 0);
		ck_assert_int_eq(profile_graph_build(&p, &err), 0);
		int64_t bf = brute_force(p.graph, budget);
		if (print_mode) {
			printf("%s\t%llu\t%s\t%lld\n", file, budget, bf < 0 ? "infeasible" : "optimal",
			       (long long)(bf < 0 ? 0 : bf));
			profile_free(&p);
			schedule_free(s);
			rows++;
			continue;
		}
		if (bf != -2)
			ck_assert_msg(bf == -1 ? !strcmp(status, "infeasible")
					       : !strcmp(status, "optimal"),
				      "%s at %llu: brute force %lld, table %s", file, budget,
				      (long long)bf, status);
		bool infeasible = !strcmp(status, "infeasible");
		/* the Lagrangian bound never exceeds the optimum: with and without
		 * a target, pushed to many iterations */
		if (!infeasible)
			for (int up = 0; up < 2; up++) {
				struct lagrange_result lr;
				lagrange_bound(p.graph, budget, up ? (double)expected : -1, 5000, 0, &lr);
				ck_assert_msg(lr.bound <= (double)expected,
					      "%s at %llu: Lagrangian bound %g above the optimum %lld",
					      file, budget, lr.bound, expected);
				lagrange_result_free(&lr);
			}
		if (bf >= 0)
			ck_assert_msg(bf == expected, "%s at %llu: brute force %lld, table %lld", file,
				      budget, (long long)bf, expected);
		for (int no_start = 0; no_start < 2; no_start++) {
			struct planner_plan plan = {0};
			struct planner_args a = {.param = budget, .no_start = no_start};
			int rc = planner_plan(planner_find("ilp"), &p, &a, &plan, &err);
			if (rc && err.status == EXIT_UNAVAILABLE) {
				planner_plan_free(&plan);
				break; /* no solver built in: the brute force alone */
			}
			if (infeasible) {
				ck_assert_int_eq(rc, -1);
				ck_assert_int_eq(err.status, EXIT_DATAERR);
			} else {
				ck_assert_msg(rc == 0, "%s at %llu: %s", file, budget, err.msg);
				ck_assert_int_eq(plan.ilp.status, ILP_OPTIMAL);
				ck_assert_msg(plan.ilp.objective == (double)expected,
					      "%s at %llu: ILP %g, expected %lld", file, budget,
					      plan.ilp.objective, expected);
				ck_assert_int_eq(plan.cost.remat_compute, expected);
				ck_assert(plan.ilp.lagrange_bound <= (double)expected);
				ck_assert_uint_le(plan.cost.peak, budget);
				if (!no_start && plan.ilp.start_given) {
					ck_assert(plan.ilp.start_accepted);
					ck_assert(plan.ilp.objective <= plan.ilp.start_objective);
				}
			}
			planner_plan_free(&plan);
		}
		profile_free(&p);
		schedule_free(s);
		rows++;
	}
	if (!print_mode)
		ck_assert_int_ge(rows, 9);
}
END_TEST

/* Large-neighbourhood search forced on small cases (it runs past 20,000
 * binaries otherwise): the answer is still the optimum, within its limit,
 * never worse than the start. */
START_TEST(lns_keeps_the_optimum)
{
	const char *src = getenv("REMATSIM_SOURCE");
	static const struct { const char *file; uint64_t budget; int64_t opt; } cases[] = {
		{"chain-unordered.json", 40, 1}, {"chain-unordered.json", 30, 3},
		{"const-late.log", 360, 100},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char lp[4096];
		snprintf(lp, sizeof lp, "%s/tests/data/ilp-cases/%s", src ? src : ".", cases[i].file);
		struct read_options ro = {0};
		struct schedule *s;
		struct rs_error err = {0};
		ck_assert_int_eq(schedule_read(lp, &ro, &s, &err), 0);
		struct profile p;
		ck_assert_int_eq(profile_build(s, &p, &err), 0);
		ck_assert_int_eq(profile_graph_build(&p, &err), 0);
		struct planner_plan plan = {0};
		struct planner_args a = {.param = cases[i].budget, .time_limit = 20, .lns = 1};
		double t0 = now_seconds();
		int rc = planner_plan(planner_find("ilp"), &p, &a, &plan, &err);
		if (rc && err.status == EXIT_UNAVAILABLE) {
			planner_plan_free(&plan);
			profile_free(&p);
			schedule_free(s);
			return;
		}
		ck_assert_msg(rc == 0, "%s", err.msg);
		ck_assert(now_seconds() - t0 < 21);
		ck_assert_int_eq(plan.cost.remat_compute, cases[i].opt);
		if (plan.ilp.start_given)
			ck_assert(plan.ilp.objective <= plan.ilp.start_objective);
		planner_plan_free(&plan);
		profile_free(&p);
		schedule_free(s);
	}
}
END_TEST

/* The start itself: Belady's and the baselines' best, a schedule that fits,
 * on every row the brute force says is feasible. */
START_TEST(start_fits)
{
	const char *src = getenv("REMATSIM_SOURCE");
	char lp[4096];
	snprintf(lp, sizeof lp, "%s/tests/data/ilp-cases/chain-unordered.json", src ? src : ".");
	struct read_options ro = {0};
	struct schedule *s;
	struct rs_error err = {0};
	ck_assert_int_eq(schedule_read(lp, &ro, &s, &err), 0);
	struct profile p;
	ck_assert_int_eq(profile_build(s, &p, &err), 0);
	ck_assert_int_eq(profile_graph_build(&p, &err), 0);
	for (uint64_t budget = 20; budget <= 60; budget += 10) {
		struct start_answer st;
		ck_assert_int_eq(start_best(&p, budget, 0, 0, &st, &err), 0);
		if (st.found)
			ck_assert_uint_le(st.cost.peak, budget);
		/* never below the optimum (the table's: 0, 1, 3 at 50, 40, 30) */
		if (st.found && budget == 40)
			ck_assert_int_ge(st.cost.remat_compute, 1);
		if (st.found && budget == 30)
			ck_assert_int_ge(st.cost.remat_compute, 3);
		start_answer_free(&st);
	}
	profile_free(&p);
	schedule_free(s);
}
END_TEST

int main(int argc, char **argv)
{
	print_mode = argc > 1 && !strcmp(argv[1], "print");
	Suite *s = suite_create("ilp-cases");
	TCase *tc = tcase_create("ilp-cases");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, table);
	if (!print_mode) {
		tcase_add_test(tc, start_fits);
		tcase_add_test(tc, lns_keeps_the_optimum);
	}
	suite_add_tcase(s, tc);
	return run_suite(s);
}
