/*
 * runtime-check.c: check mode (runtime_config.check): after every command,
 * the invariants of runtime-state.h are verified, each part's by its owner
 * (the pool's membership and key copies, samples of the kept
 * evicted-neighbour lists and of the memoized reaches against fresh
 * walks). A failure is a bug (rs_bug, exit 70).
 */
#include "runtime-check.h"
#include "runtime-classes.h"
#include "runtime-commands.h"
#include "runtime-memo.h"
#include "runtime-state.h"

void rt_check_state(struct runtime_state *rt)
{
	const struct schedule *sc = rt->s;
	uint64_t mem = 0;
	for (size_t i = 0; i < sc->n_storages; i++)
		if (rt_material(rt, (uint32_t)i))
			mem += rt->key[i].size;
	if (rt->off.on) /* copies under way (runtime-offload.c) */
		mem += rt->off.pending + rt->off.incoming;
	if (mem != rt->memory)
		rs_bug("command %zu: memory in use %llu, material storages hold %llu", rt->cmd,
		       (unsigned long long)rt->memory, (unsigned long long)mem);
	if (rt->memory > rt->budget)
		rs_bug("command %zu: memory in use %llu over the budget %llu", rt->cmd,
		       (unsigned long long)rt->memory, (unsigned long long)rt->budget);
	rt_pool_check(rt);
	if (rt->eqclass)
		rt_classes_check(rt);
	rt_memo_check(rt);
}
