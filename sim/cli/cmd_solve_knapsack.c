/*
 * cmd_solve_knapsack.c: `rematsim solve LOG --planner knapsack
 * --budget-fraction X`, PyTorch's memory-budget knapsack
 * (solvers/knapsack.h) on a log's activation profile, its plan replayed
 * so that the physical peak shows beside the budget asked. cmd_solve
 * hands over here when the planner is knapsack.
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
#include "knapsack.h"
#include "plan.h"
#include "profile.h"
#include "schedule.h"
#include "util.h"

static const char help[] =
	"usage: rematsim solve LOG --planner knapsack --budget-fraction X\n"
	"                      [--check] [--from-start] [--json]\n"
	"\n"
	"PyTorch's memory-budget knapsack (torch.compile's activation_memory_budget):\n"
	"choose which activations of the forward pass to save so that they take at\n"
	"most X times the activations' total and the compute saved (not recomputed)\n"
	"is largest, a 0/1 knapsack over each activation's own bytes and its op's own\n"
	"time. Like torch's, it ignores what a recomputation needs (its inputs) and\n"
	"when the backward pass frees memory, so the budget is not the peak: the plan\n"
	"is replayed (every activation not saved is dropped after its last forward\n"
	"use and recomputed, recursively, when the backward pass needs it) and the\n"
	"physical peak is printed beside the budget asked. docs/solvers.md.\n"
	"\n"
	"  --budget-fraction X   the fraction of the activations (`rematsim profile`)\n"
	"                        that may be saved, 0 to 1 (0: recompute all, 1: save\n"
	"                        all), as torch takes it\n"
	"  --check               verify the runtime's invariants during the replay\n"
	"  --from-start          use the log from its top, not from its START\n"
	"  --json                one JSON object\n"
	"\n"
	"The budget asked, in bytes, is the unbounded peak less the activations the\n"
	"plan may not save: what the peak would be if it fell byte for byte.\n"
	"Exit status: 0 ok, 64 usage (a fraction outside [0, 1], a missing\n"
	"--budget-fraction), 65 malformed log or one with no forward ops, 66\n"
	"missing input.\n";

static void put_json(json_t *o)
{
	char *line = cmd_json_text(json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17)));
	puts(line);
	free(line);
	json_decref(o);
}

/* The budget asked in bytes: the baseline less what may not be saved. */
static uint64_t asked_bytes(const struct baseline *b, const struct profile *p,
			    const struct knapsack_plan *kp)
{
	uint64_t off = p->total - kp->capacity;
	return b->memory > off ? b->memory - off : 0;
}

static void print_text(const struct schedule *s, const struct profile *p,
		       const struct knapsack_plan *kp, const struct baseline *b,
		       const struct plan_result *res)
{
	printf("log: %s\n", s->source);
	printf("planner: knapsack, budget fraction %.6g of %" PRIu64 " bytes of activations: "
	       "%" PRIu64 " bytes may be saved\n", kp->fraction, p->total, kp->capacity);
	printf("items: %zu forward ops with an activation (of %zu); DP in units of %" PRIu64
	       " bytes%s\n", kp->n_items, p->n, kp->ans.unit,
	       kp->ans.quantized ? " (weights rounded up: the set fits, the optimum is not proven)"
				 : " (exact)");
	printf("saved: %zu activations, %" PRIu64 " bytes, %.17g ns of compute not recomputed\n",
	       kp->n_items - kp->n_recompute, kp->ans.saved_weight, kp->ans.saved_runtime);
	printf("recomputed: %zu activations, %" PRIu64 " bytes, %" PRId64 " ns by the knapsack's "
	       "count (their own ops)\n", kp->n_recompute, kp->recompute_bytes,
	       kp->recompute_runtime);
	uint64_t asked = asked_bytes(b, p, kp);
	printf("budget asked: %" PRIu64 " bytes (%.4g of the baseline %" PRIu64 ")\n", asked,
	       b->memory ? (double)asked / (double)b->memory : INFINITY, b->memory);
	printf("replay: %s, physical peak %" PRIu64 " bytes (%.4g of the baseline; %.4g of the "
	       "budget asked), overhead %.6g, %" PRIu64 " remats (%" PRId64 " ns), %" PRIu64
	       " evictions\n",
	       outcome_name(res->run.outcome), res->run.peak_memory, res->ratio,
	       asked ? (double)res->run.peak_memory / (double)asked : INFINITY, res->overhead,
	       res->run.remats, res->run.remat_compute, res->run.evictions);
	if (!kp->n_recompute)
		return;
	printf("recomputed ops:\n  %-6s %-8s %-24s %s\n", "index", "line", "op", "bytes");
	for (size_t i = 0; i < p->n; i++)
		if (kp->recompute[i]) {
			const struct sched_op *op = &s->ops[p->op[i]];
			printf("  %-6zu %-8u %-24s %" PRIu64 "\n", i, op->line,
			       schedule_str(s, op->name), p->bytes[i]);
		}
}

static void print_json_out(const struct schedule *s, const struct profile *p,
			   const struct knapsack_plan *kp, const struct baseline *b,
			   const struct plan_result *res)
{
	json_t *o = json_object(), *rec = json_array();
	json_object_set_new(o, "log", cmd_json_str(s->source));
	json_object_set_new(o, "planner", json_string("knapsack"));
	json_object_set_new(o, "budget_fraction", json_real(kp->fraction));
	json_object_set_new(o, "forward_ops", json_integer((json_int_t)p->n));
	json_object_set_new(o, "activations", cmd_json_u64(p->total));
	json_object_set_new(o, "capacity", cmd_json_u64(kp->capacity));
	json_object_set_new(o, "items", json_integer((json_int_t)kp->n_items));
	json_object_set_new(o, "unit", cmd_json_u64(kp->ans.unit));
	json_object_set_new(o, "exact", json_boolean(!kp->ans.quantized));
	json_object_set_new(o, "saved_bytes", cmd_json_u64(kp->ans.saved_weight));
	json_object_set_new(o, "saved_runtime", json_real(kp->ans.saved_runtime));
	json_object_set_new(o, "recomputed_bytes", cmd_json_u64(kp->recompute_bytes));
	json_object_set_new(o, "recomputed_runtime", json_integer(kp->recompute_runtime));
	json_object_set_new(o, "budget_asked", cmd_json_u64(asked_bytes(b, p, kp)));
	for (size_t i = 0; i < p->n; i++)
		if (kp->recompute[i]) {
			const struct sched_op *op = &s->ops[p->op[i]];
			json_array_append_new(rec, json_pack("{s:I, s:s, s:I, s:I}", "index",
				(json_int_t)i, "op", schedule_str(s, op->name), "line",
				(json_int_t)op->line, "bytes", (json_int_t)p->bytes[i]));
		}
	json_object_set_new(o, "recomputed", rec);
	json_t *rp = json_pack("{s:s, s:s, s:I, s:I, s:f, s:f, s:I, s:I, s:I, s:I}",
		"outcome", outcome_name(res->run.outcome), "runtime", runtime_kind_name(res->runtime),
		"peak_memory", (json_int_t)res->run.peak_memory,
		"baseline_memory", (json_int_t)b->memory,
		"ratio", res->ratio, "overhead", res->overhead,
		"remat_compute", (json_int_t)res->run.remat_compute,
		"baseline_compute", (json_int_t)b->compute,
		"evictions", (json_int_t)res->run.evictions,
		"remats", (json_int_t)res->run.remats);
	json_object_set_new(o, "replay", rp);
	put_json(o);
}

int cmd_solve_knapsack(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"planner", required_argument, NULL, 'P'},
		{"budget-fraction", required_argument, NULL, 'f'},
		{"check", no_argument, NULL, 'c'},
		{"from-start", no_argument, NULL, 's'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct read_options ropt;
	memset(&ropt, 0, sizeof ropt);
	bool check = false, json = false, have_f = false;
	double frac = 0;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'P':
			if (strcmp(optarg, "knapsack") && strcmp(optarg, "Knapsack") &&
			    strcmp(optarg, "KNAPSACK")) {
				fprintf(stderr, "rematsim solve: --budget-fraction is for the knapsack "
						"planner only (--planner %s)\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'f': {
			char *end;
			errno = 0;
			frac = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(frac >= 0 && frac <= 1)) {
				fprintf(stderr, "rematsim solve: --budget-fraction wants a fraction of "
						"the activations from 0 to 1 (as torch's "
						"activation_memory_budget), not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			have_f = true;
			break;
		}
		case 'c': check = true; break;
		case 's': ropt.from_start = true; break;
		case 'j': json = true; break;
		case 'h': fputs(help, stdout); return 0;
		default:
			fprintf(stderr, "rematsim solve: the knapsack planner takes --budget-fraction, "
					"--check, --from-start and --json, not '%s'\n",
				argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (!have_f) {
		fprintf(stderr, "rematsim solve: planner knapsack needs --budget-fraction X (0 to 1)\n");
		return EXIT_USAGE;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "rematsim solve: give one LOG\n");
		return EXIT_USAGE;
	}
	struct rs_error err = {0};
	struct schedule *s;
	if (schedule_read(argv[optind], &ropt, &s, &err) < 0) {
		rs_error_print(&err);
		return err.status;
	}
	struct profile p;
	struct knapsack_plan kp;
	struct baseline b;
	struct plan_result res;
	int status = 0;
	if (profile_build(s, &p, &err)) {
		rs_error_print(&err);
		schedule_free(s);
		return err.status;
	}
	baseline_run(s, &b);
	if (knapsack_plan_make(&p, frac, &kp, &err) ||
	    plan_replay_recompute(s, &b, kp.recompute, check, &res, &err)) {
		if (err.file[0])
			rs_error_print(&err);
		else
			fprintf(stderr, "rematsim solve: %s\n", err.msg);
		status = err.status;
	} else if (json) {
		print_json_out(s, &p, &kp, &b, &res);
	} else {
		print_text(s, &p, &kp, &b, &res);
	}
	knapsack_plan_free(&kp);
	profile_free(&p);
	schedule_free(s);
	return status;
}
