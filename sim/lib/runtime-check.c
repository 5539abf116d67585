/*
 * runtime-check.c: check mode (runtime_config.check): after every command,
 * the invariants of runtime-state.h are verified, and samples of the kept
 * state (evicted-neighbour lists, memoized reaches) are compared with fresh
 * walks. A failure is a bug (rs_bug, exit 70).
 */
#include <stdlib.h>
#include <string.h>

#include "runtime-state.h"

/* Check mode: memoized reach row d of x (if valid, and its sums if kept)
 * against a fresh walk of the current graph. */
static void check_reach_row(struct runtime_state *rt, int d, uint32_t x)
{
	const size_t n = rt->s->n_storages;
	const uint32_t w = rt->rw;
	if (!rt->rvalid[d * n + x])
		return;
	const uint32_t *lists = d ? rt->srev : rt->sfwd;
	const uint32_t *offs = d ? rt->srev_off : rt->sfwd_off;
	const uint32_t *lens = d ? rt->n_srev : rt->n_sfwd;
	uint64_t *fresh = xcalloc(2 * w, sizeof *fresh);
	uint64_t acc = 0;
	int64_t comp = 0;
	size_t b = rt->stk_len;
	rt_bit_set(fresh, x);
	for (uint32_t y = x;;) {
		acc += lens[y];
		comp += rt->key[y].compute;
		for (uint32_t j = 0; j < lens[y]; j++) {
			uint32_t v = lists[offs[y] + j];
			if (rt->tag[v] & 1) {
				rt_bit_set(fresh + w, v);
			} else if (!rt_bit_has(fresh, v)) {
				rt_bit_set(fresh, v);
				rt_push(rt, v);
			}
		}
		if (rt->stk_len == b)
			break;
		y = rt->stk[--rt->stk_len];
	}
	if (memcmp(fresh, rt->rrow + (d * n + x) * 2 * w, 2 * w * sizeof *fresh))
		rt_bug_at(rt, d ? "a memoized reverse reach is stale" : "a memoized forward reach is stale", x);
	if (rt->rsummed[d * n + x] && (rt->racc[d * n + x] != acc || rt->rcomp[d * n + x] != comp))
		rt_bug_at(rt, "a memoized reach's sums are stale", x);
	free(fresh);
}

void rt_check_state(struct runtime_state *rt)
{
	const struct schedule *sc = rt->s;
	uint64_t mem = 0;
	size_t in_pool = 0;
	for (size_t i = 0; i < sc->n_storages; i++) {
		const struct rt_storage *x = &rt->st[i];
		if ((rt->tag[i] & 1))
			mem += rt->key[i].size;
		/* V1: banishing drops a pinned storage's lock but not its pin, and
		 * a banished storage can come back as the sibling of a
		 * rematerialized output; it then joins the pool unlocked, pin and
		 * all, as in simrd (same numbers). */
		bool should = (rt->tag[i] & 1) && x->ref_int == 0 && (!x->pinned || x->banished);
		if (x->in_pool && (rt->pk_size[x->pool_pos] != rt->key[i].size ||
				   rt->pk_compute[x->pool_pos] != rt->key[i].compute ||
				   rt->pk_last[x->pool_pos] != rt->key[i].last))
			rt_bug_at(rt, "the pool's copy of a key is stale", (uint32_t)i);
		if (should != x->in_pool)
			rt_bug_at(rt, should ? "a material unlocked storage is not in the pool"
					  : "the pool holds a locked, pinned or evicted storage",
			       (uint32_t)i);
		in_pool += x->in_pool;
	}
	if (in_pool != rt->pool_len)
		rs_bug("command %zu: pool length %zu, %zu members", rt->cmd, rt->pool_len, in_pool);
	if (mem != rt->memory)
		rs_bug("command %zu: memory in use %llu, material storages hold %llu", rt->cmd,
		       (unsigned long long)rt->memory, (unsigned long long)mem);
	if (rt->memory > rt->budget)
		rs_bug("command %zu: memory in use %llu over the budget %llu", rt->cmd,
		       (unsigned long long)rt->memory, (unsigned long long)rt->budget);
	/* A few kept evicted-neighbour lists per command, against a fresh
	 * walk (a stale list stays stale until cleared, so sampling finds it). */
	if (rt->eqclass) {
		for (uint32_t k = 0; k < 4; k++) {
			uint32_t x = (uint32_t)((rt->cmd * 4 + k) * 7919u % sc->n_storages);
			if (!rt->en_len[x])
				continue;
			uint32_t n = rt->en_len[x] - 1;
			uint32_t *kept = xmalloc((n + 1) * sizeof *kept);
			memcpy(kept, rt->en + rt_en_off(rt, x), n * sizeof *kept);
			rt->en_len[x] = 0;
			uint32_t m;
			const uint32_t *fresh = rt_evicted_list(rt, x, &m);
			if (m != n || memcmp(kept, fresh, n * sizeof *kept))
				rt_bug_at(rt, "a kept evicted-neighbour list is stale", x);
			free(kept);
		}
	}
	/* A few memoized reaches per command (all of them would be quadratic):
	 * a stale row stays stale until forgotten, so sampling finds it. */
	if (rt->rw) {
		for (uint32_t k = 0; k < 2; k++) {
			uint32_t x = (uint32_t)((rt->cmd * 2 + k) * 7919u % sc->n_storages);
			check_reach_row(rt, 0, x);
			check_reach_row(rt, 1, x);
		}
	}
}

