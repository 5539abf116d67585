/*
 * runtime-state.h: the state of one replay, private to the runtime's files
 * (runtime.c, runtime-*.c). Users go through runtime.h; heuristics see the
 * runtime through policy.h, which does not let them name this struct.
 *
 * struct runtime_state is a shared part and one part per owning file, as
 * libinput nests each feature's state in its touchpad device:
 *
 *   (shared)  runtime.c sets it up, every file reads it: the schedule, the
 *             config and heuristic, what the run keeps (v1, eager, regions,
 *             eqclass), the clock, memory and counters, per storage its
 *             locks and key and material bit, per tensor whether it is
 *             defined, the edges so far (graph) and the scratch stack and
 *             stamps (scratch, borrowed by any file within one call);
 *   pool      runtime-commands.c: the evictable storages in joining order
 *             and their keys (runtime-scan.c reads the key arrays);
 *   mat       runtime-commands.c: materialize's frames;
 *   reg       runtime-regions.c: evicted regions (lists, bitsets or runs);
 *   memo      runtime-memo.c: the reach memo behind bitset rebuilds;
 *   cls       runtime-classes.c: union-find classes, kept neighbour lists;
 *   ban       runtime-banish.c: V1's evicted dependents and edge copies;
 *   scan      runtime-scan.c: how a heuristic's choice is made, the draws;
 *   ord       runtime-order.c: the pool in a choice's order (LRU, DTRLocal);
 *   proto     runtime-proto.c: DTRPrototype's candidates and classes.
 *
 * Each part is set up and freed by its owner (rt_X_init, rt_X_free, called
 * from runtime.c) and written only there; another file reads or changes it
 * through the calls and inline accessors in the part's section below.
 *
 * Invariants (checked after every command in check mode):
 *  - memory == sum of the sizes of material storages;
 *  - a storage is in the pool iff it is material, unlocked (ref_int == 0)
 *    and not pinned; the pool keeps the order in which storages joined it;
 *  - a storage's tensors and its storage-level edges exist as prefixes of
 *    the schedule's lists (counts n_tensors, n_sfwd, n_srev), except that
 *    the banishing runtime (V1) deletes edges, so its edge lists, children
 *    and parents are mutable copies (the ban part).
 */
#ifndef REMATSIM_RUNTIME_STATE_H
#define REMATSIM_RUNTIME_STATE_H

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "hash.h"
#include "idset.h"
#include "iset.h"
#include "pyrandom.h"
#include "runtime-test.h"
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

/* ---- exact arithmetic (runtime-arith.c), shared with the heuristics ----- */

/* A region's compute can only grow by absorbs (the reference adds the
 * absorbed storage even if it is already inside), without bound in
 * principle: such sums wrap instead of overflowing (never in a real log). */
static inline int64_t rt_wadd(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* Keys within 2^50 are exact as doubles, and so are their reciprocals'
 * orders and ties (a relative gap of over 2^-50 between 1/a and 1/b,
 * wider than an ulp): see the integer scans in runtime-scan.c. */
#define RT_NARROW (INT64_C(1) << 50)

/** Correctly rounded num / den (as Python's int / int). den > 0. */
double rt_div(int64_t num, unsigned __int128 den);

/* A cost as the reference computes it: an integer numerator over an
 * integer denominator, den == 0 meaning +inf. */
struct rt_frac {
	int64_t num;
	unsigned __int128 den;
};

/** The value of a cost, exactly as the reference's float (one correctly
 * rounded division). */
static inline double rt_frac_value(struct rt_frac c)
{
	if (c.den == 0)
		return INFINITY;
	if (c.den == 1)
		return (double)c.num;
	return rt_div(c.num, c.den);
}

/*
 * SPEED-ONLY: whether cost c is surely above best (a positive finite
 * double), without the exact division: the double estimate num /
 * (double)den is within a few ulps of the exact quotient, so a margin of 8
 * ulps decides. False says nothing.
 */
static inline bool rt_frac_surely_above(struct rt_frac c, double best)
{
	if (c.den <= 1 || c.num <= 0 || !(best > 0) || isinf(best))
		return false;
	/* (double) of an unsigned __int128 is a libgcc call: the same
	 * correctly rounded value from 64 bits where the high half is 0 */
	double den = (uint64_t)(c.den >> 64) ? (double)c.den : (double)(uint64_t)c.den;
	double est = (double)c.num / den;
	return est > best * (1 + 8 * DBL_EPSILON);
}

/* ---- the shared part ------------------------------------------------------ */

/* What costs read (policy.h hands it to a heuristic as it is). */
struct rt_key {
	uint64_t size;        /* bytes */
	int64_t compute;      /* cost of the distinct ops of its tensors so far */
	int64_t last;         /* last access (the reference's last_access_int) */
};

/* Per storage: locks and references (runtime-commands.c), its place in the
 * pool (the pool's), and the V1 runtime's banishing (runtime-banish.c). */
struct rt_storage {
	uint32_t ref_int;     /* locks */
	uint32_t ref_ext;     /* external (model) references: handles */
	uint32_t n_tensors;   /* its tensors so far (prefix of the schedule's) */
	uint32_t pool_pos;    /* index in the pool array while in_pool */
	bool pinned, in_pool, banished; /* (20 bytes in all) */
};

/* The edges so far, storage-level and per tensor, as views of the
 * schedule's lists (runtime.c) or, on V1, of the ban part's copies
 * (rt_banish_init points them there). runtime-commands.c appends edges as
 * ops come (the live counts n_sfwd, n_srev), runtime-banish.c deletes them;
 * the rest only read. */
struct rt_graph {
	const uint32_t *ts;      /* per tensor, its storage (the schedule's) */
	/* Parents: tensor t's are par[rt_par_off(rt, t) + j] for j below
	 * rt_n_par(rt, t) (its op's arguments, or V1's copies); par_s holds
	 * the storages of par, side by side. */
	const uint32_t *par, *par_s;
	/* Per storage, the storages of all its tensors' children (sfwd) and
	 * parents (srev) so far: what regions and evicted neighbours walk. */
	const uint32_t *sfwd, *sfwd_off, *srev, *srev_off;
	uint32_t *n_sfwd, *n_srev;
};

/* Scratch for walks (runtime.c): a stack of ids shared by recursion levels
 * (a user pushes above what it found and restores the length before it
 * returns), and three stamped mark arrays (rt_next_stamp) that any file
 * may use within one call. */
struct rt_scratch {
	uint32_t *stk;
	size_t stk_len, stk_cap;
	uint32_t *mark_a, *mark_b, *mark_c, stamp_a, stamp_b, stamp_c;
};

/* ---- runtime-commands.c: the pool, materialize's frames ------------------- */

/* The pool in joining order, with holes (RT_NONE) where members left. The
 * members' keys are kept in slot order, a field per array (size[i] ==
 * key[slot[i]].size for each member, and so on): what the scans of
 * runtime-scan.c read, sequentially. A hole holds size 0, compute and last
 * INT64_MAX, which a minimum over compute or last, or a maximum over size,
 * passes by. While the ordered pool chooses (ord.on, runtime-order.c) the
 * key arrays are not kept; rt_pool_keys_refresh rewrites them before a
 * scan. */
struct rt_pool {
	uint32_t *slot;
	uint64_t *size;
	int64_t *compute, *last;
	uint32_t end, cap; /* slots used (members + holes), allocated */
	size_t len;        /* members */
	/* No heuristic chooses (baselines, plan replays): members are only
	 * flagged (in_pool) and counted, the arrays stay empty. */
	bool off;
};

/* One pending materialize: tensor t, whose n_undef undefined parents wait
 * on the scratch stack from b; the first i of them are done, the i-th is
 * being rematerialized while waiting. */
struct rt_frame {
	uint32_t t;
	bool remat, waiting;
	size_t b, n_undef, i;
};

/* materialize's depth-first walk on an explicit stack of frames. */
struct rt_mat {
	struct rt_frame *f;
	size_t len, cap;
};

/* ---- runtime-regions.c: evicted regions ------------------------------------ */

/* The evicted neighbourhood of a storage in one direction (region.py). */
struct region {
	uint32_t *in;      /* interior: evicted storages reachable through evicted ones */
	uint32_t *fr;      /* frontier: material storages at its edge */
	uint32_t n_in, cap_in, n_fr, cap_fr; /* both lists hold distinct ids */
	int64_t compute;   /* sum of interior computes when they joined */
	uint32_t *hs;      /* interior membership index (hash, RT_NONE empty) */
	uint32_t hcap;     /* its slots, a power of two */
	bool hvalid;       /* it matches `in` (built lazily by absorbs) */
	/* Where regions are bitsets (reg.words > 0), the interior and
	 * frontier are these bitsets of reg.words words instead of the lists. */
	uint64_t *bin, *bfr;
	/* Where regions are kept as runs (reg.runs), these sets instead (NULL
	 * while its storage is evicted). */
	struct rregion *rr;
};

/* A region as runs of ids: interior and frontier, and the epoch (reg.epoch)
 * as of which the interior is the exact reach of its base, window edges
 * included (see reg.win_t). */
struct rregion {
	struct iset in, fr;
	uint64_t epoch;
	/* It may not be its base's reach, as the reference's may not: an op
	 * gave its base an edge to a storage already material, which no
	 * rebuild followed, or it absorbed such a region: its next rebuild
	 * walks. */
	bool stale;
	struct rregion *next_free;
	/* The interior's sums of current computes and edge counts (of the
	 * region's direction), as of prefix-sum version ver (0: not kept);
	 * see reg.ps_ver. */
	uint64_t sc, se, ver;
};

/* A change to the prefix sums: id, what (RT_PS_COMPUTE, or RT_PS_EDGES + d
 * for edges in direction d), and by how much. */
enum { RT_PS_COMPUTE = 0, RT_PS_EDGES = 1, RT_PS_LOG = 64 };
struct rt_ps_change {
	int64_t delta;
	uint32_t id, what;
};

struct rt_regions {
	/* Two regions per storage, [2s] forward and [2s+1] reverse; for runs,
	 * two per slot (rt_regions()). */
	struct region *table;
	/* Bitsets: the words of each (0: regions are lists or runs), and the
	 * memory they share. Kept exactly when the memo is (runtime-memo.c). */
	uint32_t words;
	uint64_t *bits;
	size_t bits_cap; /* its words (a thread's kept block: runtime-memo.c) */
	/* Walks' visit stamps live in the shared tag array's upper bits. */
	uint32_t tag_stamp;
	struct region scratch_fwd, scratch_rev; /* DTRUnopt's rebuilt regions */

	/* Regions as compressed sets: past RMEMO_MAX_STORAGES storages, or
	 * forced by runtime_test_switches.run_regions. Then: per storage, its slot in
	 * table or RT_NONE, and slots given back; prefix sums (iset.h) of the
	 * storages' current forward and reverse edge counts and computes (sums
	 * over runs); released regions for reuse; scratch sets; the storages
	 * of the batch being computed (scratch.stk[sb, se)); the epoch, one per
	 * compute command; and its window: while the command's op waits for
	 * its arguments, its new edges (arguments to outputs) lead to storages
	 * not yet material, which a region made before win_t may lack. */
	bool runs;
	uint32_t *slot;
	uint32_t *slot_free;
	size_t n_slots, slot_cap, n_slot_free, slot_free_cap;
	struct psum32 ps_len[2];
	struct psum ps_comp;
	/* Their version (one per change, from 1) and the last RT_PS_LOG
	 * changes, change v at ps_log[v % RT_PS_LOG]: a region's kept sums
	 * (rregion.sc, se) catch up with a few changes instead of summing
	 * its runs again. */
	uint64_t ps_ver;
	struct rt_ps_change ps_log[RT_PS_LOG];
	struct rregion *rr_free;
	struct iset is_tmp, is_tmp2;
	uint32_t *srt; /* sorting scratch */
	uint64_t *wb;  /* a bitmap of n_storages bits, zero between uses (iset_assign_ids) */
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
	/* The switch to bitsets (RMEMO_MAX_BITSETS): in the current window,
	 * absorbs, rebuilds, and the members of the evicted storages'
	 * regions; whether the previous window spoke for bitsets; whether the
	 * switch may come, and is due at the end of this command. */
	uint32_t sw_absorbs;
	uint64_t sw_rebuilds, sw_interior;
	bool sw_low, sw_may, sw_due;
};

/* ---- runtime-memo.c: the reach memo ---------------------------------------- */

/* Reach memo for the rebuilds that follow one computation, per direction d
 * and evicted storage x at [d * n_storages + x]: the evicted storages
 * reachable from x through evicted ones (x included) and the material ones
 * at their edge, as bitsets of w words each. A row is kept across batches
 * while valid says so: any change to a storage (materiality, edges,
 * compute) forgets the rows that may hold it (rt_reach_forget). w == 0: no
 * memo. */
struct rt_memo {
	uint32_t w, fill;
	uint64_t walked[2], walk_max[2]; /* this batch's walks: edges, most */
	uint64_t *row;   /* reach rows: interior then frontier words */
	size_t row_cap;  /* its words (a thread's kept block may be larger) */
	uint32_t *lo, *hi; /* per row, the words [lo, hi) outside which both of
			    * its halves are zero (stale rows included) */
	uint8_t *valid, *summed; /* row valid; its sums (acc, comp) too */
	uint32_t *seen, *idx, *low; /* Tarjan's: fill stamp, index, low */
	uint64_t *acc;   /* per reach, once summed: its edges, then its compute */
	int64_t *comp;
	uint32_t *card;  /* per valid reach, once counted: its interior's size */
	uint32_t *dfs, *dfs_pos, *scc; /* Tarjan's stacks (n_storages each) */
};

/* ---- runtime-classes.c: union-find classes, evicted-neighbour lists ------- */

/* Union-find classes (eqclass.py): per storage its node (ecn, RT_NONE when
 * material); per node parent (RT_NONE: root) and value. A node is live
 * while a storage's ecn or a live node's parent leads to it; the others
 * (every rematerialization leaves some) are collected when the arena is
 * full (uf_collect) and reused from a free list linked through parent
 * (free: its head). No find reaches a free node, so reuse changes no path
 * and no count. */
struct rt_classes {
	uint32_t *ecn;
	uint32_t *parent;
	int64_t *value;
	uint32_t free;
	uint32_t scan;     /* 1 + the highest storage that has had a node */
	uint64_t *mark;    /* uf_collect's marks, a bit per node */
	size_t mark_words;
	/* Per node, the stamp of the last class sum that met it as a root
	 * (rt_class_sum: distinct roots in one pass). */
	uint32_t *seen, seen_stamp;
	size_t len, cap;   /* nodes used, and the arena's size (rt_uf_full) */
	size_t room;       /* nodes the arrays have room for */
	/* Per storage, its distinct evicted neighbours (itself aside) in the
	 * order a walk of its reverse then forward list meets them, kept while
	 * en_len[s] is not 0: a neighbour's materiality changing clears it
	 * (rt_en_changed; new edges need no clearing, see cmd_compute). At
	 * rt_en_off(rt, s), room for all of s's edges; en_len[s] - 1 used.
	 * Class merges on eviction and the eq costs both read it
	 * (rt_evicted_list). */
	uint32_t *en, *en_len;
	bool en_scan; /* lists of up to 4 edges deduplicated without stamps */
};

/* ---- runtime-banish.c: V1 ---------------------------------------------------- */

/* V1's evicted dependents: (storage << 32 | tensor) pairs, and their
 * number per storage; and the edge lists banishing edits, copies the graph
 * views point to (all NULL on other runtimes): each tensor's parents (at
 * par_off[t], n_par[t] of them) and their storages, each tensor's children
 * (at chi_off[t], n_chi[t] so far), the storage-level lists. */
struct rt_banish {
	struct u64set deps;
	uint32_t *n_deps;
	uint32_t *par, *par_off, *n_par, *par_s;
	uint32_t *chi, *chi_off, *n_chi;
	uint32_t *sfwd, *srev;
	/* The storage-level copies (sfwd, srev) are kept: only heuristics
	 * read them (regions, classes, the prototype's), so a baseline run
	 * skips them (the memory of a 2^20-op chain's baseline). */
	bool lists;
};

/* ---- runtime-order.c: the pool in a choice's order (LRU, DTRLocal) ------------ */

/* Up to this many groups of equal (compute, size); past it the ordered
 * pool is dropped (a log whose op times differ, as the paper's do). */
#define ORDER_MAX_GROUPS 64
/* The walks' allowance before any choice has paid for them (rt_order.credit). */
#define ORDER_CREDIT 65536
/* Keeping the order costs about what a scan pays for this many slots per
 * join of the pool (and its leave): measured on the chain, 2^13. */
#define ORDER_START 32

/* A run: the members of one group with one last access, the later slot
 * first (first ... tail through ord.next), in its group's list of runs
 * by last access (prev, next). */
struct rt_orun {
	int64_t last;
	uint32_t first, tail;
	uint32_t prev, next;
	uint32_t g;
};

/* Pool members of equal compute and size, as runs of equal last access,
 * oldest first: the first run's first member is the group's choice. */
struct rt_ogroup {
	int64_t compute;
	uint64_t size;
	uint32_t head, tail; /* runs, RT_NONE when empty */
};

struct rt_order {
	bool on;       /* kept (only for SCAN_LAST and SCAN_COMPUTE_PER_SIZE_STALE rows) */
	/* Not kept yet, but may be: once the scans have read more than
	 * ORDER_START slots per join (scanned, joins), it is built. */
	bool armed;
	uint64_t scanned, joins;
	bool grouped;  /* by (compute, size) (DTRLocal); LRU: one group */
	uint32_t *next, *prev; /* per storage in the pool, its neighbours in its run */
	uint32_t *run; /* per storage in the pool, its run */
	uint32_t hot;  /* the run of the last insertion (RT_NONE: none) */
	struct rt_ogroup g[ORDER_MAX_GROUPS];
	uint32_t n_groups, last_group;
	/* The runs, and those free (linked through next). */
	struct rt_orun *runs;
	uint32_t n_runs, cap_runs, free_run;
	/* (group, last access) -> run: open addressing, linear probing. */
	uint32_t *hash;
	uint32_t hash_mask, hash_used;
	/* Joins and choices earn credit, walks (over runs, or within a run
	 * by slot) spend it: below 0 the walks cost more than the scans they
	 * save, and the ordered pool is dropped. */
	int64_t credit;
};

/* ---- runtime-scan.c: choosing ------------------------------------------------ */

struct rt_scan {
	/* SPEED-ONLY: some key may leave the range where the integer scans
	 * order and tie as the reference's doubles do (a compute outside
	 * +-RT_NARROW, a size over it), known from the schedule when the run
	 * starts; the last accesses are clock readings, which the scans check. */
	bool wide;
	/* runtime_test_switches.plain_scans: every choice by the heuristic's plain
	 * loop (exact cost per member), for tests. */
	bool plain;
	uint64_t rng; /* splitmix64 state */
	struct py_random *pyrng; /* cfg->python_random: Python's generator instead */
};

/*
 * SPEED-ONLY (runtime-scan.c): the costs of a row whose cost reads no
 * clock or last access (heuristic.clock_free: MSPS, AbE, AbESize), kept
 * per pool slot, so that a choice reads one array of doubles instead of
 * every member's key and regions. A member's cost changes only when it
 * joins the pool (a storage computed joins it before its regions are
 * built), its key changes (rt_key_sync) or one of its regions absorbs or
 * is rebuilt (rt_regions_evict, rt_regions_computed; the switch from runs
 * to bitsets copies the sums): each marks it (rt_costs_mark), and a
 * choice first computes the marked members' costs. More marks than
 * members since the last choice (a
 * replay that evicts but seldom chooses: every absorb marks) and the next
 * choice computes them all, as a scan would, and marking stops until
 * then. A hole's cost is NaN, which no comparison takes.
 */
struct rt_costs {
	bool on;
	bool marking;    /* on, and not all */
	bool all;        /* every member's cost to compute at the next choice */
	double *val;     /* per pool slot, allocated as pool.cap */
	uint8_t *marked; /* per storage */
	uint32_t *list;  /* the marked storages, each once */
	uint32_t n, limit;
};

/* ---- runtime-proto.c: DTRPrototype -------------------------------------------- */

/*
 * The DTR prototype's view of the replay (runtime-proto.c; heuristics.h,
 * struct proto_rules): its candidate list `aps` as CheckpointPool keeps it
 * (appended on (re)materialization, an entry removed by swapping the last
 * one in when a scan meets it evicted or takes it: so it may hold evicted
 * or locked storages, and a storage twice), and, for the op_classes rule,
 * its union-find classes with one node per op.
 */
/*
 * runtime-future.c (NEEDS_FUTURE): every storage's future uses, for the
 * offline Belady heuristic, which sees the whole schedule (an offline
 * bound, not a runtime policy): per storage, the commands that read it (a
 * COMPUTE reading one of its tensors, a GET or PIN of one) in ascending
 * order (CSR), and a cursor that only moves forward as the replay does.
 */
struct rt_future {
	bool on;
	uint32_t *use;     /* command indices, storage by storage */
	uint32_t *use_off; /* [n_storages + 1] */
	uint32_t *cur;     /* per storage: the first use not yet passed */
};

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

/* ---- runtime-offload.c: the host link ----------------------------------------- */

/* Where a storage's bytes are, when offload is on (off.where). */
enum rt_where {
	RT_DEVICE,  /* on the device, or dropped: no host copy */
	RT_OUT,     /* its copy to the host is under way: evicted, its bytes still counted */
	RT_HOST,    /* on the host only */
	RT_IN,      /* a prefetch brings it back: evicted, its bytes counted */
};

/* A serial copy channel: the copies queued on it in order (a storage, or
 * RT_NONE for one cancelled, and when it ends), and when it is next free. */
struct rt_channel {
	uint32_t *s;
	int64_t *end;
	size_t head, len, cap;
	int64_t free_at;
};

/* Offload (runtime_config.offload; docs/offload.md). Off (on == false)
 * unless configured: then nothing else is allocated and no hook does
 * anything. An offloaded storage is evicted as far as the rest of the
 * runtime knows (its tensors undefined, regions and classes updated); its
 * host copy makes materializing it a copy back instead of a recompute. */
struct rt_offload {
	bool on;
	const struct offload_config *c;
	uint8_t *where;     /* per storage, enum rt_where */
	uint8_t *held;      /* per tensor: defined when its storage left, so
			       defined again when the storage comes back */
	struct rt_channel d2h, h2d;
	uint64_t pending;   /* bytes of RT_OUT storages (in memory until their copy ends) */
	uint64_t incoming;  /* bytes of RT_IN storages (in memory since their copy began) */
	uint64_t host;      /* bytes on the host (RT_OUT, RT_HOST, RT_IN) */
};

/* ---- the state ----------------------------------------------------------------- */

struct runtime_state {
	/* shared (runtime.c) */
	const struct schedule *s;
	const struct runtime_config *cfg;
	const struct runtime_test_switches *test; /* cfg's, never NULL */
	const struct heuristic *h;
	bool v1, eager, regions, eqclass;
	struct runtime_result *res;
	uint64_t budget, memory, bottleneck;
	int64_t clock;
	size_t cmd; /* the command being replayed */
	/* An absorb found regions out of step with frontiers (simrd's
	 * assertion): the run stops with an error (RT_BROKEN). */
	bool broken;
	uint32_t broken_storage;
	struct rt_storage *st;
	struct rt_key *key;
	/* Per storage: bit 0 material; the rest reg.tag_stamp's visit stamps. */
	uint32_t *tag;
	uint8_t *defined; /* per tensor */
	struct rt_graph graph;
	struct rt_scratch scratch;

	/* owned */
	struct rt_pool pool;       /* runtime-commands.c */
	struct rt_mat mat;         /* runtime-commands.c */
	struct rt_regions reg;     /* runtime-regions.c */
	struct rt_memo memo;       /* runtime-memo.c */
	struct rt_classes cls;     /* runtime-classes.c */
	struct rt_banish ban;      /* runtime-banish.c */
	struct rt_scan scan;       /* runtime-scan.c */
	struct rt_costs costs;     /* runtime-scan.c (heuristic.clock_free) */
	struct rt_order ord;       /* runtime-order.c */
	struct rt_proto proto;     /* runtime-proto.c (NEEDS_PROTO) */
	struct rt_future fut;      /* runtime-future.c (NEEDS_FUTURE) */
	struct rt_offload off;     /* runtime-offload.c (runtime_config.offload) */
};

/* ---- shared: files and helpers ----------------------------------------------
 * runtime.c           public API: runtime_run, baseline_run, point_run; the
 *                     shared part's init and free, the parts' in order
 * runtime-commands.c  commands, materialize/compute, eviction, the pool, locks
 * runtime-scan.c      a heuristic's choice: the fast scans, the draws
 * runtime-order.c     the pool in a choice's order (LRU, DTRLocal)
 * runtime-regions.c   evicted regions (region.py): rebuilds and absorbs
 * runtime-memo.c      the reach memo behind batched rebuilds (Tarjan)
 * runtime-classes.c   union-find classes and kept evicted-neighbour lists
 * runtime-banish.c    V1's evicted dependents and banishing
 * runtime-check.c     check mode (invariants after every command)
 * runtime-proto.c     DTRPrototype: the DTR prototype's candidates, classes, choice
 * runtime-arith.c     exact division (rt_div, declared above)
 * runtime-offload.c   the host link: copies, stalls, drop or offload
 */

/* Regions are bitsets with memoized reaches up to this many storages, runs
 * (iset.h) past it. Measured (docs/scale.md): on the paper's logs (466 to
 * 1,904 storages) bitsets are 3-4x faster; on the uniform chain runs are
 * 20-80x faster from 512 storages on; on generated transformers of 2,600
 * to 6,500 storages they are within 10-40% of each other. Bitsets take
 * n^2/4 bytes with their memo (4 MB here). */
#define RMEMO_MAX_STORAGES 4096

/* From RMEMO_MAX_STORAGES to this many storages, a replay starts with runs
 * and switches to bitsets for good (rt_regions_to_bits) where its work is
 * what bitsets do cheaply: two windows of RUNS_SWITCH_WINDOW absorbs in a
 * row, each with
 *  - under RUNS_SWITCH_INTERIOR members per absorb in the regions of the
 *    storages it evicted (on bitsets an eviction forgets the memo rows of
 *    those members, refilled later at about 250 instructions each; on runs
 *    an absorb costs about 2,000 more than on bitsets: callgrind, per 1,024
 *    commands, on the Unrolled GAN, LSTM and TreeLSTM; the break-even is
 *    near 8 members an absorb, the switch asks for half), and
 *  - at least RUNS_SWITCH_REBUILDS absorbs per rebuild (bitsets pay their
 *    rebuilds in memo fills and walks: where rebuilds keep pace with
 *    absorbs, as in the TreeLSTM at low budgets, the two cost about the
 *    same, and a switch costs its allocation and a cold memo).
 * The first window, mostly the forward pass, has small regions in every
 * log: one window alone does not decide. The Unrolled GAN's windows hold
 * 2-5 members and 5-200 absorbs per rebuild from its backward pass on, the
 * LSTM's and TreeLSTM's 5-15 members (docs/scale.md, "Issue 26, fourth pass:
 * runs or bitsets"). Bitsets and memo then take n^2 bytes, 64 MiB at most. */
#define RMEMO_MAX_BITSETS 8192
#define RUNS_SWITCH_WINDOW 8192
#define RUNS_SWITCH_INTERIOR 4
#define RUNS_SWITCH_REBUILDS 5

static inline bool rt_material(const struct runtime_state *rt, uint32_t s)
{
	return rt->tag[s] & 1;
}

static inline uint32_t rt_storage_of(const struct runtime_state *rt, uint32_t t)
{
	return rt->graph.ts[t];
}

/* Where tensor t's parents start in graph.par, and how many it has: its
 * op's arguments, except on V1, whose banishing edits a copy per tensor. */
static inline uint32_t rt_par_off(const struct runtime_state *rt, uint32_t t)
{
	return rt->v1 ? rt->ban.par_off[t] : rt->s->ops[rt->s->tensors[t].op].args;
}

static inline uint32_t rt_n_par(const struct runtime_state *rt, uint32_t t)
{
	return rt->v1 ? rt->ban.n_par[t] : rt->s->ops[rt->s->tensors[t].op].n_args;
}

static inline void rt_push(struct runtime_state *rt, uint32_t v)
{
	struct rt_scratch *x = &rt->scratch;
	if (x->stk_len == x->stk_cap)
		XGROW(x->stk, x->stk_cap, x->stk_len + 1);
	x->stk[x->stk_len++] = v;
}

/* n fresh visit stamps for the tag array's upper bits (bit 0, material,
 * is kept), as they are stored there (shifted): the first returned, the
 * others following it by 2. Every old stamp is cleared when the counter
 * would overflow, before any of the n is handed out, so that none of
 * them can come round again while its marks are in the array. */
static inline uint32_t rt_tag_stamps(struct runtime_state *rt, uint32_t n)
{
	if (rt->reg.tag_stamp + n >= (1u << 31)) {
		for (size_t i = 0; i < rt->s->n_storages; i++)
			rt->tag[i] &= 1;
		rt->reg.tag_stamp = 0;
	}
	uint32_t first = rt->reg.tag_stamp + 1;
	rt->reg.tag_stamp += n;
	return first << 1;
}

static inline uint32_t rt_tag_stamp(struct runtime_state *rt)
{
	return rt_tag_stamps(rt, 1);
}

static inline uint32_t rt_next_stamp(uint32_t *stamp, uint32_t *marks, size_t n)
{
	if (++*stamp == 0) {
		memset(marks, 0, n * sizeof *marks);
		*stamp = 1;
	}
	return *stamp;
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

/* ---- runtime-commands.c -------------------------------------------------------- */

/** The pool and materialize's frames. */
void rt_commands_init(struct runtime_state *rt);
void rt_commands_free(struct runtime_state *rt);
/** Check mode: the pool holds exactly the material, unlocked, unpinned
 * storages, with their keys' current copies. */
void rt_pool_check(struct runtime_state *rt);
void rt_bug_at(const struct runtime_state *rt, const char *what, uint32_t s) __attribute__((noreturn));
int rt_replay(struct runtime_state *rt);
void rt_evict(struct runtime_state *rt, uint32_t s);
void rt_pin_tensor(struct runtime_state *rt, uint32_t t);

/** The pool's key arrays rewritten from the keys: while the ordered pool
 * is kept (runtime-order.c) they are not, and a scan that is to choose
 * (the ordered pool dropped, or not able to choose) needs them. */
void rt_pool_keys_refresh(struct runtime_state *rt);

/** Members of the pool in slots [0, i]: the evaluations of a scan that
 * stopped at i. */
static inline uint64_t rt_pool_members_upto(const struct runtime_state *rt, uint32_t i)
{
	uint64_t n = 0;
	for (uint32_t j = 0; j <= i; j++)
		n += rt->pool.slot[j] != RT_NONE;
	return n;
}

/* ---- runtime-scan.c ----------------------------------------------------------------- */

/* The runtime as a heuristic sees it (policy.h): this state, behind a
 * type that heuristics.c cannot look into. */
struct policy;

static inline struct policy *rt_policy(struct runtime_state *rt)
{
	return (struct policy *)(void *)rt;
}

void rt_scan_init(struct runtime_state *rt);
void rt_scan_free(struct runtime_state *rt);
/** The storage to evict from the (non-empty) pool: the heuristic's choice,
 * by a fast scan of the pool's keys where its row names a key and the keys
 * allow, else by its own loop (the plain one under scan.plain). Counts the
 * evaluations and accesses. */
uint32_t rt_choose(struct runtime_state *rt);

/* Storage s's kept cost (struct rt_costs) may have changed: computed again
 * before the next choice, if s is in the pool then. */
static inline void rt_costs_mark(struct runtime_state *rt, uint32_t s)
{
	struct rt_costs *c = &rt->costs;
	if (c->marking && !c->marked[s]) {
		if (c->n == c->limit) {
			c->all = true;
			c->marking = false;
			return;
		}
		c->marked[s] = 1;
		c->list[c->n++] = s;
	}
}

/** The random heuristics' draw: a uniform index below n (n >= 1), from the
 * seeded splitmix64, or as Python's randrange(0, n) (python_random). */
static inline uint64_t rt_draw(struct runtime_state *rt, uint64_t n)
{
	struct rt_scan *sc = &rt->scan;
	if (sc->pyrng)
		return py_random_below(sc->pyrng, n);
	return splitmix64_next(&sc->rng) % n;
}

/* ---- runtime-order.c -------------------------------------------------------------- */

void rt_order_init(struct runtime_state *rt);
void rt_order_free(struct runtime_state *rt);
/** Check mode: the runs hold exactly the pool, in order. */
void rt_order_check(struct runtime_state *rt);
/** rt_order_join's way when s's run is not the hot one. */
void rt_order_join_slow(struct runtime_state *rt, uint32_t s);
/** Run r is empty: it goes. */
void rt_order_drop_run(struct runtime_state *rt, uint32_t r);

/* s (in the pool, its key current) joins its group at the pool's latest
 * slot: first in its run. Inline for the common case (a chain's
 * rematerializations give their members one last access): the run of the
 * last insertion. */
static inline void rt_order_join(struct runtime_state *rt, uint32_t s)
{
	struct rt_order *o = &rt->ord;
	uint32_t r = o->hot;
	if (r != RT_NONE) {
		struct rt_orun *R = &o->runs[r];
		const struct rt_key *k = &rt->key[s];
		if (R->last == k->last &&
		    (!o->grouped || (o->g[R->g].compute == k->compute && o->g[R->g].size == k->size))) {
			o->run[s] = r;
			o->prev[s] = RT_NONE;
			o->next[s] = R->first; /* a run in use is not empty */
			o->prev[R->first] = s;
			R->first = s;
			o->credit++; /* as rt_order_join_slow counts a join */
			return;
		}
	}
	rt_order_join_slow(rt, s);
}

/* s leaves its group (its key may have changed since it joined). */
static inline void rt_order_leave(struct runtime_state *rt, uint32_t s)
{
	struct rt_order *o = &rt->ord;
	uint32_t r = o->run[s];
	struct rt_orun *R = &o->runs[r];
	uint32_t p = o->prev[s], n = o->next[s];
	if (p == RT_NONE)
		R->first = n;
	else
		o->next[p] = n;
	if (n == RT_NONE)
		R->tail = p;
	else
		o->prev[n] = p;
	if (R->first == RT_NONE)
		rt_order_drop_run(rt, r);
}
/** s's key changed (s in the pool): its place follows. */
void rt_order_rekey(struct runtime_state *rt, uint32_t s);

/* A member joined the pool while the order is not kept: what keeping it
 * would have cost (rt_order_ready weighs it). */
static inline void rt_order_count_join(struct runtime_state *rt)
{
	rt->ord.joins++;
}

/** The scans have paid more than the order would cost: build it from the
 * pool and keep it from now on (unless it is dropped at once). */
void rt_order_start(struct runtime_state *rt);

/* A scan of the pool is about to choose: whether the ordered pool should
 * choose instead (it is kept, or the scans so far have paid for it). */
static inline bool rt_order_ready(struct runtime_state *rt)
{
	struct rt_order *o = &rt->ord;
	if (o->on || !o->armed)
		return o->on;
	o->scanned += rt->pool.len;
	if (o->scanned <= ORDER_START * o->joins)
		return false;
	rt_order_start(rt);
	return o->on;
}

/* A choice was made from the ordered pool, sparing a scan of the pool. */
static inline void rt_order_chose(struct runtime_state *rt)
{
	rt->ord.credit += (int64_t)(rt->pool.len / 8);
}

/* ---- runtime-regions.c ------------------------------------------------------------ */

void rt_regions_init(struct runtime_state *rt);
void rt_regions_free(struct runtime_state *rt);
/** s is being evicted: regions at its frontiers absorb its regions, whose
 * memory then goes back. */
void rt_regions_evict(struct runtime_state *rt, uint32_t s);
/** The storages scratch.stk[b, e) were just made material by one op:
 * rebuild their regions and those whose frontier they are on. */
void rt_regions_computed(struct runtime_state *rt, size_t b, size_t e);
void rt_regions_window_opening(struct runtime_state *rt, uint32_t opi);
/** Rebuild region r of base storage `base` from scratch by a walk of the
 * lists (reverse: through parents), counting its accesses. */
void rt_region_rebuild(struct runtime_state *rt, struct region *r, uint32_t base, bool reverse);
/* rt_region_rebuild into bitsets (the memo's walk, same sets and counts) */
void rt_region_walk_bits(struct runtime_state *rt, struct region *r, uint32_t base, bool reverse);
struct region *rt_slot_regions(struct runtime_state *rt, uint32_t s);
/* Runs to bitsets, for the rest of the replay (RMEMO_MAX_BITSETS): between
 * commands, when reg.sw_due says so. */
void rt_regions_to_bits(struct runtime_state *rt);

/* A compute command's op waits for its arguments: its new edges are the
 * window (runs regions); closed once the op has run or stopped. */
static inline void rt_regions_window_open(struct runtime_state *rt, uint32_t opi)
{
	if (rt->reg.runs)
		rt_regions_window_opening(rt, opi);
}

static inline void rt_regions_window_close(struct runtime_state *rt)
{
	rt->reg.win = false;
}

static inline void rt_ps_logged(struct runtime_state *rt, uint32_t s, uint32_t what, int64_t delta)
{
	struct rt_ps_change *c = &rt->reg.ps_log[++rt->reg.ps_ver % RT_PS_LOG];
	c->id = s;
	c->what = what;
	c->delta = delta;
}

/* Storage s's compute grew (runs: the sums over runs follow). */
static inline void rt_regions_compute_added(struct runtime_state *rt, uint32_t s, int64_t cost)
{
	if (rt->reg.runs) {
		psum_add(&rt->reg.ps_comp, s, cost);
		rt_ps_logged(rt, s, RT_PS_COMPUTE, cost);
	}
}

/* Storage s gained n edges in direction d (0 forward, 1 reverse). */
static inline void rt_regions_edges_added(struct runtime_state *rt, uint32_t s, int d, uint32_t n)
{
	if (rt->reg.runs) {
		psum32_add(&rt->reg.ps_len[d], s, n);
		rt_ps_logged(rt, s, RT_PS_EDGES + (uint32_t)d, n);
	}
}

/* The regions of s, [0] forward and [1] reverse: two per storage, or, for
 * runs regions, two per slot, a slot per material storage (taken on first
 * use, given back when it is evicted), so that their memory follows the
 * material storages, not the log. */
static inline struct region *rt_regions(struct runtime_state *rt, uint32_t s)
{
	if (rt->reg.slot)
		return rt->reg.slot[s] != RT_NONE ? &rt->reg.table[2 * (size_t)rt->reg.slot[s]]
						  : rt_slot_regions(rt, s);
	return &rt->reg.table[2 * (size_t)s];
}

static inline struct region *rt_fwd(struct runtime_state *rt, uint32_t s)
{
	return rt_regions(rt, s);
}

static inline struct region *rt_rev(struct runtime_state *rt, uint32_t s)
{
	return rt_regions(rt, s) + 1;
}

/* Without taking a slot: NULL if s has none. */
static inline const struct region *rt_regions_peek(const struct runtime_state *rt, uint32_t s)
{
	if (rt->reg.slot)
		return rt->reg.slot[s] != RT_NONE ? &rt->reg.table[2 * (size_t)rt->reg.slot[s]] : NULL;
	return &rt->reg.table[2 * (size_t)s];
}

/** The compute of s's evicted region in one direction (0 without one). */
static inline int64_t rt_region_compute(const struct runtime_state *rt, uint32_t s, bool reverse)
{
	const struct region *r = rt_regions_peek(rt, s);
	return r ? r[reverse].compute : 0;
}

/** DTRUnopt: both of s's regions rebuilt from scratch (counted), their
 * distinct interior storages folded into *compute (added) and *last (the
 * latest access): as rt_region_rebuild twice, then a fold over the two
 * interiors (what runtime_test_switches.plain_regions runs, for tests). */
static inline void rt_unopt_neighbourhood_plain(struct runtime_state *rt, uint32_t s, int64_t *compute,
						int64_t *last)
{
	struct region *f = &rt->reg.scratch_fwd, *r = &rt->reg.scratch_rev;
	struct rt_scratch *x = &rt->scratch;
	rt_region_rebuild(rt, f, s, false);
	rt_region_rebuild(rt, r, s, true);
	uint32_t stamp = rt_next_stamp(&x->stamp_c, x->mark_c, rt->s->n_storages);
	for (int k = 0; k < 2; k++) {
		const struct region *g = k ? r : f;
		for (uint32_t i = 0; i < g->n_in; i++) {
			uint32_t v = g->in[i];
			if (x->mark_c[v] == stamp)
				continue;
			x->mark_c[v] = stamp;
			*compute += rt->key[v].compute;
			if (rt->key[v].last > *last)
				*last = rt->key[v].last;
		}
	}
}

/*
 * SPEED-ONLY: the same in one pass per direction, DTRUnopt's cost for
 * every pool member at every eviction. The two walks visit what the two
 * rebuilds do (the same edges counted), each with its own stamp in the
 * tag array; the frontiers are not kept (the cost does not read them),
 * and an interior storage joins the fold when first met: in the reverse
 * walk, one the forward walk's stamp still marks as evicted is in both
 * interiors, folded already. Inline: called for every member.
 */
static inline void rt_unopt_neighbourhood(struct runtime_state *rt, uint32_t s, int64_t *compute, int64_t *last)
{
	if (__builtin_expect(rt->test->plain_regions, 0)) {
		rt_unopt_neighbourhood_plain(rt, s, compute, last);
		return;
	}
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
	rt->res->heuristic_accesses += acc;
	*compute = c;
	*last = l;
}

/* ---- runtime-memo.c ------------------------------------------------------------------- */

void rt_memo_init(struct runtime_state *rt);
void rt_memo_free(struct runtime_state *rt);
/* The regions' bitsets block, kept across a thread's replays: a zeroed
 * block of at least `words` words, and back (all zero again). */
uint64_t *rt_keep_bits(size_t words, size_t *cap);
void rt_keep_bits_back(uint64_t *b, size_t words);
/** Check mode: a few memoized reaches against fresh walks. */
void rt_memo_check(struct runtime_state *rt);
void rt_reach_forget(struct runtime_state *rt, uint32_t v, int d);
/** rt_region_rebuild within a batch (same sets and counts), into the
 * region's bitsets, from memoized reaches. */
void rt_memo_rebuild_batched(struct runtime_state *rt, struct region *r, uint32_t base, bool reverse);

/* Start a batch of rebuilds (the walk-or-memo accounting is per batch). */
static inline void rt_memo_batch(struct runtime_state *rt)
{
	rt->memo.walked[0] = rt->memo.walked[1] = rt->memo.walk_max[0] = rt->memo.walk_max[1] = 0;
}

/* A bitset region's rebuild after a computation. A batch's regions of one
 * direction are walked until the walks have cost (in edges) more than the
 * largest of them, then built from memoized reaches: the memo costs a few
 * walks of the batch's evicted subgraph, which batches of few regions (at
 * high budgets, most of them) do not repay (ski rental; twice the largest
 * until the memo's sums got cheaper, docs/scale.md). Up to 1024
 * storages (16 words a bitset) memoized reaches are kept across batches
 * and rows are short, so the memo is used at once: 5% fewer instructions
 * on the ResNet log, 1-3% on U-Net. */
static inline void rt_memo_rebuild(struct runtime_state *rt, struct region *r, uint32_t base, bool reverse)
{
	struct rt_memo *m = &rt->memo;
	if (m->w > 16 && m->walked[reverse] <= m->walk_max[reverse]) {
		/* SPEED-ONLY: a walk or the memo build the same region with the
		 * same counts (check mode compares memo rows with walks). */
		uint64_t a0 = rt->res->heuristic_accesses;
		rt_region_walk_bits(rt, r, base, reverse);
		uint64_t cost = rt->res->heuristic_accesses - a0;
		m->walked[reverse] += cost;
		if (cost > m->walk_max[reverse])
			m->walk_max[reverse] = cost;
	} else {
		rt_memo_rebuild_batched(rt, r, base, reverse);
	}
}

static inline bool rt_memo_kept(const struct runtime_state *rt)
{
	return rt->memo.w != 0;
}

/* Storage v changed (materiality, edges or compute): forget the memoized
 * reaches that may hold it. */
static inline void rt_reach_changed(struct runtime_state *rt, uint32_t v)
{
	if (rt_memo_kept(rt)) {
		rt_reach_forget(rt, v, 0);
		rt_reach_forget(rt, v, 1);
	}
}

/* ---- runtime-classes.c ------------------------------------------------------------------ */

void rt_classes_init(struct runtime_state *rt);
void rt_classes_free(struct runtime_state *rt);
/** Check mode: a few kept evicted-neighbour lists against fresh walks. */
void rt_classes_check(struct runtime_state *rt);
/** s is being evicted: its class, of its compute, merged with its evicted
 * neighbours' (their accesses counted). */
void rt_classes_evict(struct runtime_state *rt, uint32_t s);
/** The storages ids[0, n) were rematerialized or made by one op: their
 * compute leaves their classes, and they have none. */
void rt_classes_computed(struct runtime_state *rt, const uint32_t *ids, size_t n);
/** Storage v's materiality or edges changed: forget the kept evicted
 * neighbour lists that may hold it. */
void rt_en_changed(struct runtime_state *rt, uint32_t v);

/** The arena is full and the free list empty: collect or grow. */
void rt_uf_full(struct rt_classes *c);

/* A new class of storage s's node, of the given value: reuses a free node,
 * else takes the next one, else collects or grows the arena. */
static inline uint32_t rt_uf_new(struct rt_classes *c, uint32_t s, int64_t value)
{
	uint32_t x = c->free;
	if (s >= c->scan)
		c->scan = s + 1;
	if (x != RT_NONE) {
		c->free = c->parent[x];
	} else {
		if (c->len == c->cap)
			rt_uf_full(c);
		x = c->free;
		if (x != RT_NONE)
			c->free = c->parent[x];
		else
			x = (uint32_t)c->len++;
	}
	c->parent[x] = RT_NONE;
	c->value[x] = value;
	return x;
}

/* A new storage s (material): its class, of value 0. */
static inline void rt_classes_made(struct runtime_state *rt, uint32_t s)
{
	rt->cls.ecn[s] = rt_uf_new(&rt->cls, s, 0);
}

/** Walk s's edges into its kept list (rt_evicted_list's slow path). */
const uint32_t *rt_evicted_list_fill(struct runtime_state *rt, uint32_t s, uint32_t *n);

/* Where s's kept evicted-neighbour list starts in cls.en: after the room
 * of the storages before it, as many as their edges in both directions. */
static inline size_t rt_en_off(const struct runtime_state *rt, uint32_t s)
{
	return (size_t)rt->graph.sfwd_off[s] + rt->graph.srev_off[s];
}

/** The distinct evicted neighbours of s (kept lists, see cls.en): *n of
 * them; inline, as the eq costs mostly find the list kept. */
static inline const uint32_t *rt_evicted_list(struct runtime_state *rt, uint32_t s, uint32_t *n)
{
	uint32_t len = rt->cls.en_len[s];
	if (!len)
		return rt_evicted_list_fill(rt, s, n);
	*n = len - 1;
	return rt->cls.en + rt_en_off(rt, s);
}

/* The root of node x, compressing the path (each node on it then points
 * at the root, as eqclass.py's find leaves it); counts an access per node
 * on it into *acc. */
static inline uint32_t rt_uf_find_acc(struct rt_classes *c, uint32_t x, uint64_t *acc)
{
	uint32_t *parent = c->parent;
	uint32_t r = x;
	++*acc;
	while (parent[r] != RT_NONE) {
		r = parent[r];
		++*acc;
	}
	while (x != r && parent[x] != r) {
		uint32_t next = parent[x];
		parent[x] = r;
		x = next;
	}
	return r;
}

/* Up to this many evicted neighbours, on a large log (cls.en_scan), a
 * class sum tells roots apart without the stamps per node. */
#define RT_CLASS_SUM_SCAN 4

/**
 * start plus the values of the distinct union-find classes of s's distinct
 * evicted neighbours, added in the order they are met, with the
 * reference's accesses: one per edge of s walked, one per node on each
 * find's path (the reference's order, so the same path compression).
 * Distinct roots by a stamp per node: linear in the neighbours. Inline, as
 * the eq costs call it for every member they score.
 */
static inline int64_t rt_class_sum(struct runtime_state *rt, uint32_t s, int64_t start)
{
	struct rt_classes *c = &rt->cls;
	int64_t sum = start;
	uint64_t acc = (uint64_t)rt->graph.n_srev[s] + rt->graph.n_sfwd[s];
	uint32_t n;
	const uint32_t *nb = rt_evicted_list(rt, s, &n);
	if (c->en_scan && n <= RT_CLASS_SUM_SCAN) {
		/* a short list's roots told apart by looking back, as its list
		 * was made (rt_evicted_list_fill): the stamps per node stay
		 * untouched (16 MiB fewer resident on the 2^20 chain) */
		uint32_t roots[RT_CLASS_SUM_SCAN];
		for (uint32_t j = 0; j < n; j++) {
			uint32_t r = rt_uf_find_acc(c, c->ecn[nb[j]], &acc), i = 0;
			while (i < j && roots[i] != r)
				i++;
			roots[j] = r;
			if (i == j)
				sum += c->value[r];
		}
		rt->res->heuristic_accesses += acc;
		return sum;
	}
	uint32_t stamp = rt_next_stamp(&c->seen_stamp, c->seen, c->room);
	for (uint32_t j = 0; j < n; j++) {
		uint32_t r = rt_uf_find_acc(c, c->ecn[nb[j]], &acc);
		if (c->seen[r] != stamp) {
			c->seen[r] = stamp;
			sum += c->value[r];
		}
	}
	rt->res->heuristic_accesses += acc;
	return sum;
}

/* ---- runtime-banish.c --------------------------------------------------------------------- */

void rt_banish_init(struct runtime_state *rt);
void rt_banish_free(struct runtime_state *rt);
void rt_try_banish(struct runtime_state *rt, uint32_t s);

/* V1's copies of the edge lists grow as ops come (inline: every op of
 * every baseline replay comes here). An output of op, in storage s: its
 * parents join s's reverse list. */
static inline void rt_banish_new_parents(struct runtime_state *rt, uint32_t s, const struct sched_op *op)
{
	const uint32_t *as = rt->s->arg_storage + op->args;
	struct rt_graph *g = &rt->graph;
	if (!rt->ban.lists)
		return;
	for (uint32_t a = 0; a < op->n_args; a++)
		rt->ban.srev[g->srev_off[s] + g->n_srev[s]++] = as[a];
}

/* Then op's outputs join its arguments' children and forward lists. */
static inline void rt_banish_new_children(struct runtime_state *rt, const struct sched_op *op)
{
	const struct schedule *sc = rt->s;
	struct rt_banish *v = &rt->ban;
	struct rt_graph *g = &rt->graph;
	for (uint32_t a = 0; a < op->n_args; a++) {
		uint32_t p = sc->op_args[op->args + a];
		uint32_t ps = sc->arg_storage[op->args + a];
		for (uint32_t k = 0; k < op->n_outs; k++) {
			v->chi[v->chi_off[p] + v->n_chi[p]++] = op->outs + k;
			if (v->lists)
				v->sfwd[g->sfwd_off[ps] + g->n_sfwd[ps]++] = rt_storage_of(rt, op->outs + k);
		}
	}
}

static inline uint64_t rt_dep_key(uint32_t s, uint32_t t)
{
	return (uint64_t)s << 32 | t;
}

/* Tensor t, evicted, depends on storage s (V1). */
static inline void rt_dep_add(struct runtime_state *rt, uint32_t s, uint32_t t)
{
	if (u64set_add(&rt->ban.deps, rt_dep_key(s, t)))
		rt->ban.n_deps[s]++;
}

static inline void rt_dep_remove(struct runtime_state *rt, uint32_t s, uint32_t t)
{
	if (u64set_remove(&rt->ban.deps, rt_dep_key(s, t)))
		rt->ban.n_deps[s]--;
}

/* ---- runtime-proto.c (NEEDS_PROTO; each is called only when rt->proto.on) ---- */

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

/* ---- runtime-future.c (NEEDS_FUTURE; called only when rt->fut.on) ---- */

void rt_future_init(struct runtime_state *rt);
void rt_future_free(struct runtime_state *rt);
/** Commands from the current one (rt->cmd) to storage s's next use, plus
 * one (1: the current command uses it); 0 when no command uses it again.
 * Moves s's cursor past the uses before the current command. */
static inline uint64_t rt_future_distance(struct runtime_state *rt, uint32_t s)
{
	struct rt_future *f = &rt->fut;
	uint32_t k = f->cur[s], end = f->use_off[s + 1];
	while (k < end && f->use[k] < rt->cmd)
		k++;
	f->cur[s] = k;
	return k < end ? (uint64_t)(f->use[k] - rt->cmd) + 1 : 0;
}

/* ---- runtime-offload.c (each is called only when rt->off.on) ------------------------------ */

void rt_offload_init(struct runtime_state *rt);
void rt_offload_free(struct runtime_state *rt);
/** Retire the copies that have ended by the clock: a copy to the host
 * frees its bytes, a prefetch's storage is material again. */
void rt_offload_settle(struct runtime_state *rt);
/** No victim can help: wait (the clock stalls) for the next copy to the
 * host to end. 0, OUTCOME_OOM when none is under way, OUTCOME_THRASH past
 * the overhead limit. */
int rt_offload_wait(struct runtime_state *rt);
/** Victim s: 1 offload it, 0 drop it, -1 neither can be (swap, host full). */
int rt_offload_decide(struct runtime_state *rt, uint32_t s);
/** Offload victim s: it is evicted, its copy queued, its bytes counted
 * until the copy ends. */
void rt_offload_start(struct runtime_state *rt, uint32_t s);
/** Whether tensor t, undefined, comes back by a copy (its storage has a
 * host copy from when t was defined). */
static inline bool rt_offload_held(const struct runtime_state *rt, uint32_t t)
{
	return rt->off.held[t];
}
/** Bring t's storage back (its bytes fit: RT_HOST needs them free first),
 * waiting for the copy: 0, or OUTCOME_THRASH past the overhead limit. */
int rt_offload_bring(struct runtime_state *rt, uint32_t s);
/** Storage s was just made material by a computation: its host copy, if
 * any, is dropped (a copy under way is cancelled). */
void rt_offload_recomputed(struct runtime_state *rt, uint32_t s);
/** Storage s lost its last handle (eager runtimes): its host copy goes. */
void rt_offload_released(struct runtime_state *rt, uint32_t s);
/** After command i (any kind): start bringing back the inputs of the next
 * --offload-prefetch ops that are on the host, as far as memory allows. */
void rt_offload_prefetch(struct runtime_state *rt, size_t i);
/** Whether remat compute plus stall time passed the overhead limit. */
bool rt_offload_over_limit(const struct runtime_state *rt);
/** runtime-commands.c: storage s (evicted, its bytes counted) is material
 * again with the tensors its host copy holds defined, and joins the pool,
 * as a computation would leave it. */
void rt_restore(struct runtime_state *rt, uint32_t s);
/** runtime-commands.c: an offload's eviction: as rt_evict, but its bytes
 * stay counted (until the copy ends) and no EV_EVICT is reported. */
void rt_evict_keep_bytes(struct runtime_state *rt, uint32_t s);
/** runtime-commands.c: the peak taken after memory grew outside compute. */
static inline void rt_peak_update(struct runtime_state *rt)
{
	if (rt->memory > rt->res->peak_memory)
		rt->res->peak_memory = rt->memory;
}

/* ---- runtime-check.c ----------------------------------------------------------------------- */

void rt_check_state(struct runtime_state *rt);

#endif
