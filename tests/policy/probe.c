/*
 * probe.c: a heuristic file as one might write it, in several variants
 * (-DPROBE=N), for tests/policy/boundary.sh: variant 0 reads the replay
 * through policy.h's queries and must compile; each other one reaches for
 * the runtime's state and must not.
 */
#include <stdint.h>

#include "heuristics.h"
#define POLICY_ONLY
#include "policy.h"

#if PROBE == 0
/* the queries: what a heuristic may read */
uint32_t probe(struct policy *rt);
uint32_t probe(struct policy *rt)
{
	uint32_t s = pol_pool_member(rt, 0);
	return s + (uint32_t)pol_key(rt, s)->compute + (uint32_t)pol_clock(rt) + (uint32_t)pol_pool_len(rt);
}
#elif PROBE == 1
/* a part of the state through the handle: the pool's members */
uint32_t probe(struct policy *rt);
uint32_t probe(struct policy *rt)
{
	return (uint32_t)rt->pool.len;
}
#elif PROBE == 2
/* a shared field through the handle: the clock */
int64_t probe(struct policy *rt);
int64_t probe(struct policy *rt)
{
	return rt->clock;
}
#elif PROBE == 3
/* a cast to the state, then a part: the pool's hole encoding */
int64_t probe(struct policy *rt);
int64_t probe(struct policy *rt)
{
	return ((struct runtime_state *)rt)->pool.compute[0];
}
#elif PROBE == 4
/* policy.h's own casts, then a part: the union-find classes */
uint32_t probe(struct policy *rt);
uint32_t probe(struct policy *rt)
{
	return pol_state(rt)->cls.parent[0];
}
#elif PROBE == 5
uint32_t probe(struct policy *rt);
uint32_t probe(struct policy *rt)
{
	return pol_state_mut(rt)->reg.words;
}
#endif
