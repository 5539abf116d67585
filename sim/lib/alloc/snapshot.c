/*
 * snapshot.c: PyTorch memory snapshots (snapshot.h): the pickle's values
 * checked and copied into plain arrays, the trace's start state worked
 * out, and the trace replayed through the allocator model.
 */
#include "snapshot.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const action_names[] = {
	"alloc", "free_requested", "free_completed", "segment_alloc", "segment_free",
	"segment_map", "segment_unmap", "snapshot", "oom", "other",
};

const char *snap_action_name(int a)
{
	return a >= 0 && a <= SNAP_OTHER ? action_names[a] : "?";
}

void snapshot_free(struct snapshot *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->ntraces; i++)
		free(s->traces[i].e);
	free(s->traces);
	free(s->segs);
	free(s->blocks);
	pickle_doc_free(s->doc);
	free(s->data);
	free(s);
}

/* A whole number that fits in uint64_t (ints of the pickle), else false. */
static bool get_u64(const struct pickle_value *v, uint64_t *x)
{
	if (!v || v->type != PICKLE_INT || v->u.i < 0)
		return false;
	*x = (uint64_t)v->u.i;
	return true;
}

static int bad(struct rs_error *err, const char *file, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(struct rs_error *err, const char *file, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rs_error_vset(err, EXIT_DATAERR, file, 0, fmt, ap);
	va_end(ap);
	return -1;
}

/* The recorded allocator_settings as a config. */
static int read_settings(const struct pickle_value *st, struct alloc_config *c, struct rs_error *err, const char *file)
{
	alloc_config_default(c);
	const struct pickle_value *v = pickle_get(st, "max_split_size");
	if (v && v->type == PICKLE_INT && v->u.i > 0)
		c->max_split_size = (uint64_t)v->u.i;
	v = pickle_get(st, "garbage_collection_threshold");
	if (v && v->type == PICKLE_FLOAT && v->u.f > 0 && v->u.f < 1)
		c->gc_threshold = v->u.f;
	v = pickle_get(st, "expandable_segments");
	if (v && v->type == PICKLE_BOOL)
		c->expandable_segments = v->u.b;
	v = pickle_get(st, "max_non_split_rounding_size");
	if (v && v->type == PICKLE_INT && v->u.i > 0)
		c->max_non_split_rounding = (uint64_t)v->u.i;
	v = pickle_get(st, "roundup_power2_divisions");
	if (v && v->type == PICKLE_DICT) {
		for (size_t i = 0; i + 1 < v->u.c.n; i += 2) {
			const struct pickle_value *k = v->u.c.items[i], *d = v->u.c.items[i + 1];
			char key[32];
			if (k->type != PICKLE_STR || k->u.s.n >= sizeof key || d->type != PICKLE_INT || d->u.i < 0 ||
			    d->u.i > UINT32_MAX)
				return bad(err, file, "allocator_settings: roundup_power2_divisions holds something "
					   "other than 'MB': divisions");
			memcpy(key, k->u.s.p, k->u.s.n);
			key[k->u.s.n] = 0;
			unsigned long mb = strtoul(key, NULL, 10);
			if (!mb || (mb & (mb - 1)))
				continue;
			int idx = 0;
			while ((1ul << idx) < mb)
				idx++;
			if (idx < ALLOC_DIVISION_INTERVALS)
				c->divisions[idx] = (uint32_t)d->u.i;
		}
	}
	return 0;
}

static int read_entry(const struct pickle_value *d, struct snap_entry *e, size_t dev, size_t i,
		      struct rs_error *err, const char *file)
{
	if (!d || d->type != PICKLE_DICT)
		return bad(err, file, "device_traces[%zu][%zu] is a %s, not a dict", dev, i,
			   d ? pickle_type_name(d->type) : "nothing");
	const struct pickle_value *a = pickle_get(d, "action");
	if (!a || a->type != PICKLE_STR)
		return bad(err, file, "device_traces[%zu][%zu] has no action", dev, i);
	e->action = SNAP_OTHER;
	for (int k = 0; k < SNAP_OTHER; k++)
		if (pickle_str_is(a, action_names[k]))
			e->action = (uint8_t)k;
	e->addr = e->size = e->stream = 0;
	e->time_us = -1;
	e->frames = pickle_get(d, "frames");
	const struct pickle_value *t = pickle_get(d, "time_us");
	if (t && t->type == PICKLE_INT)
		e->time_us = t->u.i;
	if (e->action == SNAP_OTHER || e->action == SNAP_SNAPSHOT)
		return 0;
	const char *names[3] = {"addr", "size", "stream"};
	uint64_t *dst[3] = {&e->addr, &e->size, &e->stream};
	for (int k = 0; k < 3; k++) {
		const struct pickle_value *v = pickle_get(d, names[k]);
		if (k == 2 && v && v->type == PICKLE_INT && v->u.i < 0) {
			*dst[k] = (uint64_t)v->u.i; /* a stream is a handle: any bits */
			continue;
		}
		if (!get_u64(v, dst[k]))
			return bad(err, file, "device_traces[%zu][%zu] (%s): '%s' is missing or not a whole number "
				   "of 0 or more", dev, i, snap_action_name(e->action), names[k]);
	}
	return 0;
}

int snapshot_read(const char *path, struct snapshot **out, struct rs_error *err)
{
	char *data;
	size_t len;
	if (read_whole_file(path, &data, &len, err))
		return -1;
	uint64_t max = rs_limit(RS_MAX_INPUT_ENV, RS_MAX_INPUT_DEFAULT);
	if (len > max) {
		char b[32];
		free(data);
		return rs_error_set(err, EXIT_DATAERR, path, 0, "%zu bytes: past the input limit of %s (%s, "
				    "docs/limits.md)", len, rs_bytes_text(max, b, sizeof b), RS_MAX_INPUT_ENV);
	}
	return snapshot_parse((uint8_t *)data, len, path, out, err);
}

int snapshot_parse(uint8_t *data, size_t len, const char *path, struct snapshot **out, struct rs_error *err)
{
	struct snapshot *s = xcalloc(1, sizeof *s);
	s->data = data;
	s->len = len;
	if (pickle_parse(s->data, len, path, &s->doc, err))
		goto fail;
	const struct pickle_value *root = pickle_root(s->doc);
	const struct pickle_value *segs = pickle_get(root, "segments");
	const struct pickle_value *traces = pickle_get(root, "device_traces");
	if (!root || root->type != PICKLE_DICT || !segs || segs->type != PICKLE_LIST || !traces ||
	    traces->type != PICKLE_LIST) {
		bad(err, path, "not a PyTorch memory snapshot: want a dict with the lists 'segments' and "
		    "'device_traces' (torch.cuda.memory._dump_snapshot()), found a %s%s",
		    root ? pickle_type_name(root->type) : "nothing",
		    root && root->type == PICKLE_DICT ? " without them" : "");
		goto fail;
	}
	alloc_config_default(&s->settings);
	const struct pickle_value *st = pickle_get(root, "allocator_settings");
	if (st && st->type == PICKLE_DICT) {
		s->have_settings = true;
		if (read_settings(st, &s->settings, err, path))
			goto fail;
	}
	/* segments and their blocks */
	size_t nb = 0;
	for (size_t i = 0; i < segs->u.c.n; i++) {
		const struct pickle_value *b = pickle_get(segs->u.c.items[i], "blocks");
		if (b && b->type == PICKLE_LIST)
			nb += b->u.c.n;
	}
	s->segs = xcalloc(segs->u.c.n + 1, sizeof *s->segs);
	s->blocks = xcalloc(nb + 1, sizeof *s->blocks);
	for (size_t i = 0; i < segs->u.c.n; i++) {
		const struct pickle_value *g = segs->u.c.items[i];
		struct snap_segment *sg = &s->segs[s->nsegs++];
		uint64_t dev = 0;
		if (g->type != PICKLE_DICT || !get_u64(pickle_get(g, "address"), &sg->addr) ||
		    !get_u64(pickle_get(g, "total_size"), &sg->size)) {
			bad(err, path, "segments[%zu]: not a dict with a whole 'address' and 'total_size'", i);
			goto fail;
		}
		get_u64(pickle_get(g, "device"), &dev);
		sg->device = (int64_t)dev;
		const struct pickle_value *v = pickle_get(g, "stream");
		sg->stream = v && v->type == PICKLE_INT ? (uint64_t)v->u.i : 0;
		v = pickle_get(g, "segment_type");
		sg->small = pickle_str_is(v, "small");
		if (!v)
			sg->small = sg->size == ALLOC_SMALL_BUFFER;
		v = pickle_get(g, "is_expandable");
		sg->expandable = v && v->type == PICKLE_BOOL && v->u.b;
		sg->first_block = s->nblocks;
		const struct pickle_value *bl = pickle_get(g, "blocks");
		for (size_t k = 0; bl && bl->type == PICKLE_LIST && k < bl->u.c.n; k++) {
			const struct pickle_value *b = bl->u.c.items[k];
			struct snap_block *sb = &s->blocks[s->nblocks];
			if (!get_u64(pickle_get(b, "size"), &sb->size)) {
				bad(err, path, "segments[%zu].blocks[%zu]: no whole 'size'", i, k);
				goto fail;
			}
			/* older files have no block address: blocks tile the segment */
			if (!get_u64(pickle_get(b, "address"), &sb->addr))
				sb->addr = k ? s->blocks[s->nblocks - 1].addr + s->blocks[s->nblocks - 1].size : sg->addr;
			get_u64(pickle_get(b, "requested_size"), &sb->requested);
			sb->allocated = pickle_str_is(pickle_get(b, "state"), "active_allocated");
			sb->frames = pickle_get(b, "frames");
			s->nblocks++;
			sg->nblocks++;
		}
	}
	s->traces = xcalloc(traces->u.c.n + 1, sizeof *s->traces);
	for (size_t d = 0; d < traces->u.c.n; d++) {
		const struct pickle_value *tr = traces->u.c.items[d];
		if (tr->type != PICKLE_LIST) {
			bad(err, path, "device_traces[%zu] is a %s, not a list", d, pickle_type_name(tr->type));
			goto fail;
		}
		struct snap_trace *t = &s->traces[s->ntraces++];
		t->device = (int64_t)d;
		t->e = xcalloc(tr->u.c.n + 1, sizeof *t->e);
		for (size_t i = 0; i < tr->u.c.n; i++)
			if (read_entry(tr->u.c.items[i], &t->e[t->n++], d, i, err, path))
				goto fail;
	}
	*out = s;
	return 0;
fail:
	snapshot_free(s);
	return -1;
}

/* ------------------------------------------------------------------ */
/* The start state. */

struct pre_block {
	uint64_t addr, size, requested;
	size_t freed_at;   /* entry index of its free_completed, or SIZE_MAX */
	const struct pickle_value *frames;
};

struct start_seg {
	uint64_t addr, size, stream;
	bool small;
	size_t first, n; /* into the sorted pre_blocks */
};

struct start {
	struct start_seg *segs;
	size_t nsegs;
	struct pre_block *pre;
	size_t npre;
};

static int cmp_seg(const void *a, const void *b)
{
	const struct start_seg *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cmp_pre(const void *a, const void *b)
{
	const struct pre_block *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void start_done(struct start *st)
{
	free(st->segs);
	free(st->pre);
}

/* place: put each block into its start segment (the model's replay needs
 * it; a what-if or the live set does not). */
static int work_out_start(const struct snapshot *s, size_t t, const struct alloc_config *rec, bool place,
			  struct start *st, struct rs_error *err, const char *file)
{
	const struct snap_trace *tr = &s->traces[t];
	memset(st, 0, sizeof *st);
	size_t segcap = 0, precap = 0;
	struct alloc_map live, made;
	alloc_map_init(&live);
	alloc_map_init(&made);
	int rc = -1;
	for (size_t i = 0; i < tr->n; i++) {
		const struct snap_entry *e = &tr->e[i];
		uint64_t v;
		switch (e->action) {
		case SNAP_ALLOC:
			alloc_map_put(&live, e->addr, i);
			break;
		case SNAP_FREE_COMPLETED:
			if (!alloc_map_del(&live, e->addr)) {
				XGROW(st->pre, precap, st->npre + 1);
				st->pre[st->npre++] = (struct pre_block){e->addr, alloc_round_size(rec, e->size), e->size, i,
									 e->frames};
			}
			break;
		case SNAP_SEGMENT_ALLOC:
		case SNAP_SEGMENT_MAP:
			alloc_map_put(&made, e->addr, e->size);
			break;
		case SNAP_SEGMENT_FREE:
		case SNAP_SEGMENT_UNMAP:
			if (!alloc_map_get(&made, e->addr, &v)) {
				XGROW(st->segs, segcap, st->nsegs + 1);
				st->segs[st->nsegs++] = (struct start_seg){e->addr, e->size, e->stream,
									   e->size == ALLOC_SMALL_BUFFER, 0, 0};
			} else {
				alloc_map_del(&made, e->addr);
			}
			break;
		}
	}
	for (size_t g = 0; g < s->nsegs; g++) {
		const struct snap_segment *sg = &s->segs[g];
		uint64_t v;
		if (sg->device != tr->device || alloc_map_get(&made, sg->addr, &v))
			continue;
		XGROW(st->segs, segcap, st->nsegs + 1);
		st->segs[st->nsegs++] = (struct start_seg){sg->addr, sg->size, sg->stream, sg->small, 0, 0};
		for (size_t k = 0; k < sg->nblocks; k++) {
			const struct snap_block *b = &s->blocks[sg->first_block + k];
			if (b->allocated && !alloc_map_get(&live, b->addr, &v)) {
				XGROW(st->pre, precap, st->npre + 1);
				st->pre[st->npre++] = (struct pre_block){b->addr, b->size, b->requested, SIZE_MAX, b->frames};
			}
		}
	}
	if (st->nsegs > 1)
		qsort(st->segs, st->nsegs, sizeof *st->segs, cmp_seg);
	if (st->npre > 1)
		qsort(st->pre, st->npre, sizeof *st->pre, cmp_pre);
	/* each block into the segment holding it */
	size_t g = 0;
	for (size_t k = 0; k < st->npre && place; k++) {
		const struct pre_block *b = &st->pre[k];
		while (g < st->nsegs && st->segs[g].addr + st->segs[g].size <= b->addr)
			g++;
		if (g == st->nsegs || b->addr < st->segs[g].addr) {
			if (b->freed_at != SIZE_MAX)
				bad(err, file, "device_traces[%zu][%zu]: free_completed of address %#" PRIx64 ", which no "
				    "alloc of the trace made and no segment held at its start", t, b->freed_at, b->addr);
			else
				bad(err, file, "an allocated block at %#" PRIx64 " lies in no segment", b->addr);
			goto out;
		}
		if (k && st->pre[k - 1].addr + st->pre[k - 1].size > b->addr) {
			size_t at = b->freed_at != SIZE_MAX ? b->freed_at : st->pre[k - 1].freed_at;
			bad(err, file, "device_traces[%zu][%zu]: address %#" PRIx64 " is freed or held twice before the "
			    "trace allocates it (blocks from before the trace overlap)", t, at, b->addr);
			goto out;
		}
		if (!st->segs[g].n)
			st->segs[g].first = k;
		st->segs[g].n++;
	}
	rc = 0;
out:
	alloc_map_done(&live);
	alloc_map_done(&made);
	if (rc)
		start_done(st);
	return rc;
}

/* Put the start state into model m: 0 or -1 (err). */
static int load_start(struct alloc_model *m, const struct start *st, struct rs_error *err, const char *file)
{
	struct alloc_block_spec *spec = NULL;
	size_t cap = 0;
	for (size_t g = 0; g < st->nsegs; g++) {
		const struct start_seg *sg = &st->segs[g];
		XGROW(spec, cap, sg->n + 1);
		for (size_t k = 0; k < sg->n; k++) {
			const struct pre_block *b = &st->pre[sg->first + k];
			uint64_t size = b->size;
			/* a rounded size can pass the segment's end (its real block
			 * was smaller than rounding says only if the data is odd) */
			if (b->addr + size > sg->addr + sg->size)
				size = sg->addr + sg->size - b->addr;
			spec[k] = (struct alloc_block_spec){b->addr, size, b->requested, SIZE_MAX, true};
		}
		char why[256];
		if (alloc_add_segment(m, sg->addr, sg->size, sg->stream, sg->small, spec, sg->n, why, sizeof why)) {
			free(spec);
			return bad(err, file, "the start state: %s", why);
		}
	}
	free(spec);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The replay with the trace's segments. */

struct feed {
	const struct snap_trace *tr;
	const struct alloc_model *m;
	size_t *pending; /* segment_alloc entries not yet taken */
	size_t npending, cap, taken_from;
	size_t matched, asked;
	uint64_t fresh;  /* addresses for segments the trace does not have */
	size_t at;       /* the alloc entry being replayed */
	size_t bad_at;
	char bad_text[512];
};

static bool feed_segment(void *ctx, uint64_t bytes, uint64_t stream, bool small, uint64_t *addr)
{
	struct feed *f = ctx;
	(void)small;
	f->asked++;
	if (f->taken_from < f->npending) {
		const struct snap_entry *e = &f->tr->e[f->pending[f->taken_from++]];
		if (e->size == bytes && e->stream == stream && alloc_range_free(f->m, e->addr, bytes)) {
			f->matched++;
			*addr = e->addr;
			return true;
		}
		if (f->bad_at == SIZE_MAX) {
			f->bad_at = f->at;
			snprintf(f->bad_text, sizeof f->bad_text, "the model asked for a segment of %" PRIu64 " bytes "
				 "on stream %" PRIu64 "; the trace's segment_alloc here is of %" PRIu64 " bytes on stream %"
				 PRIu64, bytes, stream, e->size, e->stream);
		}
	} else if (f->bad_at == SIZE_MAX) {
		f->bad_at = f->at;
		snprintf(f->bad_text, sizeof f->bad_text, "the model asked for a segment of %" PRIu64 " bytes; the "
			 "trace allocates none here", bytes);
	}
	/* an address of our own, past every segment in the way */
	uint64_t step = (bytes + ALLOC_ROUND_LARGE - 1) / ALLOC_ROUND_LARGE * ALLOC_ROUND_LARGE;
	while (!alloc_range_free(f->m, f->fresh, bytes)) {
		if (f->fresh > ALLOC_MAX_ADDRESS - step)
			return false;
		f->fresh += step;
	}
	*addr = f->fresh;
	f->fresh += step;
	return true;
}

static void frame_text(const struct pickle_value *frames, char *buf, size_t size)
{
	buf[0] = 0;
	if (!frames || frames->type != PICKLE_LIST)
		return;
	/* the first frame with a file name (the C++ unwinder's frames have '??') */
	for (size_t i = 0; i < frames->u.c.n; i++) {
		const struct pickle_value *f = frames->u.c.items[i];
		const struct pickle_value *fn = pickle_get(f, "filename"), *nm = pickle_get(f, "name");
		const struct pickle_value *ln = pickle_get(f, "line");
		if (!fn || fn->type != PICKLE_STR || pickle_str_is(fn, "??") || !fn->u.s.n)
			continue;
		snprintf(buf, size, " (allocated at %.*s:%" PRId64 " in %.*s)", (int)(fn->u.s.n > 200 ? 200 : fn->u.s.n),
			 fn->u.s.p, ln && ln->type == PICKLE_INT ? ln->u.i : 0,
			 nm && nm->type == PICKLE_STR ? (int)(nm->u.s.n > 100 ? 100 : nm->u.s.n) : 0,
			 nm && nm->type == PICKLE_STR ? nm->u.s.p : "");
		return;
	}
}

/* A trace recorded with expandable segments: its memory from the trace
 * alone, reserved counted back from the dump (segment_map and
 * segment_alloc add, segment_unmap and segment_free take away), allocated
 * from the blocks live at the start plus the trace's own (rounded); the
 * model's replay is not run (r->modelled false). */
static int trace_only(const struct snapshot *s, size_t t, struct snap_result *r, struct rs_error *err,
		      const char *file)
{
	const struct snap_trace *tr = &s->traces[t];
	struct start st;
	if (work_out_start(s, t, &s->settings, false, &st, err, file))
		return -1;
	uint64_t end = 0;
	int64_t delta = 0;
	for (size_t g = 0; g < s->nsegs; g++)
		if (s->segs[g].device == tr->device)
			end += s->segs[g].size;
	for (size_t i = 0; i < tr->n; i++) {
		const struct snap_entry *e = &tr->e[i];
		if (e->action == SNAP_SEGMENT_ALLOC || e->action == SNAP_SEGMENT_MAP)
			delta += (int64_t)e->size;
		else if (e->action == SNAP_SEGMENT_FREE || e->action == SNAP_SEGMENT_UNMAP)
			delta -= (int64_t)e->size;
	}
	r->modelled = false;
	r->start_reserved = delta > 0 && (uint64_t)delta > end ? 0 : (uint64_t)((int64_t)end - delta);
	r->start_blocks = st.npre;
	for (size_t k = 0; k < st.npre; k++)
		r->start_allocated += st.pre[k].size;
	r->entries = tr->n;
	r->points = xmalloc((tr->n + 1) * sizeof *r->points);
	struct alloc_map live; /* the trace's own allocations: address -> rounded size */
	alloc_map_init(&live);
	uint64_t reserved = r->start_reserved, allocated = r->start_allocated;
	int64_t trace_alloc = 0;
	r->reserved_peak = reserved;
	r->allocated_peak = allocated;
	r->reserved_at_allocated_peak = reserved;
	r->allocated_peak_at = r->reserved_peak_at = SIZE_MAX; /* the start */
	for (size_t i = 0; i < tr->n; i++) {
		const struct snap_entry *e = &tr->e[i];
		uint64_t v;
		switch (e->action) {
		case SNAP_ALLOC:
			r->allocs++;
			v = alloc_round_size(&s->settings, e->size);
			alloc_map_put(&live, e->addr, v);
			allocated += v;
			trace_alloc += (int64_t)e->size;
			if (trace_alloc > 0 && (uint64_t)trace_alloc > r->trace_allocated_peak)
				r->trace_allocated_peak = (uint64_t)trace_alloc;
			break;
		case SNAP_FREE_COMPLETED:
			r->frees++;
			if (alloc_map_get(&live, e->addr, &v)) {
				alloc_map_del(&live, e->addr);
				trace_alloc -= (int64_t)e->size;
			} else {
				v = alloc_round_size(&s->settings, e->size);
			}
			allocated -= v < allocated ? v : allocated;
			break;
		case SNAP_SEGMENT_ALLOC:
		case SNAP_SEGMENT_MAP:
			r->segment_allocs += e->action == SNAP_SEGMENT_ALLOC;
			reserved += e->size;
			break;
		case SNAP_SEGMENT_FREE:
		case SNAP_SEGMENT_UNMAP:
			r->segment_frees += e->action == SNAP_SEGMENT_FREE;
			reserved -= e->size < reserved ? e->size : reserved;
			break;
		case SNAP_OOM:
			r->ooms++;
			break;
		}
		r->points[i].reserved = reserved;
		r->points[i].allocated = allocated;
		if (reserved > r->reserved_peak) {
			r->reserved_peak = reserved;
			r->reserved_peak_at = i;
		}
		if (allocated > r->allocated_peak) {
			r->allocated_peak = allocated;
			r->allocated_peak_at = i;
			r->reserved_at_allocated_peak = reserved;
		}
	}
	r->first_bad = SIZE_MAX;
	alloc_map_done(&live);
	start_done(&st);
	return 0;
}

int snapshot_replay(const struct snapshot *s, size_t t, const struct alloc_config *c, struct snap_result *r,
		    struct rs_error *err, const char *file)
{
	memset(r, 0, sizeof *r);
	r->first_bad = SIZE_MAX;
	r->modelled = true;
	const struct snap_trace *tr = &s->traces[t];
	struct start st;
	for (size_t i = 0; i < tr->n; i++)
		if (tr->e[i].action == SNAP_SEGMENT_MAP || tr->e[i].action == SNAP_SEGMENT_UNMAP)
			return trace_only(s, t, r, err, file);
	if (work_out_start(s, t, &s->settings, true, &st, err, file))
		return -1;
	struct feed f = {.tr = tr, .bad_at = SIZE_MAX, .fresh = UINT64_C(1) << 62};
	struct alloc_device dev = {.segment_alloc = feed_segment, .ctx = &f};
	struct alloc_model *m = alloc_new(c, &dev);
	f.m = m;
	struct alloc_map where; /* recorded address -> model address */
	alloc_map_init(&where);
	int rc = -1;
	if (load_start(m, &st, err, file))
		goto out;
	const struct alloc_stats *ms = alloc_stats(m);
	r->start_reserved = ms->reserved;
	r->start_allocated = ms->allocated;
	r->start_segments = st.nsegs;
	r->start_blocks = st.npre;
	r->entries = tr->n;
	r->points = xmalloc((tr->n + 1) * sizeof *r->points);
	uint64_t reserved = ms->reserved;
	int64_t trace_alloc = 0;
	r->reserved_peak = reserved;
	r->allocated_peak = ms->allocated;
	r->reserved_at_allocated_peak = reserved;
	r->allocated_peak_at = r->reserved_peak_at = SIZE_MAX; /* the start */
	for (size_t i = 0; i < tr->n; i++) {
		const struct snap_entry *e = &tr->e[i];
		uint64_t maddr;
		switch (e->action) {
		case SNAP_ALLOC:
			r->allocs++;
			trace_alloc += (int64_t)e->size;
			if (trace_alloc > 0 && (uint64_t)trace_alloc > r->trace_allocated_peak)
				r->trace_allocated_peak = (uint64_t)trace_alloc;
			f.at = i;
			if (alloc_malloc(m, e->size, e->stream, i, &maddr)) {
				rs_error_set(err, EXIT_DATAERR, file, 0, "device_traces[%zu][%zu]: alloc of %" PRIu64
					     " bytes: the model cannot place it (more than any device holds)", t, i,
					     e->size);
				goto out;
			}
			/* segment_allocs recorded for this request that the model did not take */
			if (f.taken_from < f.npending && f.bad_at == SIZE_MAX) {
				f.bad_at = i;
				snprintf(f.bad_text, sizeof f.bad_text, "the trace allocates a segment of %" PRIu64
					 " bytes here; the model found room in its cache", tr->e[f.pending[f.taken_from]].size);
			}
			f.npending = f.taken_from = 0;
			if (maddr == e->addr) {
				r->addresses_matched++;
			} else if (f.bad_at == SIZE_MAX) {
				f.bad_at = i;
				snprintf(f.bad_text, sizeof f.bad_text, "alloc of %" PRIu64 " bytes: recorded at %#" PRIx64
					 ", the model placed it at %#" PRIx64, e->size, e->addr, maddr);
			}
			alloc_map_put(&where, e->addr, maddr);
			break;
		case SNAP_FREE_COMPLETED: {
			r->frees++;
			uint64_t at = e->addr;
			if (alloc_map_get(&where, e->addr, &maddr)) {
				/* the trace's own allocated sum leaves out the blocks
				 * from before it (the snapshots' README counts so) */
				trace_alloc -= (int64_t)e->size;
				at = maddr;
				alloc_map_del(&where, e->addr);
			}
			if (alloc_release(m, at)) {
				rs_error_set(err, EXIT_DATAERR, file, 0, "device_traces[%zu][%zu]: free_completed of "
					     "address %#" PRIx64 ", which is not allocated then", t, i, e->addr);
				goto out;
			}
			break;
		}
		case SNAP_SEGMENT_ALLOC:
			r->segment_allocs++;
			reserved += e->size;
			XGROW(f.pending, f.cap, f.npending + 1);
			f.pending[f.npending++] = i;
			break;
		case SNAP_SEGMENT_FREE:
			r->segment_frees++;
			reserved -= e->size < reserved ? e->size : reserved;
			if (!alloc_release_segment(m, e->addr, e->size, e->stream))
				r->segment_frees_matched++;
			else if (f.bad_at == SIZE_MAX) {
				f.bad_at = i;
				snprintf(f.bad_text, sizeof f.bad_text, "segment_free of %" PRIu64 " bytes at %#" PRIx64
					 ": the model holds no wholly free segment there", e->size, e->addr);
			}
			break;
		case SNAP_OOM:
			r->ooms++;
			break;
		}
		r->points[i].reserved = reserved;
		r->points[i].allocated = ms->allocated;
		if (reserved > r->reserved_peak) {
			r->reserved_peak = reserved;
			r->reserved_peak_at = i;
		}
		if (ms->allocated > r->allocated_peak) {
			r->allocated_peak = ms->allocated;
			r->allocated_peak_at = i;
			r->reserved_at_allocated_peak = reserved;
		}
	}
	r->segment_allocs_matched = f.matched;
	r->model_segment_allocs = f.asked;
	r->model_reserved_peak = ms->reserved_peak;
	if (f.bad_at != SIZE_MAX) {
		char where_text[512];
		r->first_bad = f.bad_at;
		frame_text(tr->e[f.bad_at].frames, where_text, sizeof where_text);
		snprintf(r->first_bad_text, sizeof r->first_bad_text, "%s%s", f.bad_text, where_text);
	}
	rc = 0;
out:
	if (rc)
		snapshot_result_done(r);
	alloc_free(m);
	alloc_map_done(&where);
	free(f.pending);
	start_done(&st);
	return rc;
}

void snapshot_result_done(struct snap_result *r)
{
	free(r->points);
	r->points = NULL;
}

int snapshot_whatif(const struct snapshot *s, size_t t, const struct alloc_config *c, uint64_t device_memory,
		    struct snap_whatif *w, struct rs_error *err, const char *file)
{
	memset(w, 0, sizeof *w);
	const struct snap_trace *tr = &s->traces[t];
	struct start st;
	if (work_out_start(s, t, &s->settings, false, &st, err, file))
		return -1;
	struct alloc_model *m = alloc_new(c, NULL);
	alloc_set_limit(m, device_memory);
	struct alloc_map where;
	alloc_map_init(&where);
	const struct alloc_stats *ms = alloc_stats(m);
	int rc = -1;
	for (size_t k = 0; k < st.npre; k++) {
		uint64_t a;
		if (alloc_malloc(m, st.pre[k].requested ? st.pre[k].requested : st.pre[k].size, 0, SIZE_MAX, &a)) {
			w->ooms++;
			continue;
		}
		alloc_map_put(&where, st.pre[k].addr, a);
	}
	uint64_t peak = 0;
	for (size_t i = 0; i < tr->n; i++) {
		const struct snap_entry *e = &tr->e[i];
		uint64_t a;
		if (e->action == SNAP_ALLOC) {
			if (alloc_malloc(m, e->size, e->stream, i, &a)) {
				w->ooms++;
				continue;
			}
			alloc_map_put(&where, e->addr, a);
		} else if (e->action == SNAP_FREE_COMPLETED) {
			if (!alloc_map_get(&where, e->addr, &a))
				continue; /* its alloc failed (out of memory) */
			alloc_map_del(&where, e->addr);
			alloc_release(m, a);
		} else if (e->action == SNAP_SEGMENT_FREE || e->action == SNAP_SEGMENT_UNMAP) {
			/* the program emptied the cache (or the allocator did, short of memory) */
			alloc_empty_cache(m);
		}
		if (ms->reserved > peak) {
			peak = ms->reserved;
			w->fragmentation_at_peak = ms->reserved - ms->allocated;
		}
		if (ms->segments > w->segments_peak)
			w->segments_peak = ms->segments;
	}
	w->allocated_peak = ms->allocated_peak;
	w->reserved_peak = ms->reserved_peak;
	w->reserved_at_end = ms->reserved;
	w->device_allocs = ms->device_allocs;
	rc = 0;
	(void)err;
	(void)file;
	alloc_free(m);
	alloc_map_done(&where);
	start_done(&st);
	return rc;
}

static int cmp_live(const void *a, const void *b)
{
	const struct snap_live *x = a, *y = b;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

size_t snapshot_live_at(const struct snapshot *s, size_t t, const struct snap_result *r, size_t at,
			struct snap_live **out)
{
	(void)r;
	const struct snap_trace *tr = &s->traces[t];
	struct start st;
	struct rs_error err;
	*out = NULL;
	if (work_out_start(s, t, &s->settings, false, &st, &err, ""))
		return 0;
	struct alloc_map live;
	alloc_map_init(&live);
	for (size_t i = 0; at != SIZE_MAX && i <= at && i < tr->n; i++) {
		const struct snap_entry *e = &tr->e[i];
		if (e->action == SNAP_ALLOC)
			alloc_map_put(&live, e->addr, i);
		else if (e->action == SNAP_FREE_COMPLETED)
			alloc_map_del(&live, e->addr);
	}
	size_t n = 0, cap = live.n + st.npre + 1;
	struct snap_live *v = xmalloc(cap * sizeof *v);
	for (size_t k = 0; k < live.cap; k++)
		if (live.used[k]) {
			const struct snap_entry *e = &tr->e[live.vals[k]];
			v[n++] = (struct snap_live){e->addr, alloc_round_size(&s->settings, e->size), e->size,
						    (size_t)live.vals[k], e->frames};
		}
	for (size_t k = 0; k < st.npre; k++)
		if (at == SIZE_MAX || st.pre[k].freed_at == SIZE_MAX || st.pre[k].freed_at > at)
			v[n++] = (struct snap_live){st.pre[k].addr, st.pre[k].size, st.pre[k].requested, SIZE_MAX,
						    st.pre[k].frames};
	qsort(v, n, sizeof *v, cmp_live);
	alloc_map_done(&live);
	start_done(&st);
	*out = v;
	return n;
}
