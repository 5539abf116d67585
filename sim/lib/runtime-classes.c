/*
 * runtime-classes.c: the union-find classes of evicted storages that
 * DTREqClass and the AbEq heuristics read (simrd's eqclass.py), and each
 * storage's kept list of distinct evicted neighbours that class merges and
 * the eq costs walk.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime-state.h"

/* ---- union-find classes (eqclass.py) ----------------------------------- */


uint32_t rt_uf_find(struct runtime_state *rt, uint32_t x)
{
	uint32_t r = x;
	rt->res->heuristic_accesses++;
	while (rt->uf_parent[r] != RT_NONE) {
		r = rt->uf_parent[r];
		rt->res->heuristic_accesses++;
	}
	while (x != r && rt->uf_parent[x] != r) {
		uint32_t next = rt->uf_parent[x];
		rt->uf_parent[x] = r;
		x = next;
	}
	return r;
}

/* Fewer nodes than this are never collected (a small log's arena stays
 * as it was). */
#define UF_MIN_COLLECT 1024

/* Put the nodes no storage's class leads to on the free list: mark the
 * nodes on every path from a storage's ecn to its root, free the rest. */
static size_t uf_collect(struct runtime_state *rt)
{
	size_t words = (rt->uf_len + 63) / 64;
	if (words > rt->uf_mark_words) {
		free(rt->uf_mark);
		rt->uf_mark = xmalloc(words * sizeof *rt->uf_mark);
		rt->uf_mark_words = words;
	}
	uint64_t *mark = rt->uf_mark;
	memset(mark, 0, words * sizeof *mark);
	for (uint32_t s = 0; s < rt->uf_scan; s++) {
		uint32_t y = rt->st[s].ecn;
		while (y != RT_NONE && !(mark[y >> 6] >> (y & 63) & 1)) {
			mark[y >> 6] |= 1ULL << (y & 63);
			y = rt->uf_parent[y];
		}
	}
	/* Linked from the top down, so that reuse goes up the arena. */
	size_t freed = 0;
	rt->uf_free = RT_NONE;
	for (size_t i = rt->uf_len; i-- > 0;) {
		if (!(mark[i >> 6] >> (i & 63) & 1)) {
			rt->uf_parent[i] = rt->uf_free;
			rt->uf_free = (uint32_t)i;
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
void rt_uf_full(struct runtime_state *rt)
{
	size_t freed = 0;
	if (rt->uf_cap >= UF_MIN_COLLECT && rt->uf_cap >= rt->uf_scan)
		freed = uf_collect(rt);
	if (!freed || freed < rt->uf_cap / 4) {
		size_t cap = rt->uf_cap ? 2 * rt->uf_cap : UF_MIN_COLLECT;
		if (cap > rt->uf_room) {
			rt->uf_parent = xrealloc(rt->uf_parent, cap * sizeof *rt->uf_parent);
			rt->uf_value = xrealloc(rt->uf_value, cap * sizeof *rt->uf_value);
			rt->uf_room = cap;
		}
		rt->uf_cap = cap;
	}
}

/* Link l's class under r's (r stays the root), summing the values. */
void rt_uf_merge(struct runtime_state *rt, uint32_t lhs, uint32_t rhs)
{
	uint32_t l = rt_uf_find(rt, lhs), r = rt_uf_find(rt, rhs);
	if (l == r)
		return;
	rt->uf_parent[l] = r;
	rt->uf_value[r] = rt->uf_value[l] + rt->uf_value[r];
}

/* Storage v's materiality or edges changed: forget the kept evicted
 * neighbour lists that may hold it (its neighbours', and its own). */
void rt_en_changed(struct runtime_state *rt, uint32_t v)
{
	const uint32_t *l = rt->srev + rt->srev_off[v];
	for (uint32_t j = 0, n = rt->n_srev[v]; j < n; j++)
		rt->en_len[l[j]] = 0;
	l = rt->sfwd + rt->sfwd_off[v];
	for (uint32_t j = 0, n = rt->n_sfwd[v]; j < n; j++)
		rt->en_len[l[j]] = 0;
	rt->en_len[v] = 0;
}

/* Up to this many edges, a large log's list (rt->en_scan) is deduplicated
 * by looking through what it holds so far rather than by stamps: no mark
 * per storage is touched (on the 2^20 chain, 8 MiB fewer resident) and
 * the list is in cache; on small logs the stamps take fewer instructions. */
#define EN_SCAN_MAX 4

const uint32_t *rt_evicted_list_fill(struct runtime_state *rt, uint32_t s, uint32_t *n)
{
	uint32_t *list = rt->en + rt_en_off(rt, s);
	{
		uint32_t k = 0;
		if (rt->en_scan && rt->n_srev[s] + rt->n_sfwd[s] <= EN_SCAN_MAX) {
			for (int dir = 0; dir < 2; dir++) {
				const uint32_t *l = dir ? rt->sfwd + rt->sfwd_off[s] : rt->srev + rt->srev_off[s];
				for (uint32_t j = 0, m = dir ? rt->n_sfwd[s] : rt->n_srev[s]; j < m; j++) {
					uint32_t us = l[j], i = 0;
					if ((rt->tag[us] & 1) || us == s)
						continue;
					while (i < k && list[i] != us)
						i++;
					if (i == k)
						list[k++] = us;
				}
			}
		} else {
			uint32_t stamp = rt_next_stamp(&rt->stamp_a, rt->mark_a, rt->s->n_storages);
			for (int dir = 0; dir < 2; dir++) {
				const uint32_t *l = dir ? rt->sfwd + rt->sfwd_off[s] : rt->srev + rt->srev_off[s];
				for (uint32_t j = 0, m = dir ? rt->n_sfwd[s] : rt->n_srev[s]; j < m; j++) {
					uint32_t us = l[j];
					if (!(rt->tag[us] & 1) && us != s && rt->mark_a[us] != stamp) {
						rt->mark_a[us] = stamp;
						list[k++] = us;
					}
				}
			}
		}
		rt->en_len[s] = k + 1;
	}
	*n = rt->en_len[s] - 1;
	return list;
}
