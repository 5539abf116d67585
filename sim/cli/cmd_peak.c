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

#include "alloc.h"
#include "cmd.h"
#include "cmd_opts.h"
#include "devmem.h"
#include "heuristics.h"
#include "peak.h"
#include "runtime.h"
#include "scalar.h"
#include "schedule.h"
#include "util.h"

static const char peak_help[] =
	"usage: rematsim peak LOG [--heuristic H (--ratio X | --budget BYTES)\n"
	"                     [--runtime R] [--overhead-limit L] [--seed S]\n"
	"                     [--offload-bandwidth RATE [--offload-latency T]\n"
	"                      [--host-memory BYTES] [--offload-prefetch N]\n"
	"                      [--offload-policy cost|local|swap]]]\n"
	"                     [--top N] [--from-start] [--preallocate]\n"
	"                     [--allocator pytorch[:CONF]] [--json]\n"
	"\n"
	"Show the moment a replay's memory peaks and what is live then: each\n"
	"storage with the op that made it, its log line and handle, its bytes, its\n"
	"kind and whether it is pinned, and the totals per op name and per kind;\n"
	"for a log with module annotations, also the innermost module whose op\n"
	"made each storage, and the totals per module.\n"
	"With no budget the replay is the unbounded baseline (runtime V1, nothing\n"
	"evicted), whose peak is the baseline memory `replay` prints; with one, the\n"
	"replay of `replay` under that heuristic and budget. A budgeted replay that\n"
	"does not pass is shown at the moment it stopped: out of memory, what was\n"
	"live when nothing more could be evicted (pinned storages, and the inputs\n"
	"of the op in progress, which the runtime keeps); thrash, what was live\n"
	"when the remat compute passed the overhead limit.\n"
	"\n"
	"  --heuristic H       eviction heuristic (as in `rematsim replay`)\n"
	"  --ratio X           budget as a fraction in (0,10] of the baseline peak\n"
	"  --budget B          budget in bytes (8e9, 6GiB and 6GB are understood)\n"
	"  --runtime R         as in `rematsim replay` (default V2EagerOptimized)\n"
	"  --overhead-limit L  as in `rematsim replay` (default 2)\n"
	"  --seed S            seed of the random heuristics (default 0)\n"
	"  --offload-bandwidth RATE, --offload-latency T, --host-memory BYTES,\n"
	"  --offload-prefetch N, --offload-policy P\n"
	"                      offload as well as recompute, as in `rematsim replay`\n"
	"                      (docs/offload.md): a storage is live until its copy\n"
	"                      to the host has ended, and again once brought back\n"
	"  --top N             list the N largest storages and op names (default 20\n"
	"                      in the table, all in JSON; 0: all)\n"
	"  --from-start        replay the warm-up before the START annotation too\n"
	"  --preallocate       final outputs preallocated instead of pinned at the end\n"
	"  --allocator pytorch[:CONF]  beside the live-bytes peak, the same replay\n"
	"                      through a model of PyTorch's CUDA caching allocator\n"
	"                      (CONF in PYTORCH_CUDA_ALLOC_CONF syntax) on an\n"
	"                      unbounded device: its reserved peak, the fragmentation\n"
	"                      at it (reserved minus allocated), the allocated peak\n"
	"                      (sizes rounded as the allocator rounds them) and the\n"
	"                      most segments (docs/allocator.md)\n"
	"  --json              one JSON object\n"
	"\n"
	"Kinds: constant (a CONSTANT record: weights, inputs), forward (made before\n"
	"the backward pass), backward (made in it), temporary (made by an op and\n"
	"read by no op from the peak on, nor kept at the end: memory only waiting\n"
	"for its release). Pinned: a constant, or an output kept at the end that\n"
	"the replay has pinned by then; the runtime never evicts these.\n"
	"\n"
	"Exit status: 0 ok (also for a replay that stopped), 64 usage, 65 malformed\n"
	"log, 66 missing input.\n";

static double mib(uint64_t b)
{
	return (double)b / 1048576.0;
}

static const char *op_name(const struct schedule *s, uint32_t op)
{
	return schedule_str(s, s->ops[op].name);
}

/* The name for a line of text: control characters escaped (util.h). */
static const char *op_text(const struct schedule *s, uint32_t op)
{
	return rs_text_safe(op_name(s, op));
}

/* Where a command stands in the log: its op's line (a pin or release: the
 * line of the op that made the tensor). */
static uint32_t cmd_line(const struct schedule *s, size_t cmd)
{
	const struct sched_cmd *c = &s->cmds[cmd];
	uint32_t op = c->kind == CMD_COMPUTE ? c->id : s->tensors[c->id].op;
	return s->ops[op].line;
}

/* Module names (issue 44): for a log with module ENTER/EXIT annotations
 * (docs/log-format.md, "Module calls"), the innermost module call each op
 * ran in (peak_op_modules), and the live set's bytes by that module. NULL op_mod: a log
 * without annotations, whose output stays as it was. */
#define NO_MODULE PEAK_NO_MODULE
struct module_total {
	uint32_t name; /* offset in the schedule's strings; NO_MODULE: outside any */
	uint64_t bytes;
	size_t count;
};
struct peak_modules {
	uint32_t *op_mod; /* per op: the name offset of its innermost module call */
	struct module_total *by;
	size_t n_by;
};

static int by_name(const void *a, const void *b)
{
	uint32_t x = ((const struct module_total *)a)->name, y = ((const struct module_total *)b)->name;
	return x < y ? -1 : x > y;
}

static int by_bytes(const void *a, const void *b)
{
	const struct module_total *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return x->name < y->name ? -1 : x->name > y->name;
}

static void modules_find(const struct schedule *s, const struct peak_report *r, struct peak_modules *m)
{
	*m = (struct peak_modules){0};
	m->op_mod = peak_op_modules(s);
	if (!m->op_mod)
		return;
	m->by = xmalloc((r->n_entries ? r->n_entries : 1) * sizeof *m->by);
	for (size_t i = 0; i < r->n_entries; i++)
		m->by[i] = (struct module_total){m->op_mod[storage_op(s, r->entries[i].storage)],
						 r->entries[i].bytes, 1};
	qsort(m->by, r->n_entries, sizeof *m->by, by_name);
	size_t n = 0;
	for (size_t i = 0; i < r->n_entries; i++) {
		if (n && m->by[n - 1].name == m->by[i].name) {
			m->by[n - 1].bytes += m->by[i].bytes;
			m->by[n - 1].count++;
		} else {
			m->by[n++] = m->by[i];
		}
	}
	m->n_by = n;
	qsort(m->by, n, sizeof *m->by, by_bytes);
}

static void modules_free(struct peak_modules *m)
{
	free(m->op_mod);
	free(m->by);
}

static const char *module_text(const struct schedule *s, uint32_t name)
{
	return name == NO_MODULE ? "-" : rs_text_safe(s->strings + name);
}

static json_t *module_json(const struct schedule *s, uint32_t name)
{
	return name == NO_MODULE ? json_null() : cmd_json_str(s->strings + name);
}

static int print_json(const struct schedule *s, const char *logname, const char *hname,
		      const char *rname, uint64_t budget, const struct peak_report *r, size_t top,
		      const struct opt_offload *off, const char *alloc_text,
		      const struct devmem_result *dr, const struct peak_modules *m)
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
	opt_offload_json(off, o); /* the host link, when there is one */
	if (r->stopped) {
		/* (only for a run that stopped: a passing run's object is as it was) */
		json_object_set_new(o, "outcome", json_string(outcome_name(r->run.outcome)));
		json_object_set_new(o, "live_memory", json_integer((json_int_t)r->live_bytes));
	}
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
	if (m->op_mod) { /* a log with module annotations: the live set by module */
		json_t *mods = json_array();
		for (size_t i = 0; i < m->n_by && (!top || i < top); i++) {
			json_t *me = json_pack("{s:I, s:I}", "bytes", (json_int_t)m->by[i].bytes,
					       "storages", (json_int_t)m->by[i].count);
			json_object_set_new(me, "module", module_json(s, m->by[i].name));
			json_array_append_new(mods, me);
		}
		json_object_set_new(o, "by_module", mods);
	}
	json_t *live = json_array();
	for (size_t i = 0; i < r->n_entries && (!top || i < top); i++) {
		const struct peak_entry *e = &r->entries[i];
		uint32_t op = storage_op(s, e->storage);
		json_t *le = json_pack("{s:I, s:s, s:b, s:s, s:I, s:s, s:I}",
				       "bytes", (json_int_t)e->bytes,
				       "kind", storage_kind_name(e->kind),
				       "pinned", e->pinned,
				       "op", op_name(s, op),
				       "line", (json_int_t)s->ops[op].line,
				       "handle", storage_handle(s, e->storage),
				       "storage", (json_int_t)e->storage);
		if (r->stopped)
			json_object_set_new(le, "input", json_boolean(e->input));
		if (m->op_mod)
			json_object_set_new(le, "module", module_json(s, m->op_mod[op]));
		json_array_append_new(live, le);
	}
	json_object_set_new(o, "live", live);
	if (dr) { /* (only with --allocator: without it, the object is as it was) */
		json_object_set_new(o, "allocator", json_string(alloc_text));
		json_object_set_new(o, "reserved_peak", cmd_json_u64(dr->reserved_peak));
		json_object_set_new(o, "fragmentation_at_reserved_peak",
				    cmd_json_u64(dr->fragmentation_at_reserved_peak));
		json_object_set_new(o, "device_allocated_peak", cmd_json_u64(dr->allocated_peak));
		json_object_set_new(o, "segments_peak", cmd_json_u64(dr->segments_peak));
		json_object_set_new(o, "device_allocs", cmd_json_u64(dr->device_allocs));
	}
	char *line = cmd_json_text(json_dumps(o, JSON_COMPACT));
	json_decref(o);
	if (!line)
		return EXIT_SOFTWARE;
	puts(line);
	free(line);
	return 0;
}

/* The head of a replay that stopped: where, why, and what held memory. */
static void print_stopped_head(const struct schedule *s, const char *hname, const char *rname,
			       uint64_t budget, const struct peak_report *r,
			       const struct baseline *base, double limit)
{
	bool oom = r->run.outcome == OUTCOME_OOM;
	const char *op = op_text(s, r->op);
	printf("live set of %s under %s, runtime %s, budget %" PRIu64 ", when the replay %s:\n",
	       rs_text_safe(s->source), hname, rname, budget, oom ? "ran out of memory" : "thrashed");
	printf("  at command %zu (log line %u, op %s), simulated time %" PRId64 " ns: ", r->cmd,
	       s->ops[r->op].line, op, r->clock);
	if (oom)
		printf("nothing more could be evicted\n");
	else
		printf("the remat compute, %" PRId64 " ns, passed %g x the baseline compute, %g ns "
		       "(overhead limit %g)\n", r->run.remat_compute, limit - 1,
		       (limit - 1) * (double)base->compute, limit);
	size_t npin = 0, nin = 0;
	uint64_t bpin = 0, bin = 0;
	for (size_t i = 0; i < r->n_entries; i++) {
		const struct peak_entry *e = &r->entries[i];
		npin += e->pinned;
		bpin += e->pinned ? e->bytes : 0;
		nin += e->input && !e->pinned;
		bin += e->input && !e->pinned ? e->bytes : 0;
	}
	printf("  live: %" PRIu64 " bytes (%.1f MiB) in %zu storage%s: %zu pinned (%" PRIu64 " bytes), "
	       "%zu more input%s of op %s (%" PRIu64 " bytes)\n", r->live_bytes, mib(r->live_bytes),
	       r->n_entries, r->n_entries == 1 ? "" : "s", npin, bpin, nin, nin == 1 ? "" : "s", op,
	       bin);
	if (oom && r->model_op != RT_NONE_OP)
		printf("  op %s makes %" PRIu64 " bytes of outputs; %" PRIu64 " bytes of the budget "
		       "are free\n", op, s->ops[r->model_op].total_size,
		       budget > r->live_bytes ? budget - r->live_bytes : 0);
	if (oom && budget < base->bottleneck_memory)
		printf("  The budget is below the log's bottleneck, %" PRIu64 " bytes (the largest "
		       "op's inputs and outputs).\n", base->bottleneck_memory);
	printf("  `rematsim fit` finds the smallest budget that passes.\n\n");
}

/* The head of a passing replay: the moment of its peak. */
static void print_peak_head(const struct schedule *s, const char *hname, const char *rname,
			    uint64_t budget, const struct peak_report *r)
{
	if (hname)
		printf("peak of %s under %s, runtime %s, budget %" PRIu64 ":\n", rs_text_safe(s->source), hname, rname, budget);
	else
		printf("peak of %s, unbounded replay (runtime V1, nothing evicted):\n", rs_text_safe(s->source));
	printf("  %" PRIu64 " bytes (%.1f MiB)", r->peak_bytes, mib(r->peak_bytes));
	if (r->dup_bytes)
		printf(", of which %" PRIu64 " counted twice (outputs rematerialized beside a resident sibling)",
		       r->dup_bytes);
	printf("\n  first reached at log line %u, op %s%s (command %zu, simulated time %" PRId64 " ns)\n",
	       s->ops[r->op].line, op_text(s, r->op), r->remat ? " rematerialized" : "", r->cmd, r->clock);
	if (r->remat) {
		if (r->model_op != RT_NONE_OP)
			printf("  while the model runs op %s at log line %u\n", op_text(s, r->model_op),
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
}

/* Totals by kind and op name, then the storages, as shares of total. */
static void print_body(const struct schedule *s, const struct peak_report *r, size_t top,
		       double total, const struct peak_modules *m)
{
	printf("%-10s %16s %7s %9s\n", "kind", "bytes", "share", "storages");
	for (int k = 0; k < SK_COUNT; k++)
		printf("%-10s %16" PRIu64 " %6.1f%% %9zu\n", r->by_kind[k].name, r->by_kind[k].bytes,
		       100.0 * (double)r->by_kind[k].bytes / total, r->by_kind[k].count);

	size_t n = top && top < r->n_by_op ? top : r->n_by_op;
	printf("\n%-28s %16s %7s %9s\n", "op", "bytes", "share", "storages");
	for (size_t i = 0; i < n; i++)
		printf("%-28s %16" PRIu64 " %6.1f%% %9zu\n", rs_text_safe(r->by_op[i].name), r->by_op[i].bytes,
		       100.0 * (double)r->by_op[i].bytes / total, r->by_op[i].count);
	if (n < r->n_by_op)
		printf("... %zu more op names\n", r->n_by_op - n);

	if (m->op_mod) { /* a log with module annotations: by innermost module */
		n = top && top < m->n_by ? top : m->n_by;
		printf("\n%-28s %16s %7s %9s\n", "module", "bytes", "share", "storages");
		for (size_t i = 0; i < n; i++)
			printf("%-28s %16" PRIu64 " %6.1f%% %9zu\n", module_text(s, m->by[i].name),
			       m->by[i].bytes, 100.0 * (double)m->by[i].bytes / total, m->by[i].count);
		if (n < m->n_by)
			printf("... %zu more modules\n", m->n_by - n);
	}

	n = top && top < r->n_entries ? top : r->n_entries;
	printf("\n%16s %7s %-9s %-6s %8s  %-28s %s%s\n", "bytes", "share", "kind", "pinned", "line", "op",
	       m->op_mod ? "handle      " : "handle", m->op_mod ? "module" : "");
	for (size_t i = 0; i < n; i++) {
		const struct peak_entry *e = &r->entries[i];
		uint32_t op = storage_op(s, e->storage);
		/* (a stopped run also marks the inputs of the op in progress) */
		printf("%16" PRIu64 " %6.1f%% %-9s %-6s %8u  %-28s ", e->bytes,
		       100.0 * (double)e->bytes / total, storage_kind_name(e->kind),
		       e->pinned ? "yes" : e->input ? "input" : "-",
		       s->ops[op].line, op_text(s, op));
		if (m->op_mod)
			printf("%-11s %s\n", rs_text_safe(storage_handle(s, e->storage)),
			       module_text(s, m->op_mod[op]));
		else
			printf("%s\n", rs_text_safe(storage_handle(s, e->storage)));
	}
	if (n < r->n_entries)
		printf("... %zu more storages (--top 0 lists all)\n", r->n_entries - n);
}

static void print_table(const struct schedule *s, const char *hname, const char *rname,
			uint64_t budget, const struct peak_report *r, size_t top,
			const struct baseline *base, double limit, const struct peak_modules *m)
{
	if (r->stopped)
		print_stopped_head(s, hname, rname, budget, r, base, limit);
	else
		print_peak_head(s, hname, rname, budget, r);
	double total = r->stopped ? (double)r->live_bytes : (double)r->peak_bytes;
	total = total > 0 ? total : 1;
	print_body(s, r, top, total, m);
}

/* The replay of cfg again, through the allocator model on an unbounded
 * device (the same replay: the follower only watches). */
static int device_peak(const struct schedule *s, const struct runtime_config *cfg,
		       const struct alloc_config *alloc, struct devmem_result *dr, struct rs_error *err)
{
	struct runtime_config c = *cfg;
	struct devmem *dm = devmem_new(s, alloc, UINT64_MAX);
	c.on_event = devmem_on_event;
	c.ctx = dm;
	struct runtime_result res;
	int rc = runtime_run(s, &c, &res, err);
	devmem_result(dm, dr);
	devmem_free(dm);
	if (!rc && dr->broken)
		rs_bug("peak --allocator: the allocator's follower lost the replay's memory");
	return rc;
}

int cmd_peak(int argc, char **argv)
{
	static const struct option longopts[] = {
		OPT_ROW_HEURISTIC,
		OPT_ROW_RUNTIME,
		OPT_ROW_RATIO,
		OPT_ROW_BUDGET,
		OPT_ROW_OVERHEAD_LIMIT,
		OPT_ROW_SEED,
		OPT_ROWS_OFFLOAD,
		{"top", required_argument, NULL, 'T'},
		{"from-start", no_argument, NULL, 's'},
		{"preallocate", no_argument, NULL, 'p'},
		{"json", no_argument, NULL, 'j'},
		{"allocator", required_argument, NULL, 'Y'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct alloc_config alloc;
	char alloc_text[512] = "";
	bool alloc_on = false;
	uint64_t top = 0;
	bool have_top = false, json = false;
	struct read_options ropt = {0};
	struct opt_parser o;
	struct opt_offload off = {0};
	opt_init(&o, "peak", peak_help, 1);
	int c;
	while ((c = opt_next(&o, argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case OPT_FAIL: return o.status;
		OPT_CASES_OFFLOAD:
			if (opt_offload_parse(&off, &o, c, optarg))
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
		case 'Y': {
			char w[512];
			if (alloc_spec_parse(&alloc, optarg, w, sizeof w))
				return usage_error("peak", peak_help, "--allocator '%s': %s", optarg, w);
			alloc_on = true;
			snprintf(alloc_text, sizeof alloc_text, "%s", optarg);
			break;
		}
		case 'h':
			fputs(peak_help, stdout);
			return 0;
		}
	}
	if (optind != argc - 1)
		return usage_error("peak", peak_help, "give exactly one LOG");
	bool have_ratio = o.n_ratios > 0, have_budget = o.n_budgets > 0;
	if (!o.hname && (have_ratio || have_budget)) {
		fprintf(stderr, "rematsim peak: a budget needs --heuristic (with none, the replay is unbounded)\n");
		return EXIT_USAGE;
	}
	if (o.hname && have_ratio == have_budget) {
		fprintf(stderr, "rematsim peak: with --heuristic, give either --ratio or --budget\n");
		return EXIT_USAGE;
	}
	if (off.on && !o.hname) {
		fprintf(stderr, "rematsim peak: offload needs --heuristic (with none, the replay is "
				"unbounded)\n");
		return EXIT_USAGE;
	}
	if (opt_resolve(&o, 0) || opt_check_config(&o) || opt_offload_check(&off, &o))
		return EXIT_USAGE;
	const struct heuristic *h = o.heuristic;
	enum runtime_kind rk = o.runtime;
	uint64_t budget = 0;
	struct rs_error err;
	struct runtime_config cfg;
	if (!json && !have_top)
		top = 20;

	struct schedule *s;
	if (schedule_read(argv[optind], &ropt, &s, &err) < 0) {
		rs_error_print(&err);
		return err.status;
	}
	int status;
	if ((status = opt_offload_link(&off, &o, argv[optind]))) {
		schedule_free(s);
		opt_offload_free(&off);
		return status;
	}
	struct baseline base;
	baseline_run(s, &base);
	if (h) {
		/* point_run's budget and limit, with no hook */
		struct point_config pc = opt_point(&o, 0);
		pc.rt.offload = opt_offload_config(&off);
		cfg = point_runtime_config(&base, &pc);
		budget = cfg.budget;
	} else {
		/* baseline_run's configuration */
		rk = RUNTIME_V1;
		cfg = (struct runtime_config){.runtime = RUNTIME_V1, .budget = UINT64_MAX / 2,
					      .remat_limit = INFINITY};
	}
	struct peak_report r;
	if (peak_find(s, &cfg, &r, &err)) {
		if (err.file[0]) {
			rs_error_print(&err);
		} else {
			fprintf(stderr, "rematsim peak: %s\n", err.msg);
		}
		schedule_free(s);
		opt_offload_free(&off);
		return err.status;
	}
	struct devmem_result dr;
	if (alloc_on && device_peak(s, &cfg, &alloc, &dr, &err)) {
		/* cannot be: peak_find replayed the same configuration */
		fprintf(stderr, "rematsim peak: %s\n", err.msg);
		peak_report_free(&r);
		schedule_free(s);
		opt_offload_free(&off);
		return err.status;
	}
	const char *logname = strrchr(s->source, '/') ? strrchr(s->source, '/') + 1 : s->source;
	struct peak_modules mods;
	modules_find(s, &r, &mods);
	if (json) {
		status = print_json(s, logname, h ? h->name : NULL, runtime_kind_name(rk), budget, &r, top,
				    &off, alloc_text, alloc_on ? &dr : NULL, &mods);
	} else {
		print_table(s, h ? h->name : NULL, runtime_kind_name(rk), budget, &r, top, &base,
			    o.overhead_limit, &mods);
		opt_offload_print(&off, stdout);
		if (alloc_on)
			printf("device (%s): reserved peak %" PRIu64 " bytes (%.1f MiB), fragmentation at it "
			       "%" PRIu64 " bytes (reserved minus allocated), allocated peak %" PRIu64
			       " bytes, at most %" PRIu64 " segment%s; live-bytes peak %" PRIu64 " bytes\n",
			       alloc_text, dr.reserved_peak, mib(dr.reserved_peak),
			       dr.fragmentation_at_reserved_peak, dr.allocated_peak, dr.segments_peak,
			       dr.segments_peak == 1 ? "" : "s",
			       r.stopped ? r.live_bytes : r.peak_bytes);
	}
	modules_free(&mods);
	opt_offload_free(&off);
	peak_report_free(&r);
	schedule_free(s);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "rematsim peak: cannot write the output: %s\n", strerror(errno));
		return EXIT_IOERR;
	}
	return status;
}
