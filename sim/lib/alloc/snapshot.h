/*
 * snapshot.h: PyTorch's CUDA memory snapshots (torch.cuda.memory.
 * _dump_snapshot(), a pickle) read through the value-only pickle reader,
 * and replayed through the allocator model (alloc.h): the memory over the
 * trace, and how far the model agrees with what the allocator did.
 *
 * Replay start state: the segments the trace does not allocate itself
 * (those at the dump that no segment_alloc made, and those a
 * segment_free gives back without a segment_alloc), holding the blocks
 * allocated before the trace began (those the trace frees without
 * allocating them, and those still allocated at the dump); the gaps are
 * free blocks.
 *
 * Ownership: snapshot_read gives a snapshot that snapshot_free takes;
 * snapshot_replay fills a result whose arrays snapshot_result_done frees.
 */
#ifndef REMATSIM_SNAPSHOT_H
#define REMATSIM_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc.h"
#include "pickle.h"
#include "util.h"

enum snap_action {
	SNAP_ALLOC,
	SNAP_FREE_REQUESTED,
	SNAP_FREE_COMPLETED,
	SNAP_SEGMENT_ALLOC,
	SNAP_SEGMENT_FREE,
	SNAP_SEGMENT_MAP,
	SNAP_SEGMENT_UNMAP,
	SNAP_SNAPSHOT,
	SNAP_OOM,
	SNAP_OTHER, /* user-defined annotations and actions of newer formats */
};

struct snap_entry {
	uint8_t action;
	uint64_t addr, size, stream;
	int64_t time_us;                   /* -1 when absent */
	const struct pickle_value *frames; /* a list of {filename, line, name}, or NULL */
};

struct snap_block {
	uint64_t addr, size, requested;
	bool allocated; /* state active_allocated */
	const struct pickle_value *frames;
};

struct snap_segment {
	int64_t device;
	uint64_t addr, size, stream;
	bool small, expandable;
	size_t first_block, nblocks; /* into snapshot.blocks */
};

struct snap_trace {
	int64_t device;
	struct snap_entry *e;
	size_t n;
};

struct snapshot {
	uint8_t *data; /* the file's bytes (the values point into them) */
	size_t len;
	struct pickle_doc *doc;
	struct snap_segment *segs;
	size_t nsegs;
	struct snap_block *blocks;
	size_t nblocks;
	struct snap_trace *traces;
	size_t ntraces;
	bool have_settings;            /* allocator_settings was in the file */
	struct alloc_config settings;  /* as recorded (the defaults when absent) */
};

/** Read FILE.pickle. 0 and *out, or -1 with err (66 missing, 65 not a
 * snapshot or a bad pickle: the byte offset or entry index, 71 the memory bound). */
int snapshot_read(const char *path, struct snapshot **out, struct rs_error *err);
/** The same from len bytes at data (takes data, a malloc'd buffer; path names it in messages). */
int snapshot_parse(uint8_t *data, size_t len, const char *path, struct snapshot **out, struct rs_error *err);
void snapshot_free(struct snapshot *s);

/** One point of the memory over a trace. */
struct snap_point {
	uint64_t allocated; /* bytes of live blocks (rounded), those from before the trace included */
	uint64_t reserved;  /* bytes of segments */
};

struct snap_result {
	/* the trace as recorded */
	size_t entries, allocs, frees, segment_allocs, segment_frees, ooms;
	uint64_t trace_allocated_peak; /* alloc minus free_completed sizes from the first entry (README's) */
	uint64_t start_reserved, start_allocated;
	size_t start_segments, start_blocks;
	struct snap_point *points;  /* one per entry, after it (the recorded reserved; the model's allocated) */
	uint64_t allocated_peak, reserved_peak;
	size_t allocated_peak_at, reserved_peak_at; /* entry indices; SIZE_MAX: at the start */
	uint64_t reserved_at_allocated_peak;
	/* the model's agreement (modelled false: a trace recorded with
	 * expandable segments, whose replay is not modelled; the memory above
	 * then comes from the trace alone) */
	bool modelled;
	/* the model's agreement */
	size_t addresses_matched, segment_allocs_matched, segment_frees_matched;
	size_t model_segment_allocs; /* segments the model asked for */
	size_t first_bad;            /* entry index of the first disagreement, or SIZE_MAX */
	char first_bad_text[768];
	uint64_t model_reserved_peak;
};

/**
 * Replay trace t of s through a model with config c, started from the
 * trace's start state, asking for segments where the trace has them (a
 * trace with segment_map entries: its memory from the trace alone,
 * r->modelled false).
 * 0, or -1 with err (EXIT_DATAERR: a free of an address nothing
 * allocated, blocks that do not fit their segments; the entry index).
 */
int snapshot_replay(const struct snapshot *s, size_t t, const struct alloc_config *c, struct snap_result *r,
		    struct rs_error *err, const char *file);
void snapshot_result_done(struct snap_result *r);

/** A what-if: trace t's allocations and frees through a model with config
 * c started empty (the blocks live at the start allocated first, in
 * address order), addresses its own. */
struct snap_whatif {
	uint64_t allocated_peak, reserved_peak, reserved_at_end;
	uint64_t fragmentation_at_peak; /* reserved minus allocated when reserved peaks */
	size_t segments_peak, device_allocs, ooms;
};
int snapshot_whatif(const struct snapshot *s, size_t t, const struct alloc_config *c, uint64_t device_memory,
		    struct snap_whatif *w, struct rs_error *err, const char *file);

/** The blocks live after entry `at` of trace t (SIZE_MAX: at its start),
 * largest first: their number, and the array in *out (gives; free it). */
struct snap_live {
	uint64_t addr, size, requested;
	size_t entry;                      /* the alloc entry, or SIZE_MAX: from before the trace */
	const struct pickle_value *frames; /* may be NULL */
};
size_t snapshot_live_at(const struct snapshot *s, size_t t, const struct snap_result *r, size_t at,
			struct snap_live **out);

/** The name of an action ("alloc", "segment_alloc", ...). */
const char *snap_action_name(int action);

#endif
