/*
 * runtime-offload.h: runtime-offload.c's part: the host link (docs/offload.md; struct
 * rt_offload in runtime-state.h). Each is called only when rt->off.on.
 */
#ifndef REMATSIM_RUNTIME_OFFLOAD_H
#define REMATSIM_RUNTIME_OFFLOAD_H

#include "runtime-state.h"

void rt_offload_init(struct runtime_state *rt);
void rt_offload_free(struct runtime_state *rt);
/** Retire the copies that have ended by the clock: a copy to the host
 * frees its bytes, a prefetch's storage is material again. */
void rt_offload_settle(struct runtime_state *rt);
/** No victim can help: wait (the clock stalls) for the next copy to the
 * host to end. 0, OUTCOME_OOM when none is under way, OUTCOME_THRASH past
 * the overhead limit. */
int rt_offload_wait(struct runtime_state *rt);
/** Victim s: 1 offload it, 0 drop it, -1 neither can be (swap, host full). */
int rt_offload_decide(struct runtime_state *rt, uint32_t s);
/** Offload victim s: it is evicted, its copy queued, its bytes counted
 * until the copy ends. */
void rt_offload_start(struct runtime_state *rt, uint32_t s);
/** Whether tensor t, undefined, comes back by a copy (its storage has a
 * host copy from when t was defined). */
static inline bool rt_offload_held(const struct runtime_state *rt, uint32_t t)
{
	return rt->off.held[t];
}
/** Tensor t's storage is material again from its host copy: whether t
 * was defined when the storage left (so defined again), the mark cleared. */
static inline uint8_t rt_offload_take_held(struct runtime_state *rt, uint32_t t)
{
	uint8_t held = rt->off.held[t];
	rt->off.held[t] = 0;
	return held;
}
/** Bring t's storage back (its bytes fit: RT_HOST needs them free first),
 * waiting for the copy: 0, or OUTCOME_THRASH past the overhead limit. */
int rt_offload_bring(struct runtime_state *rt, uint32_t s);
/** Storage s was just made material by a computation: its host copy, if
 * any, is dropped (a copy under way is cancelled). */
void rt_offload_recomputed(struct runtime_state *rt, uint32_t s);
/** Storage s lost its last handle (eager runtimes): its host copy goes. */
void rt_offload_released(struct runtime_state *rt, uint32_t s);
/** After command i (any kind): start bringing back the inputs of the next
 * --offload-prefetch ops that are on the host, as far as memory allows. */
void rt_offload_prefetch(struct runtime_state *rt, size_t i);
/** Whether remat compute plus stall time passed the overhead limit. */
bool rt_offload_over_limit(const struct runtime_state *rt);

#endif
