/*
 * runtime-commands.c: the heart of a replay, the four commands (compute,
 * get, pin, release) and what they do: materializing a tensor (locking its
 * parents, rematerializing the evicted ones, freeing memory by evicting the
 * heuristic's choice, running its op), eviction, and the pool of evictable
 * storages with its locks. Start at rt_replay and cmd_compute. Owns the
 * pool and mat parts of struct runtime_state and writes the shared one;
 * the maintained states (regions, reach memo, classes, V1's banishing,
 * DTRPrototype's candidates) live in their own runtime-*.c files, which
 * it hands their events (rt_regions_evict, rt_classes_computed, ...), and
 * a heuristic's choice is runtime-scan.c's (rt_choose).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heuristics.h"
#include "runtime-banish.h"
#include "runtime-check.h"
#include "runtime-choose.h"
#include "runtime-classes.h"
#include "runtime-commands.h"
#include "runtime-memo.h"
#include "runtime-offload.h"
#include "runtime-order.h"
#include "runtime-proto.h"
#include "runtime-regions.h"
#include "runtime-state.h"
#include "runtime-unopt.h"

/* ---- the pool: an ordered list, appended on joining -------------------
 * An array in joining order; a member that leaves becomes a hole (RT_NONE).
 * Scans pass every slot, so before one the array is compacted, order kept,
 * if holes exceed a quarter of the members; appending to a full array
 * compacts it if holes are over half, else grows it. Most members leave and
 * come back without any scan between (every op locks its inputs), so
 * compacting only for scans saves 5% of the instructions of LRU on the
 * transformer log over compacting as holes appear. Scans read the array
 * sequentially instead of chasing list links. */

void rt_commands_init(struct runtime_state *rt)
{
	/* the pool and frames grow from empty */
	rt->pool.off = rt->h == NULL;
}

void rt_commands_free(struct runtime_state *rt)
{
	free(rt->pool.slot);
	free(rt->pool.size);
	free(rt->pool.compute);
	free(rt->pool.last);
	free(rt->mat.f);
}

/* Slot i's keys become storage s's. */
static inline void pk_put(struct runtime_state *rt, uint32_t i, uint32_t s)
{
	rt->pool.size[i] = rt->key[s].size;
	rt->pool.compute[i] = rt->key[s].compute;
	rt->pool.last[i] = rt->key[s].last;
}

/* The key arrays from the keys, after the ordered pool chose without
 * them (runtime-order.c): a scan is to choose. */
void rt_pool_keys_refresh(struct runtime_state *rt)
{
	struct rt_pool *p = &rt->pool;
	for (uint32_t i = 0; i < p->end; i++) {
		if (p->slot[i] != RT_NONE) {
			pk_put(rt, i, p->slot[i]);
		} else {
			p->size[i] = 0; /* a hole's keys: see struct rt_pool */
			p->compute[i] = INT64_MAX;
			p->last[i] = INT64_MAX;
		}
	}
}

static void rt_pool_compact(struct runtime_state *rt)
{
	struct rt_pool *p = &rt->pool;
	const bool keys = !rt->ord.on;
	uint32_t n = 0;
	for (uint32_t i = 0; i < p->end; i++) {
		uint32_t s = p->slot[i];
		if (s == RT_NONE)
			continue;
		p->slot[n] = s;
		if (keys) {
			p->size[n] = p->size[i];
			p->compute[n] = p->compute[i];
			p->last[n] = p->last[i];
		}
		rt_costs_move(rt, n, i);
		rt->st[s].pool_pos = n++;
	}
	p->end = n;
}

static inline __attribute__((always_inline)) void rt_pool_append(struct runtime_state *rt, uint32_t s)
{
	struct rt_pool *p = &rt->pool;
	struct rt_storage *x = &rt->st[s];
	if (x->in_pool)
		return;
	if (p->off) {
		x->in_pool = true;
		p->len++;
		return;
	}
	if (p->end == p->cap) {
		/* the ordered pool's choices pass no holes: compact less often */
		if (p->end - p->len > (rt->ord.on ? 8 * p->len : p->len / 2)) {
			rt_pool_compact(rt);
		} else {
			size_t cap = p->cap, c1 = cap, c2 = cap, c3 = cap;
			XGROW(p->slot, cap, (size_t)p->end + 1);
			XGROW(p->size, c1, cap);
			XGROW(p->compute, c2, cap);
			XGROW(p->last, c3, cap);
			p->cap = (uint32_t)cap;
			rt_costs_grow(rt, cap);
		}
	}
	x->in_pool = true;
	x->pool_pos = p->end;
	p->slot[p->end++] = s;
	p->len++;
	if (rt->ord.on) {
		rt_order_join(rt, s);
	} else {
		pk_put(rt, p->end - 1, s);
		rt_order_count_join(rt);
	}
	rt_costs_mark(rt, s);
}

/* After key[s] changed: keep the pool-order copy in step. */
static inline void rt_key_sync(struct runtime_state *rt, uint32_t s)
{
	if (rt->st[s].in_pool && !rt->pool.off) {
		if (rt->ord.on)
			rt_order_rekey(rt, s);
		else
			pk_put(rt, rt->st[s].pool_pos, s);
		rt_costs_mark(rt, s);
	}
}


static inline __attribute__((always_inline)) bool rt_pool_remove(struct runtime_state *rt, uint32_t s)
{
	struct rt_pool *p = &rt->pool;
	struct rt_storage *x = &rt->st[s];
	if (!x->in_pool)
		return false;
	x->in_pool = false;
	if (p->off) {
		p->len--;
		return true;
	}
	p->slot[x->pool_pos] = RT_NONE;
	p->len--;
	if (rt->ord.on) {
		rt_order_leave(rt, s);
	} else {
		p->size[x->pool_pos] = 0; /* a hole's keys: see struct rt_pool */
		p->compute[x->pool_pos] = INT64_MAX;
		p->last[x->pool_pos] = INT64_MAX;
	}
	rt_costs_hole(rt, x->pool_pos);
	return true;
}

void rt_pool_check(struct runtime_state *rt)
{
	const struct rt_pool *p = &rt->pool;
	size_t in_pool = 0;
	for (size_t i = 0; i < rt->s->n_storages; i++) {
		const struct rt_storage *x = &rt->st[i];
		/* V1: banishing drops a pinned storage's lock but not its pin, and
		 * a banished storage can come back as the sibling of a
		 * rematerialized output; it then joins the pool unlocked, pin and
		 * all, as in simrd (same numbers). */
		bool should = rt_material(rt, (uint32_t)i) && x->ref_int == 0 && (!x->pinned || x->banished);
		if (x->in_pool && !p->off && p->slot[x->pool_pos] != i)
			rt_bug_at(rt, "the pool's slot of a member is stale", (uint32_t)i);
		/* the key arrays are kept while the scans choose */
		if (x->in_pool && !p->off && !rt->ord.on &&
		    (p->size[x->pool_pos] != rt->key[i].size || p->compute[x->pool_pos] != rt->key[i].compute ||
		     p->last[x->pool_pos] != rt->key[i].last))
			rt_bug_at(rt, "the pool's copy of a key is stale", (uint32_t)i);
		if (should != x->in_pool)
			rt_bug_at(rt, should ? "a material unlocked storage is not in the pool"
					  : "the pool holds a locked, pinned or evicted storage",
			       (uint32_t)i);
		in_pool += x->in_pool;
	}
	if (in_pool != p->len)
		rs_bug("command %zu: pool length %zu, %zu members", rt->cmd, p->len, in_pool);
	rt_order_check(rt);
}

/* ---- locks ------------------------------------------------------------- */

void rt_bug_at(const struct runtime_state *rt, const char *what, uint32_t s)
{
	rs_bug("command %zu: %s (storage %u)", rt->cmd, what, s);
}

static inline __attribute__((always_inline)) void rt_lock(struct runtime_state *rt, uint32_t s)
{
	struct rt_storage *x = &rt->st[s];
	if (!rt_material(rt, s) || x->banished)
		rt_bug_at(rt, "locking an evicted or banished storage", s);
	if (x->ref_int == 0 && !rt_pool_remove(rt, s))
		rt_bug_at(rt, "an unlocked storage was not in the pool", s);
	x->ref_int++;
}

static inline __attribute__((always_inline)) void rt_unlock(struct runtime_state *rt, uint32_t s)
{
	struct rt_storage *x = &rt->st[s];
	if (!rt_material(rt, s) || x->ref_int == 0)
		rt_bug_at(rt, "unlocking an evicted or unlocked storage", s);
	if (--x->ref_int == 0) {
		if (x->in_pool)
			rt_bug_at(rt, "a locked storage was in the pool", s);
		rt_pool_append(rt, s);
	}
}

/* ---- events ------------------------------------------------------------- */

/* dup: the bytes of outputs dropped right after the op ran (compute). */
static void rt_emit(struct runtime_state *rt, enum runtime_event_kind kind, uint32_t op, uint32_t s,
		    uint64_t dup)
{
	if (!rt->cfg->on_event)
		return;
	struct runtime_event ev = {
		.kind = kind, .clock = rt->clock, .memory = rt->memory,
		.memory_high = rt->memory + dup, .op = op, .storage = s,
		.cmd = rt->cmd, /* peak.c, trace.c: where in the log */
	};
	rt->cfg->on_event(rt->cfg->ctx, &ev);
}

/* ---- eviction ----------------------------------------------------------- */

/* drop: the bytes go now (EV_EVICT); else an offload's eviction, whose
 * bytes stay until its copy ends (runtime-offload.c). */
static inline __attribute__((always_inline)) void evict_as(struct runtime_state *rt, uint32_t s, bool drop)
{
	const struct schedule *sc = rt->s;
	struct rt_storage *x = &rt->st[s];
	if (x->ref_int)
		rt_bug_at(rt, "evicting a locked storage", s);
	rt->tag[s] &= ~1u;
	rt_reach_changed(rt, s);
	rt_unopt_changed(rt, s);
	if (rt->eqclass)
		rt_en_changed(rt, s);
	if (drop)
		rt->memory -= rt->key[s].size;
	rt_pool_remove(rt, s);
	for (uint32_t i = 0; i < x->n_tensors; i++) {
		uint32_t t = sc->storage_tensors[sc->storages[s].tensors + i];
		rt->defined[t] = 0;
		if (rt->v1) {
			const uint32_t *ps = rt->graph.par + rt_par_off(rt, t);
			for (uint32_t j = 0; j < rt_n_par(rt, t); j++) {
				uint32_t p = rt_storage_of(rt, ps[j]);
				if (p != s)
					rt_dep_add(rt, p, t);
			}
		}
	}
	rt->res->evictions++;
	if (rt->regions)
		rt_regions_evict(rt, s);
	if (rt->eqclass)
		rt_classes_evict(rt, s);
	if (__builtin_expect(rt->proto.on, 0))
		rt_proto_evicting(rt, s);
	if (drop)
		rt_emit(rt, EV_EVICT, RT_NONE, s, 0);
}

void rt_evict(struct runtime_state *rt, uint32_t s)
{
	evict_as(rt, s, true);
}

void rt_evict_keep_bytes(struct runtime_state *rt, uint32_t s)
{
	evict_as(rt, s, false);
}

static void pin_tensor(struct runtime_state *rt, uint32_t t)
{
	uint32_t s = rt_storage_of(rt, t);
	struct rt_storage *x = &rt->st[s];
	if (!rt_material(rt, s))
		rt_bug_at(rt, "pinning an evicted storage", s);
	if (x->pinned)
		return;
	rt_lock(rt, s);
	x->pinned = true;
}

/* Offload: s, evicted with its bytes counted, is material again, as
 * compute() leaves a storage it made (the same events, in its order). */
void rt_restore(struct runtime_state *rt, uint32_t s)
{
	const struct schedule *sc = rt->s;
	rt->tag[s] |= 1;
	for (uint32_t i = 0; i < rt->st[s].n_tensors; i++) {
		uint32_t t = sc->storage_tensors[sc->storages[s].tensors + i];
		rt->defined[t] = rt_offload_take_held(rt, t);
	}
	rt_reach_changed(rt, s);
	rt_unopt_changed(rt, s);
	if (rt->eqclass)
		rt_en_changed(rt, s);
	if (rt->st[s].ref_int)
		rt_bug_at(rt, "a storage brought back is locked", s);
	rt_pool_append(rt, s);
	size_t b = rt->scratch.stk_len;
	rt_push(rt, s);
	if (rt->regions)
		rt_regions_computed(rt, b, b + 1);
	if (rt->eqclass)
		rt_classes_computed(rt, rt->scratch.stk + b, 1);
	rt->scratch.stk_len = b;
}

/* ---- choosing ------------------------------------------------------------ */

/* With offload (runtime-offload.c): a victim may be offloaded, whose bytes
 * go only when its copy ends; once the victims chosen would make room when
 * their copies end, or none is left, the op waits for the copies. */
static int free_memory_offload(struct runtime_state *rt, uint64_t bytes)
{
	for (;;) {
		rt_offload_settle(rt);
		if (!rt_over(rt, rt->memory + bytes))
			return 0;
		if (rt_over(rt, rt->memory - rt->off.pending + bytes) && rt->pool.len && rt->h) {
			if (rt->pool.end - rt->pool.len > rt->pool.len / 4 + 16)
				rt_pool_compact(rt);
			uint32_t v = rt_choose(rt);
			int how = rt_offload_decide(rt, v);
			if (how < 0)
				return OUTCOME_OOM;
			if (how)
				rt_offload_start(rt, v);
			else
				rt_evict(rt, v);
			if (rt->broken)
				return RT_BROKEN;
			continue;
		}
		int rc = rt_offload_wait(rt);
		if (rc)
			return rc;
	}
}

static int free_memory(struct runtime_state *rt, uint64_t bytes)
{
	if (__builtin_expect(rt->off.on, 0))
		return free_memory_offload(rt, bytes);
	while (rt_over(rt, rt->memory + bytes)) {
		if (rt->pool.len == 0 || !rt->h)
			return OUTCOME_OOM;
		/* for the scans; the ordered pool's choice reads no slots */
		if (!rt->ord.on && rt->pool.end - rt->pool.len > rt->pool.len / 4 + 16)
			rt_pool_compact(rt);
		uint32_t v = rt_choose(rt);
		if (v == RT_NONE) /* DTRPrototype: none of its candidates can go */
			return OUTCOME_OOM;
		evict_as(rt, v, true); /* inline: once per rematerialization on a chain */
		if (rt->broken)
			return RT_BROKEN;
	}
	return 0;
}

/* ---- materializing --------------------------------------------------------- */

static inline uint64_t out_bytes(const struct runtime_state *rt, uint32_t t)
{
	return rt->s->tensors[t].alias >= 0 ? 0 : rt->key[rt_storage_of(rt, t)].size;
}

/* Bytes of t's siblings that are defined already (a remat recomputes them
 * too, and compute() frees the copies once the op is done). */
static uint64_t rt_defined_outputs_bytes(const struct runtime_state *rt, uint32_t t)
{
	const struct sched_op *op = &rt->s->ops[rt->s->tensors[t].op];
	uint64_t dup = 0;
	for (uint32_t k = 0; k < op->n_outs; k++)
		if (op->outs + k != t && rt->defined[op->outs + k])
			dup += out_bytes(rt, op->outs + k);
	return dup;
}

/* The op of t runs: t and its undefined siblings become defined. Leaves on
 * the stack (from the returned base) the undefined siblings, then sets
 * *n_sib to their number. */
static size_t compute(struct runtime_state *rt, uint32_t t, bool remat, size_t *n_sib)
{
	const struct schedule *sc = rt->s;
	struct rt_scratch *x = &rt->scratch;
	uint32_t opi = sc->tensors[t].op;
	const struct sched_op *op = &sc->ops[opi];
	size_t b = x->stk_len;

	if (rt->cfg->check) {
		const uint32_t *ps = rt->graph.par + rt_par_off(rt, t);
		for (uint32_t j = 0; j < rt_n_par(rt, t); j++)
			if (!rt->defined[ps[j]] || !rt_material(rt, rt_storage_of(rt, ps[j])))
				rt_bug_at(rt, "an op ran with an input not material", rt_storage_of(rt, ps[j]));
	}

	uint64_t dup = 0;
	for (uint32_t k = 0; k < op->n_outs; k++) {
		uint32_t u = op->outs + k;
		if (u == t)
			continue;
		if (rt->defined[u])
			dup += out_bytes(rt, u);
		else
			rt_push(rt, u);
	}
	*n_sib = x->stk_len - b;
	size_t bs = x->stk_len;
	for (uint32_t k = 0; k < op->n_outs; k++) {
		uint32_t u = op->outs + k;
		if (u != t && !rt_material(rt, rt_storage_of(rt, u)))
			rt_push(rt, rt_storage_of(rt, u));
	}
	if (!rt_material(rt, rt_storage_of(rt, t)))
		rt_push(rt, rt_storage_of(rt, t));
	size_t es = x->stk_len;

	rt->clock += op->cost;
	rt->memory += op->total_size;
	if (rt->memory > rt->res->peak_memory)
		rt->res->peak_memory = rt->memory;
	if (remat) {
		rt->res->remat_compute += op->cost;
		rt->res->remats++;
	} else {
		rt->res->model_compute += op->cost;
	}
	rt->tag[rt_storage_of(rt, t)] |= 1;
	rt->defined[t] = 1;
	for (size_t i = b; i < b + *n_sib; i++) {
		uint32_t u = x->stk[i];
		rt->tag[rt_storage_of(rt, u)] |= 1;
		rt->defined[u] = 1;
	}
	rt->memory -= dup;
	for (size_t i = bs; i < es; i++) {
		rt_reach_changed(rt, x->stk[i]);
		rt_unopt_changed(rt, x->stk[i]);
	}
	if (rt->eqclass)
		for (size_t i = bs; i < es; i++)
			rt_en_changed(rt, x->stk[i]);
	for (size_t i = bs; i < es; i++) {
		if (rt->st[x->stk[i]].ref_int)
			rt_bug_at(rt, "a new storage is locked", x->stk[i]);
		rt_pool_append(rt, x->stk[i]);
		if (__builtin_expect(rt->proto.on, 0))
			rt_proto_fresh(rt, x->stk[i]);
		if (__builtin_expect(rt->off.on, 0))
			rt_offload_recomputed(rt, x->stk[i]);
	}
	if (rt->regions && es > bs)
		rt_regions_computed(rt, bs, es);
	if (rt->eqclass)
		rt_classes_computed(rt, x->stk + bs, es - bs);
	x->stk_len = bs;
	rt_emit(rt, remat ? EV_REMAT : EV_COMPUTE, opi, RT_NONE, dup);
	return b;
}

/* materialize's first half for tensor t: its parents' last accesses, the
 * defined parents locked, the undefined ones left on the id stack for the
 * frame to rematerialize and lock in turn. Pushes t's frame. */
static inline __attribute__((always_inline)) void mat_enter(struct runtime_state *rt, uint32_t t, bool remat)
{
	if (rt->v1 && rt->st[rt_storage_of(rt, t)].banished)
		rt_bug_at(rt, "materializing a banished storage", rt_storage_of(rt, t));
	const uint32_t off = rt_par_off(rt, t), np = rt_n_par(rt, t);
	for (uint32_t j = 0; j < np; j++) {
		uint32_t ps = rt->graph.par_s[off + j];
		if (!rt->v1 || rt->st[ps].ref_ext > 0) {
			rt->key[ps].last = rt->clock;
			rt_unopt_touched(rt, ps);
			/* a defined parent is locked below, leaving the pool: the
			 * ordered pool (which keeps no key arrays) need not place
			 * it first */
			if (!rt->ord.on || !rt->defined[rt->graph.par[off + j]])
				rt_key_sync(rt, ps);
		}
	}

	/* Lock the defined parents, then rematerialize and lock the others
	 * (a sibling's remat may define some meanwhile). */
	size_t b = rt->scratch.stk_len;
	for (uint32_t j = 0; j < np; j++) {
		uint32_t p = rt->graph.par[off + j];
		if (rt->defined[p])
			rt_lock(rt, rt_storage_of(rt, p));
		else
			rt_push(rt, p);
	}
	struct rt_mat *m = &rt->mat;
	if (m->len == m->cap)
		XGROW(m->f, m->cap, m->len + 1);
	m->f[m->len++] = (struct rt_frame){
		.t = t, .remat = remat, .b = b, .n_undef = rt->scratch.stk_len - b,
	};
}

/* materialize's second half, once t's parents are material and locked:
 * free memory, run t's op, unlock the parents (V1: banish them). */
static int cmd_evict_after(struct runtime_state *rt, size_t i, bool done);

static int mat_finish(struct runtime_state *rt, uint32_t t, bool remat)
{
	const struct schedule *sc = rt->s;
	const struct sched_op *op = &sc->ops[sc->tensors[t].op];
	int rc;

	/* DTRPrototype's after rule: the op runs first, then memory is freed
	 * while over the budget (its outputs, not candidates yet, and any
	 * duplicates of outputs still material counted, as the prototype's
	 * allocator counts them until the op returns). */
	bool after = __builtin_expect(rt->proto.after, 0); /* set only when proto.on */
	if (__builtin_expect(rt->off.on, 0))
		rt_offload_settle(rt); /* copies ended by now: their bytes are free */
	if (!after && rt_over(rt, rt->memory + op->total_size) && (rc = free_memory(rt, op->total_size)))
		return rc;
	uint64_t dup = after ? rt_defined_outputs_bytes(rt, t) : 0;

	size_t n_sib;
	size_t bsib = compute(rt, t, remat, &n_sib);
	if (after && rt_over(rt, rt->memory + dup) && (rc = free_memory(rt, dup)))
		return rc;
	if (__builtin_expect(rt->proto.on, 0))
		rt_proto_joined(rt, sc->tensors[t].op, remat);

	if (rt->v1) {
		/* Python list iteration over a list that banishing may shrink. */
		for (uint32_t j = 0; j < rt_n_par(rt, t); j++) {
			uint32_t ps = rt_storage_of(rt, rt->graph.par[rt_par_off(rt, t) + j]);
			rt_unlock(rt, ps);
			for (size_t i = bsib; i <= bsib + n_sib; i++) {
				uint32_t u = i < bsib + n_sib ? rt->scratch.stk[i] : t;
				if (rt_storage_of(rt, u) != ps)
					rt_dep_remove(rt, ps, u);
			}
			rt_try_banish(rt, ps);
		}
	} else {
		const uint32_t off = rt_par_off(rt, t), np = rt_n_par(rt, t);
		for (uint32_t j = 0; j < np; j++)
			rt_unlock(rt, rt_storage_of(rt, rt->graph.par[off + j]));
	}
	rt->scratch.stk_len = bsib;
	if (remat && rt->cfg->evict_after && (rc = cmd_evict_after(rt, rt->cmd, false)))
		return rc;

	if ((double)rt->res->remat_compute > rt->cfg->remat_limit || rt->res->remat_compute > RT_REMAT_CAP ||
	    (__builtin_expect(rt->off.on, 0) && rt_offload_over_limit(rt)))
		return OUTCOME_THRASH;

	/* The bottleneck: an op's bytes and its arguments'. Outside V1 an
	 * op's arguments and every storage's size are fixed once it ran, so
	 * a rematerialization adds nothing its first run did not (V1's
	 * argument lists change with banishing: counted every time; check
	 * mode counts every time and holds the rule). */
	const bool same = remat && !rt->v1;
	if (same && !rt->cfg->check)
		return 0;
	uint64_t need = op->total_size;
	const uint32_t off = rt_par_off(rt, t), np = rt_n_par(rt, t);
	for (uint32_t j = 0; j < np; j++) {
		uint64_t pb = out_bytes(rt, rt->graph.par[off + j]);
		/* saturating (a parent counts once per use): never in a real log */
		need = pb > UINT64_MAX / 2 - need ? UINT64_MAX / 2 : need + pb;
	}
	if (same && need > rt->bottleneck)
		rt_bug_at(rt, "a rematerialization's bottleneck exceeds its first run's", rt_storage_of(rt, t));
	if (need > rt->bottleneck)
		rt->bottleneck = need;
	return 0;
}

/* Offload: bring storage s back from the host (or take back one whose copy
 * out is under way, or wait for a prefetch), making room first if its
 * bytes are not counted yet. */
static int fetch(struct runtime_state *rt, uint32_t s)
{
	int rc;
	uint64_t size = rt->key[s].size;
	if (rt->off.where[s] == RT_HOST && rt_over(rt, rt->memory + size) && (rc = free_memory(rt, size)))
		return rc;
	return rt_offload_bring(rt, s);
}

/* Make t defined: its evicted ancestors first, depth first as the
 * reference recurses, on an explicit stack of frames (rt->mat) so that a
 * chain of a million evicted ancestors needs no deep C stack. */
static int materialize(struct runtime_state *rt, uint32_t t, bool remat)
{
	struct rt_mat *m = &rt->mat;
	const size_t base = m->len;
	mat_enter(rt, t, remat);
	while (m->len > base) {
		struct rt_frame *f = &m->f[m->len - 1];
		if (f->i < f->n_undef) {
			uint32_t p = rt->scratch.stk[f->b + f->i];
			if (!f->waiting && !rt->defined[p] && __builtin_expect(rt->off.on, 0) &&
			    rt_offload_held(rt, p)) {
				int rc = fetch(rt, rt_storage_of(rt, p)); /* a copy back, not a remat */
				if (rc) {
					m->len = base;
					return rc;
				}
			}
			if (!f->waiting && !rt->defined[p]) {
				f->waiting = true;
				mat_enter(rt, p, true); /* may move m->f */
				continue;
			}
			f->waiting = false;
			f->i++;
			rt_lock(rt, rt_storage_of(rt, p));
			continue;
		}
		uint32_t ft = f->t;
		bool fremat = f->remat;
		rt->scratch.stk_len = f->b;
		m->len--;
		int rc = mat_finish(rt, ft, fremat);
		if (rc) {
			m->len = base;
			return rc;
		}
	}
	return 0;
}

/* ---- commands --------------------------------------------------------------- */

static int cmd_compute(struct runtime_state *rt, uint32_t opi)
{
	const struct schedule *sc = rt->s;
	const struct sched_op *op = &sc->ops[opi];
	struct rt_graph *g = &rt->graph;
	/* its outputs, each a new handle to its storage (schedule.h's rule) */
	const struct sched_handles hd = schedule_cmd_handles(sc, &(const struct sched_cmd){.kind = CMD_COMPUTE, .id = opi});
	for (uint32_t k = 0; k < hd.n; k++) {
		uint32_t t = hd.first + k;
		const struct sched_tensor *tt = &sc->tensors[t];
		struct rt_storage *x = &rt->st[tt->storage];
		if (tt->alias < 0) {
			rt->key[tt->storage].size = sc->storages[tt->storage].size;
			rt->key[tt->storage].last = RT_NEVER;
			if (rt->eqclass)
				rt_classes_made(rt, tt->storage);
		}
		/* A storage's compute counts each distinct op once; an op's outputs
		 * are consecutive, so only the last tensor can share this op. */
		uint32_t last = x->n_tensors ? sc->storage_tensors[sc->storages[tt->storage].tensors + x->n_tensors - 1] : RT_NONE;
		if (last == RT_NONE || sc->tensors[last].op != opi) {
			rt->key[tt->storage].compute += op->cost;
			rt_regions_compute_added(rt, tt->storage, op->cost);
		}
		rt_key_sync(rt, tt->storage);
		x->n_tensors++;
		x->ref_ext += (uint32_t)hd.delta;
		/* the new tensor's parents join its storage's reverse list (V1:
		 * in its copies, runtime-banish.c) */
		if (rt->v1) {
			rt_banish_new_parents(rt, tt->storage, op);
		} else {
			g->n_srev[tt->storage] += op->n_args;
			rt_regions_edges_added(rt, tt->storage, 1, op->n_args);
		}
		/* (not material yet, or an evicted argument's alias: walks
		 * reach it as they reach an evicted storage) */
		rt_unopt_touched(rt, tt->storage);
		rt->defined[t] = 0;
		if (op->constant)
			rt->res->const_memory += out_bytes(rt, t);
	}
	/* the outputs join their arguments' children and forward lists (V1:
	 * its copies, runtime-banish.c) */
	if (rt->v1) {
		rt_banish_new_children(rt, op);
	} else {
		for (uint32_t a = 0; a < op->n_args; a++) {
			uint32_t ps = sc->arg_storage[op->args + a];
			g->n_sfwd[ps] += op->n_outs;
			rt_regions_edges_added(rt, ps, 0, op->n_outs);
			rt_unopt_touched(rt, ps); /* an argument still evicted */
		}
	}
	/* New edges (arguments to outputs) and computes: memoized reaches
	 * through the outputs are stale, and so are the forward reaches through
	 * the arguments, which the forward walk from each output (over its
	 * parents, the arguments now) forgets too. */
	if (rt_memo_kept(rt))
		for (uint32_t k = 0; k < op->n_outs; k++)
			rt_reach_changed(rt, rt_storage_of(rt, op->outs + k));
	/* The kept evicted-neighbour lists need nothing here: each new edge
	 * joins an argument (locked or rematerialized before any eviction of
	 * this op) and an output, and the lists that gain an evicted member
	 * through it are cleared when that member changes: an output when it
	 * is computed, an evicted argument when it is rematerialized. */
	if (rt->v1) {
		for (uint32_t k = 0; k < op->n_outs; k++) {
			uint32_t t = op->outs + k;
			for (uint32_t a = 0; a < op->n_args; a++) {
				uint32_t ps = rt_storage_of(rt, sc->op_args[op->args + a]);
				if (ps != rt_storage_of(rt, t))
					rt_dep_add(rt, ps, t);
			}
		}
	}
	/* Runs regions: the op's new edges are its window until it runs
	 * (runtime-regions.c). */
	rt_regions_window_open(rt, opi);
	int rc = materialize(rt, op->outs, false);
	rt_regions_window_close(rt);
	if (rc)
		return rc;
	for (uint32_t k = 0; k < op->n_outs; k++) {
		uint32_t os = rt_storage_of(rt, op->outs + k);
		rt->key[os].last = rt->clock;
		rt_unopt_touched(rt, os); /* (an output evicted since it was made) */
		rt_key_sync(rt, os);
	}
	return 0;
}

static int cmd_release(struct runtime_state *rt, uint32_t t)
{
	uint32_t s = rt_storage_of(rt, t);
	struct rt_storage *x = &rt->st[s];
	if (x->ref_ext == 0)
		rt_bug_at(rt, "releasing a storage without references", s);
	x->ref_ext--;
	if (rt->v1) {
		if (x->ref_ext == 0)
			rt_try_banish(rt, s);
	} else if (rt->eager && x->ref_ext == 0 && rt_material(rt, s) && !x->pinned) {
		if (x->ref_int)
			rt_bug_at(rt, "eagerly evicting a locked storage", s);
		rt_evict(rt, s);
		if (rt->broken)
			return RT_BROKEN;
	} else if (__builtin_expect(rt->off.on, 0) && rt->eager && x->ref_ext == 0) {
		rt_offload_released(rt, s);
	}
	return 0;
}

static int cmd_pin(struct runtime_state *rt, uint32_t t)
{
	if (!rt->defined[t] && __builtin_expect(rt->off.on, 0) && rt_offload_held(rt, t)) {
		int rc = fetch(rt, rt_storage_of(rt, t));
		if (rc)
			return rc;
	}
	if (!rt->defined[t]) {
		int rc = materialize(rt, t, true);
		if (rc)
			return rc;
	}
	pin_tensor(rt, t);
	return 0;
}

void rt_pin_tensor(struct runtime_state *rt, uint32_t t)
{
	pin_tensor(rt, t);
}

/* The plan replay's hook (runtime_config.evict_after, sim/lib/analysis/plan.c):
 * evictions a static plan asks for after a command. */
static int cmd_evict_after(struct runtime_state *rt, size_t i, bool done)
{
	const uint32_t *list = NULL;
	size_t n = rt->cfg->evict_after(rt->cfg->ctx, i, done, &list);
	for (size_t k = 0; k < n; k++) {
		uint32_t s = list[k];
		if (rt_material(rt, s) && !rt->st[s].ref_int && !rt->st[s].pinned) {
			rt_evict(rt, s);
			if (rt->broken)
				return RT_BROKEN;
		}
	}
	return 0;
}

static inline void add_handles(struct runtime_state *rt, struct sched_handles h)
{
	for (uint32_t k = 0; k < h.n; k++)
		rt->st[rt_storage_of(rt, h.first + k)].ref_ext += (uint32_t)h.delta;
}

/* The plan replays' hook (runtime_config.before, sim/lib/analysis/plan.c): what a
 * plan runs before a command, rematerializations and evictions in turn. */
static int cmd_before(struct runtime_state *rt, size_t i)
{
	const struct runtime_action *list = NULL;
	size_t n = rt->cfg->before(rt->cfg->ctx, i, &list);
	for (size_t k = 0; k < n; k++) {
		uint32_t id = list[k].id;
		if (list[k].kind == RUNTIME_ACT_REMAT) {
			if (!rt->defined[id]) {
				int rc = materialize(rt, id, true);
				if (rc)
					return rc;
			}
		} else if (rt_material(rt, id) && !rt->st[id].ref_int && !rt->st[id].pinned) {
			rt_evict(rt, id);
			if (rt->broken)
				return RT_BROKEN;
		}
	}
	return 0;
}

/* Replay every command of the schedule (stopping at the first OOM, thrash
 * or broken region): 0 or that stop code, res->stopped_at set. */
int rt_replay(struct runtime_state *rt)
{
	const struct schedule *s = rt->s;
	const struct runtime_config *cfg = rt->cfg;
	const bool before = cfg->before != NULL; /* plan replays only */
	const size_t bits_after_cmd = rt->test->bits_after_cmd;
	int rc = 0;
	for (size_t i = 0; i < s->n_cmds && !rc; i++) {
		const struct sched_cmd *c = &s->cmds[i];
		rt->cmd = i;
		if (__builtin_expect(before, 0) && (rc = cmd_before(rt, i))) {
			rt->res->stopped_at = i;
			break;
		}
		/* Handles by schedule.h's rule: a COMPUTE's made in
		 * cmd_compute, a GET's here, a RELEASE's dropped in cmd_release
		 * (unless no_dealloc). */
		switch (c->kind) {
		case CMD_COMPUTE:
			rc = cmd_compute(rt, c->id);
			break;
		case CMD_GET:
			add_handles(rt, schedule_cmd_handles(s, c));
			break;
		case CMD_PIN:
			rc = cmd_pin(rt, c->id);
			break;
		case CMD_RELEASE:
			if (!cfg->no_dealloc)
				rc = cmd_release(rt, c->id);
			break;
		}
		if (!rc && cfg->evict_after)
			rc = cmd_evict_after(rt, i, true);
		if (!rc && __builtin_expect(rt->reg.sw_due || bits_after_cmd == i + 1, 0)) {
			if (rt->reg.runs)
				rt->res->regions_bits_at = i + 1;
			rt_regions_to_bits(rt);
		}
		if (__builtin_expect(rt->off.on, 0) && !rc)
			rt_offload_prefetch(rt, i);
		if (__builtin_expect(cfg->stop != NULL, 0) && !rc && cfg->stop(cfg->ctx))
			rc = OUTCOME_OOM;
		if (rc)
			rt->res->stopped_at = i;
		else if (cfg->check)
			rt_check_state(rt);
	}
	return rc;
}
