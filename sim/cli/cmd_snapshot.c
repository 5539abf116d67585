/*
 * cmd_snapshot.c: `rematsim snapshot FILE.pickle`, a PyTorch CUDA memory
 * snapshot read without running anything in it (pickle.h), its memory
 * over the trace, the largest live blocks at the peak, and a replay
 * through the allocator model (snapshot.h) with how far it agrees.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "alloc.h"
#include "cmd.h"
#include "cmd_opts.h"
#include "outfile.h"
#include "snapshot.h"
#include "util.h"

static const char snapshot_help[] =
	"usage: rematsim snapshot FILE.pickle [--json] [--top N] [--allocator-conf CONF]\n"
	"                         [--device-memory BYTES] [--out DIR]\n"
	"\n"
	"Read a PyTorch CUDA memory snapshot (torch.cuda.memory._record_memory_history()\n"
	"then torch.cuda.memory._dump_snapshot(FILE.pickle)) with a pickle reader that\n"
	"only builds values: a file that would import or call anything (os.system) is\n"
	"refused, naming the opcode and its byte offset, and nothing in it is run.\n"
	"\n"
	"For each device's trace it prints: the trace's counts; the start state (the\n"
	"segments the trace does not allocate itself, and the blocks allocated before\n"
	"it); allocated and reserved memory over the trace, their peaks, and\n"
	"fragmentation (reserved minus allocated) at the allocated peak; the largest\n"
	"blocks live at that peak with the frame that allocated each (file:line\n"
	"function); and a replay of the trace through rematsim's model of PyTorch's\n"
	"caching allocator with the settings the file records (docs/allocator.md):\n"
	"allocations placed at the recorded address, out of all; segment_alloc\n"
	"decisions matched (a new segment of the same size at the same request),\n"
	"out of all; the first disagreement with its context.\n"
	"\n"
	"  --allocator-conf CONF  a what-if: the trace's allocations and frees through\n"
	"                         the model with CONF (PYTORCH_CUDA_ALLOC_CONF syntax:\n"
	"                         max_split_size_mb:N, roundup_power2_divisions:N or\n"
	"                         [MB:N,...,>:N], garbage_collection_threshold:X,\n"
	"                         expandable_segments:True|False), beside the same\n"
	"                         replay with the recorded settings; both start from an\n"
	"                         empty cache with the start state's live blocks\n"
	"  --device-memory BYTES  the what-ifs' device size (2GiB, 8e9): what the\n"
	"                         allocator may reserve (as a memory fraction sets it;\n"
	"                         garbage_collection_threshold needs it); allocations\n"
	"                         it cannot place are counted as out of memory\n"
	"  --top N                the N largest live blocks at the peak (default 10)\n"
	"  --json                 one JSON object per device trace\n"
	"  --out DIR              also write DIR/memory.tsv (entry, time_us, allocated,\n"
	"                         reserved after each entry); draw it with\n"
	"                         rematsim plot DIR (or gnuplot -c plots/snapshot.gp\n"
	"                         DIR/memory.tsv OUT.png)\n"
	"\n"
	"Exit status: 0 ok, 64 usage (an unknown allocator setting is named),\n"
	"65 a malformed or refused pickle, not a snapshot, or a trace that frees an\n"
	"address nothing allocated (the entry index), 66 missing input, 71 memory\n"
	"limit, 73 DIR cannot be created, 74 write error.\n";

static void put_frames(json_t *arr, const struct pickle_value *frames)
{
	if (!frames || frames->type != PICKLE_LIST)
		return;
	for (size_t i = 0; i < frames->u.c.n; i++) {
		const struct pickle_value *f = frames->u.c.items[i];
		const struct pickle_value *fn = pickle_get(f, "filename"), *nm = pickle_get(f, "name");
		const struct pickle_value *ln = pickle_get(f, "line");
		if (!fn || fn->type != PICKLE_STR || pickle_str_is(fn, "??"))
			continue;
		char *file = xmalloc(fn->u.s.n + 1);
		memcpy(file, fn->u.s.p, fn->u.s.n);
		file[fn->u.s.n] = 0;
		char *name = xstrdup("");
		if (nm && nm->type == PICKLE_STR) {
			free(name);
			name = xmalloc(nm->u.s.n + 1);
			memcpy(name, nm->u.s.p, nm->u.s.n);
			name[nm->u.s.n] = 0;
		}
		json_t *o = json_object();
		json_object_set_new(o, "filename", cmd_json_str(file));
		json_object_set_new(o, "line", json_integer(ln && ln->type == PICKLE_INT ? ln->u.i : 0));
		json_object_set_new(o, "name", cmd_json_str(name));
		json_array_append_new(arr, o);
		free(file);
		free(name);
	}
}

/* "file:line function" of the first frame with a file name, into buf (clean UTF-8 text, no tabs). */
static const char *first_frame(const struct pickle_value *frames, char *buf, size_t size)
{
	snprintf(buf, size, "-");
	if (!frames || frames->type != PICKLE_LIST)
		return buf;
	/* the first Python frame (the user's code), else the first with a file */
	size_t pick = SIZE_MAX;
	for (size_t i = 0; i < frames->u.c.n; i++) {
		const struct pickle_value *fn = pickle_get(frames->u.c.items[i], "filename");
		if (!fn || fn->type != PICKLE_STR || pickle_str_is(fn, "??") || !fn->u.s.n)
			continue;
		if (pick == SIZE_MAX)
			pick = i;
		if (fn->u.s.n > 3 && !memcmp(fn->u.s.p + fn->u.s.n - 3, ".py", 3)) {
			pick = i;
			break;
		}
	}
	for (size_t i = pick; i < frames->u.c.n; i = frames->u.c.n) {
		const struct pickle_value *f = frames->u.c.items[i];
		const struct pickle_value *fn = pickle_get(f, "filename"), *nm = pickle_get(f, "name");
		const struct pickle_value *ln = pickle_get(f, "line");
		char raw[600];
		snprintf(raw, sizeof raw, "%.*s:%" PRId64 " %.*s", (int)(fn->u.s.n > 300 ? 300 : fn->u.s.n), fn->u.s.p,
			 ln && ln->type == PICKLE_INT ? ln->u.i : 0,
			 nm && nm->type == PICKLE_STR ? (int)(nm->u.s.n > 200 ? 200 : nm->u.s.n) : 0,
			 nm && nm->type == PICKLE_STR ? nm->u.s.p : "");
		for (char *p = raw; *p; p++)
			if ((unsigned char)*p < 0x20)
				*p = ' ';
		char *clean = rs_utf8_clean(raw);
		snprintf(buf, size, "%s", clean);
		free(clean);
		return buf;
	}
	return buf;
}

/* bytes as GiB (or MiB below 1 GiB) with two decimals */
static const char *human(uint64_t bytes, char *buf, size_t size)
{
	if (bytes >= (UINT64_C(1) << 30))
		snprintf(buf, size, "%.2f GiB", (double)bytes / (double)(UINT64_C(1) << 30));
	else
		snprintf(buf, size, "%.2f MiB", (double)bytes / (double)(UINT64_C(1) << 20));
	return buf;
}

/* "after entry N", or "at the start" (SIZE_MAX) */
static const char *when_text(size_t at, char *buf, size_t size)
{
	if (at == SIZE_MAX)
		snprintf(buf, size, "at the start");
	else
		snprintf(buf, size, "after entry %zu", at);
	return buf;
}

static json_t *whatif_json(const struct snap_whatif *w)
{
	json_t *o = json_object();
	json_object_set_new(o, "allocated_peak", cmd_json_u64(w->allocated_peak));
	json_object_set_new(o, "reserved_peak", cmd_json_u64(w->reserved_peak));
	json_object_set_new(o, "fragmentation_at_reserved_peak", cmd_json_u64(w->fragmentation_at_peak));
	json_object_set_new(o, "reserved_at_end", cmd_json_u64(w->reserved_at_end));
	json_object_set_new(o, "segments_peak", json_integer((json_int_t)w->segments_peak));
	json_object_set_new(o, "device_allocs", json_integer((json_int_t)w->device_allocs));
	json_object_set_new(o, "ooms", json_integer((json_int_t)w->ooms));
	return o;
}

static int write_tsv(const char *dir, const struct snap_trace *tr, const struct snap_result *r, size_t t,
		     struct rs_error *err)
{
	if (mkdir(dir, 0777) && errno != EEXIST)
		return rs_error_set(err, EXIT_CANTCREAT, dir, 0, "cannot create the folder: %s", strerror(errno));
	char name[64];
	snprintf(name, sizeof name, t ? "memory-%zu.tsv" : "memory.tsv", t);
	size_t n = strlen(dir) + strlen(name) + 2;
	char *path = xmalloc(n);
	snprintf(path, n, "%s/%s", dir, name);
	struct outfile o;
	if (outfile_open(&o, path, err)) {
		free(path);
		return -1;
	}
	fprintf(o.f, "# rematsim snapshot: memory after each trace entry of device %" PRId64 "\n"
		     "# allocated: bytes of live blocks (rounded, those from before the trace included); "
		     "reserved: bytes of segments\n"
		     "entry\ttime_us\tallocated\treserved\n", tr->device);
	for (size_t i = 0; i < r->entries; i++)
		fprintf(o.f, "%zu\t%" PRId64 "\t%" PRIu64 "\t%" PRIu64 "\n", i, tr->e[i].time_us,
			r->points[i].allocated, r->points[i].reserved);
	int rc = outfile_commit(&o, false, err);
	free(path);
	return rc;
}

/* What the printers of one trace's replay take. */
struct snap_view {
	const struct snapshot *s;
	const char *file;
	const struct snap_trace *tr;
	const struct snap_result *r;
	const struct snap_live *live; /* the largest blocks live at the allocated peak */
	size_t shown, nlive;          /* how many of them to show, of how many */
	const char *settings;         /* as recorded, as text */
	const char *conf_text;        /* --allocator-conf, or NULL: no what-if */
	const struct alloc_config *whatif;
	uint64_t device_memory;
	const struct snap_whatif *wbase, *wconf; /* the what-ifs, with conf_text */
	uint64_t frag; /* reserved - allocated at the allocated peak */
};

/* One trace's replay as a JSON line (--json). */
static void print_trace_json(const struct snap_view *v)
{
	json_t *o = json_object();
	json_object_set_new(o, "file", cmd_json_str(v->file));
	json_object_set_new(o, "device", json_integer(v->tr->device));
	json_object_set_new(o, "settings", json_string(v->settings));
	json_object_set_new(o, "entries", json_integer((json_int_t)v->r->entries));
	json_object_set_new(o, "allocs", json_integer((json_int_t)v->r->allocs));
	json_object_set_new(o, "frees", json_integer((json_int_t)v->r->frees));
	/* null where the model did not replay the trace (expandable segments) */
#define MODELLED(x) (v->r->modelled ? json_integer((json_int_t)(x)) : json_null())
	json_object_set_new(o, "modelled", json_boolean(v->r->modelled));
	json_object_set_new(o, "addresses_matched", MODELLED(v->r->addresses_matched));
	json_object_set_new(o, "segment_allocs", json_integer((json_int_t)v->r->segment_allocs));
	json_object_set_new(o, "segment_allocs_matched", MODELLED(v->r->segment_allocs_matched));
	json_object_set_new(o, "model_segment_allocs", MODELLED(v->r->model_segment_allocs));
	json_object_set_new(o, "segment_frees", json_integer((json_int_t)v->r->segment_frees));
	json_object_set_new(o, "segment_frees_matched", MODELLED(v->r->segment_frees_matched));
#undef MODELLED
	json_object_set_new(o, "ooms", json_integer((json_int_t)v->r->ooms));
	if (v->r->first_bad == SIZE_MAX) {
		json_object_set_new(o, "first_disagreement", json_null());
	} else {
		json_t *d = json_object();
		json_object_set_new(d, "entry", json_integer((json_int_t)v->r->first_bad));
		json_object_set_new(d, "what", cmd_json_str(v->r->first_bad_text));
		json_object_set_new(o, "first_disagreement", d);
	}
	json_object_set_new(o, "start_segments", json_integer((json_int_t)v->r->start_segments));
	json_object_set_new(o, "start_reserved", cmd_json_u64(v->r->start_reserved));
	json_object_set_new(o, "start_blocks", json_integer((json_int_t)v->r->start_blocks));
	json_object_set_new(o, "start_allocated", cmd_json_u64(v->r->start_allocated));
	json_object_set_new(o, "allocated_peak", cmd_json_u64(v->r->allocated_peak));
	json_object_set_new(o, "allocated_peak_entry", v->r->allocated_peak_at == SIZE_MAX ? json_null()
			    : json_integer((json_int_t)v->r->allocated_peak_at));
	json_object_set_new(o, "reserved_at_allocated_peak", cmd_json_u64(v->r->reserved_at_allocated_peak));
	json_object_set_new(o, "fragmentation_at_allocated_peak", cmd_json_u64(v->frag));
	json_object_set_new(o, "reserved_peak", cmd_json_u64(v->r->reserved_peak));
	json_object_set_new(o, "reserved_peak_entry", v->r->reserved_peak_at == SIZE_MAX ? json_null()
			    : json_integer((json_int_t)v->r->reserved_peak_at));
	json_object_set_new(o, "trace_allocated_peak", cmd_json_u64(v->r->trace_allocated_peak));
	json_t *arr = json_array();
	for (size_t k = 0; k < v->shown; k++) {
		json_t *b = json_object();
		json_object_set_new(b, "address", cmd_json_u64(v->live[k].addr));
		json_object_set_new(b, "size", cmd_json_u64(v->live[k].size));
		json_object_set_new(b, "requested", cmd_json_u64(v->live[k].requested));
		json_object_set_new(b, "entry", v->live[k].entry == SIZE_MAX ? json_null()
					: json_integer((json_int_t)v->live[k].entry));
		json_t *fr = json_array();
		put_frames(fr, v->live[k].frames);
		json_object_set_new(b, "frames", fr);
		json_array_append_new(arr, b);
	}
	json_object_set_new(o, "largest_at_peak", arr);
	if (v->conf_text) {
		json_t *w = json_object();
		char ct[512];
		json_object_set_new(w, "conf", cmd_json_str(v->conf_text));
		json_object_set_new(w, "settings", json_string(alloc_config_text(v->whatif, ct, sizeof ct)));
		json_object_set_new(w, "device_memory", v->device_memory == UINT64_MAX ? json_null()
					: cmd_json_u64(v->device_memory));
		json_object_set_new(w, "recorded", whatif_json(v->wbase));
		json_object_set_new(w, "with_conf", whatif_json(v->wconf));
		json_object_set_new(o, "whatif", w);
	}
	put_json_line(o);
	json_decref(o);
}

/* One trace's replay as text. */
static void print_trace_text(const struct snap_view *v)
{
	char b1[32], b2[32], b3[32], fr[700];
	printf("%s: device %" PRId64 ": %zu trace entries: %zu allocs, %zu frees, %zu segment_allocs, "
	       "%zu segment_frees, %zu ooms\n", v->file, v->tr->device, v->r->entries, v->r->allocs, v->r->frees,
	       v->r->segment_allocs, v->r->segment_frees, v->r->ooms);
	printf("  settings as recorded: %s%s\n", v->settings[0] ? v->settings : "the defaults",
	       v->s->have_settings ? "" : " (the file records none)");
	if (v->r->modelled)
		printf("  start: %zu segments the trace does not allocate (%" PRIu64 " bytes, %s), %zu "
		       "blocks allocated before it (%" PRIu64 " bytes)\n", v->r->start_segments,
		       v->r->start_reserved, human(v->r->start_reserved, b1, sizeof b1), v->r->start_blocks,
		       v->r->start_allocated);
	else
		printf("  start: %" PRIu64 " bytes reserved (%s: the dump's, less what the trace maps "
		       "and allocates, plus what it unmaps and frees), %zu blocks allocated before it "
		       "(%" PRIu64 " bytes)\n", v->r->start_reserved, human(v->r->start_reserved, b1, sizeof b1),
		       v->r->start_blocks, v->r->start_allocated);
	char when1[48], when2[48];
	when_text(v->r->allocated_peak_at, when1, sizeof when1);
	when_text(v->r->reserved_peak_at, when2, sizeof when2);
	printf("  allocated peak: %" PRIu64 " bytes (%s) %s; reserved then %" PRIu64
	       " (%s); fragmentation (reserved - allocated) %" PRIu64 " (%s)\n", v->r->allocated_peak,
	       human(v->r->allocated_peak, b1, sizeof b1), when1,
	       v->r->reserved_at_allocated_peak, human(v->r->reserved_at_allocated_peak, b2, sizeof b2),
	       v->frag, human(v->frag, b3, sizeof b3));
	printf("  reserved peak: %" PRIu64 " bytes (%s) %s\n", v->r->reserved_peak,
	       human(v->r->reserved_peak, b1, sizeof b1), when2);
	printf("  allocated peak of the trace alone (alloc minus free_completed sizes from its first "
	       "entry): %" PRIu64 " bytes\n", v->r->trace_allocated_peak);
	if (!v->r->modelled)
		printf("model replay: not run: the trace was recorded with expandable segments, whose "
		       "start state the model does not rebuild (the memory above is the trace's own; "
		       "what-ifs with --allocator-conf run)\n");
	else
		printf("model replay (docs/allocator.md), settings as recorded:\n");
	if (v->r->modelled)
		printf("  addresses: %zu of %zu allocations at the recorded address\n", v->r->addresses_matched,
		       v->r->allocs);
	if (v->r->modelled)
		printf("  segment_alloc: %zu of %zu matched (the model asked for %zu)\n",
		       v->r->segment_allocs_matched, v->r->segment_allocs, v->r->model_segment_allocs);
	if (v->r->modelled && v->r->segment_frees)
		printf("  segment_free: %zu of %zu applied to a wholly free segment\n",
		       v->r->segment_frees_matched, v->r->segment_frees);
	if (!v->r->modelled)
		;
	else if (v->r->first_bad == SIZE_MAX)
		printf("  first disagreement: none\n");
	else
		printf("  first disagreement: entry %zu (%s): %s\n", v->r->first_bad,
		       snap_action_name(v->tr->e[v->r->first_bad].action), v->r->first_bad_text);
	printf("largest blocks live at the allocated peak (%zu of %zu):\n", v->shown, v->nlive);
	if (v->shown)
		printf("  %-14s %-14s %-16s %-7s %s\n", "size", "requested", "address", "entry",
		       "allocated at");
	for (size_t k = 0; k < v->shown; k++) {
		char entry[24];
		if (v->live[k].entry == SIZE_MAX)
			snprintf(entry, sizeof entry, "before");
		else
			snprintf(entry, sizeof entry, "%zu", v->live[k].entry);
		printf("  %-14" PRIu64 " %-14" PRIu64 " %#-16" PRIx64 " %-7s %s\n", v->live[k].size,
		       v->live[k].requested, v->live[k].addr, entry, first_frame(v->live[k].frames, fr, sizeof fr));
	}
	if (v->conf_text) {
		char ct[512];
		printf("what-if from an empty cache%s%s:\n", v->device_memory == UINT64_MAX ? "" : ", device memory ",
		       v->device_memory == UINT64_MAX ? "" : human(v->device_memory, b1, sizeof b1));
		const struct snap_whatif *ws[2] = {v->wbase, v->wconf};
		const char *names[2] = {v->settings[0] ? v->settings : "recorded settings (defaults)",
					alloc_config_text(v->whatif, ct, sizeof ct)};
		if (!names[1][0])
			names[1] = "defaults";
		for (int k = 0; k < 2; k++)
			printf("  %-40s reserved peak %" PRIu64 " (%s), allocated peak %" PRIu64
			       ", fragmentation at the reserved peak %" PRIu64 " (%s), %zu device "
			       "allocations, %zu out of memory\n", names[k], ws[k]->reserved_peak,
			       human(ws[k]->reserved_peak, b1, sizeof b1), ws[k]->allocated_peak,
			       ws[k]->fragmentation_at_peak,
			       human(ws[k]->fragmentation_at_peak, b2, sizeof b2),
			       ws[k]->device_allocs, ws[k]->ooms);
	}
}

int cmd_snapshot(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},
		{"top", required_argument, NULL, 'n'},
		{"allocator-conf", required_argument, NULL, 'c'},
		{"device-memory", required_argument, NULL, 'd'},
		{"out", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool json = false;
	uint64_t top = 10, device_memory = UINT64_MAX;
	const char *conf_text = NULL, *out = NULL;
	if (opt_refuse_repeats("snapshot", argc, argv, "h", longopts, NULL))
		return EXIT_USAGE;
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'n':
			if (opt_count("snapshot", "--top", optarg, 0, 1000000, &top))
				return EXIT_USAGE;
			break;
		case 'c': conf_text = optarg; break;
		case 'd':
			if (opt_bytes("snapshot", "--device-memory", optarg, &device_memory))
				return EXIT_USAGE;
			break;
		case 'o': out = optarg; break;
		case 'h':
			fputs(snapshot_help, stdout);
			return 0;
		default:
			return usage_error("snapshot", snapshot_help, "bad option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return usage_error("snapshot", snapshot_help, "give exactly one FILE.pickle");
	const char *file = argv[optind];
	struct alloc_config whatif;
	alloc_config_default(&whatif);
	if (conf_text) {
		char why[512];
		if (alloc_config_parse(&whatif, conf_text, why, sizeof why))
			return usage_error("snapshot", snapshot_help, "--allocator-conf: %s", why);
	}
	if (device_memory != UINT64_MAX && !conf_text)
		return usage_error("snapshot", snapshot_help, "--device-memory applies to the what-if of "
				   "--allocator-conf: give both");
	struct rs_error err;
	struct snapshot *s;
	if (snapshot_read(file, &s, &err)) {
		rs_error_print(&err);
		return err.status;
	}
	int rc = 0;
	char settings[512];
	alloc_config_text(&s->settings, settings, sizeof settings);
	for (size_t t = 0; t < s->ntraces && !rc; t++) {
		const struct snap_trace *tr = &s->traces[t];
		if (!tr->n && s->ntraces > 1)
			continue;
		struct snap_result r;
		if (snapshot_replay(s, t, &s->settings, &r, &err, file)) {
			rs_error_print(&err);
			rc = err.status;
			break;
		}
		struct snap_live *live = NULL;
		size_t nlive = snapshot_live_at(s, t, &r, r.allocated_peak_at, &live);
		size_t shown = nlive < top ? nlive : (size_t)top;
		struct snap_whatif wbase, wconf;
		if (conf_text && (snapshot_whatif(s, t, &s->settings, device_memory, &wbase, &err, file) ||
				  snapshot_whatif(s, t, &whatif, device_memory, &wconf, &err, file))) {
			rs_error_print(&err);
			rc = err.status;
			free(live);
			snapshot_result_done(&r);
			break;
		}
		if (out && write_tsv(out, tr, &r, t, &err)) {
			rs_error_print(&err);
			rc = err.status;
			free(live);
			snapshot_result_done(&r);
			break;
		}
		uint64_t frag = r.reserved_at_allocated_peak - (r.reserved_at_allocated_peak > r.allocated_peak ?
								 r.allocated_peak : r.reserved_at_allocated_peak);
		struct snap_view v = {s, file, tr, &r, live, shown, nlive, settings, conf_text, &whatif,
				      device_memory, &wbase, &wconf, frag};
		if (json)
			print_trace_json(&v);
		else
			print_trace_text(&v);
		free(live);
		snapshot_result_done(&r);
	}
	snapshot_free(s);
	return rc;
}
