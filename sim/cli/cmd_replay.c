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

#include "cmd.h"
#include "config.h"
#include "heuristics.h"
#include "outfile.h"
#include "peak.h"
#include "runtime.h"
#include "scalar.h"
#include "schedule.h"
#include "trace.h"
#include "util.h"

static const char replay_help[] =
	"usage: rematsim replay LOG --heuristic H [--runtime R]\n"
	"                       (--ratio X[,X...] | --budget BYTES[,BYTES...])\n"
	"                       [--overhead-limit L] [--seed S] [--no-dealloc]\n"
	"                       [--proto-rules RULE,...]\n"
	"                       [--preallocate] [--from-start] [--check] [--json]\n"
	"                       [--timeline FILE] [--trace FILE.json\n"
	"                       [--trace-from LINE] [--trace-to LINE]]\n"
	"\n"
	"Replay an op log under memory budgets, evicting and rematerializing\n"
	"tensors as the DTR paper's simulator does, and print one result per budget.\n"
	"\n"
	"  --heuristic H       eviction heuristic (see the list below; any case)\n"
	"  --runtime R         V1, V2, V2Eager, V2Optimized, V2EagerOptimized\n"
	"                      (default V2EagerOptimized)\n"
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
	"  --no-dealloc        drop every RELEASE of the schedule\n"
	"  --preallocate       final outputs preallocated instead of pinned at the end\n"
	"  --from-start        replay the warm-up before the START annotation too\n"
	"  --check             verify the runtime's invariants after every command\n"
	"  --json              one JSON object per budget and line\n"
	"  --timeline FILE     write memory over simulated time of the last budget\n"
	"                      as TSV: clock memory event op storage budget line\n"
	"                      bytes (op: the op run, or that made the evicted\n"
	"                      storage; storage: its handle in the log, or the\n"
	"                      op's first result; line: the op's log line)\n"
	"  --trace FILE.json   write the last budget's replay as a Chrome trace-event\n"
	"                      file (open it in ui.perfetto.dev or chrome://tracing):\n"
	"                      memory against the budget, a slice per op on forward,\n"
	"                      backward and rematerialization tracks, an instant per\n"
	"                      eviction; about 250 bytes per op, remat and eviction\n"
	"  --trace-from LINE   trace only while the model's ops from this log line ...\n"
	"  --trace-to LINE     ... to this one run (with the evictions and remats\n"
	"                      that make room for them)\n"
	"\n"
	"Exit status: 0 ok, 64 usage, 65 malformed log (or one whose views a region\n"
	"heuristic cannot follow, as simrd cannot), 66 missing input,\n"
	"71 past --memory-limit BYTES (default 3/4 of physical memory; 'none'),\n"
	"73 cannot create the timeline or trace file, 74 cannot write it or the\n"
	"results (neither file is ever left half-written).\n";

static void list_choices(FILE *f)
{
	size_t n;
	const struct heuristic *h = heuristic_list(&n);
	fprintf(f, "heuristics:");
	for (size_t i = 0; i < n; i++)
		fprintf(f, " %s", h[i].name);
	fprintf(f, "\nruntimes:");
	for (int i = 0; i < RUNTIME_KIND_COUNT; i++)
		fprintf(f, " %s", runtime_kind_name((enum runtime_kind)i));
	fprintf(f, "\n");
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

/* One JSON object as a line, its reals in the shortest text that reads
 * back exactly ("0.7", not "0.69999999999999996"), keys in order (also
 * `rematsim measured`'s, cmd.h). */
void put_json_line(json_t *o)
{
	const char *key;
	json_t *v;
	char b[FMT_DOUBLE_LEN + 2];
	fputc('{', stdout);
	bool first = true;
	json_object_foreach(o, key, v) {
		json_t *k = json_string(key);
		char *kt = json_dumps(k, JSON_ENCODE_ANY);
		char *vt = NULL;
		if (json_is_real(v)) {
			fmt_double(b, json_real_value(v));
			if (!strpbrk(b, ".eni")) /* a real stays one when read back */
				strcat(b, ".0");
		} else {
			vt = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
		}
		printf("%s%s:%s", first ? "" : ",", kt, vt ? vt : b);
		first = false;
		free(kt);
		free(vt);
		json_decref(k);
	}
	fputs("}\n", stdout);
}

/* Split a comma list of numbers (scalar.h's grammar: 0.25, 1e9, 2GiB, inf);
 * returns the count, or -1 with *why set. */
static int parse_list(const char *arg, double *out, uint64_t *uout, int max, const char **why)
{
	char buf[256];
	int n = 0;
	const char *p = arg;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (n == max || len >= sizeof buf) {
			*why = "too many values or too long";
			return -1;
		}
		memcpy(buf, p, len);
		buf[len] = 0;
		if (uout ? scalar_parse_u64(buf, &uout[n], why) : scalar_parse_double(buf, &out[n], why))
			return -1;
		n++;
		if (!comma)
			return n;
		p = comma + 1;
	}
}

struct timeline {
	FILE *f;
	uint64_t budget;
	const struct schedule *s;
};

/* One TSV row per event, naming things as the log does: the op (for an
 * eviction, the op that made the evicted storage), the handle of the
 * storage (an op's first result), the op's log line, and the bytes the op
 * allocated or the eviction freed. */
static void on_event(void *ctx, const struct runtime_event *ev)
{
	struct timeline *tl = ctx;
	const struct schedule *s = tl->s;
	static const char *const names[] = {"compute", "remat", "evict"};
	uint32_t op = ev->kind == EV_EVICT ? storage_op(s, ev->storage) : ev->op;
	const char *handle = ev->kind == EV_EVICT ? storage_handle(s, ev->storage)
						  : s->ops[op].n_outs ? schedule_str(s, s->tensors[s->ops[op].outs].name) : "-";
	uint64_t bytes = ev->kind == EV_EVICT ? s->storages[ev->storage].size : s->ops[op].total_size;
	/* names from the log may hold tabs or newlines: escaped */
	fprintf(tl->f, "%" PRId64 "\t%" PRIu64 "\t%s\t", ev->clock, ev->memory, names[ev->kind]);
	rs_tsv_field(tl->f, schedule_str(s, s->ops[op].name));
	fputc('\t', tl->f);
	rs_tsv_field(tl->f, handle);
	fprintf(tl->f, "\t%" PRIu64 "\t%u\t%" PRIu64 "\n", tl->budget, s->ops[op].line, bytes);
}

/* The hooks of the last budget: the timeline, the trace, or both. */
struct hooks {
	struct timeline *tl;
	struct trace_writer *tw;
};

static void on_event_all(void *ctx, const struct runtime_event *ev)
{
	struct hooks *hk = ctx;
	if (hk->tl)
		on_event(hk->tl, ev);
	if (hk->tw)
		trace_on_event(hk->tw, ev);
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

#define MAX_POINTS 1024

int cmd_replay(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"heuristic", required_argument, NULL, 'H'},
		{"runtime", required_argument, NULL, 'r'},
		{"ratio", required_argument, NULL, 'x'},
		{"budget", required_argument, NULL, 'b'},
		{"overhead-limit", required_argument, NULL, 'l'},
		{"seed", required_argument, NULL, 'S'},
		{"proto-rules", required_argument, NULL, 'P'},
		{"no-dealloc", no_argument, NULL, 'n'},
		{"preallocate", no_argument, NULL, 'p'},
		{"from-start", no_argument, NULL, 's'},
		{"check", no_argument, NULL, 'c'},
		{"json", no_argument, NULL, 'j'},
		{"timeline", required_argument, NULL, 't'},
		{"trace", required_argument, NULL, 'T'},
		{"trace-from", required_argument, NULL, 'F'},
		{"trace-to", required_argument, NULL, 'U'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *hname = NULL, *rname = "V2EagerOptimized", *timeline = NULL, *trace = NULL;
	uint32_t trace_from = 0, trace_to = UINT32_MAX;
	static double ratios[MAX_POINTS];
	static uint64_t budgets[MAX_POINTS];
	const char *why = NULL;
	int n_ratios = 0, n_budgets = 0;
	double overhead_limit = 2;
	uint64_t seed = 0;
	bool no_dealloc = false, check = false, json = false;
	struct read_options ropt = {0};
	struct proto_rules rules = proto_rules_default;
	bool rules_set = false;

	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case ':':
			fprintf(stderr, "rematsim replay: option '%s' needs a value\n", argv[optind - 1]);
			fputs(replay_help, stderr);
			return EXIT_USAGE;
		case 'H': hname = optarg; break;
		case 'r': rname = optarg; break;
		case 'x':
			n_ratios = parse_list(optarg, ratios, NULL, MAX_POINTS, &why);
			if (n_ratios <= 0) {
				fprintf(stderr, "rematsim replay: --ratio wants numbers in (0,10], not '%s' (%s)\n",
					optarg, why);
				return EXIT_USAGE;
			}
			for (int i = 0; i < n_ratios; i++) {
				if (!(ratios[i] > 0 && ratios[i] <= 10)) {
					fprintf(stderr, "rematsim replay: --ratio '%s': every ratio must be "
						"in (0,10], a fraction of the baseline peak memory\n", optarg);
					return EXIT_USAGE;
				}
			}
			break;
		case 'b':
			n_budgets = parse_list(optarg, NULL, budgets, MAX_POINTS, &why);
			if (n_budgets <= 0) {
				fprintf(stderr, "rematsim replay: --budget wants byte counts (whole numbers >= 0, "
					"e.g. 8e9 or 6GiB), not '%s' (%s)\n", optarg, why);
				return EXIT_USAGE;
			}
			break;
		case 'l':
			if (opt_overhead_limit("replay", optarg, &overhead_limit))
				return EXIT_USAGE;
			break;
		case 'S':
			if (opt_whole("replay", "--seed", optarg, 0, &seed))
				return EXIT_USAGE;
			break;
		case 'P': {
			char why[200];
			if (proto_rules_parse(optarg, &rules, NULL, why, sizeof why))
				return usage_error("replay", replay_help, "--proto-rules: %s", why);
			rules_set = true;
			break;
		}
		case 'n': no_dealloc = true; break;
		case 'p': ropt.preallocate = true; break;
		case 's': ropt.from_start = true; break;
		case 'c': check = true; break;
		case 'j': json = true; break;
		case 't': timeline = optarg; break;
		case 'T': trace = optarg; break;
		case 'F':
			if (parse_line("--trace-from", optarg, &trace_from))
				return EXIT_USAGE;
			break;
		case 'U':
			if (parse_line("--trace-to", optarg, &trace_to))
				return EXIT_USAGE;
			break;
		case 'h':
			fputs(replay_help, stdout);
			fputc('\n', stdout);
			describe_choices(stdout);
			return 0;
		default:
			return usage_error("replay", replay_help, "bad option \'%s\'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return usage_error("replay", replay_help, "give exactly one LOG");
	const char *log = argv[optind];
	if (log_is_archive(log)) {
		/* an archive of models: say which there are and how to pick one */
		fprintf(stderr, "rematsim replay: %s is an archive of models: replay one as "
				"'%s:NAME'\n", log, log);
		int rc = list_archive(log, false, stderr);
		return rc ? rc : EXIT_USAGE;
	}
	const struct heuristic *h = hname ? heuristic_find(hname) : NULL;
	enum runtime_kind rk;
	if (!h || runtime_kind_parse(rname, &rk)) {
		if (!hname)
			fprintf(stderr, "rematsim replay: --heuristic is required\n");
		else if (!h && heuristic_suggest(hname))
			fprintf(stderr, "rematsim replay: unknown heuristic '%s': did you mean %s?\n", hname,
				heuristic_suggest(hname));
		else if (!h)
			fprintf(stderr, "rematsim replay: unknown heuristic '%s'\n", hname);
		else if (runtime_suggest(rname))
			fprintf(stderr, "rematsim replay: unknown runtime '%s': did you mean %s?\n", rname,
				runtime_suggest(rname));
		else
			fprintf(stderr, "rematsim replay: unknown runtime '%s'\n", rname);
		list_choices(stderr);
		return EXIT_USAGE;
	}
	if ((n_ratios > 0) == (n_budgets > 0)) {
		fprintf(stderr, "rematsim replay: give either --ratio or --budget\n");
		return EXIT_USAGE;
	}
	if (!trace && (trace_from || trace_to != UINT32_MAX)) {
		fprintf(stderr, "rematsim replay: --trace-from and --trace-to need --trace FILE\n");
		return EXIT_USAGE;
	}
	if (rules_set && !(h->needs & NEEDS_PROTO)) {
		fprintf(stderr, "rematsim replay: --proto-rules applies to DTRPrototype, not %s\n", h->name);
		return EXIT_USAGE;
	}
	if (trace_from > trace_to) {
		fprintf(stderr, "rematsim replay: --trace-from %u is after --trace-to %u\n", trace_from, trace_to);
		return EXIT_USAGE;
	}
	struct rs_error err;
	struct runtime_config probe = {.runtime = rk, .heuristic = h};
	if (runtime_check_config(&probe, &err)) {
		fprintf(stderr, "rematsim replay: %s\n", err.msg);
		return EXIT_USAGE;
	}

	struct schedule *s;
	if (schedule_read(log, &ropt, &s, &err) < 0) {
		rs_error_print(&err);
		return err.status;
	}
	struct baseline base;
	baseline_run(s, &base);

	const char *logname = strrchr(s->source, '/') ? strrchr(s->source, '/') + 1 : s->source;
	int n = n_ratios ? n_ratios : n_budgets;
	if (!json)
		printf("%-8s %14s %-6s %20s %14s %14s %10s %10s %10s\n", "ratio", "budget", "result",
		       "overhead", "remat_compute", "peak_memory", "evals", "accesses", "wall_ms");
	int status = 0;
	for (int i = 0; i < n; i++) {
		struct point_config pc = {
			.heuristic = h,
			.runtime = rk,
			.ratio = n_ratios ? ratios[i] : 0,
			.budget = n_budgets ? budgets[i] : 0,
			.overhead_limit = overhead_limit,
			.seed = seed,
			.no_dealloc = no_dealloc,
			.check = check,
			.proto = &rules,
		};
		struct point_result pr;
		struct timeline tl = {0};
		struct hooks hk = {0};
		uint64_t last_budget = point_budget(&base, &pc);
		struct outfile tout = {0}; /* a unique temporary name, renamed when whole */
		if (timeline && i == n - 1) {
			if (outfile_open(&tout, timeline, &err)) {
				rs_error_print(&err);
				schedule_free(s);
				return err.status;
			}
			tl.f = tout.f;
			tl.s = s;
			tl.budget = last_budget;
			fprintf(tl.f, "clock\tmemory\tevent\top\tstorage\tbudget\tline\tbytes\n");
			hk.tl = &tl;
		}
		if (trace && i == n - 1) {
			char title[512];
			snprintf(title, sizeof title, "%s: %s, %s, budget %" PRIu64, logname, h->name,
				 runtime_kind_name(rk), last_budget);
			struct trace_options to = {.title = title, .budget = last_budget,
						   .from_line = trace_from, .to_line = trace_to};
			hk.tw = trace_open(trace, s, &to, &err);
			if (!hk.tw) {
				fprintf(stderr, "rematsim replay: %s\n", err.msg);
				if (tl.f)
					outfile_abort(&tout);
				schedule_free(s);
				return err.status;
			}
		}
		if (hk.tl || hk.tw) {
			pc.on_event = on_event_all;
			pc.ctx = &hk;
		}
		if (point_run(s, &base, &pc, &pr, &err)) {
			if (err.file[0])
				rs_error_print(&err);
			else
				fprintf(stderr, "rematsim replay: %s\n", err.msg);
			if (tl.f) /* no half-written timeline */
				outfile_abort(&tout);
			if (hk.tw) /* nor trace */
				trace_close(hk.tw, false, NULL);
			schedule_free(s);
			return err.status;
		}
		if (tl.f && outfile_commit(&tout, false, &err)) {
			rs_error_print(&err);
			status = EXIT_IOERR;
		}
		if (hk.tw && trace_close(hk.tw, true, &err)) {
			fprintf(stderr, "rematsim replay: %s\n", err.msg);
			status = err.status;
		}
		if (json) {
			/* JSON has no infinity: a ratio or overhead over a baseline of 0 is null. */
			json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:o, s:I, s:s, s:o, s:I, s:I, s:I, s:I, s:I}",
					      "log", logname, "heuristic", h->name, "runtime", runtime_kind_name(rk),
					      "seed", (json_int_t)seed, "ratio", json_finite(n_ratios ? ratios[i] : (double)pr.budget / (double)base.memory),
					      "budget", (json_int_t)pr.budget, "outcome", outcome_name(pr.run.outcome),
					      "overhead", json_finite(pr.overhead),
					      "baseline_memory", (json_int_t)base.memory,
					      "baseline_compute", (json_int_t)base.compute,
					      "model_compute", (json_int_t)pr.run.model_compute,
					      "remat_compute", (json_int_t)pr.run.remat_compute,
					      "peak_memory", (json_int_t)pr.run.peak_memory);
			/* The run's own counters, as simrd's telemetry keeps them: a
			 * run that stops early has met only some constants and ops. */
			json_object_set_new(o, "const_memory", json_integer((json_int_t)pr.run.const_memory));
			json_object_set_new(o, "bottleneck_memory", json_integer((json_int_t)pr.run.bottleneck_memory));
			json_object_set_new(o, "baseline_const_memory", json_integer((json_int_t)base.const_memory));
			json_object_set_new(o, "baseline_bottleneck_memory", json_integer((json_int_t)base.bottleneck_memory));
			json_object_set_new(o, "evictions", json_integer((json_int_t)pr.run.evictions));
			json_object_set_new(o, "remats", json_integer((json_int_t)pr.run.remats));
			json_object_set_new(o, "heuristic_evals", json_integer((json_int_t)pr.run.heuristic_evals));
			json_object_set_new(o, "heuristic_accesses", json_integer((json_int_t)pr.run.heuristic_accesses));
			json_object_set_new(o, "overhead_limit", isinf(overhead_limit) ? json_string("inf") : json_real(overhead_limit));
			json_object_set_new(o, "no_dealloc", json_boolean(no_dealloc));
			if (h->needs & NEEDS_PROTO) { /* DTRPrototype: its rules */
				char rb[100];
				json_object_set_new(o, "proto_rules", json_string(proto_rules_text(&rules, rb, sizeof rb)));
			}
			json_object_set_new(o, "wall_ms", json_real(pr.wall_ms));
			json_object_set_new(o, "version", json_string(REMATSIM_VERSION));
			put_json_line(o);
			json_decref(o);
		} else {
			printf("%-8.4g %14" PRIu64 " %-6s %20.17g %14" PRId64 " %14" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10.2f\n",
			       n_ratios ? ratios[i] : (double)pr.budget / (double)base.memory,
			       pr.budget, outcome_name(pr.run.outcome), pr.overhead, pr.run.remat_compute,
			       pr.run.peak_memory, pr.run.heuristic_evals, pr.run.heuristic_accesses, pr.wall_ms);
		}
	}
	if (!json)
		printf("baseline: memory %" PRIu64 ", compute %" PRId64 ", const memory %" PRIu64
		       ", bottleneck %" PRIu64 " (%s, %s)\n",
		       base.memory, base.compute, base.const_memory, base.bottleneck_memory, h->name,
		       runtime_kind_name(rk));
	schedule_free(s);
	return status;
}
