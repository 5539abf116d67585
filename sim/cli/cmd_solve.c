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

#include <jansson.h>

#include "cmd.h"
#include "ilp.h"
#include "plan.h"
#include "planners.h"
#include "profile.h"
#include "reset_points.h"
#include "revolve.h"
#include "scalar.h"
#include "schedule.h"
#include "util.h"

static const char solve_help[] =
	"usage: rematsim solve --sizes FILE -k K [--exact] [--json]\n"
	"       rematsim solve LOG --planner P [-k K | --segment-budget BYTES | --budget BYTES]\n"
	"                      [--exact] [--replay] [--check] [--from-start] [--json]\n"
	"       rematsim solve LOG --planner ilp --budget BYTES [--time-limit S]\n"
	"                      [--solver cbc|glpk] [--check] [--from-start] [--json]\n"
	"       rematsim solve LOG --planner ilp-lp --budget BYTES [--rounds N] [--seed N]\n"
	"                      [--time-limit S] [--solver cbc|glpk] [--check] [--json]\n"
	"       rematsim solve LOG --planner revolve --snapshots S [--check] [--json]\n"
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
	"solver's status, MIP gap and solve time; with --time-limit, the best\n"
	"schedule found by then. ilp-lp solves its LP relaxation and rounds it\n"
	"(nine thresholds and --rounds seeded draws), the cheapest rounding that\n"
	"fits. revolve is Griewank and Walther's binomial checkpointing of a\n"
	"uniform chain (`rematsim gen linear`) with S snapshots. docs/solvers.md.\n"
	"\n"
	"  --planner P           none, dp (-k), sqrtn, greedy (--segment-budget),\n"
	"                        ilp and ilp-lp (--budget), revolve (--snapshots)\n"
	"  -k K                  checkpoints for dp (a whole number >= 0)\n"
	"  --segment-budget B    greedy: split where the running sum passes B bytes\n"
	"  --budget B            ilp, ilp-lp: the memory budget in bytes. dp, greedy:\n"
	"                        search for the plan with the fewest splits whose\n"
	"                        replayed peak is at most B bytes: dp's smallest k,\n"
	"                        greedy's largest segment budget (galloping, then\n"
	"                        bisection; docs/solvers.md); implies --replay\n"
	"  --time-limit S        ilp, ilp-lp: stop the solver after S seconds (needed\n"
	"                        past 20,000 binary variables)\n"
	"  --solver NAME         ilp, ilp-lp: cbc or glpk (default: the first built in)\n"
	"  --rounds N            ilp-lp: seeded random roundings besides the nine\n"
	"                        thresholds (default 100)\n"
	"  --seed N              ilp-lp: the random roundings' seed (default 0)\n"
	"  --snapshots S         revolve: snapshots, the one of the input included (>= 1)\n"
	"  --exact               the DP's exact mode: the tracker's own split points\n"
	"                        (default: the fast mode, the same largest chunk)\n"
	"  --replay              replay the plan on the log: peak memory, compute\n"
	"                        overhead, rematerializations\n"
	"  --check               verify the runtime's invariants during the replay\n"
	"  --from-start          use the log from its top, not from its START\n"
	"  --json                one JSON object (--sizes: {\"max_memory\", \"split_points\"})\n"
	"\n"
	"Byte counts take 8e9, 6GiB and 6GB.\n"
	"Exit status: 0 ok, 64 usage (a bad k, a budget below the largest single\n"
	"activation), 65 malformed sizes or log, a log with no forward ops, no\n"
	"plan that fits the budget (ilp: infeasible, with the need that rules it\n"
	"out and the smallest budget that fits where solved for; or nothing found\n"
	"within the time limit), a log the planner cannot take (revolve: not a\n"
	"uniform chain; ilp: an op with views and storages of its own among its\n"
	"outputs; a graph too large for the ILP without --time-limit), 66\n"
	"missing input, 69 the solver asked for was not built in, 70 internal\n"
	"error (a schedule that does not replay to its own numbers).\n";

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
	char *line = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17));
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
		json_object_set_new(o, "max_memory", json_integer((json_int_t)plan.max_chunk));
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

static void print_steps_json(const struct schedule *s, const struct planner *pl,
			     const struct profile *p, const struct planner_args *a,
			     const struct planner_plan *plan, const struct baseline *base,
			     const struct plan_result *res)
{
	const struct steps_cost *c = &plan->cost;
	const struct ilp_result *r = &plan->ilp;
	json_t *o = json_object();
	json_object_set_new(o, "log", json_string(s->source));
	json_object_set_new(o, "planner", json_string(pl->name));
	json_object_set_new(o, pl->param_name, json_integer((json_int_t)a->param));
	json_object_set_new(o, "forward_ops", json_integer((json_int_t)p->n));
	json_object_set_new(o, "ops", json_integer((json_int_t)p->graph->n));
	if (pl->param == PLANNER_PARAM_BUDGET) {
		json_t *so = json_object();
		json_object_set_new(so, "name", json_string(r->solver));
		json_object_set_new(so, "status", json_string(ilp_status_name(r->status)));
		json_object_set_new(so, "seconds", json_real(r->seconds));
		json_object_set_new(so, "cpu_seconds", json_real(r->cpu_seconds));
		json_object_set_new(so, "time_limit",
				    a->time_limit > 0 ? json_real(a->time_limit) : json_null());
		json_object_set_new(so, "objective", json_real(r->objective));
		json_object_set_new(so, "bound", isfinite(r->bound) ? json_real(r->bound) : json_null());
		json_object_set_new(so, "gap", isfinite(r->gap) ? json_real(r->gap) : json_null());
		json_object_set_new(so, "binaries", json_integer((json_int_t)r->n_binaries));
		json_object_set_new(so, "continuous", json_integer((json_int_t)r->n_continuous));
		json_object_set_new(so, "rows", json_integer((json_int_t)r->n_rows));
		json_object_set_new(so, "nonzeros", json_integer((json_int_t)r->n_nonzeros));
		json_object_set_new(so, "memory_unit", json_integer((json_int_t)r->mem_unit));
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
	} else {
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
	json_object_set_new(o, "replay", rp);
	print_json(o);
}

static void print_steps_text(const struct schedule *s, const struct planner *pl,
			     const struct profile *p, const struct planner_args *a,
			     const struct planner_plan *plan, const struct baseline *base,
			     const struct plan_result *res)
{
	const struct steps_cost *c = &plan->cost;
	const struct ilp_result *r = &plan->ilp;
	printf("log: %s\n", s->source);
	printf("planner: %s, %s = %" PRIu64 "%s\n", pl->name, pl->param_name, a->param,
	       pl->param == PLANNER_PARAM_BUDGET ? " bytes" : "");
	printf("ops: %zu (%zu forward), constants: %" PRIu64 " bytes\n", p->graph->n, p->n,
	       p->graph->static_bytes[p->graph->n]);
	if (pl->param == PLANNER_PARAM_BUDGET) {
		printf("model: %zu binary and %zu continuous variables%s, %zu rows, %zu nonzeros "
		       "(memory in units of %" PRIu64 " bytes)\n", r->n_binaries, r->n_continuous,
		       strcmp(pl->name, "ilp-lp") ? "" : " (the binaries relaxed to [0, 1])", r->n_rows,
		       r->n_nonzeros, r->mem_unit);
		if (!strcmp(pl->name, "ilp-lp")) {
			printf("solver: %s, LP relaxation solved in %.3f s (%.3f s CPU): %.17g ns of "
			       "recomputation\n", r->solver, r->seconds, r->cpu_seconds, r->lp_objective);
			if (r->round)
				printf("rounding: random draw %u (seed %" PRIu64 ")", r->round, a->seed);
			else
				printf("rounding: threshold %.1f", r->threshold);
			printf(" (%u of %u roundings fit; the cheapest): %.17g ns of recomputation, "
			       "%.3g%% above the relaxation\n", r->roundings_fit, 9 + a->rounds,
			       r->objective, 100 * r->gap);
		} else {
			printf("solver: %s, %s in %.3f s (%.3f s CPU): recomputation %.17g ns",
			       r->solver, ilp_status_name(r->status), r->seconds, r->cpu_seconds,
			       r->objective);
			if (isfinite(r->bound))
				printf(", lower bound %.17g ns, MIP gap %.3g%%\n", r->bound, 100 * r->gap);
			else
				printf(", no lower bound known\n");
		}
	} else {
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
				printf("  %-6u %-8u %-20s", t, op->line, schedule_str(s, op->name));
			} else if (!open) {
				printf("  %-6u %-8s %-20s", t, "-", "(end: final pins)");
			}
			open = true;
			const struct sched_op *ro = node_op(s, p, st->node);
			printf(" %s@%u", schedule_str(s, ro->name), ro->line);
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

int cmd_solve(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"sizes", required_argument, NULL, 'z'},
		{"planner", required_argument, NULL, 'P'},
		{"segment-budget", required_argument, NULL, 'B'},
		{"budget", required_argument, NULL, 'b'},
		{"time-limit", required_argument, NULL, 'T'},
		{"solver", required_argument, NULL, 'S'},
		{"rounds", required_argument, NULL, 'R'},
		{"seed", required_argument, NULL, 'd'},
		{"snapshots", required_argument, NULL, 'n'},
		{"exact", no_argument, NULL, 'e'},
		{"replay", no_argument, NULL, 'r'},
		{"check", no_argument, NULL, 'c'},
		{"from-start", no_argument, NULL, 's'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *sizes = NULL, *pname = NULL, *why = NULL, *solver = NULL;
	uint64_t k = 0, seg = 0, budget = 0, snapshots = 0, seed = 0, rounds = 100;
	double time_limit = 0;
	bool have_k = false, have_seg = false, have_budget = false, have_snap = false;
	bool have_ilp_opt = false, have_lp_opt = false;
	bool exact = false, replay = false, check = false, json = false;
	struct read_options ropt = {0};
	char names[256];
	planner_names(names, sizeof names);

	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, "hk:", longopts, NULL)) != -1) {
		switch (c) {
		case 'z': sizes = optarg; break;
		case 'P': pname = optarg; break;
		case 'k':
			if (parse_count(optarg, &k)) {
				fprintf(stderr, "rematsim solve: -k wants a whole number of checkpoints "
						"(0 or more), not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			have_k = true;
			break;
		case 'B':
		case 'b':
			if (scalar_parse_u64(optarg, c == 'B' ? &seg : &budget, &why)) {
				fprintf(stderr, "rematsim solve: --%s wants a byte count (e.g. 8e9 or "
						"6GiB), not '%s' (%s)\n",
					c == 'B' ? "segment-budget" : "budget", optarg, why);
				return EXIT_USAGE;
			}
			*(c == 'B' ? &have_seg : &have_budget) = true;
			break;
		case 'T': {
			char *end;
			errno = 0;
			time_limit = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(time_limit > 0) || time_limit > 1e9) {
				fprintf(stderr, "rematsim solve: --time-limit wants seconds above 0 "
						"(e.g. 60 or 0.5), not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			have_ilp_opt = true;
			break;
		}
		case 'S':
			if (!ilp_solver_find(optarg)) {
				fprintf(stderr, "rematsim solve: unknown solver '%s' (cbc, glpk)\n",
					optarg);
				return EXIT_USAGE;
			}
			solver = optarg;
			have_ilp_opt = true;
			break;
		case 'R':
		case 'd':
		case 'n': {
			uint64_t *dst = c == 'R' ? &rounds : c == 'd' ? &seed : &snapshots;
			if (parse_count(optarg, dst) || (c == 'n' && !*dst) ||
			    (c == 'R' && *dst > 1000000)) {
				fprintf(stderr, "rematsim solve: --%s wants a whole number%s, not '%s'\n",
					c == 'R' ? "rounds" : c == 'd' ? "seed" : "snapshots",
					c == 'R' ? " up to 1000000" : c == 'n' ? " of 1 or more" : "",
					optarg);
				return EXIT_USAGE;
			}
			if (c == 'n')
				have_snap = true;
			else
				have_lp_opt = true;
			break;
		}
		case 'e': exact = true; break;
		case 'r': replay = true; break;
		case 'c': check = true; break;
		case 's': ropt.from_start = true; break;
		case 'j': json = true; break;
		case 'h':
			fputs(solve_help, stdout);
			return 0;
		default:
			fprintf(stderr, "rematsim solve: bad option '%s'%s\n", argv[optind - 1],
				optopt == 'k' ? " (-k wants a value)" : "");
			fputs(solve_help, stderr);
			return EXIT_USAGE;
		}
	}
	if (sizes) {
		if (optind != argc || pname || have_seg || have_budget || replay || check || have_snap ||
		    have_ilp_opt || have_lp_opt) {
			fprintf(stderr, "rematsim solve: --sizes takes only -k, --exact and --json\n");
			return EXIT_USAGE;
		}
		if (!have_k) {
			fprintf(stderr, "rematsim solve: --sizes needs -k K\n");
			return EXIT_USAGE;
		}
		return solve_sizes(sizes, k, exact, json);
	}
	if (optind != argc - 1) {
		fprintf(stderr, "rematsim solve: give one LOG (or --sizes FILE)\n");
		fputs(solve_help, stderr);
		return EXIT_USAGE;
	}
	const struct planner *pl = pname ? planner_find(pname) : NULL;
	if (!pl) {
		if (pname)
			fprintf(stderr, "rematsim solve: unknown planner '%s' (known: %s)\n", pname,
				names);
		else
			fprintf(stderr, "rematsim solve: --planner is required (%s)\n", names);
		return EXIT_USAGE;
	}
	bool is_ilp = pl->param == PLANNER_PARAM_BUDGET;
	if ((have_ilp_opt && !is_ilp) || (have_lp_opt && strcmp(pl->name, "ilp-lp"))) {
		fprintf(stderr, "rematsim solve: %s %s only\n",
			have_lp_opt && strcmp(pl->name, "ilp-lp") ? "--rounds and --seed are for ilp-lp"
								  : "--time-limit and --solver are for",
			have_lp_opt && strcmp(pl->name, "ilp-lp") ? "" : "ilp and ilp-lp");
		return EXIT_USAGE;
	}
	if (have_snap != (pl->param == PLANNER_PARAM_COUNT)) {
		fprintf(stderr, "rematsim solve: %s\n",
			have_snap ? "--snapshots is for revolve only" : "revolve needs --snapshots S");
		return EXIT_USAGE;
	}
	if (is_ilp && (have_k || have_seg || !have_budget)) {
		fprintf(stderr, "rematsim solve: planner %s takes --budget BYTES (the memory "
				"budget) and no -k or --segment-budget\n", pl->name);
		return EXIT_USAGE;
	}
	if (pl->param == PLANNER_PARAM_COUNT && (have_k || have_seg || have_budget)) {
		fprintf(stderr, "rematsim solve: planner %s takes --snapshots only\n", pl->name);
		return EXIT_USAGE;
	}
	if (!is_ilp && pl->param != PLANNER_PARAM_COUNT) {
		if (have_budget && (have_k || have_seg)) {
			fprintf(stderr, "rematsim solve: --budget searches the parameter: give it "
					"without -k or --segment-budget\n");
			return EXIT_USAGE;
		}
		if ((have_k && pl->param != PLANNER_PARAM_K) ||
		    (have_seg && pl->param != PLANNER_PARAM_BYTES)) {
			fprintf(stderr, "rematsim solve: planner %s takes %s\n", pl->name,
				pl->param == PLANNER_PARAM_K ? "-k" :
				pl->param == PLANNER_PARAM_BYTES ? "--segment-budget" : "no parameter");
			return EXIT_USAGE;
		}
		if (!have_budget && ((pl->param == PLANNER_PARAM_K && !have_k) ||
				     (pl->param == PLANNER_PARAM_BYTES && !have_seg))) {
			fprintf(stderr, "rematsim solve: planner %s needs %s (or --budget)\n", pl->name,
				pl->param == PLANNER_PARAM_K ? "-k K" : "--segment-budget BYTES");
			return EXIT_USAGE;
		}
		if (have_budget && pl->param == PLANNER_PARAM_NONE) {
			fprintf(stderr, "rematsim solve: planner %s has no parameter to search: "
					"--budget needs dp or greedy\n", pl->name);
			return EXIT_USAGE;
		}
		if (have_budget)
			replay = true;
	} else {
		replay = true; /* an explicit schedule is checked by its replay */
	}

	struct rs_error err = {0};
	struct schedule *s;
	if (schedule_read(argv[optind], &ropt, &s, &err) < 0) {
		rs_error_print(&err);
		return err.status;
	}
	int status = 0;
	struct profile p;
	struct baseline base = {0};
	struct planner_fit *fit = NULL;
	struct planner_plan plan = {0};
	struct plan_result res = {0};
	if (profile_build(s, &p, &err)) {
		rs_error_print(&err);
		schedule_free(s);
		return err.status;
	}
	if (replay)
		baseline_run(s, &base);
	uint64_t param = pl->param == PLANNER_PARAM_K ? k : pl->param == PLANNER_PARAM_BYTES ? seg
			 : pl->param == PLANNER_PARAM_BUDGET ? budget : snapshots;
	if (have_budget && !is_ilp) {
		fit = xcalloc(1, sizeof *fit);
		if (planner_fit(pl, s, &base, &p, budget, exact, fit, &err))
			goto fail;
		if (!fit->found) {
			uint64_t best = UINT64_MAX;
			for (size_t i = 0; i < fit->n_tries; i++)
				if (fit->tries[i].peak < best)
					best = fit->tries[i].peak;
			rs_error_set(&err, EXIT_DATAERR, s->source, 0,
				     "no %s plan fits in %" PRIu64 " bytes: the smallest replayed "
				     "peak found is %" PRIu64 " bytes",
				     pl->name, budget, best);
			goto fail;
		}
		param = fit->param;
	}
	if (planner_check_param(pl, p.bytes, p.n, param, &err))
		goto fail;
	struct planner_args args = {
		.param = param, .exact = exact, .time_limit = time_limit, .solver = solver,
		.seed = seed, .rounds = (unsigned)rounds,
	};
	if (replay) {
		if (planner_replay(pl, s, &base, &p, &args, check, &plan, &res, &err))
			goto fail;
	} else if (planner_plan(pl, &p, &args, &plan, &err)) {
		goto fail;
	}
	if (plan.kind == PLAN_STEPS) {
		if (json)
			print_steps_json(s, pl, &p, &args, &plan, &base, &res);
		else
			print_steps_text(s, pl, &p, &args, &plan, &base, &res);
		goto out;
	}
	uint64_t chunk = planner_max_chunk(p.bytes, p.n, plan.split.splits, plan.split.n_splits);
	char ptext[128];
	param_text(pl, param, ptext, sizeof ptext);
	bool is_dp = pl->param == PLANNER_PARAM_K;

	if (json) {
		json_t *o = json_object(), *sp = json_array(), *named = json_array();
		json_object_set_new(o, "log", json_string(s->source));
		json_object_set_new(o, "planner", json_string(pl->name));
		if (pl->param_name)
			json_object_set_new(o, pl->param_name, json_integer((json_int_t)param));
		if (is_dp)
			json_object_set_new(o, "mode", json_string(exact ? "exact" : "fast"));
		json_object_set_new(o, "forward_ops", json_integer((json_int_t)p.n));
		json_object_set_new(o, "activations", json_integer((json_int_t)p.total));
		json_object_set_new(o, "max_memory", json_integer((json_int_t)chunk));
		for (size_t i = 0; i < plan.split.n_splits; i++) {
			size_t at = plan.split.splits[i];
			json_array_append_new(sp, json_integer((json_int_t)at));
			if (at < p.n) {
				const struct sched_op *op = &s->ops[p.op[at]];
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
		if (replay) {
			json_t *r = json_pack("{s:s, s:I, s:I, s:f, s:f, s:I, s:I, s:I, s:I, s:I}",
				"outcome", outcome_name(res.run.outcome),
				"peak_memory", (json_int_t)res.run.peak_memory,
				"baseline_memory", (json_int_t)base.memory,
				"ratio", res.ratio, "overhead", res.overhead,
				"model_compute", (json_int_t)res.run.model_compute,
				"remat_compute", (json_int_t)res.run.remat_compute,
				"baseline_compute", (json_int_t)base.compute,
				"evictions", (json_int_t)res.run.evictions,
				"remats", (json_int_t)res.run.remats);
			json_object_set_new(r, "wall_ms", json_real(res.wall_ms));
			json_object_set_new(o, "replay", r);
		}
		if (fit) {
			json_t *f = json_object(), *tries = json_array();
			json_object_set_new(f, "budget", json_integer((json_int_t)budget));
			json_object_set_new(f, pl->param_name, json_integer((json_int_t)fit->param));
			for (size_t i = 0; i < fit->n_tries; i++)
				json_array_append_new(tries, json_pack("{s:I, s:I}",
					pl->param_name, (json_int_t)fit->tries[i].param,
					"peak_memory", (json_int_t)fit->tries[i].peak));
			json_object_set_new(f, "tries", tries);
			json_object_set_new(o, "search", f);
		}
		print_json(o);
	} else {
		printf("log: %s\n", s->source);
		printf("planner: %s%s\n", ptext,
		       is_dp ? (exact ? " (exact mode: the tracker's split points)" : " (fast mode)") : "");
		printf("forward ops: %zu, activations: %" PRIu64 " bytes\n", p.n, p.total);
		if (fit) {
			printf("search for budget %" PRIu64 " bytes (%zu replays):", budget, fit->n_tries);
			for (size_t i = 0; i < fit->n_tries; i++)
				printf("%s %s=%" PRIu64 " peak %" PRIu64, i ? "," : "", pl->param_name,
				       fit->tries[i].param, fit->tries[i].peak);
			printf("\n%s %s that fits: %" PRIu64 "\n", is_dp ? "smallest" : "largest",
			       pl->param_name, fit->param);
		}
		printf("split points: %zu (forward-op index where a segment starts)\n", plan.split.n_splits);
		if (plan.split.n_splits)
			printf("  %-6s %-8s %-8s %s\n", "split", "index", "line", "op");
		for (size_t i = 0; i < plan.split.n_splits; i++) {
			size_t at = plan.split.splits[i];
			if (at < p.n) {
				const struct sched_op *op = &s->ops[p.op[at]];
				printf("  %-6zu %-8zu %-8u %s\n", i + 1, at, op->line,
				       schedule_str(s, op->name));
			} else {
				printf("  %-6zu %-8zu %-8s (past the last forward op)\n", i + 1, at, "-");
			}
		}
		if (plan.split.n_splits) {
			printf("segments:\n");
			for (size_t g = 0; g <= plan.split.n_splits; g++) {
				size_t from = g ? plan.split.splits[g - 1] : 0;
				size_t to = g < plan.split.n_splits ? plan.split.splits[g] : p.n;
				if (from >= to)
					continue; /* a split at n: nothing after it */
				uint64_t bytes = 0;
				for (size_t i = from; i < to; i++)
					bytes += p.bytes[i];
				const struct sched_op *o1 = &s->ops[p.op[from]], *o2 = &s->ops[p.op[to - 1]];
				printf("  ops %zu-%zu (line %u %s .. line %u %s): %" PRIu64 " bytes, %s\n",
				       from, to - 1, o1->line, schedule_str(s, o1->name), o2->line,
				       schedule_str(s, o2->name), bytes,
				       g < plan.split.n_splits ? "checkpointed" : "runs as usual");
			}
		}
		printf("predicted largest chunk: %" PRIu64 " bytes (%.1f%% of the activations)\n",
		       chunk, p.total ? 100.0 * (double)chunk / (double)p.total : 0.0);
		if (replay)
			printf("replay: %s, peak %" PRIu64 " bytes (%.4g of the baseline %" PRIu64
			       "), overhead %.6g, %" PRIu64 " remats (%" PRId64 " ns), %" PRIu64
			       " evictions\n",
			       outcome_name(res.run.outcome), res.run.peak_memory, res.ratio, base.memory,
			       res.overhead, res.run.remats, res.run.remat_compute, res.run.evictions);
	}
	goto out;
fail:
	if (err.file[0])
		rs_error_print(&err);
	else
		fprintf(stderr, "rematsim solve: %s\n", err.msg);
	status = err.status;
out:
	planner_plan_free(&plan);
	free(fit);
	profile_free(&p);
	schedule_free(s);
	return status;
}
