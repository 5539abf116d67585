/*
 * runtime-banish.c: the V1 runtime's banishing (simrd's runtime V1): the
 * evicted dependents each storage has, and evicting a storage for good once
 * nothing can need it again, which deletes its edges from the graph (so V1
 * works on copies of the schedule's edge lists) and pins its children.
 * Owns the ban part of struct runtime_state; on V1 the graph's views point
 * at its copies.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime-banish.h"
#include "runtime-commands.h"
#include "runtime-state.h"

/* Banishing edits the lists: copies, appended to as ops come. */
void rt_banish_init(struct runtime_state *rt)
{
	const struct schedule *s = rt->s;
	struct rt_banish *v = &rt->ban;
	v->n_deps = xcalloc(s->n_storages + 1, sizeof *v->n_deps);
	/* Children, one entry per argument slot and output, CSR by tensor
	 * (room for all of them; n_chi[t] so far). */
	v->chi_off = xcalloc(s->n_tensors + 1, sizeof *v->chi_off);
	for (size_t o = 0; o < s->n_ops; o++)
		for (uint32_t a = 0; a < s->ops[o].n_args; a++)
			v->chi_off[s->op_args[s->ops[o].args + a]] += s->ops[o].n_outs;
	size_t nchi = 0;
	for (size_t t = 0; t < s->n_tensors; t++) {
		uint32_t c = v->chi_off[t];
		v->chi_off[t] = (uint32_t)nchi;
		nchi += c;
	}
	/* Each tensor has its own copy of its op's arguments (the siblings'
	 * lists lose different parents). */
	size_t npar = 0;
	for (size_t t = 0; t < s->n_tensors; t++)
		npar += s->ops[s->tensors[t].op].n_args;
	v->par_off = xmalloc((s->n_tensors + 1) * sizeof *v->par_off);
	v->n_par = xmalloc((s->n_tensors + 1) * sizeof *v->n_par);
	v->par = xmalloc((npar + 1) * sizeof *v->par);
	v->par_s = xmalloc((npar + 1) * sizeof *v->par_s);
	npar = 0;
	for (size_t t = 0; t < s->n_tensors; t++) {
		const struct sched_op *op = &s->ops[s->tensors[t].op];
		uint32_t a = op->args, n = op->n_args;
		v->par_off[t] = (uint32_t)npar;
		v->n_par[t] = n;
		memcpy(v->par + npar, s->op_args + a, n * sizeof *v->par);
		memcpy(v->par_s + npar, s->arg_storage + a, n * sizeof *v->par_s);
		npar += n;
	}
	v->chi = xmalloc((nchi + 1) * sizeof *v->chi);
	v->n_chi = xcalloc(s->n_tensors + 1, sizeof *v->n_chi);
	rt->graph.par = v->par;
	rt->graph.par_s = v->par_s;
	v->lists = rt->h != NULL;
	if (!v->lists)
		return;
	v->sfwd = xmalloc(((size_t)s->storage_fwd_off[s->n_storages] + 1) * sizeof *v->sfwd);
	v->srev = xmalloc(((size_t)s->storage_rev_off[s->n_storages] + 1) * sizeof *v->srev);
	rt->graph.sfwd = v->sfwd;
	rt->graph.srev = v->srev;
}

void rt_banish_free(struct runtime_state *rt)
{
	struct rt_banish *v = &rt->ban;
	u64set_free(&v->deps);
	free(v->n_deps);
	free(v->par);
	free(v->par_off);
	free(v->n_par);
	free(v->par_s);
	free(v->chi);
	free(v->chi_off);
	free(v->n_chi);
	free(v->sfwd);
	free(v->srev);
}

/* ---- V1 evicted dependents ---------------------------------------------- */

static int first_index(const uint32_t *list, uint32_t n, uint32_t v)
{
	for (uint32_t i = 0; i < n; i++)
		if (list[i] == v)
			return (int)i;
	return -1;
}

/*
 * Python's list.remove on an edge list and its storage twin (if any): the
 * first v leaves, the others keep their order. The list starts at
 * base[*off]; the shorter side of the gap moves, the front one by moving
 * the list's start (*off) up a place: removals near either end, as a
 * node of many children or parents sees them (its children leave in the
 * order they came), cost O(1) each, not the list's length (a star of 10^6
 * nodes was quadratic). The room after the list stays where it was, so
 * appends (rt_banish_new_children) still fit.
 */
static void list_remove(struct runtime_state *rt, uint32_t *base, uint32_t *twin_base, uint32_t *off,
			uint32_t *n, uint32_t v)
{
	uint32_t *list = base + *off;
	int found = first_index(list, *n, v);
	if (found < 0)
		rt_bug_at(rt, "removing an edge that is not there", v);
	uint32_t i = (uint32_t)found;
	if (i < *n - 1 - i) {
		memmove(list + 1, list, i * sizeof *list);
		if (twin_base)
			memmove(twin_base + *off + 1, twin_base + *off, i * sizeof *list);
		(*off)++;
	} else {
		size_t tail = (size_t)(*n - i - 1) * sizeof *list;
		memmove(list + i, list + i + 1, tail);
		if (twin_base)
			memmove(twin_base + *off + i, twin_base + *off + i + 1, tail);
	}
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
	struct rt_banish *v = &rt->ban;
	struct rt_graph *g = &rt->graph;
	struct rt_storage *x = &rt->st[s];
	if (x->banished || x->ref_ext > 0 || v->n_deps[s] > 0)
		return;
	if (rt_material(rt, s)) {
		x->ref_int = 0;
		rt_evict(rt, s);
	}
	for (uint32_t i = 0; i < x->n_tensors; i++) {
		uint32_t t = sc->storage_tensors[sc->storages[s].tensors + i];
		for (uint32_t j = 0; j < v->n_par[t]; j++) {
			uint32_t p = v->par[v->par_off[t] + j];
			uint32_t ps = rt_storage_of(rt, p);
			if (ps == s)
				continue;
			rt_dep_remove(rt, ps, t);
			list_remove(rt, v->chi, NULL, &v->chi_off[p], &v->n_chi[p], t);
			if (v->lists)
				slist_remove(rt, v->sfwd + g->sfwd_off[ps], &g->n_sfwd[ps], s);
		}
		for (uint32_t j = 0; j < v->n_chi[t]; j++) {
			uint32_t c = v->chi[v->chi_off[t] + j];
			if (rt_storage_of(rt, c) == s)
				continue;
			list_remove(rt, v->par, v->par_s, &v->par_off[c], &v->n_par[c], t);
			uint32_t cs = rt_storage_of(rt, c);
			if (v->lists)
				slist_remove(rt, v->srev + g->srev_off[cs], &g->n_srev[cs], s);
			rt_pin_tensor(rt, c);
		}
	}
	x->banished = true;
}
