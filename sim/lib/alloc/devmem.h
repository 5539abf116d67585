/*
 * devmem.h: a replay's memory as the device holds it. A follower of the
 * runtime's events (runtime_config.on_event) puts every allocation and
 * free of the replay, evictions, rematerializations and offload copies
 * included, through the allocator model (alloc.h): each storage an op
 * makes is one allocation of its bytes, freed when the storage is
 * evicted (or its offload copy ends); the outputs a rematerialization
 * makes again while still material are allocated for the op and freed
 * after it, as the replay's own peak counts them.
 *
 * Invariant: the bytes the follower holds for the replay equal the
 * replay's own memory after every event (devmem_result.broken says
 * otherwise: a bug, which tests check).
 *
 * Ownership: devmem_new gives a follower that devmem_free takes; it
 * borrows the schedule.
 */
#ifndef REMATSIM_DEVMEM_H
#define REMATSIM_DEVMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc.h"
#include "runtime.h"
#include "schedule.h"

struct devmem_result {
	uint64_t allocated_peak;  /* bytes of allocated blocks (rounded) */
	uint64_t reserved_peak;   /* bytes of segments */
	uint64_t fragmentation_at_reserved_peak; /* reserved minus allocated then */
	uint64_t segments_peak, device_allocs, device_frees;
	bool oom;                 /* the allocator could not reserve (device memory) */
	size_t oom_cmd;           /* the schedule command where it first could not */
	uint64_t oom_bytes;       /* the request that failed */
	bool broken;              /* the follower lost the replay's memory (a bug) */
};

/** A follower of replays of s through a model with config c, on a device
 * of device_memory bytes (UINT64_MAX: unbounded). Gives. */
struct devmem *devmem_new(const struct schedule *s, const struct alloc_config *c, uint64_t device_memory);
void devmem_free(struct devmem *d);
/** The runtime's on_event hook (ctx: the follower). */
void devmem_on_event(void *ctx, const struct runtime_event *ev);
/** Whether the allocator has failed to reserve (runtime_config.stop's answer). */
bool devmem_failed(const struct devmem *d);
/** The model's allocated and reserved bytes now. */
void devmem_now(const struct devmem *d, uint64_t *allocated, uint64_t *reserved);
/** What the follower saw (the replay's constants included). */
void devmem_result(const struct devmem *d, struct devmem_result *r);

#endif
