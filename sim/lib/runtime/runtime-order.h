/*
 * runtime-order.h: runtime-order.c's part: the pool in a choice's order (LRU, DTRLocal;
 * struct rt_order in runtime-state.h): joins and leaves inline, as the
 * pool calls them at every change.
 */
#ifndef REMATSIM_RUNTIME_ORDER_H
#define REMATSIM_RUNTIME_ORDER_H

#include "runtime-state.h"

void rt_order_init(struct runtime_state *rt);
void rt_order_free(struct runtime_state *rt);
/** Check mode: the runs hold exactly the pool, in order. */
void rt_order_check(struct runtime_state *rt);
/** rt_order_join's way when s's run is not the hot one. */
void rt_order_join_slow(struct runtime_state *rt, uint32_t s);
/** Run r is empty: it goes. */
void rt_order_drop_run(struct runtime_state *rt, uint32_t r);

/* s (in the pool, its key current) joins its group at the pool's latest
 * slot: first in its run. Inline for the common case (a chain's
 * rematerializations give their members one last access): the run of the
 * last insertion. */
static inline void rt_order_join(struct runtime_state *rt, uint32_t s)
{
	struct rt_order *o = &rt->ord;
	uint32_t r = o->hot;
	if (r != RT_NONE) {
		struct rt_orun *R = &o->runs[r];
		const struct rt_key *k = &rt->key[s];
		if (R->last == k->last &&
		    (!o->grouped || (o->g[R->g].compute == k->compute && o->g[R->g].size == k->size))) {
			o->run[s] = r;
			o->prev[s] = RT_NONE;
			o->next[s] = R->first; /* a run in use is not empty */
			o->prev[R->first] = s;
			R->first = s;
			o->credit++; /* as rt_order_join_slow counts a join */
			return;
		}
	}
	rt_order_join_slow(rt, s);
}

/* s leaves its group (its key may have changed since it joined). */
static inline void rt_order_leave(struct runtime_state *rt, uint32_t s)
{
	struct rt_order *o = &rt->ord;
	uint32_t r = o->run[s];
	struct rt_orun *R = &o->runs[r];
	uint32_t p = o->prev[s], n = o->next[s];
	if (p == RT_NONE)
		R->first = n;
	else
		o->next[p] = n;
	if (n == RT_NONE)
		R->tail = p;
	else
		o->prev[n] = p;
	if (R->first == RT_NONE)
		rt_order_drop_run(rt, r);
}
/** s's key changed (s in the pool): its place follows. */
void rt_order_rekey(struct runtime_state *rt, uint32_t s);

/* A member joined the pool while the order is not kept: what keeping it
 * would have cost (rt_order_ready weighs it). */
static inline void rt_order_count_join(struct runtime_state *rt)
{
	rt->ord.joins++;
}

/** The scans have paid more than the order would cost: build it from the
 * pool and keep it from now on (unless it is dropped at once). */
void rt_order_start(struct runtime_state *rt);

/* A scan of the pool is about to choose: whether the ordered pool should
 * choose instead (it is kept, or the scans so far have paid for it). */
static inline bool rt_order_ready(struct runtime_state *rt)
{
	struct rt_order *o = &rt->ord;
	if (o->on || !o->armed)
		return o->on;
	o->scanned += rt->pool.len;
	if (o->scanned <= ORDER_START * o->joins)
		return false;
	rt_order_start(rt);
	return o->on;
}

/* A choice was made from the ordered pool, sparing a scan of the pool. */
static inline void rt_order_chose(struct runtime_state *rt)
{
	rt->ord.credit += (int64_t)(rt->pool.len / 8);
}

#endif
