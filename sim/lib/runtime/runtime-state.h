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
 *   costs     runtime-scan.c: the kept costs of clock-free rows;
 *   proto     runtime-proto.c: DTRPrototype's candidates and classes;
 *   fut       runtime-future.c: every storage's future uses (Belady);
 *   off       runtime-offload.c: the host link.
 *
 * This header is the layout: the parts' types, the state, the shared
 * part's helpers. Each part is set up and freed by its owner (rt_X_init,
 * rt_X_free, called from runtime.c) and written only there; another file
 * reads or changes it through the calls and inline accessors of the
 * owner's part header (runtime-regions.h for runtime-regions.c, and so on;
 * runtime-scan.c's is runtime-choose.h), which it includes for the parts
 * it calls: the includes are the arrows between the parts. The
 * arithmetic of keys and costs is runtime-arith.h, which the heuristics
 * use too.
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
#include "runtime-arith.h"
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

#define RT_BROKEN 100 /* a stop code beside OUTCOME_OOM, OUTCOME_THRASH */
/* A run whose remat compute passes this stops as thrash even with no
 * overhead limit: with the reader's bound on a log's total time (2^60 ns)
 * the clock then stays within 64 bits. */
#define RT_REMAT_CAP (INT64_C(1) << 61)

/* ---- the shared part ------------------------------------------------------ */

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
/* runtime-unopt.c: DTRUnopt's kept neighbourhoods (runtime-unopt.h). Per
 * storage, what its last rebuild folded from its two interiors (their
 * compute, latest access, and the list entries the walks read past its
 * own lists), valid while flags has RT_UNOPT_OK; the storages changed
 * since the last choice (pend, each once: RT_UNOPT_PENDING). */
enum { RT_UNOPT_OK = 1, RT_UNOPT_PENDING = 2 };
struct rt_unopt_nb {
	int64_t compute, last;
	uint64_t acc;
	uint32_t flags;
};
struct rt_unopt {
	bool on;
	struct rt_unopt_nb *nb;
	uint32_t *pend;
	uint32_t n_pend;
};

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
	struct rt_unopt unopt;     /* runtime-unopt.c (NEEDS_UNOPT) */
	struct rt_offload off;     /* runtime-offload.c (runtime_config.offload) */
};

/* ---- shared: files and helpers ----------------------------------------------
 * runtime.c           public API: runtime_run, baseline_run, point_run; the
 *                     shared part's init and free, the parts' in order
 * runtime-commands.c  commands, materialize/compute, eviction, the pool, locks
 *                     (runtime-commands.h)
 * runtime-scan.c      a heuristic's choice: the fast scans, the kept costs,
 *                     the draws (runtime-choose.h; runtime-scan.h: the keys)
 * runtime-order.c     the pool in a choice's order (LRU, DTRLocal) (runtime-order.h)
 * runtime-regions.c   evicted regions (region.py): rebuilds and absorbs (runtime-regions.h)
 * runtime-memo.c      the reach memo behind batched rebuilds (Tarjan) (runtime-memo.h)
 * runtime-classes.c   union-find classes and kept evicted-neighbour lists (runtime-classes.h)
 * runtime-banish.c    V1's evicted dependents and banishing (runtime-banish.h)
 * runtime-check.c     check mode (invariants after every command) (runtime-check.h)
 * runtime-proto.c     DTRPrototype: the DTR prototype's candidates, classes, choice
 *                     (runtime-proto.h)
 * runtime-future.c    future uses, for Belady (runtime-future.h)
 * runtime-unopt.c     DTRUnopt's kept neighbourhoods (runtime-unopt.h)
 * runtime-arith.c     exact division (rt_div; runtime-arith.h)
 * runtime-offload.c   the host link: copies, stalls, drop or offload (runtime-offload.h)
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

/* Storage x's edge list in direction d (0: forward, to the storages made
 * from it; 1: reverse, to those it was made from), *n its length. */
static inline const uint32_t *rt_out_list(const struct runtime_state *rt, uint32_t x, int d, uint32_t *n)
{
	*n = d ? rt->graph.n_srev[x] : rt->graph.n_sfwd[x];
	return d ? rt->graph.srev + rt->graph.srev_off[x] : rt->graph.sfwd + rt->graph.sfwd_off[x];
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

#endif
