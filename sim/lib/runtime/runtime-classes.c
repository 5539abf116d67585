/*
 * runtime-classes.c: the union-find classes of evicted storages that
 * DTREqClass and the AbEq heuristics read (simrd's eqclass.py), and each
 * storage's kept list of distinct evicted neighbours that class merges and
 * the eq costs walk. Owns the cls part of struct runtime_state.
 *
 * Invariants: a storage has a class node (cls.ecn) from when it is made
 * until it is rematerialized, and again from each eviction; a node's class
 * value is the sum of its members' computes at their evictions, less those
 * rematerialized since. Every find counts one access per node on its path,
 * as the reference's does, and compresses the path the same way.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime-classes.h"
#include "runtime-commands.h"
#include "runtime-state.h"

void rt_classes_init(struct runtime_state *rt)
{
	const struct schedule *s = rt->s;
	struct rt_classes *c = &rt->cls;
	c->ecn = xmalloc((s->n_storages + 1) * sizeof *c->ecn);
	for (size_t i = 0; i < s->n_storages; i++)
		c->ecn[i] = RT_NONE;
	c->free = RT_NONE;
	size_t ne = (size_t)s->storage_fwd_off[s->n_storages] + s->storage_rev_off[s->n_storages];
	c->en = xmalloc((ne + 1) * sizeof *c->en);
	c->en_len = xcalloc(s->n_storages + 1, sizeof *c->en_len);
	/* SPEED-ONLY: the same lists either way (test-differential's
	 * large_lists_equal_marks compares). Stamps take fewer
	 * instructions; a look through short lists leaves a large
	 * log's stamp array untouched (8 MiB on the 2^20 chain). */
	c->en_scan = s->n_storages > RMEMO_MAX_STORAGES && !rt->test->mark_lists;
	c->room = 2 * s->n_storages + 1024;
	c->parent = xmalloc(c->room * sizeof *c->parent);
	c->value = xmalloc(c->room * sizeof *c->value);
	c->seen = xcalloc(c->room, sizeof *c->seen);
}

void rt_classes_free(struct runtime_state *rt)
{
	struct rt_classes *c = &rt->cls;
	free(c->ecn);
	free(c->parent);
	free(c->value);
	free(c->seen);
	free(c->mark);
	free(c->en);
	free(c->en_len);
}

/* ---- union-find classes (eqclass.py) ----------------------------------- */

/* The root of node x (rt_uf_find_acc), its accesses counted. */
static uint32_t uf_find(struct runtime_state *rt, uint32_t x)
{
	uint64_t acc = 0;
	uint32_t r = rt_uf_find_acc(&rt->cls, x, &acc);
	rt->res->heuristic_accesses += acc;
	return r;
}

/* Fewer nodes than this are never collected (a small log's arena stays
 * as it was). */
#define UF_MIN_COLLECT 1024

/* Put the nodes no storage's class leads to on the free list: mark the
 * nodes on every path from a storage's ecn to its root, free the rest. */
static size_t uf_collect(struct rt_classes *c)
{
	size_t words = (c->len + 63) / 64;
	if (words > c->mark_words) {
		free(c->mark);
		c->mark = xmalloc(words * sizeof *c->mark);
		c->mark_words = words;
	}
	uint64_t *mark = c->mark;
	memset(mark, 0, words * sizeof *mark);
	for (uint32_t s = 0; s < c->scan; s++) {
		uint32_t y = c->ecn[s];
		while (y != RT_NONE && !(mark[y >> 6] >> (y & 63) & 1)) {
			mark[y >> 6] |= 1ULL << (y & 63);
			y = c->parent[y];
		}
	}
	/* Linked from the top down, so that reuse goes up the arena. */
	size_t freed = 0;
	c->free = RT_NONE;
	for (size_t i = c->len; i-- > 0;) {
		if (!(mark[i >> 6] >> (i & 63) & 1)) {
			c->parent[i] = c->free;
			c->free = (uint32_t)i;
			freed++;
		}
	}
	return freed;
}

/* The arena is full and the free list empty: collect where that pays
 * (the arena at least as large as the storages it may be scanned for, so
 * a collection costs O(arena)), and grow unless it freed a quarter. Each
 * collection thus either frees a quarter of the arena or precedes a
 * doubling: O(1) per node, amortized. The arena grows within the arrays
 * allocated at the start (room for two nodes a storage, resident only as
 * far as used) and past them by reallocating; in place, it leaves no
 * old copy behind in the heap. */
void rt_uf_full(struct rt_classes *c)
{
	size_t freed = 0;
	if (c->cap >= UF_MIN_COLLECT && c->cap >= c->scan)
		freed = uf_collect(c);
	if (!freed || freed < c->cap / 4) {
		size_t cap = c->cap ? 2 * c->cap : UF_MIN_COLLECT;
		if (cap > c->room) {
			c->parent = xrealloc(c->parent, cap * sizeof *c->parent);
			c->value = xrealloc(c->value, cap * sizeof *c->value);
			c->seen = xrealloc(c->seen, cap * sizeof *c->seen);
			memset(c->seen + c->room, 0, (cap - c->room) * sizeof *c->seen);
			c->room = cap;
		}
		c->cap = cap;
	}
}

/* Link l's class under r's (r stays the root), summing the values. */
static void uf_merge(struct runtime_state *rt, uint32_t lhs, uint32_t rhs)
{
	struct rt_classes *c = &rt->cls;
	uint32_t l = uf_find(rt, lhs), r = uf_find(rt, rhs);
	if (l == r)
		return;
	c->parent[l] = r;
	c->value[r] = c->value[l] + c->value[r];
}

void rt_classes_evict(struct runtime_state *rt, uint32_t s)
{
	struct rt_classes *c = &rt->cls;
	if (c->ecn[s] != RT_NONE)
		rt_bug_at(rt, "an evicted storage already has a class", s);
	c->ecn[s] = rt_uf_new(c, s, rt->key[s].compute);
	/* its distinct evicted neighbours, walking all its edges */
	rt->res->heuristic_accesses += (uint64_t)rt->graph.n_srev[s] + rt->graph.n_sfwd[s];
	uint32_t nn;
	const uint32_t *nb = rt_evicted_list(rt, s, &nn);
	for (uint32_t i = 0; i < nn; i++) {
		if (c->ecn[nb[i]] == RT_NONE)
			rt_bug_at(rt, "an evicted neighbour has no class", nb[i]);
		uf_merge(rt, c->ecn[nb[i]], c->ecn[s]);
	}
}

void rt_classes_computed(struct runtime_state *rt, const uint32_t *ids, size_t n)
{
	struct rt_classes *c = &rt->cls;
	for (size_t i = 0; i < n; i++) {
		uint32_t s = ids[i];
		if (c->ecn[s] == RT_NONE)
			rt_bug_at(rt, "a rematerialized storage has no class", s);
		/* two finds, as the reference's (both counted) */
		int64_t pre = c->value[uf_find(rt, c->ecn[s])];
		c->value[uf_find(rt, c->ecn[s])] = pre - rt->key[s].compute;
		c->ecn[s] = RT_NONE;
	}
}

/* ---- kept evicted-neighbour lists ------------------------------------------ */

void rt_en_changed(struct runtime_state *rt, uint32_t v)
{
	const struct rt_graph *g = &rt->graph;
	uint32_t *en_len = rt->cls.en_len;
	const uint32_t *l = g->srev + g->srev_off[v];
	for (uint32_t j = 0, n = g->n_srev[v]; j < n; j++)
		en_len[l[j]] = 0;
	l = g->sfwd + g->sfwd_off[v];
	for (uint32_t j = 0, n = g->n_sfwd[v]; j < n; j++)
		en_len[l[j]] = 0;
	en_len[v] = 0;
}

/* Up to this many edges, a large log's list (cls.en_scan) is deduplicated
 * by looking through what it holds so far rather than by stamps: no mark
 * per storage is touched (on the 2^20 chain, 8 MiB fewer resident) and
 * the list is in cache; on small logs the stamps take fewer instructions. */
#define EN_SCAN_MAX 4

const uint32_t *rt_evicted_list_fill(struct runtime_state *rt, uint32_t s, uint32_t *n)
{
	const struct rt_graph *g = &rt->graph;
	struct rt_classes *c = &rt->cls;
	uint32_t *list = c->en + rt_en_off(rt, s);
	uint32_t k = 0;
	if (c->en_scan && g->n_srev[s] + g->n_sfwd[s] <= EN_SCAN_MAX) {
		for (int dir = 0; dir < 2; dir++) {
			const uint32_t *l = dir ? g->sfwd + g->sfwd_off[s] : g->srev + g->srev_off[s];
			for (uint32_t j = 0, m = dir ? g->n_sfwd[s] : g->n_srev[s]; j < m; j++) {
				uint32_t us = l[j], i = 0;
				if (rt_material(rt, us) || us == s)
					continue;
				while (i < k && list[i] != us)
					i++;
				if (i == k)
					list[k++] = us;
			}
		}
	} else {
		struct rt_scratch *x = &rt->scratch;
		uint32_t stamp = rt_next_stamp(&x->stamp_a, x->mark_a, rt->s->n_storages);
		for (int dir = 0; dir < 2; dir++) {
			const uint32_t *l = dir ? g->sfwd + g->sfwd_off[s] : g->srev + g->srev_off[s];
			for (uint32_t j = 0, m = dir ? g->n_sfwd[s] : g->n_srev[s]; j < m; j++) {
				uint32_t us = l[j];
				if (!rt_material(rt, us) && us != s && x->mark_a[us] != stamp) {
					x->mark_a[us] = stamp;
					list[k++] = us;
				}
			}
		}
	}
	c->en_len[s] = k + 1;
	*n = k;
	return list;
}

/* Check mode: a few kept evicted-neighbour lists per command, against a
 * fresh walk (a stale list stays stale until cleared, so sampling finds
 * it). */
void rt_classes_check(struct runtime_state *rt)
{
	struct rt_classes *c = &rt->cls;
	for (uint32_t k = 0; k < 4; k++) {
		uint32_t x = (uint32_t)((rt->cmd * 4 + k) * 7919u % rt->s->n_storages);
		if (!c->en_len[x])
			continue;
		uint32_t n = c->en_len[x] - 1;
		uint32_t *kept = xmalloc((n + 1) * sizeof *kept);
		memcpy(kept, c->en + rt_en_off(rt, x), n * sizeof *kept);
		c->en_len[x] = 0;
		uint32_t m;
		const uint32_t *fresh = rt_evicted_list(rt, x, &m);
		if (m != n || memcmp(kept, fresh, n * sizeof *kept))
			rt_bug_at(rt, "a kept evicted-neighbour list is stale", x);
		free(kept);
	}
}
