/*
 * cmd_solve.c: `rematsim solve`, static checkpoint plans (SOLVERS.md): the
 * reset-point DP on a plain list of sizes, or a planner on a log's
 * activation profile, with the split points named as forward ops, the
 * plan's predicted largest chunk and, with --replay or --budget, the
 * plan replayed on the simulator.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "cmd_opts.h"
#include "plan.h"
#include "planners.h"
#include "profile.h"
#include "reset_points.h"
#include "scalar.h"
#include "schedule.h"
#include "util.h"

static const char help_head[] =
	"usage: rematsim solve --sizes FILE -k K [--exact] [--json]\n"
	"       rematsim solve LOG --planner P [-k K | --segment-budget BYTES | --budget BYTES]\n"
	"                      [--modules] [--exact] [--replay] [--check] [--from-start] [--json]\n"
	"       rematsim solve LOG --splits A,B,... [--modules] [--check] [--from-start] [--json]\n"
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
	"  --planner P           ";
/* (the planners' names and options, from their registry) */
static const char help_tail[] =
	"  -k K                  checkpoints for dp (a whole number >= 0)\n"
	"  --segment-budget B    greedy: split where the running sum passes B bytes\n"
	"  --budget B            search for the plan with the fewest splits whose\n"
	"                        replayed peak is at most B bytes: dp's smallest k,\n"
	"                        greedy's largest segment budget (galloping, then\n"
	"                        bisection; docs/solvers.md); implies --replay\n"
	"  --exact               the DP's exact mode: the tracker's own split points\n"
	"                        (default: the fast mode, the same largest chunk)\n"
	"  --replay              replay the plan on the log: peak memory, compute\n"
	"                        overhead, rematerializations\n"
	"  --modules             split only at module boundaries (a log with module\n"
	"                        calls, ANNOTATE ENTER/EXIT, as rematsim_torch records\n"
	"                        with model=): the planner splits the activations\n"
	"                        summed between the starts and ends of the calls a\n"
	"                        checkpoint wrapper can take; split points are named by\n"
	"                        module (the layer tracker's split_modules), and the\n"
	"                        modules to wrap listed; --replay replays the plan as\n"
	"                        applied (a split at each wrap's start and end);\n"
	"                        --budget searches dp's k (docs/solvers.md)\n"
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
	"sizes or log, a log with no forward ops (--modules: no module calls), or\n"
	"no plan that fits the budget, 66 missing input.\n";

/* The option that sets a planner's parameter, or NULL. */
static const char *param_option(const struct planner *pl)
{
	return pl->param == PLANNER_PARAM_K ? "-k" :
	       pl->param == PLANNER_PARAM_BYTES ? "--segment-budget" : NULL;
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
		for (size_t i = 0; i < n; i++) {
			fprintf(f, "%s%s", i ? ", " : "", pl[i].name);
			if (param_option(&pl[i]))
				fprintf(f, " (%s)", param_option(&pl[i]));
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

/* What the command line asked for. */
struct solve_args {
	struct opt_parser o; /* --budget */
	const char *sizes, *pname, *log;
	const struct planner *pl;
	uint64_t k, seg;
	bool have_k, have_seg, have_budget;
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
	if (a->have_budget)
		a->replay = true;
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
		{"exact", no_argument, NULL, 'e'},
		{"replay", no_argument, NULL, 'r'},
		{"check", no_argument, NULL, 'c'},
		{"from-start", no_argument, NULL, 's'},
		{"json", no_argument, NULL, 'j'},
		{"modules", no_argument, NULL, 'm'},
		{"splits", required_argument, NULL, 'S'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	memset(a, 0, sizeof *a);
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
		case 'e': a->exact = true; break;
		case 'r': a->replay = true; break;
		case 'c': a->check = true; break;
		case 's': a->ropt.from_start = true; break;
		case 'j': a->json = true; break;
		case 'm': a->modules = true; break;
		case 'S': a->splits = optarg; break;
		case 'h':
			fputs(solve_help(), stdout);
			return -1;
		}
	}
	a->have_budget = a->o.n_budgets > 0;
	if (a->sizes) {
		if (optind != argc || a->pname || a->have_seg || a->have_budget || a->replay || a->check ||
		    a->modules || a->splits) {
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
	if (a->splits) {
		if (a->pname || a->have_k || a->have_seg || a->have_budget || a->exact) {
			fprintf(stderr, "rematsim solve: --splits gives the plan: no --planner, -k, "
					"--segment-budget, --budget or --exact with it\n");
			return EXIT_USAGE;
		}
		return 0;
	}
	int rc = check_planner(a);
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
	struct reset_plan plan;
	struct plan_result res;  /* --replay */
	uint64_t chunk;          /* the largest chunk the plan predicts */
};

static void solve_result_free(struct solve_result *r)
{
	reset_plan_free(&r->plan);
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
	r->param = pl->param == PLANNER_PARAM_K ? a->k : a->seg;
	if (a->have_budget && a->o.budgets[0] < schedule_floor(s, false))
		return rs_error_set(err, EXIT_USAGE, NULL, 0,
				    "budget %" PRIu64 " bytes is below the log's floor, %" PRIu64 " bytes "
				    "(what a replay holds pinned at the end: the constants and the outputs "
				    "still held): no plan can fit it", a->o.budgets[0],
				    schedule_floor(s, false));
	if (a->have_budget) {
		uint64_t budget = a->o.budgets[0];
		r->fit = xcalloc(1, sizeof *r->fit);
		if (planner_fit(pl, s, &r->base, &r->p, budget, a->exact, r->fit, err))
			return -1;
		if (!r->fit->found) {
			uint64_t best = UINT64_MAX;
			for (size_t i = 0; i < r->fit->n_tries; i++)
				if (r->fit->tries[i].peak < best)
					best = r->fit->tries[i].peak;
			return rs_error_set(err, EXIT_DATAERR, s->source, 0,
					    "no %s plan fits in %" PRIu64 " bytes: the smallest replayed "
					    "peak found is %" PRIu64 " bytes",
					    pl->name, budget, best);
		}
		r->param = r->fit->param;
	}
	if (planner_check_param(pl, r->p.bytes, r->p.n, r->param, err))
		return -1;
	if (a->replay) {
		if (planner_replay(pl, s, &r->base, &r->p, r->param, a->exact, a->check, &r->plan,
				   &r->res, err))
			return -1;
	} else if (pl->plan(r->p.bytes, r->p.n, r->param, a->exact, &r->plan, err)) {
		return -1;
	}
	r->chunk = planner_max_chunk(r->p.bytes, r->p.n, r->plan.splits, r->plan.n_splits);
	return 0;
}

static void put_json(const struct solve_args *a, const struct schedule *s,
		     const struct solve_result *r)
{
	const struct planner *pl = a->pl;
	const struct profile *p = &r->p;
	const struct reset_plan *plan = &r->plan;
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
		const struct plan_result *res = &r->res;
		/* (a baseline of 0: a ratio or overhead that is not finite is null,
		 * not a missing object: cmd_json.c) */
		json_t *j = json_pack("{s:s, s:I, s:I, s:o, s:o, s:I, s:I, s:I, s:I, s:I}",
			"outcome", outcome_name(res->run.outcome),
			"peak_memory", (json_int_t)res->run.peak_memory,
			"baseline_memory", (json_int_t)r->base.memory,
			"ratio", cmd_json_finite(res->ratio), "overhead", cmd_json_finite(res->overhead),
			"model_compute", (json_int_t)res->run.model_compute,
			"remat_compute", (json_int_t)res->run.remat_compute,
			"baseline_compute", (json_int_t)r->base.compute,
			"evictions", (json_int_t)res->run.evictions,
			"remats", (json_int_t)res->run.remats);
		json_object_set_new(j, "wall_ms", json_real(res->wall_ms));
		json_object_set_new(o, "replay", j);
	}
	if (r->fit) {
		json_t *f = json_object(), *tries = json_array();
		json_object_set_new(f, "budget", cmd_json_u64(a->o.budgets[0]));
		json_object_set_new(f, pl->param_name, json_integer((json_int_t)r->fit->param));
		for (size_t i = 0; i < r->fit->n_tries; i++)
			json_array_append_new(tries, json_pack("{s:I, s:I}",
				pl->param_name, (json_int_t)r->fit->tries[i].param,
				"peak_memory", (json_int_t)r->fit->tries[i].peak));
		json_object_set_new(f, "tries", tries);
		json_object_set_new(o, "search", f);
	}
	print_json(o);
}

static void put_text(const struct solve_args *a, const struct schedule *s,
		     const struct solve_result *r)
{
	const struct planner *pl = a->pl;
	const struct profile *p = &r->p;
	const struct reset_plan *plan = &r->plan;
	bool is_dp = pl->param == PLANNER_PARAM_K;
	char ptext[128];
	param_text(pl, r->param, ptext, sizeof ptext);
	printf("log: %s\n", s->source);
	printf("planner: %s%s\n", ptext,
	       is_dp ? (a->exact ? " (exact mode: the tracker's split points)" : " (fast mode)") : "");
	printf("forward ops: %zu, activations: %" PRIu64 " bytes\n", p->n, p->total);
	if (r->fit) {
		printf("search for budget %" PRIu64 " bytes (%zu replays):", a->o.budgets[0],
		       r->fit->n_tries);
		for (size_t i = 0; i < r->fit->n_tries; i++)
			printf("%s %s=%" PRIu64 " peak %" PRIu64, i ? "," : "", pl->param_name,
			       r->fit->tries[i].param, r->fit->tries[i].peak);
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
			       schedule_str(s, op->name));
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
	}
}

int cmd_solve(int argc, char **argv)
{
	struct solve_args *a = xmalloc(sizeof *a);
	int status = parse_args(argc, argv, a);
	if (status || a->sizes) {
		if (!status)
			status = solve_sizes(a->sizes, a->k, a->exact, a->json);
		free(a);
		return status < 0 ? 0 : status;
	}
	if (a->splits || a->modules) {
		struct solve_module_opts so = {.log = a->log, .pl = a->pl, .splits = a->splits,
			.param = a->pl && a->pl->param == PLANNER_PARAM_K ? a->k : a->seg,
			.budget = a->have_budget ? a->o.budgets[0] : 0, .have_budget = a->have_budget,
			.modules = a->modules, .exact = a->exact, .replay = a->replay || a->splits,
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
		if (err.file[0])
			rs_error_print(&err);
		else
			fprintf(stderr, "rematsim solve: %s\n", err.msg);
		status = err.status;
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
