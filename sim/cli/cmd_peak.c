/*
 * cmd_peak.c: `rematsim peak`, the moment a replay's memory peaks and what
 * is live then, storage by storage and grouped by op name and by kind
 * (peak.h; docs/questions.md).
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
#include "heuristics.h"
#include "peak.h"
#include "runtime.h"
#include "scalar.h"
#include "schedule.h"
#include "util.h"

static const char peak_help[] =
	"usage: rematsim peak LOG [--heuristic H (--ratio X | --budget BYTES)\n"
	"                     [--runtime R] [--overhead-limit L] [--seed S]]\n"
	"                     [--top N] [--from-start] [--preallocate] [--json]\n"
	"\n"
	"Show the moment a replay's memory peaks and what is live then: each\n"
	"storage with the op that made it, its log line and handle, its bytes, its\n"
	"kind and whether it is pinned, and the totals per op name and per kind.\n"
	"With no budget the replay is the unbounded baseline (runtime V1, nothing\n"
	"evicted), whose peak is the baseline memory `replay` prints; with one, the\n"
	"replay of `replay` under that heuristic and budget, which must pass.\n"
	"\n"
	"  --heuristic H       eviction heuristic (as in `rematsim replay`)\n"
	"  --ratio X           budget as a fraction in (0,10] of the baseline peak\n"
	"  --budget B          budget in bytes (8e9, 6GiB and 6GB are understood)\n"
	"  --runtime R         as in `rematsim replay` (default V2EagerOptimized)\n"
	"  --overhead-limit L  as in `rematsim replay` (default 2)\n"
	"  --seed S            seed of the random heuristics (default 0)\n"
	"  --top N             list the N largest storages and op names (default 20\n"
	"                      in the table, all in JSON; 0: all)\n"
	"  --from-start        replay the warm-up before the START annotation too\n"
	"  --preallocate       final outputs preallocated instead of pinned at the end\n"
	"  --json              one JSON object\n"
	"\n"
	"Kinds: constant (a CONSTANT record: weights, inputs), forward (made before\n"
	"the backward pass), backward (made in it), temporary (made by an op and\n"
	"read by no op from the peak on, nor kept at the end: memory only waiting\n"
	"for its release). Pinned: a constant, or an output kept at the end that\n"
	"the replay has pinned by then; the runtime never evicts these.\n"
	"\n"
	"Exit status: 0 ok, 64 usage (also a budgeted replay that runs out of\n"
	"memory or thrashes: there is no peak of a passing run to show), 65\n"
	"malformed log, 66 missing input.\n";

static double mib(uint64_t b)
{
	return (double)b / 1048576.0;
}

static const char *op_name(const struct schedule *s, uint32_t op)
{
	return schedule_str(s, s->ops[op].name);
}

/* Where a command stands in the log: its op's line (a pin or release: the
 * line of the op that made the tensor). */
static uint32_t cmd_line(const struct schedule *s, size_t cmd)
{
	const struct sched_cmd *c = &s->cmds[cmd];
	uint32_t op = c->kind == CMD_COMPUTE ? c->id : s->tensors[c->id].op;
	return s->ops[op].line;
}

static int print_json(const struct schedule *s, const char *logname, const char *hname,
		      const char *rname, uint64_t budget, const struct peak_report *r, size_t top)
{
	json_t *o = json_object();
	json_object_set_new(o, "log", cmd_json_str(logname));
	json_object_set_new(o, "heuristic", hname ? json_string(hname) : json_null());
	json_object_set_new(o, "runtime", json_string(rname));
	json_object_set_new(o, "budget", hname ? cmd_json_u64(budget) : json_null());
	json_object_set_new(o, "peak_memory", json_integer((json_int_t)r->peak_bytes));
	json_object_set_new(o, "duplicate_bytes", json_integer((json_int_t)r->dup_bytes));
	json_object_set_new(o, "command", json_integer((json_int_t)r->cmd));
	json_object_set_new(o, "op", json_string(op_name(s, r->op)));
	json_object_set_new(o, "line", json_integer(s->ops[r->op].line));
	json_object_set_new(o, "remat", json_boolean(r->remat));
	json_object_set_new(o, "model_op", r->model_op == RT_NONE_OP ? json_null() : json_string(op_name(s, r->model_op)));
	json_object_set_new(o, "model_line", json_integer(cmd_line(s, r->cmd)));
	json_object_set_new(o, "clock", json_integer(r->clock));
	json_object_set_new(o, "live_storages", json_integer((json_int_t)r->n_entries));
	json_t *kinds = json_array();
	for (int k = 0; k < SK_COUNT; k++)
		json_array_append_new(kinds, json_pack("{s:s, s:I, s:I}", "kind", r->by_kind[k].name,
							"bytes", (json_int_t)r->by_kind[k].bytes,
							"storages", (json_int_t)r->by_kind[k].count));
	json_object_set_new(o, "by_kind", kinds);
	json_t *ops = json_array();
	for (size_t i = 0; i < r->n_by_op && (!top || i < top); i++)
		json_array_append_new(ops, json_pack("{s:s, s:I, s:I}", "op", r->by_op[i].name,
						      "bytes", (json_int_t)r->by_op[i].bytes,
						      "storages", (json_int_t)r->by_op[i].count));
	json_object_set_new(o, "by_op", ops);
	json_t *live = json_array();
	for (size_t i = 0; i < r->n_entries && (!top || i < top); i++) {
		const struct peak_entry *e = &r->entries[i];
		uint32_t op = storage_op(s, e->storage);
		json_array_append_new(live, json_pack("{s:I, s:s, s:b, s:s, s:I, s:s, s:I}",
						      "bytes", (json_int_t)e->bytes,
						      "kind", storage_kind_name(e->kind),
						      "pinned", e->pinned,
						      "op", op_name(s, op),
						      "line", (json_int_t)s->ops[op].line,
						      "handle", storage_handle(s, e->storage),
						      "storage", (json_int_t)e->storage));
	}
	json_object_set_new(o, "live", live);
	char *line = cmd_json_text(json_dumps(o, JSON_COMPACT));
	json_decref(o);
	if (!line)
		return EXIT_SOFTWARE;
	puts(line);
	free(line);
	return 0;
}

static void print_table(const struct schedule *s, const char *hname, const char *rname,
			uint64_t budget, const struct peak_report *r, size_t top)
{
	if (hname)
		printf("peak of %s under %s, runtime %s, budget %" PRIu64 ":\n", s->source, hname, rname, budget);
	else
		printf("peak of %s, unbounded replay (runtime V1, nothing evicted):\n", s->source);
	printf("  %" PRIu64 " bytes (%.1f MiB)", r->peak_bytes, mib(r->peak_bytes));
	if (r->dup_bytes)
		printf(", of which %" PRIu64 " counted twice (outputs rematerialized beside a resident sibling)",
		       r->dup_bytes);
	printf("\n  first reached at log line %u, op %s%s (command %zu, simulated time %" PRId64 " ns)\n",
	       s->ops[r->op].line, op_name(s, r->op), r->remat ? " rematerialized" : "", r->cmd, r->clock);
	if (r->remat) {
		if (r->model_op != RT_NONE_OP)
			printf("  while the model runs op %s at log line %u\n", op_name(s, r->model_op),
			       s->ops[r->model_op].line);
		else
			printf("  while the replay pins the outputs kept at the end\n");
	}
	size_t npin = 0;
	uint64_t bpin = 0;
	for (size_t i = 0; i < r->n_entries; i++)
		if (r->entries[i].pinned) {
			npin++;
			bpin += r->entries[i].bytes;
		}
	printf("  live: %zu storages, %zu of them pinned (%" PRIu64 " bytes)\n\n", r->n_entries, npin, bpin);

	double total = r->peak_bytes ? (double)r->peak_bytes : 1;
	printf("%-10s %16s %7s %9s\n", "kind", "bytes", "share", "storages");
	for (int k = 0; k < SK_COUNT; k++)
		printf("%-10s %16" PRIu64 " %6.1f%% %9zu\n", r->by_kind[k].name, r->by_kind[k].bytes,
		       100.0 * (double)r->by_kind[k].bytes / total, r->by_kind[k].count);

	size_t n = top && top < r->n_by_op ? top : r->n_by_op;
	printf("\n%-28s %16s %7s %9s\n", "op", "bytes", "share", "storages");
	for (size_t i = 0; i < n; i++)
		printf("%-28s %16" PRIu64 " %6.1f%% %9zu\n", r->by_op[i].name, r->by_op[i].bytes,
		       100.0 * (double)r->by_op[i].bytes / total, r->by_op[i].count);
	if (n < r->n_by_op)
		printf("... %zu more op names\n", r->n_by_op - n);

	n = top && top < r->n_entries ? top : r->n_entries;
	printf("\n%16s %7s %-9s %-6s %8s  %-28s %s\n", "bytes", "share", "kind", "pinned", "line", "op", "handle");
	for (size_t i = 0; i < n; i++) {
		const struct peak_entry *e = &r->entries[i];
		uint32_t op = storage_op(s, e->storage);
		printf("%16" PRIu64 " %6.1f%% %-9s %-6s %8u  %-28s %s\n", e->bytes,
		       100.0 * (double)e->bytes / total, storage_kind_name(e->kind), e->pinned ? "yes" : "-",
		       s->ops[op].line, op_name(s, op), storage_handle(s, e->storage));
	}
	if (n < r->n_entries)
		printf("... %zu more storages (--top 0 lists all)\n", r->n_entries - n);
}

int cmd_peak(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"heuristic", required_argument, NULL, 'H'},
		{"runtime", required_argument, NULL, 'r'},
		{"ratio", required_argument, NULL, 'x'},
		{"budget", required_argument, NULL, 'b'},
		{"overhead-limit", required_argument, NULL, 'l'},
		{"seed", required_argument, NULL, 'S'},
		{"top", required_argument, NULL, 'T'},
		{"from-start", no_argument, NULL, 's'},
		{"preallocate", no_argument, NULL, 'p'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *hname = NULL, *rname = "V2EagerOptimized", *why = NULL;
	double ratio = 0, overhead_limit = 2;
	uint64_t budget = 0, seed = 0, top = 0;
	bool have_ratio = false, have_budget = false, have_top = false, json = false;
	struct read_options ropt = {0};

	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'H': hname = optarg; break;
		case 'r': rname = optarg; break;
		case 'x':
			if (scalar_parse_double(optarg, &ratio, &why) || !(ratio > 0 && ratio <= 10)) {
				fprintf(stderr, "rematsim peak: --ratio wants a number in (0,10], not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			have_ratio = true;
			break;
		case 'b':
			if (scalar_parse_u64(optarg, &budget, &why)) {
				fprintf(stderr, "rematsim peak: --budget wants a byte count (e.g. 8e9 or 6GiB), "
					"not '%s' (%s)\n", optarg, why);
				return EXIT_USAGE;
			}
			have_budget = true;
			break;
		case 'l':
			if (opt_overhead_limit("peak", optarg, &overhead_limit))
				return EXIT_USAGE;
			break;
		case 'S':
			if (opt_whole("peak", "--seed", optarg, 0, &seed))
				return EXIT_USAGE;
			break;
		case 'T':
			if (opt_whole("peak", "--top", optarg, 10, &top))
				return EXIT_USAGE;
			have_top = true;
			break;
		case 's': ropt.from_start = true; break;
		case 'p': ropt.preallocate = true; break;
		case 'j': json = true; break;
		case 'h':
			fputs(peak_help, stdout);
			return 0;
		default:
			return usage_error("peak", peak_help, "bad option \'%s\'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return usage_error("peak", peak_help, "give exactly one LOG");
	if (!hname && (have_ratio || have_budget)) {
		fprintf(stderr, "rematsim peak: a budget needs --heuristic (with none, the replay is unbounded)\n");
		return EXIT_USAGE;
	}
	if (hname && have_ratio == have_budget) {
		fprintf(stderr, "rematsim peak: with --heuristic, give either --ratio or --budget\n");
		return EXIT_USAGE;
	}
	const struct heuristic *h = hname ? heuristic_find(hname) : NULL;
	enum runtime_kind rk;
	if ((hname && !h) || runtime_kind_parse(rname, &rk)) {
		if (hname && !h)
			fprintf(stderr, "rematsim peak: unknown heuristic '%s' (rematsim replay --help lists them)\n", hname);
		else
			fprintf(stderr, "rematsim peak: unknown runtime '%s' (rematsim replay --help lists them)\n", rname);
		return EXIT_USAGE;
	}
	struct rs_error err;
	struct runtime_config cfg = {.runtime = rk, .heuristic = h};
	if (h && runtime_check_config(&cfg, &err)) {
		fprintf(stderr, "rematsim peak: %s\n", err.msg);
		return EXIT_USAGE;
	}
	if (!json && !have_top)
		top = 20;

	struct schedule *s;
	if (schedule_read(argv[optind], &ropt, &s, &err) < 0) {
		rs_error_print(&err);
		return err.status;
	}
	struct baseline base;
	baseline_run(s, &base);
	if (h) {
		/* point_run's budget and limit, with no hook */
		struct point_config pc = {.budget = have_budget ? budget : 0, .ratio = ratio};
		budget = point_budget(&base, &pc);
		cfg.budget = budget;
		cfg.remat_limit = isinf(overhead_limit) ? INFINITY : (double)base.compute * (overhead_limit - 1);
		cfg.seed = seed;
	} else {
		/* baseline_run's configuration */
		rk = RUNTIME_V1;
		cfg = (struct runtime_config){.runtime = RUNTIME_V1, .budget = UINT64_MAX / 2,
					      .remat_limit = INFINITY};
	}
	struct peak_report r;
	if (peak_find(s, &cfg, &r, &err)) {
		if (err.status == EXIT_USAGE && r.run.outcome != OUTCOME_PASS) {
			size_t at = r.run.stopped_at < s->n_cmds ? r.run.stopped_at : s->n_cmds - 1;
			fprintf(stderr, "rematsim peak: %s: under %s at budget %" PRIu64 " the replay %s at "
				"command %zu (log line %u): no peak of a passing run to show.",
				s->source, h->name, budget,
				r.run.outcome == OUTCOME_OOM ? "runs out of memory" : "thrashes (passes the overhead limit)",
				at, cmd_line(s, at));
			if (budget < base.bottleneck_memory)
				fprintf(stderr, " The budget is below the log's bottleneck, %" PRIu64
					" bytes (the largest op's inputs and outputs).", base.bottleneck_memory);
			fprintf(stderr, " `rematsim fit` finds the smallest budget that passes.\n");
		} else if (err.file[0]) {
			rs_error_print(&err);
		} else {
			fprintf(stderr, "rematsim peak: %s\n", err.msg);
		}
		schedule_free(s);
		return err.status;
	}
	const char *logname = strrchr(s->source, '/') ? strrchr(s->source, '/') + 1 : s->source;
	int status = 0;
	if (json)
		status = print_json(s, logname, h ? h->name : NULL, runtime_kind_name(rk), budget, &r, top);
	else
		print_table(s, h ? h->name : NULL, runtime_kind_name(rk), budget, &r, top);
	peak_report_free(&r);
	schedule_free(s);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "rematsim peak: cannot write the output: %s\n", strerror(errno));
		return EXIT_IOERR;
	}
	return status;
}
