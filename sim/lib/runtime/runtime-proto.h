/*
 * runtime-proto.h: runtime-proto.c's part: DTRPrototype's candidates and classes (struct
 * rt_proto in runtime-state.h). NEEDS_PROTO: each is called only when
 * rt->proto.on.
 */
#ifndef REMATSIM_RUNTIME_PROTO_H
#define REMATSIM_RUNTIME_PROTO_H

#include "runtime-state.h"

void rt_proto_init(struct runtime_state *rt);
void rt_proto_free(struct runtime_state *rt);
/** Storage s became material in the op now running (compute()). */
static inline void rt_proto_fresh(struct runtime_state *rt, uint32_t s)
{
	rt->proto.fresh[s] = 1;
}
/** After op opi ran (and the after rule's eviction): its fresh outputs
 * join the candidates in output order, leaving their classes. */
void rt_proto_joined(struct runtime_state *rt, uint32_t opi, bool remat);
/** Storage s is being evicted (any cause): the op_classes rule's merge. */
void rt_proto_evicting(struct runtime_state *rt, uint32_t s);
/** The prototype's choice (CheckpointPool::evict), RT_NONE when none of
 * its candidates can go (the prototype would loop for ever: OOM here). */
uint32_t rt_proto_choose(struct runtime_state *rt);

#endif
