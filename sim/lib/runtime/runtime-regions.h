/*
 * runtime-regions.h: runtime-regions.c's part: evicted regions (region.py; struct
 * rt_regions in runtime-state.h): absorbs and rebuilds, the window of a
 * compute command, the prefix sums of runs regions, a region's compute as
 * the costs read it, and DTRUnopt's rebuilt neighbourhood as its plain
 * rebuilds give it (the fast path: runtime-unopt.h).
 */
#ifndef REMATSIM_RUNTIME_REGIONS_H
#define REMATSIM_RUNTIME_REGIONS_H

#include "runtime-state.h"

void rt_regions_init(struct runtime_state *rt);
void rt_regions_free(struct runtime_state *rt);
/** s is being evicted: regions at its frontiers absorb its regions, whose
 * memory then goes back. */
void rt_regions_evict(struct runtime_state *rt, uint32_t s);
/** The storages scratch.stk[b, e) were just made material by one op:
 * rebuild their regions and those whose frontier they are on. */
void rt_regions_computed(struct runtime_state *rt, size_t b, size_t e);
void rt_regions_window_opening(struct runtime_state *rt, uint32_t opi);
/** Rebuild region r of base storage `base` from scratch by a walk of the
 * lists (reverse: through parents), counting its accesses. */
void rt_region_rebuild(struct runtime_state *rt, struct region *r, uint32_t base, bool reverse);
/* rt_region_rebuild into bitsets (the memo's walk, same sets and counts) */
void rt_region_walk_bits(struct runtime_state *rt, struct region *r, uint32_t base, bool reverse);
struct region *rt_slot_regions(struct runtime_state *rt, uint32_t s);
/* Runs to bitsets, for the rest of the replay (RMEMO_MAX_BITSETS): between
 * commands, when reg.sw_due says so. */
void rt_regions_to_bits(struct runtime_state *rt);

/* A compute command's op waits for its arguments: its new edges are the
 * window (runs regions); closed once the op has run or stopped. */
static inline void rt_regions_window_open(struct runtime_state *rt, uint32_t opi)
{
	if (rt->reg.runs)
		rt_regions_window_opening(rt, opi);
}

static inline void rt_regions_window_close(struct runtime_state *rt)
{
	rt->reg.win = false;
}

static inline void rt_ps_logged(struct runtime_state *rt, uint32_t s, uint32_t what, int64_t delta)
{
	struct rt_ps_change *c = &rt->reg.ps_log[++rt->reg.ps_ver % RT_PS_LOG];
	c->id = s;
	c->what = what;
	c->delta = delta;
}

/* Storage s's compute grew (runs: the sums over runs follow). */
static inline void rt_regions_compute_added(struct runtime_state *rt, uint32_t s, int64_t cost)
{
	if (rt->reg.runs) {
		psum_add(&rt->reg.ps_comp, s, cost);
		rt_ps_logged(rt, s, RT_PS_COMPUTE, cost);
	}
}

/* Storage s gained n edges in direction d (0 forward, 1 reverse). */
static inline void rt_regions_edges_added(struct runtime_state *rt, uint32_t s, int d, uint32_t n)
{
	if (rt->reg.runs) {
		psum32_add(&rt->reg.ps_len[d], s, n);
		rt_ps_logged(rt, s, RT_PS_EDGES + (uint32_t)d, n);
	}
}

/* The regions of s, [0] forward and [1] reverse: two per storage, or, for
 * runs regions, two per slot, a slot per material storage (taken on first
 * use, given back when it is evicted), so that their memory follows the
 * material storages, not the log. */
static inline struct region *rt_regions(struct runtime_state *rt, uint32_t s)
{
	if (rt->reg.slot)
		return rt->reg.slot[s] != RT_NONE ? &rt->reg.table[2 * (size_t)rt->reg.slot[s]]
						  : rt_slot_regions(rt, s);
	return &rt->reg.table[2 * (size_t)s];
}

static inline struct region *rt_fwd(struct runtime_state *rt, uint32_t s)
{
	return rt_regions(rt, s);
}

static inline struct region *rt_rev(struct runtime_state *rt, uint32_t s)
{
	return rt_regions(rt, s) + 1;
}

/* Without taking a slot: NULL if s has none. */
static inline const struct region *rt_regions_peek(const struct runtime_state *rt, uint32_t s)
{
	if (rt->reg.slot)
		return rt->reg.slot[s] != RT_NONE ? &rt->reg.table[2 * (size_t)rt->reg.slot[s]] : NULL;
	return &rt->reg.table[2 * (size_t)s];
}

/** The compute of s's evicted region in one direction (0 without one). */
static inline int64_t rt_region_compute(const struct runtime_state *rt, uint32_t s, bool reverse)
{
	const struct region *r = rt_regions_peek(rt, s);
	return r ? r[reverse].compute : 0;
}

/** DTRUnopt: both of s's regions rebuilt from scratch (counted), their
 * distinct interior storages folded into *compute (added) and *last (the
 * latest access): as rt_region_rebuild twice, then a fold over the two
 * interiors (what runtime_test_switches.plain_regions runs, for tests). */
static inline void rt_unopt_neighbourhood_plain(struct runtime_state *rt, uint32_t s, int64_t *compute,
						int64_t *last)
{
	struct region *f = &rt->reg.scratch_fwd, *r = &rt->reg.scratch_rev;
	struct rt_scratch *x = &rt->scratch;
	rt_region_rebuild(rt, f, s, false);
	rt_region_rebuild(rt, r, s, true);
	uint32_t stamp = rt_next_stamp(&x->stamp_c, x->mark_c, rt->s->n_storages);
	for (int k = 0; k < 2; k++) {
		const struct region *g = k ? r : f;
		for (uint32_t i = 0; i < g->n_in; i++) {
			uint32_t v = g->in[i];
			if (x->mark_c[v] == stamp)
				continue;
			x->mark_c[v] = stamp;
			*compute += rt->key[v].compute;
			if (rt->key[v].last > *last)
				*last = rt->key[v].last;
		}
	}
}

#endif
