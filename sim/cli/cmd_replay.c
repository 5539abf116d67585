/*
 * cmd_replay.c: `rematsim replay`, one log under one heuristic and runtime
 * at one or more budgets (SIMULATION.md section 7), as a table or as JSON
 * lines; optionally the memory timeline of the last budget as TSV.
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
#include "config.h"
#include "devmem.h"
#include "hash.h"
#include "heuristics.h"
#include "outfile.h"
#include "peak.h"
#include "pool.h"
#include "runtime.h"
#include "scalar.h"
#include "schedule.h"
#include "trace.h"
#include "util.h"

static const char help_head[] =
	"usage: rematsim replay LOG --heuristic H [--runtime R]\n"
	"                       (--ratio X[,X...] | --budget BYTES[,BYTES...])\n"
	"                       [--overhead-limit L] [--seed S] [--no-dealloc]\n"
	"                       [--proto-rules RULE,...]\n"
	"                       [--offload-bandwidth RATE [--offload-latency T]\n"
	"                        [--host-memory BYTES] [--offload-prefetch N]\n"
	"                        [--offload-policy cost|local|swap]]\n"
	"                       [--preallocate] [--from-start] [--check] [--json]\n"
	"                       [--jobs N] [--timeline FILE] [--trace FILE.json\n"
	"                       [--trace-from LINE] [--trace-to LINE]]\n"
	"\n"
	"Replay an op log under memory budgets, evicting and rematerializing\n"
	"tensors as the DTR paper's simulator does, and print one result per budget.\n"
	"\n"
	"  --heuristic H       eviction heuristic (see the list below; any case);\n"
	"                      H1,H2,... replays each in turn (not with --timeline\n"
	"                      or --trace)\n"
	"  --runtime R         ";
/* (the runtimes' names, from their table, and the default) */
static const char help_tail[] =
	"  --ratio X,...       budgets as fractions in (0,10] of the baseline peak memory\n"
	"  --budget B,...      budgets in bytes (8e9, 6GiB and 6GB are understood)\n"
	"  --overhead-limit L  stop (thrash) when remat compute exceeds (L-1) x baseline\n"
	"                      compute; default 2, 'inf' for no limit (a thrashing\n"
	"                      run may then take exponential time, as in simrd; it\n"
	"                      still stops past 2^61 ns of remats, where the clock\n"
	"                      would overflow)\n"
	"  --seed S            seed of the random heuristics (default 0)\n"
	"  --proto-rules R,... DTRPrototype's rules, each on or off (no-RULE):\n"
	"                      sampling (score a seeded sample of about sqrt(N)\n"
	"                      candidates), small (ignore storages under 1% of the\n"
	"                      mean size), after (check the budget after each op),\n"
	"                      classes (the prototype's cost; no-classes: eq(s));\n"
	"                      all or none; default all (docs/validation.md)\n"
	"  --offload-bandwidth RATE  offload as well as recompute: a host link of\n"
	"                      RATE bytes/s (25GB/s, 4.5e11, inf) each way, one\n"
	"                      serial copy channel per direction overlapping\n"
	"                      compute; 'none' (the default): no link, the\n"
	"                      reference's replay (docs/offload.md); 'measured':\n"
	"                      each direction's bandwidth and latency as measured\n"
	"                      by rematsim-record --measure-link, read from the\n"
	"                      log's NAME.meta.json\n"
	"  --offload-latency T added to every copy: seconds, or with ns, us, ms\n"
	"                      (default 0)\n"
	"  --host-memory B     bytes the host copies may hold (default unbounded)\n"
	"  --offload-prefetch N  after each command of the log, start bringing back\n"
	"                      the inputs of the next N ops that are on the host,\n"
	"                      while they fit in the budget (default 0)\n"
	"  --offload-policy P  per victim: cost (offload it when the copies queued\n"
	"                      before it, its own and its copy back take no longer\n"
	"                      than recomputing it, its evicted neighbourhood's too\n"
	"                      for the e* heuristics; the default), local (the same\n"
	"                      with its own compute alone: offloads less) or swap\n"
	"                      (offload every victim, never recompute; a full host\n"
	"                      is out of memory). Ops wait for the copies they\n"
	"                      need: the stalls add to the clock and count against\n"
	"                      --overhead-limit as remats do\n"
	"  --no-dealloc        drop every RELEASE of the schedule\n"
	"  --preallocate       final outputs preallocated instead of pinned at the end\n"
	"  --from-start        replay the warm-up before the START annotation too\n"
	"  --check             verify the runtime's invariants after every command\n"
	"  --json              one JSON object per budget and line\n"
	"  --jobs N            replay the budgets on N threads (default: all\n"
	"                      processors); rows come in the order given and are\n"
	"                      the same at any N, wall_ms aside. With --allocator\n"
	"                      they run one at a time; the budget a timeline or\n"
	"                      trace records runs alone, after the others\n"
	"  --timeline FILE     write memory over simulated time of the last budget\n"
	"                      as TSV: clock memory event op storage budget line\n"
	"                      bytes (op: the op run, or that made the evicted\n"
	"                      storage; storage: its handle in the log, or the\n"
	"                      op's first result; line: the op's log line); for a\n"
	"                      log with module calls, a last column module: the\n"
	"                      innermost module call that op ran in ('-': none)\n"
	"  --trace FILE.json   write the last budget's replay as a Chrome trace-event\n"
	"                      file (open it in ui.perfetto.dev or chrome://tracing):\n"
	"                      memory against the budget, a slice per op on forward,\n"
	"                      backward and rematerialization tracks, an instant per\n"
	"                      eviction; about 250 bytes per op, remat and eviction;\n"
	"                      with offload, a slice per copy on D2H and H2D tracks\n"
	"  --trace-from LINE   trace only while the model's ops from this log line ...\n"
	"  --trace-to LINE     ... to this one run (with the evictions and remats\n"
	"                      that make room for them)\n"
	"  --allocator pytorch[:CONF]  every allocation and free of the replay\n"
	"                      (evictions, rematerializations, offload copies included)\n"
	"                      also through the model of PyTorch's CUDA caching\n"
	"                      allocator, CONF in PYTORCH_CUDA_ALLOC_CONF syntax\n"
	"                      (pytorch:expandable_segments:True); each budget gains\n"
	"                      the reserved peak, fragmentation at it, segments and\n"
	"                      device allocations; --timeline gains the columns\n"
	"                      device_allocated and reserved (plots/replay-device.gp;\n"
	"                      docs/allocator.md)\n"
	"  --device-memory BYTES  with --allocator: the device's size; a replay whose\n"
	"                      allocator cannot reserve what it needs even after\n"
	"                      freeing its cache stops after that command, out of\n"
	"                      memory (outcome and device_outcome oom, the command\n"
	"                      and the request)\n"
	"\n"
	"Exit status: 0 ok, 64 usage, 65 malformed log (or one whose views a region\n"
	"heuristic cannot follow, as simrd cannot), 66 missing input,\n"
	"71 past --memory-limit BYTES (default 3/4 of physical memory; 'none'),\n"
	"73 cannot create the timeline or trace file, 74 cannot write it or the\n"
	"results (neither file is ever left half-written).\n";

/* The help, its lists from the registries (built once, kept). */
static const char *replay_help(void)
{
	static char *text;
	if (!text) {
		size_t len;
		FILE *f = open_memstream(&text, &len);
		fputs(help_head, f);
		opt_put_runtime_names(f, 22, 78);
		fprintf(f, "\n%22s(default %s)\n", "", runtime_kind_name(OPT_DEFAULT_RUNTIME));
		fputs(help_tail, f);
		fclose(f);
	}
	return text;
}

/* --help: every heuristic with its cost, every runtime with its line,
 * from their registry rows. */
static void describe_choices(FILE *f)
{
	size_t n;
	const struct heuristic *h = heuristic_list(&n);
	fprintf(f, "Heuristics (names in any case): the storage of least cost is evicted;\n"
		   "size(s) is its bytes, staleness(s) the clock minus its last access,\n"
		   "compute(s) its op's time, e*(s) compute(s) plus its evicted\n"
		   "neighbourhood's, eq(s) compute(s) plus its evicted neighbours' classes'\n"
		   "(docs/heuristics.md).\n");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "  %-17s %s%s\n", h[i].name, h[i].cost,
			h[i].needs & (NEEDS_REGIONS | NEEDS_EQCLASS) ? " [Optimized runtimes]" : "");
	fprintf(f, "Runtimes:\n");
	for (int i = 0; i < RUNTIME_KIND_COUNT; i++)
		fprintf(f, "  %-17s %s\n", runtime_desc((enum runtime_kind)i)->name,
			runtime_desc((enum runtime_kind)i)->summary);
}


struct timeline {
	FILE *f;
	uint64_t budget;
	const struct schedule *s;
	bool backward;   /* the backward pass has begun (its row is written) */
	int64_t clock;   /* after the last event */
	uint64_t memory;
	const struct devmem *dm; /* --allocator: two more columns, the device's */
	uint32_t *op_mod; /* a log with module calls: the last column, per op its
			   * innermost module call (peak_op_modules); else NULL */
};

/* The handle of an op's first result, "-" for an op with none. */
static const char *first_handle(const struct schedule *s, uint32_t op)
{
	return s->ops[op].n_outs ? schedule_str(s, s->tensors[s->ops[op].outs].name) : "-";
}

static void put_timeline_row(const struct timeline *tl, int64_t clock, uint64_t memory,
			     const char *event, uint32_t op, const char *handle, uint64_t bytes)
{
	const struct schedule *s = tl->s;
	/* names from the log may hold tabs or newlines: escaped */
	fprintf(tl->f, "%" PRId64 "\t%" PRIu64 "\t%s\t", clock, memory, event);
	rs_tsv_field(tl->f, schedule_str(s, s->ops[op].name));
	fputc('\t', tl->f);
	rs_tsv_field(tl->f, handle);
	fprintf(tl->f, "\t%" PRIu64 "\t%u\t%" PRIu64, tl->budget, s->ops[op].line, bytes);
	if (tl->dm) {
		uint64_t allocated, reserved;
		devmem_now(tl->dm, &allocated, &reserved);
		fprintf(tl->f, "\t%" PRIu64 "\t%" PRIu64, allocated, reserved);
	}
	if (tl->op_mod) {
		fputc('\t', tl->f);
		rs_tsv_field(tl->f, tl->op_mod[op] == PEAK_NO_MODULE ? "-" : s->strings + tl->op_mod[op]);
	}
	fputc('\n', tl->f);
}

/* One TSV row per event, naming things as the log does: the op (for an
 * eviction, the op that made the evicted storage), the handle of the
 * storage (an op's first result), the op's log line, and the bytes the op
 * allocated or the eviction freed. An op that ran while some of its
 * outputs were in memory already (a rematerialization beside material
 * siblings) has its row at the memory while it ran, which the peak
 * counts, and a `drop` row for those outputs' bytes after it. Before the
 * first event of the first backward op (its rematerializations come
 * first), a `backward` row marks where the backward pass begins: the clock
 * and memory of the event before, the op, 0 bytes. */
static void on_event(void *ctx, const struct runtime_event *ev)
{
	struct timeline *tl = ctx;
	const struct schedule *s = tl->s;
	static const char *const names[] = {"compute", "remat", "evict", "offload", "offloaded", "fetch"};
	if (!tl->backward && ev->cmd < s->n_cmds && s->cmds[ev->cmd].kind == CMD_COMPUTE &&
	    s->ops[s->cmds[ev->cmd].id].backward) {
		uint32_t bop = s->cmds[ev->cmd].id;
		tl->backward = true;
		put_timeline_row(tl, tl->clock, tl->memory, "backward", bop, first_handle(s, bop), 0);
	}
	/* an eviction or a copy (offload: queued, ended; fetch: brought back)
	 * names its storage; a copy's row is at the clock it was asked for */
	bool st = ev->kind != EV_COMPUTE && ev->kind != EV_REMAT;
	uint32_t op = st ? storage_op(s, ev->storage) : ev->op;
	const char *handle = st ? storage_handle(s, ev->storage) : first_handle(s, op);
	uint64_t bytes = st ? s->storages[ev->storage].size : s->ops[op].total_size;
	put_timeline_row(tl, ev->clock, ev->memory_high, names[ev->kind], op, handle, bytes);
	if (ev->memory_high != ev->memory)
		put_timeline_row(tl, ev->clock, ev->memory, "drop", op, handle,
				 ev->memory_high - ev->memory);
	tl->clock = ev->clock;
	tl->memory = ev->memory;
}

/* The hooks of the last budget: the timeline, the trace, or both; and of
 * every budget, the allocator model (--allocator). */
struct hooks {
	struct timeline *tl;
	struct trace_writer *tw;
	struct devmem *dm;
};

static void on_event_all(void *ctx, const struct runtime_event *ev)
{
	struct hooks *hk = ctx;
	if (hk->dm) /* first: the timeline's device columns are after the event */
		devmem_on_event(hk->dm, ev);
	if (hk->tl)
		on_event(hk->tl, ev);
	if (hk->tw)
		trace_on_event(hk->tw, ev);
}

/* --device-memory: the replay stops where the device's allocator could not reserve. */
static bool device_full(void *ctx)
{
	const struct hooks *hk = ctx;
	return hk->dm && devmem_failed(hk->dm);
}

static int parse_line(const char *opt, const char *arg, uint32_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(arg, &end, 10);
	if (end == arg || *end || errno || *arg == '-' || v > UINT32_MAX) {
		fprintf(stderr, "rematsim replay: %s wants a log line number, not '%s'\n", opt, arg);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

/* A JSON number, or null for an infinite or NaN value (which JSON lacks). */
static json_t *json_finite(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

/* What the command line asked for. */
struct replay_args {
	struct opt_parser o; /* heuristic, runtime, ratios or budgets, limit, seed */
	const char *log, *timeline, *trace;
	uint32_t trace_from, trace_to;
	bool no_dealloc, check, json;
	unsigned jobs;             /* --jobs; 0: all processors */
	struct read_options ropt;
	struct proto_rules rules; /* DTRPrototype's (--proto-rules) */
	bool rules_set;
	struct opt_offload off;    /* --offload-*, --host-memory (cmd_opts.h) */
	bool alloc_on;             /* --allocator pytorch[:CONF] */
	struct alloc_config alloc; /* its settings */
	char alloc_text[512];      /* as given, for the outputs */
	uint64_t device_memory;    /* --device-memory; UINT64_MAX: none */
};

static void args_free(struct replay_args *a)
{
	opt_offload_free(&a->off);
	free(a);
}

/* Options and operands: 0, -1 after --help (exit 0), or an exit status. */
static int parse_args(int argc, char **argv, struct replay_args *a)
{
	static const struct option longopts[] = {
		OPT_ROW_HEURISTIC,
		OPT_ROW_RUNTIME,
		OPT_ROW_RATIO,
		OPT_ROW_BUDGET,
		OPT_ROW_OVERHEAD_LIMIT,
		OPT_ROW_SEED,
		{"proto-rules", required_argument, NULL, 'P'},
		OPT_ROWS_OFFLOAD,
		{"no-dealloc", no_argument, NULL, 'n'},
		{"preallocate", no_argument, NULL, 'p'},
		{"from-start", no_argument, NULL, 's'},
		{"check", no_argument, NULL, 'c'},
		{"json", no_argument, NULL, 'j'},
		{"jobs", required_argument, NULL, 'J'},
		{"timeline", required_argument, NULL, 't'},
		{"trace", required_argument, NULL, 'T'},
		{"trace-from", required_argument, NULL, 'F'},
		{"trace-to", required_argument, NULL, 'U'},
		{"allocator", required_argument, NULL, 'Y'},
		{"device-memory", required_argument, NULL, 'D'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	memset(a, 0, sizeof *a);
	a->trace_to = UINT32_MAX;
	a->device_memory = UINT64_MAX;
	a->rules = proto_rules_default;
	struct opt_parser *o = &a->o;
	opt_init(o, "replay", replay_help(), OPT_MAX_VALUES);
	int c;
	while ((c = opt_next(o, argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case OPT_FAIL: return o->status;
		case 'P': {
			char why[200];
			if (proto_rules_parse(optarg, &a->rules, NULL, why, sizeof why))
				return usage_error("replay", replay_help(), "--proto-rules: %s", why);
			a->rules_set = true;
			break;
		}
		OPT_CASES_OFFLOAD:
			if (opt_offload_parse(&a->off, o, c, optarg))
				return EXIT_USAGE;
			break;
		case 'n': a->no_dealloc = true; break;
		case 'p': a->ropt.preallocate = true; break;
		case 's': a->ropt.from_start = true; break;
		case 'c': a->check = true; break;
		case 'j': a->json = true; break;
		case 'J': {
			uint64_t v;
			if (opt_count("replay", "--jobs", optarg, 1, 4096, &v))
				return EXIT_USAGE;
			a->jobs = (unsigned)v;
			break;
		}
		case 't': a->timeline = optarg; break;
		case 'T': a->trace = optarg; break;
		case 'F':
			if (parse_line("--trace-from", optarg, &a->trace_from))
				return EXIT_USAGE;
			break;
		case 'U':
			if (parse_line("--trace-to", optarg, &a->trace_to))
				return EXIT_USAGE;
			break;
		case 'Y': {
			char why[512];
			if (alloc_spec_parse(&a->alloc, optarg, why, sizeof why))
				return usage_error("replay", replay_help(), "--allocator '%s': %s", optarg, why);
			a->alloc_on = true;
			snprintf(a->alloc_text, sizeof a->alloc_text, "%s", optarg);
			break;
		}
		case 'D': {
			const char *why = NULL;
			if (scalar_parse_u64(optarg, &a->device_memory, &why) || !a->device_memory)
				return usage_error("replay", replay_help(), "--device-memory '%s': %s", optarg,
						   why ? why : "a size above 0 is expected");
			break;
		}
		case 'h':
			fputs(replay_help(), stdout);
			fputc('\n', stdout);
			describe_choices(stdout);
			return -1;
		}
	}
	if (optind != argc - 1)
		return usage_error("replay", replay_help(), "give exactly one LOG");
	a->log = argv[optind];
	if (log_is_archive(a->log)) {
		/* an archive of models: say which there are and how to pick one */
		fprintf(stderr, "rematsim replay: %s is an archive of models: replay one as "
				"'%s:NAME'\n", a->log, a->log);
		int rc = list_archive(a->log, false, stderr);
		return rc ? rc : EXIT_USAGE;
	}
	if (opt_resolve(o, OPT_NEED_HEURISTIC))
		return EXIT_USAGE;
	a->ropt.digest = a->json; /* log_sha256 */
	if ((o->n_ratios > 0) == (o->n_budgets > 0)) {
		fprintf(stderr, "rematsim replay: give either --ratio or --budget\n");
		return EXIT_USAGE;
	}
	if (!a->trace && (a->trace_from || a->trace_to != UINT32_MAX)) {
		fprintf(stderr, "rematsim replay: --trace-from and --trace-to need --trace FILE\n");
		return EXIT_USAGE;
	}
	if (a->rules_set && !(o->heuristic->needs & NEEDS_PROTO)) {
		fprintf(stderr, "rematsim replay: --proto-rules applies to DTRPrototype, not %s\n",
			o->heuristic->name);
		return EXIT_USAGE;
	}
	if (opt_offload_check(&a->off, o))
		return EXIT_USAGE;
	if (a->device_memory != UINT64_MAX && !a->alloc_on) {
		fprintf(stderr, "rematsim replay: --device-memory needs --allocator pytorch[:CONF]\n");
		return EXIT_USAGE;
	}
	if (a->trace_from > a->trace_to) {
		fprintf(stderr, "rematsim replay: --trace-from %u is after --trace-to %u\n", a->trace_from,
			a->trace_to);
		return EXIT_USAGE;
	}
	return opt_check_config(o);
}

/* One budget's result as a JSON line (docs/commands.md, "replay --json"). */
static void put_json_row(const struct replay_args *a, const struct schedule *s,
			 const char *logname, const struct baseline *base,
			 const struct point_result *pr, double ratio, const struct devmem_result *dr,
			 const struct point_result *rec)
{
	const struct opt_parser *o = &a->o;
	/* JSON has no infinity: a ratio or overhead over a baseline of 0 is null. */
	char sha[65];
	hex_encode(s->sha256, 32, sha);
	/* (a log named in bytes that are not UTF-8, a budget past 2^63: cmd_json.c) */
	json_t *j = json_pack("{s:o, s:s, s:s, s:s, s:I, s:o, s:o, s:s, s:o, s:I, s:I, s:I, s:I, s:I}",
			      "log", cmd_json_str(logname), "log_sha256", sha, "heuristic", o->heuristic->name,
			      "runtime", runtime_kind_name(o->runtime),
			      "seed", (json_int_t)o->seed, "ratio", json_finite(ratio),
			      "budget", cmd_json_u64(pr->budget), "outcome", outcome_name(pr->run.outcome),
			      /* a run that did not pass has no overhead: where it
			       * stopped is stopped_clock */
			      "overhead", pr->run.outcome == OUTCOME_PASS ? json_finite(pr->overhead)
									  : json_null(),
			      "baseline_memory", (json_int_t)base->memory,
			      "baseline_compute", (json_int_t)base->compute,
			      "model_compute", (json_int_t)pr->run.model_compute,
			      "remat_compute", (json_int_t)pr->run.remat_compute,
			      "peak_memory", (json_int_t)pr->run.peak_memory);
	json_object_set_new(j, "stopped_clock", pr->run.outcome == OUTCOME_PASS
						    ? json_null()
						    : json_integer((json_int_t)pr->run.clock));
	/* The run's own counters, as simrd's telemetry keeps them: a
	 * run that stops early has met only some constants and ops. */
	json_object_set_new(j, "const_memory", json_integer((json_int_t)pr->run.const_memory));
	json_object_set_new(j, "bottleneck_memory", json_integer((json_int_t)pr->run.bottleneck_memory));
	json_object_set_new(j, "baseline_const_memory", json_integer((json_int_t)base->const_memory));
	json_object_set_new(j, "baseline_bottleneck_memory", json_integer((json_int_t)base->bottleneck_memory));
	json_object_set_new(j, "evictions", json_integer((json_int_t)pr->run.evictions));
	json_object_set_new(j, "remats", json_integer((json_int_t)pr->run.remats));
	json_object_set_new(j, "heuristic_evals", json_integer((json_int_t)pr->run.heuristic_evals));
	json_object_set_new(j, "heuristic_accesses", json_integer((json_int_t)pr->run.heuristic_accesses));
	json_object_set_new(j, "overhead_limit", isinf(o->overhead_limit) ? json_string("inf") : json_real(o->overhead_limit));
	json_object_set_new(j, "no_dealloc", json_boolean(a->no_dealloc));
	if (o->heuristic->needs & NEEDS_PROTO) { /* DTRPrototype: its rules */
		char rb[100];
		json_object_set_new(j, "proto_rules", json_string(proto_rules_text(&a->rules, rb, sizeof rb)));
	}
	if (a->off.on) { /* the host link and what went over it */
		const struct runtime_result *r = &pr->run;
		opt_offload_json(&a->off, j);
		json_object_set_new(j, "offloads", cmd_json_u64(r->offloads));
		json_object_set_new(j, "bytes_offloaded", cmd_json_u64(r->bytes_offloaded));
		json_object_set_new(j, "fetches", cmd_json_u64(r->fetches));
		json_object_set_new(j, "bytes_fetched", cmd_json_u64(r->bytes_fetched));
		json_object_set_new(j, "stall_ns", json_integer((json_int_t)r->stall_ns));
		json_object_set_new(j, "d2h_busy_ns", json_integer((json_int_t)r->d2h_busy_ns));
		json_object_set_new(j, "h2d_busy_ns", json_integer((json_int_t)r->h2d_busy_ns));
		json_object_set_new(j, "peak_host_memory", cmd_json_u64(r->peak_host_memory));
	}
	if (rec) { /* a CPU-timed log with a host link: recompute only, beside it */
		json_object_set_new(j, "cpu_timed_log", json_true());
		json_object_set_new(j, "recompute_only_outcome", json_string(outcome_name(rec->run.outcome)));
		json_object_set_new(j, "recompute_only_overhead", rec->run.outcome == OUTCOME_PASS
				    ? json_finite(rec->overhead) : json_null());
	}
	if (dr) {
		json_object_set_new(j, "allocator", json_string(a->alloc_text));
		json_object_set_new(j, "device_memory", a->device_memory == UINT64_MAX ? json_null()
				    : cmd_json_u64(a->device_memory));
		json_object_set_new(j, "device_outcome", json_string(dr->oom ? "oom" : "pass"));
		json_object_set_new(j, "device_oom_cmd", dr->oom ? json_integer((json_int_t)dr->oom_cmd) : json_null());
		json_object_set_new(j, "device_oom_bytes", dr->oom ? cmd_json_u64(dr->oom_bytes) : json_null());
		json_object_set_new(j, "reserved_peak", cmd_json_u64(dr->reserved_peak));
		json_object_set_new(j, "device_allocated_peak", cmd_json_u64(dr->allocated_peak));
		json_object_set_new(j, "fragmentation_at_reserved_peak", cmd_json_u64(dr->fragmentation_at_reserved_peak));
		json_object_set_new(j, "segments_peak", cmd_json_u64(dr->segments_peak));
		json_object_set_new(j, "device_allocs", cmd_json_u64(dr->device_allocs));
		json_object_set_new(j, "device_frees", cmd_json_u64(dr->device_frees));
	}
	json_object_set_new(j, "wall_ms", json_real(pr->wall_ms));
	json_object_set_new(j, "version", json_string(REMATSIM_VERSION));
	put_json_line(j);
	json_decref(j);
}

/*
 * Replay budget i (the last one also with the timeline and trace asked
 * for) and print its row: 0, or an exit status after a message, when the
 * replay could not run. A timeline or trace is committed whole or not at
 * all; when that fails, the row is still printed and *late set.
 */
/* Budget i's configuration, without the hooks of run_budget. */
static struct point_config budget_config(const struct replay_args *a, int i)
{
	struct point_config pc = opt_point(&a->o, i);
	pc.rt.no_dealloc = a->no_dealloc;
	pc.rt.check = a->check;
	pc.rt.proto = &a->rules;
	pc.rt.offload = opt_offload_config(&a->off);
	return pc;
}

/* A budget replayed ahead, on a thread of --jobs (ahead_task). */
struct ahead {
	bool done;
	int rc;
	struct point_result pr;
	struct rs_error err;
};

struct ahead_ctx {
	const struct replay_args *a;
	const struct schedule *s;
	const struct baseline *base;
	struct ahead *ah;
	int *todo; /* budget indices */
};

static void ahead_task(void *ctx, size_t k)
{
	struct ahead_ctx *c = ctx;
	int i = c->todo[k];
	struct point_config pc = budget_config(c->a, i);
	struct ahead *h = &c->ah[i];
	h->rc = point_run(c->s, c->base, &pc, &h->pr, &h->err);
	h->done = true;
}

/* Replay ahead, on --jobs threads, the n budgets that need no hook (all
 * but the one a timeline or trace records; none with --allocator, whose
 * device follows each replay's events); run_budget prints them in order.
 * NULL when one thread would do it all. */
static struct ahead *replay_ahead(const struct replay_args *a, const struct schedule *s,
				  const struct baseline *base, int n)
{
	unsigned jobs = a->jobs ? a->jobs : pool_default_jobs();
	if (jobs < 2 || n < 2 || a->alloc_on)
		return NULL;
	struct ahead *ah = xcalloc((size_t)n, sizeof *ah);
	int *todo = xcalloc((size_t)n, sizeof *todo), m = 0;
	for (int i = 0; i < n; i++)
		if (i < n - 1 || (!a->timeline && !a->trace))
			todo[m++] = i;
	struct ahead_ctx c = {.a = a, .s = s, .base = base, .ah = ah, .todo = todo};
	pool_run(jobs, (size_t)m, ahead_task, &c, NULL, 1.0);
	free(todo);
	return ah;
}

static int run_budget(const struct replay_args *a, const struct schedule *s,
		      const struct baseline *base, const char *logname, int i, bool last,
		      const struct ahead *ah, int *late)
{
	const struct opt_parser *o = &a->o;
	struct point_config pc = budget_config(a, i);
	struct rs_error err;
	struct point_result pr;
	struct timeline tl = {0};
	struct hooks hk = {0};
	uint64_t last_budget = point_budget(base, &pc);
	struct outfile tout = {0}; /* a unique temporary name, renamed when whole */
	if (a->timeline && last) {
		if (outfile_open(&tout, a->timeline, &err)) {
			rs_error_print(&err);
			return err.status;
		}
		tl.f = tout.f;
		tl.s = s;
		tl.budget = last_budget;
		tl.op_mod = peak_op_modules(s);
		fprintf(tl.f, "clock\tmemory\tevent\top\tstorage\tbudget\tline\tbytes%s%s\n",
			a->alloc_on ? "\tdevice_allocated\treserved" : "", tl.op_mod ? "\tmodule" : "");
		hk.tl = &tl;
	}
	if (a->trace && last) {
		char title[512];
		snprintf(title, sizeof title, "%s: %s, %s, budget %" PRIu64, logname, o->heuristic->name,
			 runtime_kind_name(o->runtime), last_budget);
		struct trace_options to = {.title = title, .budget = last_budget,
					   .from_line = a->trace_from, .to_line = a->trace_to,
					   .offload = a->off.on};
		hk.tw = trace_open(a->trace, s, &to, &err);
		if (!hk.tw) {
			fprintf(stderr, "rematsim replay: %s\n", err.msg);
			if (tl.f)
				outfile_abort(&tout);
			free(tl.op_mod);
			return err.status;
		}
	}
	if (a->alloc_on) {
		hk.dm = devmem_new(s, &a->alloc, a->device_memory);
		tl.dm = hk.dm;
	}
	if (hk.tl || hk.tw || hk.dm) {
		pc.rt.on_event = on_event_all;
		pc.rt.ctx = &hk;
		if (hk.dm && a->device_memory != UINT64_MAX)
			pc.rt.stop = device_full;
	}
	int prc;
	if (ah && ah->done) {
		prc = ah->rc;
		pr = ah->pr;
		err = ah->err;
	} else {
		prc = point_run(s, base, &pc, &pr, &err);
	}
	free(tl.op_mod); /* (the timeline's rows are written) */
	struct devmem_result dres;
	if (hk.dm) {
		devmem_result(hk.dm, &dres);
		devmem_free(hk.dm);
		if (!prc && dres.broken)
			rs_bug("replay --allocator: the allocator's follower lost the replay's memory");
	}
	if (prc) {
		if (err.file[0])
			rs_error_print(&err);
		else
			fprintf(stderr, "rematsim replay: %s\n", err.msg);
		if (tl.f) /* no half-written timeline */
			outfile_abort(&tout);
		if (hk.tw) /* nor trace */
			trace_close(hk.tw, false, NULL);
		return err.status;
	}
	if (tl.f && outfile_commit(&tout, false, &err)) {
		rs_error_print(&err);
		*late = EXIT_IOERR;
	}
	if (hk.tw && !trace_kept(hk.tw) && s->n_ops) {
		/* a window that holds nothing says so (issue 27, N14) */
		char window[64];
		if (a->trace_to != UINT32_MAX)
			snprintf(window, sizeof window, "of lines %u to %u", a->trace_from, a->trace_to);
		else
			snprintf(window, sizeof window, "from line %u on", a->trace_from);
		fprintf(stderr, "rematsim replay: the trace holds no event: no model op %s ran (the "
			"log's ops are on lines %u to %u)\n", window, s->ops[0].line,
			s->ops[s->n_ops - 1].line);
	}
	if (hk.tw && trace_close(hk.tw, true, &err)) {
		fprintf(stderr, "rematsim replay: %s\n", err.msg);
		*late = err.status;
	}
	/* A CPU-timed log with a host link (warned in opt_offload_link): the
	 * same budget without offload, beside it (issue 44, item 4). */
	struct point_result rpr;
	bool rec_only = false;
	if (a->off.on && a->off.cpu_timed) {
		struct point_config rc = opt_point(o, i);
		rc.rt.no_dealloc = a->no_dealloc;
		rc.rt.proto = &a->rules;
		if (point_run(s, base, &rc, &rpr, &err)) {
			if (err.file[0])
				rs_error_print(&err);
			else
				fprintf(stderr, "rematsim replay: %s\n", err.msg);
			return err.status;
		}
		rec_only = true;
	}
	double ratio = o->n_ratios ? o->ratios[i] : (double)pr.budget / (double)base->memory;
	if (a->json)
		put_json_row(a, s, logname, base, &pr, ratio, a->alloc_on ? &dres : NULL,
			     rec_only ? &rpr : NULL);
	else if (pr.run.outcome == OUTCOME_PASS)
		printf("%-8.4g %14" PRIu64 " %-6s %20.17g %14" PRId64 " %14" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10.2f\n",
		       ratio, pr.budget, outcome_name(pr.run.outcome), pr.overhead, pr.run.remat_compute,
		       pr.run.peak_memory, pr.run.heuristic_evals, pr.run.heuristic_accesses, pr.wall_ms);
	else /* no overhead for a run that did not pass; where it stopped */
		printf("%-8.4g %14" PRIu64 " %-6s %20s %14" PRId64 " %14" PRIu64 " %10" PRIu64 " %10" PRIu64
		       " %10.2f\n         stopped at clock %" PRId64 " ns\n",
		       ratio, pr.budget, outcome_name(pr.run.outcome), "-", pr.run.remat_compute,
		       pr.run.peak_memory, pr.run.heuristic_evals, pr.run.heuristic_accesses, pr.wall_ms,
		       pr.run.clock);
	if (!a->json && a->off.on)
		printf("         offload: %" PRIu64 " storages, %" PRIu64 " bytes out; %" PRIu64
		       " back, %" PRIu64 " bytes; stall %" PRId64 " ns; busy d2h %" PRId64 " ns, h2d %" PRId64
		       " ns; host peak %" PRIu64 " bytes\n",
		       pr.run.offloads, pr.run.bytes_offloaded, pr.run.fetches, pr.run.bytes_fetched,
		       pr.run.stall_ns, pr.run.d2h_busy_ns, pr.run.h2d_busy_ns, pr.run.peak_host_memory);
	if (!a->json && rec_only) {
		char ov[32];
		if (rpr.run.outcome == OUTCOME_PASS)
			snprintf(ov, sizeof ov, "%.17g", rpr.overhead);
		else
			snprintf(ov, sizeof ov, "-");
		printf("         recompute only: %s/%s (the log's op times are a CPU's: see the warning)\n",
		       outcome_name(rpr.run.outcome), ov);
	}
	if (!a->json && a->alloc_on) {
		printf("         device (%s): reserved peak %" PRIu64 ", allocated peak %" PRIu64
		       ", fragmentation at the reserved peak %" PRIu64 ", segments %" PRIu64 " at most, %" PRIu64
		       " device allocations", a->alloc_text, dres.reserved_peak, dres.allocated_peak,
		       dres.fragmentation_at_reserved_peak, dres.segments_peak, dres.device_allocs);
		if (dres.oom)
			printf("; out of device memory at command %zu (%" PRIu64 " bytes asked)",
			       dres.oom_cmd, dres.oom_bytes);
		printf("\n");
	}
	return 0;
}

static int replay_one(int argc, char **argv);

/*
 * --heuristic A,B,...: one replay per heuristic, in the order given, each
 * as `--heuristic A` alone would print it (its rows, its baseline line;
 * JSON lines one after another). A timeline or trace is one replay's: not
 * with several. The first failing replay's status, after the others.
 */
int cmd_replay(int argc, char **argv)
{
	int at = -1; /* argv index of the heuristic list */
	bool eq = false, several = false, traced = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) /* the rest are operands */
			break;
		if (!strncmp(argv[i], "--timeline", 10) || !strncmp(argv[i], "--trace", 7))
			traced = true;
		if (!strcmp(argv[i], "--heuristic") && i + 1 < argc) {
			at = i + 1, eq = false;
			i++;
		} else if (!strncmp(argv[i], "--heuristic=", 12)) {
			at = i, eq = true;
		}
	}
	if (at >= 0)
		several = strchr(argv[at] + (eq ? 12 : 0), ',') != NULL;
	if (!several)
		return replay_one(argc, argv);
	if (traced) {
		fprintf(stderr, "rematsim replay: --timeline and --trace are one replay's: give one "
				"heuristic with them\n");
		return EXIT_USAGE;
	}
	char *list = xstrdup(argv[at] + (eq ? 12 : 0)), *save = NULL;
	/* every name first: a typo refused before anything runs */
	char *check = xstrdup(list), *csave = NULL;
	for (char *h = strtok_r(check, ",", &csave); h; h = strtok_r(NULL, ",", &csave))
		if (!heuristic_find(h)) {
			const char *near = heuristic_suggest(h);
			fprintf(stderr, "rematsim replay: unknown heuristic '%s'%s%s%s (of --heuristic "
					"%s)\n", h, near ? ": did you mean " : "", near ? near : "",
				near ? "?" : "", list);
			free(check);
			free(list);
			return EXIT_USAGE;
		}
	free(check);
	char **av = xmalloc(((size_t)argc + 1) * sizeof *av);
	int status = 0;
	bool any = false;
	for (char *h = strtok_r(list, ",", &save); h; h = strtok_r(NULL, ",", &save)) {
		memcpy(av, argv, ((size_t)argc + 1) * sizeof *av);
		char *arg = NULL;
		if (eq) {
			arg = xmalloc(strlen(h) + 13);
			sprintf(arg, "--heuristic=%s", h);
			av[at] = arg;
		} else {
			av[at] = h;
		}
		optind = 0; /* getopt starts over for each replay */
		int rc = replay_one(argc, av);
		fflush(stdout); /* its rows before the next one's messages */
		free(arg);
		any = true;
		if (rc && !status)
			status = rc;
		if (rc == EXIT_USAGE)
			break; /* a bad name or option: the same for the rest */
	}
	if (!any) {
		fprintf(stderr, "rematsim replay: --heuristic '%s' names no heuristic\n", argv[at]);
		status = EXIT_USAGE;
	}
	free(av);
	free(list);
	return status;
}

static int replay_one(int argc, char **argv)
{
	struct replay_args *a = xmalloc(sizeof *a);
	int status = parse_args(argc, argv, a);
	if (status) {
		args_free(a);
		return status < 0 ? 0 : status;
	}
	const struct opt_parser *o = &a->o;
	struct rs_error err;
	struct schedule *s;
	if (schedule_read(a->log, &a->ropt, &s, &err) < 0) {
		rs_error_print(&err);
		args_free(a);
		return err.status;
	}
	if ((status = opt_offload_link(&a->off, o, a->log))) {
		schedule_free(s);
		args_free(a);
		return status;
	}
	if (a->trace_from > s->lines) {
		fprintf(stderr, "rematsim replay: --trace-from %u is past the log's last line (%" PRIu64
			"): the trace would be empty\n", a->trace_from, s->lines);
		schedule_free(s);
		args_free(a);
		return EXIT_USAGE;
	}
	struct baseline base;
	baseline_run(s, &base);

	const char *logname = strrchr(s->source, '/') ? strrchr(s->source, '/') + 1 : s->source;
	int n = o->n_ratios ? o->n_ratios : o->n_budgets;
	if (!a->json)
		printf("%-8s %14s %-6s %20s %14s %14s %10s %10s %10s\n", "ratio", "budget", "result",
		       "overhead", "remat_compute", "peak_memory", "evals", "accesses", "wall_ms");
	struct ahead *ah = replay_ahead(a, s, &base, n);
	for (int i = 0; i < n; i++) {
		int rc = run_budget(a, s, &base, logname, i, i == n - 1, ah ? &ah[i] : NULL, &status);
		if (rc) {
			free(ah);
			schedule_free(s);
			args_free(a);
			return rc;
		}
	}
	free(ah);
	if (!a->json)
		printf("baseline: memory %" PRIu64 ", compute %" PRId64 ", const memory %" PRIu64
		       ", bottleneck %" PRIu64 " (%s, %s)\n",
		       base.memory, base.compute, base.const_memory, base.bottleneck_memory,
		       o->heuristic->name, runtime_kind_name(o->runtime));
	if (!a->json)
		opt_offload_print(&a->off, stdout);
	schedule_free(s);
	args_free(a);
	return status;
}
