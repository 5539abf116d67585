/*
 * policy.h: what an eviction policy (heuristics.c) may ask of the runtime.
 * A cost function or a scan sees the replay through these queries only,
 * never struct runtime_state's fields, so that the runtime's memory layout
 * (the pool's hole encoding, the region and class representations, the
 * scratch space) can change without touching a heuristic. heuristics.c
 * defines POLICY_ONLY before including this header, which then poisons the
 * state's field names for the rest of that file: a direct read does not
 * compile.
 *
 * Every query is static inline over the runtime's own memory, so the
 * scans compile to the loops they were before the interface: a key
 * array is handed out as a pointer and read in place, never copied or
 * fetched member by member through a call.
 *
 * What a policy sees:
 *  - the pool: pol_pool_end() slots, of which pol_pool_len() hold members
 *    (pol_pool_member(rt, i), POL_HOLE where a member left), and the
 *    members' keys in slot order as three arrays (pol_pool_keys()), a hole
 *    holding size 0, compute and last INT64_MAX;
 *  - a storage's key (struct rt_key: size, compute, last; RT_NEVER for a
 *    last access that never happened): pol_key();
 *  - the clock, and whether the keys are narrow enough for the integer
 *    and double scans (pol_keys_wide(), pol_keys_narrow());
 *  - maintained state, each under the `needs` flag (heuristics.h) that
 *    makes a runtime keep it: the compute of a storage's evicted regions
 *    (pol_region_compute(), NEEDS_REGIONS), the values of the classes of
 *    its evicted neighbours (pol_class_sum(), NEEDS_EQCLASS), the rebuilt
 *    neighbourhood of DTRUnopt (pol_unopt_neighbourhood(), NEEDS_UNOPT);
 *  - the counters: pol_count() for evaluations and metadata accesses;
 *  - the seeded draws of the random heuristics (pol_draw()).
 *
 * Exact arithmetic and constants come from runtime-state.h as they are:
 * struct rt_key, RT_NEVER, RT_NONE (no choice), RT_NARROW, RT_WIDE (the
 * x86-64-v3 clones), rt_wadd (wrapping sums), rt_div (correctly rounded
 * division).
 *
 * A new maintained state: keep it in struct runtime_state and its
 * runtime-*.c file, add a `needs` flag (heuristics.h) and the runtimes'
 * `maintains` (runtimes.c), and here one query that reads it, with the
 * accesses the reference counts for it (docs/adding-a-heuristic.md).
 */
#ifndef REMATSIM_POLICY_H
#define REMATSIM_POLICY_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "hash.h"
#include "pyrandom.h"
#include "runtime-state.h"

/* A slot of the pool without a member. */
#define POL_HOLE RT_NONE

/* ---- the pool ---------------------------------------------------------- */

/** Slots in use (members and holes): members lie at [0, pol_pool_end). */
static inline uint32_t pol_pool_end(const struct runtime_state *rt)
{
	return rt->pool_end;
}

/** Members of the pool (never 0 when a heuristic chooses). */
static inline uint64_t pol_pool_len(const struct runtime_state *rt)
{
	return rt->pool_len;
}

/** The storage in slot i, or POL_HOLE. */
static inline uint32_t pol_pool_member(const struct runtime_state *rt, uint32_t i)
{
	return rt->pool[i];
}

/** Members in slots [0, i]: the evaluations of a scan that stopped at i. */
static inline uint64_t pol_pool_members_upto(const struct runtime_state *rt, uint32_t i)
{
	uint64_t n = 0;
	for (uint32_t j = 0; j <= i; j++)
		n += rt->pool[j] != POL_HOLE;
	return n;
}

/** The k-th member (0-based) in slot order; k < pol_pool_len(). */
static inline uint32_t pol_pool_nth(const struct runtime_state *rt, uint64_t k)
{
	for (uint32_t i = 0;; i++)
		if (rt->pool[i] != POL_HOLE && k-- == 0)
			return rt->pool[i];
}

/* The members' keys in slot order, read in place (size[i] is
 * pol_key(rt, pol_pool_member(rt, i))->size, and so on). */
struct pol_keys {
	const uint64_t *size;
	const int64_t *compute, *last;
};

static inline struct pol_keys pol_pool_keys(const struct runtime_state *rt)
{
	return (struct pol_keys){rt->pk_size, rt->pk_compute, rt->pk_last};
}

/* ---- a storage, the clock ---------------------------------------------- */

static inline const struct rt_key *pol_key(const struct runtime_state *rt, uint32_t s)
{
	return &rt->key[s];
}

static inline int64_t pol_clock(const struct runtime_state *rt)
{
	return rt->clock;
}

/** SPEED-ONLY (docs/architecture.md): whether some key may leave the range
 * where the integer scans order and tie as the reference's exact costs (a
 * compute outside +-RT_NARROW, a size over it; known from the schedule). */
static inline bool pol_keys_wide(const struct runtime_state *rt)
{
	return rt->wide;
}

/** SPEED-ONLY: whether every key and the clock are within RT_NARROW, where
 * the integer and double scans of last accesses and staleness are exact;
 * otherwise a scan takes the exact path. */
static inline bool pol_keys_narrow(const struct runtime_state *rt)
{
	return !rt->wide && rt->clock >= 0 && rt->clock <= RT_NARROW;
}

/* ---- counters, generator ------------------------------------------------- */

/** Count evals evaluations and accesses metadata accesses. */
static inline void pol_count(struct runtime_state *rt, uint64_t evals, uint64_t accesses)
{
	rt->res->heuristic_evals += evals;
	rt->res->heuristic_accesses += accesses;
}

/** The random heuristics' draw: a uniform index below n (n >= 1), from the
 * seeded splitmix64, or as Python's randrange(0, n) (python_random). */
static inline uint64_t pol_draw(struct runtime_state *rt, uint64_t n)
{
	if (rt->pyrng)
		return py_random_below(rt->pyrng, n);
	return splitmix64_next(&rt->rng) % n;
}

/* ---- maintained state ---------------------------------------------------- */

/** NEEDS_REGIONS: the compute of s's evicted region, forward (its
 * descendants' side) or reverse (its ancestors'). */
static inline int64_t pol_region_compute(const struct runtime_state *rt, uint32_t s, bool reverse)
{
	const struct region *r = rt_regions_peek(rt, s);
	return r ? r[reverse].compute : 0;
}

/**
 * NEEDS_EQCLASS: start plus the values of the distinct union-find classes
 * of s's distinct evicted neighbours, added in the order they are met. Each neighbour's class is found in
 * turn (the reference's order, so the same path compression), the distinct
 * roots kept on the scratch stack; counts the reference's accesses: one per
 * edge of s walked, one per node on each find's path.
 */
static inline int64_t pol_class_sum(struct runtime_state *rt, uint32_t s, int64_t start)
{
	int64_t sum = start;
	uint64_t acc = (uint64_t)rt->n_srev[s] + rt->n_sfwd[s];
	uint32_t n;
	const uint32_t *nb = rt_evicted_list(rt, s, &n);
	if (rt->stk_cap - rt->stk_len < n)
		XGROW(rt->stk, rt->stk_cap, rt->stk_len + n);
	uint32_t *roots = rt->stk + rt->stk_len, nr = 0;
	uint32_t *parent = rt->uf_parent;
	const struct rt_storage *st = rt->st;
	for (uint32_t j = 0; j < n; j++) {
		/* rt_uf_find, inlined: one access per node on the path */
		uint32_t y = st[nb[j]].ecn, r = y;
		acc++;
		while (parent[r] != RT_NONE) {
			r = parent[r];
			acc++;
		}
		while (y != r && parent[y] != r) {
			uint32_t next = parent[y];
			parent[y] = r;
			y = next;
		}
		bool seen = false;
		for (uint32_t k = 0; k < nr && !seen; k++)
			seen = roots[k] == r;
		if (!seen) {
			roots[nr++] = r;
			sum += rt->uf_value[r];
		}
	}
	rt->res->heuristic_accesses += acc;
	return sum;
}

/**
 * NEEDS_UNOPT: rebuild both of s's evicted regions from scratch (counting
 * the rebuilds' accesses) and fold their distinct interior storages into
 * *compute (added) and *last (the latest access).
 */
static inline void pol_unopt_neighbourhood(struct runtime_state *rt, uint32_t s, int64_t *compute, int64_t *last)
{
	struct region *f = &rt->scratch_fwd, *r = &rt->scratch_rev;
	rt_region_rebuild(rt, f, s, false);
	rt_region_rebuild(rt, r, s, true);
	uint32_t stamp = ++rt->stamp_c;
	if (stamp == 0) {
		memset(rt->mark_c, 0, rt->s->n_storages * sizeof *rt->mark_c);
		stamp = rt->stamp_c = 1;
	}
	for (int k = 0; k < 2; k++) {
		const struct region *g = k ? r : f;
		for (uint32_t i = 0; i < g->n_in; i++) {
			uint32_t v = g->in[i];
			if (rt->mark_c[v] == stamp)
				continue;
			rt->mark_c[v] = stamp;
			*compute += rt->key[v].compute;
			if (rt->key[v].last > *last)
				*last = rt->key[v].last;
		}
	}
}

/* heuristics.c: from here on, the state's fields are out of reach (GCC and
 * clang both honour this pragma; it affects only the tokens after it, so
 * the queries above still compile). A policy that needs more adds a query
 * here rather than reading a field. */
#ifdef POLICY_ONLY
/* All of struct runtime_state's fields but s, h and clock (names too
 * common to poison; heuristics.c reads none of them through rt). */
#pragma GCC poison cfg v1 eager regions eqclass runs fr2 fr2_len fr2_cap st key tag tag_stamp
#pragma GCC poison ts par par_s sfwd sfwd_off srev srev_off n_sfwd n_srev
#pragma GCC poison w_par w_par_off w_n_par w_par_s w_chi w_chi_off w_sfwd w_srev n_chi reg rw fill
#pragma GCC poison bwalked bwalk_max rrow rbits rvalid rsummed rseen ridx rlow racc rcomp
#pragma GCC poison dfs dfs_pos scc uf_parent uf_value en en_len en_scan uf_len uf_cap
#pragma GCC poison uf_free uf_scan uf_mark uf_mark_words uf_room
#pragma GCC poison deps n_deps pool pk_size pk_compute pk_last wide pool_end pool_cap pool_len
#pragma GCC poison stk stk_len stk_cap mf mf_len mf_cap mark_a mark_b mark_c stamp_a stamp_b
#pragma GCC poison stamp_c scratch_fwd scratch_rev budget memory rng pyrng broken broken_storage
#pragma GCC poison res bottleneck cmd
#endif

#endif
