/*
 * alloc.h: a model of PyTorch's CUDA caching allocator
 * (c10/cuda/CUDACachingAllocator.cpp), placing every allocation at the
 * address the real allocator would, and counting what it reserves from
 * the device. docs/allocator.md lists each rule and where it comes from.
 *
 * Invariants: every segment is a chain of blocks in address order (prev,
 * next) that tile it; two free neighbours of the same mappedness never
 * stand side by side after a free (they merge); a free mapped block is in
 * its pool's tree keyed by (stream, size, address), a free unmapped block
 * of an expandable segment in the pool's unmapped tree keyed by (stream,
 * address); an allocated block is in the address map. Every event costs
 * O(log n) in the number of blocks (treaps), except the rare release of
 * cached segments, which walks the pool once.
 *
 * Ownership: alloc_new gives a model that alloc_free takes; nothing else
 * allocates for the caller.
 */
#ifndef REMATSIM_ALLOC_H
#define REMATSIM_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The allocator's constants (CUDACachingAllocator.cpp). */
#define ALLOC_MIN_BLOCK 512u                 /* kMinBlockSize */
#define ALLOC_SMALL_SIZE (UINT64_C(1) << 20) /* kSmallSize: largest small request */
#define ALLOC_SMALL_BUFFER (UINT64_C(2) << 20) /* kSmallBuffer: small segment */
#define ALLOC_LARGE_BUFFER (UINT64_C(20) << 20) /* kLargeBuffer: 1-10 MiB requests' segment */
#define ALLOC_MIN_LARGE_ALLOC (UINT64_C(10) << 20) /* kMinLargeAlloc */
#define ALLOC_ROUND_LARGE (UINT64_C(2) << 20)  /* kRoundLarge */
#define ALLOC_DIVISION_INTERVALS 16           /* kRoundUpPowerOfTwoIntervals */
/* Bounds of ours: a larger request is out of memory (no device holds it,
 * and rounding it could overflow); segments lie below ALLOC_MAX_ADDRESS. */
#define ALLOC_MAX_REQUEST (UINT64_C(1) << 62)
#define ALLOC_MAX_ADDRESS (UINT64_C(1) << 63)

/** The settings of PYTORCH_CUDA_ALLOC_CONF the model honours. */
struct alloc_config {
	uint64_t max_split_size;         /* bytes; UINT64_MAX: none (the default) */
	uint64_t max_non_split_rounding; /* bytes an oversize block may exceed a request by (20 MiB) */
	double gc_threshold;             /* garbage_collection_threshold; 0: off */
	bool expandable_segments;
	uint32_t divisions[ALLOC_DIVISION_INTERVALS]; /* roundup_power2_divisions per size class */
};

/** The defaults (PyTorch's with PYTORCH_CUDA_ALLOC_CONF unset). */
void alloc_config_default(struct alloc_config *c);
/**
 * Read settings in PYTORCH_CUDA_ALLOC_CONF syntax ("max_split_size_mb:128,
 * expandable_segments:True") over c's values. -1 with a message in why
 * (naming the setting) for an unknown setting, a malformed value, or a
 * setting the model cannot honour (backend:cudaMallocAsync).
 */
int alloc_config_parse(struct alloc_config *c, const char *text, char *why, size_t why_size);
/**
 * An allocator as the commands name it (--allocator, an experiment's
 * allocator key): "pytorch" (the defaults) or "pytorch:CONF" (CONF as
 * alloc_config_parse reads it), into c. -1 with a message in why.
 */
int alloc_spec_parse(struct alloc_config *c, const char *spec, char *why, size_t why_size);
/** The config as PYTORCH_CUDA_ALLOC_CONF text into buf (only what differs from the defaults). */
const char *alloc_config_text(const struct alloc_config *c, char *buf, size_t size);

/** A request's size as the allocator rounds it (round_size). */
uint64_t alloc_round_size(const struct alloc_config *c, uint64_t bytes);
/** The segment a request of rounded size asks the device for (get_allocation_size). */
uint64_t alloc_segment_size(uint64_t rounded);

/**
 * Where segments come from. segment_alloc returns true and the address of
 * a new segment of bytes (cudaMalloc), or false when the device refuses;
 * NULL: addresses handed out in order from a private range, 2 MiB
 * aligned. segment_event, if set, hears each segment (or expandable
 * mapping) as it comes and goes: kind 'a' alloc, 'f' free, 'm' map, 'u'
 * unmap.
 */
struct alloc_device {
	bool (*segment_alloc)(void *ctx, uint64_t bytes, uint64_t stream, bool small, uint64_t *addr);
	void (*segment_event)(void *ctx, char kind, uint64_t addr, uint64_t bytes);
	void *ctx;
};

/** What the model holds, as PyTorch's memory_stats() counts it. */
struct alloc_stats {
	uint64_t allocated, allocated_peak; /* bytes of allocated blocks (rounded) */
	uint64_t requested;                 /* bytes asked for by the live allocations */
	uint64_t reserved, reserved_peak;   /* bytes of segments (mapped pages) */
	uint64_t segments;                  /* segments held (an expandable one counts once) */
	uint64_t device_allocs, device_frees; /* cudaMalloc/map and cudaFree/unmap calls */
	uint64_t retries, ooms;             /* allocations that freed the cache first; that failed */
	uint64_t allocs, frees;
};

struct alloc_model;

/** A model with config c (copied) and device d (copied; NULL: private addresses). Gives. */
struct alloc_model *alloc_new(const struct alloc_config *c, const struct alloc_device *d);
void alloc_free(struct alloc_model *m);
/** Limit what the allocator may reserve to bytes, as torch.cuda.set_per_process_memory_fraction
 * does (this also turns garbage_collection_threshold on); UINT64_MAX: no limit. */
void alloc_set_limit(struct alloc_model *m, uint64_t bytes);

/**
 * Allocate bytes on stream: 0 and the block's address in *addr, or -1
 * when the device cannot hold it even after the cache is freed (PyTorch's
 * OutOfMemoryError). tag is kept with the block (alloc_block_tag).
 */
int alloc_malloc(struct alloc_model *m, uint64_t bytes, uint64_t stream, uint64_t tag, uint64_t *addr);
/** Free the allocation at addr: 0, or -1 when none is there. */
int alloc_release(struct alloc_model *m, uint64_t addr);
/** torch.cuda.empty_cache(): release every cached segment that is wholly free. */
void alloc_empty_cache(struct alloc_model *m);
/** Release the segment at addr if it is wholly free (a recorded segment_free): 0, or -1. */
int alloc_release_segment(struct alloc_model *m, uint64_t addr, uint64_t size, uint64_t stream);

/** One block of a segment given to alloc_add_segment, in address order. */
struct alloc_block_spec {
	uint64_t addr, size, requested, tag;
	bool allocated;
};
/**
 * Add a segment the allocator already holds (a snapshot's start state):
 * addr, size, stream, pool, and its allocated blocks (n of them, in
 * address order, inside it, not overlapping); the gaps become free
 * blocks. -1 with why filled when the blocks do not fit.
 */
int alloc_add_segment(struct alloc_model *m, uint64_t addr, uint64_t size, uint64_t stream, bool small,
		      const struct alloc_block_spec *blocks, size_t n, char *why, size_t why_size);

/** Whether no segment the model holds meets [addr, addr + size) (and the range is below ALLOC_MAX_ADDRESS). */
bool alloc_range_free(const struct alloc_model *m, uint64_t addr, uint64_t size);
/** The allocation at addr: true and its size (rounded, as the block holds it) and tag. */
bool alloc_lookup(const struct alloc_model *m, uint64_t addr, uint64_t *size, uint64_t *tag);
const struct alloc_stats *alloc_stats(const struct alloc_model *m);
const struct alloc_config *alloc_model_config(const struct alloc_model *m);
/** Check every invariant of the header comment (slow: tests): NULL, or what broke. */
const char *alloc_check(const struct alloc_model *m);

/*
 * A map of 64-bit keys to 64-bit values (open addressing): the model's
 * address map, shared with the snapshot replay's map of recorded to
 * modelled addresses.
 */
struct alloc_map {
	uint64_t *keys, *vals;
	uint8_t *used;
	size_t cap, n;
};
void alloc_map_init(struct alloc_map *h);
void alloc_map_done(struct alloc_map *h);
/** Set key to val (replacing). */
void alloc_map_put(struct alloc_map *h, uint64_t key, uint64_t val);
/** true and *val when key is there. */
bool alloc_map_get(const struct alloc_map *h, uint64_t key, uint64_t *val);
/** Remove key: true when it was there. */
bool alloc_map_del(struct alloc_map *h, uint64_t key);

#endif
