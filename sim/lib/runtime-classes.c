/*
 * runtime-classes.c: the union-find classes of evicted storages that
 * DTREqClass and the AbEq heuristics read (simrd's eqclass.py), and each
 * storage's kept list of distinct evicted neighbours that class merges and
 * the eq costs walk.
 */
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
		rt->en_valid[l[j]] = 0;
	l = rt->sfwd + rt->sfwd_off[v];
	for (uint32_t j = 0, n = rt->n_sfwd[v]; j < n; j++)
		rt->en_valid[l[j]] = 0;
	rt->en_valid[v] = 0;
}

const uint32_t *rt_evicted_list(struct runtime_state *rt, uint32_t s, uint32_t *n)
{
	uint32_t *list = rt->en + rt->en_off[s];
	if (!rt->en_valid[s]) {
		uint32_t stamp = rt_next_stamp(&rt->stamp_a, rt->mark_a, rt->s->n_storages), k = 0;
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
		rt->en_len[s] = k;
		rt->en_valid[s] = 1;
	}
	*n = rt->en_len[s];
	return list;
}

