/*
 * test-revolve.c: Griewank and Walther's binomial checkpointing. The
 * closed form t n - C(s + t, s + 1) against the recurrence it solves
 * (p(1, s) = 0, p(l, 1) = l(l-1)/2, p(l, s) = min over m of m + p(l - m,
 * s - 1) + p(m, s)), computed here by dynamic programming; the schedule's
 * forward steps against the closed form on every (n, s) with n <= 250, its
 * actions in a valid order (advances from the current state, turns n down
 * to 1, each from the state before its step, restores of snapshots held);
 * and the plan on `gen linear` logs, replayed: p(n, s) - (n - 1)
 * recomputations of forward ops, the schedule's own peak, and peaks that
 * fall as snapshots do.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "plan.h"
#include "planners.h"
#include "profile.h"
#include "revolve.h"
#include "runtime.h"
#include "test-common.h"

#define NMAX 250

START_TEST(closed_form_solves_the_recurrence)
{
	enum { L = 80 };
	static uint64_t p[L + 1][L + 1]; /* p[l][s] */
	for (size_t s = 1; s <= L; s++)
		p[1][s] = 0;
	for (size_t l = 1; l <= L; l++)
		p[l][1] = l * (l - 1) / 2;
	for (size_t s = 2; s <= L; s++)
		for (size_t l = 2; l <= L; l++) {
			uint64_t best = UINT64_MAX;
			for (size_t m = 1; m < l; m++) {
				uint64_t v = m + p[l - m][s - 1] + p[m][s];
				if (v < best)
					best = v;
			}
			p[l][s] = best;
		}
	for (size_t l = 1; l <= L; l++)
		for (size_t s = 1; s <= L; s++)
			ck_assert_msg(revolve_closed_form(l, s) == p[l][s],
				      "n %zu s %zu: closed form %llu, recurrence %llu", l, s,
				      (unsigned long long)revolve_closed_form(l, s),
				      (unsigned long long)p[l][s]);
	/* by hand: 10 steps, 3 snapshots: t = 2 (C(5,3) = 10), 2*10 - C(5,4) = 15 */
	ck_assert_uint_eq(revolve_closed_form(10, 3), 15);
	ck_assert_uint_eq(revolve_closed_form(10, 1), 45);
	ck_assert_uint_eq(revolve_closed_form(1, 5), 0);
}
END_TEST

/* Replays the actions on positions, checking that each is possible. */
struct walk {
	uint64_t n, s, cur, next_turn, steps;
	uint8_t held[NMAX + 2];
	size_t n_held, snaps;
	bool bad;
	char why[128];
};

static void on_act(void *ctx, const struct revolve_action *a)
{
	struct walk *w = ctx;
	if (w->bad)
		return;
	switch (a->kind) {
	case REVOLVE_ADVANCE:
		if (a->from != w->cur || a->to <= a->from || a->to >= w->next_turn)
			snprintf(w->why, sizeof w->why, "advance %llu->%llu from %llu",
				 (unsigned long long)a->from, (unsigned long long)a->to,
				 (unsigned long long)w->cur), w->bad = true;
		w->steps += a->to - a->from;
		w->cur = a->to;
		break;
	case REVOLVE_TAKESHOT:
		if (a->to != w->cur || w->held[a->to])
			snprintf(w->why, sizeof w->why, "snapshot of %llu", (unsigned long long)a->to),
				w->bad = true;
		w->held[a->to] = 1;
		w->n_held++;
		break;
	case REVOLVE_RESTORE:
		if (!w->held[a->to])
			snprintf(w->why, sizeof w->why, "restore of %llu, not held",
				 (unsigned long long)a->to), w->bad = true;
		w->cur = a->to;
		break;
	case REVOLVE_TURN:
		if (a->to != w->next_turn || w->cur != a->to - 1)
			snprintf(w->why, sizeof w->why, "turn %llu at %llu, want %llu",
				 (unsigned long long)a->to, (unsigned long long)w->cur,
				 (unsigned long long)w->next_turn), w->bad = true;
		w->next_turn--;
		/* the snapshot of the next turn's state, if any, is its last
		 * use: none past it is needed again */
		if (w->next_turn <= w->n && w->held[w->next_turn] && w->next_turn) {
			w->held[w->next_turn] = 0;
			w->n_held--;
		}
		break;
	}
	if (w->n_held > w->snaps)
		w->snaps = w->n_held;
}

START_TEST(schedule_takes_the_closed_form)
{
	for (uint64_t n = 1; n <= NMAX; n++)
		for (uint64_t s = 1; s <= n + 1; s++) {
			struct walk w = {.n = n, .s = s, .next_turn = n, .n_held = 1};
			w.held[0] = 1; /* the input's snapshot */
			uint64_t steps = revolve_run(n, s, on_act, &w);
			ck_assert_msg(!w.bad, "n %llu s %llu: %s", (unsigned long long)n,
				      (unsigned long long)s, w.why);
			ck_assert_uint_eq(w.next_turn, 0);
			ck_assert_uint_eq(steps, w.steps);
			ck_assert_msg(steps == revolve_closed_form(n, s),
				      "n %llu s %llu: %llu forward steps, closed form %llu",
				      (unsigned long long)n, (unsigned long long)s,
				      (unsigned long long)steps,
				      (unsigned long long)revolve_closed_form(n, s));
			ck_assert_msg(w.snaps <= s, "n %llu s %llu: %zu snapshots held",
				      (unsigned long long)n, (unsigned long long)s, w.snaps);
		}
}
END_TEST

static struct schedule *chain(uint64_t n)
{
	struct gen_params p;
	struct rs_error err = {0};
	gen_params_default(&p, GEN_LINEAR);
	char v[32];
	snprintf(v, sizeof v, "%llu", (unsigned long long)n);
	ck_assert_int_eq(gen_params_set(&p, "n", v, &err), 0);
	char *text;
	size_t len;
	ck_assert_int_eq(gen_text(&p, &text, &len, &err), 0);
	struct read_options ro = {0};
	struct schedule *s = NULL;
	ck_assert_msg(schedule_parse("chain.log", text, len, &ro, &s, &err) == 0, "%s", err.msg);
	free(text);
	return s;
}

START_TEST(replays_on_gen_linear)
{
	static const uint64_t ns[] = {1, 2, 3, 4, 5, 8, 13, 21, 34, 55, 100, 250};
	for (size_t c = 0; c < sizeof ns / sizeof ns[0]; c++) {
		uint64_t n = ns[c];
		struct schedule *s = chain(n);
		struct baseline b;
		baseline_run(s, &b);
		struct profile p;
		ck_assert_int_eq(profile_build(s, &p, NULL), 0);
		uint64_t last_peak = 0;
		for (uint64_t sn = 1; sn <= n + 1; sn += sn < 8 ? 1 : sn) {
			struct planner_plan plan;
			struct plan_result r;
			struct rs_error err = {0};
			struct planner_args a = {.param = sn};
			ck_assert_msg(planner_replay(planner_find("revolve"), s, &b, &p, &a, n <= 34,
						     &plan, &r, &err) == 0,
				      "n %llu s %llu: %s", (unsigned long long)n,
				      (unsigned long long)sn, err.msg);
			uint64_t want = revolve_closed_form(n, sn);
			ck_assert_uint_eq(plan.fwd_steps, want);
			ck_assert_msg(r.run.remats == want - (n - 1),
				      "n %llu s %llu: %llu remats, want %llu", (unsigned long long)n,
				      (unsigned long long)sn, (unsigned long long)r.run.remats,
				      (unsigned long long)(want - (n - 1)));
			ck_assert_uint_eq(r.run.peak_memory, plan.cost.peak);
			/* unit sizes: more snapshots never lower the peak */
			ck_assert_uint_ge(r.run.peak_memory, last_peak);
			last_peak = r.run.peak_memory;
			ck_assert_uint_le(r.run.peak_memory, b.memory);
			planner_plan_free(&plan);
		}
		profile_free(&p);
		schedule_free(s);
	}
}
END_TEST

START_TEST(refuses_what_is_not_a_chain)
{
	struct gen_params gp;
	struct rs_error err = {0};
	gen_params_default(&gp, GEN_RESIDUAL);
	ck_assert_int_eq(gen_params_set(&gp, "blocks", "2", &err), 0);
	char *text;
	size_t len;
	ck_assert_int_eq(gen_text(&gp, &text, &len, &err), 0);
	struct read_options ro = {0};
	struct schedule *s = NULL;
	ck_assert_int_eq(schedule_parse("res.log", text, len, &ro, &s, &err), 0);
	free(text);
	struct profile p;
	ck_assert_int_eq(profile_build(s, &p, NULL), 0);
	struct planner_plan plan;
	struct planner_args a = {.param = 3};
	ck_assert_int_eq(planner_plan(planner_find("revolve"), &p, &a, &plan, &err), -1);
	ck_assert_int_eq(err.status, EXIT_DATAERR);
	ck_assert_ptr_nonnull(strstr(err.msg, "uniform chains"));
	ck_assert_int_gt(err.line, 0);
	profile_free(&p);
	schedule_free(s);
	/* no snapshot at all */
	s = chain(4);
	ck_assert_int_eq(profile_build(s, &p, NULL), 0);
	a.param = 0;
	ck_assert_int_eq(planner_plan(planner_find("revolve"), &p, &a, &plan, &err), -1);
	ck_assert_int_eq(err.status, EXIT_USAGE);
	profile_free(&p);
	schedule_free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("revolve");
	TCase *tc = tcase_create("revolve");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, closed_form_solves_the_recurrence);
	tcase_add_test(tc, schedule_takes_the_closed_form);
	tcase_add_test(tc, replays_on_gen_linear);
	tcase_add_test(tc, refuses_what_is_not_a_chain);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
