/*
 * runtime-state.h: the state of one replay, shared by runtime.c (which
 * drives it) and heuristics.c (whose cost functions read it). Private to
 * the simulator: users go through runtime.h.
 *
 * Invariants (checked after every command in check mode):
 *  - memory == sum of the sizes of material storages;
 *  - a storage is in the pool iff it is material, unlocked (ref_int == 0)
 *    and not pinned; the pool keeps the order in which storages joined it;
 *  - a storage's tensors and a tensor's children exist as prefixes of the
 *    schedule's lists (counts n_tensors / n_children), except that the
 *    banishing runtime (V1) deletes edges, so children and parents are
 *    mutable copies here.
 */
#ifndef REMATSIM_RUNTIME_STATE_H
#define REMATSIM_RUNTIME_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "idset.h"
#include "runtime.h"
#include "schedule.h"

/* Hot loops over bitsets and key arrays: on x86-64 with GCC's function
 * multiversioning (ifunc, glibc) also built for x86-64-v3 (AVX2, BMI:
 * wider or-ing, one-instruction bit walks, 4-lane scans), the loader
 * picking what the CPU has; 10-15% on the region heuristics. Elsewhere,
 * or with meson's -Dportable=true (which CI also tests): one portable
 * build. A speed choice only: both builds give the same numbers. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__GLIBC__) && \
	!defined(REMATSIM_PORTABLE)
#define RT_WIDE __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define RT_WIDE
#endif

#define RT_NONE UINT32_MAX
#define RT_BROKEN 100 /* a stop code beside OUTCOME_OOM, OUTCOME_THRASH */
#define RT_NEVER INT64_MIN /* last access "-inf" */
/* A run whose remat compute passes this stops as thrash even with no
 * overhead limit: with the reader's bound on a log's total time (2^60 ns)
 * the clock then stays within 64 bits. */
#define RT_REMAT_CAP (INT64_C(1) << 61)

/* A region's compute can only grow by absorbs (the reference adds the
 * absorbed storage even if it is already inside), without bound in
 * principle: such sums wrap instead of overflowing (never in a real log). */
static inline int64_t rt_wadd(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* Keys within 2^50 are exact as doubles, and so are their reciprocals'
 * orders and ties (a relative gap of over 2^-50 between 1/a and 1/b,
 * wider than an ulp): see the integer scans in heuristics.c. */
#define RT_NARROW (INT64_C(1) << 50)

/* The evicted neighbourhood of a storage in one direction (region.py). */
struct region {
	uint32_t *in;      /* interior: evicted storages reachable through evicted ones */
	uint32_t *fr;      /* frontier: material storages at its edge */
	uint32_t n_in, cap_in, n_fr, cap_fr; /* both lists hold distinct ids */
	int64_t compute;   /* sum of interior computes when they joined */
	uint32_t *hs;      /* interior membership index (hash, RT_NONE empty) */
	uint32_t hcap;     /* its slots, a power of two */
	bool hvalid;       /* it matches `in` (built lazily by absorbs) */
	/* Where the runtime keeps the reach memo (rw > 0), the interior and
	 * frontier are these bitsets of rw words instead of the lists. */
	uint64_t *bin, *bfr;
};

/* What costs read, apart from the rest for a compact scan. */
struct rt_key {
	uint64_t size;        /* bytes */
	int64_t compute;      /* cost of the distinct ops of its tensors so far */
	int64_t last;         /* last access (the reference's last_access_int) */
};

struct rt_storage {
	uint32_t ref_int;     /* locks */
	uint32_t ref_ext;     /* external (model) references */
	uint32_t n_tensors;   /* its tensors so far (prefix of the schedule's) */
	uint32_t pool_pos;    /* index in the pool array while in_pool */
	uint32_t ecn;         /* union-find node, RT_NONE when material */
	uint32_t deps;        /* V1: number of evicted dependents */
	bool pinned, in_pool, banished;
};

struct runtime_state {
	const struct schedule *s;
	const struct runtime_config *cfg;
	const struct heuristic *h;
	bool v1, eager, regions, eqclass;

	struct rt_storage *st;
	struct rt_key *key;
	/* Per storage: bit 0 material; the rest a stamp of region rebuilds. */
	uint32_t *tag;
	uint32_t tag_stamp;
	uint8_t *defined;        /* per tensor */
	const uint32_t *ts;      /* per tensor, its storage (the schedule's) */
	/* Parents per tensor: offsets into par, counts; par_s holds the
	 * storages of par, side by side. */
	const uint32_t *par, *par_off, *n_par, *par_s;
	/* Per storage, the storages of all its tensors' children (sfwd) and
	 * parents (srev) so far: what regions and evicted neighbours walk. */
	const uint32_t *sfwd, *sfwd_off, *srev, *srev_off;
	uint32_t *n_sfwd, *n_srev;
	/* The lists above are the schedule's own (its edges so far are a
	 * prefix of each list, the live lengths are ours), except on V1, whose
	 * banishing deletes edges: there they are these copies, which the run
	 * appends to as ops come and deletes from (NULL on other runtimes).
	 * Only V1 reads a tensor's children: w_chi at tensors[t].children in
	 * the schedule, n_chi[t] of them so far. */
	uint32_t *w_par, *w_par_off, *w_n_par, *w_par_s, *w_chi, *w_sfwd, *w_srev;
	uint32_t *n_chi;
	struct region *reg;      /* 2 per storage: [2s] forward, [2s+1] reverse */
	/* Reach memo for the rebuilds that follow one computation (runtime.c),
	 * per direction d and evicted storage x at [d * n_storages + x]: the
	 * evicted storages reachable from x through evicted ones (x included)
	 * and the material ones at their edge, as bitsets of rw words each.
	 * A row is kept across batches while rvalid says so: any change to a
	 * storage (materiality, edges, compute) forgets the rows that may hold
	 * it (reach_forget). rw == 0: no memo. */
	uint32_t rw, fill;
	uint64_t bwalked[2], bwalk_max[2]; /* this batch's walks: edges, most */
	uint64_t *rrow, *rbits; /* reach rows: interior then frontier words */
	uint8_t *rvalid, *rsummed; /* row valid; its sums (racc, rcomp) too */
	uint32_t *rseen, *ridx, *rlow; /* Tarjan's: fill stamp, index, low */
	uint64_t *racc;  /* per reach, once summed: its edges, then its compute */
	int64_t *rcomp;
	uint32_t *dfs, *dfs_pos, *scc; /* Tarjan's stacks (n_storages each) */

	/* Union-find classes (eqclass.py): parent (RT_NONE: root), value. */
	uint32_t *uf_parent;
	int64_t *uf_value;
	/* Per storage, its distinct evicted neighbours (itself aside) in the
	 * order a walk of its reverse then forward list meets them, kept while
	 * en_valid says so: a neighbour's materiality changing clears it
	 * (en_changed in runtime.c; new edges need no clearing, see
	 * cmd_compute). At en_off[s], room for all
	 * of s's edges; en_len[s] used. Class merges on eviction and the eq
	 * costs both read it (rt_evicted_list). */
	uint32_t *en, *en_off, *en_len;
	uint8_t *en_valid;
	size_t uf_len, uf_cap;

	/* V1 evicted dependents: (storage << 32 | tensor) pairs. */
	struct u64set deps;

	/* The pool in joining order, with holes (RT_NONE) where members left. */
	uint32_t *pool;
	/* The members' keys in pool order, a field per array (pk_size[i] ==
	 * key[pool[i]].size for each member, and so on): what the scans read,
	 * sequentially. A hole holds size 0, compute and last INT64_MAX, which
	 * a minimum over compute or last, or a maximum over size, passes by. */
	uint64_t *pk_size;
	int64_t *pk_compute, *pk_last;
	/* Some key may leave the range where the integer scans order and tie
	 * as the reference's doubles do (a compute outside +-RT_NARROW, a size
	 * over it), known from the schedule when the run starts; the last
	 * accesses are clock readings, which the scans check. */
	bool wide;
	uint32_t pool_end, pool_cap; /* slots used (members + holes), allocated */
	size_t pool_len;             /* members */

	/* Scratch: a stack of ids shared by recursion levels, and stamps. */
	uint32_t *stk;
	size_t stk_len, stk_cap;
	uint32_t *mark_a, *mark_b, *mark_c, stamp_a, stamp_b, stamp_c;
	struct region scratch_fwd, scratch_rev; /* DTRUnopt's rebuilt regions */

	uint64_t budget;
	uint64_t memory;
	int64_t clock;
	uint64_t rng; /* splitmix64 state */

	/* An absorb found regions out of step with frontiers (simrd's
	 * assertion): the run stops with an error (RT_BROKEN). */
	bool broken;
	uint32_t broken_storage;

	struct runtime_result *res;
	uint64_t bottleneck;
	size_t cmd;
};

static inline uint32_t rt_storage_of(const struct runtime_state *rt, uint32_t t)
{
	return rt->ts[t];
}

/** Union-find root of node x, compressing the path; counts an access per node. */
uint32_t rt_uf_find(struct runtime_state *rt, uint32_t x);
/** The distinct evicted neighbours of s (kept lists, see en): *n of them. */
const uint32_t *rt_evicted_list(struct runtime_state *rt, uint32_t s, uint32_t *n);
/** Rebuild region r of base storage `base` (reverse: through parents). */
void rt_region_rebuild(struct runtime_state *rt, struct region *r, uint32_t base, bool reverse);

/** Correctly rounded num / den (as Python's int / int). den > 0. */
double rt_div(int64_t num, unsigned __int128 den);

#endif
