/*
 * devmem.c: the follower of devmem.h. Per storage: whether it is material
 * and the address of its block. Every event costs the allocator's O(log n)
 * per storage it touches; nothing is allocated on the way once the model's
 * records are warm.
 */
#include "devmem.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

#define NO_BLOCK UINT64_MAX /* material, but the allocator could not place it */

struct devmem {
	const struct schedule *s;
	struct alloc_model *m;
	uint8_t *material;
	uint64_t *addr;      /* per storage: its block, or NO_BLOCK */
	uint64_t memory;     /* the replay's bytes as followed */
	uint64_t *transient; /* blocks of one op's outputs made again */
	size_t cap;
	struct devmem_result r;
};

struct devmem *devmem_new(const struct schedule *s, const struct alloc_config *c, uint64_t device_memory)
{
	struct devmem *d = xcalloc(1, sizeof *d);
	d->s = s;
	d->m = alloc_new(c, NULL);
	alloc_set_limit(d->m, device_memory);
	size_t n = s->n_storages ? s->n_storages : 1;
	d->material = xcalloc(n, 1);
	d->addr = xmalloc(n * sizeof *d->addr);
	return d;
}

void devmem_free(struct devmem *d)
{
	if (!d)
		return;
	alloc_free(d->m);
	free(d->material);
	free(d->addr);
	free(d->transient);
	free(d);
}

/* One allocation of bytes for the event's command: its address, or
 * NO_BLOCK (the first failure is the device's verdict). Size 0 takes
 * nothing, as PyTorch's allocator returns no block for it. */
static uint64_t take(struct devmem *d, uint64_t bytes, size_t cmd)
{
	uint64_t a;
	if (!bytes)
		return NO_BLOCK;
	if (alloc_malloc(d->m, bytes, 0, cmd, &a)) {
		if (!d->r.oom) {
			d->r.oom = true;
			d->r.oom_cmd = cmd;
			d->r.oom_bytes = bytes;
		}
		return NO_BLOCK;
	}
	return a;
}

static void give(struct devmem *d, uint64_t a)
{
	if (a != NO_BLOCK && alloc_release(d->m, a))
		d->r.broken = true;
}

static void note(struct devmem *d)
{
	const struct alloc_stats *st = alloc_stats(d->m);
	if (st->reserved > d->r.reserved_peak) {
		d->r.reserved_peak = st->reserved;
		d->r.fragmentation_at_reserved_peak = st->reserved - st->allocated;
	}
	if (st->segments > d->r.segments_peak)
		d->r.segments_peak = st->segments;
}

void devmem_on_event(void *ctx, const struct runtime_event *ev)
{
	struct devmem *d = ctx;
	const struct schedule *s = d->s;
	switch (ev->kind) {
	case EV_COMPUTE:
	case EV_REMAT: {
		/* every output the op owns is allocated while it runs; those
		 * material already (a rematerialization's siblings) are freed
		 * again after it */
		const struct sched_op *op = &s->ops[ev->op];
		size_t nt = 0;
		for (uint32_t k = 0; k < op->n_outs; k++) {
			const struct sched_tensor *t = &s->tensors[op->outs + k];
			if (t->alias >= 0)
				continue;
			uint32_t st = t->storage;
			uint64_t a = take(d, s->storages[st].size, ev->cmd);
			if (!d->material[st]) {
				d->material[st] = 1;
				d->addr[st] = a;
				d->memory += s->storages[st].size;
			} else {
				XGROW(d->transient, d->cap, nt + 1);
				d->transient[nt++] = a;
			}
		}
		note(d);
		for (size_t i = 0; i < nt; i++)
			give(d, d->transient[i]);
		break;
	}
	case EV_EVICT:
	case EV_OFFLOADED: {
		uint64_t size = s->storages[ev->storage].size;
		if (!d->material[ev->storage]) {
			if (size)
				d->r.broken = true;
			break;
		}
		/* an eviction that offloads keeps its bytes until its copy ends
		 * (EV_OFFLOADED); a drop frees them now */
		if (ev->kind == EV_EVICT && size && ev->memory == d->memory)
			break;
		d->material[ev->storage] = 0;
		d->memory -= size;
		give(d, d->addr[ev->storage]);
		break;
	}
	case EV_FETCH:
		if (!d->material[ev->storage]) {
			d->material[ev->storage] = 1;
			d->addr[ev->storage] = take(d, s->storages[ev->storage].size, ev->cmd);
			d->memory += s->storages[ev->storage].size;
			note(d);
		}
		break;
	case EV_OFFLOAD:
		break;
	}
	if (d->memory != ev->memory)
		d->r.broken = true;
}

bool devmem_failed(const struct devmem *d)
{
	return d->r.oom;
}

void devmem_now(const struct devmem *d, uint64_t *allocated, uint64_t *reserved)
{
	const struct alloc_stats *st = alloc_stats(d->m);
	*allocated = st->allocated;
	*reserved = st->reserved;
}

void devmem_result(const struct devmem *d, struct devmem_result *r)
{
	const struct alloc_stats *st = alloc_stats(d->m);
	*r = d->r;
	r->allocated_peak = st->allocated_peak;
	r->device_allocs = st->device_allocs;
	r->device_frees = st->device_frees;
}
