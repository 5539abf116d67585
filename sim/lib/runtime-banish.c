/*
 * runtime-banish.c: the V1 runtime's banishing (simrd's runtime V1): the
 * evicted dependents each storage has, and evicting a storage for good once
 * nothing can need it again, which deletes its edges from the graph (so V1
 * works on copies of the schedule's edge lists) and pins its children.
 */
#include <string.h>

#include "runtime-state.h"

/* ---- V1 evicted dependents ---------------------------------------------- */

static int first_index(const uint32_t *list, uint32_t n, uint32_t v)
{
	for (uint32_t i = 0; i < n; i++)
		if (list[i] == v)
			return (int)i;
	return -1;
}

/* Python's list.remove on an edge list and its storage twin (if any). */
static void list_remove(struct runtime_state *rt, uint32_t *list, uint32_t *twin, uint32_t *n, uint32_t v)
{
	int i = first_index(list, *n, v);
	if (i < 0)
		rt_bug_at(rt, "removing an edge that is not there", v);
	size_t tail = (size_t)(*n - (uint32_t)i - 1) * sizeof *list;
	memmove(list + i, list + i + 1, tail);
	if (twin)
		memmove(twin + i, twin + i + 1, tail);
	(*n)--;
}

/* One occurrence of storage v leaves a storage-level edge list (order
 * there is irrelevant: only sets and counts are read from it). */
static void slist_remove(struct runtime_state *rt, uint32_t *list, uint32_t *n, uint32_t v)
{
	int i = first_index(list, *n, v);
	if (i < 0)
		rt_bug_at(rt, "removing a storage edge that is not there", v);
	list[i] = list[--*n];
}

/* V1: evict s for good once nothing can need it, detaching its tensors
 * from the graph and pinning their children. */
void rt_try_banish(struct runtime_state *rt, uint32_t s)
{
	const struct schedule *sc = rt->s;
	struct rt_storage *x = &rt->st[s];
	if (x->banished || x->ref_ext > 0 || rt->n_deps[s] > 0)
		return;
	if ((rt->tag[s] & 1)) {
		x->ref_int = 0;
		rt_evict(rt, s);
	}
	for (uint32_t i = 0; i < x->n_tensors; i++) {
		uint32_t t = sc->storage_tensors[sc->storages[s].tensors + i];
		for (uint32_t j = 0; j < rt_n_par(rt, t); j++) {
			uint32_t p = rt->par[rt_par_off(rt, t) + j];
			uint32_t ps = rt_storage_of(rt, p);
			if (ps == s)
				continue;
			rt_dep_remove(rt, ps, t);
			list_remove(rt, rt->w_chi + rt->w_chi_off[p], NULL, &rt->n_chi[p], t);
			slist_remove(rt, rt->w_sfwd + rt->sfwd_off[ps], &rt->n_sfwd[ps], s);
		}
		for (uint32_t j = 0; j < rt->n_chi[t]; j++) {
			uint32_t c = rt->w_chi[rt->w_chi_off[t] + j];
			if (rt_storage_of(rt, c) == s)
				continue;
			list_remove(rt, rt->w_par + rt_par_off(rt, c), rt->w_par_s + rt_par_off(rt, c), &rt->w_n_par[c], t);
			uint32_t cs = rt_storage_of(rt, c);
			slist_remove(rt, rt->w_srev + rt->srev_off[cs], &rt->n_srev[cs], s);
			rt_pin_tensor(rt, c);
		}
	}
	x->banished = true;
}

