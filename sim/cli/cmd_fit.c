/*
 * cmd_fit.c: `rematsim fit`, the smallest budget at which a log's replay
 * passes under a heuristic, honest about budgets where feasibility is not
 * monotone (fit.h; docs/questions.md).
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
#include "fit.h"
#include "heuristics.h"
#include "runtime.h"
#include "scalar.h"
#include "schedule.h"
#include "util.h"

static const char fit_help[] =
	"usage: rematsim fit LOG --heuristic H [--runtime R] [--overhead-limit L]\n"
	"                    [--resolution X] [--seed S] [--no-dealloc] [--jobs N]\n"
	"                    [--from-start] [--preallocate] [--probes] [--json]\n"
	"\n"
	"Find the smallest memory budget at which the replay passes (no OOM, no\n"
	"thrash). Feasibility is not always monotone in the budget, so this probes\n"
	"a grid from a lower bound, below which nothing passes (the larger of the\n"
	"largest op's inputs and outputs and the log's floor, the bytes pinned at\n"
	"the end: `rematsim info`), to the unbounded peak (from which everything does),\n"
	"then bisects to the byte at the lowest pass and at the highest failure, and\n"
	"reports the smallest passing budget found, the largest failing budget above\n"
	"it (if any: feasibility is then not monotone there), and the budget from\n"
	"which every probe passed. Budgets between probes are not tried.\n"
	"\n"
	"  --heuristic H       eviction heuristic (as in `rematsim replay`)\n"
	"  --runtime R         as in `rematsim replay` (default V2EagerOptimized)\n"
	"  --overhead-limit L  a run past L x baseline compute fails (thrash);\n"
	"                      default 2, 'inf' for none\n"
	"  --resolution X      grid step as a fraction in (0,1] of the baseline\n"
	"                      memory (default 0.01); at most 100000 grid points\n"
	"  --seed S            seed of the random heuristics (default 0)\n"
	"  --no-dealloc        drop every RELEASE of the schedule\n"
	"  --jobs N            threads for the grid (default: all processors)\n"
	"  --from-start        replay the warm-up before the START annotation too\n"
	"  --preallocate       final outputs preallocated instead of pinned at the end\n"
	"  --probes            list every probe (JSON always does)\n"
	"  --json              one JSON object\n"
	"\n"
	"Cost: (unbounded peak - lower bound) / step + 1 grid replays, plus about\n"
	"log2(step) per bisection (two at most).\n"
	"\n"
	"Exit status: 0 ok, 64 usage (also an impossible --resolution), 65\n"
	"malformed log, 66 missing input.\n";

/* "3.27 GiB": for people; the exact bytes are printed beside it. */
static const char *human(char *buf, size_t cap, uint64_t b)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	double v = (double)b;
	int u = 0;
	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, cap, u ? "%.2f %s" : "%.0f %s", v, unit[u]);
	return buf;
}

static bool probed(const struct fit_result *r, uint64_t budget, enum outcome *o)
{
	for (size_t i = 0; i < r->n_probes; i++)
		if (r->probes[i].budget == budget) {
			*o = r->probes[i].outcome;
			return true;
		}
	return false;
}

int cmd_fit(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"heuristic", required_argument, NULL, 'H'},
		{"runtime", required_argument, NULL, 'r'},
		{"overhead-limit", required_argument, NULL, 'l'},
		{"resolution", required_argument, NULL, 'R'},
		{"seed", required_argument, NULL, 'S'},
		{"no-dealloc", no_argument, NULL, 'n'},
		{"jobs", required_argument, NULL, 'J'},
		{"from-start", no_argument, NULL, 's'},
		{"preallocate", no_argument, NULL, 'p'},
		{"probes", no_argument, NULL, 'P'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *hname = NULL, *rname = "V2EagerOptimized", *why = NULL;
	struct fit_config fc = {.overhead_limit = 2, .resolution = 0.01};
	bool json = false, list = false;
	struct read_options ropt = {0};
	char *end;

	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'H': hname = optarg; break;
		case 'r': rname = optarg; break;
		case 'l':
			if (opt_overhead_limit("fit", optarg, &fc.overhead_limit))
				return EXIT_USAGE;
			break;
		case 'R':
			if (scalar_parse_double(optarg, &fc.resolution, &why) || !(fc.resolution > 0 && fc.resolution <= 1)) {
				fprintf(stderr, "rematsim fit: --resolution wants a fraction in (0,1] of the baseline "
					"memory, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'S':
			if (opt_whole("fit", "--seed", optarg, 0, &fc.seed))
				return EXIT_USAGE;
			break;
		case 'J': {
			errno = 0;
			unsigned long v = strtoul(optarg, &end, 10);
			if (end == optarg || *end || errno || *optarg == '-' || v < 1 || v > 4096) {
				fprintf(stderr, "rematsim fit: --jobs wants a number from 1 to 4096, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			fc.jobs = (unsigned)v;
			break;
		}
		case 'n': fc.no_dealloc = true; break;
		case 's': ropt.from_start = true; break;
		case 'p': ropt.preallocate = true; break;
		case 'P': list = true; break;
		case 'j': json = true; break;
		case 'h':
			fputs(fit_help, stdout);
			return 0;
		default:
			return usage_error("fit", fit_help, "bad option \'%s\'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return usage_error("fit", fit_help, "give exactly one LOG");
	if (!hname) {
		fprintf(stderr, "rematsim fit: --heuristic is required (rematsim replay --help lists them)\n");
		return EXIT_USAGE;
	}
	fc.heuristic = heuristic_find(hname);
	if (!fc.heuristic || runtime_kind_parse(rname, &fc.runtime)) {
		fprintf(stderr, "rematsim fit: unknown %s '%s' (rematsim replay --help lists them)\n",
			fc.heuristic ? "runtime" : "heuristic", fc.heuristic ? rname : hname);
		return EXIT_USAGE;
	}
	struct rs_error err;
	struct runtime_config probe = {.runtime = fc.runtime, .heuristic = fc.heuristic};
	if (runtime_check_config(&probe, &err)) {
		fprintf(stderr, "rematsim fit: %s\n", err.msg);
		return EXIT_USAGE;
	}

	struct schedule *s;
	if (schedule_read(argv[optind], &ropt, &s, &err) < 0) {
		rs_error_print(&err);
		return err.status;
	}
	struct baseline base;
	baseline_run(s, &base);
	struct fit_result r;
	if (fit_run(s, &base, &fc, &r, &err)) {
		if (err.file[0])
			rs_error_print(&err);
		else
			fprintf(stderr, "rematsim fit: %s: %s\n", s->source, err.msg);
		schedule_free(s);
		return err.status;
	}
	const char *logname = strrchr(s->source, '/') ? strrchr(s->source, '/') + 1 : s->source;
	double bm = base.memory ? (double)base.memory : 1;
	enum outcome below = OUTCOME_PASS;
	bool below_probed = r.smallest_pass > 0 && probed(&r, r.smallest_pass - 1, &below);
	if (json) {
		json_t *o = json_object();
		json_object_set_new(o, "log", json_string(logname));
		json_object_set_new(o, "heuristic", json_string(fc.heuristic->name));
		json_object_set_new(o, "runtime", json_string(runtime_kind_name(fc.runtime)));
		json_object_set_new(o, "overhead_limit", isinf(fc.overhead_limit) ? json_string("inf") : json_real(fc.overhead_limit));
		json_object_set_new(o, "resolution", json_real(fc.resolution));
		json_object_set_new(o, "baseline_memory", json_integer((json_int_t)base.memory));
		json_object_set_new(o, "lower_bound", json_integer((json_int_t)r.lower));
		json_object_set_new(o, "floor", json_integer((json_int_t)r.floor));
		json_object_set_new(o, "unbounded_peak", json_integer((json_int_t)r.upper));
		json_object_set_new(o, "step", json_integer((json_int_t)r.step));
		json_object_set_new(o, "smallest_pass", json_integer((json_int_t)r.smallest_pass));
		json_object_set_new(o, "smallest_pass_ratio", json_real((double)r.smallest_pass / bm));
		json_object_set_new(o, "exact", json_boolean(r.exact));
		json_object_set_new(o, "largest_fail_above", r.largest_fail ? json_integer((json_int_t)r.largest_fail) : json_null());
		json_object_set_new(o, "all_pass_from", json_integer((json_int_t)r.all_pass_from));
		json_object_set_new(o, "all_pass_from_ratio", json_real((double)r.all_pass_from / bm));
		json_object_set_new(o, "monotone", json_boolean(!r.largest_fail));
		json_object_set_new(o, "grid_probes", json_integer((json_int_t)r.n_grid));
		json_object_set_new(o, "probes_total", json_integer((json_int_t)r.n_probes));
		json_object_set_new(o, "wall_ms", json_real(r.wall_ms));
		json_t *ps = json_array();
		for (size_t i = 0; i < r.n_probes; i++)
			json_array_append_new(ps, json_pack("{s:I, s:s, s:f, s:b}", "budget", (json_int_t)r.probes[i].budget,
							    "outcome", outcome_name(r.probes[i].outcome),
							    "overhead", r.probes[i].overhead, "grid", r.probes[i].grid));
		json_object_set_new(o, "probes", ps);
		char *line = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17));
		json_decref(o);
		puts(line);
		free(line);
	} else {
		printf("fit of %s under %s, runtime %s, overhead limit %g:\n", s->source, fc.heuristic->name,
		       runtime_kind_name(fc.runtime), fc.overhead_limit);
		char hb[32];
		printf("  smallest passing budget found: %" PRIu64 " bytes (%s, ratio %.6f)", r.smallest_pass,
		       human(hb, sizeof hb, r.smallest_pass), (double)r.smallest_pass / bm);
		if (r.exact)
			printf(", the lower bound: no budget below it can pass\n");
		else if (below_probed && below != OUTCOME_PASS)
			printf(", %" PRIu64 " fails (%s)\n", r.smallest_pass - 1, outcome_name(below));
		else
			printf("\n");
		if (r.largest_fail) {
			enum outcome lo = OUTCOME_OOM;
			probed(&r, r.largest_fail, &lo);
			printf("  largest failing budget above it: %" PRIu64 " bytes (%s, ratio %.6f, %s): "
			       "feasibility is not monotone\n", r.largest_fail, human(hb, sizeof hb, r.largest_fail),
			       (double)r.largest_fail / bm, outcome_name(lo));
		} else {
			printf("  no failing budget above it among the probes\n");
		}
		printf("  every probed budget from %" PRIu64 " bytes (%s, ratio %.6f) up passes\n", r.all_pass_from,
		       human(hb, sizeof hb, r.all_pass_from), (double)r.all_pass_from / bm);
		printf("search: %zu replays (%zu on a grid of step %" PRIu64 " bytes from the lower bound %" PRIu64
		       " (%s) to the unbounded peak %" PRIu64 ", %zu bisecting), %.0f ms; budgets between probes untried\n",
		       r.n_probes, r.n_grid, r.step, r.lower,
		       r.floor >= r.footprint ? "the floor: pinned at the end" : "the largest op's inputs and outputs",
		       r.upper, r.n_probes - r.n_grid, r.wall_ms);
		if (list) {
			printf("\n%16s %10s %-6s %20s %s\n", "budget", "ratio", "result", "overhead", "probe");
			for (size_t i = 0; i < r.n_probes; i++)
				printf("%16" PRIu64 " %10.6f %-6s %20.17g %s\n", r.probes[i].budget,
				       (double)r.probes[i].budget / bm, outcome_name(r.probes[i].outcome),
				       r.probes[i].overhead, r.probes[i].grid ? "grid" : "bisect");
		}
	}
	fit_result_free(&r);
	schedule_free(s);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "rematsim fit: cannot write the output: %s\n", strerror(errno));
		return EXIT_IOERR;
	}
	return 0;
}
