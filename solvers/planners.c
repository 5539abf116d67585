/*
 * planners.c: see planners.h. Each planner is a row of the table at the
 * bottom and one function above it.
 */
#include "planners.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "revolve.h"
#include "baselines.h"
#include "start.h"

uint64_t planner_max_chunk(const uint64_t *a, size_t n, const size_t *splits, size_t n_splits)
{
	uint64_t best = 0, sum = 0;
	size_t s = 0;
	for (size_t i = 0; i < n; i++) {
		while (s < n_splits && splits[s] == i) {
			sum = 0;
			s++;
		}
		sum += a[i];
		if (sum > best)
			best = sum;
	}
	return best;
}

void planner_plan_free(struct planner_plan *plan)
{
	reset_plan_free(&plan->split);
	plan_steps_free(&plan->steps);
	ilp_result_free(&plan->ilp);
	memset(plan, 0, sizeof *plan);
}

static void plan_init(struct reset_plan *plan, size_t cap)
{
	memset(plan, 0, sizeof *plan);
	plan->splits = xmalloc((cap + 1) * sizeof *plan->splits);
}

/* none: every activation kept. */
static int plan_none(const struct profile *p, const struct planner_args *args,
		     struct planner_plan *out, struct rs_error *err)
{
	(void)args, (void)err;
	const uint64_t *a = p->bytes;
	size_t n = p->n;
	struct reset_plan *plan = &out->split;
	plan_init(plan, 0);
	plan->max_chunk = planner_max_chunk(a, n, NULL, 0);
	return 0;
}

/* dp: the reset-point DP of the layer memory tracker with k checkpoints. */
static int plan_dp(const struct profile *p, const struct planner_args *args,
		   struct planner_plan *out, struct rs_error *err)
{
	const uint64_t *a = p->bytes;
	size_t n = p->n;
	struct reset_plan *plan = &out->split;
	size_t k = args->param > n ? n + 1 : (size_t)args->param; /* more than n + 1 changes nothing */
	if (args->exact)
		return reset_points_exact(a, n, k, plan, err);
	reset_points_fast(a, n, k, plan);
	return 0;
}

/* sqrtn: Chen et al. 2016, a split every floor(sqrt(n)) forward ops. */
static int plan_sqrtn(const struct profile *p, const struct planner_args *args,
		      struct planner_plan *out, struct rs_error *err)
{
	(void)args, (void)err;
	const uint64_t *a = p->bytes;
	size_t n = p->n;
	struct reset_plan *plan = &out->split;
	size_t step = (size_t)sqrt((double)n);
	while (step * step > n)
		step--;
	while ((step + 1) * (step + 1) <= n)
		step++;
	plan_init(plan, n / step);
	for (size_t at = step; at < n; at += step)
		plan->splits[plan->n_splits++] = at;
	plan->max_chunk = planner_max_chunk(a, n, plan->splits, plan->n_splits);
	return 0;
}

/* greedy: Chen's greedy, a split after the op where the running sum passes
 * the segment budget, which then starts again from zero. */
static int plan_greedy(const struct profile *p, const struct planner_args *args,
		       struct planner_plan *out, struct rs_error *err)
{
	(void)err;
	const uint64_t *a = p->bytes;
	size_t n = p->n;
	uint64_t param = args->param;
	struct reset_plan *plan = &out->split;
	plan_init(plan, n);
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++) {
		sum += a[i];
		if (sum > param && i + 1 < n) {
			plan->splits[plan->n_splits++] = i + 1;
			sum = 0;
		}
	}
	plan->max_chunk = planner_max_chunk(a, n, plan->splits, plan->n_splits);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Planners of every op: an explicit schedule, built from what stays in
 * memory between stages, and its cost by the graph. */

static int steps_plan(const struct profile *p, const struct steps_kept *k,
		      struct planner_plan *out, struct rs_error *err)
{
	out->kind = PLAN_STEPS;
	if (steps_build(p->graph, k, true, &out->steps, err))
		return -1;
	return steps_eval(p->graph, &out->steps, &out->cost, err);
}

/* What needs the most memory at once, for messages. */
static void node_text(const struct profile *p, uint32_t node, char *buf, size_t size)
{
	const struct schedule *s = p->s;
	if (node == UINT32_MAX) {
		snprintf(buf, size, "the constants and the outputs the log pins at its end take");
		return;
	}
	const struct sched_op *op = &s->ops[p->graph->op[node]];
	snprintf(buf, size, "running op %s (line %u) takes, with its inputs and the constants "
		 "made before it,", schedule_str(s, op->name), op->line);
}

/* ilp, ilp-lp: Checkmate's program under the budget (ilp.h). */
static int plan_ilp_common(const struct profile *p, const struct planner_args *args, bool relax,
			   struct planner_plan *out, struct rs_error *err)
{
	struct ilp_options o = {
		.budget = args->param,
		.time_limit = args->time_limit,
		.solver = args->solver ? ilp_solver_find(args->solver) : NULL,
		.relax = relax,
		.seed = args->seed,
		.rounds = args->rounds,
		.min_budget = true,
		.deadline = args->deadline,
		.lns = args->lns,
	};
	if (args->solver && !o.solver)
		return rs_error_set(err, EXIT_USAGE, NULL, 0, "unknown solver '%s' (cbc, glpk)",
				    args->solver);
	/* the MIP start: the cheapest of Belady's and the baselines' schedules
	 * that fits (start.h) */
	struct start_answer st = {0};
	if (!relax && !args->no_start && p->graph->unsupported_op == UINT32_MAX &&
	    p->graph->n <= START_MAX_NODES) {
		if (start_best(p, args->param, args->seed, args->deadline, &st, err))
			return -1;
		if (st.found) {
			o.start = &st.kept;
			o.start_from = st.from;
		}
	}
	struct ilp_result *r = &out->ilp;
	int src = ilp_solve(p, &o, r, err);
	start_answer_free(&st);
	if (src)
		return -1;
	char what[512];
	switch (r->status) {
	case ILP_INFEASIBLE:
		node_text(p, r->need_node, what, sizeof what);
		if (r->need_bytes > args->param)
			rs_error_set(err, EXIT_DATAERR, p->s->source, 0,
				     "infeasible: no schedule fits in %" PRIu64 " bytes: %s %"
				     PRIu64 " bytes at once", args->param, what, r->need_bytes);
		else
			rs_error_set(err, EXIT_DATAERR, p->s->source, 0,
				     "infeasible: no schedule fits in %" PRIu64 " bytes (%s solved "
				     "it in %.3g s)", args->param, r->solver, r->seconds);
		if (r->min_budget_known || r->min_budget_found) {
			size_t len = strlen(err->msg);
			snprintf(err->msg + len, sizeof err->msg - len,
				 r->min_budget_known
					 ? "; the smallest budget any schedule fits in is %" PRIu64 " bytes"
					 : "; a schedule fits in %" PRIu64 " bytes (the smallest found "
					   "within the time limit)",
				 r->min_budget);
		}
		return -1;
	case ILP_UNKNOWN:
		if (relax)
			return rs_error_set(err, EXIT_DATAERR, p->s->source, 0,
					    "the LP relaxation was not solved within the time limit "
					    "(%.3g s): give more time", args->time_limit);
		if (r->unbuilt)
			return rs_error_set(err, EXIT_DATAERR, p->s->source, 0,
					    "no schedule found within the time limit (%.3g s; no "
					    "start found and the model not built by then): give more "
					    "time", args->time_limit);
		return rs_error_set(err, EXIT_DATAERR, p->s->source, 0,
				    "no schedule found within the time limit (%.3g s; %s proved "
				    "none infeasible either): give more time", args->time_limit,
				    r->solver);
	case ILP_NO_ROUNDING:
		return rs_error_set(err, EXIT_DATAERR, p->s->source, 0,
				    "none of the %u roundings of the LP relaxation fits in %" PRIu64
				    " bytes (try --planner ilp, or more --rounds)", 9 + args->rounds,
				    args->param);
	default:
		break;
	}
	if (steps_plan(p, &r->kept, out, err))
		return -1;
	/* The schedule is at least as good as the solver's: the fewest
	 * recomputations its kept sets allow, nothing kept needlessly. */
	if (out->cost.peak > args->param)
		return rs_error_set(err, EXIT_SOFTWARE, NULL, 0,
				    "the %s schedule peaks at %" PRIu64 " bytes, past the budget "
				    "%" PRIu64 " (numerical trouble in the solver?)", r->solver,
				    out->cost.peak, args->param);
	if (!relax && (double)out->cost.remat_compute > r->objective * (1 + 1e-9) + 0.5)
		return rs_error_set(err, EXIT_SOFTWARE, NULL, 0,
				    "the %s schedule recomputes %" PRId64 " ns, more than the "
				    "solver's objective %.17g", r->solver, out->cost.remat_compute,
				    r->objective);
	return 0;
}

static int plan_ilp(const struct profile *p, const struct planner_args *args,
		    struct planner_plan *out, struct rs_error *err)
{
	return plan_ilp_common(p, args, false, out, err);
}

static int plan_ilp_lp(const struct profile *p, const struct planner_args *args,
		       struct planner_plan *out, struct rs_error *err)
{
	return plan_ilp_common(p, args, true, out, err);
}

/* revolve: Griewank and Walther's binomial checkpointing (revolve.h). */
static int plan_revolve(const struct profile *p, const struct planner_args *args,
			struct planner_plan *out, struct rs_error *err)
{
	struct steps_kept k;
	if (revolve_plan(p, args->param, &k, &out->fwd_steps, err))
		return -1;
	int rc = steps_plan(p, &k, out, err);
	steps_kept_free(&k);
	return rc;
}

/* Checkmate's baselines (baselines.h): kept sets from checkpoints, the
 * fewest recomputations they allow. */
static int graph_ok(const struct profile *p, struct rs_error *err)
{
	const struct profile_graph *g = p->graph;
	if (g->n > BASELINES_MAX_NODES)
		return rs_error_set(err, EXIT_DATAERR, p->s->source, 0,
				    "%zu ops: Checkmate's baselines take graphs of up to %d ops here "
				    "(their table of what each stage keeps is quadratic)", g->n,
				    BASELINES_MAX_NODES);
	if (g->unsupported_op == UINT32_MAX)
		return 0;
	const struct sched_op *op = &p->s->ops[g->unsupported_op];
	return rs_error_set(err, EXIT_DATAERR, p->s->source, op->line,
			    "op %s: %s: Checkmate's baselines cannot schedule this log",
			    schedule_str(p->s, op->name), g->unsupported_why);
}

static int plan_checkpoint_all(const struct profile *p, const struct planner_args *args,
			       struct planner_plan *out, struct rs_error *err)
{
	(void)args;
	if (graph_ok(p, err))
		return -1;
	struct steps_kept k;
	baselines_keep_all(p->graph, &k);
	int rc = steps_plan(p, &k, out, err);
	steps_kept_free(&k);
	return rc;
}

static int plan_chen(const struct profile *p, const struct planner_args *args, bool greedy,
		     bool use_ap, struct planner_plan *out, struct rs_error *err)
{
	if (graph_ok(p, err))
		return -1;
	uint8_t *fwd = baselines_forward(p);
	bool *cp = xcalloc(p->graph->n + 1, sizeof *cp);
	if (greedy)
		baselines_chen_greedy(p->graph, fwd, use_ap, args->param, cp);
	else
		baselines_chen_sqrtn(p->graph, fwd, use_ap, cp);
	struct steps_kept k;
	baselines_kept(p->graph, fwd, cp, &k);
	free(cp);
	free(fwd);
	int rc = steps_plan(p, &k, out, err);
	steps_kept_free(&k);
	return rc;
}

/* Griewank's log n: revolve on the chain of articulation points. */
static int plan_griewank(const struct profile *p, const struct planner_args *args,
			 struct planner_plan *out, struct rs_error *err)
{
	if (graph_ok(p, err))
		return -1;
	uint8_t *fwd = baselines_forward(p);
	struct steps_kept k;
	out->chain = baselines_griewank(p->graph, fwd, args->param, &k, &out->fwd_steps,
					&out->snapshots);
	free(fwd);
	int rc = steps_plan(p, &k, out, err);
	steps_kept_free(&k);
	return rc;
}

static int plan_chen_sqrtn(const struct profile *p, const struct planner_args *a,
			   struct planner_plan *out, struct rs_error *err)
{
	return plan_chen(p, a, false, true, out, err);
}

static int plan_chen_sqrtn_noap(const struct profile *p, const struct planner_args *a,
				struct planner_plan *out, struct rs_error *err)
{
	return plan_chen(p, a, false, false, out, err);
}

static int plan_chen_greedy(const struct profile *p, const struct planner_args *a,
			    struct planner_plan *out, struct rs_error *err)
{
	return plan_chen(p, a, true, true, out, err);
}

static int plan_chen_greedy_noap(const struct profile *p, const struct planner_args *a,
				 struct planner_plan *out, struct rs_error *err)
{
	return plan_chen(p, a, true, false, out, err);
}

static const struct planner planners[] = {
	{"none", "no checkpoints", PLANNER_PARAM_NONE, NULL,
	 "no split points: every activation kept (the baseline)", false, plan_none},
	{"dp", "static: DP (k)", PLANNER_PARAM_K, "k",
	 "the layer tracker's reset-point DP with k checkpoints (-k)", false, plan_dp},
	{"sqrtn", "static: √n", PLANNER_PARAM_NONE, NULL,
	 "Chen et al.: a split every floor(sqrt(n)) forward ops", false, plan_sqrtn},
	{"greedy", "static: greedy (B)", PLANNER_PARAM_BYTES, "segment_budget",
	 "Chen's greedy: a split where the running sum passes B (--segment-budget)", false,
	 plan_greedy},
	{"ilp", "ILP (optimal where proven)", PLANNER_PARAM_BUDGET, "budget",
	 "Checkmate's MILP: the least recomputation within --budget (CBC or GLPK)", true,
	 plan_ilp},
	{"ilp-lp", "ILP relaxation, rounded", PLANNER_PARAM_BUDGET, "budget",
	 "Checkmate's LP relaxation under --budget, rounded (thresholds and seeded draws)",
	 true, plan_ilp_lp},
	{"revolve", "revolve (s)", PLANNER_PARAM_COUNT, "snapshots",
	 "Griewank and Walther's binomial checkpointing of a uniform chain (--snapshots)",
	 true, plan_revolve},
	{"checkpoint-all", "Checkpoint all", PLANNER_PARAM_NONE, NULL,
	 "Checkmate's baseline: every value kept to its last reader, nothing recomputed", true,
	 plan_checkpoint_all},
	{"chen-sqrtn", "Chen √n (AP)", PLANNER_PARAM_NONE, NULL,
	 "Checkmate's Chen √n: every √n-th articulation point of the forward graph kept", true,
	 plan_chen_sqrtn},
	{"chen-sqrtn-noap", "Chen √n (no AP)", PLANNER_PARAM_NONE, NULL,
	 "Checkmate's Chen √n over every forward node (no articulation points)", true,
	 plan_chen_sqrtn_noap},
	{"chen-greedy", "Chen greedy (AP)", PLANNER_PARAM_BYTES, "segment_budget",
	 "Checkmate's Chen greedy: an articulation point kept where the forward bytes pass B",
	 true, plan_chen_greedy},
	{"chen-greedy-noap", "Chen greedy (no AP)", PLANNER_PARAM_BYTES, "segment_budget",
	 "Checkmate's Chen greedy over every forward node (--segment-budget)", true,
	 plan_chen_greedy_noap},
	{"griewank-logn", "Griewank log n (AP)", PLANNER_PARAM_COUNT, "snapshots",
	 "Checkmate's Griewank log n: revolve on the chain of articulation points "
	 "(--snapshots, default ceil(log2 n))", true, plan_griewank},
};

const struct planner *planner_list(size_t *n)
{
	*n = sizeof planners / sizeof planners[0];
	return planners;
}

const struct planner *planner_find(const char *name)
{
	for (size_t i = 0; i < sizeof planners / sizeof planners[0]; i++)
		if (!strcasecmp(planners[i].name, name))
			return &planners[i];
	return NULL;
}

void planner_names(char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = 0;
	for (size_t i = 0; i < sizeof planners / sizeof planners[0]; i++)
		len += (size_t)snprintf(buf + (len < size ? len : size), len < size ? size - len : 0,
					"%s%s", i ? ", " : "", planners[i].name);
}

int planner_check_param(const struct planner *pl, const uint64_t *a, size_t n, uint64_t param,
			struct rs_error *err)
{
	if (pl->param != PLANNER_PARAM_BYTES || !n)
		return 0;
	size_t big = 0;
	for (size_t i = 1; i < n; i++)
		if (a[i] > a[big])
			big = i;
	if (param < a[big])
		return rs_error_set(err, EXIT_USAGE, NULL, 0,
				    "%s %llu bytes is below the largest single activation, "
				    "%llu bytes (forward op %zu): no segment can hold it",
				    pl->param_name, (unsigned long long)param,
				    (unsigned long long)a[big], big);
	return 0;
}

/* ------------------------------------------------------------------ */

int planner_plan(const struct planner *pl, struct profile *p, const struct planner_args *a,
		 struct planner_plan *plan, struct rs_error *err)
{
	memset(plan, 0, sizeof *plan);
	if (pl->needs_graph && profile_graph_build(p, err))
		return -1;
	if (pl->plan(p, a, plan, err)) {
		/* the solver's answer without a schedule (infeasible, nothing
		 * found in time) stays for the caller to record */
		steps_kept_free(&plan->ilp.kept);
		struct ilp_result answer = plan->ilp;
		planner_plan_free(plan);
		plan->ilp = answer;
		return -1;
	}
	return 0;
}

int planner_replay(const struct planner *pl, const struct schedule *s, const struct baseline *b,
		   struct profile *p, const struct planner_args *a, bool check,
		   struct planner_plan *plan, struct plan_result *res, struct rs_error *err)
{
	return planner_replay_observed(pl, s, b, p, a, check, NULL, NULL, plan, res, err);
}

int planner_replay_observed(const struct planner *pl, const struct schedule *s,
			    const struct baseline *b, struct profile *p,
			    const struct planner_args *a, bool check,
			    void (*observe)(void *ctx, const struct runtime_event *ev), void *ctx,
			    struct planner_plan *plan, struct plan_result *res, struct rs_error *err)
{
	if (planner_plan(pl, p, a, plan, err))
		return -1;
	int rc = plan->kind == PLAN_SPLITS
			 ? plan_replay_observed(s, b, plan->split.splits, plan->split.n_splits, check,
						observe, ctx, res, err)
			 : plan_replay_steps_observed(s, b, &plan->steps, check, observe, ctx, res, err);
	if (!rc && plan->kind == PLAN_STEPS) {
		/* The schedule's model and the runtime must agree to the byte and
		 * the nanosecond: a difference is a bug in one of them. */
		const struct runtime_result *r = &res->run;
		const struct steps_cost *c = &plan->cost;
		/* the runtime stops a run past 2^61 ns of recomputation as thrash
		 * (RT_REMAT_CAP, sim/lib/runtime-state.h: its clock stays within
		 * 64 bits); the schedule's model has no such cap */
		if (r->outcome == OUTCOME_THRASH && c->remat_compute > (INT64_C(1) << 61))
			rc = rs_error_set(err, EXIT_DATAERR, s->source, 0,
					  "the %s schedule recomputes %" PRId64 " ns, past the 2^61 ns "
					  "of recomputation a replay runs to (its clock must stay "
					  "within 64 bits): give it more memory", pl->name,
					  c->remat_compute);
		else if (r->outcome != OUTCOME_PASS || r->peak_memory != c->peak ||
		    r->model_compute + r->remat_compute != c->compute ||
		    r->remat_compute != c->remat_compute || r->remats != c->remats)
			rc = rs_error_set(err, EXIT_SOFTWARE, s->source, 0,
					  "the %s schedule replays to peak %" PRIu64 " bytes, "
					  "compute %" PRId64 " ns, %" PRIu64 " remats (%s); its own "
					  "model says %" PRIu64 " bytes, %" PRId64 " ns, %" PRIu64
					  " remats", pl->name, r->peak_memory,
					  r->model_compute + r->remat_compute, r->remats,
					  outcome_name(r->outcome), c->peak, c->compute, c->remats);
	}
	if (rc)
		planner_plan_free(plan);
	return rc;
}

/* One try of the search: does param's plan fit? -1 on error. A plan
 * whose split points are those of the try before (*prev, n_prev) is not
 * replayed: its peak is that one's. */
static int fit_try(const struct planner *pl, const struct schedule *s, const struct baseline *b,
		   struct profile *p, uint64_t budget, bool exact, uint64_t param,
		   struct planner_fit *fit, size_t **prev, size_t *n_prev, struct rs_error *err)
{
	struct planner_plan plan;
	struct planner_args a = {.param = param, .exact = exact};
	if (planner_plan(pl, p, &a, &plan, err))
		return -1;
	const struct reset_plan *sp = &plan.split;
	bool same = fit->n_tries && *n_prev == sp->n_splits &&
		    (!sp->n_splits || !memcmp(*prev, sp->splits, sp->n_splits * sizeof *sp->splits));
	XGROW(fit->tries, fit->cap, fit->n_tries + 1);
	struct planner_fit_try *t = &fit->tries[fit->n_tries];
	t->param = param;
	if (same) {
		t->peak = t[-1].peak;
		t->replayed = false;
	} else {
		struct plan_result res;
		int rc = plan_replay(s, b, sp->splits, sp->n_splits, false, &res, err);
		if (rc) {
			planner_plan_free(&plan);
			return -1;
		}
		/* a plan replay has no memory limit: it passes, but a run that
		 * did not counts as no fit at any budget */
		t->peak = res.run.outcome == OUTCOME_PASS ? res.run.peak_memory : UINT64_MAX;
		t->replayed = true;
		fit->n_replays++;
		free(*prev);
		*prev = xmalloc((sp->n_splits ? sp->n_splits : 1) * sizeof **prev);
		if (sp->n_splits)
			memcpy(*prev, sp->splits, sp->n_splits * sizeof *sp->splits);
		*n_prev = sp->n_splits;
	}
	planner_plan_free(&plan);
	if (!fit->n_tries || t->peak < fit->tries[fit->best].peak)
		fit->best = fit->n_tries;
	fit->n_tries++;
	return t->peak <= budget;
}

/* Greedy's plan is the same for every segment budget from the largest
 * running sum that did not close a segment (the last op's aside) up to
 * B: that sum, the budget below which the plan changes (0: none). */
static uint64_t greedy_class_floor(const struct profile *p, uint64_t B)
{
	uint64_t sum = 0, low = 0;
	for (size_t i = 0; i < p->n; i++) {
		sum += p->bytes[i];
		if (sum > B && i + 1 < p->n)
			sum = 0;
		else if (i + 1 < p->n && sum > low)
			low = sum;
	}
	return low;
}

void planner_fit_free(struct planner_fit *fit)
{
	free(fit->tries);
	fit->tries = NULL;
	fit->n_tries = fit->cap = 0;
}

int planner_fit(const struct planner *pl, const struct schedule *s, const struct baseline *b,
		struct profile *p, uint64_t budget, bool exact, struct planner_fit *fit,
		struct rs_error *err)
{
	memset(fit, 0, sizeof *fit);
	if (pl->param != PLANNER_PARAM_K && pl->param != PLANNER_PARAM_BYTES)
		return rs_error_set(err, EXIT_USAGE, NULL, 0,
				    "planner %s has no parameter to search: --budget needs dp or greedy",
				    pl->name);
	uint64_t amax = 0;
	size_t big = 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->bytes[i] > amax) {
			amax = p->bytes[i];
			big = i;
		}
	if (budget < amax)
		return rs_error_set(err, EXIT_USAGE, NULL, 0,
				    "budget %llu bytes is below the largest single activation, "
				    "%llu bytes (forward op %zu): no plan can fit it",
				    (unsigned long long)budget, (unsigned long long)amax, big);
	size_t *prev = NULL, n_prev = 0;
	int r = 0;
	if (pl->param == PLANNER_PARAM_K) {
		/* Every k in order: the first that fits is the smallest. */
		for (uint64_t k = 0; k <= p->n; k++)
			if ((r = fit_try(pl, s, b, p, budget, exact, k, fit, &prev, &n_prev, err)))
				break;
	} else {
		/* Segment budget: every distinct greedy plan from B = the total
		 * (no split) down to the largest activation, each at the largest
		 * B that gives it; the first that fits has the fewest splits. */
		uint64_t B = p->total;
		for (;;) {
			if ((r = fit_try(pl, s, b, p, budget, exact, B, fit, &prev, &n_prev, err)))
				break;
			uint64_t low = greedy_class_floor(p, B);
			if (!low || low - 1 < amax)
				break;
			B = low - 1;
		}
	}
	free(prev);
	if (r < 0)
		return -1;
	fit->found = r > 0;
	if (fit->found)
		fit->param = fit->tries[fit->n_tries - 1].param;
	return 0;
}
