/*
 * runtime-commands.h: runtime-commands.c's part: the commands, materialize and compute,
 * eviction, locks and the pool (struct rt_pool, struct rt_mat in
 * runtime-state.h); and what offload asks of them (rt_restore,
 * rt_evict_keep_bytes, rt_peak_update).
 */
#ifndef REMATSIM_RUNTIME_COMMANDS_H
#define REMATSIM_RUNTIME_COMMANDS_H

#include "runtime-state.h"

/** The pool and materialize's frames. */
void rt_commands_init(struct runtime_state *rt);
void rt_commands_free(struct runtime_state *rt);
/** Check mode: the pool holds exactly the material, unlocked, unpinned
 * storages, with their keys' current copies. */
void rt_pool_check(struct runtime_state *rt);
void rt_bug_at(const struct runtime_state *rt, const char *what, uint32_t s) __attribute__((noreturn));
int rt_replay(struct runtime_state *rt);
void rt_evict(struct runtime_state *rt, uint32_t s);
void rt_pin_tensor(struct runtime_state *rt, uint32_t t);

/** The pool's key arrays rewritten from the keys: while the ordered pool
 * is kept (runtime-order.c) they are not, and a scan that is to choose
 * (the ordered pool dropped, or not able to choose) needs them. */
void rt_pool_keys_refresh(struct runtime_state *rt);

/** Members of the pool in slots [0, i]: the evaluations of a scan that
 * stopped at i. */
static inline uint64_t rt_pool_members_upto(const struct runtime_state *rt, uint32_t i)
{
	uint64_t n = 0;
	for (uint32_t j = 0; j <= i; j++)
		n += rt->pool.slot[j] != RT_NONE;
	return n;
}

/** runtime-commands.c: storage s (evicted, its bytes counted) is material
 * again with the tensors its host copy holds defined, and joins the pool,
 * as a computation would leave it. */
void rt_restore(struct runtime_state *rt, uint32_t s);
/** runtime-commands.c: an offload's eviction: as rt_evict, but its bytes
 * stay counted (until the copy ends) and no EV_EVICT is reported. */
void rt_evict_keep_bytes(struct runtime_state *rt, uint32_t s);
/** Whether x bytes in use would pass the budget. Every comparison with
 * the budget goes through here, so the result's [same_from, same_below)
 * is the range of budgets that answer every one alike. */
static inline bool rt_over(struct runtime_state *rt, uint64_t x)
{
	if (x > rt->budget) {
		if (x < rt->res->same_below)
			rt->res->same_below = x;
		return true;
	}
	if (x > rt->res->same_from)
		rt->res->same_from = x;
	return false;
}

/** runtime-commands.c: the peak taken after memory grew outside compute. */
static inline void rt_peak_update(struct runtime_state *rt)
{
	if (rt->memory > rt->res->peak_memory)
		rt->res->peak_memory = rt->memory;
}

#endif
