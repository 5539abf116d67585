/*
 * record.c: `rematsim-record`, run one demo model's training iteration
 * (after a warm-up one) on a backend and write its op log.
 *
 * Before allocating anything it runs the model dry (no memory, no kernels)
 * to learn the exact bytes it will need, so that sizes too large for the
 * device fail with a message instead of half a log.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "logger_config.h"
#include "models.h"
#include "oplog.h"


static void usage(FILE *f)
{
	fprintf(f,
		"usage: rematsim-record --model NAME [SIZES] [--device cpu|cuda] [--seed N]\n"
		"                       --out FILE.log[.gz]\n\n"
		"Run one training iteration of a demo model (after a warm-up iteration)\n"
		"and record its ops as an op log (docs/log-format.md), with a\n"
		"side file NAME.meta.json for --out NAME.log[.gz] (device, versions,\n"
		"clock, arguments, peak_live_bytes: the peak an unbounded replay gives).\n\n"
		"Models:\n");
	for (size_t i = 0; model_registry[i]; i++) {
		const struct model_desc *d = model_registry[i];
		const struct model_size *s = &d->defaults;
		fprintf(f, "  %-12s %s\n  %-12s defaults: --batch %" PRId64 " --width %" PRId64
			   " --depth %" PRId64,
			d->name, d->uses, "", s->batch, s->width, s->depth);
		if (s->seq)
			fprintf(f, " --seq %" PRId64, s->seq);
		if (s->heads)
			fprintf(f, " --heads %" PRId64, s->heads);
		if (s->image)
			fprintf(f, " --image %" PRId64, s->image);
		fprintf(f, "\n");
	}
	fprintf(f,
		"\nOptions:\n"
		"  --model NAME     one of the models above\n"
		"  --batch B --width W --depth D --seq S --heads H --image P --classes C\n"
		"                   sizes (positive integers; each model uses some)\n"
		"  --device DEV     cpu (default) or cuda%s\n"
		"  --seed N         seed of weights and data (default 1)\n"
		"  --measure-link   also measure the device's host link (cuda: copies of\n"
		"                   4 KiB to 64 MiB of pinned memory each way) into the\n"
		"                   meta file's \"link\" (docs/offload.md)\n"
		"  --costs          each CALL and MUTATE also gets the op's FLOPS and\n"
		"                   BYTES, from its shapes (docs/llm.md)\n"
		"  --dry            record the ops without running them (no memory, every\n"
		"                   TIME 0): the same records as a run's but the times;\n"
		"                   with --costs, what a time model needs (docs/llm.md)\n"
		"  --out FILE       the log; gzip-compressed when FILE ends in .gz\n"
		"  -h, --help       this text\n\n"
		"Exit status: 0 success, 64 bad command line or sizes, 69 device\n"
		"unavailable (no CUDA build or device, or sizes too large for its memory;\n"
		"or --measure-link failed: the log is written without the link),\n"
		"73 cannot create the log, 74 I/O error while writing, 70 internal error.\n",
		HAVE_CUDA ? "" : " (this build has no CUDA)");
}

static int parse_size(const char *opt, const char *s, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > (1ll << 31)) {
		fprintf(stderr, "rematsim-record: --%s wants an integer from 1 to 2^31, not '%s'\n",
			opt, s);
		return -1;
	}
	*out = v;
	return 0;
}

static double wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const struct backend *pick_backend(const char *device)
{
	if (!strcmp(device, "cpu"))
		return &backend_cpu;
	if (!strcmp(device, "cuda"))
		return backend_cuda_get();
	return NULL;
}

/* The measured host link (--measure-link), as a JSON object: the fitted
 * bandwidth (bytes/s) and latency (ns) each way, then the sizes and the
 * median copy times they were fitted to. */
static void link_json(const struct link_measure *l, char *buf, size_t n)
{
	int k = snprintf(buf, n, "{\"h2d_bytes_per_s\": %.6g, \"h2d_latency_ns\": %.6g, "
				 "\"d2h_bytes_per_s\": %.6g, \"d2h_latency_ns\": %.6g, \"pinned\": true",
			 l->h2d_bytes_per_s, l->h2d_latency_ns, l->d2h_bytes_per_s, l->d2h_latency_ns);
	static const char *const keys[] = {"bytes", "h2d_ns", "d2h_ns"};
	for (int a = 0; a < 3; a++) {
		k += snprintf(buf + k, n - (size_t)k, ", \"%s\": [", keys[a]);
		for (int i = 0; i < l->n; i++)
			k += a ? snprintf(buf + k, n - (size_t)k, "%s%.6g", i ? ", " : "",
					  a == 1 ? l->h2d_ns[i] : l->d2h_ns[i])
			       : snprintf(buf + k, n - (size_t)k, "%s%llu", i ? ", " : "",
					  (unsigned long long)l->bytes[i]);
		k += snprintf(buf + k, n - (size_t)k, "]");
	}
	snprintf(buf + k, n - (size_t)k, "}");
}

/* The sizes the model uses, as a JSON object. */
static void sizes_json(const struct model_size *s, char *buf, size_t n)
{
	int k = snprintf(buf, n, "{\"batch\": %lld, \"width\": %lld, \"depth\": %lld",
			 (long long)s->batch, (long long)s->width, (long long)s->depth);
	if (s->seq)
		k += snprintf(buf + k, n - (size_t)k, ", \"seq\": %lld", (long long)s->seq);
	if (s->heads)
		k += snprintf(buf + k, n - (size_t)k, ", \"heads\": %lld", (long long)s->heads);
	if (s->image)
		k += snprintf(buf + k, n - (size_t)k, ", \"image\": %lld", (long long)s->image);
	snprintf(buf + k, n - (size_t)k, ", \"classes\": %lld}", (long long)s->classes);
}

int main(int argc, char **argv)
{
	enum { O_BATCH = 256, O_WIDTH, O_DEPTH, O_SEQ, O_HEADS, O_IMAGE, O_CLASSES, O_SEED,
	       O_MEASURE_LINK, O_COSTS, O_DRY };
	static const struct option opts[] = {
		{"model", required_argument, NULL, 'm'},
		{"device", required_argument, NULL, 'd'},
		{"out", required_argument, NULL, 'o'},
		{"batch", required_argument, NULL, O_BATCH},
		{"width", required_argument, NULL, O_WIDTH},
		{"depth", required_argument, NULL, O_DEPTH},
		{"seq", required_argument, NULL, O_SEQ},
		{"heads", required_argument, NULL, O_HEADS},
		{"image", required_argument, NULL, O_IMAGE},
		{"classes", required_argument, NULL, O_CLASSES},
		{"seed", required_argument, NULL, O_SEED},
		{"measure-link", no_argument, NULL, O_MEASURE_LINK},
		{"costs", no_argument, NULL, O_COSTS},
		{"dry", no_argument, NULL, O_DRY},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *model_name = NULL, *device = "cpu", *out = NULL;
	int64_t sizes[O_CLASSES - O_BATCH + 1] = {0};
	uint64_t seed = 1;
	bool measure_link = false, costs = false, dry_log = false;
	int c;
	while ((c = getopt_long(argc, argv, "m:d:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'm': model_name = optarg; break;
		case 'd': device = optarg; break;
		case 'o': out = optarg; break;
		case 'h': usage(stdout); return 0;
		case O_SEED: {
			char *end;
			errno = 0;
			seed = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || strchr(optarg, '-')) {
				fprintf(stderr, "rematsim-record: --seed wants a non-negative integer, "
						"not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		}
		case O_MEASURE_LINK: measure_link = true; break;
		case O_COSTS: costs = true; break;
		case O_DRY: dry_log = true; break;
		case '?': usage(stderr); return EXIT_USAGE;
		default:
			if (parse_size(opts[c - O_BATCH + 3].name, optarg, &sizes[c - O_BATCH]))
				return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rematsim-record: unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}
	if (!model_name || !out) {
		fprintf(stderr, "rematsim-record: --model and --out are required "
				"(see rematsim-record --help)\n");
		return EXIT_USAGE;
	}
	{ /* --out before any work: a recording is long to lose */
		struct rs_error oerr = {0};
		if (oplog_check_path(out, &oerr)) {
			fprintf(stderr, "rematsim-record: %s: %s\n", oerr.file, oerr.msg);
			return oerr.status;
		}
	}
	const struct model_desc *desc = model_find(model_name);
	if (!desc) {
		fprintf(stderr, "rematsim-record: unknown model '%s' (models:", model_name);
		for (size_t i = 0; model_registry[i]; i++)
			fprintf(stderr, " %s", model_registry[i]->name);
		fprintf(stderr, ")\n");
		return EXIT_USAGE;
	}
	if (strcmp(device, "cpu") && strcmp(device, "cuda")) {
		fprintf(stderr, "rematsim-record: unknown device '%s' (cpu or cuda)\n", device);
		return EXIT_USAGE;
	}
	if (measure_link && strcmp(device, "cuda")) {
		fprintf(stderr, "rematsim-record: --measure-link measures a device's host link: "
				"it needs --device cuda\n");
		return EXIT_USAGE;
	}
	struct model_size size = desc->defaults;
	int64_t *fields[] = {&size.batch, &size.width, &size.depth, &size.seq,
			     &size.heads, &size.image, &size.classes};
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
		if (sizes[i])
			*fields[i] = sizes[i];
	const char *why = desc->check(&size);
	if (why) {
		fprintf(stderr, "rematsim-record: %s\n", why);
		return EXIT_USAGE;
	}

	/*
	 * Sizes whose products overflow would break the dry run's own shape
	 * arithmetic: refuse them here, with the same message as sizes that
	 * merely don't fit.
	 */
	double elems = (double)size.batch * (double)size.width * 4 *
		       (double)(size.seq ? size.seq : 1) * (double)(size.seq ? size.seq : 1) *
		       (double)(size.image ? size.image : 1) * (double)(size.image ? size.image : 1) *
		       (double)(size.heads ? size.heads : 1) * 9;
	bool absurd = elems > 1e17;

	const struct backend *be = pick_backend(device);
	if (!be) {
		fprintf(stderr, "rematsim-record: this build has no CUDA backend "
				"(rebuild with nvcc: meson setup -Dcuda=enabled)\n");
		return EXIT_UNAVAILABLE;
	}
	struct backend_info info = {0};
	char msg[512] = "";
	if (be->init(&info, msg, sizeof msg)) {
		fprintf(stderr, "rematsim-record: --device %s: no usable %s device (%s)\n", be->name,
			be == &backend_cpu ? "CPU" : "CUDA", msg);
		return EXIT_UNAVAILABLE;
	}

	/* Dry run: the exact bytes the real one will allocate. */
	uint64_t need = UINT64_MAX;
	bool too_large = absurd;
	struct model *m;
	if (!absurd) {
		struct rt *dry = rt_new(be, &info, NULL, true);
		m = model_new(desc, dry, &size, seed);
		model_iteration(m, MODEL_STEP);
		model_iteration(m, MODEL_STEP);
		model_free(m);
		need = dry->alloc_peak_bytes;
		too_large = dry->too_large;
		rt_free(dry);
	}
	if (too_large || need > info.free_bytes / 10 * 9) {
		fprintf(stderr,
			"rematsim-record: %s at these sizes needs %s%.1f MiB of %s memory, "
			"but only %.1f MiB are available; use smaller sizes\n",
			desc->name, too_large ? "far more than " : "",
			too_large ? (double)info.total_bytes / 1048576 : (double)need / 1048576,
			be->name, (double)info.free_bytes / 1048576);
		be->shutdown();
		return EXIT_UNAVAILABLE;
	}

	struct rs_error err = {0};
	struct oplog *log = oplog_open(out, &err);
	if (!log) {
		fprintf(stderr, "rematsim-record: %s: %s\n", err.file, err.msg);
		be->shutdown();
		return err.status;
	}
	double t0 = wall_s();
	struct rt *rt = rt_new(be, &info, log, dry_log);
	rt->costs = costs;
	if (costs)
		oplog_meta_str(log, "costs", "each CALL and MUTATE has FLOPS and BYTES from its "
					     "shapes (docs/llm.md)");
	m = model_new(desc, rt, &size, seed);
	float warm_loss = model_iteration(m, MODEL_STEP);
	rt_start(rt);
	uint64_t ops0 = rt->ops, time0 = rt->op_time_ns;
	float loss = model_iteration(m, MODEL_STEP);
	uint64_t ops = rt->ops - ops0, op_time = rt->op_time_ns - time0;
	model_free(m);
	double wall = wall_s() - t0;

	/* After the recording, so that no op's time shares the device with it. */
	struct link_measure link = {0};
	bool link_failed = measure_link && be->measure_link(&link, msg, sizeof msg);
	if (link_failed) /* the recording is kept: status 69 once it is written */
		fprintf(stderr, "rematsim-record: --measure-link: %s; the log is written without "
				"the link\n", msg);

	char sizes_text[512];
	sizes_json(&size, sizes_text, sizeof sizes_text);
	oplog_meta_str(log, "model", desc->name);
	oplog_meta_str(log, "title", desc->title);
	oplog_meta_json(log, "sizes", sizes_text);
	oplog_meta_int(log, "seed", (int64_t)seed);
	oplog_meta_str(log, "device", be->name);
	oplog_meta_str(log, "device_name", info.device);
	oplog_meta_str(log, "driver_version", info.driver);
	oplog_meta_str(log, "runtime_version", info.runtime);
	oplog_meta_str(log, "clock", dry_log ? "none: --dry ran no op (every TIME is 0)" : info.clock);
	oplog_meta_int(log, "peak_alloc_bytes", (int64_t)rt->alloc_peak_bytes);
	oplog_meta_int(log, "measured_ops", (int64_t)ops);
	oplog_meta_int(log, "measured_op_time_ns", (int64_t)op_time);
	oplog_meta_real(log, "loss_warmup", warm_loss);
	oplog_meta_real(log, "loss", loss);
	if (measure_link && !link_failed) {
		char text[2048];
		link_json(&link, text, sizeof text);
		oplog_meta_json(log, "link", text);
	}
	oplog_meta_str(log, "recorder", "rematsim-record " REMATSIM_VERSION);
	oplog_meta_strv(log, "argv", (size_t)argc, (const char *const *)argv);

	uint64_t records = oplog_records(log), calls = oplog_calls(log);
	uint64_t peak = oplog_peak_live_bytes(log);
	uint64_t peak_alloc = rt->alloc_peak_bytes;
	rt_free(rt);
	be->shutdown();
	if (oplog_close(log, &err)) {
		fprintf(stderr, "rematsim-record: %s: %s\n", err.file, err.msg);
		return err.status;
	}
	fprintf(stderr,
		"rematsim-record: %s on %s: %" PRIu64 " records, %" PRIu64 " calls, "
		"peak_live_bytes %" PRIu64 " (%.1f MiB; allocated peak %.1f MiB), "
		"measured ops %" PRIu64 " in %.3f ms, loss %.4f -> %.4f, %.2f s\n",
		desc->name, be->name, records, calls, peak, (double)peak / 1048576,
		(double)peak_alloc / 1048576, ops, (double)op_time / 1e6, warm_loss, loss, wall);
	if (measure_link && !link_failed)
		fprintf(stderr, "rematsim-record: host link (pinned): h2d %.1f GB/s + %.1f us, "
				"d2h %.1f GB/s + %.1f us\n", link.h2d_bytes_per_s / 1e9,
			link.h2d_latency_ns / 1e3, link.d2h_bytes_per_s / 1e9, link.d2h_latency_ns / 1e3);
	return link_failed ? EXIT_UNAVAILABLE : 0;
}
