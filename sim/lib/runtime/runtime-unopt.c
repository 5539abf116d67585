/*
 * runtime-unopt.c: DTRUnopt's kept neighbourhoods (runtime-unopt.h). Owns
 * the unopt part of struct runtime_state.
 *
 * Why a walk from each changed storage finds every stale fold: a member
 * s's fold depends on the storages its walks reach, evicted ones through
 * evicted ones (a storage not computed yet counts as evicted), and on
 * their keys and lists. A storage changes that way when it changes
 * materiality, or, while not material: when a compute command adds its
 * op's edges and computes (to its outputs' storages and arguments, before
 * the arguments are rematerialized), and when its last access is set just
 * before its rematerialization (mat_enter): each is reported
 * (rt_unopt_changed, rt_unopt_touched). A material storage's own key and
 * lists are read afresh at every use. So a fold goes stale only when a
 * storage on a path from s (through evicted storages, then or now)
 * changes. The one nearest s on that path has only unchanged,
 * evicted storages between it and s, so a walk from it through evicted
 * storages, both ways, reaches s: a walk from v through forward lists
 * meets whoever reaches v through reverse lists, as the two are mirror
 * images. Not kept on V1: its banishing deletes a storage from one side's
 * lists and not always the other's (runtime-banish.c; a storage was seen
 * to keep a banished parent in its reverse list while the parent had left
 * the forward lists that led to it), so that walk can miss a fold there.
 * Nor under runtime_test_switches.plain_regions.
 */
#include <stdlib.h>

#include "heuristics.h"
#include "runtime-commands.h"
#include "runtime-unopt.h"

void rt_unopt_init(struct runtime_state *rt)
{
	struct rt_unopt *u = &rt->unopt;
	u->on = rt->h && (rt->h->needs & NEEDS_UNOPT) && !rt->v1 && !rt->test->plain_regions;
	if (!u->on)
		return;
	u->nb = xcalloc(rt->s->n_storages + 1, sizeof *u->nb);
	u->pend = xcalloc(rt->s->n_storages + 1, sizeof *u->pend);
}

void rt_unopt_free(struct runtime_state *rt)
{
	free(rt->unopt.nb);
	free(rt->unopt.pend);
}

void rt_unopt_settle(struct runtime_state *rt)
{
	struct rt_unopt *u = &rt->unopt;
	uint32_t *tag = rt->tag;
	struct rt_scratch *x = &rt->scratch;
	/* one pair of stamps for all the walks: what one reached, another
	 * need not walk again (their start storages are walked in any case) */
	const uint32_t sa = rt_tag_stamps(rt, 2), sb = sa + 2;
	const size_t b = x->stk_len;
	for (uint32_t i = 0; i < u->n_pend; i++) {
		uint32_t v = u->pend[i];
		u->nb[v].flags = 0;
		for (int d = 0; d < 2; d++) {
			const uint32_t st = d ? sb : sa;
			tag[v] = st | (tag[v] & 1);
			rt_push(rt, v);
			while (x->stk_len > b) {
				uint32_t n;
				const uint32_t *list = rt_out_list(rt, x->stk[--x->stk_len], d, &n);
				for (uint32_t j = 0; j < n; j++) {
					uint32_t us = list[j], t = tag[us];
					if ((t & ~1u) == st)
						continue;
					tag[us] = st | (t & 1);
					u->nb[us].flags &= ~(uint32_t)RT_UNOPT_OK;
					if (!(t & 1))
						rt_push(rt, us); /* evicted: walk through it */
				}
			}
		}
	}
	u->n_pend = 0;
}

void rt_unopt_kept_differs(struct runtime_state *rt, uint32_t s)
{
	rt_bug_at(rt, "DTRUnopt's kept neighbourhood differs from a rebuild of it", s);
}
