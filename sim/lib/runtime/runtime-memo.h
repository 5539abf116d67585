/*
 * runtime-memo.h: runtime-memo.c's part: the reach memo behind bitset rebuilds (struct
 * rt_memo in runtime-state.h).
 */
#ifndef REMATSIM_RUNTIME_MEMO_H
#define REMATSIM_RUNTIME_MEMO_H

#include "runtime-state.h"
#include "runtime-regions.h"

void rt_memo_init(struct runtime_state *rt);
void rt_memo_free(struct runtime_state *rt);
/* The regions' bitsets block, kept across a thread's replays: a zeroed
 * block of at least `words` words, and back (all zero again). */
uint64_t *rt_keep_bits(size_t words, size_t *cap);
void rt_keep_bits_back(uint64_t *b, size_t words);
/** Check mode: a few memoized reaches against fresh walks. */
void rt_memo_check(struct runtime_state *rt);
void rt_reach_forget(struct runtime_state *rt, uint32_t v, int d);
/** rt_region_rebuild within a batch (same sets and counts), into the
 * region's bitsets, from memoized reaches. */
void rt_memo_rebuild_batched(struct runtime_state *rt, struct region *r, uint32_t base, bool reverse);

/* Start a batch of rebuilds (the walk-or-memo accounting is per batch). */
static inline void rt_memo_batch(struct runtime_state *rt)
{
	rt->memo.walked[0] = rt->memo.walked[1] = rt->memo.walk_max[0] = rt->memo.walk_max[1] = 0;
}

/* A bitset region's rebuild after a computation. A batch's regions of one
 * direction are walked until the walks have cost (in edges) more than the
 * largest of them, then built from memoized reaches: the memo costs a few
 * walks of the batch's evicted subgraph, which batches of few regions (at
 * high budgets, most of them) do not repay (ski rental; twice the largest
 * until the memo's sums got cheaper, docs/scale.md). Up to 1024
 * storages (16 words a bitset) memoized reaches are kept across batches
 * and rows are short, so the memo is used at once: 5% fewer instructions
 * on the ResNet log, 1-3% on U-Net. */
static inline void rt_memo_rebuild(struct runtime_state *rt, struct region *r, uint32_t base, bool reverse)
{
	struct rt_memo *m = &rt->memo;
	if (m->w > 16 && m->walked[reverse] <= m->walk_max[reverse]) {
		/* SPEED-ONLY: a walk or the memo build the same region with the
		 * same counts (check mode compares memo rows with walks). */
		uint64_t a0 = rt->res->heuristic_accesses;
		rt_region_walk_bits(rt, r, base, reverse);
		uint64_t cost = rt->res->heuristic_accesses - a0;
		m->walked[reverse] += cost;
		if (cost > m->walk_max[reverse])
			m->walk_max[reverse] = cost;
	} else {
		rt_memo_rebuild_batched(rt, r, base, reverse);
	}
}

static inline bool rt_memo_kept(const struct runtime_state *rt)
{
	return rt->memo.w != 0;
}

/* Storage v changed (materiality, edges or compute): forget the memoized
 * reaches that may hold it. */
static inline void rt_reach_changed(struct runtime_state *rt, uint32_t v)
{
	if (rt_memo_kept(rt)) {
		rt_reach_forget(rt, v, 0);
		rt_reach_forget(rt, v, 1);
	}
}

#endif
