/*
 * cmd_solve.c: `rematsim solve`, static checkpoint plans (SOLVERS.md): the
 * reset-point DP on a plain list of sizes, or a planner on a log's
 * activation profile, with the split points named as forward ops, the
 * plan's predicted largest chunk and, with --replay or --budget, the
 * plan replayed on the simulator; or a planner of every op (ilp, ilp-lp,
 * revolve) with its explicit schedule, always replayed and checked
 * against what the planner predicts.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "cmd.h"
#include "cmd_opts.h"
#include "devmem.h"
#include "ilp.h"
#include "plan.h"
#include "planners.h"
#include "profile.h"
#include "reset_points.h"
#include "revolve.h"
#include "scalar.h"
#include "schedule.h"
#include "util.h"

/* A plan's replay as JSON (cmd.h): its outcome, peak and counters beside
 * the baseline's. A baseline of 0 makes a ratio or overhead that is not
 * finite: null, not a missing object (cmd_json.c). */
json_t *plan_replay_json(const struct plan_result *res, const struct baseline *base)
{
	json_t *j = json_pack("{s:s, s:I, s:I, s:o, s:o, s:I, s:I, s:I, s:I, s:I}",
		"outcome", outcome_name(res->run.outcome),
		"peak_memory", (json_int_t)res->run.peak_memory,
		"baseline_memory", (json_int_t)base->memory,
		"ratio", cmd_json_finite(res->ratio), "overhead", cmd_json_finite(res->overhead),
		"model_compute", (json_int_t)res->run.model_compute,
		"remat_compute", (json_int_t)res->run.remat_compute,
		"baseline_compute", (json_int_t)base->compute,
		"evictions", (json_int_t)res->run.evictions,
		"remats", (json_int_t)res->run.remats);
	json_object_set_new(j, "wall_ms", json_real(res->wall_ms));
	return j;
}

static const char help_head[] =
	"usage: rematsim solve --sizes FILE -k K [--exact] [--json]\n"
	"       rematsim solve LOG --planner P [-k K | --segment-budget BYTES | --budget BYTES]\n"
	"                      [--modules] [--exact] [--replay] [--check] [--from-start] [--json]\n"
	"       rematsim solve LOG --splits A,B,... [--modules] [--check] [--from-start] [--json]\n"
	"       rematsim solve LOG --planner ilp --budget BYTES [--time-limit S] [--seed N]\n"
	"                      [--solver cbc|glpk] [--check] [--from-start] [--json]\n"
	"       rematsim solve LOG --planner ilp-lp --budget BYTES [--rounds N] [--seed N]\n"
	"                      [--time-limit S] [--solver cbc|glpk] [--check] [--json]\n"
	"       rematsim solve LOG --planner revolve --snapshots S [--check] [--json]\n"
	"       rematsim solve LOG --planner griewank-logn [--snapshots S] [--check] [--json]\n"
	"       rematsim solve LOG --planner knapsack --budget-fraction X [--check] [--json]\n"
	"\n"
	"Where to checkpoint. With --sizes, the layer memory tracker's reset-point\n"
	"DP on per-layer activation sizes (one whole number of bytes per line, `#`\n"
	"comments): the largest chunk sum when the list is cut into at most K+1\n"
	"chunks, and the split points (each the index where a chunk starts).\n"
	"With a LOG, planner P splits the log's activation profile (`rematsim\n"
	"profile`): the split points as forward-op indices, op names and log\n"
	"lines, and the segments they make: each segment before the last one is\n"
	"checkpointed (run it under a checkpoint wrapper: its activations are\n"
	"recomputed in the backward pass), the last one runs as usual; and the\n"
	"largest chunk of activations the plan predicts.\n"
	"\n"
	"The planners ilp, ilp-lp and revolve schedule every op instead: which\n"
	"ops each op's stage recomputes first, and when each value is freed. The\n"
	"schedule is replayed on the simulator and must give the peak and compute\n"
	"its planner predicts (a difference is an internal error, 70). ilp is\n"
	"Checkmate's MILP: the least recomputation within the budget, with the\n"
	"solver's status, MIP gap and solve time (the gap from the best of the\n"
	"solver's bound, the LP relaxation's and a Lagrangian bound, each shown);\n"
	"with --time-limit, the best schedule found by then. ilp-lp solves its LP relaxation and rounds it\n"
	"(nine thresholds and --rounds seeded draws), the cheapest rounding that\n"
	"fits. revolve is Griewank and Walther's binomial checkpointing of a\n"
	"uniform chain (`rematsim gen linear`) with S snapshots; griewank-logn\n"
	"runs it on any graph's chain of articulation points (Checkmate's\n"
	"baseline, S by default ceil(log2 n)), as the other Checkmate baselines\n"
	"(checkpoint-all, chen-*) make kept sets. knapsack is\n"
	"PyTorch's memory-budget knapsack (`rematsim solve --planner knapsack\n"
	"--help`). docs/solvers.md.\n"
	"\n"
	"  --planner P           ";
/* (the planners' names and options, from their registry) */
static const char help_tail[] =
	"  -k K                  checkpoints for dp (a whole number >= 0)\n"
	"  --segment-budget B    greedy: split where the running sum passes B bytes\n"
	"  --budget B            ilp, ilp-lp: the memory budget in bytes. dp, greedy:\n"
	"                        search for the plan with the fewest splits whose\n"
	"                        replayed peak is at most B bytes: dp's smallest k,\n"
	"                        greedy's largest segment budget (every k, every\n"
	"                        distinct greedy plan, in turn: the peak is not\n"
	"                        monotone; docs/solvers.md); implies --replay\n"
	"  --ratio R             --budget as a share of the log's baseline memory\n"
	"                        (floor(baseline memory x R) bytes, as replay's)\n"
	"  --time-limit S        ilp, ilp-lp: the whole command ends within S seconds of\n"
	"                        wall time (the solver runs in a child process killed\n"
	"                        in time; ilp then answers its MIP start, if any, with\n"
	"                        its gap); needed past 20,000 binary variables\n"
	"  --solver NAME         ilp, ilp-lp: cbc or glpk (default: the first built in)\n"
	"  --no-start            ilp: no MIP start (by default the cheapest schedule that\n"
	"                        fits among the offline Belady rule's, the repair of\n"
	"                        checkpoint-all's (and its randomized draws, --seed)\n"
	"                        and Checkmate's baselines' is the solver's first\n"
	"                        incumbent; past 100,000 binaries with --time-limit,\n"
	"                        a tenth of the time first improves it by ruin and\n"
	"                        repair (windows of stages kept whole, then\n"
	"                        repaired); the answer is never\n"
	"                        worse than it, and recomputations that no cheaper\n"
	"                        schedule makes are fixed to 0: of nodes that alone\n"
	"                        cost more, and by the Lagrangian's reduced costs)\n"
	"  --lns                 ilp with --time-limit: first 35 % of the time in a\n"
	"                        large-neighbourhood search from the start (windows\n"
	"                        of 16 stages solved exactly, the rest fixed, sliding)\n"
	"  --rounds N            ilp-lp: seeded random roundings besides the nine\n"
	"                        thresholds (default 100)\n"
	"  --seed N              ilp: the start's randomized repairs' seed; ilp-lp:\n"
	"                        the random roundings' (default 0)\n"
	"  --snapshots S         revolve, griewank-logn: snapshots, the one of the input\n"
	"                        included (>= 1; griewank-logn: default ceil(log2 n))\n"
	"  --exact               the DP's exact mode: the tracker's own split points\n"
	"                        (default: the fast mode, the same largest chunk)\n"
	"  --replay              replay the plan on the log: peak memory, compute\n"
	"                        overhead, rematerializations\n"
	"  --allocator pytorch[:CONF]  also put the plan's replay through the model\n"
	"                        of PyTorch's CUDA caching allocator (implies\n"
	"                        --replay; CONF in PYTORCH_CUDA_ALLOC_CONF syntax):\n"
	"                        reserved peak, fragmentation, segments\n"
	"                        (docs/allocator.md; not with --modules, --splits)\n"
	"  --modules             split only at module boundaries (a log with module\n"
	"                        calls, ANNOTATE ENTER/EXIT, as rematsim_torch records\n"
	"                        with model=): the planner splits the activations\n"
	"                        summed between the starts and ends of the calls a\n"
	"                        checkpoint wrapper can take; split points are named by\n"
	"                        module (the layer tracker's split_modules), and the\n"
	"                        modules to wrap listed; --replay replays the plan as\n"
	"                        applied (a split at each wrap's start and end);\n"
	"                        --budget searches dp's k (docs/solvers.md); not for\n"
	"                        the planners of every op (ilp, ilp-lp, revolve)\n"
	"  --depth N             with --modules: plans of the calls at module depth N\n"
	"                        only (0: the model's children, 1: theirs, as\n"
	"                        `rematsim profile --modules` lists): whole blocks,\n"
	"                        not their convolutions\n"
	"  --within NAME         with --modules: plans of the direct children of the\n"
	"                        module NAME only (e.g. --within layer3, or the\n"
	"                        blocks of a transformer's `blocks`)\n"
	"  --min-peak            with --modules: replay dp's plan for every k and keep\n"
	"                        the one of the smallest replayed peak (the first on a\n"
	"                        tie); prints the peak against k, and where more k\n"
	"                        costs more; implies --replay\n"
	"  --splits A,B,...      replay this plan: split points as forward-op indices\n"
	"                        or module names (the start of the module's call);\n"
	"                        with --modules each must be a module boundary\n"
	"  --check               verify the runtime's invariants during the replay\n"
	"  --from-start          use the log from its top, not from its START\n"
	"  --json                one JSON object (--sizes: {\"max_memory\", \"split_points\"})\n"
	"\n"
	"Byte counts take 8e9, 6GiB and 6GB.\n"
	"Exit status: 0 ok, 64 usage (a bad k, a budget below the largest single\n"
	"activation or below the log's floor, a split that is no module boundary,\n"
	"names no module or a module that cannot be checkpointed), 65 malformed\n"
	"sizes or log, a log with no forward ops (--modules: no module calls), no\n"
	"plan that fits the budget (ilp: infeasible, with the need that rules it\n"
	"out and the smallest budget that fits where solved for; or nothing found\n"
	"within the time limit), a log the planner cannot take (revolve: not a\n"
	"uniform chain; ilp: an op with views and storages of its own among its\n"
	"outputs; a graph too large for the ILP without --time-limit), 66\n"
	"missing input, 69 the solver asked for was not built in, 70 internal\n"
	"error (a schedule that does not replay to its own numbers).\n";

/* When this command started: --time-limit bounds the whole process. */
static double solve_t0;

/* The option that sets a planner's parameter, or NULL. */
static const char *param_option(const struct planner *pl)
{
	return pl->param == PLANNER_PARAM_K ? "-k" :
	       pl->param == PLANNER_PARAM_BYTES ? "--segment-budget" :
	       pl->param == PLANNER_PARAM_BUDGET ? "--budget" :
	       pl->param == PLANNER_PARAM_COUNT ? "--snapshots" : NULL;
}

/* The help, its list of planners from their registry (built once, kept). */
static const char *solve_help(void)
{
	static char *text;
	if (!text) {
		size_t len, n;
		FILE *f = open_memstream(&text, &len);
		fputs(help_head, f);
		const struct planner *pl = planner_list(&n);
		size_t col = 24; /* after "  --planner P           " */
		for (size_t i = 0; i < n; i++) {
			char item[96];
			snprintf(item, sizeof item, "%s%s%s%s", pl[i].name,
				 param_option(&pl[i]) ? " (" : "",
				 param_option(&pl[i]) ? param_option(&pl[i]) : "",
				 param_option(&pl[i]) ? ")" : "");
			if (i && col + 2 + strlen(item) > 78) { /* wrap under the first */
				fprintf(f, ",\n%24s", "");
				col = 24;
			} else if (i) {
				fputs(", ", f);
				col += 2;
			}
			fputs(item, f);
			col += strlen(item);
		}
		fputc('\n', f);
		fputs(help_tail, f);
		fclose(f);
	}
	return text;
}

/* A whole number >= 0, digits only (not 1e3: k counts checkpoints). */
static int parse_count(const char *text, uint64_t *out)
{
	if (!*text)
		return -1;
	uint64_t v = 0;
	for (const char *p = text; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static void print_json(json_t *o)
{
	char *line = cmd_json_text(json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17)));
	puts(line);
	free(line);
	json_decref(o);
}

static int solve_sizes(const char *path, uint64_t k, bool exact, bool json)
{
	uint64_t *a;
	size_t n;
	struct rs_error err;
	if (reset_points_read_sizes(path, &a, &n, &err)) {
		rs_error_print(&err);
		return err.status;
	}
	struct reset_plan plan;
	size_t kk = k > n ? n + 1 : (size_t)k;
	if (exact) {
		if (reset_points_exact(a, n, kk, &plan, &err)) {
			fprintf(stderr, "rematsim solve: %s\n", err.msg);
			free(a);
			return err.status;
		}
	} else {
		reset_points_fast(a, n, kk, &plan);
	}
	if (json) {
		json_t *o = json_object(), *sp = json_array();
		json_object_set_new(o, "max_memory", cmd_json_u64(plan.max_chunk));
		for (size_t i = 0; i < plan.n_splits; i++)
			json_array_append_new(sp, json_integer((json_int_t)plan.splits[i]));
		json_object_set_new(o, "split_points", sp);
		print_json(o);
	} else {
		printf("max_memory: %" PRIu64 "\n", plan.max_chunk);
		printf("split_points:");
		for (size_t i = 0; i < plan.n_splits; i++)
			printf(" %zu", plan.splits[i]);
		printf("\n");
		printf("# %zu sizes, k = %" PRIu64 ", %s mode\n", n, k, exact ? "exact" : "fast");
	}
	reset_plan_free(&plan);
	free(a);
	return 0;
}

static void param_text(const struct planner *pl, uint64_t param, char *buf, size_t size)
{
	if (pl->param == PLANNER_PARAM_NONE)
		snprintf(buf, size, "%s", pl->name);
	else
		snprintf(buf, size, "%s, %s = %" PRIu64, pl->name, pl->param_name, param);
}

/* "name@line" of node v's op. */
static const struct sched_op *node_op(const struct schedule *s, const struct profile *p, uint32_t v)
{
	return &s->ops[p->graph->op[v]];
}

static json_t *op_json(const struct schedule *s, const struct profile *p, uint32_t v)
{
	const struct sched_op *op = node_op(s, p, v);
	return json_pack("{s:s, s:I}", "op", schedule_str(s, op->name), "line", (json_int_t)op->line);
}

/* --allocator: the plan's replay through the allocator model, as keys of
 * the replay's JSON object and as one text line (dev NULL: none asked). */
static void put_device_json(json_t *j, const char *alloc_text, const struct devmem_result *dev)
{
	if (!dev)
		return;
	json_object_set_new(j, "allocator", json_string(alloc_text));
	json_object_set_new(j, "reserved_peak", json_integer((json_int_t)dev->reserved_peak));
	json_object_set_new(j, "allocated_peak", json_integer((json_int_t)dev->allocated_peak));
	json_object_set_new(j, "fragmentation_at_reserved_peak",
			    json_integer((json_int_t)dev->fragmentation_at_reserved_peak));
	json_object_set_new(j, "segments_peak", json_integer((json_int_t)dev->segments_peak));
}

static void put_device_text(const char *alloc_text, const struct devmem_result *dev)
{
	if (!dev)
		return;
	printf("device (%s): reserved peak %" PRIu64 " bytes, fragmentation at it %" PRIu64
	       " bytes (reserved minus allocated), allocated peak %" PRIu64 " bytes, at most %" PRIu64
	       " segment%s\n", alloc_text, dev->reserved_peak, dev->fragmentation_at_reserved_peak,
	       dev->allocated_peak, dev->segments_peak, dev->segments_peak == 1 ? "" : "s");
}

static void print_steps_json(const struct schedule *s, const struct planner *pl,
			     const struct profile *p, const struct planner_args *a,
			     const struct planner_plan *plan, const struct baseline *base,
			     const struct plan_result *res,
			     const char *alloc_text, const struct devmem_result *dev)
{
	const struct steps_cost *c = &plan->cost;
	const struct ilp_result *r = &plan->ilp;
	json_t *o = json_object();
	json_object_set_new(o, "log", json_string(s->source));
	json_object_set_new(o, "planner", json_string(pl->name));
	if (pl->param_name)
		json_object_set_new(o, pl->param_name, json_integer((json_int_t)a->param));
	json_object_set_new(o, "forward_ops", json_integer((json_int_t)p->n));
	json_object_set_new(o, "ops", json_integer((json_int_t)p->graph->n));
	if (pl->param == PLANNER_PARAM_BUDGET) {
		json_t *so = json_object();
		json_object_set_new(so, "name", json_string(r->solver));
		json_object_set_new(so, "status", json_string(ilp_status_name(r->status)));
		json_object_set_new(so, "seconds", json_real(r->seconds));
		json_object_set_new(so, "cpu_seconds", isfinite(r->cpu_seconds)
				    ? json_real(r->cpu_seconds) : json_null());
		json_object_set_new(so, "time_limit",
				    a->time_limit > 0 ? json_real(a->time_limit) : json_null());
		json_object_set_new(so, "objective", json_real(r->objective));
		json_object_set_new(so, "bound", isfinite(r->bound) ? json_real(r->bound) : json_null());
		json_object_set_new(so, "gap", isfinite(r->gap) ? json_real(r->gap) : json_null());
		json_object_set_new(so, "lagrange_bound", isfinite(r->lagrange_bound)
				    ? json_real(r->lagrange_bound) : json_null());
		json_object_set_new(so, "lagrange_iterations",
				    json_integer((json_int_t)r->lagrange_iterations));
		json_object_set_new(so, "lagrange_seconds", json_real(r->lagrange_seconds));
		if (strcmp(pl->name, "ilp-lp")) {
			bool lp = isfinite(r->lp_objective) && r->lp_objective > 0;
			json_object_set_new(so, "lp_bound", lp ? json_real(r->lp_objective) : json_null());
			json_object_set_new(so, "lp_stopped", lp ? json_boolean(r->lp_stopped)
								 : json_null());
		}
		json_object_set_new(so, "binaries", r->unbuilt && !r->n_binaries ? json_null()
				    : json_integer((json_int_t)r->n_binaries));
		json_object_set_new(so, "continuous", json_integer((json_int_t)r->n_continuous));
		json_object_set_new(so, "built", json_boolean(!r->unbuilt));
		json_object_set_new(so, "rows", json_integer((json_int_t)r->n_rows));
		json_object_set_new(so, "nonzeros", json_integer((json_int_t)r->n_nonzeros));
		json_object_set_new(so, "memory_unit", json_integer((json_int_t)r->mem_unit));
		if (r->start_given)
			json_object_set_new(so, "start", json_pack("{s:s, s:f, s:b, s:b, s:I, s:I, s:I, s:I}",
				"from", r->start_from, "objective", r->start_objective, "accepted",
				(int)r->start_accepted, "answer", (int)r->start_answer,
				"fixed_by_cost", (json_int_t)r->fixed_by_cost,
				"fixed_by_bound", (json_int_t)r->fixed_by_bound,
				"seed", (json_int_t)a->seed, "ruin_rounds", (json_int_t)r->ruin_rounds));
		else
			json_object_set_new(so, "start", json_null());
		if (!strcmp(pl->name, "ilp-lp")) {
			json_object_set_new(so, "lp_objective", json_real(r->lp_objective));
			json_object_set_new(so, "threshold",
					    r->round ? json_null() : json_real(r->threshold));
			json_object_set_new(so, "round", json_integer(r->round));
			json_object_set_new(so, "roundings", json_integer(9 + (json_int_t)a->rounds));
			json_object_set_new(so, "roundings_fit", json_integer(r->roundings_fit));
			json_object_set_new(so, "seed", json_integer((json_int_t)a->seed));
		}
		json_object_set_new(o, "solver", so);
	} else if (!strcmp(pl->name, "griewank-logn")) {
		json_object_set_new(o, "snapshots", json_integer((json_int_t)plan->snapshots));
		json_object_set_new(o, "chain_steps", json_integer((json_int_t)plan->chain));
		json_object_set_new(o, "forward_steps", json_integer((json_int_t)plan->fwd_steps));
	} else if (pl->param == PLANNER_PARAM_COUNT) {
		json_object_set_new(o, "forward_steps", json_integer((json_int_t)plan->fwd_steps));
		json_object_set_new(o, "closed_form",
				    json_integer((json_int_t)revolve_closed_form(p->n, a->param)));
	}
	json_object_set_new(o, "schedule", json_pack("{s:I, s:I, s:I, s:I}",
		"peak_memory", (json_int_t)c->peak, "compute", (json_int_t)c->compute,
		"remat_compute", (json_int_t)c->remat_compute, "remats", (json_int_t)c->remats));
	json_t *stages = json_array();
	const struct plan_steps *ps = &plan->steps;
	size_t f = 0;
	json_t *rec = json_array(), *fr = json_array();
	uint32_t t = 0;
	for (size_t k = 0; k < ps->n_steps; k++) {
		const struct plan_step *st = &ps->steps[k];
		if (st->node < t)
			json_array_append_new(rec, op_json(s, p, st->node));
		for (uint32_t j = 0; j < st->n_free; j++)
			json_array_append_new(fr, op_json(s, p, ps->frees[f + j]));
		f += st->n_free;
		if (st->node == t) {
			json_t *so = op_json(s, p, t);
			json_object_set_new(so, "stage", json_integer(t));
			json_object_set_new(so, "recompute", rec);
			json_object_set_new(so, "free", fr);
			json_array_append_new(stages, so);
			rec = json_array();
			fr = json_array();
			t++;
		}
	}
	/* the last stage: before the log's final pins */
	json_array_append_new(stages, json_pack("{s:I, s:n, s:n, s:o, s:o}", "stage", (json_int_t)t,
						"op", "line", "recompute", rec, "free", fr));
	json_object_set_new(o, "stages", stages);
	json_t *rp = json_pack("{s:s, s:s, s:I, s:I, s:f, s:f, s:I, s:I, s:I, s:I, s:I}",
		"outcome", outcome_name(res->run.outcome), "runtime", runtime_kind_name(res->runtime),
		"peak_memory", (json_int_t)res->run.peak_memory,
		"baseline_memory", (json_int_t)base->memory,
		"ratio", res->ratio, "overhead", res->overhead,
		"model_compute", (json_int_t)res->run.model_compute,
		"remat_compute", (json_int_t)res->run.remat_compute,
		"baseline_compute", (json_int_t)base->compute,
		"evictions", (json_int_t)res->run.evictions,
		"remats", (json_int_t)res->run.remats);
	json_object_set_new(rp, "wall_ms", json_real(res->wall_ms));
	put_device_json(rp, alloc_text, dev);
	json_object_set_new(o, "replay", rp);
	print_json(o);
}

/* A lower bound for people: whole as is, else rounded down to a tenth
 * (never shown above what was proved; --json has every digit). */
static const char *bound_text(double x, char *buf, size_t size)
{
	double w = nearbyint(x) + 0.0; /* -0 shown as 0 */
	if (fabs(x - w) < 1e-6 * (fabs(x) > 1 ? fabs(x) : 1))
		snprintf(buf, size, "%.17g", w);
	else
		snprintf(buf, size, "%.1f", floor(x * 10) / 10);
	return buf;
}

static void print_steps_text(const struct schedule *s, const struct planner *pl,
			     const struct profile *p, const struct planner_args *a,
			     const struct planner_plan *plan, const struct baseline *base,
			     const struct plan_result *res,
			     const char *alloc_text, const struct devmem_result *dev)
{
	const struct steps_cost *c = &plan->cost;
	const struct ilp_result *r = &plan->ilp;
	printf("log: %s\n", s->source);
	if (pl->param_name)
		printf("planner: %s, %s = %" PRIu64 "%s\n", pl->name, pl->param_name, a->param,
		       pl->param == PLANNER_PARAM_BUDGET || pl->param == PLANNER_PARAM_BYTES
			       ? " bytes" : "");
	else
		printf("planner: %s\n", pl->name);
	printf("ops: %zu (%zu forward), constants: %" PRIu64 " bytes\n", p->graph->n, p->n,
	       p->graph->static_bytes[p->graph->n]);
	if (pl->param == PLANNER_PARAM_BUDGET && r->unbuilt) {
		if (r->n_binaries)
			printf("model: %zu binary variables, not built: the time limit came first\n",
			       r->n_binaries);
		else
			printf("model: not built: the time limit came first\n");
		if (r->start_given)
			printf("start: %s, %.17g ns of recomputation; the answer (no lower bound: "
			       "gap 100%%)\n", r->start_from, r->start_objective);
	} else if (pl->param == PLANNER_PARAM_BUDGET) {
		printf("model: %zu binary and %zu continuous variables%s, %zu rows, %zu nonzeros "
		       "(memory in units of %" PRIu64 " bytes)\n", r->n_binaries, r->n_continuous,
		       strcmp(pl->name, "ilp-lp") ? "" : " (the binaries relaxed to [0, 1])", r->n_rows,
		       r->n_nonzeros, r->mem_unit);
		if (!strcmp(pl->name, "ilp-lp")) {
			char bt[40];
			printf("solver: %s, LP relaxation solved in %.3f s (%.3f s CPU): %s ns of "
			       "recomputation\n", r->solver, r->seconds, r->cpu_seconds,
			       bound_text(r->lp_objective, bt, sizeof bt));
			if (r->round)
				printf("rounding: random draw %u (seed %" PRIu64 ")", r->round, a->seed);
			else
				printf("rounding: threshold %.1f", r->threshold);
			printf(" (%u of %u roundings fit; the cheapest): %.17g ns of recomputation, "
			       "%.3g%% above the relaxation\n", r->roundings_fit, 9 + a->rounds,
			       r->objective, 100 * r->gap);
		} else {
			char ct[48];
			if (isfinite(r->cpu_seconds))
				snprintf(ct, sizeof ct, "%.3f s CPU", r->cpu_seconds);
			else
				snprintf(ct, sizeof ct, "CPU time unknown: killed at the deadline");
			printf("solver: %s, %s in %.3f s (%s): recomputation %.17g ns",
			       r->solver, ilp_status_name(r->status), r->seconds, ct, r->objective);
			char bt[40];
			if (isfinite(r->bound))
				printf(", lower bound %s ns, MIP gap %.3g%%\n",
				       bound_text(r->bound, bt, sizeof bt), 100 * r->gap);
			else
				printf(", no lower bound known\n");
			if (isfinite(r->lagrange_bound)) {
				printf("bounds: Lagrangian %s ns (%u iterations, %.3f s)",
				       bound_text(r->lagrange_bound, bt, sizeof bt), r->lagrange_iterations,
				       r->lagrange_seconds);
				if (isfinite(r->lp_objective) && r->lp_objective > 0)
					printf(", LP relaxation %s ns%s",
					       bound_text(r->lp_objective, bt, sizeof bt),
					       r->lp_stopped ? " (from its row prices: Clp stopped "
							       "before its end)" : "");
				printf("; the gap is from the best of these and the solver's\n");
			}
			if (r->start_given) {
				printf("start: %s, %.17g ns of recomputation (%s)%s\n", r->start_from,
				       r->start_objective,
				       r->start_accepted ? "a point of the model, handed to the solver"
							 : "not a point of the model: not handed over",
				       r->start_answer ? "; the answer is the start (the solver found "
							 "nothing cheaper in its time)" : "");
				if (r->fixed_by_cost || r->fixed_by_bound)
					printf("fixed: %zu recomputations of nodes that alone cost more "
					       "than the start, %zu by the Lagrangian's reduced costs (set "
					       "to 0: no cheaper schedule has them)\n", r->fixed_by_cost,
					       r->fixed_by_bound);
			} else if (!a->no_start) {
				printf("start: none fits the budget (Belady, Checkmate's baselines)\n");
			}
		}
	} else if (!strcmp(pl->name, "griewank-logn")) {
		printf("griewank-logn: %" PRIu64 " snapshots%s on a chain of %zu segments (cut at "
		       "the articulation points): %" PRIu64 " forward steps of the chain\n",
		       plan->snapshots, a->param ? "" : " (ceil(log2 n))", plan->chain,
		       plan->fwd_steps);
	} else if (pl->param == PLANNER_PARAM_COUNT) {
		printf("revolve: %" PRIu64 " snapshots, %zu steps: %" PRIu64 " forward steps "
		       "(t n - C(s + t, s + 1) = %" PRIu64 "), %" PRIu64 " of them recomputations\n",
		       a->param, p->n, plan->fwd_steps, revolve_closed_form(p->n, a->param),
		       c->remats);
	}
	printf("schedule: peak %" PRIu64 " bytes (%.4g of the baseline %" PRIu64 "), compute %"
	       PRId64 " ns (overhead %.6g), %" PRIu64 " recomputations (%" PRId64 " ns)\n",
	       c->peak, base->memory ? (double)c->peak / (double)base->memory : INFINITY,
	       base->memory, c->compute, res->overhead, c->remats, c->remat_compute);
	printf("replay: %s on %s, peak %" PRIu64 " bytes, overhead %.6g, %" PRIu64 " remats, %"
	       PRIu64 " evictions: the schedule's own numbers\n",
	       outcome_name(res->run.outcome), runtime_kind_name(res->runtime),
	       res->run.peak_memory, res->overhead, res->run.remats, res->run.evictions);
	put_device_text(alloc_text, dev);
	if (!c->remats) {
		printf("recomputations: none\n");
		return;
	}
	printf("recomputations (each stage runs them just before its op):\n");
	printf("  %-6s %-8s %-20s %s\n", "stage", "line", "op", "recomputes (op@line)");
	const struct plan_steps *ps = &plan->steps;
	uint32_t t = 0;
	bool open = false;
	for (size_t k = 0; k < ps->n_steps; k++) {
		const struct plan_step *st = &ps->steps[k];
		if (st->node < t) {
			if (!open && t < p->graph->n) {
				const struct sched_op *op = node_op(s, p, t);
				printf("  %-6u %-8u %-20s", t, op->line, rs_text_safe(schedule_str(s, op->name)));
			} else if (!open) {
				printf("  %-6u %-8s %-20s", t, "-", "(end: final pins)");
			}
			open = true;
			const struct sched_op *ro = node_op(s, p, st->node);
			printf(" %s@%u", rs_text_safe(schedule_str(s, ro->name)), ro->line);
		}
		if (st->node == t) {
			if (open)
				printf("\n");
			open = false;
			t++;
		}
	}
	if (open)
		printf("\n");
}

/* What the command line asked for. */
struct solve_args {
	struct opt_parser o; /* --budget, --seed */
	const char *sizes, *pname, *log, *solver;
	const struct planner *pl;
	uint64_t k, seg, snapshots, rounds;
	double time_limit;
	bool have_k, have_seg, have_budget, have_snap, have_ilp_opt, have_rounds;
	bool no_start; /* ilp: no MIP start */
	bool lns;      /* ilp: large-neighbourhood search from the start */
	long depth;          /* --depth N, -1 without */
	const char *within;  /* --within NAME */
	bool min_peak;       /* --min-peak */
	bool alloc_on;       /* --allocator: the plan's replay through the model */
	struct alloc_config alloc;
	char alloc_text[256];
	bool exact, replay, check, json;
	bool modules;       /* --modules: solve_modules (cmd_solve_modules.c) */
	const char *splits; /* --splits: likewise */
	struct read_options ropt;
};

/* The planner and its parameter as given: 0, or EXIT_USAGE after a message. */
static int check_planner(struct solve_args *a)
{
	char names[256];
	planner_names(names, sizeof names);
	const struct planner *pl = a->pname ? planner_find(a->pname) : NULL;
	if (!pl) {
		if (a->pname)
			fprintf(stderr, "rematsim solve: unknown planner '%s' (known: %s)\n", a->pname,
				names);
		else
			fprintf(stderr, "rematsim solve: --planner is required (%s)\n", names);
		return EXIT_USAGE;
	}
	a->pl = pl;
	bool is_ilp = pl->param == PLANNER_PARAM_BUDGET, lp = !strcmp(pl->name, "ilp-lp");
	if (a->have_rounds && !lp) {
		fprintf(stderr, "rematsim solve: --rounds is for ilp-lp only\n");
		return EXIT_USAGE;
	}
	if (a->o.has_seed && !is_ilp) {
		fprintf(stderr, "rematsim solve: --seed is for ilp and ilp-lp only\n");
		return EXIT_USAGE;
	}
	if (a->have_ilp_opt && !is_ilp) {
		fprintf(stderr, "rematsim solve: --time-limit and --solver are for ilp and ilp-lp "
				"only\n");
		return EXIT_USAGE;
	}
	bool snap_optional = !strcmp(pl->name, "griewank-logn");
	if (a->have_snap ? pl->param != PLANNER_PARAM_COUNT
			 : pl->param == PLANNER_PARAM_COUNT && !snap_optional) {
		fprintf(stderr, "rematsim solve: %s\n",
			a->have_snap ? "--snapshots is for revolve and griewank-logn only"
				     : "revolve needs --snapshots S");
		return EXIT_USAGE;
	}
	if (is_ilp && (a->have_k || a->have_seg || !a->have_budget)) {
		fprintf(stderr, "rematsim solve: planner %s takes --budget BYTES (the memory "
				"budget) and no -k or --segment-budget\n", pl->name);
		return EXIT_USAGE;
	}
	if (pl->param == PLANNER_PARAM_COUNT && (a->have_k || a->have_seg || a->have_budget)) {
		fprintf(stderr, "rematsim solve: planner %s takes --snapshots only\n", pl->name);
		return EXIT_USAGE;
	}
	if (is_ilp || pl->param == PLANNER_PARAM_COUNT) {
		a->replay = true; /* an explicit schedule is checked by its replay */
		return 0;
	}
	if (a->have_budget && (a->have_k || a->have_seg)) {
		fprintf(stderr, "rematsim solve: --budget searches the parameter: give it "
				"without -k or --segment-budget\n");
		return EXIT_USAGE;
	}
	if ((a->have_k && pl->param != PLANNER_PARAM_K) ||
	    (a->have_seg && pl->param != PLANNER_PARAM_BYTES)) {
		fprintf(stderr, "rematsim solve: planner %s takes %s\n", pl->name,
			param_option(pl) ? param_option(pl) : "no parameter");
		return EXIT_USAGE;
	}
	if (!a->have_budget && ((pl->param == PLANNER_PARAM_K && !a->have_k) ||
				(pl->param == PLANNER_PARAM_BYTES && !a->have_seg))) {
		fprintf(stderr, "rematsim solve: planner %s needs %s (or --budget)\n", pl->name,
			pl->param == PLANNER_PARAM_K ? "-k K" : "--segment-budget BYTES");
		return EXIT_USAGE;
	}
	if (a->have_budget && pl->param == PLANNER_PARAM_NONE) {
		fprintf(stderr, "rematsim solve: planner %s has no parameter to search: "
				"--budget needs dp or greedy\n", pl->name);
		return EXIT_USAGE;
	}
	if (a->have_budget || pl->needs_graph)
		a->replay = true; /* an explicit schedule is checked by its replay */
	return 0;
}

/* Options and operands: 0, -1 after --help (exit 0), or an exit status.
 * With --sizes, the rest is not checked here (solve_sizes). */
static int parse_args(int argc, char **argv, struct solve_args *a)
{
	static const struct option longopts[] = {
		{"sizes", required_argument, NULL, 'z'},
		{"planner", required_argument, NULL, 'P'},
		{"segment-budget", required_argument, NULL, 'B'},
		OPT_ROW_BUDGET,
		OPT_ROW_RATIO,
		{"time-limit", required_argument, NULL, 'T'},
		{"solver", required_argument, NULL, 'v'},
		{"rounds", required_argument, NULL, 'R'},
		OPT_ROW_SEED,
		{"snapshots", required_argument, NULL, 'n'},
		{"no-start", no_argument, NULL, 'N'},
		{"lns", no_argument, NULL, 'L'},
		{"exact", no_argument, NULL, 'e'},
		{"replay", no_argument, NULL, 'r'},
		{"check", no_argument, NULL, 'c'},
		{"from-start", no_argument, NULL, 's'},
		{"json", no_argument, NULL, 'j'},
		{"modules", no_argument, NULL, 'm'},
		{"splits", required_argument, NULL, 'S'},
		{"depth", required_argument, NULL, 'D'},
		{"within", required_argument, NULL, 'W'},
		{"min-peak", no_argument, NULL, 'M'},
		{"allocator", required_argument, NULL, 'Y'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	memset(a, 0, sizeof *a);
	a->rounds = PLANNER_DEFAULT_ROUNDS;
	a->depth = -1;
	opt_init(&a->o, "solve", solve_help(), 1);
	int c;
	while ((c = opt_next(&a->o, argc, argv, "hk:", longopts)) != -1) {
		switch (c) {
		case OPT_FAIL: return a->o.status;
		case 'z': a->sizes = optarg; break;
		case 'P': a->pname = optarg; break;
		case 'k':
			if (parse_count(optarg, &a->k)) {
				fprintf(stderr, "rematsim solve: -k wants a whole number of checkpoints "
						"(0 or more), not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			a->have_k = true;
			break;
		case 'B':
			if (opt_bytes("solve", "--segment-budget", optarg, &a->seg))
				return EXIT_USAGE;
			a->have_seg = true;
			break;
		case 'T': {
			char *end;
			errno = 0;
			a->time_limit = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(a->time_limit > 0) ||
			    a->time_limit > 1e9) {
				fprintf(stderr, "rematsim solve: --time-limit wants seconds above 0 "
						"(e.g. 60 or 0.5), not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			a->have_ilp_opt = true;
			break;
		}
		case 'v':
			if (!ilp_solver_find(optarg)) {
				fprintf(stderr, "rematsim solve: unknown solver '%s' (cbc, glpk)\n",
					optarg);
				return EXIT_USAGE;
			}
			a->solver = optarg;
			a->have_ilp_opt = true;
			break;
		case 'R':
			if (parse_count(optarg, &a->rounds) || a->rounds > 1000000) {
				fprintf(stderr, "rematsim solve: --rounds wants a whole number up to "
						"1000000, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			a->have_rounds = true;
			break;
		case 'n':
			if (parse_count(optarg, &a->snapshots) || !a->snapshots) {
				fprintf(stderr, "rematsim solve: --snapshots wants a whole number of 1 "
						"or more, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			a->have_snap = true;
			break;
		case 'N': a->no_start = true; a->have_ilp_opt = true; break;
		case 'L': a->lns = true; a->have_ilp_opt = true; break;
		case 'e': a->exact = true; break;
		case 'r': a->replay = true; break;
		case 'Y': {
			char why[512];
			if (alloc_spec_parse(&a->alloc, optarg, why, sizeof why)) {
				fprintf(stderr, "rematsim solve: --allocator '%s': %s\n", optarg, why);
				return EXIT_USAGE;
			}
			a->alloc_on = true;
			snprintf(a->alloc_text, sizeof a->alloc_text, "%s", optarg);
			break;
		}
		case 'c': a->check = true; break;
		case 's': a->ropt.from_start = true; break;
		case 'j': a->json = true; break;
		case 'm': a->modules = true; break;
		case 'S': a->splits = optarg; break;
		case 'D': {
			uint64_t d;
			if (parse_count(optarg, &d) || d > 1000) {
				fprintf(stderr, "rematsim solve: --depth wants a module depth, a whole "
						"number from 0 (the model's children; `rematsim profile "
						"--modules` lists each call's), not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			a->depth = (long)d;
			break;
		}
		case 'W': a->within = optarg; break;
		case 'M': a->min_peak = true; break;
		case 'h':
			fputs(solve_help(), stdout);
			return -1;
		}
	}
	if (a->o.n_ratios && a->o.n_budgets) {
		fprintf(stderr, "rematsim solve: --ratio is the budget as a share of the baseline "
				"memory: give --ratio or --budget, not both\n");
		return EXIT_USAGE;
	}
	/* --ratio R: --budget floor(baseline memory x R), once the log is read */
	a->have_budget = a->o.n_budgets > 0 || a->o.n_ratios > 0;
	if (a->sizes) {
		if (optind != argc || a->pname || a->have_seg || a->have_budget || a->replay ||
		    a->check || a->have_snap || a->have_ilp_opt || a->have_rounds || a->o.has_seed ||
		    a->modules || a->splits || a->alloc_on) {
			fprintf(stderr, "rematsim solve: --sizes takes only -k, --exact and --json\n");
			return EXIT_USAGE;
		}
		if (!a->have_k) {
			fprintf(stderr, "rematsim solve: --sizes needs -k K\n");
			return EXIT_USAGE;
		}
		return 0;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "rematsim solve: give one LOG (or --sizes FILE)\n");
		fputs(solve_help(), stderr);
		return EXIT_USAGE;
	}
	a->log = argv[optind];
	if ((a->depth >= 0 || a->within || a->min_peak) && !a->modules) {
		fprintf(stderr, "rematsim solve: --depth, --within and --min-peak are for module "
				"plans: give --modules\n");
		return EXIT_USAGE;
	}
	if (a->min_peak && (a->have_k || a->have_budget || a->splits)) {
		fprintf(stderr, "rematsim solve: --min-peak tries every k itself: no -k, --budget "
				"or --splits with it\n");
		return EXIT_USAGE;
	}
	if (a->alloc_on && (a->modules || a->splits)) {
		fprintf(stderr, "rematsim solve: --allocator replays a planner's plan through the "
				"allocator model; module plans and --splits (wrapped segments "
				"recomputed whole) do not take it yet: give --planner P\n");
		return EXIT_USAGE;
	}
	if (a->alloc_on)
		a->replay = true; /* the model follows the plan's replay */
	if (a->min_peak && !a->pname)
		a->pname = "dp";
	if (a->min_peak)
		a->have_k = true; /* (the k is the search's; check_planner wants one) */
	if (a->splits) {
		if (a->pname || a->have_k || a->have_seg || a->have_budget || a->exact ||
		    a->have_snap || a->have_ilp_opt || a->have_rounds || a->o.has_seed) {
			fprintf(stderr, "rematsim solve: --splits gives the plan: no --planner, -k, "
					"--segment-budget, --budget, --exact or a planner's option "
					"with it\n");
			return EXIT_USAGE;
		}
		return 0;
	}
	int rc = check_planner(a);
	if (!rc && a->modules && a->pl->needs_graph) {
		fprintf(stderr, "rematsim solve: --modules wants split points at module "
				"boundaries, and planner %s schedules every op instead: give a "
				"planner of split points\n", a->pl->name);
		return EXIT_USAGE;
	}
	if (!rc && a->min_peak && a->pl->param != PLANNER_PARAM_K) {
		fprintf(stderr, "rematsim solve: --min-peak searches dp's k: give --planner dp\n");
		return EXIT_USAGE;
	}
	if (a->min_peak)
		a->replay = true;
	if (!rc && a->modules && a->have_budget && a->pl->param != PLANNER_PARAM_K) {
		fprintf(stderr, "rematsim solve: --modules --budget searches dp's k: give "
				"--planner dp\n");
		return EXIT_USAGE;
	}
	return rc;
}
/* A plan for a log, and its replay or budget search when asked for. */
struct solve_result {
	struct profile p;
	struct baseline base;
	struct planner_fit *fit; /* --budget: the search */
	uint64_t param;
	struct planner_args args;
	struct planner_plan plan;
	struct plan_result res;  /* --replay */
	bool has_device;         /* --allocator: the replay through the model */
	struct devmem_result device;
	uint64_t chunk;          /* the largest chunk the plan predicts */
};

static void solve_result_free(struct solve_result *r)
{
	planner_plan_free(&r->plan);
	if (r->fit)
		planner_fit_free(r->fit);
	free(r->fit);
	profile_free(&r->p);
}

/* Profile the log, find the plan (searching the parameter with --budget),
 * replay it with --replay: 0, or -1 with err. */
static int solve_log(const struct solve_args *a, const struct schedule *s, struct solve_result *r,
		     struct rs_error *err)
{
	const struct planner *pl = a->pl;
	memset(r, 0, sizeof *r);
	if (profile_build(s, &r->p, err))
		return -1;
	if (a->replay)
		baseline_run(s, &r->base);
	bool is_ilp = pl->param == PLANNER_PARAM_BUDGET;
	r->param = pl->param == PLANNER_PARAM_K ? a->k : pl->param == PLANNER_PARAM_BYTES ? a->seg
		   : is_ilp ? a->o.budgets[0] : a->snapshots;
	if (a->have_budget && !is_ilp && a->o.budgets[0] < schedule_floor(s, false))
		return rs_error_set(err, EXIT_USAGE, NULL, 0,
				    "budget %" PRIu64 " bytes is below the log's floor, %" PRIu64 " bytes "
				    "(what a replay holds pinned at the end: the constants and the outputs "
				    "still held): no plan can fit it", a->o.budgets[0],
				    schedule_floor(s, false));
	if (a->have_budget && !is_ilp) {
		uint64_t budget = a->o.budgets[0];
		r->fit = xcalloc(1, sizeof *r->fit);
		if (planner_fit(pl, s, &r->base, &r->p, budget, a->exact, r->fit, err))
			return -1;
		if (!r->fit->found) {
			const struct planner_fit_try *t = &r->fit->tries[r->fit->best];
			return rs_error_set(err, EXIT_DATAERR, s->source, 0,
					    "no %s plan fits in %" PRIu64 " bytes: the smallest replayed "
					    "peak is %" PRIu64 " bytes, at %s = %" PRIu64 " (every %s "
					    "tried: %zu replays)", pl->name, budget, t->peak,
					    pl->param_name, t->param,
					    pl->param == PLANNER_PARAM_K ? "k" : "distinct plan",
					    r->fit->n_replays);
		}
		r->param = r->fit->param;
	}
	if (planner_check_param(pl, r->p.bytes, r->p.n, r->param, err))
		return -1;
	r->args = (struct planner_args){
		.param = r->param, .exact = a->exact, .time_limit = a->time_limit,
		.solver = a->solver, .seed = a->o.seed, .rounds = (unsigned)a->rounds,
		.no_start = a->no_start,
		.lns = a->lns ? 1 : 0,
		/* the whole process within the limit: the solver's child is
		 * killed at 96 % of it, less 20 ms for the replay and output */
		.deadline = a->time_limit > 0 ? solve_t0 + 0.96 * a->time_limit - 0.02 : 0,
	};
	if (a->replay) {
		/* --allocator: the same replay, its every allocation and free also
		 * through the model of PyTorch's caching allocator (devmem.h) */
		struct devmem *dm = a->alloc_on ? devmem_new(s, &a->alloc, UINT64_MAX) : NULL;
		int rc = planner_replay_observed(pl, s, &r->base, &r->p, &r->args, a->check,
						 dm ? devmem_on_event : NULL, dm, &r->plan, &r->res,
						 err);
		if (dm) {
			devmem_result(dm, &r->device);
			devmem_free(dm);
			if (!rc && r->device.broken)
				rs_bug("solve --allocator: the allocator's follower lost the plan's memory");
			r->has_device = !rc;
		}
		if (rc)
			return -1;
	} else if (planner_plan(pl, &r->p, &r->args, &r->plan, err)) {
		return -1;
	}
	if (r->plan.kind == PLAN_SPLITS)
		r->chunk = planner_max_chunk(r->p.bytes, r->p.n, r->plan.split.splits,
					     r->plan.split.n_splits);
	return 0;
}

/* --budget's search as JSON: the budget, whether and where a plan fits,
 * the smallest peak seen, and every plan tried. */
static json_t *search_json(const struct solve_args *a, const struct planner_fit *fit)
{
	const struct planner *pl = a->pl;
	json_t *f = json_object(), *tries = json_array();
	json_object_set_new(f, "budget", cmd_json_u64(a->o.budgets[0]));
	json_object_set_new(f, "found", json_boolean(fit->found));
	json_object_set_new(f, pl->param_name,
			    fit->found ? json_integer((json_int_t)fit->param) : json_null());
	if (fit->n_tries) {
		const struct planner_fit_try *b = &fit->tries[fit->best];
		json_object_set_new(f, "best", json_pack("{s:I, s:o}", pl->param_name,
			(json_int_t)b->param, "peak_memory", cmd_json_u64(b->peak)));
	}
	json_object_set_new(f, "replays", json_integer((json_int_t)fit->n_replays));
	for (size_t i = 0; i < fit->n_tries; i++)
		json_array_append_new(tries, json_pack("{s:I, s:o, s:b}",
			pl->param_name, (json_int_t)fit->tries[i].param,
			"peak_memory", cmd_json_u64(fit->tries[i].peak),
			"replayed", fit->tries[i].replayed));
	json_object_set_new(f, "tries", tries);
	return f;
}

static void put_json(const struct solve_args *a, const struct schedule *s,
		     const struct solve_result *r)
{
	const struct planner *pl = a->pl;
	const struct profile *p = &r->p;
	const struct reset_plan *plan = &r->plan.split;
	json_t *o = json_object(), *sp = json_array(), *named = json_array();
	json_object_set_new(o, "log", cmd_json_str(s->source));
	json_object_set_new(o, "planner", json_string(pl->name));
	if (pl->param_name)
		json_object_set_new(o, pl->param_name, cmd_json_u64(r->param));
	if (pl->param == PLANNER_PARAM_K)
		json_object_set_new(o, "mode", json_string(a->exact ? "exact" : "fast"));
	json_object_set_new(o, "forward_ops", json_integer((json_int_t)p->n));
	json_object_set_new(o, "activations", json_integer((json_int_t)p->total));
	json_object_set_new(o, "max_memory", cmd_json_u64(r->chunk));
	for (size_t i = 0; i < plan->n_splits; i++) {
		size_t at = plan->splits[i];
		json_array_append_new(sp, json_integer((json_int_t)at));
		if (at < p->n) {
			const struct sched_op *op = &s->ops[p->op[at]];
			json_array_append_new(named, json_pack("{s:I, s:s, s:I}",
				"index", (json_int_t)at, "op", schedule_str(s, op->name),
				"line", (json_int_t)op->line));
		} else {
			json_array_append_new(named, json_pack("{s:I, s:n, s:n}",
				"index", (json_int_t)at, "op", "line"));
		}
	}
	json_object_set_new(o, "split_points", sp);
	json_object_set_new(o, "splits", named);
	if (a->replay) {
		json_t *j = plan_replay_json(&r->res, &r->base);
		put_device_json(j, a->alloc_text, r->has_device ? &r->device : NULL);
		json_object_set_new(o, "replay", j);
	}
	if (r->fit)
		json_object_set_new(o, "search", search_json(a, r->fit));
	print_json(o);
}

static void put_text(const struct solve_args *a, const struct schedule *s,
		     const struct solve_result *r)
{
	const struct planner *pl = a->pl;
	const struct profile *p = &r->p;
	const struct reset_plan *plan = &r->plan.split;
	bool is_dp = pl->param == PLANNER_PARAM_K;
	char ptext[128];
	param_text(pl, r->param, ptext, sizeof ptext);
	printf("log: %s\n", s->source);
	printf("planner: %s%s\n", ptext,
	       is_dp ? (a->exact ? " (exact mode: the tracker's split points)" : " (fast mode)") : "");
	printf("forward ops: %zu, activations: %" PRIu64 " bytes\n", p->n, p->total);
	if (r->fit) {
		printf("search for budget %" PRIu64 " bytes (every %s in turn; %zu replays, a "
		       "plan equal to the one before not replayed again):", a->o.budgets[0],
		       is_dp ? "k" : "distinct plan", r->fit->n_replays);
		size_t n = r->fit->n_tries;
		for (size_t i = 0; i < n; i++) {
			if (n > 24 && i == 12) {
				printf(", ... (%zu more; --json lists every try)", n - 24);
				i = n - 12;
			}
			printf("%s %s=%" PRIu64 " peak %" PRIu64, i ? "," : "", pl->param_name,
			       r->fit->tries[i].param, r->fit->tries[i].peak);
		}
		printf("\n%s %s that fits: %" PRIu64 "\n", is_dp ? "smallest" : "largest",
		       pl->param_name, r->fit->param);
	}
	printf("split points: %zu (forward-op index where a segment starts)\n", plan->n_splits);
	if (plan->n_splits)
		printf("  %-6s %-8s %-8s %s\n", "split", "index", "line", "op");
	for (size_t i = 0; i < plan->n_splits; i++) {
		size_t at = plan->splits[i];
		if (at < p->n) {
			const struct sched_op *op = &s->ops[p->op[at]];
			printf("  %-6zu %-8zu %-8u %s\n", i + 1, at, op->line,
			       rs_text_safe(schedule_str(s, op->name)));
		} else {
			printf("  %-6zu %-8zu %-8s (past the last forward op)\n", i + 1, at, "-");
		}
	}
	if (plan->n_splits) {
		printf("segments:\n");
		for (size_t g = 0; g <= plan->n_splits; g++) {
			size_t from = g ? plan->splits[g - 1] : 0;
			size_t to = g < plan->n_splits ? plan->splits[g] : p->n;
			if (from >= to)
				continue; /* a split at n: nothing after it */
			uint64_t bytes = 0;
			for (size_t i = from; i < to; i++)
				bytes += p->bytes[i];
			const struct sched_op *o1 = &s->ops[p->op[from]], *o2 = &s->ops[p->op[to - 1]];
			printf("  ops %zu-%zu (line %u %s .. line %u %s): %" PRIu64 " bytes, %s\n",
			       from, to - 1, o1->line, schedule_str(s, o1->name), o2->line,
			       schedule_str(s, o2->name), bytes,
			       g < plan->n_splits ? "checkpointed" : "runs as usual");
		}
	}
	printf("predicted largest chunk: %" PRIu64 " bytes (%.1f%% of the activations)\n",
	       r->chunk, p->total ? 100.0 * (double)r->chunk / (double)p->total : 0.0);
	if (a->replay) {
		const struct plan_result *res = &r->res;
		printf("replay: %s, peak %" PRIu64 " bytes (%.4g of the baseline %" PRIu64
		       "), overhead %.6g, %" PRIu64 " remats (%" PRId64 " ns), %" PRIu64
		       " evictions\n",
		       outcome_name(res->run.outcome), res->run.peak_memory, res->ratio, r->base.memory,
		       res->overhead, res->run.remats, res->run.remat_compute, res->run.evictions);
		put_device_text(a->alloc_text, r->has_device ? &r->device : NULL);
	}
}

/* Whether the command line asks for the knapsack planner (or gives its
 * --budget-fraction), which cmd_solve_knapsack.c takes. */
static bool wants_knapsack(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--budget-fraction") ||
		    !strncmp(argv[i], "--budget-fraction=", 18) ||
		    !strcasecmp(argv[i], "--planner=knapsack") ||
		    (!strcmp(argv[i], "--planner") && i + 1 < argc &&
		     !strcasecmp(argv[i + 1], "knapsack")))
			return true;
	}
	return false;
}

int cmd_solve(int argc, char **argv)
{
	solve_t0 = now_seconds();
	if (wants_knapsack(argc, argv))
		return cmd_solve_knapsack(argc, argv);
	struct solve_args *a = xmalloc(sizeof *a);
	int status = parse_args(argc, argv, a);
	if (status || a->sizes) {
		if (!status)
			status = solve_sizes(a->sizes, a->k, a->exact, a->json);
		free(a);
		return status < 0 ? 0 : status;
	}
	if (a->o.n_ratios) {
		/* the budget of --ratio, as replay computes it (point_budget: the
		 * floor of the double product; docs/semantics.md) */
		struct rs_error err = {0};
		struct schedule *s;
		if (schedule_read(a->log, &a->ropt, &s, &err) < 0) {
			rs_error_print(&err);
			free(a);
			return err.status;
		}
		struct baseline base;
		baseline_run(s, &base);
		struct point_config pc = {.ratio = a->o.ratios[0]};
		a->o.budgets[0] = point_budget(&base, &pc);
		a->o.n_budgets = 1;
		schedule_free(s);
	}
	if (a->splits || a->modules) {
		struct solve_module_opts so = {.log = a->log, .pl = a->pl, .splits = a->splits,
			.param = a->pl && a->pl->param == PLANNER_PARAM_K ? a->k : a->seg,
			.budget = a->have_budget ? a->o.budgets[0] : 0, .have_budget = a->have_budget,
			.modules = a->modules, .exact = a->exact, .replay = a->replay || a->splits,
			.depth = a->depth, .within = a->within, .min_peak = a->min_peak,
			.check = a->check, .json = a->json, .ropt = a->ropt};
		status = solve_modules(&so);
		free(a);
		return status;
	}
	struct rs_error err = {0};
	struct schedule *s;
	if (schedule_read(a->log, &a->ropt, &s, &err) < 0) {
		rs_error_print(&err);
		free(a);
		return err.status;
	}
	struct solve_result r;
	if (solve_log(a, s, &r, &err)) {
		if (a->json && r.fit && !r.fit->found && r.fit->n_tries) {
			/* no plan fits: the search still goes out, found false */
			json_t *o = json_object();
			json_object_set_new(o, "log", cmd_json_str(s->source));
			json_object_set_new(o, "planner", json_string(a->pl->name));
			json_object_set_new(o, "forward_ops", json_integer((json_int_t)r.p.n));
			json_object_set_new(o, "activations", json_integer((json_int_t)r.p.total));
			json_object_set_new(o, "search", search_json(a, r.fit));
			print_json(o);
		}
		if (err.file[0])
			rs_error_print(&err);
		else
			fprintf(stderr, "rematsim solve: %s\n", err.msg);
		status = err.status;
	} else if (r.plan.kind == PLAN_STEPS && a->json) {
		print_steps_json(s, a->pl, &r.p, &r.args, &r.plan, &r.base, &r.res, a->alloc_text,
				 r.has_device ? &r.device : NULL);
	} else if (r.plan.kind == PLAN_STEPS) {
		print_steps_text(s, a->pl, &r.p, &r.args, &r.plan, &r.base, &r.res, a->alloc_text,
				 r.has_device ? &r.device : NULL);
	} else if (a->json) {
		put_json(a, s, &r);
	} else {
		put_text(a, s, &r);
	}
	solve_result_free(&r);
	schedule_free(s);
	free(a);
	return status;
}
