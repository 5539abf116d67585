/*
 * runtime-banish.h: runtime-banish.c's part: V1's evicted dependents and edge copies
 * (struct rt_banish in runtime-state.h).
 */
#ifndef REMATSIM_RUNTIME_BANISH_H
#define REMATSIM_RUNTIME_BANISH_H

#include "runtime-state.h"

void rt_banish_init(struct runtime_state *rt);
void rt_banish_free(struct runtime_state *rt);
void rt_try_banish(struct runtime_state *rt, uint32_t s);

/* V1's copies of the edge lists grow as ops come (inline: every op of
 * every baseline replay comes here). An output of op, in storage s: its
 * parents join s's reverse list. */
static inline void rt_banish_new_parents(struct runtime_state *rt, uint32_t s, const struct sched_op *op)
{
	const uint32_t *as = rt->s->arg_storage + op->args;
	struct rt_graph *g = &rt->graph;
	if (!rt->ban.lists)
		return;
	for (uint32_t a = 0; a < op->n_args; a++)
		rt->ban.srev[g->srev_off[s] + g->n_srev[s]++] = as[a];
}

/* Then op's outputs join its arguments' children and forward lists. */
static inline void rt_banish_new_children(struct runtime_state *rt, const struct sched_op *op)
{
	const struct schedule *sc = rt->s;
	struct rt_banish *v = &rt->ban;
	struct rt_graph *g = &rt->graph;
	for (uint32_t a = 0; a < op->n_args; a++) {
		uint32_t p = sc->op_args[op->args + a];
		uint32_t ps = sc->arg_storage[op->args + a];
		for (uint32_t k = 0; k < op->n_outs; k++) {
			v->chi[v->chi_off[p] + v->n_chi[p]++] = op->outs + k;
			if (v->lists)
				v->sfwd[g->sfwd_off[ps] + g->n_sfwd[ps]++] = rt_storage_of(rt, op->outs + k);
		}
	}
}

static inline uint64_t rt_dep_key(uint32_t s, uint32_t t)
{
	return (uint64_t)s << 32 | t;
}

/* Tensor t, evicted, depends on storage s (V1). */
static inline void rt_dep_add(struct runtime_state *rt, uint32_t s, uint32_t t)
{
	if (u64set_add(&rt->ban.deps, rt_dep_key(s, t)))
		rt->ban.n_deps[s]++;
}

static inline void rt_dep_remove(struct runtime_state *rt, uint32_t s, uint32_t t)
{
	if (u64set_remove(&rt->ban.deps, rt_dep_key(s, t)))
		rt->ban.n_deps[s]--;
}

#endif
