/*
 * runtime-regions.c: evicted regions (simrd's region.py), the evicted
 * neighbourhood of each material storage in each direction, which DTR,
 * MSPS and the AbE heuristics read through their compute sums: rebuilt
 * after a computation (rt_regions_computed) and absorbed into on an
 * eviction (rt_regions_evict). Two representations: bitsets up to
 * RMEMO_MAX_STORAGES storages (rebuilt from the reach memo of
 * runtime-memo.c), runs of ids (iset.h) beyond, updated from what changed
 * where they can be and walked where they cannot. A third, id lists with a
 * hash index, each rebuild a walk (runtime_test_switches.plain_regions), is the
 * plain reference the tests hold the other two to. Owns the reg part of
 * struct runtime_state; runtime-commands.c hands it the events.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime-choose.h"
#include "runtime-commands.h"
#include "runtime-memo.h"
#include "runtime-regions.h"
#include "runtime-state.h"

/* ---- regions (region.py) ------------------------------------------------ */

static inline void vec_push(uint32_t **v, uint32_t *n, uint32_t *cap, uint32_t x)
{
	if (*n == *cap) {
		size_t c = *cap;
		XGROW(*v, c, (size_t)*n + 1);
		*cap = (uint32_t)c;
	}
	(*v)[(*n)++] = x;
}


void rt_region_rebuild(struct runtime_state *rt, struct region *r, uint32_t base, bool reverse)
{
	const uint32_t *lists = reverse ? rt->graph.srev : rt->graph.sfwd;
	const uint32_t *offs = reverse ? rt->graph.srev_off : rt->graph.sfwd_off;
	const uint32_t *lens = reverse ? rt->graph.n_srev : rt->graph.n_sfwd;
	uint32_t *tag = rt->tag;
	/* One stamp marks both lists: during a rebuild a storage is material
	 * (frontier) or not (interior), never both. The base is pre-marked.
	 * The interior list doubles as the work list (order is irrelevant:
	 * only the sets and the number of visited edges count). */
	const uint32_t st2 = rt_tag_stamp(rt);
	uint64_t acc = 0;
	uint32_t ni = 0, nf = 0;
	tag[base] = st2 | (tag[base] & 1);
	for (uint32_t w = 0, x = base;; x = r->in[w++]) {
		const uint32_t *list = lists + offs[x];
		uint32_t n = lens[x];
		acc += n;
		for (uint32_t j = 0; j < n; j++) {
			uint32_t us = list[j];
			uint32_t v = tag[us];
			if ((v & ~1u) == st2)
				continue;
			tag[us] = st2 | (v & 1);
			if (v & 1)
				vec_push(&r->fr, &nf, &r->cap_fr, us);
			else
				vec_push(&r->in, &ni, &r->cap_in, us);
		}
		if (w == ni)
			break;
	}
	int64_t compute = 0;
	for (uint32_t i = 0; i < ni; i++)
		compute += rt->key[r->in[i]].compute;
	r->n_in = ni;
	r->n_fr = nf;
	r->compute = compute;
	r->hvalid = false;
	rt->res->heuristic_accesses += acc;
}

/* Push the members of a frontier (list, bitset or compressed) on the stack. */
static size_t push_frontier(struct runtime_state *rt, const struct region *r)
{
	size_t b = rt->scratch.stk_len;
	if (rt->reg.runs) {
		if (r->rr)
			for (uint32_t i = 0; i < r->rr->fr.n; i++)
				for (uint32_t v = r->rr->fr.r[2 * i]; v < r->rr->fr.r[2 * i + 1]; v++)
					rt_push(rt, v);
	} else if (rt->reg.words) {
		for (uint32_t i = 0; i < rt->reg.words; i++)
			for (uint64_t m = r->bfr[i]; m; m &= m - 1)
				rt_push(rt, i << 6 | (uint32_t)__builtin_ctzll(m));
	} else {
		for (uint32_t i = 0; i < r->n_fr; i++)
			rt_push(rt, r->fr[i]);
	}
	return b;
}

/* A region on the evicted storage's frontier does not have it on its own
 * frontier: regions and frontiers have drifted apart, which views made by
 * ops with several arguments or results can do (the storage-level graph
 * gets self-loops). simrd asserts here (region.py, absorb) and has no
 * numbers to give, so neither do we: the run stops with an error. */
static void region_broken(struct runtime_state *rt, uint32_t fs)
{
	if (!rt->broken) {
		rt->broken = true;
		rt->broken_storage = fs;
	}
}

/* region_absorb on bitsets: the same sets, counts and sums. Only the words
 * [lo, hi) of reg can hold bits (region_span): one span serves every
 * absorber of an eviction. */
RT_WIDE static void region_absorb_bits(struct runtime_state *rt, struct region *r, uint32_t fs,
				       const struct region *reg, uint32_t lo, uint32_t hi)
{
	const uint64_t fsb = 1ULL << (fs & 63);
	if (!(r->bfr[fs >> 6] & fsb)) {
		region_broken(rt, fs);
		return;
	}
	r->bfr[fs >> 6] &= ~fsb;
	if (r != reg) {
		uint64_t acc = 0;
		int64_t compute = 0;
		for (uint32_t i = lo; i < hi; i++) {
			uint64_t nw = reg->bin[i] & ~r->bin[i];
			r->bfr[i] |= reg->bfr[i];
			if (i == fs >> 6)
				nw &= ~fsb;
			r->bin[i] |= nw;
			for (; nw; nw &= nw - 1) {
				acc++;
				compute += rt->key[i << 6 | (uint32_t)__builtin_ctzll(nw)].compute;
			}
		}
		rt->res->heuristic_accesses += acc;
		r->compute = rt_wadd(r->compute, compute);
	}
	/* fs itself is counted and summed even if already inside. */
	rt->res->heuristic_accesses++;
	r->compute = rt_wadd(r->compute, rt->key[fs].compute);
	r->bin[fs >> 6] |= fsb;
}

/* region_rebuild's walk into the region's bitsets (same sets and
 * counts), the work list on the stack. */
RT_WIDE void rt_region_walk_bits(struct runtime_state *rt, struct region *r, uint32_t base, bool reverse)
{
	const uint32_t *lists = reverse ? rt->graph.srev : rt->graph.sfwd;
	const uint32_t *offs = reverse ? rt->graph.srev_off : rt->graph.sfwd_off;
	const uint32_t *lens = reverse ? rt->graph.n_srev : rt->graph.n_sfwd;
	const uint32_t *tag = rt->tag;
	uint64_t *in = r->bin, *fr = r->bfr;
	size_t b = rt->scratch.stk_len;
	uint64_t acc = 0;
	int64_t compute = 0;
	rt_bits_clear(in, 2 * rt->reg.words);
	for (uint32_t x = base;;) {
		const uint32_t *list = lists + offs[x];
		uint32_t n = lens[x];
		acc += n;
		for (uint32_t j = 0; j < n; j++) {
			uint32_t us = list[j];
			if (tag[us] & 1) {
				rt_bit_set(fr, us);
			} else if (!rt_bit_has(in, us)) {
				rt_bit_set(in, us);
				compute += rt->key[us].compute;
				rt_push(rt, us);
			}
		}
		if (rt->scratch.stk_len == b)
			break;
		x = rt->scratch.stk[--rt->scratch.stk_len];
	}
	fr[base >> 6] &= ~(1ULL << (base & 63));
	r->compute = compute;
	rt->res->heuristic_accesses += acc;
}


/* The interior's membership index, built on the first absorb after a
 * rebuild (most regions are absorbed into many times per rebuild; marking
 * the whole interior each time cost more than all the rest of absorbing). */
static inline uint32_t hslot(uint32_t v, uint32_t mask)
{
	return (v * 0x9E3779B1u >> 7) & mask;
}

static bool index_has(const struct region *r, uint32_t v)
{
	for (uint32_t j = hslot(v, r->hcap - 1);; j = (j + 1) & (r->hcap - 1)) {
		if (r->hs[j] == v)
			return true;
		if (r->hs[j] == RT_NONE)
			return false;
	}
}

static void index_put(struct region *r, uint32_t v)
{
	uint32_t j = hslot(v, r->hcap - 1);
	while (r->hs[j] != RT_NONE)
		j = (j + 1) & (r->hcap - 1);
	r->hs[j] = v;
}

/* Make room for `more` members beyond the interior (rebuilding the index
 * from the list when it is stale or would pass half full). */
static void index_ready(struct region *r, uint32_t more)
{
	size_t need = 2 * ((size_t)r->n_in + more) + 2;
	if (r->hvalid && need <= r->hcap)
		return;
	if (need > r->hcap) {
		uint32_t cap = r->hcap ? r->hcap : 16;
		while (cap < need)
			cap *= 2;
		free(r->hs);
		r->hs = xmalloc((size_t)cap * sizeof *r->hs);
		r->hcap = cap;
	}
	memset(r->hs, 0xff, (size_t)r->hcap * sizeof *r->hs);
	for (uint32_t i = 0; i < r->n_in; i++)
		index_put(r, r->in[i]);
	r->hvalid = true;
}

/* Region r absorbs the just-evicted frontier storage fs, whose region of
 * the same direction is reg (set semantics of region.py's absorb). */
__attribute__((noinline)) static void region_absorb(struct runtime_state *rt, struct region *r, uint32_t fs,
			  const struct region *reg)
{
	size_t ns = rt->s->n_storages;
	uint32_t i;
	for (i = 0; i < r->n_fr && r->fr[i] != fs; i++)
		;
	if (i == r->n_fr) {
		region_broken(rt, fs);
		return;
	}
	r->fr[i] = r->fr[--r->n_fr];
	if (r != reg && reg->n_fr) {
		uint32_t sf = rt_next_stamp(&rt->scratch.stamp_b, rt->scratch.mark_b, ns);
		for (i = 0; i < r->n_fr; i++)
			rt->scratch.mark_b[r->fr[i]] = sf;
		for (i = 0; i < reg->n_fr; i++) {
			uint32_t v = reg->fr[i];
			if (rt->scratch.mark_b[v] != sf) {
				rt->scratch.mark_b[v] = sf;
				vec_push(&r->fr, &r->n_fr, &r->cap_fr, v);
			}
		}
	}
	index_ready(r, (r != reg ? reg->n_in : 0) + 1);
	if (r != reg) {
		for (i = 0; i < reg->n_in; i++) {
			uint32_t v = reg->in[i];
			if (v == fs || index_has(r, v))
				continue;
			index_put(r, v);
			rt->res->heuristic_accesses++;
			r->compute = rt_wadd(r->compute, rt->key[v].compute);
			vec_push(&r->in, &r->n_in, &r->cap_in, v);
		}
	}
	/* fs itself is counted and summed even if already inside. */
	rt->res->heuristic_accesses++;
	r->compute = rt_wadd(r->compute, rt->key[fs].compute);
	if (!index_has(r, fs)) {
		index_put(r, fs);
		vec_push(&r->in, &r->n_in, &r->cap_in, fs);
	}
}



/* ---- regions as runs -------------------------------------------------------
 * Past RMEMO_MAX_STORAGES storages a bitset per region (and a memo row per
 * storage) would take memory quadratic in the log. Here a region's
 * interior and frontier are runs of consecutive ids (iset.h): the regions
 * of a chain, or of the dead part of a training graph (storages released
 * and evicted, which stay in the graph), are a few runs however many
 * members they have.
 *
 * A walk costs the members it visits, and on long logs the regions are
 * long: the uniform chain at n = 2^14 walked 1.9 x 10^9 edges under DTR,
 * about 7 n^2. So a rebuild after a computation derives the region from
 * what changed instead, wherever it can prove the result is the walk's:
 *
 *  - the regions of a storage v that is not itself computed: the storages
 *    of the batch that were in v's interior (K) are material now, and what
 *    only they led to leaves it: the candidates are what K reaches through
 *    evicted storages, and a candidate stays when an edge from the base or
 *    from an interior storage outside the candidates leads to it (then so
 *    does what it reaches). The frontier loses the storages adjacent only
 *    to what left, and gains K where adjacent. This costs the candidates,
 *    not the region; past a work limit it gives up and walks.
 *  - a rematerialized storage c's region in one direction, from a material
 *    neighbour v on the other side whose only non-material neighbour in
 *    this direction was c: v's interior was {c} and c's reach, so c's is
 *    v's less c.
 *
 * Both need the old region to have been the exact reach of its base,
 * which every rebuild and absorb keep, except in one window: a compute
 * command adds the op's edges (arguments to outputs) before the op runs,
 * while its outputs are not material yet and some arguments may be
 * evicted, and rematerializing those arguments rebuilds regions first. A
 * region made before the window (epoch < win_t) whose base or interior
 * has such an edge walks, unless the edge leads to a material storage
 * (then the edge adds that storage to the frontier).
 *
 * The counts are the walk's: a rebuild's accesses are the edges of its
 * base and interior (sums over runs through prefix sums of the current
 * edge counts), its compute the interior's current computes. Check mode
 * compares every derived region with a walk. */

static inline const uint32_t *in_list(const struct runtime_state *rt, uint32_t x, int d, uint32_t *n)
{
	return rt_out_list(rt, x, !d, n);
}

/* In the batch of storages being computed (stk[sb, se)). */
static inline bool in_batch(const struct runtime_state *rt, uint32_t x)
{
	for (size_t i = rt->reg.sb; i < rt->reg.se; i++)
		if (rt->scratch.stk[i] == x)
			return true;
	return false;
}

static struct rregion *rr_get(struct runtime_state *rt, struct region *r)
{
	if (!r->rr) {
		struct rregion *x = rt->reg.rr_free;
		if (x)
			rt->reg.rr_free = x->next_free;
		else
			x = xcalloc(1, sizeof *x);
		iset_clear(&x->in);
		iset_clear(&x->fr);
		x->epoch = 0;
		x->stale = false;
		x->next_free = NULL;
		x->ver = 0;
		r->rr = x;
	}
	return r->rr;
}

struct region *rt_slot_regions(struct runtime_state *rt, uint32_t s)
{
	uint32_t k;
	if (rt->reg.n_slot_free) {
		k = rt->reg.slot_free[--rt->reg.n_slot_free];
	} else {
		if (rt->reg.n_slots == rt->reg.slot_cap) {
			size_t cap = rt->reg.slot_cap ? 2 * rt->reg.slot_cap : 64;
			rt->reg.table = xrealloc(rt->reg.table, 2 * cap * sizeof *rt->reg.table);
			memset(rt->reg.table + 2 * rt->reg.slot_cap, 0, 2 * (cap - rt->reg.slot_cap) * sizeof *rt->reg.table);
			rt->reg.slot_cap = cap;
		}
		k = (uint32_t)rt->reg.n_slots++;
	}
	rt->reg.slot[s] = k;
	return &rt->reg.table[2 * (size_t)k];
}

/* s was evicted: its regions (reset) go back with their slot. */
static void slot_release(struct runtime_state *rt, uint32_t s)
{
	if (rt->reg.slot[s] == RT_NONE)
		return;
	if (rt->reg.n_slot_free == rt->reg.slot_free_cap)
		XGROW(rt->reg.slot_free, rt->reg.slot_free_cap, rt->reg.n_slot_free + 1);
	rt->reg.slot_free[rt->reg.n_slot_free++] = rt->reg.slot[s];
	rt->reg.slot[s] = RT_NONE;
}

static void region_free_runs(struct runtime_state *rt, struct region *r)
{
	r->rr->next_free = rt->reg.rr_free;
	rt->reg.rr_free = r->rr;
	r->rr = NULL;
}

/* Sums over a set of the current computes and edge counts (direction d),
 * two prefix sums a run (iset.h's psum). */
static int64_t sum_compute(const struct runtime_state *rt, const struct iset *s)
{
	const struct psum *p = &rt->reg.ps_comp;
	uint64_t sum = 0;
	for (uint32_t i = 0; i < s->n; i++)
		sum += (uint64_t)psum_prefix(p, s->r[2 * i + 1]) - (uint64_t)psum_prefix(p, s->r[2 * i]);
	return (int64_t)sum;
}

static uint64_t sum_edges(const struct runtime_state *rt, const struct iset *s, int d)
{
	const struct psum32 *p = &rt->reg.ps_len[d];
	uint64_t sum = 0;
	for (uint32_t i = 0; i < s->n; i++)
		sum += (uint32_t)(psum32_prefix(p, s->r[2 * i + 1]) - psum32_prefix(p, s->r[2 * i]));
	return sum;
}

/* Whether x's kept interior sums (direction d) are current: kept, and
 * caught up with the changes since (each one to a member of the
 * interior: of x->in less the ids in `except` and except_id, which
 * joined it since); if too many came, they are dropped. */
static bool sums_catch_up(struct runtime_state *rt, struct rregion *x, int d, const struct iset *except,
			  uint32_t except_id)
{
	const struct rt_regions *g = &rt->reg;
	if (x->ver == g->ps_ver)
		return true;
	/* (a change costs a lookup, a run of the sums two prefix sums) */
	if (!x->ver || g->ps_ver - x->ver >= RT_PS_LOG || g->ps_ver - x->ver > (uint64_t)x->in.n + 4) {
		x->ver = 0;
		return false;
	}
	const uint32_t lo = x->in.n ? x->in.r[0] : 0, hi = x->in.n ? x->in.r[2 * x->in.n - 1] : 0;
	for (uint64_t v = x->ver + 1; v <= g->ps_ver; v++) {
		const struct rt_ps_change *c = &g->ps_log[v % RT_PS_LOG];
		if (c->what != RT_PS_COMPUTE && c->what != RT_PS_EDGES + (uint32_t)d)
			continue;
		if (c->id < lo || c->id >= hi || !iset_has(&x->in, c->id) || c->id == except_id ||
		    (except && iset_has(except, c->id)))
			continue;
		if (c->what == RT_PS_COMPUTE)
			x->sc += (uint64_t)c->delta;
		else
			x->se += (uint64_t)c->delta;
	}
	x->ver = g->ps_ver;
	return true;
}

static inline bool sums_ready(struct runtime_state *rt, struct rregion *x, int d)
{
	return sums_catch_up(rt, x, d, NULL, RT_NONE);
}

static inline uint32_t edges_of(const struct runtime_state *rt, uint32_t s, int d)
{
	return d ? rt->graph.n_srev[s] : rt->graph.n_sfwd[s];
}

static inline uint32_t *sort_scratch(struct runtime_state *rt, size_t n)
{
	if (rt->reg.srt_cap < n)
		XGROW(rt->reg.srt, rt->reg.srt_cap, n);
	return rt->reg.srt;
}

/* A walk from base as region_rebuild's (same sets, counts and sums),
 * its interior and frontier gathered on the scratch stack, then stored as
 * runs. */
static bool walk_runs_upto(struct runtime_state *rt, struct region *r, uint32_t base, int d, uint64_t limit)
{
	const struct rt_key *key = rt->key;
	uint32_t *tag = rt->tag;
	const uint32_t st2 = rt_tag_stamp(rt);
	uint64_t acc = 0;
	int64_t compute = 0;
	/* interior ids from b (also the work list), frontier ids in rt->reg.fr2 */
	size_t b = rt->scratch.stk_len, w = b;
	rt->reg.fr2_len = 0;
	tag[base] = st2 | (tag[base] & 1);
	for (uint32_t x = base;; x = rt->scratch.stk[w++]) {
		uint32_t n;
		const uint32_t *list = rt_out_list(rt, x, d, &n);
		acc += n;
		for (uint32_t j = 0; j < n; j++) {
			uint32_t us = list[j];
			uint32_t v = tag[us];
			if ((v & ~1u) == st2)
				continue;
			tag[us] = st2 | (v & 1);
			if (v & 1) {
				if (rt->reg.fr2_len == rt->reg.fr2_cap)
					XGROW(rt->reg.fr2, rt->reg.fr2_cap, rt->reg.fr2_len + 1);
				rt->reg.fr2[rt->reg.fr2_len++] = us;
			} else {
				compute += key[us].compute;
				rt_push(rt, us);
			}
		}
		if (w == rt->scratch.stk_len)
			break;
		if (acc > limit) {
			rt->scratch.stk_len = b;
			return false;
		}
	}
	struct rregion *x = rr_get(rt, r);
	size_t ni = rt->scratch.stk_len - b;
	uint32_t *tmp = sort_scratch(rt, ni > rt->reg.fr2_len ? ni : rt->reg.fr2_len);
	iset_assign_ids(&x->in, rt->scratch.stk + b, ni, tmp, rt->reg.wb);
	iset_assign_ids(&x->fr, rt->reg.fr2, rt->reg.fr2_len, tmp, rt->reg.wb);
	x->epoch = rt->reg.epoch;
	x->stale = false;
	x->sc = (uint64_t)compute;
	x->se = acc - edges_of(rt, base, d);
	x->ver = rt->reg.ps_ver;
	rt->scratch.stk_len = b;
	r->compute = compute;
	rt->res->heuristic_accesses += acc;
	return true;
}

static void walk_runs(struct runtime_state *rt, struct region *r, uint32_t base, int d)
{
	walk_runs_upto(rt, r, base, d, UINT64_MAX);
}

/* The window's edges in direction d lead from the op's argument storages
 * to its output storages (d = 0), or back (d = 1): sources and targets. */
static inline uint32_t win_count(const struct runtime_state *rt, bool targets, int d)
{
	const struct sched_op *op = &rt->s->ops[rt->reg.win_op];
	return (targets != (d == 1)) ? op->n_outs : op->n_args;
}

static inline uint32_t win_node(const struct runtime_state *rt, bool targets, int d, uint32_t i)
{
	const struct sched_op *op = &rt->s->ops[rt->reg.win_op];
	if (targets != (d == 1))
		return rt_storage_of(rt, op->outs + i);
	return rt->s->arg_storage[op->args + i];
}

/* What the window's edges do to region x of base v: 0 nothing it lacks
 * (none leaves its base or interior, or it was made since they came), 1
 * add their targets (win_add: each target leads nowhere further in this
 * direction, material or not), -1 more (a walk). */
static int win_effect(const struct runtime_state *rt, const struct rregion *x, uint32_t v, int d)
{
	if (!rt->reg.win || x->epoch >= rt->reg.win_t)
		return 0;
	bool touched = false;
	for (uint32_t i = 0, n = win_count(rt, false, d); i < n && !touched; i++) {
		uint32_t a = win_node(rt, false, d, i);
		/* (a source made material since still leads where it did
		 * when the region was made: its edges count there) */
		touched = a == v || iset_has(&x->in, a);
	}
	if (!touched)
		return 0;
	for (uint32_t i = 0, n = win_count(rt, true, d); i < n; i++) {
		uint32_t t = win_node(rt, true, d, i), m;
		if (!rt_material(rt, t) && (rt_out_list(rt, t, d, &m), m))
			return -1;
	}
	return 1;
}

/* The window's targets join a region whose base or interior holds one of
 * its sources (win_effect 1; every source has an edge to every target):
 * the material ones its frontier, the others its interior. */
static void win_add(struct runtime_state *rt, struct rregion *x, uint32_t v, int d)
{
	bool any = false;
	for (uint32_t i = 0, n = win_count(rt, false, d); i < n && !any; i++) {
		uint32_t a = win_node(rt, false, d, i);
		any = a == v || (!rt_material(rt, a) && iset_has(&x->in, a));
	}
	if (!any)
		return;
	for (uint32_t j = 0, m = win_count(rt, true, d); j < m; j++) {
		uint32_t t = win_node(rt, true, d, j);
		if (t != v && iset_add(rt_material(rt, t) ? &x->fr : &x->in, t) && !rt_material(rt, t))
			x->ver = 0;
	}
}

/* Whether material f is adjacent (in direction d) to base v or interior in. */
static bool adjacent(const struct runtime_state *rt, uint32_t f, uint32_t v, int d, const struct iset *in,
		     uint64_t *work)
{
	uint32_t n;
	const uint32_t *list = in_list(rt, f, d, &n);
	*work += n;
	for (uint32_t j = 0; j < n; j++) {
		uint32_t z = list[j];
		if (z == v || (!rt_material(rt, z) && iset_has(in, z)))
			return true;
	}
	return false;
}

static void check_derived(struct runtime_state *rt, const struct region *r, uint32_t v, int d, uint64_t acc);

static void finish_derived(struct runtime_state *rt, struct region *r, uint32_t v, int d)
{
	struct rregion *x = r->rr;
	uint32_t n;
	rt_out_list(rt, v, d, &n);
	x->epoch = rt->reg.epoch;
	if (!sums_ready(rt, x, d)) {
		x->sc = (uint64_t)sum_compute(rt, &x->in);
		x->se = sum_edges(rt, &x->in, d);
		x->ver = rt->reg.ps_ver;
	}
	r->compute = (int64_t)x->sc;
	uint64_t acc = n + x->se;
	rt->res->heuristic_accesses += acc;
	if (rt->cfg->check)
		check_derived(rt, r, v, d, acc);
}

/* Rematerialized storage c's region in direction d from a material
 * neighbour v on the other side (see above); false if none serves. */
static bool own_derived(struct runtime_state *rt, struct region *r, uint32_t c, int d)
{
	uint32_t nin;
	const uint32_t *ins = in_list(rt, c, d, &nin);
	uint64_t work = 0;
	for (uint32_t j = 0, tries = 0; j < nin && tries < 4; j++) {
		uint32_t v = ins[j];
		if (v == c || !rt_material(rt, v) || in_batch(rt, v))
			continue;
		tries++;
		const struct region *rv = rt_regions_peek(rt, v);
		const struct rregion *y = rv ? rv[d].rr : NULL;
		int we;
		if (!y || y->stale || y->epoch < rt->reg.taint_t || !iset_has(&y->in, c) ||
		    (we = win_effect(rt, y, v, d)) < 0)
			continue;
		bool ok = true;
		for (size_t i = rt->reg.sb; i < rt->reg.se && ok; i++)
			ok = rt->scratch.stk[i] == c || !iset_has(&y->in, rt->scratch.stk[i]);
		uint32_t nv;
		const uint32_t *outs = rt_out_list(rt, v, d, &nv);
		for (uint32_t i = 0; i < nv && ok; i++)
			ok = outs[i] == c || (rt_material(rt, outs[i]) && !in_batch(rt, outs[i]));
		if (!ok)
			continue;
		/* v's interior was {c} and c's reach; its frontier, c's
		 * frontier and v's other neighbours (which stay where c's
		 * region also meets them), and not v (unless c's region
		 * meets it: a cycle) */
		struct rregion *x = rr_get(rt, r);
		iset_copy(&x->in, &y->in);
		iset_remove(&x->in, c);
		if (sums_ready(rt, (struct rregion *)y, d)) {
			x->sc = y->sc - (uint64_t)rt->key[c].compute;
			x->se = y->se - edges_of(rt, c, d);
			x->ver = y->ver;
		} else {
			x->ver = 0;
		}
		iset_copy(&x->fr, &y->fr);
		iset_remove(&x->fr, v);
		for (uint32_t i = 0; i < nv; i++)
			if (outs[i] != c && !adjacent(rt, outs[i], c, d, &y->in, &work))
				iset_remove(&x->fr, outs[i]);
		if (adjacent(rt, v, c, d, &y->in, &work))
			iset_add(&x->fr, v);
		iset_remove(&x->fr, c);
		if (we > 0)
			win_add(rt, x, c, d);
		finish_derived(rt, r, c, d);
		return true;
	}
	return false;
}

/* The derivation from K (the batch's storages in x's interior, stk[b, ke)):
 * false, with nothing changed, if it would cost more than limit edges. */
static bool derive_upto(struct runtime_state *rt, struct rregion *x, uint32_t v, int d, size_t b, size_t ke,
			uint64_t limit)
{
	const size_t n_st = rt->s->n_storages;
	uint32_t sa = rt_next_stamp(&rt->scratch.stamp_a, rt->scratch.mark_a, n_st);
	for (size_t w = b; w < ke; w++)
		rt->scratch.mark_a[rt->scratch.stk[w]] = sa;
	uint64_t work = 0;
	/* the candidates (after K on the stack): what K reaches through
	 * evicted storages; the material storages met, which may leave the
	 * frontier, in fr2 */
	uint32_t sb2 = rt_next_stamp(&rt->scratch.stamp_b, rt->scratch.mark_b, n_st);
	rt->reg.fr2_len = 0;
	for (size_t w = b; w < rt->scratch.stk_len; w++) {
		uint32_t n;
		const uint32_t *list = rt_out_list(rt, rt->scratch.stk[w], d, &n);
		work += n;
		if (work > limit)
			goto over;
		for (uint32_t j = 0; j < n; j++) {
			uint32_t y = list[j];
			if (rt_material(rt, y)) {
				if (rt->scratch.mark_b[y] != sb2) {
					rt->scratch.mark_b[y] = sb2;
					if (rt->reg.fr2_len == rt->reg.fr2_cap)
						XGROW(rt->reg.fr2, rt->reg.fr2_cap, rt->reg.fr2_len + 1);
					rt->reg.fr2[rt->reg.fr2_len++] = y;
				}
			} else if (rt->scratch.mark_a[y] != sa) {
				rt->scratch.mark_a[y] = sa;
				rt_push(rt, y);
			}
		}
	}
	/* the candidates that stay (mark_c): an edge from the base or from
	 * the interior outside K and the candidates leads to them, or from
	 * one that stays */
	uint32_t sc2 = rt_next_stamp(&rt->scratch.stamp_c, rt->scratch.mark_c, n_st);
	size_t e = rt->scratch.stk_len;
	for (size_t w = ke; w < e; w++) {
		uint32_t c = rt->scratch.stk[w];
		uint32_t n;
		const uint32_t *list = in_list(rt, c, d, &n);
		work += n;
		if (work > limit)
			goto over;
		for (uint32_t j = 0; j < n; j++) {
			uint32_t z = list[j];
			if (z == v || (!rt_material(rt, z) && rt->scratch.mark_a[z] != sa && iset_has(&x->in, z))) {
				rt->scratch.mark_c[c] = sc2;
				rt_push(rt, c);
				break;
			}
		}
	}
	for (size_t w = e; w < rt->scratch.stk_len; w++) {
		uint32_t n;
		const uint32_t *list = rt_out_list(rt, rt->scratch.stk[w], d, &n);
		work += n;
		if (work > limit)
			goto over;
		for (uint32_t j = 0; j < n; j++) {
			uint32_t y = list[j];
			if (!rt_material(rt, y) && rt->scratch.mark_a[y] == sa && rt->scratch.mark_c[y] != sc2) {
				rt->scratch.mark_c[y] = sc2;
				rt_push(rt, y);
			}
		}
	}
	/* K and the candidates that do not stay leave the interior */
	size_t k = b;
	for (size_t w = b; w < e; w++)
		if (w < ke || rt->scratch.mark_c[rt->scratch.stk[w]] != sc2)
			rt->scratch.stk[k++] = rt->scratch.stk[w];
	uint32_t *tmp = sort_scratch(rt, k - b);
	sort_u32(rt->scratch.stk + b, k - b, tmp);
	/* the kept sums lose theirs (when every one was a member) */
	uint64_t card = x->in.card;
	bool kept = sums_ready(rt, x, d);
	iset_remove_sorted(&x->in, rt->scratch.stk + b, k - b, &rt->reg.is_tmp2);
	if (kept && card - x->in.card == k - b) {
		for (size_t w = b; w < k; w++) {
			x->sc -= (uint64_t)rt->key[rt->scratch.stk[w]].compute;
			x->se -= edges_of(rt, rt->scratch.stk[w], d);
		}
	} else {
		x->ver = 0;
	}
	/* the storages met that are no longer adjacent leave the frontier */
	for (size_t i = 0; i < rt->reg.fr2_len; i++) {
		uint32_t f = rt->reg.fr2[i];
		if (f != v && !adjacent(rt, f, v, d, &x->in, &work))
			iset_remove(&x->fr, f);
	}
	rt->scratch.stk_len = ke;
	return true;
over:
	rt->scratch.stk_len = ke;
	return false;
}

/* Region r of storage v (not computed in this batch) after the batch's
 * storages became material: derived from its old sets, or walked. The
 * derivation costs what K reaches, a walk what the region holds now:
 * both are tried with growing limits, so a rebuild costs about the
 * cheaper of the two. */
static void update_runs(struct runtime_state *rt, struct region *r, uint32_t v, int d)
{
	struct rregion *x = r->rr;
	int we = x && !x->stale && x->epoch >= rt->reg.taint_t ? win_effect(rt, x, v, d) : -1;
	/* a frontier member no longer material: an eviction it missed */
	for (uint32_t i = 0; we >= 0 && i < x->fr.n; i++)
		for (uint32_t f = x->fr.r[2 * i]; f < x->fr.r[2 * i + 1]; f++)
			if (!rt_material(rt, f)) {
				we = -1;
				break;
			}
	if (we < 0) {
		walk_runs(rt, r, v, d);
		return;
	}
	/* K on the stack from b */
	size_t b = rt->scratch.stk_len;
	for (size_t i = rt->reg.sb; i < rt->reg.se; i++) {
		uint32_t s = rt->scratch.stk[i];
		if (s != v && iset_has(&x->in, s))
			rt_push(rt, s);
	}
	size_t ke = rt->scratch.stk_len;
	if (ke > b) {
		/* A walk costs the edges of the new interior, the old one
		 * less what K cuts off: where the old one's (kept sums, as of
		 * their version) pass the first limit, the derivation goes
		 * first (on the Unrolled GAN three walks in four failed, at
		 * a cost of three times the edges of the walks that did not;
		 * on a chain K cuts off nearly all, and the walk wins after).
		 * Either way the region is the walk's. */
		bool derive_first = x->ver && x->se + edges_of(rt, v, d) > 64;
		for (uint64_t limit = 64;; limit *= 4, derive_first = false) {
			if (derive_first && derive_upto(rt, x, v, d, b, ke, limit))
				break;
			if (walk_runs_upto(rt, r, v, d, limit)) {
				rt->scratch.stk_len = b;
				return;
			}
			if (!derive_first && derive_upto(rt, x, v, d, b, ke, limit))
				break;
		}
	}
	rt->scratch.stk_len = b;
	/* the batch's storages join the frontier where adjacent (K among them) */
	uint64_t work = 0;
	for (size_t i = rt->reg.sb; i < rt->reg.se; i++) {
		uint32_t s = rt->scratch.stk[i];
		if (s != v && adjacent(rt, s, v, d, &x->in, &work))
			iset_add(&x->fr, s);
	}
	if (we > 0)
		win_add(rt, x, v, d);
	iset_remove(&x->fr, v);
	finish_derived(rt, r, v, d);
}

static void region_rebuild_runs(struct runtime_state *rt, struct region *r, uint32_t base, bool reverse)
{
	int d = reverse;
	if (!in_batch(rt, base)) {
		update_runs(rt, r, base, d);
		return;
	}
	/* base's own region: a walk that stops at once needs nothing more */
	uint32_t n;
	const uint32_t *outs = rt_out_list(rt, base, d, &n);
	bool shallow = true;
	for (uint32_t j = 0; j < n && shallow; j++)
		shallow = rt_material(rt, outs[j]) || outs[j] == base;
	if (shallow || !own_derived(rt, r, base, d))
		walk_runs(rt, r, base, d);
}

/* An absorb on runs: past the window's absorbs, the switch to bitsets is
 * due if this window and the one before spoke for it (runtime-state.h). */
static void switch_count(struct runtime_state *rt)
{
	struct rt_regions *g = &rt->reg;
	if (++g->sw_absorbs < RUNS_SWITCH_WINDOW)
		return;
	bool low = g->sw_interior < (uint64_t)RUNS_SWITCH_INTERIOR * RUNS_SWITCH_WINDOW &&
		   g->sw_rebuilds * RUNS_SWITCH_REBUILDS <= RUNS_SWITCH_WINDOW;
	if (low && g->sw_low)
		g->sw_due = true;
	g->sw_low = low;
	g->sw_absorbs = 0;
	g->sw_rebuilds = g->sw_interior = 0;
}

/* An eviction of s on runs: the members of its regions, whose memo rows
 * it would forget on bitsets. */
static void switch_evicting(struct runtime_state *rt, uint32_t s)
{
	for (int d = 0; d < 2; d++) {
		const struct region *r = d ? rt_rev(rt, s) : rt_fwd(rt, s);
		if (r->rr)
			rt->reg.sw_interior += r->rr->in.card;
	}
}

/* Absorbed sets of up to this many runs join in place (iset_or_into). */
#define ABSORB_IN_PLACE 16

/* region_absorb on runs: the same sets, counts and sums. r's direction
 * is d. */
__attribute__((noinline)) static void region_absorb_runs(struct runtime_state *rt, struct region *r, uint32_t fs,
			   const struct region *reg, int d)
{
	struct rregion *x = r->rr;
	if (!x || !iset_remove(&x->fr, fs)) {
		region_broken(rt, fs);
		return;
	}
	/* The kept sums (if any) follow the ids new to the interior, caught
	 * up only if there are any: most absorbs add none. */
	uint64_t gsc = 0, gse = 0;
	bool grown = false;
	if (r != reg && reg->rr) {
		const struct rregion *y = reg->rr;
		if (rt->reg.sw_may)
			switch_count(rt);
		/* The absorbed region is mostly a few runs and the absorber's
		 * many: its runs go into the absorber's in place (the new
		 * members gathered on the way); past ABSORB_IN_PLACE runs, by
		 * a merge into a new set. */
		if (y->fr.n <= ABSORB_IN_PLACE) {
			iset_or_into(&x->fr, &y->fr, NULL);
		} else {
			iset_or(&rt->reg.is_tmp, &x->fr, &y->fr);
			iset_swap(&x->fr, &rt->reg.is_tmp);
		}
		bool merged = y->in.n <= ABSORB_IN_PLACE;
		if (merged)
			iset_or_into(&x->in, &y->in, &rt->reg.is_tmp);
		else
			iset_andnot(&rt->reg.is_tmp, &y->in, &x->in);
		if (rt->reg.is_tmp.card) {
			uint64_t k = rt->reg.is_tmp.card;
			int64_t c = sum_compute(rt, &rt->reg.is_tmp);
			grown = true;
			if (x->ver) {
				gsc = (uint64_t)c;
				gse = sum_edges(rt, &rt->reg.is_tmp, d);
			}
			if (iset_has(&rt->reg.is_tmp, fs)) {
				k--;
				c = rt_wadd(c, -rt->key[fs].compute);
			}
			rt->res->heuristic_accesses += k;
			r->compute = rt_wadd(r->compute, c);
			if (!merged) {
				iset_or(&rt->reg.is_tmp2, &x->in, &rt->reg.is_tmp);
				iset_swap(&x->in, &rt->reg.is_tmp2);
			}
		}
		if (y->epoch < x->epoch)
			x->epoch = y->epoch;
		x->stale |= y->stale;
	}
	/* fs itself is counted and summed even if already inside. */
	rt->res->heuristic_accesses++;
	r->compute = rt_wadd(r->compute, rt->key[fs].compute);
	bool fs_new = iset_add(&x->in, fs);
	if (x->ver && (grown || fs_new)) {
		if (sums_catch_up(rt, x, d, grown ? &rt->reg.is_tmp : NULL, fs_new ? fs : RT_NONE)) {
			x->sc += gsc;
			x->se += gse;
			if (fs_new) {
				x->sc += (uint64_t)rt->key[fs].compute;
				x->se += edges_of(rt, fs, d);
			}
		}
	}
}

static bool iset_eq(const struct iset *a, const struct iset *b)
{
	return a->n == b->n && a->card == b->card &&
	       (!a->n || !memcmp(a->r, b->r, (size_t)a->n * 2 * sizeof *a->r));
}

/* Check mode: a derived region against a walk (sets, compute, accesses). */
static void check_derived(struct runtime_state *rt, const struct region *r, uint32_t v, int d, uint64_t acc)
{
	struct region w = {0};
	uint64_t a0 = rt->res->heuristic_accesses;
	walk_runs(rt, &w, v, d);
	uint64_t wacc = rt->res->heuristic_accesses - a0;
	rt->res->heuristic_accesses = a0;
	bool same = iset_eq(&w.rr->in, &r->rr->in) && iset_eq(&w.rr->fr, &r->rr->fr) &&
		    w.compute == r->compute && wacc == acc;
	region_free_runs(rt, &w);
	if (!same)
		rt_bug_at(rt, d ? "a derived reverse region differs from a walk" : "a derived forward region differs from a walk", v);
}

/* A compute command's new edges to storages already material (outputs
 * that alias a material storage) change the frontiers of its arguments'
 * forward regions and those outputs' reverse regions, which no rebuild may
 * follow (none of its outputs needs computing), as in the reference. */
static void regions_new_edges(struct runtime_state *rt, uint32_t opi)
{
	const struct schedule *sc = rt->s;
	const struct sched_op *op = &sc->ops[opi];
	for (uint32_t k = 0; k < op->n_outs; k++) {
		uint32_t o = rt_storage_of(rt, op->outs + k);
		if (!rt_material(rt, o))
			continue;
		for (uint32_t a = 0; a < op->n_args; a++) {
			uint32_t as = sc->arg_storage[op->args + a];
			if (as == o)
				continue;
			if (rt_fwd(rt, as)->rr)
				rt_fwd(rt, as)->rr->stale = true;
			if (rt_rev(rt, o)->rr)
				rt_rev(rt, o)->rr->stale = true;
		}
	}
}

/* Storage s is being evicted: if either of its regions is stale, the
 * frontiers that list who absorbs it may be short, and any region made
 * until now may lack an absorb. */
static void regions_evicting(struct runtime_state *rt, uint32_t s)
{
	const struct rregion *f = rt_fwd(rt, s)->rr, *r = rt_rev(rt, s)->rr;
	if ((f && f->stale) || (r && r->stale))
		rt->reg.taint_t = ++rt->reg.epoch;
}

/* ---- the part's life, and what the commands ask of it ------------------ */

/* Regions as bitsets of reg.words words, in one block (table made). */
static void bits_init(struct runtime_state *rt)
{
	struct rt_regions *g = &rt->reg;
	const size_t n = rt->s->n_storages;
	g->words = (uint32_t)((n + 63) / 64);
	g->bits = rt_keep_bits(4 * n * g->words + 1, &g->bits_cap);
	for (size_t i = 0; i < 2 * n; i++) {
		g->table[i].bin = g->bits + 2 * i * g->words;
		g->table[i].bfr = g->table[i].bin + g->words;
	}
}

/* The ids of a's runs [lo, hi) set in w, a word at a time. */
static void runs_to_bits(const struct iset *a, uint64_t *w)
{
	for (uint32_t i = 0; i < a->n; i++) {
		uint32_t lo = a->r[2 * i], hi = a->r[2 * i + 1];
		while (lo < hi) {
			uint32_t end = (lo | 63) + 1 < hi ? (lo | 63) + 1 : hi;
			uint32_t n = end - lo;
			w[lo >> 6] |= (n == 64 ? ~0ULL : ((1ULL << n) - 1)) << (lo & 63);
			lo = end;
		}
	}
}

/* What only runs regions keep besides their table and slots. */
static void runs_free(struct rt_regions *g)
{
	while (g->rr_free) {
		struct rregion *x = g->rr_free;
		g->rr_free = x->next_free;
		iset_free(&x->in);
		iset_free(&x->fr);
		free(x);
	}
	for (int d = 0; d < 2; d++)
		psum32_free(&g->ps_len[d]);
	psum_free(&g->ps_comp);
	iset_free(&g->is_tmp);
	iset_free(&g->is_tmp2);
	free(g->wb);
	g->wb = NULL;
	free(g->srt);
	free(g->fr2);
	g->srt = g->fr2 = NULL;
	g->srt_cap = g->fr2_cap = g->fr2_len = 0;
}

void rt_regions_init(struct runtime_state *rt)
{
	const struct schedule *s = rt->s;
	struct rt_regions *g = &rt->reg;
	if (!rt->regions)
		return;
	/* SPEED-ONLY (docs/architecture.md): walks, bitsets or compressed
	 * sets keep the same regions and counts; test-differential compares
	 * all three, the reference test runs plain walks too. */
	g->runs = !rt->test->plain_regions && (rt->test->run_regions || s->n_storages > RMEMO_MAX_STORAGES);
	g->sw_may = g->runs && !rt->test->run_regions && s->n_storages <= RMEMO_MAX_BITSETS;
	if (g->sw_may && !rt->test->bits_after_cmd && __atomic_load_n(&s->regions_to_bits, __ATOMIC_RELAXED))
		g->runs = g->sw_may = false;
	if (g->runs) {
		g->slot = xmalloc((s->n_storages + 1) * sizeof *g->slot);
		memset(g->slot, 0xff, (s->n_storages + 1) * sizeof *g->slot);
		for (int d = 0; d < 2; d++)
			psum32_init(&g->ps_len[d], s->n_storages);
		psum_init(&g->ps_comp, s->n_storages);
		g->ps_ver = 1;
		g->wb = xcalloc(s->n_storages / 64 + 1, sizeof *g->wb);
		return;
	}
	size_t n = s->n_storages;
	g->table = xcalloc(2 * n + 1, sizeof *g->table);
	if (!rt->test->plain_regions)
		bits_init(rt);
}

/* The bitsets and the memo go first (the memo follows reg.words); the slots
 * and their regions' runs after, the memory of the runs part with them. */
void rt_regions_to_bits(struct runtime_state *rt)
{
	struct rt_regions *g = &rt->reg;
	const size_t n = rt->s->n_storages;
	/* A switch the costs asked for (not a test's bits_after_cmd) sends
	 * this schedule's later replays to bitsets from their start. */
	if (g->sw_due)
		__atomic_store_n(&((struct schedule *)rt->s)->regions_to_bits, 1, __ATOMIC_RELAXED);
	g->sw_due = g->sw_may = false;
	if (!g->runs)
		return;
	struct region *old = g->table;
	g->table = xcalloc(2 * n + 1, sizeof *g->table);
	bits_init(rt);
	rt_memo_init(rt);
	for (size_t s = 0; s < n; s++) {
		if (g->slot[s] == RT_NONE)
			continue;
		for (int d = 0; d < 2; d++) {
			struct region *o = &old[2 * (size_t)g->slot[s] + d], *r = &g->table[2 * s + d];
			r->compute = o->compute;
			if (!o->rr)
				continue;
			runs_to_bits(&o->rr->in, r->bin);
			runs_to_bits(&o->rr->fr, r->bfr);
		}
	}
	for (size_t i = 0; i < 2 * g->n_slots; i++) {
		free(old[i].in);
		free(old[i].fr);
		free(old[i].hs);
		if (old[i].rr)
			region_free_runs(rt, &old[i]);
	}
	free(old);
	runs_free(g);
	free(g->slot);
	free(g->slot_free);
	g->slot = g->slot_free = NULL;
	g->n_slots = g->slot_cap = g->n_slot_free = g->slot_free_cap = 0;
	g->runs = false;
	g->win = false;
}

void rt_regions_free(struct runtime_state *rt)
{
	struct rt_regions *g = &rt->reg;
	if (g->table) {
		size_t nr = g->slot ? 2 * g->n_slots : 2 * rt->s->n_storages;
		for (size_t i = 0; i < nr; i++) {
			free(g->table[i].in);
			free(g->table[i].fr);
			free(g->table[i].hs);
			if (g->table[i].rr)
				region_free_runs(rt, &g->table[i]);
		}
		free(g->table);
	}
	free(g->slot);
	free(g->slot_free);
	runs_free(g);
	if (g->bits) {
		/* Only a material storage's regions hold bits (an eviction
		 * empties them): cleared, the block is all zero again, kept for
		 * the thread's next replay (runtime-memo.c). */
		const size_t n = rt->s->n_storages;
		for (size_t s = 0; s < n; s++)
			if (rt_material(rt, (uint32_t)s))
				memset(g->bits + 4 * s * g->words, 0, 4 * (size_t)g->words * sizeof *g->bits);
		if (rt->cfg->check)
			for (size_t i = 0; i < 4 * n * g->words; i++)
				if (g->bits[i])
					rt_bug_at(rt, "an evicted storage's region holds bits", (uint32_t)(i / (4 * g->words)));
		rt_keep_bits_back(g->bits, g->bits_cap);
	}
	free(g->scratch_fwd.in);
	free(g->scratch_fwd.fr);
	free(g->scratch_rev.in);
	free(g->scratch_rev.fr);
}

/* The words [*lo, *hi) outside which both of reg's bitsets are zero. */
static inline void region_span(const struct runtime_state *rt, const struct region *reg, uint32_t *lo,
			       uint32_t *hi)
{
	uint32_t a = 0, b = rt->reg.words;
	while (a < b && !(reg->bin[a] | reg->bfr[a]))
		a++;
	while (b > a && !(reg->bin[b - 1] | reg->bfr[b - 1]))
		b--;
	*lo = a;
	*hi = b;
}

static inline void region_reset(struct runtime_state *rt, struct region *r)
{
	r->n_in = r->n_fr = 0;
	r->compute = 0;
	r->hvalid = false;
	if (rt->reg.words) {
		memset(r->bin, 0, rt->reg.words * sizeof *r->bin);
		memset(r->bfr, 0, rt->reg.words * sizeof *r->bfr);
	}
	/* An evicted storage's regions are empty until it is material again:
	 * their memory goes back, so that only live regions hold any. */
	if (r->rr)
		region_free_runs(rt, r);
}

/* (The list and runs absorbs are kept out of line: inlined here, they
 * cost the bitset path's loop its registers, 0.3% more instructions on
 * the transformer log under DTR.) */
void rt_regions_evict(struct runtime_state *rt, uint32_t s)
{
	struct rt_scratch *x = &rt->scratch;
	if (rt->reg.runs) {
		regions_evicting(rt, s);
		if (rt->reg.sw_may)
			switch_evicting(rt, s);
	}
	/* Forward regions of s's reverse frontier absorb s's forward region,
	 * and the other way round. */
	for (int d = 0; d < 2; d++) {
		struct region *reg = d ? rt_rev(rt, s) : rt_fwd(rt, s);
		uint32_t lo = 0, hi = 0;
		size_t b = push_frontier(rt, d ? rt_fwd(rt, s) : rt_rev(rt, s));
		if (rt->reg.words)
			region_span(rt, reg, &lo, &hi);
		for (size_t i = b; i < x->stk_len; i++) {
			struct region *r = d ? rt_rev(rt, x->stk[i]) : rt_fwd(rt, x->stk[i]);
			reg = d ? rt_rev(rt, s) : rt_fwd(rt, s); /* (r may have moved the slots) */
			rt_costs_mark(rt, x->stk[i]);
			if (rt->reg.runs)
				region_absorb_runs(rt, r, s, reg, d);
			else if (rt->reg.words)
				region_absorb_bits(rt, r, s, reg, lo, hi);
			else
				region_absorb(rt, r, s, reg);
		}
		x->stk_len = b;
	}
	region_reset(rt, rt_fwd(rt, s));
	region_reset(rt, rt_rev(rt, s));
	if (rt->reg.slot)
		slot_release(rt, s);
}

/* A rebuild after a computation: runs derived from what changed, a list
 * walk, or a bitset walk or memo (runtime-memo.c). */
static inline void region_rebuild_after(struct runtime_state *rt, struct region *r, uint32_t base, bool reverse)
{
	if (rt->reg.runs) {
		region_rebuild_runs(rt, r, base, reverse);
		rt->reg.sw_rebuilds++;
	} else if (!rt->reg.words)
		rt_region_rebuild(rt, r, base, reverse);
	else
		rt_memo_rebuild(rt, r, base, reverse);
}

void rt_regions_computed(struct runtime_state *rt, size_t bs, size_t es)
{
	struct rt_scratch *x = &rt->scratch;
	const size_t ns = rt->s->n_storages;
	if (rt->reg.words)
		rt_memo_batch(rt);
	rt->reg.sb = bs;
	rt->reg.se = es;
	for (size_t i = bs; i < es; i++) {
		uint32_t us = x->stk[i];
		region_rebuild_after(rt, rt_fwd(rt, us), us, false);
		region_rebuild_after(rt, rt_rev(rt, us), us, true);
	}
	/* Regions whose frontier the new storages are on: forward regions of
	 * their reverse frontiers, reverse regions of their forward ones. */
	uint32_t sa = rt_next_stamp(&x->stamp_a, x->mark_a, ns);
	uint32_t sb = rt_next_stamp(&x->stamp_b, x->mark_b, ns);
	size_t ba = x->stk_len;
	for (size_t i = bs; i < es; i++) {
		size_t f = push_frontier(rt, rt_rev(rt, x->stk[i])), e = x->stk_len;
		x->stk_len = f;
		for (size_t j = f; j < e; j++) {
			uint32_t v = x->stk[j];
			if (x->mark_a[v] != sa) {
				x->mark_a[v] = sa;
				x->stk[x->stk_len++] = v;
			}
		}
	}
	size_t bb = x->stk_len;
	for (size_t i = bs; i < es; i++) {
		size_t f = push_frontier(rt, rt_fwd(rt, x->stk[i])), e = x->stk_len;
		x->stk_len = f;
		for (size_t j = f; j < e; j++) {
			uint32_t v = x->stk[j];
			if (x->mark_b[v] != sb) {
				x->mark_b[v] = sb;
				x->stk[x->stk_len++] = v;
			}
		}
	}
	size_t eb = x->stk_len;
	for (size_t i = ba; i < bb; i++) {
		region_rebuild_after(rt, rt_fwd(rt, x->stk[i]), x->stk[i], false);
		rt_costs_mark(rt, x->stk[i]);
	}
	for (size_t i = bb; i < eb; i++) {
		region_rebuild_after(rt, rt_rev(rt, x->stk[i]), x->stk[i], true);
		rt_costs_mark(rt, x->stk[i]);
	}
	x->stk_len = es;
}

void rt_regions_window_opening(struct runtime_state *rt, uint32_t opi)
{
	struct rt_regions *g = &rt->reg;
	regions_new_edges(rt, opi);
	g->win_t = ++g->epoch;
	g->win_op = opi;
	g->win = true;
}
