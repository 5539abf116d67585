/*
 * runtime-unopt.h: runtime-unopt.c's part: DTRUnopt's kept neighbourhoods
 * (struct rt_unopt in runtime-state.h). SPEED-ONLY: DTRUnopt rebuilds each
 * pool member's two evicted regions at every choice (rt_unopt_neighbourhood
 * in runtime-regions.h); what a rebuild folds (the interior's compute, its
 * latest access, the edges the walk read) changes only when a storage in
 * or at the edge of those regions changes materiality, so it is kept per
 * member until one does. The same numbers and the same counted accesses
 * as the rebuilds (check mode compares them at every use).
 */
#ifndef REMATSIM_RUNTIME_UNOPT_H
#define REMATSIM_RUNTIME_UNOPT_H

#include "runtime-arith.h"
#include "runtime-regions.h"
#include "runtime-state.h"

void rt_unopt_init(struct runtime_state *rt);
void rt_unopt_free(struct runtime_state *rt);
/** Forget the kept folds that the changes since the last choice may have
 * made stale (out of line: once per choice at most). */
void rt_unopt_settle(struct runtime_state *rt);

/** Storage v changed (materiality, or while not material its key or
 * lists): the kept folds of the storages whose regions hold it or end at
 * it are stale, found at the next choice by a walk from v
 * (rt_unopt_settle). */
static inline void rt_unopt_changed(struct runtime_state *rt, uint32_t v)
{
	struct rt_unopt *u = &rt->unopt;
	if (u->on && !(u->nb[v].flags & RT_UNOPT_PENDING)) {
		u->nb[v].flags |= RT_UNOPT_PENDING;
		u->pend[u->n_pend++] = v;
	}
}

/** Storage v's key or lists changed: a change of the folds that hold it
 * while it is not material (an evicted parent's last access set before
 * its rematerialization, which other remats and their evictions may come
 * before; an op's new edges and computes before its arguments are back). */
static inline void rt_unopt_touched(struct runtime_state *rt, uint32_t v)
{
	if (rt->unopt.on && !(rt->tag[v] & 1))
		rt_unopt_changed(rt, v);
}

/*
 * SPEED-ONLY: one pass per direction, DTRUnopt's cost for a pool member
 * whose fold is not kept. The two walks visit what the two rebuilds do
 * (the same edges counted), each with its own stamp in the tag array; the
 * frontiers are not kept (the cost does not read them), and an interior
 * storage joins the fold when first met: in the reverse walk, one the
 * forward walk's stamp still marks as evicted is in both interiors,
 * folded already. Adds the interiors' compute to *compute, their latest
 * access to *last, and the list entries read (s's own included) to *acc.
 */
static inline void rt_unopt_walk(struct runtime_state *rt, uint32_t s, int64_t *compute, int64_t *last,
				 uint64_t *accesses)
{
	uint32_t *tag = rt->tag;
	const struct rt_key *key = rt->key;
	struct rt_scratch *x = &rt->scratch;
	/* (both taken at once: a reset between two calls would leave the
	 * first's marks in the array while the counter climbs to it again) */
	const uint32_t sa = rt_tag_stamps(rt, 2), sb = sa + 2;
	const size_t b = x->stk_len;
	uint64_t acc = 0;
	int64_t c = *compute, l = *last;
	for (int d = 0; d < 2; d++) {
		const uint32_t *lists = d ? rt->graph.srev : rt->graph.sfwd;
		const uint32_t *offs = d ? rt->graph.srev_off : rt->graph.sfwd_off;
		const uint32_t *lens = d ? rt->graph.n_srev : rt->graph.n_sfwd;
		const uint32_t st = d ? sb : sa;
		tag[s] = st | (tag[s] & 1);
		size_t w = x->stk_len;
		for (uint32_t y = s;; y = x->stk[w++]) {
			const uint32_t *list = lists + offs[y];
			uint32_t n = lens[y];
			acc += n;
			for (uint32_t j = 0; j < n; j++) {
				uint32_t us = list[j], v = tag[us];
				if ((v & ~1u) == st)
					continue;
				tag[us] = st | (v & 1);
				if (v & 1)
					continue; /* material: the frontier */
				if (!d || v != sa) { /* v == sa: evicted, in the forward interior */
					c += key[us].compute;
					if (key[us].last > l)
						l = key[us].last;
				}
				rt_push(rt, us);
			}
			if (w == x->stk_len)
				break;
		}
	}
	x->stk_len = b;
	*accesses += acc;
	*compute = c;
	*last = l;
}

void rt_unopt_kept_differs(struct runtime_state *rt, uint32_t s) __attribute__((noreturn));

/*
 * DTRUnopt's cost of pool member s: its two regions rebuilt from scratch,
 * their distinct interior storages folded into *compute (added) and *last
 * (the latest access), their accesses counted. SPEED-ONLY: the fold is
 * kept between choices (struct rt_unopt) and counted as the walk that
 * made it would count it now: its own lists' lengths (which new ops
 * reading s lengthen) plus the interiors' (which no op reaches while they
 * stay evicted). Inline: called for every member at every choice.
 */
static inline void rt_unopt_neighbourhood(struct runtime_state *rt, uint32_t s, int64_t *compute, int64_t *last)
{
	if (__builtin_expect(rt->test->plain_regions, 0)) {
		rt_unopt_neighbourhood_plain(rt, s, compute, last);
		return;
	}
	struct rt_unopt *u = &rt->unopt;
	if (!u->on) {
		rt_unopt_walk(rt, s, compute, last, &rt->res->heuristic_accesses);
		return;
	}
	if (__builtin_expect(u->n_pend != 0, 0))
		rt_unopt_settle(rt);
	struct rt_unopt_nb *nb = &u->nb[s];
	const uint64_t own = (uint64_t)rt->graph.n_sfwd[s] + rt->graph.n_srev[s];
	/* a fold not kept is walked; check mode walks a kept one too */
	if (!(nb->flags & RT_UNOPT_OK) || __builtin_expect(rt->cfg->check, 0)) {
		int64_t c = 0, l = RT_NEVER;
		uint64_t acc = 0;
		rt_unopt_walk(rt, s, &c, &l, &acc);
		if (nb->flags & RT_UNOPT_OK) {
			if (c != nb->compute || l != nb->last || acc - own != nb->acc)
				rt_unopt_kept_differs(rt, s);
		} else {
			nb->compute = c;
			nb->last = l;
			nb->acc = acc - own;
			nb->flags |= RT_UNOPT_OK;
		}
	}
	*compute += nb->compute;
	if (nb->last > *last)
		*last = nb->last;
	rt->res->heuristic_accesses += nb->acc + own;
}

#endif
