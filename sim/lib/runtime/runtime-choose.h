/*
 * runtime-choose.h: runtime-scan.c's part: a heuristic's choice (struct rt_scan, struct
 * rt_costs in runtime-state.h): the scans, the kept costs, the draws, and
 * the state handed to a heuristic as a struct policy. (runtime-scan.h is
 * the list of keys the scans know, shared with the heuristics.)
 */
#ifndef REMATSIM_RUNTIME_CHOOSE_H
#define REMATSIM_RUNTIME_CHOOSE_H

#include "runtime-state.h"

/* The runtime as a heuristic sees it (policy.h): this state, behind a
 * type that heuristics.c cannot look into. */
struct policy;

static inline struct policy *rt_policy(struct runtime_state *rt)
{
	return (struct policy *)(void *)rt;
}

void rt_scan_init(struct runtime_state *rt);
void rt_scan_free(struct runtime_state *rt);
/** The storage to evict from the (non-empty) pool: the heuristic's choice,
 * by a fast scan of the pool's keys where its row names a key and the keys
 * allow, else by its own loop (the plain one under scan.plain). Counts the
 * evaluations and accesses. */
uint32_t rt_choose(struct runtime_state *rt);

/* Storage s's kept cost (struct rt_costs) may have changed: computed again
 * before the next choice, if s is in the pool then. */
static inline void rt_costs_mark(struct runtime_state *rt, uint32_t s)
{
	struct rt_costs *c = &rt->costs;
	if (c->marking && !c->marked[s]) {
		if (c->n == c->limit) {
			c->all = true;
			c->marking = false;
			return;
		}
		c->marked[s] = 1;
		c->list[c->n++] = s;
	}
}

/* The kept costs follow the pool's slots (runtime-commands.c moves the
 * slots, runtime-scan.c owns the costs): slot `from`'s cost moves to slot
 * `to` as the pool compacts; */
static inline void rt_costs_move(struct runtime_state *rt, uint32_t to, uint32_t from)
{
	if (rt->costs.on)
		rt->costs.val[to] = rt->costs.val[from];
}

/* the pool's arrays grew to cap slots; */
static inline void rt_costs_grow(struct runtime_state *rt, size_t cap)
{
	if (rt->costs.on)
		rt->costs.val = xrealloc(rt->costs.val, cap * sizeof *rt->costs.val);
}

/* slot i is a hole now, whose cost no comparison takes (NaN). */
static inline void rt_costs_hole(struct runtime_state *rt, uint32_t i)
{
	if (rt->costs.on)
		rt->costs.val[i] = NAN;
}

/** The random heuristics' draw: a uniform index below n (n >= 1), from the
 * seeded splitmix64, or as Python's randrange(0, n) (python_random). */
static inline uint64_t rt_draw(struct runtime_state *rt, uint64_t n)
{
	struct rt_scan *sc = &rt->scan;
	if (sc->pyrng)
		return py_random_below(sc->pyrng, n);
	return splitmix64_next(&sc->rng) % n;
}

#endif
