/*
 * cmd_info.c: `rematsim info` (what a log holds) and `rematsim check`
 * (every problem in a log). Both take plain, gzip and zip-member logs; a
 * bare ARCHIVE.zip lists (info) or checks (check) the models of its
 * manifest.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <math.h>

#include "alloc.h"
#include "cmd.h"
#include "devmem.h"
#include "runtime.h"
#include "schedule.h"
#include "sha256.h"
#include "source.h"
#include "util.h"

static const char info_help[] =
	"usage: rematsim info [--json] [--from-start] [--preallocate]\n"
	"                     [--allocator pytorch[:CONF]] LOG...\n"
	"\n"
	"Print what each op log holds: the count of each record type, ops\n"
	"(forward / backward / constant), tensors, storages, aliases, the total\n"
	"compute (sum of op times), constant memory, the largest op output, the\n"
	"baseline (peak memory and compute of an unbounded replay), and the floor:\n"
	"the bytes pinned at the end (constants and the outputs still held), below\n"
	"which no budget passes (on runtime V1, which frees released constants, the\n"
	"outputs alone: `fit --runtime V1` starts there); and the predicted\n"
	"reserved peak: the baseline's replay through a model of PyTorch's CUDA\n"
	"caching allocator on an unbounded device, with the fragmentation at it\n"
	"(reserved minus allocated) and the most segments (docs/allocator.md).\n"
	"LOG is a .log, a .log.gz, or ARCHIVE.zip:MEMBER (a path in the archive\n"
	"or a model name of its manifest.json); a bare ARCHIVE.zip lists its models.\n"
	"Options go anywhere; '--' ends them.\n"
	"\n"
	"  --json         one JSON object per log (per model for a bare archive)\n"
	"  --from-start   replay from the first record, not after the START annotation\n"
	"  --preallocate  count live outputs as preallocated instead of pinned\n"
	"  --allocator pytorch[:CONF]\n"
	"                 the settings of the reserved peak's allocator model (CONF\n"
	"                 in PYTORCH_CUDA_ALLOC_CONF syntax; default: pytorch, the\n"
	"                 allocator's defaults)\n"
	"\n"
	"Exit status: 0 ok, 64 usage, 65 malformed log, 66 missing input.\n";

static const char check_help[] =
	"usage: rematsim check [--json] [--from-start] [--max-problems N] LOG...\n"
	"\n"
	"Validate op logs, printing every problem as FILE:LINE: message on stderr.\n"
	"A bare ARCHIVE.zip checks every model of its manifest. Options go\n"
	"anywhere; '--' ends them.\n"
	"\n"
	"  --json            one JSON object per log on stdout: log, ok, problems\n"
	"                    (each line and message), stopped (at --max-problems)\n"
	"\n"
	"Exit status: 0 when every log is clean, 65 when a log has problems,\n"
	"66 when an input is missing, 64 usage.\n";

struct log_opts {
	bool json;
	struct read_options read;
	int max_problems;
	bool alloc_on;             /* info (not check): the reserved peak */
	struct alloc_config alloc;
	char alloc_text[512];
};

/* Parse common options; returns the index of the first log, or -1 (usage), -2 (help). */
static int parse_opts(int argc, char **argv, struct log_opts *o, bool check)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},
		{"from-start", no_argument, NULL, 's'},
		{"preallocate", no_argument, NULL, 'p'},
		{"max-problems", required_argument, NULL, 'm'},
		{"allocator", required_argument, NULL, 'Y'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	memset(o, 0, sizeof *o);
	o->max_problems = 100;
	alloc_config_default(&o->alloc); /* info: the reserved peak, by default of the defaults */
	o->alloc_on = !check;
	snprintf(o->alloc_text, sizeof o->alloc_text, "pytorch");
	o->read.digest = !check; /* info prints the log's sha256; check has no use for it */
	optind = 1;
	opterr = 0;
	int c;
	/* options anywhere (getopt permutes): `info LOG --json` */
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			o->json = true;
			break;
		case 's':
			o->read.from_start = true;
			break;
		case 'p':
			o->read.preallocate = true;
			break;
		case 'm': {
			char *end;
			long n = strtol(optarg, &end, 10);
			if (!check || *end || n < 1 || n > 1000000) {
				fprintf(stderr, "rematsim %s: --max-problems takes a count from 1 to 1000000\n", argv[0]);
				return -1;
			}
			o->max_problems = (int)n;
			break;
		}
		case 'Y': {
			char why[512];
			if (check) {
				fprintf(stderr, "rematsim %s: unknown option '--allocator'\n", argv[0]);
				return -1;
			}
			if (alloc_spec_parse(&o->alloc, optarg, why, sizeof why)) {
				fprintf(stderr, "rematsim %s: --allocator '%s': %s\n", argv[0], optarg, why);
				return -1;
			}
			snprintf(o->alloc_text, sizeof o->alloc_text, "%s", optarg);
			break;
		}
		case 'h':
			return -2;
		default:
			fprintf(stderr, "rematsim %s: unknown option '%s'\n", argv[0], argv[optind - 1]);
			return -1;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "rematsim %s: no log given\n", argv[0]);
		return -1;
	}
	return optind;
}

static void print_info_text(const struct schedule *s, const struct baseline *b,
			    const struct log_opts *o, const struct devmem_result *dr)
{
	char hex[65];
	sha256_hex(s->sha256, hex);
	printf("%s\n", s->source);
	printf("  lines          %" PRIu64, s->lines);
	if (s->has_start && !s->from_start)
		printf(" (replayed after START on line %" PRIu64 ")", s->skipped_lines);
	else if (s->has_start)
		printf(" (replayed from the top, START ignored)");
	printf("\n");
	if (s->format) /* the format's own facts: its row (schedule.h) */
		s->format->describe(s, stdout, NULL);
	printf("  ops            %zu (forward %zu, backward %zu, constant %zu)\n", s->n_ops,
	       s->n_forward_ops, s->n_backward_ops, s->n_constants);
	printf("  tensors        %zu (aliases %zu), storages %zu, handles %zu\n", s->n_tensors,
	       s->n_aliases, s->n_storages, s->n_handles);
	printf("  commands       %zu (final pins %zu)\n", s->n_cmds, s->n_pins_final);
	printf("  total compute  %" PRId64 " ns (%.3f ms)\n", s->total_compute, s->total_compute / 1e6);
	printf("  const memory   %" PRIu64 " bytes (%.1f MiB)\n", s->const_memory,
	       s->const_memory / 1048576.0);
	printf("  largest output %" PRIu64 " bytes (%.1f MiB)\n", s->max_output_size,
	       s->max_output_size / 1048576.0);
	if (s->preallocate)
		printf("  output ram     %" PRIu64 " bytes (preallocated)\n", s->output_ram);
	printf("  baseline       memory %" PRIu64 " bytes (%.1f MiB), compute %" PRId64
	       " ns (unbounded V1 replay)\n", b->memory, b->memory / 1048576.0, b->compute);
	printf("  bottleneck     %" PRIu64 " bytes (%.1f MiB): the largest single op's footprint\n",
	       b->bottleneck_memory, b->bottleneck_memory / 1048576.0);
	uint64_t floor = schedule_floor(s, false);
	printf("  floor          %" PRIu64 " bytes (%.1f MiB, %.3f of the baseline): pinned at the end "
	       "(constants, outputs still held): no budget below it passes\n", floor,
	       floor / 1048576.0, b->memory ? (double)floor / (double)b->memory : 0.0);
	if (o->alloc_on)
		printf("  reserved peak  %" PRIu64 " bytes (%.1f MiB), fragmentation at it %" PRIu64
		       " bytes, at most %" PRIu64 " segment%s: the baseline through the allocator model (%s)\n",
		       dr->reserved_peak, dr->reserved_peak / 1048576.0, dr->fragmentation_at_reserved_peak,
		       dr->segments_peak, dr->segments_peak == 1 ? "" : "s", o->alloc_text);
	printf("  sha256         %s\n", hex);
}

static json_t *info_json(const struct schedule *s, const struct baseline *b)
{
	char hex[65];
	sha256_hex(s->sha256, hex);
	json_t *rec = json_object();
	for (int k = 0; k < REC_KIND_COUNT; k++)
		json_object_set_new(rec, record_kind_name((enum record_kind)k),
				    json_integer((json_int_t)s->records[k]));
	json_t *o = json_object();
	json_object_set_new(o, "log", cmd_json_str(s->source));
	json_object_set_new(o, "sha256", json_string(hex));
	json_object_set_new(o, "lines", json_integer((json_int_t)s->lines));
	json_object_set_new(o, "has_start", json_boolean(s->has_start));
	json_object_set_new(o, "from_start", json_boolean(s->from_start));
	json_object_set_new(o, "records", rec);
	if (s->format) /* the format's own keys (schedule.h) */
		s->format->describe(s, NULL, o);
	json_object_set_new(o, "ops", json_integer((json_int_t)s->n_ops));
	json_object_set_new(o, "forward_ops", json_integer((json_int_t)s->n_forward_ops));
	json_object_set_new(o, "backward_ops", json_integer((json_int_t)s->n_backward_ops));
	json_object_set_new(o, "constants", json_integer((json_int_t)s->n_constants));
	json_object_set_new(o, "tensors", json_integer((json_int_t)s->n_tensors));
	json_object_set_new(o, "storages", json_integer((json_int_t)s->n_storages));
	json_object_set_new(o, "aliases", json_integer((json_int_t)s->n_aliases));
	json_object_set_new(o, "handles", json_integer((json_int_t)s->n_handles));
	json_object_set_new(o, "commands", json_integer((json_int_t)s->n_cmds));
	json_object_set_new(o, "total_compute", json_integer(s->total_compute));
	json_object_set_new(o, "const_memory", json_integer((json_int_t)s->const_memory));
	json_object_set_new(o, "max_output_size", json_integer((json_int_t)s->max_output_size));
	if (s->preallocate)
		json_object_set_new(o, "output_ram", json_integer((json_int_t)s->output_ram));
	json_object_set_new(o, "baseline_memory", json_integer((json_int_t)b->memory));
	json_object_set_new(o, "baseline_compute", json_integer(b->compute));
	json_object_set_new(o, "bottleneck_memory", json_integer((json_int_t)b->bottleneck_memory));
	json_object_set_new(o, "floor_memory", json_integer((json_int_t)schedule_floor(s, false)));
	return o;
}

/* The baseline's replay (runtime V1, unbounded) again, through the
 * allocator model on an unbounded device: the predicted reserved peak. */
static int device_baseline(const struct schedule *s, const struct alloc_config *alloc,
			   struct devmem_result *dr, struct rs_error *err)
{
	struct runtime_config cfg = {.runtime = RUNTIME_V1, .budget = UINT64_MAX / 2,
				     .remat_limit = INFINITY};
	struct devmem *dm = devmem_new(s, alloc, UINT64_MAX);
	cfg.on_event = devmem_on_event;
	cfg.ctx = dm;
	struct runtime_result res;
	int rc = runtime_run(s, &cfg, &res, err);
	devmem_result(dm, dr);
	devmem_free(dm);
	if (!rc && dr->broken)
		rs_bug("info --allocator: the allocator's follower lost the replay's memory");
	return rc;
}

static void print_json_line(json_t *o)
{
	char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	puts(text);
	free(text);
	json_decref(o);
}

int cmd_info(int argc, char **argv)
{
	struct log_opts o;
	int first = parse_opts(argc, argv, &o, false);
	if (first == -2) {
		fputs(info_help, stdout);
		return 0;
	}
	if (first < 0) {
		fputs(info_help, stderr);
		return EXIT_USAGE;
	}
	int status = 0;
	for (int i = first; i < argc; i++) {
		if (source_is_bare_zip(argv[i])) {
			int rc = list_archive(argv[i], o.json, stdout);
			if (rc && !status)
				status = rc;
			continue;
		}
		struct schedule *s;
		struct rs_error err;
		if (schedule_read(argv[i], &o.read, &s, &err) < 0) {
			rs_error_print(&err);
			if (!status)
				status = err.status;
			continue;
		}
		struct baseline b;
		baseline_run(s, &b);
		struct devmem_result dr;
		if (o.alloc_on && device_baseline(s, &o.alloc, &dr, &err)) {
			rs_error_print(&err);
			if (!status)
				status = err.status;
			schedule_free(s);
			continue;
		}
		if (o.json) {
			json_t *j = info_json(s, &b);
			if (o.alloc_on) {
				json_object_set_new(j, "allocator", json_string(o.alloc_text));
				json_object_set_new(j, "reserved_peak", json_integer((json_int_t)dr.reserved_peak));
				json_object_set_new(j, "fragmentation_at_reserved_peak",
						    json_integer((json_int_t)dr.fragmentation_at_reserved_peak));
				json_object_set_new(j, "segments_peak", json_integer((json_int_t)dr.segments_peak));
			}
			print_json_line(j);
		} else {
			print_info_text(s, &b, &o, &dr);
		}
		schedule_free(s);
	}
	return status;
}

static void report_problem(void *ctx, const struct rs_error *e)
{
	json_t *list = ctx;
	if (!list) {
		rs_error_print(e);
		return;
	}
	json_t *p = json_object();
	json_object_set_new(p, "line", json_integer(e->line));
	if (e->column)
		json_object_set_new(p, "column", json_integer(e->column));
	json_object_set_new(p, "message", cmd_json_str(e->msg));
	json_array_append_new(list, p);
}

/* Check one loadable spec; returns 0 clean, else an exit status. */
static int check_one(const char *spec, const struct log_opts *o)
{
	struct rs_error err;
	json_t *list = o->json ? json_array() : NULL;
	int n = schedule_check_read(spec, &o->read, o->max_problems, report_problem, list, &err);
	if (n < 0) {
		json_decref(list);
		rs_error_print(&err);
		return err.status;
	}
	if (list) {
		json_t *obj = json_object();
		json_object_set_new(obj, "log", cmd_json_str(spec));
		json_object_set_new(obj, "ok", json_boolean(n == 0));
		json_object_set_new(obj, "problems", list);
		json_object_set_new(obj, "stopped", json_boolean(n >= o->max_problems));
		print_json_line(obj);
		return n ? EXIT_DATAERR : 0;
	}
	if (n) {
		fprintf(stderr, "rematsim: %s: %d problem%s%s\n", spec, n, n == 1 ? "" : "s",
			n >= o->max_problems ? " (stopped at --max-problems)" : "");
		return EXIT_DATAERR;
	}
	printf("%s: ok\n", spec);
	return 0;
}

int cmd_check(int argc, char **argv)
{
	struct log_opts o;
	int first = parse_opts(argc, argv, &o, true);
	if (first == -2) {
		fputs(check_help, stdout);
		return 0;
	}
	if (first < 0) {
		fputs(check_help, stderr);
		return EXIT_USAGE;
	}
	int status = 0;
	for (int i = first; i < argc; i++) {
		int rc = 0;
		if (source_is_bare_zip(argv[i])) {
			struct manifest *m;
			struct rs_error err;
			if (manifest_read(argv[i], &m, &err) < 0) {
				rs_error_print(&err);
				rc = err.status;
			} else {
				for (size_t k = 0; k < m->n_models; k++) {
					struct log_opts mo = o;
					mo.read.from_start = o.read.from_start || !m->models[k].has_start;
					int r = check_one(m->models[k].spec, &mo);
					if (r && !rc)
						rc = r;
				}
				manifest_free(m);
			}
		} else {
			rc = check_one(argv[i], &o);
		}
		if (rc && (!status || status == EXIT_DATAERR))
			status = rc == EXIT_DATAERR && status ? status : rc;
	}
	return status;
}
