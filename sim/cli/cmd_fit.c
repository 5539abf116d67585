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

#include "alloc.h"
#include "cmd.h"
#include "cmd_opts.h"
#include "fit.h"
#include "heuristics.h"
#include "runtime.h"
#include "scalar.h"
#include "schedule.h"
#include "util.h"

static const char fit_help[] =
	"usage: rematsim fit LOG --heuristic H [--runtime R] [--overhead-limit L]\n"
	"                    [--resolution X] [--scan SPAN [--scan-step X]] [--seed S]\n"
	"                    [--no-dealloc] [--jobs N] [--from-start] [--preallocate]\n"
	"                    [--offload-bandwidth RATE [--offload-latency T]\n"
	"                     [--host-memory BYTES] [--offload-prefetch N]\n"
	"                     [--offload-policy cost|local|swap]]\n"
	"                    [--allocator pytorch[:CONF]] [--probes] [--json]\n"
	"\n"
	"Find the smallest memory budget at which the replay passes (no OOM, no\n"
	"thrash). Feasibility is not always monotone in the budget, so this probes\n"
	"a grid from a lower bound, below which nothing passes (the larger of the\n"
	"largest op's inputs and outputs and the log's floor, the bytes pinned at\n"
	"the end: `rematsim info`), to the unbounded peak (from which everything does),\n"
	"then bisects to the byte at the lowest pass and at the highest failure, and\n"
	"reports the smallest passing budget found, the largest failing budget above\n"
	"it (if any: feasibility is then not monotone there), and the budget from\n"
	"which every probe passed. Budgets between probes are not tried: the report\n"
	"says how many gaps above the answer and the widest; --scan tries every step\n"
	"above it. When the lower bound itself passes it is the answer, and the\n"
	"search stops there.\n"
	"\n"
	"  --heuristic H       eviction heuristic (as in `rematsim replay`)\n"
	"  --runtime R         as in `rematsim replay` (default V2EagerOptimized)\n"
	"  --overhead-limit L  a run past L x baseline compute fails (thrash);\n"
	"                      default 2, 'inf' for none\n"
	"  --resolution X      grid step as a fraction in (0,1] of the baseline\n"
	"                      memory (default 0.01); at most 100000 grid points\n"
	"  --scan SPAN         then probe every scan step above the answer, up to SPAN\n"
	"                      (a fraction in (0,10] of the baseline memory) above it\n"
	"                      or to the unbounded peak: the failures between grid\n"
	"                      points that the search does not try\n"
	"  --scan-step X       the scan's step, a fraction of the baseline memory\n"
	"                      (default a tenth of the resolution); at most 100000\n"
	"                      scan probes\n"
	"  --seed S            seed of the random heuristics (default 0)\n"
	"  --no-dealloc        drop every RELEASE of the schedule\n"
	"  --jobs N            threads for the grid (default: all processors)\n"
	"  --offload-bandwidth RATE, --offload-latency T, --host-memory BYTES,\n"
	"  --offload-prefetch N, --offload-policy P\n"
	"                      every probe offloads as well as recomputes, as in\n"
	"                      `rematsim replay` (docs/offload.md)\n"
	"  --from-start        replay the warm-up before the START annotation too\n"
	"  --preallocate       final outputs preallocated instead of pinned at the end\n"
	"  --allocator pytorch[:CONF]  the question in the device's terms: after the\n"
	"                      search, for each passing budget probed (but the\n"
	"                      scan's), the smallest device memory on which that\n"
	"                      replay passes through a model of PyTorch's CUDA\n"
	"                      caching allocator (CONF in PYTORCH_CUDA_ALLOC_CONF\n"
	"                      syntax), by bisection; reported: the smallest such\n"
	"                      device and the budget to give the heuristic on it\n"
	"                      (docs/allocator.md). Costs about 30 replays a\n"
	"                      passing probe more\n"
	"  --probes            list every probe (JSON always does)\n"
	"  --json              one JSON object\n"
	"\n"
	"Cost: (unbounded peak - lower bound) / step + 1 grid replays, plus at most\n"
	"log2(step) per bisection (two at most), plus SPAN / scan step with --scan.\n"
	"A replay shows a range of budgets around its own over which every replay\n"
	"is the same (each comparison of memory with the budget comes out alike);\n"
	"a bisection step in such a range of an earlier probe is answered without\n"
	"a replay.\n"
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

/* Counts of the probes by what made them. */
static void probe_counts(const struct fit_result *r, size_t *grid, size_t *scan, size_t *bisect)
{
	*grid = *scan = *bisect = 0;
	for (size_t i = 0; i < r->n_probes; i++) {
		*grid += r->probes[i].grid;
		*scan += r->probes[i].scan;
		*bisect += !r->probes[i].grid && !r->probes[i].scan;
	}
}

static void put_json(const struct schedule *s, const struct baseline *base,
		     const struct fit_config *fc, const struct fit_result *r,
		     const struct opt_offload *off, const char *alloc_text)
{
	const char *logname = strrchr(s->source, '/') ? strrchr(s->source, '/') + 1 : s->source;
	double bm = base->memory ? (double)base->memory : 1;
	json_t *o = json_object();
	json_object_set_new(o, "log", cmd_json_str(logname));
	json_object_set_new(o, "heuristic", json_string(fc->point.rt.heuristic->name));
	json_object_set_new(o, "runtime", json_string(runtime_kind_name(fc->point.rt.runtime)));
	json_object_set_new(o, "overhead_limit", isinf(fc->point.overhead_limit) ? json_string("inf") : json_real(fc->point.overhead_limit));
	json_object_set_new(o, "resolution", json_real(fc->resolution));
	opt_offload_json(off, o); /* the host link, when there is one */
	json_object_set_new(o, "baseline_memory", json_integer((json_int_t)base->memory));
	json_object_set_new(o, "lower_bound", json_integer((json_int_t)r->lower));
	json_object_set_new(o, "floor_memory", json_integer((json_int_t)r->floor_memory));
	json_object_set_new(o, "unbounded_peak", json_integer((json_int_t)r->upper));
	if (fc->alloc) { /* (only then: without it, the keys are as they were) */
		json_object_set_new(o, "allocator", json_string(alloc_text));
		json_object_set_new(o, "device_min", cmd_json_u64(r->device_min));
		json_object_set_new(o, "device_budget", cmd_json_u64(r->device_budget));
		json_object_set_new(o, "device_at_smallest_pass", cmd_json_u64(r->device_at_smallest));
		json_object_set_new(o, "unbounded_reserved_peak", cmd_json_u64(r->reserved_upper));
		json_object_set_new(o, "device_replays", json_integer((json_int_t)r->n_device_replays));
	}
	json_object_set_new(o, "step", json_integer((json_int_t)r->step));
	json_object_set_new(o, "smallest_pass", json_integer((json_int_t)r->smallest_pass));
	json_object_set_new(o, "smallest_pass_ratio", json_real((double)r->smallest_pass / bm));
	json_object_set_new(o, "exact", json_boolean(r->exact));
	json_object_set_new(o, "largest_fail_above", r->largest_fail ? json_integer((json_int_t)r->largest_fail) : json_null());
	json_object_set_new(o, "all_pass_from", json_integer((json_int_t)r->all_pass_from));
	json_object_set_new(o, "all_pass_from_ratio", json_real((double)r->all_pass_from / bm));
	json_object_set_new(o, "monotone", json_boolean(!r->largest_fail));
	json_object_set_new(o, "grid_probes", json_integer((json_int_t)r->n_grid));
	json_object_set_new(o, "probes_total", json_integer((json_int_t)r->n_probes));
	/* what was not tried: the floor alone, the gaps between probes, the scan */
	json_object_set_new(o, "floor_passes", json_boolean(r->floor_passes));
	json_object_set_new(o, "untried_gaps", json_integer((json_int_t)r->n_untried_gaps));
	json_object_set_new(o, "widest_untried", r->n_untried_gaps
				? json_pack("[I, I]", (json_int_t)r->untried_lo, (json_int_t)r->untried_hi)
				: json_null());
	json_object_set_new(o, "scan", !fc->scan ? json_null()
				: json_pack("{s:f, s:I, s:I, s:I}", "span", fc->scan,
					    "step", (json_int_t)r->scan_step, "to", (json_int_t)r->scan_to,
					    "probes", (json_int_t)r->n_scan));
	/* probes less those an earlier replay's range answered (fit.h) */
	json_object_set_new(o, "replays", json_integer((json_int_t)(r->n_probes - r->n_known)));
	json_object_set_new(o, "wall_ms", json_real(r->wall_ms));
	json_t *ps = json_array();
	for (size_t i = 0; i < r->n_probes; i++) {
		/* (an infinite overhead, a baseline compute of 0: null, cmd_json.c) */
		json_t *p = json_pack("{s:I, s:s, s:o, s:b}", "budget", (json_int_t)r->probes[i].budget,
				      "outcome", outcome_name(r->probes[i].outcome),
				      /* a probe that did not pass has no overhead (issue 44) */
				      "overhead", r->probes[i].outcome == OUTCOME_PASS
							  ? cmd_json_finite(r->probes[i].overhead)
							  : json_null(),
				      "grid", r->probes[i].grid);
		if (fc->scan) /* (only then: without a scan, probes are as they were) */
			json_object_set_new(p, "scan", json_boolean(r->probes[i].scan));
		if (fc->alloc) /* the smallest device it passes on; null: not searched */
			json_object_set_new(p, "device", r->probes[i].device ? cmd_json_u64(r->probes[i].device)
									     : json_null());
		json_array_append_new(ps, p);
	}
	json_object_set_new(o, "probes", ps);
	char *line = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17));
	json_decref(o);
	puts(line);
	free(line);
}

static void put_text(const struct schedule *s, const struct baseline *base,
		     const struct fit_config *fc, const struct fit_result *r, bool list,
		     const char *alloc_text)
{
	double bm = base->memory ? (double)base->memory : 1;
	enum outcome below = OUTCOME_PASS;
	bool below_probed = r->smallest_pass > 0 && probed(r, r->smallest_pass - 1, &below);
	printf("fit of %s under %s, runtime %s, overhead limit %g:\n", s->source, fc->point.rt.heuristic->name,
	       runtime_kind_name(fc->point.rt.runtime), fc->point.overhead_limit);
	char hb[32];
	printf("  smallest passing budget found: %" PRIu64 " bytes (%s, ratio %.6f)", r->smallest_pass,
	       human(hb, sizeof hb, r->smallest_pass), (double)r->smallest_pass / bm);
	if (r->exact)
		printf(", the lower bound: no budget below it can pass\n");
	else if (below_probed && below != OUTCOME_PASS)
		printf(", %" PRIu64 " fails (%s)\n", r->smallest_pass - 1, outcome_name(below));
	else
		printf("\n");
	if (r->largest_fail) {
		enum outcome lo = OUTCOME_OOM;
		probed(r, r->largest_fail, &lo);
		printf("  largest failing budget above it: %" PRIu64 " bytes (%s, ratio %.6f, %s): "
		       "feasibility is not monotone\n", r->largest_fail, human(hb, sizeof hb, r->largest_fail),
		       (double)r->largest_fail / bm, outcome_name(lo));
	} else {
		printf("  no failing budget above it among the probes\n");
	}
	printf("  every probed budget from %" PRIu64 " bytes (%s, ratio %.6f) up passes\n", r->all_pass_from,
	       human(hb, sizeof hb, r->all_pass_from), (double)r->all_pass_from / bm);
	if (r->floor_passes)
		printf("  the lower bound passes: the search stopped there%s\n",
		       r->n_scan ? " (no grid)" : ", probing no budget above it");
	if (r->n_scan)
		printf("  scanned: every %" PRIu64 " bytes (ratio %.6f) from it to %" PRIu64 " bytes "
		       "(ratio %.6f), %zu replays\n", r->scan_step, (double)r->scan_step / bm, r->scan_to,
		       (double)r->scan_to / bm, r->n_scan);
	if (r->n_untried_gaps)
		printf("  not tried: the budgets between the probes above it, in %zu gap%s, the widest\n"
		       "    %" PRIu64 " to %" PRIu64 " bytes (%" PRIu64 ", ratio %.6f to %.6f); --scan SPAN "
		       "tries them\n", r->n_untried_gaps, r->n_untried_gaps == 1 ? "" : "s", r->untried_lo,
		       r->untried_hi, r->untried_hi - r->untried_lo + 1, (double)r->untried_lo / bm,
		       (double)r->untried_hi / bm);
	if (fc->alloc) {
		char hd[32], hu[32];
		printf("  device (%s): the smallest device memory found is %" PRIu64 " bytes (%s, ratio %.6f),\n"
		       "    with the budget %" PRIu64 "; the smallest passing budget needs %" PRIu64 " (%s);\n"
		       "    the unbounded replay reserves %" PRIu64 " (%s); %zu device replays\n",
		       alloc_text, r->device_min, human(hd, sizeof hd, r->device_min),
		       (double)r->device_min / bm, r->device_budget, r->device_at_smallest,
		       human(hb, sizeof hb, r->device_at_smallest), r->reserved_upper,
		       human(hu, sizeof hu, r->reserved_upper), r->n_device_replays);
	}
	size_t grid, scan, bisect;
	probe_counts(r, &grid, &scan, &bisect);
	/* which bound L is (fit.h) */
	const char *lb = r->floor_memory >= r->footprint ? " (the floor: pinned at the end)"
							  : " (the largest op's inputs and outputs)";
	if (r->floor_passes && !scan)
		printf("search: 1 replay (the lower bound%s, which passed; the unbounded peak is %" PRIu64
		       "), %.0f ms\n", lb, r->upper, r->wall_ms);
	else {
		/* "N replays", or "N probes, M replays" when bisection steps
		 * fell in an earlier replay's range (fit.h) */
		char count[160], known[96] = "";
		if (r->n_known) {
			snprintf(count, sizeof count, "%zu probes, %zu replays", r->n_probes, r->n_probes - r->n_known);
			snprintf(known, sizeof known, ", %zu of them known from an earlier replay", r->n_known);
		} else {
			snprintf(count, sizeof count, "%zu replays", r->n_probes);
		}
		if (scan)
			printf("search: %s (%zu on a grid of step %" PRIu64 " bytes from the lower bound %" PRIu64
			       "%s to the unbounded peak %" PRIu64 ", %zu bisecting%s, %zu scanning), %.0f ms\n",
			       count, grid, r->step, r->lower, lb, r->upper, bisect, known, scan, r->wall_ms);
		else
			printf("search: %s (%zu on a grid of step %" PRIu64 " bytes from the lower bound %" PRIu64
			       "%s to the unbounded peak %" PRIu64 ", %zu bisecting%s), %.0f ms; budgets between "
			       "probes untried\n", count, r->n_grid, r->step, r->lower, lb, r->upper,
			       r->n_probes - r->n_grid, known, r->wall_ms);
	}
	if (list) {
		printf("\n%16s %10s %-6s %20s %s%s\n", "budget", "ratio", "result", "overhead", "probe",
		       fc->alloc ? "   device" : "");
		for (size_t i = 0; i < r->n_probes; i++) {
			char ov[32] = "-"; /* a probe that did not pass has no overhead */
			if (r->probes[i].outcome == OUTCOME_PASS)
				snprintf(ov, sizeof ov, "%.17g", r->probes[i].overhead);
			printf("%16" PRIu64 " %10.6f %-6s %20s %s", r->probes[i].budget,
			       (double)r->probes[i].budget / bm, outcome_name(r->probes[i].outcome),
			       ov, r->probes[i].grid ? "grid" : r->probes[i].scan ? "scan" : "bisect");
			if (fc->alloc && r->probes[i].device)
				printf("%*s%" PRIu64, r->probes[i].grid ? 4 : 2, "", r->probes[i].device);
			printf("\n");
		}
	}
}

int cmd_fit(int argc, char **argv)
{
	static const struct option longopts[] = {
		OPT_ROW_HEURISTIC,
		OPT_ROW_RUNTIME,
		OPT_ROW_OVERHEAD_LIMIT,
		{"resolution", required_argument, NULL, 'R'},
		{"scan", required_argument, NULL, 'C'},
		{"scan-step", required_argument, NULL, 'X'},
		OPT_ROW_SEED,
		OPT_ROWS_OFFLOAD,
		{"no-dealloc", no_argument, NULL, 'n'},
		{"jobs", required_argument, NULL, 'J'},
		{"from-start", no_argument, NULL, 's'},
		{"preallocate", no_argument, NULL, 'p'},
		{"probes", no_argument, NULL, 'P'},
		{"allocator", required_argument, NULL, 'Y'},
		{"device-memory", required_argument, NULL, 'D'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *why = NULL;
	struct fit_config fc = {.resolution = 0.01};
	bool json = false, list = false;
	struct read_options ropt = {0};
	struct opt_parser o;
	struct opt_offload off = {0};
	struct alloc_config alloc;
	char alloc_text[512] = "";
	opt_init(&o, "fit", fit_help, 1);
	int c;
	while ((c = opt_next(&o, argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case OPT_FAIL: return o.status;
		OPT_CASES_OFFLOAD:
			if (opt_offload_parse(&off, &o, c, optarg))
				return EXIT_USAGE;
			break;
		case 'R':
			if (scalar_parse_double(optarg, &fc.resolution, &why) || !(fc.resolution > 0 && fc.resolution <= 1)) {
				fprintf(stderr, "rematsim fit: --resolution wants a fraction in (0,1] of the baseline "
					"memory, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'C':
			if (scalar_parse_double(optarg, &fc.scan, &why) || !(fc.scan > 0 && fc.scan <= 10)) {
				fprintf(stderr, "rematsim fit: --scan wants a fraction in (0,10] of the baseline "
					"memory, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'X':
			if (scalar_parse_double(optarg, &fc.scan_step, &why) ||
			    !(fc.scan_step > 0 && fc.scan_step <= 1)) {
				fprintf(stderr, "rematsim fit: --scan-step wants a fraction in (0,1] of the "
					"baseline memory, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'J': {
			uint64_t v;
			if (opt_count("fit", "--jobs", optarg, 1, 4096, &v))
				return EXIT_USAGE;
			fc.jobs = (unsigned)v;
			break;
		}
		case 'n': fc.point.rt.no_dealloc = true; break;
		case 's': ropt.from_start = true; break;
		case 'p': ropt.preallocate = true; break;
		case 'P': list = true; break;
		case 'Y': {
			char w[512];
			if (alloc_spec_parse(&alloc, optarg, w, sizeof w))
				return usage_error("fit", fit_help, "--allocator '%s': %s", optarg, w);
			fc.alloc = &alloc;
			snprintf(alloc_text, sizeof alloc_text, "%s", optarg);
			break;
		}
		case 'D':
			/* fit searches the device memory: it is the answer, not an input */
			return usage_error("fit", fit_help, "--device-memory: fit --allocator finds the "
					   "smallest device memory; give a device's size to `rematsim replay`");
		case 'j': json = true; break;
		case 'h':
			fputs(fit_help, stdout);
			return 0;
		}
	}
	if (optind != argc - 1)
		return usage_error("fit", fit_help, "give exactly one LOG");
	if (fc.scan_step > 0 && !(fc.scan > 0)) {
		fprintf(stderr, "rematsim fit: --scan-step needs --scan SPAN\n");
		return EXIT_USAGE;
	}
	if (opt_resolve(&o, OPT_NEED_HEURISTIC) || opt_check_config(&o) ||
	    opt_offload_check(&off, &o))
		return EXIT_USAGE;
	bool no_dealloc = fc.point.rt.no_dealloc;
	fc.point = opt_point(&o, 0);
	fc.point.rt.no_dealloc = no_dealloc;
	fc.point.rt.offload = opt_offload_config(&off);
	struct rs_error err;

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
	struct fit_result r;
	if (fit_run(s, &base, &fc, &r, &err)) {
		if (err.file[0])
			rs_error_print(&err);
		else
			fprintf(stderr, "rematsim fit: %s: %s\n", s->source, err.msg);
		schedule_free(s);
		opt_offload_free(&off);
		return err.status;
	}
	if (json) {
		put_json(s, &base, &fc, &r, &off, alloc_text);
	} else {
		put_text(s, &base, &fc, &r, list, alloc_text);
		opt_offload_print(&off, stdout);
	}
	opt_offload_free(&off);
	fit_result_free(&r);
	schedule_free(s);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "rematsim fit: cannot write the output: %s\n", strerror(errno));
		return EXIT_IOERR;
	}
	return 0;
}
