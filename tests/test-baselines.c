/*
 * test-baselines.c: Checkmate's baselines (solvers/baselines.h) on
 * hand-made graphs whose nodes are listed out of id order and carry no
 * graph.order: the articulation points of a diamond worked by hand; on a
 * chain with its backward pass, each baseline's checkpoints and
 * recomputations worked by hand (Griewank's log n among them); and no
 * baseline below the ILP's proven
 * optimum at the baseline's own peak (where CBC is built in).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baselines.h"
#include "ilp.h"
#include "plan.h"
#include "planners.h"
#include "profile.h"
#include "runtime.h"
#include "test-common.h"

/* A node-link graph written to a temporary file and read. */
static struct schedule *read_graph(const char *json)
{
	char path[] = "/tmp/rematsim-baselines-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, json, strlen(json)), (long)strlen(json));
	close(fd);
	struct read_options ro = {0};
	struct schedule *s;
	struct rs_error err = {0};
	int rc = schedule_read(path, &ro, &s, &err);
	unlink(path);
	ck_assert_msg(rc == 0, "%s", err.msg);
	return s;
}

static const char *name_of(const struct profile *p, uint32_t v)
{
	return schedule_str(p->s, p->s->ops[p->graph->op[v]].name);
}

/* Node ids out of order; a b c d e forward, L backward (the loss). */
static const char diamond[] =
	"{\"directed\": true, \"multigraph\": false, \"graph\": {}, \"nodes\": ["
	"{\"id\": 4, \"name\": \"e\", \"backward\": false, \"cost_cpu\": 1, \"cost_ram\": 10},"
	"{\"id\": 2, \"name\": \"b\", \"backward\": false, \"cost_cpu\": 1, \"cost_ram\": 10},"
	"{\"id\": 0, \"name\": \"d\", \"backward\": false, \"cost_cpu\": 1, \"cost_ram\": 10},"
	"{\"id\": 3, \"name\": \"a\", \"backward\": false, \"cost_cpu\": 1, \"cost_ram\": 10},"
	"{\"id\": 1, \"name\": \"c\", \"backward\": false, \"cost_cpu\": 1, \"cost_ram\": 10},"
	"{\"id\": 5, \"name\": \"L\", \"backward\": true, \"cost_cpu\": 1, \"cost_ram\": 10}],"
	"\"links\": [{\"source\": 3, \"target\": 2}, {\"source\": 3, \"target\": 1},"
	"{\"source\": 2, \"target\": 0}, {\"source\": 1, \"target\": 0},"
	"{\"source\": 0, \"target\": 4}, {\"source\": 4, \"target\": 5}]}";

START_TEST(articulation_points_by_hand)
{
	/* undirected, with a virtual input at a and output at e: removing a
	 * cuts the input off, d splits {a, b, c} from e, e cuts the output
	 * off; b and c each leave the other path */
	struct schedule *s = read_graph(diamond);
	struct profile p;
	struct rs_error err = {0};
	ck_assert_int_eq(profile_build(s, &p, &err), 0);
	ck_assert_int_eq(profile_graph_build(&p, &err), 0);
	uint8_t *fwd = baselines_forward(&p);
	bool ap[16];
	ck_assert_uint_eq(p.graph->n, 6);
	ck_assert_uint_eq(baselines_articulation_points(p.graph, fwd, ap), 3);
	char got[64] = "";
	for (uint32_t v = 0; v < p.graph->n; v++)
		if (ap[v]) {
			strcat(got, name_of(&p, v));
			strcat(got, " ");
		}
	ck_assert_str_eq(got, "a d e ");
	ck_assert(!fwd[5] || strcmp(name_of(&p, 5), "L"));
	free(fwd);
	profile_free(&p);
	schedule_free(s);
}
END_TEST

/* A chain a b c d, the loss L (reads d), and gradients gd (reads L and c,
 * d's input), gc (gd, b), gb (gc, a), ga (gb); ids out of order. */
static const char chain[] =
	"{\"directed\": true, \"multigraph\": false, \"graph\": {}, \"nodes\": ["
	"{\"id\": 7, \"name\": \"gb\", \"backward\": true, \"cost_cpu\": 1, \"cost_ram\": 10},"
	"{\"id\": 3, \"name\": \"a\", \"backward\": false, \"cost_cpu\": 1, \"cost_ram\": 10},"
	"{\"id\": 1, \"name\": \"b\", \"backward\": false, \"cost_cpu\": 1, \"cost_ram\": 10},"
	"{\"id\": 4, \"name\": \"c\", \"backward\": false, \"cost_cpu\": 1, \"cost_ram\": 10},"
	"{\"id\": 0, \"name\": \"d\", \"backward\": false, \"cost_cpu\": 1, \"cost_ram\": 10},"
	"{\"id\": 2, \"name\": \"L\", \"backward\": true, \"cost_cpu\": 1, \"cost_ram\": 10},"
	"{\"id\": 5, \"name\": \"gd\", \"backward\": true, \"cost_cpu\": 1, \"cost_ram\": 10},"
	"{\"id\": 6, \"name\": \"gc\", \"backward\": true, \"cost_cpu\": 1, \"cost_ram\": 10},"
	"{\"id\": 8, \"name\": \"ga\", \"backward\": true, \"cost_cpu\": 1, \"cost_ram\": 10}],"
	"\"links\": [{\"source\": 3, \"target\": 1}, {\"source\": 1, \"target\": 4},"
	"{\"source\": 4, \"target\": 0}, {\"source\": 0, \"target\": 2},"
	"{\"source\": 2, \"target\": 5}, {\"source\": 4, \"target\": 5},"
	"{\"source\": 5, \"target\": 6}, {\"source\": 1, \"target\": 6},"
	"{\"source\": 6, \"target\": 7}, {\"source\": 3, \"target\": 7},"
	"{\"source\": 7, \"target\": 8}]}";

/* The names of the nodes the plan recomputes, in order, space-separated. */
static void recomputed(const struct profile *p, const struct planner_plan *plan, char *buf)
{
	buf[0] = 0;
	uint32_t t = 0;
	for (size_t k = 0; k < plan->steps.n_steps; k++) {
		uint32_t v = plan->steps.steps[k].node;
		if (v < t) {
			strcat(buf, name_of(p, v));
			strcat(buf, " ");
		} else if (v == t) {
			t++;
		}
	}
}

static void run_planner(struct schedule *s, struct profile *p, const struct baseline *b,
			const char *name, uint64_t param, struct planner_plan *plan,
			struct plan_result *res)
{
	struct rs_error err = {0};
	struct planner_args a = {.param = param};
	ck_assert_msg(planner_replay(planner_find(name), s, b, p, &a, true, plan, res, &err) == 0,
		      "%s: %s", name, err.msg);
	ck_assert_uint_eq(res->run.peak_memory, plan->cost.peak);
}

START_TEST(baselines_by_hand)
{
	struct schedule *s = read_graph(chain);
	struct profile p;
	struct rs_error err = {0};
	ck_assert_int_eq(profile_build(s, &p, &err), 0);
	ck_assert_int_eq(profile_graph_build(&p, &err), 0);
	struct baseline b;
	baseline_run(s, &b);
	uint8_t *fwd = baselines_forward(&p);
	bool cp[16];
	char buf[256];
	/* the order the import gives: a b c d L gd gc gb ga */
	buf[0] = 0;
	for (uint32_t v = 0; v < p.graph->n; v++) {
		strcat(buf, name_of(&p, v));
		strcat(buf, " ");
	}
	ck_assert_str_eq(buf, "a b c d L gd gc gb ga ");
	/* every forward node of a chain is an articulation point: C = a b c d,
	 * k = 2, every second: b and d */
	ck_assert_uint_eq(baselines_chen_sqrtn(p.graph, fwd, true, cp), 2);
	ck_assert(!cp[0] && cp[1] && !cp[2] && cp[3]);
	/* greedy, B = 15: a (10) no, b (20) yes, c (10) no, d (20) yes */
	ck_assert_uint_eq(baselines_chen_greedy(p.graph, fwd, true, 15, cp), 2);
	ck_assert(!cp[0] && cp[1] && !cp[2] && cp[3]);
	/* B = 5: every forward node; B = 100: none */
	ck_assert_uint_eq(baselines_chen_greedy(p.graph, fwd, false, 5, cp), 4);
	ck_assert_uint_eq(baselines_chen_greedy(p.graph, fwd, false, 100, cp), 0);

	struct planner_plan plan = {0};
	struct plan_result res;
	/* checkpoint all: nothing recomputed, the unbounded peak */
	run_planner(s, &p, &b, "checkpoint-all", 0, &plan, &res);
	ck_assert_uint_eq(plan.cost.remats, 0);
	ck_assert_uint_eq(res.run.peak_memory, b.memory);
	planner_plan_free(&plan);
	/* sqrt(n): segments [a], [b c], [d]; a and c, not checkpoints, go
	 * after the forward pass and come back once each, for the gradient
	 * that reads them (gb reads a, gd reads c) */
	run_planner(s, &p, &b, "chen-sqrtn", 0, &plan, &res);
	recomputed(&p, &plan, buf);
	ck_assert_str_eq(buf, "c a ");
	ck_assert_uint_eq(plan.cost.remats, 2);
	ck_assert_int_eq(plan.cost.remat_compute, 2);
	uint64_t sqrtn_peak = plan.cost.peak;
	planner_plan_free(&plan);
	run_planner(s, &p, &b, "chen-sqrtn-noap", 0, &plan, &res);
	recomputed(&p, &plan, buf);
	ck_assert_str_eq(buf, "c a ");
	planner_plan_free(&plan);
	/* greedy with B = 5: every forward node a checkpoint, nothing recomputed */
	run_planner(s, &p, &b, "chen-greedy", 5, &plan, &res);
	ck_assert_uint_eq(plan.cost.remats, 0);
	planner_plan_free(&plan);
	/* greedy with B = 100: no checkpoint, one segment a b c d: kept through
	 * the forward pass into the loss's stage, then across every gradient
	 * that reads it (gd .. gb): the last segment, never recomputed */
	run_planner(s, &p, &b, "chen-greedy-noap", 100, &plan, &res);
	recomputed(&p, &plan, buf);
	ck_assert_str_eq(buf, "");
	planner_plan_free(&plan);

	/* Griewank's log n. The chain a b c d (stages 0-3) is cut at its
	 * articulation points a b c d into four steps x_1 = a .. x_4 = d;
	 * reversing step j is the backward stage that reads x_{j-1}: step 4
	 * gd (stage 5, reads c), step 3 gc (6, reads b), step 2 gb (7, reads
	 * a), step 1 none (x_0 is the input). Default snapshots: ceil(log2 4)
	 * = 2. revolve(4, 2): advance to x_2, snapshot b; advance to x_3 (c,
	 * the current state, kept from stage 2 to gd); turn 4 (gd); restore
	 * b and turn 3 (gc: b kept into stages 2 .. 6); restore x_0, advance
	 * to x_1 (a, recomputed in gb's stage 7), turn 2 (gb); turn 1 (ga).
	 * One recomputation, a; 4 forward steps of the chain (p(4, 2) = 4). */
	run_planner(s, &p, &b, "griewank-logn", 0, &plan, &res);
	ck_assert_uint_eq(plan.snapshots, 2);
	ck_assert_uint_eq(plan.chain, 4);
	ck_assert_uint_eq(plan.fwd_steps, 4);
	recomputed(&p, &plan, buf);
	ck_assert_str_eq(buf, "a ");
	ck_assert_uint_eq(plan.cost.remats, 1);
	planner_plan_free(&plan);
	/* one snapshot (x_0's): advance to x_3 (a b c), turn 4 at gd; a and b
	 * again in gc's stage (turn 3 reads b), a again in gb's: a b a */
	run_planner(s, &p, &b, "griewank-logn", 1, &plan, &res);
	recomputed(&p, &plan, buf);
	ck_assert_str_eq(buf, "a b a ");
	ck_assert_uint_eq(plan.fwd_steps, 6); /* p(4, 1) = 3 + 2 + 1 */
	uint64_t gw1_peak = plan.cost.peak;
	int64_t gw1_remat = plan.cost.remat_compute;
	planner_plan_free(&plan);
	/* three snapshots: p(4, 3) = 3, nothing recomputed */
	run_planner(s, &p, &b, "griewank-logn", 3, &plan, &res);
	ck_assert_uint_eq(plan.cost.remats, 0);
	planner_plan_free(&plan);

	/* the ILP at Griewank's (s = 1) peak: never worse than its 3 ns */
	struct planner_args ga = {.param = gw1_peak};
	int grc = planner_replay(planner_find("ilp"), s, &b, &p, &ga, true, &plan, &res, &err);
	if (grc == 0) {
		ck_assert_int_eq(plan.ilp.status, ILP_OPTIMAL);
		ck_assert(plan.ilp.objective <= (double)gw1_remat);
	} else {
		ck_assert_int_eq(err.status, EXIT_UNAVAILABLE);
	}
	planner_plan_free(&plan);

	/* the ILP at sqrt(n)'s peak: never worse than sqrt(n) (2 ns) */
	const struct planner *ilp = planner_find("ilp");
	struct planner_args a = {.param = sqrtn_peak};
	int rc = planner_replay(ilp, s, &b, &p, &a, true, &plan, &res, &err);
	if (rc == 0) {
		ck_assert_int_eq(plan.ilp.status, ILP_OPTIMAL);
		ck_assert(plan.ilp.objective <= 2);
		ck_assert_uint_le(plan.cost.peak, sqrtn_peak);
	} else {
		ck_assert_int_eq(err.status, EXIT_UNAVAILABLE); /* no solver built in */
	}
	planner_plan_free(&plan);
	free(fwd);
	profile_free(&p);
	schedule_free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("baselines");
	TCase *tc = tcase_create("baselines");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, articulation_points_by_hand);
	tcase_add_test(tc, baselines_by_hand);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
