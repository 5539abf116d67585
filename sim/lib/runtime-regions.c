/*
 * runtime-regions.c: evicted regions (simrd's region.py), the evicted
 * neighbourhood of each material storage in each direction, which DTR,
 * MSPS and the AbE heuristics read through their compute sums: rebuilt
 * after a computation (rt_region_rebuild_after) and absorbed into on an
 * eviction (rt_region_absorb, rt_region_absorb_bits). Two
 * representations: bitsets up to RMEMO_MAX_STORAGES storages (rebuilt from
 * the reach memo of runtime-memo.c), compressed sets (CRoaring bitmaps, run
 * containers for the runs of consecutive ids that regions mostly are)
 * beyond, rebuilt by a walk. A third, id lists with a hash index, each
 * rebuild a walk (runtime_config.plain_regions), is the plain reference
 * the tests hold the other two to.
 */
#include <roaring/roaring.h>
#include <stdlib.h>
#include <string.h>

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
	const struct schedule *sc = rt->s;
	const uint32_t *lists = reverse ? rt->srev : rt->sfwd;
	const uint32_t *offs = reverse ? rt->srev_off : rt->sfwd_off;
	const uint32_t *lens = reverse ? rt->n_srev : rt->n_sfwd;
	uint32_t *tag = rt->tag;
	/* One stamp marks both lists: during a rebuild a storage is material
	 * (frontier) or not (interior), never both. The base is pre-marked.
	 * The interior list doubles as the work list (order is irrelevant:
	 * only the sets and the number of visited edges count). */
	if (++rt->tag_stamp >= (1u << 31)) {
		for (size_t i = 0; i < sc->n_storages; i++)
			tag[i] &= 1;
		rt->tag_stamp = 1;
	}
	const uint32_t st2 = rt->tag_stamp << 1;
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

static bool push_one(uint32_t v, void *ctx)
{
	rt_push(ctx, v);
	return true;
}

/* Push the members of a frontier (list, bitset or compressed) on the stack. */
size_t rt_push_frontier(struct runtime_state *rt, const struct region *r)
{
	size_t b = rt->stk_len;
	if (rt->runs) {
		if (r->rfr)
			roaring_iterate(r->rfr, push_one, rt);
	} else if (rt->rw) {
		for (uint32_t i = 0; i < rt->rw; i++)
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

/* region_absorb on bitsets: the same sets, counts and sums. */
/* The words [*lo, *hi) outside which both of reg's bitsets are zero. */

/* Only the words [lo, hi) of reg can hold bits (region_span): one span
 * serves every absorber of an eviction. */
RT_WIDE void rt_region_absorb_bits(struct runtime_state *rt, struct region *r, uint32_t fs,
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

/* rt_region_rebuild's walk into the region's bitsets (same sets and
 * counts), the work list on the stack. */
RT_WIDE void rt_region_walk_bits(struct runtime_state *rt, struct region *r, uint32_t base, bool reverse)
{
	const uint32_t *lists = reverse ? rt->srev : rt->sfwd;
	const uint32_t *offs = reverse ? rt->srev_off : rt->sfwd_off;
	const uint32_t *lens = reverse ? rt->n_srev : rt->n_sfwd;
	const uint32_t *tag = rt->tag;
	uint64_t *in = r->bin, *fr = r->bfr;
	size_t b = rt->stk_len;
	uint64_t acc = 0;
	int64_t compute = 0;
	rt_bits_clear(in, 2 * rt->rw);
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
		if (rt->stk_len == b)
			break;
		x = rt->stk[--rt->stk_len];
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
void rt_region_absorb(struct runtime_state *rt, struct region *r, uint32_t fs,
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
		uint32_t sf = rt_next_stamp(&rt->stamp_b, rt->mark_b, ns);
		for (i = 0; i < r->n_fr; i++)
			rt->mark_b[r->fr[i]] = sf;
		for (i = 0; i < reg->n_fr; i++) {
			uint32_t v = reg->fr[i];
			if (rt->mark_b[v] != sf) {
				rt->mark_b[v] = sf;
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


/* ---- compressed regions --------------------------------------------------
 * Past RMEMO_MAX_STORAGES storages a bitset per region (and a memo row per
 * storage) would take memory quadratic in the log; id lists with a hash
 * index, which only grow, took 512 MB at 8,194 storages on the uniform
 * chain. Here a region's interior and frontier are CRoaring bitmaps: a run
 * of consecutive ids (the chain's regions are a few such runs) costs a few
 * bytes, and an evicted storage's regions are freed. A rebuild is a walk
 * (its cost is the accesses it counts); an absorb costs the runs of the
 * two regions plus the new members it counts. */

/* A walk from base as rt_region_rebuild's (same sets, counts and sums),
 * its interior and frontier gathered on the scratch stack, then stored
 * compressed. */
void rt_region_rebuild_runs(struct runtime_state *rt, struct region *r, uint32_t base, bool reverse)
{
	const struct schedule *sc = rt->s;
	const uint32_t *lists = reverse ? rt->srev : rt->sfwd;
	const uint32_t *offs = reverse ? rt->srev_off : rt->sfwd_off;
	const uint32_t *lens = reverse ? rt->n_srev : rt->n_sfwd;
	const struct rt_key *key = rt->key;
	uint32_t *tag = rt->tag;
	if (++rt->tag_stamp >= (1u << 31)) {
		for (size_t i = 0; i < sc->n_storages; i++)
			tag[i] &= 1;
		rt->tag_stamp = 1;
	}
	const uint32_t st2 = rt->tag_stamp << 1;
	uint64_t acc = 0;
	int64_t compute = 0;
	/* interior ids from b (also the work list), frontier ids in rt->fr2 */
	size_t b = rt->stk_len, w = b;
	rt->fr2_len = 0;
	tag[base] = st2 | (tag[base] & 1);
	for (uint32_t x = base;; x = rt->stk[w++]) {
		const uint32_t *list = lists + offs[x];
		uint32_t n = lens[x];
		acc += n;
		for (uint32_t j = 0; j < n; j++) {
			uint32_t us = list[j];
			uint32_t v = tag[us];
			if ((v & ~1u) == st2)
				continue;
			tag[us] = st2 | (v & 1);
			if (v & 1) {
				if (rt->fr2_len == rt->fr2_cap)
					XGROW(rt->fr2, rt->fr2_cap, rt->fr2_len + 1);
				rt->fr2[rt->fr2_len++] = us;
			} else {
				compute += key[us].compute;
				rt_push(rt, us);
			}
		}
		if (w == rt->stk_len)
			break;
	}
	if (!r->rin) {
		r->rin = roaring_bitmap_create();
		r->rfr = roaring_bitmap_create();
		if (!r->rin || !r->rfr)
			rs_out_of_memory(sizeof(roaring_bitmap_t));
	} else {
		roaring_bitmap_clear(r->rin);
		roaring_bitmap_clear(r->rfr);
	}
	roaring_bitmap_add_many(r->rin, rt->stk_len - b, rt->stk + b);
	roaring_bitmap_add_many(r->rfr, rt->fr2_len, rt->fr2);
	roaring_bitmap_run_optimize(r->rin);
	rt->stk_len = b;
	r->compute = compute;
	rt->res->heuristic_accesses += acc;
}

/* region_absorb on compressed sets: the same sets, counts and sums. */
void rt_region_absorb_runs(struct runtime_state *rt, struct region *r, uint32_t fs,
			   const struct region *reg)
{
	if (!r->rfr || !roaring_bitmap_contains(r->rfr, fs)) {
		region_broken(rt, fs);
		return;
	}
	roaring_bitmap_remove(r->rfr, fs);
	if (r != reg && reg->rin) {
		uint64_t k = roaring_bitmap_andnot_cardinality(reg->rin, r->rin);
		if (k) {
			/* the new members, decoded in bulk (a callback per member
			 * cost 5x more) and summed sequentially */
			roaring_bitmap_t *nw = roaring_bitmap_andnot(reg->rin, r->rin);
			if (!nw)
				rs_out_of_memory(k * sizeof(uint32_t));
			if (rt->fr2_cap < k)
				XGROW(rt->fr2, rt->fr2_cap, k);
			roaring_bitmap_to_uint32_array(nw, rt->fr2);
			uint64_t acc = 0;
			int64_t compute = 0;
			for (uint64_t i = 0; i < k; i++) {
				uint32_t v = rt->fr2[i];
				if (v != fs) {
					acc++;
					compute += rt->key[v].compute;
				}
			}
			rt->res->heuristic_accesses += acc;
			r->compute = rt_wadd(r->compute, compute);
			roaring_bitmap_or_inplace(r->rin, nw);
			roaring_bitmap_free(nw);
			roaring_bitmap_run_optimize(r->rin);
		}
		roaring_bitmap_or_inplace(r->rfr, reg->rfr);
	}
	/* fs itself is counted and summed even if already inside. */
	rt->res->heuristic_accesses++;
	r->compute = rt_wadd(r->compute, rt->key[fs].compute);
	roaring_bitmap_add(r->rin, fs);
}

void rt_region_free_runs(struct region *r)
{
	roaring_bitmap_free(r->rin);
	roaring_bitmap_free(r->rfr);
	r->rin = r->rfr = NULL;
}
