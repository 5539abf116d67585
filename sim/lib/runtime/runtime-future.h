/*
 * runtime-future.h: runtime-future.c's part: every storage's future uses, for the offline
 * Belady heuristic (struct rt_future in runtime-state.h). NEEDS_FUTURE:
 * called only when rt->fut.on.
 */
#ifndef REMATSIM_RUNTIME_FUTURE_H
#define REMATSIM_RUNTIME_FUTURE_H

#include "runtime-state.h"

void rt_future_init(struct runtime_state *rt);
void rt_future_free(struct runtime_state *rt);
/** Commands from the current one (rt->cmd) to storage s's next use, plus
 * one (1: the current command uses it); 0 when no command uses it again.
 * Moves s's cursor past the uses before the current command. */
static inline uint64_t rt_future_distance(struct runtime_state *rt, uint32_t s)
{
	struct rt_future *f = &rt->fut;
	uint32_t k = f->cur[s], end = f->use_off[s + 1];
	while (k < end && f->use[k] < rt->cmd)
		k++;
	f->cur[s] = k;
	return k < end ? (uint64_t)(f->use[k] - rt->cmd) + 1 : 0;
}

#endif
