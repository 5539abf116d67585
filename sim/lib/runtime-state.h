/*
 * runtime-state.h: the state of one replay, shared by the runtime*.c files
 * (which drive it) and heuristics.c (whose cost functions read it). Private to
 * the simulator: users go through runtime.h.
 *
 * Invariants (checked after every command in check mode):
 *  - memory == sum of the sizes of material storages;
 *  - a storage is in the pool iff it is material, unlocked (ref_int == 0)
 *    and not pinned; the pool keeps the order in which storages joined it;
 *  - a storage's tensors and its storage-level edges exist as prefixes of
 *    the schedule's lists (counts n_tensors, n_sfwd, n_srev), except that
 *    the banishing runtime (V1) deletes edges, so its edge lists, children
 *    and parents are mutable copies here.
 */
#ifndef REMATSIM_RUNTIME_STATE_H
#define REMATSIM_RUNTIME_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "idset.h"
#include "iset.h"
#include "runtime.h"
#include "schedule.h"
#include "util.h"

/* SPEED-ONLY (docs/architecture.md). Hot loops over bitsets and key arrays: on x86-64 with GCC's function
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
	/* Where regions are kept as runs (runs), these sets instead (NULL
	 * while its storage is evicted). */
	struct rregion *rr;
};

/* A region as runs of ids (runtime-regions.c): interior and frontier, and
 * the epoch (runtime_state.epoch) as of which the interior is the exact
 * reach of its base, window edges included (see win_t). */
struct rregion {
	struct iset in, fr;
	uint64_t epoch;
	/* It may not be its base's reach, as the reference's may not: an op
	 * gave its base an edge to a storage already material, which no
	 * rebuild followed, or it absorbed such a region: its next rebuild
	 * walks. */
	bool stale;
	struct rregion *next_free;
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
	bool pinned, in_pool, banished; /* (24 bytes in all) */
};

/* One pending materialize (runtime-commands.c): tensor t, whose n_undef
 * undefined parents wait on the id stack from b; the first i of them are
 * done, the i-th is being rematerialized while waiting. */
struct rt_frame {
	uint32_t t;
	bool remat, waiting;
	size_t b, n_undef, i;
};

/*
 * The DTR prototype's view of the replay (runtime-proto.c; heuristics.h,
 * struct proto_rules): its candidate list `aps` as CheckpointPool keeps it
 * (appended on (re)materialization, an entry removed by swapping the last
 * one in when a scan meets it evicted or takes it: so it may hold evicted
 * or locked storages, and a storage twice), and, for the op_classes rule,
 * its union-find classes with one node per op.
 */
struct rt_proto {
	bool on;                   /* the heuristic needs it */
	bool sampling, ignore_small, after, op_classes; /* the rules in force */
	uint32_t *aps;             /* the candidates, in the prototype's order */
	size_t n_aps, cap_aps;
	uint8_t *fresh;            /* per storage: made material by the op now
				    * running, not yet a candidate */
	unsigned __int128 size_sum; /* of all storages (ignore_small's mean) */
	uint64_t size_count;
	uint32_t *op_node;         /* per op: its class node while an output is evicted */
	uint32_t *st_node;         /* per storage: its class node while evicted */
	uint32_t *uf_parent;       /* class nodes: parent (RT_NONE: a root) ... */
	int64_t *uf_value;         /* ... and a root's compute */
	uint32_t *seen;            /* per node: a cost's stamp (distinct nodes) */
	uint32_t stamp;
	size_t n_nodes, cap_nodes;
};

struct runtime_state {
	const struct schedule *s;
	const struct runtime_config *cfg;
	const struct heuristic *h;
	bool v1, eager, regions, eqclass;
	/* Regions as compressed sets (runtime-regions.c): past
	 * RMEMO_MAX_STORAGES storages, or forced by runtime_config.run_regions. */
	bool runs;
	/* Runs regions: Fenwick trees of the storages' current forward and
	 * reverse edge counts and computes (sums over runs); released regions
	 * for reuse; scratch sets; the storages of the batch being computed
	 * (stk[sb, se)); the epoch, one per compute command; and its window:
	 * while the command's op waits for its arguments, its new edges
	 * (arguments to outputs) lead to storages not yet material, which a
	 * region made before win_t may lack. */
	struct fenwick32 fw_len[2];
	struct fenwick fw_comp;
	struct rregion *rr_free;
	struct iset is_tmp, is_tmp2;
	uint32_t *srt; /* sorting scratch */
	size_t srt_cap;
	size_t sb, se;
	uint64_t epoch, win_t;
	/* Regions made before this epoch may lack an absorb: a storage was
	 * evicted whose stale region listed who absorbs (see rregion.stale). */
	uint64_t taint_t;
	uint32_t win_op;
	bool win;
	uint32_t *fr2;  /* scratch ids: a compressed rebuild's frontier, an absorb's new members */
	size_t fr2_len, fr2_cap;

	struct rt_storage *st;
	struct rt_key *key;
	/* Per storage: bit 0 material; the rest a stamp of region rebuilds. */
	uint32_t *tag;
	uint32_t tag_stamp;
	uint8_t *defined;        /* per tensor */
	const uint32_t *ts;      /* per tensor, its storage (the schedule's) */
	/* Parents: tensor t's are par[rt_par_off(rt, t) + j] for j below
	 * rt_n_par(rt, t) (its op's arguments, or V1's copies); par_s holds
	 * the storages of par, side by side. */
	const uint32_t *par, *par_s;
	/* Per storage, the storages of all its tensors' children (sfwd) and
	 * parents (srev) so far: what regions and evicted neighbours walk. */
	const uint32_t *sfwd, *sfwd_off, *srev, *srev_off;
	uint32_t *n_sfwd, *n_srev;
	/* The lists above are the schedule's own (its edges so far are a
	 * prefix of each list, the live lengths are ours), except on V1, whose
	 * banishing deletes edges: there they are these copies, which the run
	 * appends to as ops come and deletes from (NULL on other runtimes).
	 * Only V1 reads a tensor's children: w_chi at w_chi_off[t], n_chi[t]
	 * of them so far. */
	uint32_t *w_par, *w_par_off, *w_n_par, *w_par_s, *w_chi, *w_sfwd, *w_srev;
	uint32_t *w_chi_off, *n_chi;
	struct region *reg;      /* 2 per storage: [2s] forward, [2s+1] reverse (rt_regions) */
	uint32_t *reg_slot;      /* runs regions: per storage, its slot in reg or RT_NONE */
	uint32_t *slot_free;     /* slots given back */
	size_t n_slots, slot_cap, n_slot_free, slot_free_cap;
	/* Reach memo for the rebuilds that follow one computation (runtime-memo.c),
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

	/* Union-find classes (eqclass.py): parent (RT_NONE: root), value.
	 * A node is live while a storage's ecn or a live node's parent leads
	 * to it; the others (every rematerialization leaves some) are
	 * collected when the arena is full (rt_uf_collect) and reused from a
	 * free list linked through uf_parent (uf_free: its head). No find
	 * reaches a free node, so reuse changes no path and no count. */
	uint32_t *uf_parent;
	int64_t *uf_value;
	uint32_t uf_free;
	uint32_t uf_scan;  /* 1 + the highest storage that has had a node */
	uint64_t *uf_mark; /* rt_uf_collect's marks, a bit per node */
	size_t uf_mark_words;
	/* Per storage, its distinct evicted neighbours (itself aside) in the
	 * order a walk of its reverse then forward list meets them, kept while
	 * en_len[s] is not 0: a neighbour's materiality changing clears it
	 * (rt_en_changed in runtime-classes.c; new edges need no clearing, see
	 * cmd_compute). At rt_en_off(rt, s), room for all of s's edges;
	 * en_len[s] - 1 used. Class merges on eviction and the eq costs both
	 * read it (rt_evicted_list). */
	uint32_t *en, *en_len;
	bool en_scan; /* lists of up to 4 edges deduplicated without stamps */
	size_t uf_len, uf_cap; /* nodes used, and the arena's size (rt_uf_full) */
	size_t uf_room;        /* nodes the arrays have room for */

	/* V1 evicted dependents: (storage << 32 | tensor) pairs, and their
	 * number per storage (NULL on other runtimes). */
	struct u64set deps;
	uint32_t *n_deps;

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
	struct rt_frame *mf; /* materialize's frames (its depth first walk) */
	size_t mf_len, mf_cap;
	uint32_t *mark_a, *mark_b, *mark_c, stamp_a, stamp_b, stamp_c;
	struct region scratch_fwd, scratch_rev; /* DTRUnopt's rebuilt regions */

	uint64_t budget;
	uint64_t memory;
	int64_t clock;
	uint64_t rng; /* splitmix64 state */
	struct py_random *pyrng; /* cfg->python_random: Python's generator instead */

	/* An absorb found regions out of step with frontiers (simrd's
	 * assertion): the run stops with an error (RT_BROKEN). */
	bool broken;
	uint32_t broken_storage;

	struct runtime_result *res;
	uint64_t bottleneck;
	size_t cmd;

	/* DTRPrototype's state (NEEDS_PROTO), owned by runtime-proto.c. */
	struct rt_proto proto;
};

/* Where s's kept evicted-neighbour list starts in en: after the room of
 * the storages before it, as many as their edges in both directions. */
static inline size_t rt_en_off(const struct runtime_state *rt, uint32_t s)
{
	return (size_t)rt->sfwd_off[s] + rt->srev_off[s];
}

/* Where tensor t's parents start in par, and how many it has: its op's
 * arguments, except on V1, whose banishing edits a copy per tensor. */
static inline uint32_t rt_par_off(const struct runtime_state *rt, uint32_t t)
{
	return rt->v1 ? rt->w_par_off[t] : rt->s->ops[rt->s->tensors[t].op].args;
}

static inline uint32_t rt_n_par(const struct runtime_state *rt, uint32_t t)
{
	return rt->v1 ? rt->w_n_par[t] : rt->s->ops[rt->s->tensors[t].op].n_args;
}

/** Walk s's edges into its kept list (rt_evicted_list's slow path). */
const uint32_t *rt_evicted_list_fill(struct runtime_state *rt, uint32_t s, uint32_t *n);

/** The distinct evicted neighbours of s (kept lists, see en): *n of them;
 * inline for the eq costs, which mostly find the list kept. */
static inline const uint32_t *rt_evicted_list(struct runtime_state *rt, uint32_t s, uint32_t *n)
{
	uint32_t len = rt->en_len[s];
	if (!len)
		return rt_evicted_list_fill(rt, s, n);
	*n = len - 1;
	return rt->en + rt_en_off(rt, s);
}

static inline uint32_t rt_storage_of(const struct runtime_state *rt, uint32_t t)
{
	return rt->ts[t];
}

/** Union-find root of node x, compressing the path; counts an access per node. */
uint32_t rt_uf_find(struct runtime_state *rt, uint32_t x);
/** Rebuild region r of base storage `base` (reverse: through parents). */
void rt_region_rebuild(struct runtime_state *rt, struct region *r, uint32_t base, bool reverse);

/** Correctly rounded num / den (as Python's int / int). den > 0. */
double rt_div(int64_t num, unsigned __int128 den);

/* ---- shared between the runtime's files ----------------------------------
 * runtime.c         public API: runtime_run, baseline_run, point_run; state
 *                   init and free
 * runtime-commands.c  commands, materialize/compute, eviction, the pool, locks
 * runtime-regions.c evicted regions (region.py): rebuilds and absorbs
 * runtime-memo.c    the reach memo behind batched rebuilds (Tarjan)
 * runtime-classes.c union-find classes and kept evicted-neighbour lists
 * runtime-banish.c  V1's evicted dependents and banishing
 * runtime-check.c   check mode (invariants after every command)
 * runtime-arith.c   exact division (rt_div, declared above)
 */

/* Regions are bitsets with memoized reaches up to this many storages, runs
 * (iset.h) past it. Measured (docs/scale.md): on the paper's logs (466 to
 * 1,904 storages) bitsets are 3-4x faster; on the uniform chain runs are
 * 20-80x faster from 512 storages on; on generated transformers of 2,600
 * to 6,500 storages they are within 10-40% of each other. Bitsets take
 * n^2/4 bytes with their memo (4 MB here). */
#define RMEMO_MAX_STORAGES 4096

/* runtime-commands.c */
void rt_bug_at(const struct runtime_state *rt, const char *what, uint32_t s) __attribute__((noreturn));
int rt_replay(struct runtime_state *rt);
void rt_evict(struct runtime_state *rt, uint32_t s);
void rt_pin_tensor(struct runtime_state *rt, uint32_t t);

/* runtime-classes.c */
void rt_uf_full(struct runtime_state *rt);
void rt_uf_merge(struct runtime_state *rt, uint32_t lhs, uint32_t rhs);
void rt_en_changed(struct runtime_state *rt, uint32_t v);

/* runtime-regions.c */
void rt_region_free_runs(struct runtime_state *rt, struct region *r);
void rt_regions_new_edges(struct runtime_state *rt, uint32_t opi);
void rt_regions_evicting(struct runtime_state *rt, uint32_t s);
void rt_region_walk_bits(struct runtime_state *rt, struct region *r, uint32_t base, bool reverse);
size_t rt_push_frontier(struct runtime_state *rt, const struct region *r);
void rt_region_absorb_bits(struct runtime_state *rt, struct region *r, uint32_t fs,
			   const struct region *reg, uint32_t lo, uint32_t hi);
void rt_region_absorb(struct runtime_state *rt, struct region *r, uint32_t fs, const struct region *reg);
void rt_region_rebuild_runs(struct runtime_state *rt, struct region *r, uint32_t base, bool reverse);
void rt_region_absorb_runs(struct runtime_state *rt, struct region *r, uint32_t fs, const struct region *reg);

/* runtime-memo.c */
void rt_reach_forget(struct runtime_state *rt, uint32_t v, int d);
void rt_region_rebuild_batched(struct runtime_state *rt, struct region *r, uint32_t base, bool reverse);

/* runtime-banish.c */
void rt_try_banish(struct runtime_state *rt, uint32_t s);

/* runtime-check.c */
void rt_check_state(struct runtime_state *rt);

/* runtime-proto.c (NEEDS_PROTO; each is called only when rt->proto.on) */
void rt_proto_init(struct runtime_state *rt);
void rt_proto_free(struct runtime_state *rt);
/** Storage s became material in the op now running (compute()). */
static inline void rt_proto_fresh(struct runtime_state *rt, uint32_t s)
{
	rt->proto.fresh[s] = 1;
}
/** After op opi ran (and the after rule's eviction): its fresh outputs
 * join the candidates in output order, leaving their classes. */
void rt_proto_joined(struct runtime_state *rt, uint32_t opi, bool remat);
/** Storage s is being evicted (any cause): the op_classes rule's merge. */
void rt_proto_evicting(struct runtime_state *rt, uint32_t s);
/** The prototype's choice (CheckpointPool::evict), RT_NONE when none of
 * its candidates can go (the prototype would loop for ever: OOM here). */
uint32_t rt_proto_choose(struct runtime_state *rt);

/* ---- scratch stack and stamps (shared by every walk) ---------------- */

static inline void rt_push(struct runtime_state *rt, uint32_t v)
{
	if (rt->stk_len == rt->stk_cap)
		XGROW(rt->stk, rt->stk_cap, rt->stk_len + 1);
	rt->stk[rt->stk_len++] = v;
}

static inline uint32_t rt_next_stamp(uint32_t *stamp, uint32_t *marks, size_t n)
{
	if (++*stamp == 0) {
		memset(marks, 0, n * sizeof *marks);
		*stamp = 1;
	}
	return *stamp;
}

struct region *rt_slot_regions(struct runtime_state *rt, uint32_t s);
void rt_slot_release(struct runtime_state *rt, uint32_t s);

/* The regions of s, [0] forward and [1] reverse: two per storage, or, for
 * runs regions, two per slot, a slot per material storage (taken on first
 * use, given back when it is evicted), so that their memory follows the
 * material storages, not the log. */
static inline struct region *rt_regions(struct runtime_state *rt, uint32_t s)
{
	if (rt->reg_slot)
		return rt->reg_slot[s] != RT_NONE ? &rt->reg[2 * (size_t)rt->reg_slot[s]] : rt_slot_regions(rt, s);
	return &rt->reg[2 * (size_t)s];
}

/* Without taking a slot: NULL if s has none. */
static inline const struct region *rt_regions_peek(const struct runtime_state *rt, uint32_t s)
{
	if (rt->reg_slot)
		return rt->reg_slot[s] != RT_NONE ? &rt->reg[2 * (size_t)rt->reg_slot[s]] : NULL;
	return &rt->reg[2 * (size_t)s];
}

static inline struct region *rt_fwd(struct runtime_state *rt, uint32_t s)
{
	return rt_regions(rt, s);
}

static inline struct region *rt_rev(struct runtime_state *rt, uint32_t s)
{
	return rt_regions(rt, s) + 1;
}

static inline void rt_bits_clear(uint64_t *a, uint32_t w)
{
	for (uint32_t i = 0; i < w; i++)
		a[i] = 0;
}

static inline void rt_bits_or(uint64_t *restrict a, const uint64_t *restrict b, uint32_t w)
{
	for (uint32_t i = 0; i < w; i++)
		a[i] |= b[i];
}

static inline bool rt_bit_has(const uint64_t *a, uint32_t x)
{
	return a[x >> 6] >> (x & 63) & 1;
}

static inline void rt_bit_set(uint64_t *a, uint32_t x)
{
	a[x >> 6] |= 1ULL << (x & 63);
}

/* Start a batch of rebuilds (the walk-or-memo accounting is per batch). */
static inline void rt_reach_batch(struct runtime_state *rt)
{
	rt->bwalked[0] = rt->bwalked[1] = rt->bwalk_max[0] = rt->bwalk_max[1] = 0;
}

static inline void rt_reach_changed(struct runtime_state *rt, uint32_t v)
{
	if (rt->rw) {
		rt_reach_forget(rt, v, 0);
		rt_reach_forget(rt, v, 1);
	}
}


/* ---- small hot helpers of the other files, inlined where they are called */

static inline uint64_t rt_dep_key(uint32_t s, uint32_t t)
{
	return (uint64_t)s << 32 | t;
}

static inline void rt_dep_add(struct runtime_state *rt, uint32_t s, uint32_t t)
{
	if (u64set_add(&rt->deps, rt_dep_key(s, t)))
		rt->n_deps[s]++;
}

static inline void rt_dep_remove(struct runtime_state *rt, uint32_t s, uint32_t t)
{
	if (u64set_remove(&rt->deps, rt_dep_key(s, t)))
		rt->n_deps[s]--;
}

/* A new class of storage s's node, of the given value: reuses a free node,
 * else takes the next one, else collects or grows the arena. */
static inline uint32_t rt_uf_new(struct runtime_state *rt, uint32_t s, int64_t value)
{
	uint32_t x = rt->uf_free;
	if (s >= rt->uf_scan)
		rt->uf_scan = s + 1;
	if (x != RT_NONE) {
		rt->uf_free = rt->uf_parent[x];
	} else {
		if (rt->uf_len == rt->uf_cap)
			rt_uf_full(rt);
		x = rt->uf_free;
		if (x != RT_NONE)
			rt->uf_free = rt->uf_parent[x];
		else
			x = (uint32_t)rt->uf_len++;
	}
	rt->uf_parent[x] = RT_NONE;
	rt->uf_value[x] = value;
	return x;
}

static inline void rt_region_span(const struct runtime_state *rt, const struct region *reg, uint32_t *lo,
			uint32_t *hi)
{
	uint32_t a = 0, b = rt->rw;
	while (a < b && !(reg->bin[a] | reg->bfr[a]))
		a++;
	while (b > a && !(reg->bin[b - 1] | reg->bfr[b - 1]))
		b--;
	*lo = a;
	*hi = b;
}

static inline void rt_region_reset(struct runtime_state *rt, struct region *r)
{
	r->n_in = r->n_fr = 0;
	r->compute = 0;
	r->hvalid = false;
	if (rt->rw) {
		memset(r->bin, 0, rt->rw * sizeof *r->bin);
		memset(r->bfr, 0, rt->rw * sizeof *r->bfr);
	}
	/* An evicted storage's regions are empty until it is material again:
	 * their memory goes back, so that only live regions hold any. */
	if (r->rr)
		rt_region_free_runs(rt, r);
}

/* A rebuild after a computation. Where the memo is kept, a batch's regions
 * of one direction are walked until the walks have cost (in edges) twice
 * the largest of them, then built from memoized reaches: the memo costs a
 * few walks of the batch's evicted subgraph, which batches of few regions
 * (at high budgets, most of them) do not repay (ski rental). Up to 1024
 * storages (16 words a bitset) memoized reaches are kept across batches
 * and rows are short, so the memo is used at once: 5% fewer instructions
 * on the ResNet log, 1-3% on U-Net. */
static inline void rt_region_rebuild_after(struct runtime_state *rt, struct region *r, uint32_t base, bool reverse)
{
	if (rt->runs)
		rt_region_rebuild_runs(rt, r, base, reverse);
	else if (!rt->rw)
		rt_region_rebuild(rt, r, base, reverse);
	else if (rt->rw > 16 && rt->bwalked[reverse] <= 2 * rt->bwalk_max[reverse]) {
		/* SPEED-ONLY: a walk or the memo build the same region with the
		 * same counts (check mode compares memo rows with walks). */
		uint64_t a0 = rt->res->heuristic_accesses;
		rt_region_walk_bits(rt, r, base, reverse);
		uint64_t cost = rt->res->heuristic_accesses - a0;
		rt->bwalked[reverse] += cost;
		if (cost > rt->bwalk_max[reverse])
			rt->bwalk_max[reverse] = cost;
	} else {
		rt_region_rebuild_batched(rt, r, base, reverse);
	}
}

#endif
