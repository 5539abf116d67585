/*
 * runtime.c: replaying a schedule under a memory budget, exactly as the DTR
 * paper's simulator (simrd) does it: its V1 runtime (banishing) and its V2
 * family (plain, eager eviction, and the "Optimized" variants that keep
 * evicted-neighbourhood regions and union-find classes up to date).
 * docs/semantics.md lists the reference's quirks that this file keeps.
 *
 * Key invariants (see runtime-state.h; verified by check mode):
 *  - a storage is in the pool iff it is material, unlocked and unpinned;
 *  - memory == sum of material storage sizes.
 * A run allocates its state once; the hot paths (choosing, evicting,
 * rematerializing) only grow scratch arrays, region lists and their
 * indexes to their peak sizes, never free them mid-run.
 *
 * Layout for speed: the pool is an array in joining order (holes where
 * members left); each storage keeps the storages of its tensors' children
 * and parents in one list for region walks; one tag word per storage holds
 * bit 0 = material and a walk's visit stamp. Up to RMEMO_MAX_STORAGES
 * storages, regions are bitsets rebuilt from memoized reaches (see
 * "batched rebuilds"); beyond, id lists rebuilt by a walk.
 */
#include "runtime.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heuristics.h"
#include "runtime-state.h"

const char *outcome_name(enum outcome o)
{
	switch (o) {
	case OUTCOME_PASS: return "pass";
	case OUTCOME_OOM: return "oom";
	case OUTCOME_THRASH: return "thrash";
	}
	return "?";
}

/* ---- exact arithmetic ------------------------------------------------ */

static int bitlen128(unsigned __int128 x)
{
	uint64_t hi = (uint64_t)(x >> 64);
	if (hi)
		return 128 - __builtin_clzll(hi);
	uint64_t lo = (uint64_t)x;
	return lo ? 64 - __builtin_clzll(lo) : 0;
}

/* Correctly rounded a / b for a >= 0, b > 0, as CPython's int / int. */
static double div_unsigned(uint64_t a, unsigned __int128 b)
{
	const unsigned __int128 two53 = (unsigned __int128)1 << 53;
	if (a == 0)
		return 0.0;
	if (a <= two53 && b <= two53)
		return (double)a / (double)(uint64_t)b;
	int la = 64 - __builtin_clzll(a) - 1;
	int lb = bitlen128(b) - 1;
	if (lb > 70) /* not reached by real logs; good to ~1 ulp */
		return (double)((long double)a / (long double)b);
	/* Scale so that the integer quotient has 55 or 56 bits. */
	int k = 55 - (la - lb);
	unsigned __int128 num = a, den = b;
	if (k >= 0)
		num <<= k;
	else
		den <<= -k;
	unsigned __int128 q = num / den, r = num % den;
	int drop = bitlen128(q) - 53;
	uint64_t qq = (uint64_t)q;
	uint64_t mant = qq >> drop, rem = qq & ((1ULL << drop) - 1);
	uint64_t half = 1ULL << (drop - 1);
	if (rem > half || (rem == half && (r != 0 || (mant & 1))))
		mant++;
	return ldexp((double)mant, drop - k);
}

double rt_div(int64_t num, unsigned __int128 den)
{
	if (num < 0)
		return -div_unsigned((uint64_t)0 - (uint64_t)num, den);
	return div_unsigned((uint64_t)num, den);
}

/* ---- scratch stack ---------------------------------------------------- */

static inline void push(struct runtime_state *rt, uint32_t v)
{
	if (rt->stk_len == rt->stk_cap)
		XGROW(rt->stk, rt->stk_cap, rt->stk_len + 1);
	rt->stk[rt->stk_len++] = v;
}

static uint32_t next_stamp(uint32_t *stamp, uint32_t *marks, size_t n)
{
	if (++*stamp == 0) {
		memset(marks, 0, n * sizeof *marks);
		*stamp = 1;
	}
	return *stamp;
}

/* ---- the pool: an ordered list, appended on joining -------------------
 * An array in joining order; a member that leaves becomes a hole (RT_NONE).
 * Scans pass every slot, so before one the array is compacted, order kept,
 * if holes exceed a quarter of the members; appending to a full array
 * compacts it if holes are over half, else grows it. Most members leave and
 * come back without any scan between (every op locks its inputs), so
 * compacting only for scans saves 5% of the instructions of LRU on the
 * transformer log over compacting as holes appear. Scans read the array
 * sequentially instead of chasing list links. */

/* Slot i's keys become storage s's. */
static inline void pk_put(struct runtime_state *rt, uint32_t i, uint32_t s)
{
	rt->pk_size[i] = rt->key[s].size;
	rt->pk_compute[i] = rt->key[s].compute;
	rt->pk_last[i] = rt->key[s].last;
}

static void pool_compact(struct runtime_state *rt)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < rt->pool_end; i++) {
		uint32_t s = rt->pool[i];
		if (s == RT_NONE)
			continue;
		rt->pool[n] = s;
		rt->pk_size[n] = rt->pk_size[i];
		rt->pk_compute[n] = rt->pk_compute[i];
		rt->pk_last[n] = rt->pk_last[i];
		rt->st[s].pool_pos = n++;
	}
	rt->pool_end = n;
}

static void pool_append(struct runtime_state *rt, uint32_t s)
{
	struct rt_storage *x = &rt->st[s];
	if (x->in_pool)
		return;
	if (rt->pool_end == rt->pool_cap) {
		if (rt->pool_end - rt->pool_len > rt->pool_len / 2) {
			pool_compact(rt);
		} else {
			size_t cap = rt->pool_cap, c1 = cap, c2 = cap, c3 = cap;
			XGROW(rt->pool, cap, (size_t)rt->pool_end + 1);
			XGROW(rt->pk_size, c1, cap);
			XGROW(rt->pk_compute, c2, cap);
			XGROW(rt->pk_last, c3, cap);
			rt->pool_cap = (uint32_t)cap;
		}
	}
	x->in_pool = true;
	x->pool_pos = rt->pool_end;
	pk_put(rt, rt->pool_end, s);
	rt->pool[rt->pool_end++] = s;
	rt->pool_len++;
}

/* After key[s] changed: keep the pool-order copy in step. */
static inline void key_sync(struct runtime_state *rt, uint32_t s)
{
	if (rt->st[s].in_pool)
		pk_put(rt, rt->st[s].pool_pos, s);
}

/* Whether a key may ever be wide (runtime-state.h), known from the
 * schedule: a storage is at most its op's total output, and its compute is
 * a sum of distinct op costs (non-negative: the reader refuses others), so
 * at most their total. Last accesses are clock readings, which the scans
 * check themselves. */
static bool keys_may_be_wide(const struct schedule *s)
{
	return s->total_compute > RT_NARROW || s->max_output_size > (uint64_t)RT_NARROW;
}

static bool pool_remove(struct runtime_state *rt, uint32_t s)
{
	struct rt_storage *x = &rt->st[s];
	if (!x->in_pool)
		return false;
	x->in_pool = false;
	rt->pool[x->pool_pos] = RT_NONE;
	rt->pk_size[x->pool_pos] = 0; /* a hole's keys: see pk_size */
	rt->pk_compute[x->pool_pos] = INT64_MAX;
	rt->pk_last[x->pool_pos] = INT64_MAX;
	rt->pool_len--;
	return true;
}

/* ---- locks ------------------------------------------------------------- */

static void bug_at(const struct runtime_state *rt, const char *what, uint32_t s)
{
	rs_bug("command %zu: %s (storage %u)", rt->cmd, what, s);
}

static void lock(struct runtime_state *rt, uint32_t s)
{
	struct rt_storage *x = &rt->st[s];
	if (!(rt->tag[s] & 1) || x->banished)
		bug_at(rt, "locking an evicted or banished storage", s);
	if (x->ref_int == 0 && !pool_remove(rt, s))
		bug_at(rt, "an unlocked storage was not in the pool", s);
	x->ref_int++;
}

static void unlock(struct runtime_state *rt, uint32_t s)
{
	struct rt_storage *x = &rt->st[s];
	if (!(rt->tag[s] & 1) || x->ref_int == 0)
		bug_at(rt, "unlocking an evicted or unlocked storage", s);
	if (--x->ref_int == 0) {
		if (x->in_pool)
			bug_at(rt, "a locked storage was in the pool", s);
		pool_append(rt, s);
	}
}

/* ---- union-find classes (eqclass.py) ----------------------------------- */

static uint32_t uf_new(struct runtime_state *rt, int64_t value)
{
	if (rt->uf_len == rt->uf_cap) {
		size_t cap = rt->uf_cap;
		XGROW(rt->uf_parent, cap, rt->uf_len + 1);
		cap = rt->uf_cap;
		XGROW(rt->uf_value, cap, rt->uf_len + 1);
		rt->uf_cap = cap;
	}
	rt->uf_parent[rt->uf_len] = RT_NONE;
	rt->uf_value[rt->uf_len] = value;
	return (uint32_t)rt->uf_len++;
}

uint32_t rt_uf_find(struct runtime_state *rt, uint32_t x)
{
	uint32_t r = x;
	rt->res->heuristic_accesses++;
	while (rt->uf_parent[r] != RT_NONE) {
		r = rt->uf_parent[r];
		rt->res->heuristic_accesses++;
	}
	while (x != r && rt->uf_parent[x] != r) {
		uint32_t next = rt->uf_parent[x];
		rt->uf_parent[x] = r;
		x = next;
	}
	return r;
}

/* Link l's class under r's (r stays the root), summing the values. */
static void uf_merge(struct runtime_state *rt, uint32_t lhs, uint32_t rhs)
{
	uint32_t l = rt_uf_find(rt, lhs), r = rt_uf_find(rt, rhs);
	if (l == r)
		return;
	rt->uf_parent[l] = r;
	rt->uf_value[r] = rt->uf_value[l] + rt->uf_value[r];
}

/* Storage v's materiality or edges changed: forget the kept evicted
 * neighbour lists that may hold it (its neighbours', and its own). */
static void en_changed(struct runtime_state *rt, uint32_t v)
{
	const uint32_t *l = rt->srev + rt->srev_off[v];
	for (uint32_t j = 0, n = rt->n_srev[v]; j < n; j++)
		rt->en_valid[l[j]] = 0;
	l = rt->sfwd + rt->sfwd_off[v];
	for (uint32_t j = 0, n = rt->n_sfwd[v]; j < n; j++)
		rt->en_valid[l[j]] = 0;
	rt->en_valid[v] = 0;
}

const uint32_t *rt_evicted_list(struct runtime_state *rt, uint32_t s, uint32_t *n)
{
	uint32_t *list = rt->en + rt->en_off[s];
	if (!rt->en_valid[s]) {
		uint32_t stamp = next_stamp(&rt->stamp_a, rt->mark_a, rt->s->n_storages), k = 0;
		for (int dir = 0; dir < 2; dir++) {
			const uint32_t *l = dir ? rt->sfwd + rt->sfwd_off[s] : rt->srev + rt->srev_off[s];
			for (uint32_t j = 0, m = dir ? rt->n_sfwd[s] : rt->n_srev[s]; j < m; j++) {
				uint32_t us = l[j];
				if (!(rt->tag[us] & 1) && us != s && rt->mark_a[us] != stamp) {
					rt->mark_a[us] = stamp;
					list[k++] = us;
				}
			}
		}
		rt->en_len[s] = k;
		rt->en_valid[s] = 1;
	}
	*n = rt->en_len[s];
	return list;
}

/* ---- regions (region.py) ------------------------------------------------ */

static inline struct region *fwd(struct runtime_state *rt, uint32_t s)
{
	return &rt->reg[2 * (size_t)s];
}

static inline struct region *rev(struct runtime_state *rt, uint32_t s)
{
	return &rt->reg[2 * (size_t)s + 1];
}

static inline void vec_push(uint32_t **v, uint32_t *n, uint32_t *cap, uint32_t x)
{
	if (*n == *cap) {
		size_t c = *cap;
		XGROW(*v, c, (size_t)*n + 1);
		*cap = (uint32_t)c;
	}
	(*v)[(*n)++] = x;
}

static inline void region_reset(const struct runtime_state *rt, struct region *r)
{
	r->n_in = r->n_fr = 0;
	r->compute = 0;
	r->hvalid = false;
	if (rt->rw) {
		memset(r->bin, 0, rt->rw * sizeof *r->bin);
		memset(r->bfr, 0, rt->rw * sizeof *r->bfr);
	}
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

/* ---- batched rebuilds ----------------------------------------------------
 * The rebuilds that follow one computation all see the same graph (no
 * storage changes materiality, no edge is added between them), and their
 * interiors overlap heavily (dozens of regions over the same evicted
 * subgraph). So each evicted storage's reach, the evicted storages reachable
 * from it through evicted ones plus the material storages at their edge, is
 * memoized as bitsets (Tarjan's algorithm: a strongly connected set of
 * evicted storages shares one reach) and kept across batches until a
 * storage it may hold changes (reach_forget), and a region is the
 * union of its base's evicted neighbours' reaches plus its base's material
 * neighbours, less the base. Its counts are then summed over its interior
 * bits: one access per edge of the base and of each interior storage, as a
 * walk counts them. Regions stay bitsets here (struct region's bin, bfr),
 * so frontiers are visited in id order where a walk's lists had discovery
 * order: only their sets are read (docs/semantics.md, Speed). */

#define RMEMO_MAX_STORAGES 8192

static inline void bits_clear(uint64_t *a, uint32_t w)
{
	for (uint32_t i = 0; i < w; i++)
		a[i] = 0;
}

static void bits_or(uint64_t *restrict a, const uint64_t *restrict b, uint32_t w)
{
	for (uint32_t i = 0; i < w; i++)
		a[i] |= b[i];
}

static inline bool bit_has(const uint64_t *a, uint32_t x)
{
	return a[x >> 6] >> (x & 63) & 1;
}

static inline void bit_set(uint64_t *a, uint32_t x)
{
	a[x >> 6] |= 1ULL << (x & 63);
}

/* Start a batch of rebuilds (the walk-or-memo accounting is per batch). */
static void reach_batch(struct runtime_state *rt)
{
	rt->bwalked[0] = rt->bwalked[1] = rt->bwalk_max[0] = rt->bwalk_max[1] = 0;
}

/* Storage v changed (materiality, edges or compute): forget the memoized
 * reaches of direction d that may hold it, v's own and those of every
 * evicted storage that reaches v in direction d (v in their interior or on
 * their frontier), found by walking the other way from v. A valid row's
 * reach is all valid (a fill validates everything it passes), so the walk
 * stops at rows already forgotten. */
static void reach_forget(struct runtime_state *rt, uint32_t v, int d)
{
	const size_t n = rt->s->n_storages;
	uint8_t *valid = rt->rvalid + d * n;
	const uint32_t *lists = d ? rt->sfwd : rt->srev; /* predecessors */
	const uint32_t *offs = d ? rt->sfwd_off : rt->srev_off;
	const uint32_t *lens = d ? rt->n_sfwd : rt->n_srev;
	size_t b = rt->stk_len;
	valid[v] = 0;
	for (uint32_t x = v;;) {
		const uint32_t *list = lists + offs[x];
		for (uint32_t j = 0, nl = lens[x]; j < nl; j++) {
			uint32_t w = list[j];
			if (valid[w]) {
				valid[w] = 0;
				push(rt, w);
			}
		}
		if (rt->stk_len == b)
			break;
		x = rt->stk[--rt->stk_len];
	}
}

static inline void reach_changed(struct runtime_state *rt, uint32_t v)
{
	if (rt->rw) {
		reach_forget(rt, v, 0);
		reach_forget(rt, v, 1);
	}
}

/* Memoize the reach of evicted storage c in direction d (and of every
 * evicted storage reachable from it): a row of interior words then frontier
 * words per storage. One pass of Tarjan's algorithm: a storage's row
 * gathers its own bit, its material neighbours and the rows of its
 * neighbours in finished strongly connected sets as it meets them; a set's
 * members share the union of their rows. */
RT_WIDE static void reach_fill(struct runtime_state *rt, uint32_t c, int d)
{
	const size_t n = rt->s->n_storages;
	const uint32_t *lists = d ? rt->srev : rt->sfwd;
	const uint32_t *offs = d ? rt->srev_off : rt->sfwd_off;
	const uint32_t *lens = d ? rt->n_srev : rt->n_sfwd;
	const uint32_t *tag = rt->tag;
	const uint32_t w = rt->rw;
	uint8_t *valid = rt->rvalid + d * n, *summed = rt->rsummed + d * n;
	uint32_t *seen = rt->rseen + d * n;
	uint32_t *idx = rt->ridx + d * n, *low = rt->rlow + d * n;
	uint64_t *rows = rt->rrow + d * n * 2 * w;
	uint32_t *dfs = rt->dfs, *pos = rt->dfs_pos, *scc = rt->scc;
	uint32_t nd = 0, ns = 0, count = 0;
	if (++rt->fill == 0) {
		memset(rt->rseen, 0, 2 * n * sizeof *rt->rseen);
		rt->fill = 1;
	}
	const uint32_t fill = rt->fill;

	for (uint32_t y = c; y != RT_NONE;) {
		/* discover y */
		seen[y] = fill;
		summed[y] = 0;
		idx[y] = low[y] = count++;
		dfs[nd] = y;
		pos[nd++] = 0;
		scc[ns++] = y;
		uint64_t *yrow = rows + (size_t)y * 2 * w;
		bits_clear(yrow, 2 * w);
		bit_set(yrow, y);
		y = RT_NONE;
		while (nd) {
			uint32_t x = dfs[nd - 1];
			uint64_t *xin = rows + (size_t)x * 2 * w, *xfr = xin + w;
			const uint32_t *list = lists + offs[x];
			uint32_t j = pos[nd - 1], nl = lens[x];
			for (; j < nl; j++) {
				uint32_t v = list[j];
				if (tag[v] & 1) {
					bit_set(xfr, v);
				} else if (valid[v]) {
					if (!bit_has(xin, v))
						bits_or(xin, rows + (size_t)v * 2 * w, 2 * w);
				} else if (seen[v] != fill) {
					y = v;
					j++;
					break;
				} else if (idx[v] < low[x]) {
					low[x] = idx[v]; /* v is on the stack */
				}
			}
			pos[nd - 1] = j;
			if (y != RT_NONE)
				break;
			/* x is finished */
			nd--;
			if (low[x] == idx[x]) {
				uint32_t k = ns - 1;
				if (scc[k] != x) {
					while (scc[--k] != x)
						;
					for (uint32_t m = k + 1; m < ns; m++)
						bits_or(xin, rows + (size_t)scc[m] * 2 * w, 2 * w);
					for (uint32_t m = k + 1; m < ns; m++)
						memcpy(rows + (size_t)scc[m] * 2 * w, xin, 2 * w * sizeof *xin);
				}
				for (uint32_t m = k; m < ns; m++)
					valid[scc[m]] = 1;
				ns = k;
			}
			if (nd) {
				uint32_t p = dfs[nd - 1];
				if (valid[x]) {
					if (!bit_has(rows + (size_t)p * 2 * w, x))
						bits_or(rows + (size_t)p * 2 * w, xin, 2 * w);
				} else if (low[x] < low[p]) {
					low[p] = low[x];
				}
			}
		}
	}
}

/* rt_region_rebuild within a batch (same sets and counts), into the
 * region's bitsets. */
RT_WIDE static void region_rebuild_batched(struct runtime_state *rt, struct region *r, uint32_t base, bool reverse)
{
	const size_t n = rt->s->n_storages;
	const int d = reverse;
	const uint32_t *list = (d ? rt->srev + rt->srev_off[base] : rt->sfwd + rt->sfwd_off[base]);
	const uint32_t nl = d ? rt->n_srev[base] : rt->n_sfwd[base];
	const uint32_t *lens = d ? rt->n_srev : rt->n_sfwd;
	const uint32_t *tag = rt->tag;
	const uint32_t w = rt->rw;
	const uint8_t *valid = rt->rvalid + d * n;
	const uint64_t *rows = rt->rrow + d * n * 2 * w;
	uint64_t *in = r->bin, *fr = r->bfr; /* adjacent, as in a row */
	uint8_t *summed = rt->rsummed + d * n;
	uint64_t acc = 0;
	int64_t compute = 0;
	uint32_t first = 1;
	/* The region starts as a copy of the first reach, whose sums are kept
	 * with it (computed once while it stays valid, shared by the regions
	 * that start from it); each further reach adds only the members new
	 * to the region. Material neighbours met before the first reach wait
	 * on the stack. */
	size_t b = rt->stk_len;
	for (uint32_t j = 0; j < nl; j++) {
		uint32_t y = list[j];
		if (tag[y] & 1) {
			if (first)
				push(rt, y);
			else
				bit_set(fr, y);
			continue;
		}
		if (!first && bit_has(in, y))
			continue; /* y's reach is closed: all it adds is inside */
		if (!valid[y])
			reach_fill(rt, y, d);
		const uint64_t *row = rows + (size_t)y * 2 * w;
		if (first) {
			first = 0;
			size_t k = d * n + y;
			if (!summed[y]) {
				uint64_t a = 0;
				int64_t c = 0;
				for (uint32_t i = 0; i < w; i++) {
					for (uint64_t b = row[i]; b; b &= b - 1) {
						uint32_t x = i << 6 | (uint32_t)__builtin_ctzll(b);
						a += lens[x];
						c += rt->key[x].compute;
					}
				}
				summed[y] = 1;
				rt->racc[k] = a;
				rt->rcomp[k] = c;
			}
			acc = rt->racc[k];
			compute = rt->rcomp[k];
			memcpy(in, row, 2 * w * sizeof *in);
			continue;
		}
		for (uint32_t i = 0; i < w; i++) {
			for (uint64_t b = row[i] & ~in[i]; b; b &= b - 1) {
				uint32_t x = i << 6 | (uint32_t)__builtin_ctzll(b);
				acc += lens[x];
				compute += rt->key[x].compute;
			}
			in[i] |= row[i];
			fr[i] |= row[w + i];
		}
	}
	if (first)
		bits_clear(in, 2 * w);
	for (; rt->stk_len > b; rt->stk_len--)
		bit_set(fr, rt->stk[rt->stk_len - 1]);
	fr[base >> 6] &= ~(1ULL << (base & 63));
	acc += nl;
	r->compute = compute;
	rt->res->heuristic_accesses += acc;
}

/* Push the members of a frontier (list or bitset) on the stack. */
static size_t push_frontier(struct runtime_state *rt, const struct region *r)
{
	size_t b = rt->stk_len;
	if (rt->rw) {
		for (uint32_t i = 0; i < rt->rw; i++)
			for (uint64_t m = r->bfr[i]; m; m &= m - 1)
				push(rt, i << 6 | (uint32_t)__builtin_ctzll(m));
	} else {
		for (uint32_t i = 0; i < r->n_fr; i++)
			push(rt, r->fr[i]);
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
static void region_span(const struct runtime_state *rt, const struct region *reg, uint32_t *lo,
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

/* Only the words [lo, hi) of reg can hold bits (region_span): one span
 * serves every absorber of an eviction. */
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

/* rt_region_rebuild's walk into the region's bitsets (same sets and
 * counts), the work list on the stack. */
RT_WIDE static void region_walk_bits(struct runtime_state *rt, struct region *r, uint32_t base, bool reverse)
{
	const uint32_t *lists = reverse ? rt->srev : rt->sfwd;
	const uint32_t *offs = reverse ? rt->srev_off : rt->sfwd_off;
	const uint32_t *lens = reverse ? rt->n_srev : rt->n_sfwd;
	const uint32_t *tag = rt->tag;
	uint64_t *in = r->bin, *fr = r->bfr;
	size_t b = rt->stk_len;
	uint64_t acc = 0;
	int64_t compute = 0;
	bits_clear(in, 2 * rt->rw);
	for (uint32_t x = base;;) {
		const uint32_t *list = lists + offs[x];
		uint32_t n = lens[x];
		acc += n;
		for (uint32_t j = 0; j < n; j++) {
			uint32_t us = list[j];
			if (tag[us] & 1) {
				bit_set(fr, us);
			} else if (!bit_has(in, us)) {
				bit_set(in, us);
				compute += rt->key[us].compute;
				push(rt, us);
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

/* A rebuild after a computation. Where the memo is kept, a batch's regions
 * of one direction are walked until the walks have cost (in edges) twice
 * the largest of them, then built from memoized reaches: the memo costs a
 * few walks of the batch's evicted subgraph, which batches of few regions
 * (at high budgets, most of them) do not repay (ski rental). Up to 1024
 * storages (16 words a bitset) memoized reaches are kept across batches
 * and rows are short, so the memo is used at once: 5% fewer instructions
 * on the ResNet log, 1-3% on U-Net. */
static void region_rebuild_after(struct runtime_state *rt, struct region *r, uint32_t base, bool reverse)
{
	if (!rt->rw)
		rt_region_rebuild(rt, r, base, reverse);
	else if (rt->rw > 16 && rt->bwalked[reverse] <= 2 * rt->bwalk_max[reverse]) {
		uint64_t a0 = rt->res->heuristic_accesses;
		region_walk_bits(rt, r, base, reverse);
		uint64_t cost = rt->res->heuristic_accesses - a0;
		rt->bwalked[reverse] += cost;
		if (cost > rt->bwalk_max[reverse])
			rt->bwalk_max[reverse] = cost;
	} else {
		region_rebuild_batched(rt, r, base, reverse);
	}
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
static void region_absorb(struct runtime_state *rt, struct region *r, uint32_t fs,
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
		uint32_t sf = next_stamp(&rt->stamp_b, rt->mark_b, ns);
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

/* ---- events ------------------------------------------------------------- */

static void emit(struct runtime_state *rt, enum runtime_event_kind kind, uint32_t op, uint32_t s)
{
	if (!rt->cfg->on_event)
		return;
	struct runtime_event ev = {
		.kind = kind, .clock = rt->clock, .memory = rt->memory, .op = op, .storage = s,
		.cmd = rt->cmd, /* peak.c, trace.c: where in the log */
	};
	rt->cfg->on_event(rt->cfg->ctx, &ev);
}

/* ---- V1 evicted dependents ---------------------------------------------- */

static inline uint64_t dep_key(uint32_t s, uint32_t t)
{
	return (uint64_t)s << 32 | t;
}

static void dep_add(struct runtime_state *rt, uint32_t s, uint32_t t)
{
	if (u64set_add(&rt->deps, dep_key(s, t)))
		rt->st[s].deps++;
}

static void dep_remove(struct runtime_state *rt, uint32_t s, uint32_t t)
{
	if (u64set_remove(&rt->deps, dep_key(s, t)))
		rt->st[s].deps--;
}

/* ---- eviction ----------------------------------------------------------- */

static void evict(struct runtime_state *rt, uint32_t s)
{
	const struct schedule *sc = rt->s;
	struct rt_storage *x = &rt->st[s];
	if (x->ref_int)
		bug_at(rt, "evicting a locked storage", s);
	rt->tag[s] &= ~1u;
	reach_changed(rt, s);
	if (rt->eqclass)
		en_changed(rt, s);
	rt->memory -= rt->key[s].size;
	pool_remove(rt, s);
	for (uint32_t i = 0; i < x->n_tensors; i++) {
		uint32_t t = sc->storage_tensors[sc->storages[s].tensors + i];
		rt->defined[t] = 0;
		if (rt->v1) {
			const uint32_t *ps = rt->par + rt->par_off[t];
			for (uint32_t j = 0; j < rt->n_par[t]; j++) {
				uint32_t p = rt_storage_of(rt, ps[j]);
				if (p != s)
					dep_add(rt, p, t);
			}
		}
	}
	rt->res->evictions++;

	if (rt->regions) {
		/* Forward regions of s's reverse frontier absorb s's forward
		 * region, and the other way round. */
		for (int d = 0; d < 2; d++) {
			struct region *reg = d ? rev(rt, s) : fwd(rt, s);
			uint32_t lo = 0, hi = 0;
			size_t b = push_frontier(rt, d ? fwd(rt, s) : rev(rt, s));
			if (rt->rw)
				region_span(rt, reg, &lo, &hi);
			for (size_t i = b; i < rt->stk_len; i++) {
				struct region *r = d ? rev(rt, rt->stk[i]) : fwd(rt, rt->stk[i]);
				if (rt->rw)
					region_absorb_bits(rt, r, s, reg, lo, hi);
				else
					region_absorb(rt, r, s, reg);
			}
			rt->stk_len = b;
		}
		region_reset(rt, fwd(rt, s));
		region_reset(rt, rev(rt, s));
	}
	if (rt->eqclass) {
		if (x->ecn != RT_NONE)
			bug_at(rt, "an evicted storage already has a class", s);
		x->ecn = uf_new(rt, rt->key[s].compute);
		/* its distinct evicted neighbours, walking all its edges */
		rt->res->heuristic_accesses += (uint64_t)rt->n_srev[s] + rt->n_sfwd[s];
		uint32_t nn;
		const uint32_t *nb = rt_evicted_list(rt, s, &nn);
		for (uint32_t i = 0; i < nn; i++) {
			if (rt->st[nb[i]].ecn == RT_NONE)
				bug_at(rt, "an evicted neighbour has no class", nb[i]);
			uf_merge(rt, rt->st[nb[i]].ecn, x->ecn);
		}
	}
	emit(rt, EV_EVICT, RT_NONE, s);
}

static void pin_tensor(struct runtime_state *rt, uint32_t t)
{
	uint32_t s = rt_storage_of(rt, t);
	struct rt_storage *x = &rt->st[s];
	if (!(rt->tag[s] & 1))
		bug_at(rt, "pinning an evicted storage", s);
	if (x->pinned)
		return;
	lock(rt, s);
	x->pinned = true;
}

static int first_index(const uint32_t *list, uint32_t n, uint32_t v)
{
	for (uint32_t i = 0; i < n; i++)
		if (list[i] == v)
			return (int)i;
	return -1;
}

/* Python's list.remove on an edge list and its storage twin (if any). */
static void list_remove(struct runtime_state *rt, uint32_t *list, uint32_t *twin, uint32_t *n, uint32_t v)
{
	int i = first_index(list, *n, v);
	if (i < 0)
		bug_at(rt, "removing an edge that is not there", v);
	size_t tail = (size_t)(*n - (uint32_t)i - 1) * sizeof *list;
	memmove(list + i, list + i + 1, tail);
	if (twin)
		memmove(twin + i, twin + i + 1, tail);
	(*n)--;
}

/* One occurrence of storage v leaves a storage-level edge list (order
 * there is irrelevant: only sets and counts are read from it). */
static void slist_remove(struct runtime_state *rt, uint32_t *list, uint32_t *n, uint32_t v)
{
	int i = first_index(list, *n, v);
	if (i < 0)
		bug_at(rt, "removing a storage edge that is not there", v);
	list[i] = list[--*n];
}

/* V1: evict s for good once nothing can need it, detaching its tensors
 * from the graph and pinning their children. */
static void try_banish(struct runtime_state *rt, uint32_t s)
{
	const struct schedule *sc = rt->s;
	struct rt_storage *x = &rt->st[s];
	if (x->banished || x->ref_ext > 0 || x->deps > 0)
		return;
	if ((rt->tag[s] & 1)) {
		x->ref_int = 0;
		evict(rt, s);
	}
	for (uint32_t i = 0; i < x->n_tensors; i++) {
		uint32_t t = sc->storage_tensors[sc->storages[s].tensors + i];
		for (uint32_t j = 0; j < rt->n_par[t]; j++) {
			uint32_t p = rt->par[rt->par_off[t] + j];
			uint32_t ps = rt_storage_of(rt, p);
			if (ps == s)
				continue;
			dep_remove(rt, ps, t);
			list_remove(rt, rt->w_chi + sc->tensors[p].children, NULL, &rt->n_chi[p], t);
			slist_remove(rt, rt->w_sfwd + rt->sfwd_off[ps], &rt->n_sfwd[ps], s);
		}
		for (uint32_t j = 0; j < rt->n_chi[t]; j++) {
			uint32_t c = rt->w_chi[sc->tensors[t].children + j];
			if (rt_storage_of(rt, c) == s)
				continue;
			list_remove(rt, rt->w_par + rt->par_off[c], rt->w_par_s + rt->par_off[c], &rt->w_n_par[c], t);
			uint32_t cs = rt_storage_of(rt, c);
			slist_remove(rt, rt->w_srev + rt->srev_off[cs], &rt->n_srev[cs], s);
			pin_tensor(rt, c);
		}
	}
	x->banished = true;
}

/* ---- choosing ------------------------------------------------------------ */

static int free_memory(struct runtime_state *rt, uint64_t bytes)
{
	while (rt->memory + bytes > rt->budget) {
		if (rt->pool_len == 0 || !rt->h)
			return OUTCOME_OOM;
		if (rt->pool_end - rt->pool_len > rt->pool_len / 4 + 16)
			pool_compact(rt);
		evict(rt, rt->h->choose(rt));
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

/* The op of t runs: t and its undefined siblings become defined. Leaves on
 * the stack (from the returned base) the undefined siblings, then sets
 * *n_sib to their number. */
static size_t compute(struct runtime_state *rt, uint32_t t, bool remat, size_t *n_sib)
{
	const struct schedule *sc = rt->s;
	uint32_t opi = sc->tensors[t].op;
	const struct sched_op *op = &sc->ops[opi];
	size_t b = rt->stk_len;

	if (rt->cfg->check) {
		const uint32_t *ps = rt->par + rt->par_off[t];
		for (uint32_t j = 0; j < rt->n_par[t]; j++)
			if (!rt->defined[ps[j]] || !(rt->tag[rt_storage_of(rt, ps[j])] & 1))
				bug_at(rt, "an op ran with an input not material", rt_storage_of(rt, ps[j]));
	}

	uint64_t dup = 0;
	for (uint32_t k = 0; k < op->n_outs; k++) {
		uint32_t u = op->outs + k;
		if (u == t)
			continue;
		if (rt->defined[u])
			dup += out_bytes(rt, u);
		else
			push(rt, u);
	}
	*n_sib = rt->stk_len - b;
	size_t bs = rt->stk_len;
	for (uint32_t k = 0; k < op->n_outs; k++) {
		uint32_t u = op->outs + k;
		if (u != t && !(rt->tag[rt_storage_of(rt, u)] & 1))
			push(rt, rt_storage_of(rt, u));
	}
	if (!(rt->tag[rt_storage_of(rt, t)] & 1))
		push(rt, rt_storage_of(rt, t));
	size_t es = rt->stk_len;

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
		uint32_t u = rt->stk[i];
		rt->tag[rt_storage_of(rt, u)] |= 1;
		rt->defined[u] = 1;
	}
	rt->memory -= dup;
	for (size_t i = bs; i < es; i++)
		reach_changed(rt, rt->stk[i]);
	if (rt->eqclass)
		for (size_t i = bs; i < es; i++)
			en_changed(rt, rt->stk[i]);
	for (size_t i = bs; i < es; i++) {
		if (rt->st[rt->stk[i]].ref_int)
			bug_at(rt, "a new storage is locked", rt->stk[i]);
		pool_append(rt, rt->stk[i]);
	}

	if (rt->regions && es > bs) {
		if (rt->rw)
			reach_batch(rt);
		for (size_t i = bs; i < es; i++) {
			uint32_t us = rt->stk[i];
			region_rebuild_after(rt, fwd(rt, us), us, false);
			region_rebuild_after(rt, rev(rt, us), us, true);
		}
		/* Regions whose frontier the new storages are on: forward regions of
		 * their reverse frontiers, reverse regions of their forward ones. */
		uint32_t sa = next_stamp(&rt->stamp_a, rt->mark_a, sc->n_storages);
		uint32_t sb = next_stamp(&rt->stamp_b, rt->mark_b, sc->n_storages);
		size_t ba = rt->stk_len;
		for (size_t i = bs; i < es; i++) {
			size_t f = push_frontier(rt, rev(rt, rt->stk[i])), e = rt->stk_len;
			rt->stk_len = f;
			for (size_t j = f; j < e; j++) {
				uint32_t v = rt->stk[j];
				if (rt->mark_a[v] != sa) {
					rt->mark_a[v] = sa;
					rt->stk[rt->stk_len++] = v;
				}
			}
		}
		size_t bb = rt->stk_len;
		for (size_t i = bs; i < es; i++) {
			size_t f = push_frontier(rt, fwd(rt, rt->stk[i])), e = rt->stk_len;
			rt->stk_len = f;
			for (size_t j = f; j < e; j++) {
				uint32_t v = rt->stk[j];
				if (rt->mark_b[v] != sb) {
					rt->mark_b[v] = sb;
					rt->stk[rt->stk_len++] = v;
				}
			}
		}
		size_t eb = rt->stk_len;
		for (size_t i = ba; i < bb; i++)
			region_rebuild_after(rt, fwd(rt, rt->stk[i]), rt->stk[i], false);
		for (size_t i = bb; i < eb; i++)
			region_rebuild_after(rt, rev(rt, rt->stk[i]), rt->stk[i], true);
		rt->stk_len = es;
	}
	if (rt->eqclass) {
		for (size_t i = bs; i < es; i++) {
			struct rt_storage *x = &rt->st[rt->stk[i]];
			if (x->ecn == RT_NONE)
				bug_at(rt, "a rematerialized storage has no class", rt->stk[i]);
			int64_t pre = rt->uf_value[rt_uf_find(rt, x->ecn)];
			rt->uf_value[rt_uf_find(rt, x->ecn)] = pre - rt->key[rt->stk[i]].compute;
			x->ecn = RT_NONE;
		}
	}
	rt->stk_len = bs;
	emit(rt, remat ? EV_REMAT : EV_COMPUTE, opi, RT_NONE);
	return b;
}

static int cmd_evict_after(struct runtime_state *rt, size_t i, bool done);

static int materialize(struct runtime_state *rt, uint32_t t, bool remat)
{
	const struct schedule *sc = rt->s;
	const struct sched_op *op = &sc->ops[sc->tensors[t].op];
	int rc;

	if (rt->v1 && rt->st[rt_storage_of(rt, t)].banished)
		bug_at(rt, "materializing a banished storage", rt_storage_of(rt, t));
	for (uint32_t j = 0; j < rt->n_par[t]; j++) {
		uint32_t ps = rt->par_s[rt->par_off[t] + j];
		if (!rt->v1 || rt->st[ps].ref_ext > 0) {
			rt->key[ps].last = rt->clock;
			key_sync(rt, ps);
		}
	}

	/* Lock the defined parents, then rematerialize and lock the others
	 * (a sibling's remat may define some meanwhile). */
	size_t b = rt->stk_len;
	for (uint32_t j = 0; j < rt->n_par[t]; j++) {
		uint32_t p = rt->par[rt->par_off[t] + j];
		if (rt->defined[p])
			lock(rt, rt_storage_of(rt, p));
		else
			push(rt, p);
	}
	size_t n_undef = rt->stk_len - b;
	for (size_t i = 0; i < n_undef; i++) {
		uint32_t p = rt->stk[b + i];
		if (!rt->defined[p] && (rc = materialize(rt, p, true)))
			return rc;
		lock(rt, rt_storage_of(rt, p));
	}
	rt->stk_len = b;

	if (rt->memory + op->total_size > rt->budget && (rc = free_memory(rt, op->total_size)))
		return rc;

	size_t n_sib;
	size_t bsib = compute(rt, t, remat, &n_sib);

	if (rt->v1) {
		/* Python list iteration over a list that banishing may shrink. */
		for (uint32_t j = 0; j < rt->n_par[t]; j++) {
			uint32_t ps = rt_storage_of(rt, rt->par[rt->par_off[t] + j]);
			unlock(rt, ps);
			for (size_t i = bsib; i <= bsib + n_sib; i++) {
				uint32_t u = i < bsib + n_sib ? rt->stk[i] : t;
				if (rt_storage_of(rt, u) != ps)
					dep_remove(rt, ps, u);
			}
			try_banish(rt, ps);
		}
	} else {
		for (uint32_t j = 0; j < rt->n_par[t]; j++)
			unlock(rt, rt_storage_of(rt, rt->par[rt->par_off[t] + j]));
	}
	rt->stk_len = bsib;
	if (remat && rt->cfg->evict_after && (rc = cmd_evict_after(rt, rt->cmd, false)))
		return rc;

	if ((double)rt->res->remat_compute > rt->cfg->remat_limit || rt->res->remat_compute > RT_REMAT_CAP)
		return OUTCOME_THRASH;

	uint64_t need = op->total_size;
	for (uint32_t j = 0; j < rt->n_par[t]; j++) {
		uint64_t pb = out_bytes(rt, rt->par[rt->par_off[t] + j]);
		/* saturating (a parent counts once per use): never in a real log */
		need = pb > UINT64_MAX / 2 - need ? UINT64_MAX / 2 : need + pb;
	}
	if (need > rt->bottleneck)
		rt->bottleneck = need;
	return 0;
}

/* ---- commands --------------------------------------------------------------- */

static int cmd_compute(struct runtime_state *rt, uint32_t opi)
{
	const struct schedule *sc = rt->s;
	const struct sched_op *op = &sc->ops[opi];
	for (uint32_t k = 0; k < op->n_outs; k++) {
		uint32_t t = op->outs + k;
		const struct sched_tensor *tt = &sc->tensors[t];
		struct rt_storage *x = &rt->st[tt->storage];
		if (tt->alias < 0) {
			rt->key[tt->storage].size = sc->storages[tt->storage].size;
			rt->key[tt->storage].last = RT_NEVER;
			x->ecn = rt->eqclass ? uf_new(rt, 0) : RT_NONE;
		}
		/* A storage's compute counts each distinct op once; an op's outputs
		 * are consecutive, so only the last tensor can share this op. */
		uint32_t last = x->n_tensors ? sc->storage_tensors[sc->storages[tt->storage].tensors + x->n_tensors - 1] : RT_NONE;
		if (last == RT_NONE || sc->tensors[last].op != opi)
			rt->key[tt->storage].compute += op->cost;
		key_sync(rt, tt->storage);
		x->n_tensors++;
		x->ref_ext++;
		/* the new tensor's parents join its storage's reverse list */
		if (rt->w_srev) {
			for (uint32_t a = 0; a < op->n_args; a++)
				rt->w_srev[rt->srev_off[tt->storage] + rt->n_srev[tt->storage]++] =
					sc->arg_storage[op->args + a];
		} else {
			rt->n_srev[tt->storage] += op->n_args;
		}
		rt->defined[t] = 0;
		if (op->constant)
			rt->res->const_memory += out_bytes(rt, t);
	}
	/* the outputs join their arguments' children and forward lists */
	for (uint32_t a = 0; a < op->n_args; a++) {
		uint32_t p = sc->op_args[op->args + a];
		uint32_t ps = sc->arg_storage[op->args + a];
		if (!rt->w_chi) {
			rt->n_sfwd[ps] += op->n_outs;
			continue;
		}
		for (uint32_t k = 0; k < op->n_outs; k++) {
			rt->w_chi[sc->tensors[p].children + rt->n_chi[p]++] = op->outs + k;
			rt->w_sfwd[rt->sfwd_off[ps] + rt->n_sfwd[ps]++] = rt_storage_of(rt, op->outs + k);
		}
	}
	/* New edges (arguments to outputs) and computes: memoized reaches
	 * through the outputs are stale, and so are the forward reaches through
	 * the arguments, which the forward walk from each output (over its
	 * parents, the arguments now) forgets too. */
	if (rt->rw) {
		for (uint32_t k = 0; k < op->n_outs; k++)
			reach_changed(rt, rt_storage_of(rt, op->outs + k));
	}
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
					dep_add(rt, ps, t);
			}
		}
	}
	int rc = materialize(rt, op->outs, false);
	if (rc)
		return rc;
	for (uint32_t k = 0; k < op->n_outs; k++) {
		uint32_t os = rt_storage_of(rt, op->outs + k);
		rt->key[os].last = rt->clock;
		key_sync(rt, os);
	}
	return 0;
}

static int cmd_release(struct runtime_state *rt, uint32_t t)
{
	uint32_t s = rt_storage_of(rt, t);
	struct rt_storage *x = &rt->st[s];
	if (x->ref_ext == 0)
		bug_at(rt, "releasing a storage without references", s);
	x->ref_ext--;
	if (rt->v1) {
		if (x->ref_ext == 0)
			try_banish(rt, s);
	} else if (rt->eager && x->ref_ext == 0 && (rt->tag[s] & 1) && !x->pinned) {
		if (x->ref_int)
			bug_at(rt, "eagerly evicting a locked storage", s);
		evict(rt, s);
		if (rt->broken)
			return RT_BROKEN;
	}
	return 0;
}

static int cmd_pin(struct runtime_state *rt, uint32_t t)
{
	if (!rt->defined[t]) {
		int rc = materialize(rt, t, true);
		if (rc)
			return rc;
	}
	pin_tensor(rt, t);
	return 0;
}

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
	bit_set(fresh, x);
	for (uint32_t y = x;;) {
		acc += lens[y];
		comp += rt->key[y].compute;
		for (uint32_t j = 0; j < lens[y]; j++) {
			uint32_t v = lists[offs[y] + j];
			if (rt->tag[v] & 1) {
				bit_set(fresh + w, v);
			} else if (!bit_has(fresh, v)) {
				bit_set(fresh, v);
				push(rt, v);
			}
		}
		if (rt->stk_len == b)
			break;
		y = rt->stk[--rt->stk_len];
	}
	if (memcmp(fresh, rt->rrow + (d * n + x) * 2 * w, 2 * w * sizeof *fresh))
		bug_at(rt, d ? "a memoized reverse reach is stale" : "a memoized forward reach is stale", x);
	if (rt->rsummed[d * n + x] && (rt->racc[d * n + x] != acc || rt->rcomp[d * n + x] != comp))
		bug_at(rt, "a memoized reach's sums are stale", x);
	free(fresh);
}

static void check_state(struct runtime_state *rt)
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
			bug_at(rt, "the pool's copy of a key is stale", (uint32_t)i);
		if (should != x->in_pool)
			bug_at(rt, should ? "a material unlocked storage is not in the pool"
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
			if (!rt->en_valid[x])
				continue;
			uint32_t n = rt->en_len[x];
			uint32_t *kept = xmalloc((n + 1) * sizeof *kept);
			memcpy(kept, rt->en + rt->en_off[x], n * sizeof *kept);
			rt->en_valid[x] = 0;
			uint32_t m;
			const uint32_t *fresh = rt_evicted_list(rt, x, &m);
			if (m != n || memcmp(kept, fresh, n * sizeof *kept))
				bug_at(rt, "a kept evicted-neighbour list is stale", x);
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

static void state_init(struct runtime_state *rt, const struct schedule *s,
		       const struct runtime_config *cfg, struct runtime_result *res)
{
	memset(rt, 0, sizeof *rt);
	rt->s = s;
	rt->cfg = cfg;
	rt->h = cfg->heuristic;
	rt->res = res;
	const struct runtime_desc *rd = runtime_desc(cfg->runtime);
	rt->v1 = rd->banishing;
	rt->eager = rd->eager;
	rt->regions = rt->h && (rt->h->needs & rd->maintains & NEEDS_REGIONS);
	rt->eqclass = rt->h && (rt->h->needs & rd->maintains & NEEDS_EQCLASS);
	rt->st = xcalloc(s->n_storages + 1, sizeof *rt->st);
	rt->key = xcalloc(s->n_storages + 1, sizeof *rt->key);
	for (size_t i = 0; i < s->n_storages; i++)
		rt->st[i].ecn = RT_NONE;
	rt->defined = xcalloc(s->n_tensors + 1, 1);
	rt->ts = s->tensor_storage;
	rt->par = s->op_args;
	rt->par_off = s->tensor_args;
	rt->n_par = s->tensor_nargs;
	rt->par_s = s->arg_storage;
	rt->sfwd = s->storage_fwd;
	rt->sfwd_off = s->storage_fwd_off;
	rt->srev = s->storage_rev;
	rt->srev_off = s->storage_rev_off;
	rt->n_sfwd = xcalloc(s->n_storages + 1, sizeof *rt->n_sfwd);
	rt->n_srev = xcalloc(s->n_storages + 1, sizeof *rt->n_srev);
	if (rt->v1) {
		/* Banishing edits the lists: copies, appended to as ops come. */
		size_t nchi = s->n_tensors ? s->tensors[s->n_tensors - 1].children +
						     s->tensors[s->n_tensors - 1].n_children : 0;
		/* Each tensor has its own copy of its op's arguments (the
		 * siblings' lists lose different parents). */
		size_t npar = 0;
		for (size_t t = 0; t < s->n_tensors; t++)
			npar += s->tensor_nargs[t];
		rt->w_par_off = xmalloc((s->n_tensors + 1) * sizeof *rt->w_par_off);
		rt->w_par = xmalloc((npar + 1) * sizeof *rt->w_par);
		rt->w_par_s = xmalloc((npar + 1) * sizeof *rt->w_par_s);
		npar = 0;
		for (size_t t = 0; t < s->n_tensors; t++) {
			uint32_t a = s->tensor_args[t], n = s->tensor_nargs[t];
			rt->w_par_off[t] = (uint32_t)npar;
			memcpy(rt->w_par + npar, s->op_args + a, n * sizeof *rt->w_par);
			memcpy(rt->w_par_s + npar, s->arg_storage + a, n * sizeof *rt->w_par_s);
			npar += n;
		}
		rt->w_n_par = xmemdup(s->tensor_nargs, (s->n_tensors + 1) * sizeof *rt->w_n_par);
		rt->par_off = rt->w_par_off;
		rt->w_chi = xmalloc((nchi + 1) * sizeof *rt->w_chi);
		rt->n_chi = xcalloc(s->n_tensors + 1, sizeof *rt->n_chi);
		rt->w_sfwd = xmalloc(((size_t)s->storage_fwd_off[s->n_storages] + 1) * sizeof *rt->w_sfwd);
		rt->w_srev = xmalloc(((size_t)s->storage_rev_off[s->n_storages] + 1) * sizeof *rt->w_srev);
		rt->par = rt->w_par;
		rt->par_s = rt->w_par_s;
		rt->n_par = rt->w_n_par;
		rt->sfwd = rt->w_sfwd;
		rt->srev = rt->w_srev;
	}
	rt->tag = xcalloc(s->n_storages + 1, sizeof *rt->tag);
	if (rt->regions)
		rt->reg = xcalloc(2 * s->n_storages + 1, sizeof *rt->reg);
	if (rt->regions && !cfg->plain_regions && s->n_storages <= RMEMO_MAX_STORAGES) {
		size_t n = s->n_storages;
		rt->rw = (uint32_t)((n + 63) / 64);
		rt->rrow = xmalloc((4 * n * rt->rw + 1) * sizeof *rt->rrow);
		rt->rbits = xcalloc(4 * n * rt->rw + 1, sizeof *rt->rbits);
		for (size_t i = 0; i < 2 * n; i++) {
			rt->reg[i].bin = rt->rbits + 2 * i * rt->rw;
			rt->reg[i].bfr = rt->reg[i].bin + rt->rw;
		}
		rt->rvalid = xcalloc(2 * n + 1, sizeof *rt->rvalid);
		rt->rseen = xcalloc(2 * n + 1, sizeof *rt->rseen);
		rt->rsummed = xcalloc(2 * n + 1, sizeof *rt->rsummed);
		rt->racc = xmalloc((2 * n + 1) * sizeof *rt->racc);
		rt->rcomp = xmalloc((2 * n + 1) * sizeof *rt->rcomp);
		rt->ridx = xmalloc((2 * n + 1) * sizeof *rt->ridx);
		rt->rlow = xmalloc((2 * n + 1) * sizeof *rt->rlow);
		rt->dfs = xmalloc((n + 1) * sizeof *rt->dfs);
		rt->dfs_pos = xmalloc((n + 1) * sizeof *rt->dfs_pos);
		rt->scc = xmalloc((n + 1) * sizeof *rt->scc);
	}
	if (rt->eqclass) {
		size_t ne = (size_t)s->storage_fwd_off[s->n_storages] + s->storage_rev_off[s->n_storages];
		rt->en = xmalloc((ne + 1) * sizeof *rt->en);
		rt->en_off = xmalloc((s->n_storages + 1) * sizeof *rt->en_off);
		rt->en_len = xcalloc(s->n_storages + 1, sizeof *rt->en_len);
		rt->en_valid = xcalloc(s->n_storages + 1, sizeof *rt->en_valid);
		for (size_t x = 0; x < s->n_storages; x++)
			rt->en_off[x] = s->storage_fwd_off[x] + s->storage_rev_off[x];
	}
	rt->mark_a = xcalloc(s->n_storages + 1, sizeof *rt->mark_a);
	rt->mark_b = xcalloc(s->n_storages + 1, sizeof *rt->mark_b);
	rt->mark_c = xcalloc(s->n_storages + 1, sizeof *rt->mark_c);
	rt->wide = keys_may_be_wide(s);
	rt->budget = cfg->budget;
	rt->clock = 1;
	rt->rng = cfg->seed;
}

static void state_free(struct runtime_state *rt)
{
	if (rt->reg) {
		for (size_t i = 0; i < 2 * rt->s->n_storages; i++) {
			free(rt->reg[i].in);
			free(rt->reg[i].fr);
			free(rt->reg[i].hs);
		}
		free(rt->reg);
	}
	free(rt->rrow);
	free(rt->rbits);
	free(rt->rvalid);
	free(rt->rseen);
	free(rt->rsummed);
	free(rt->racc);
	free(rt->rcomp);
	free(rt->ridx);
	free(rt->rlow);
	free(rt->dfs);
	free(rt->dfs_pos);
	free(rt->scc);
	free(rt->scratch_fwd.in);
	free(rt->scratch_fwd.fr);
	free(rt->scratch_rev.in);
	free(rt->scratch_rev.fr);
	u64set_free(&rt->deps);
	free(rt->st);
	free(rt->key);
	free(rt->w_par);
	free(rt->w_par_off);
	free(rt->w_n_par);
	free(rt->w_par_s);
	free(rt->w_chi);
	free(rt->w_sfwd);
	free(rt->w_srev);
	free(rt->n_sfwd);
	free(rt->n_srev);
	free(rt->defined);
	free(rt->n_chi);
	free(rt->en);
	free(rt->en_off);
	free(rt->en_len);
	free(rt->en_valid);
	free(rt->uf_parent);
	free(rt->uf_value);
	free(rt->stk);
	free(rt->pool);
	free(rt->pk_size);
	free(rt->pk_compute);
	free(rt->pk_last);
	free(rt->mark_a);
	free(rt->mark_b);
	free(rt->mark_c);
	free(rt->tag);
}

/* The plan replay's hook (runtime_config.evict_after): evictions a static
 * plan asks for after a command. */
static int cmd_evict_after(struct runtime_state *rt, size_t i, bool done)
{
	const uint32_t *list = NULL;
	size_t n = rt->cfg->evict_after(rt->cfg->ctx, i, done, &list);
	for (size_t k = 0; k < n; k++) {
		uint32_t s = list[k];
		if ((rt->tag[s] & 1) && !rt->st[s].ref_int && !rt->st[s].pinned) {
			evict(rt, s);
			if (rt->broken)
				return RT_BROKEN;
		}
	}
	return 0;
}

int runtime_check_config(const struct runtime_config *cfg, struct rs_error *err)
{
	const struct heuristic *h = cfg->heuristic;
	if ((unsigned)cfg->runtime >= RUNTIME_KIND_COUNT)
		return rs_error_set(err, EXIT_USAGE, NULL, 0, "unknown runtime");
	unsigned kept = runtime_desc(cfg->runtime)->maintains;
	if (h && (h->needs & (NEEDS_REGIONS | NEEDS_EQCLASS) & ~kept))
		return rs_error_set(err, EXIT_USAGE, NULL, 0,
				    "heuristic %s needs %s, which only the V2Optimized and "
				    "V2EagerOptimized runtimes keep (runtime %s)",
				    h->name, (h->needs & NEEDS_REGIONS) ? "evicted regions" : "union-find classes",
				    runtime_kind_name(cfg->runtime));
	return 0;
}

int runtime_run(const struct schedule *s, const struct runtime_config *cfg,
		struct runtime_result *res, struct rs_error *err)
{
	if (runtime_check_config(cfg, err))
		return -1;
	memset(res, 0, sizeof *res);
	struct runtime_state rt;
	state_init(&rt, s, cfg, res);
	int rc = 0;
	for (size_t i = 0; i < s->n_cmds && !rc; i++) {
		const struct sched_cmd *c = &s->cmds[i];
		rt.cmd = i;
		switch (c->kind) {
		case CMD_COMPUTE:
			rc = cmd_compute(&rt, c->id);
			break;
		case CMD_GET:
			rt.st[rt_storage_of(&rt, c->id)].ref_ext++;
			break;
		case CMD_PIN:
			rc = cmd_pin(&rt, c->id);
			break;
		case CMD_RELEASE:
			if (!cfg->no_dealloc)
				rc = cmd_release(&rt, c->id);
			break;
		}
		if (!rc && cfg->evict_after)
			rc = cmd_evict_after(&rt, i, true);
		if (rc)
			res->stopped_at = i;
		else if (cfg->check)
			check_state(&rt);
	}
	if (rc == RT_BROKEN) {
		uint32_t bs = rt.broken_storage;
		uint32_t root = s->storages[bs].root;
		const struct sched_op *op = &s->ops[s->tensors[root].op];
		rs_error_set(err, EXIT_DATAERR, s->source, (long)op->line,
			     "%s cannot replay this log: at command %zu, the storage of %s (made here) "
			     "is evicted while a region at its edge does not hold it on its "
			     "frontier. Views made by ops with several arguments or results "
			     "(a storage feeding itself) let regions drift so; the reference "
			     "simulator stops here too (an assertion in region.py). Heuristics "
			     "without regions replay it: DTREqClass, DTRLocal, LRU, ...",
			     cfg->heuristic->name, res->stopped_at,
			     schedule_str(s, s->tensors[root].name));
		state_free(&rt);
		return -1;
	}
	res->outcome = rc ? (enum outcome)rc : OUTCOME_PASS;
	if (!rc)
		res->stopped_at = s->n_cmds;
	res->clock = rt.clock;
	res->bottleneck_memory = rt.bottleneck;
	state_free(&rt);
	return 0;
}

void baseline_run(const struct schedule *s, struct baseline *b)
{
	struct runtime_config cfg = {
		.runtime = RUNTIME_V1,
		.heuristic = NULL,
		.budget = UINT64_MAX / 2,
		.remat_limit = INFINITY,
	};
	struct runtime_result res;
	struct rs_error err;
	if (runtime_run(s, &cfg, &res, &err))
		rs_bug("baseline run refused: %s", err.msg);
	b->memory = res.peak_memory;
	b->compute = res.model_compute;
	b->const_memory = res.const_memory;
	b->bottleneck_memory = res.bottleneck_memory;
}

int point_run(const struct schedule *s, const struct baseline *b,
	      const struct point_config *pc, struct point_result *pr,
	      struct rs_error *err)
{
	memset(pr, 0, sizeof *pr);
	pr->budget = point_budget(b, pc);
	double limit = pc->overhead_limit;
	struct runtime_config cfg = {
		.runtime = pc->runtime,
		.heuristic = pc->heuristic,
		.budget = pr->budget,
		.remat_limit = isinf(limit) ? INFINITY : (double)b->compute * (limit - 1),
		.seed = pc->seed,
		.no_dealloc = pc->no_dealloc,
		.check = pc->check,
		.plain_regions = pc->plain_regions,
		.on_event = pc->on_event,
		.ctx = pc->ctx,
	};
	double t0 = now_seconds();
	if (runtime_run(s, &cfg, &pr->run, err))
		return -1;
	pr->wall_ms = (now_seconds() - t0) * 1e3;
	pr->overhead = b->compute > 0 ? rt_div(pr->run.clock, (unsigned __int128)b->compute) : INFINITY;
	return 0;
}
