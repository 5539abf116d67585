/*
 * policy.h: what an eviction policy (heuristics.c) may ask of the runtime.
 * A heuristic gets the replay as a `struct policy *`, a type it cannot look
 * into, and sees it through these queries only, so that the runtime's
 * memory layout (the pool and its hole encoding, the region and class
 * representations, the parts of struct runtime_state and who owns them)
 * can change without touching a heuristic. heuristics.c defines
 * POLICY_ONLY before including this header, which then poisons the name
 * runtime_state (and this header's two casts to it) for the rest of that
 * file: neither `rt->pool` nor a cast to the state compiles there
 * (tests/policy-boundary.sh holds probes to that).
 *
 * Every query is static inline over the runtime's own memory, so the
 * scoring loops compile to what they were before the interface.
 *
 * What a policy sees:
 *  - the pool: pol_pool_end() slots, of which pol_pool_len() hold members
 *    (pol_pool_member(rt, i), POL_HOLE where a member left), in joining
 *    order; the k-th member (pol_pool_nth());
 *  - a storage's key (struct rt_key: size, compute, last; RT_NEVER for a
 *    last access that never happened): pol_key(); the clock;
 *  - maintained state, each under the `needs` flag (heuristics.h) that
 *    makes a runtime keep it: the compute of a storage's evicted regions
 *    (pol_region_compute(), NEEDS_REGIONS), the values of the classes of
 *    its evicted neighbours (pol_class_sum(), NEEDS_EQCLASS), the rebuilt
 *    neighbourhood of DTRUnopt (pol_unopt_neighbourhood(), NEEDS_UNOPT),
 *    the DTR prototype's choice over its own candidates
 *    (pol_proto_choose(), NEEDS_PROTO);
 *  - the counters: pol_count() for evaluations and metadata accesses;
 *  - the seeded draws of the random heuristics (pol_draw()).
 *
 * Exact arithmetic and constants come from runtime-arith.h as they are:
 * struct rt_key, struct rt_frac (a cost as the reference's fraction) and
 * rt_frac_value, rt_frac_surely_above, RT_NEVER, RT_NONE (no choice),
 * rt_wadd (wrapping sums), rt_div (correctly rounded division).
 *
 * A new maintained state: keep it in a part of struct runtime_state owned
 * by its runtime-*.c file, add a `needs` flag (heuristics.h) and the
 * runtimes' `maintains` (runtimes.c), and here one query that reads it,
 * with the accesses the reference counts for it
 * (docs/adding-a-heuristic.md).
 */
#ifndef REMATSIM_POLICY_H
#define REMATSIM_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "hash.h"
#include "pyrandom.h"
#include "runtime-arith.h"
/* SPEED: the queries below are static inline over the runtime's memory, so
 * this header needs the state's layout and the part headers of what they
 * read; a heuristic still cannot name any of it (POLICY_ONLY, below).
 * Measured (issue 39, docs/house-sizes.md): the same queries out of line
 * (policy.h on runtime-arith.h alone, their bodies in a .c file) left DTR
 * within noise but made every row of the class family slower, a call per
 * query per member scored: DTREqClass 1.05-1.14x, AbEqStale 1.06-1.13x
 * (rematsim bench --against, least of 15, on the Unrolled GAN, DenseNet
 * and TreeLSTM logs). */
#include "runtime-choose.h"
#include "runtime-classes.h"
#include "runtime-future.h"
#include "runtime-proto.h"
#include "runtime-regions.h"
#include "runtime-state.h"
#include "runtime-unopt.h"

/* A slot of the pool without a member. */
#define POL_HOLE RT_NONE

static inline const struct runtime_state *pol_state(const struct policy *p)
{
	return (const struct runtime_state *)(const void *)p;
}

static inline struct runtime_state *pol_state_mut(struct policy *p)
{
	return (struct runtime_state *)(void *)p;
}

/* ---- the pool ---------------------------------------------------------- */

/** Slots in use (members and holes): members lie at [0, pol_pool_end). */
static inline uint32_t pol_pool_end(const struct policy *p)
{
	return pol_state(p)->pool.end;
}

/** Members of the pool (never 0 when a heuristic chooses). */
static inline uint64_t pol_pool_len(const struct policy *p)
{
	return pol_state(p)->pool.len;
}

/** The storage in slot i, or POL_HOLE. */
static inline uint32_t pol_pool_member(const struct policy *p, uint32_t i)
{
	return pol_state(p)->pool.slot[i];
}

/** The k-th member (0-based) in slot order; k < pol_pool_len(). */
static inline uint32_t pol_pool_nth(const struct policy *p, uint64_t k)
{
	const uint32_t *slot = pol_state(p)->pool.slot;
	for (uint32_t i = 0;; i++)
		if (slot[i] != POL_HOLE && k-- == 0)
			return slot[i];
}

/* ---- a storage, the clock ---------------------------------------------- */

static inline const struct rt_key *pol_key(const struct policy *p, uint32_t s)
{
	return &pol_state(p)->key[s];
}

static inline int64_t pol_clock(const struct policy *p)
{
	return pol_state(p)->clock;
}

/* ---- counters, generator ------------------------------------------------- */

/** Count evals evaluations and accesses metadata accesses. */
static inline void pol_count(struct policy *p, uint64_t evals, uint64_t accesses)
{
	struct runtime_result *res = pol_state_mut(p)->res;
	res->heuristic_evals += evals;
	res->heuristic_accesses += accesses;
}

/** The random heuristics' draw: a uniform index below n (n >= 1), from the
 * seeded splitmix64, or as Python's randrange(0, n) (python_random). */
static inline uint64_t pol_draw(struct policy *p, uint64_t n)
{
	return rt_draw(pol_state_mut(p), n);
}

/* ---- maintained state ---------------------------------------------------- */

/** NEEDS_REGIONS: the compute of s's evicted region, forward (its
 * descendants' side) or reverse (its ancestors'). */
static inline int64_t pol_region_compute(const struct policy *p, uint32_t s, bool reverse)
{
	return rt_region_compute(pol_state(p), s, reverse);
}

/** NEEDS_EQCLASS: start plus the values of the distinct union-find classes
 * of s's distinct evicted neighbours, with the reference's accesses
 * (runtime-classes.c). */
static inline int64_t pol_class_sum(struct policy *p, uint32_t s, int64_t start)
{
	return rt_class_sum(pol_state_mut(p), s, start);
}

/** NEEDS_UNOPT: both of s's evicted regions rebuilt from scratch (their
 * accesses counted), their distinct interior storages folded into
 * *compute (added) and *last (the latest access) (runtime-regions.c). */
static inline void pol_unopt_neighbourhood(struct policy *p, uint32_t s, int64_t *compute, int64_t *last)
{
	rt_unopt_neighbourhood(pol_state_mut(p), s, compute, last);
}

/** NEEDS_PROTO: the DTR prototype's choice among its own candidates,
 * counted as it counts (runtime-proto.c); POL_HOLE when none can go. */
static inline uint32_t pol_proto_choose(struct policy *p)
{
	return rt_proto_choose(pol_state_mut(p));
}

/** NEEDS_FUTURE: commands from now to storage s's next use, plus one; 0
 * when nothing uses it again (runtime-future.c). Offline: it reads the
 * schedule ahead of the replay. */
static inline uint64_t pol_next_use(struct policy *p, uint32_t s)
{
	return rt_future_distance(pol_state_mut(p), s);
}

/* heuristics.c: from here on, the state cannot be named, nor reached
 * through the two casts above (GCC and clang both honour this pragma; it
 * affects only the tokens after it, so the queries above still compile),
 * and a struct policy has no fields to read. A policy that needs more adds
 * a query here. (A cast through void * to the runtime's own functions
 * would pass the compiler, as it would anywhere in C: review refuses it.) */
#ifdef POLICY_ONLY
#pragma GCC poison runtime_state pol_state pol_state_mut
#endif

#endif
