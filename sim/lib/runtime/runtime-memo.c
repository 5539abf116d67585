/*
 * runtime-memo.c: the reach memo behind batched region rebuilds: each
 * evicted storage's reach (evicted storages reachable through evicted ones,
 * and the material ones at their edge) memoized as bitsets by one pass of
 * Tarjan's algorithm, kept until a storage it may hold changes. Owns the
 * memo part of struct runtime_state, and the memory a thread keeps across
 * its replays (the bitsets' block, the memo's rows).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "runtime-commands.h"
#include "runtime-memo.h"
#include "runtime-regions.h"
#include "runtime-state.h"

/* ---- memory kept across a thread's replays -------------------------------
 * The bitsets' block and the memo's rows are n^2/8 bytes each (14 MB on the
 * Unrolled GAN's 5,302 storages). Allocated afresh per replay, their pages
 * were faulted in and zeroed by the kernel at every replay (6-10% of a
 * bitset replay's CPU time); a thread's replays (a sweep worker's points,
 * `replay`'s ratios) now reuse them. Each is one block per thread, the
 * largest asked for so far (a larger need frees it first), given back when
 * the thread ends or a replay of a log too large for bitsets starts. The
 * bits block is all zero while kept (rt_regions_free clears the regions it
 * set); the rows keep their spans with them (a row is zero outside
 * [lo, hi)), valid again for a replay of a log of the same size. */
struct rt_keep {
	uint64_t *bits, *row;
	size_t bits_cap, row_cap; /* words */
	uint32_t *lo, *hi;        /* the rows' spans, for span_n storages */
	size_t span_n;            /* 0: no spans kept */
	uint32_t span_w;
};

static _Thread_local struct rt_keep keep;
static pthread_key_t keep_key;
static pthread_once_t keep_once = PTHREAD_ONCE_INIT;

static void keep_release(struct rt_keep *k)
{
	free(k->bits);
	free(k->row);
	free(k->lo);
	free(k->hi);
	memset(k, 0, sizeof *k);
}

/* At a thread's end (the main thread's kept blocks last until exit). */
static void keep_at_exit(void *k)
{
	keep_release(k);
}

static void keep_key_make(void)
{
	if (pthread_key_create(&keep_key, keep_at_exit))
		rs_bug("cannot make a thread-specific key");
}

static void keep_register(void)
{
	pthread_once(&keep_once, keep_key_make);
	if (!pthread_getspecific(keep_key) && pthread_setspecific(keep_key, &keep))
		rs_bug("cannot set a thread-specific value");
}

/* A zeroed block of at least `words` words (*cap of them) for the
 * regions' bitsets (takes the thread's kept block). */
uint64_t *rt_keep_bits(size_t words, size_t *cap)
{
	uint64_t *b = keep.bits;
	keep.bits = NULL;
	if (b && keep.bits_cap >= words) {
		*cap = keep.bits_cap;
		return b;
	}
	free(b);
	keep.bits_cap = 0;
	*cap = words;
	return xcalloc(words, sizeof *b);
}

/* The bitsets' block back, all zero, of `words` words (its cap): kept
 * for the thread's next replay. */
void rt_keep_bits_back(uint64_t *b, size_t words)
{
	if (!b)
		return;
	keep_register();
	if (keep.bits) { /* (not reached: one replay at a time per thread) */
		free(b);
		return;
	}
	keep.bits = b;
	keep.bits_cap = words;
}

/* Kept exactly when regions are bitsets (runtime-regions.c sets their
 * width first). */
void rt_memo_init(struct runtime_state *rt)
{
	struct rt_memo *m = &rt->memo;
	m->w = rt->reg.words;
	size_t n = rt->s->n_storages;
	if (!m->w) {
		if (n > RMEMO_MAX_BITSETS) /* never bitsets: the memory goes back */
			keep_release(&keep);
		return;
	}
	size_t words = 4 * n * m->w + 1;
	if (keep.row && keep.row_cap >= words) {
		m->row = keep.row;
		m->row_cap = keep.row_cap;
		keep.row = NULL;
	} else {
		free(keep.row);
		keep.row = NULL;
		/* Not zeroed (megabytes, once per switch from runs): every
		 * row's span starts whole, cleared when first filled. */
		m->row = xmalloc(words * sizeof *m->row);
		m->row_cap = words;
		keep.span_n = 0;
	}
	if (keep.span_n == n && keep.span_w == m->w) {
		/* the rows as the last replay of this log's size left them */
		m->lo = keep.lo;
		m->hi = keep.hi;
		keep.lo = keep.hi = NULL;
		keep.span_n = 0;
	} else {
		m->lo = xcalloc(2 * n + 1, sizeof *m->lo);
		m->hi = xmalloc((2 * n + 1) * sizeof *m->hi);
		for (size_t i = 0; i < 2 * n + 1; i++)
			m->hi[i] = m->w;
	}
	m->valid = xcalloc(2 * n + 1, sizeof *m->valid);
	m->seen = xcalloc(2 * n + 1, sizeof *m->seen);
	m->summed = xcalloc(2 * n + 1, sizeof *m->summed);
	m->acc = xmalloc((2 * n + 1) * sizeof *m->acc);
	m->comp = xmalloc((2 * n + 1) * sizeof *m->comp);
	m->card = xmalloc((2 * n + 1) * sizeof *m->card);
	m->idx = xmalloc((2 * n + 1) * sizeof *m->idx);
	m->low = xmalloc((2 * n + 1) * sizeof *m->low);
	m->dfs = xmalloc((n + 1) * sizeof *m->dfs);
	m->dfs_pos = xmalloc((n + 1) * sizeof *m->dfs_pos);
	m->scc = xmalloc((n + 1) * sizeof *m->scc);
}

void rt_memo_free(struct runtime_state *rt)
{
	struct rt_memo *m = &rt->memo;
	if (m->row) {
		/* the rows and their spans, for the thread's next replay */
		keep_register();
		free(keep.row);
		free(keep.lo);
		free(keep.hi);
		keep.row = m->row;
		keep.row_cap = m->row_cap;
		keep.lo = m->lo;
		keep.hi = m->hi;
		keep.span_n = rt->s->n_storages;
		keep.span_w = m->w;
	}
	free(m->valid);
	free(m->seen);
	free(m->summed);
	free(m->acc);
	free(m->comp);
	free(m->card);
	free(m->idx);
	free(m->low);
	free(m->dfs);
	free(m->dfs_pos);
	free(m->scc);
}

/* ---- batched rebuilds ----------------------------------------------------
 * The rebuilds that follow one computation all see the same graph (no
 * storage changes materiality, no edge is added between them), and their
 * interiors overlap heavily (dozens of regions over the same evicted
 * subgraph). So each evicted storage's reach, the evicted storages reachable
 * from it through evicted ones plus the material storages at their edge, is
 * memoized as bitsets (Tarjan's algorithm: a strongly connected set of
 * evicted storages shares one reach) and kept across batches until a
 * storage it may hold changes (rt_reach_forget), and a region is the
 * union of its base's evicted neighbours' reaches plus its base's material
 * neighbours, less the base. Its counts are then summed over its interior
 * bits: one access per edge of the base and of each interior storage, as a
 * walk counts them. Regions stay bitsets here (struct region's bin, bfr),
 * so frontiers are visited in id order where a walk's lists had discovery
 * order: only their sets are read (docs/semantics.md, Speed). */

/* Storage v changed (materiality, edges or compute): forget the memoized
 * reaches of direction d that may hold it, v's own and those of every
 * evicted storage that reaches v in direction d (v in their interior or on
 * their frontier), found by walking the other way from v. A valid row's
 * reach is all valid (a fill validates everything it passes), so the walk
 * stops at rows already forgotten. */
void rt_reach_forget(struct runtime_state *rt, uint32_t v, int d)
{
	const size_t n = rt->s->n_storages;
	const struct rt_graph *g = &rt->graph;
	struct rt_scratch *x0 = &rt->scratch;
	uint8_t *valid = rt->memo.valid + d * n;
	const uint32_t *lists = d ? g->sfwd : g->srev; /* predecessors */
	const uint32_t *offs = d ? g->sfwd_off : g->srev_off;
	const uint32_t *lens = d ? g->n_sfwd : g->n_srev;
	size_t b = x0->stk_len;
	valid[v] = 0;
	for (uint32_t x = v;;) {
		const uint32_t *list = lists + offs[x];
		for (uint32_t j = 0, nl = lens[x]; j < nl; j++) {
			uint32_t w = list[j];
			if (valid[w]) {
				valid[w] = 0;
				rt_push(rt, w);
			}
		}
		if (x0->stk_len == b)
			break;
		x = x0->stk[--x0->stk_len];
	}
}


/* Row a |= row b, both halves, over b's span; a's span grows to hold it. */
static inline void row_or(uint64_t *restrict a, const uint64_t *restrict b, uint32_t w, uint32_t *alo,
			  uint32_t *ahi, uint32_t blo, uint32_t bhi)
{
	for (uint32_t i = blo; i < bhi; i++)
		a[i] |= b[i];
	for (uint32_t i = w + blo; i < w + bhi; i++)
		a[i] |= b[i];
	if (blo < *alo)
		*alo = blo;
	if (bhi > *ahi)
		*ahi = bhi;
}

/* Memoize the reach of evicted storage c in direction d (and of every
 * evicted storage reachable from it): a row of interior words then frontier
 * words per storage, each row's words touched only within its span (the
 * reaches of the paper's logs span about half the words). One pass of
 * Tarjan's algorithm: a storage's row
 * gathers its own bit, its material neighbours and the rows of its
 * neighbours in finished strongly connected sets as it meets them; a set's
 * members share the union of their rows. */
RT_WIDE static void reach_fill(struct runtime_state *rt, uint32_t c, int d)
{
	const size_t n = rt->s->n_storages;
	const struct rt_graph *g = &rt->graph;
	struct rt_memo *m = &rt->memo;
	const uint32_t *lists = d ? g->srev : g->sfwd;
	const uint32_t *offs = d ? g->srev_off : g->sfwd_off;
	const uint32_t *lens = d ? g->n_srev : g->n_sfwd;
	const uint32_t *tag = rt->tag;
	const uint32_t w = m->w;
	uint8_t *valid = m->valid + d * n, *summed = m->summed + d * n;
	uint32_t *seen = m->seen + d * n;
	uint32_t *idx = m->idx + d * n, *low = m->low + d * n;
	uint64_t *rows = m->row + d * n * 2 * w;
	uint32_t *dfs = m->dfs, *pos = m->dfs_pos, *scc = m->scc;
	uint32_t *lo = m->lo + d * n, *hi = m->hi + d * n;
	uint32_t nd = 0, ns = 0, count = 0;
	if (++m->fill == 0) {
		memset(m->seen, 0, 2 * n * sizeof *m->seen);
		m->fill = 1;
	}
	const uint32_t fill = m->fill;

	for (uint32_t y = c; y != RT_NONE;) {
		/* discover y */
		seen[y] = fill;
		summed[y] = 0;
		m->card[d * n + y] = RT_NONE;
		idx[y] = low[y] = count++;
		dfs[nd] = y;
		pos[nd++] = 0;
		scc[ns++] = y;
		uint64_t *yrow = rows + (size_t)y * 2 * w;
		if (lo[y] < hi[y]) {
			memset(yrow + lo[y], 0, (hi[y] - lo[y]) * sizeof *yrow);
			memset(yrow + w + lo[y], 0, (hi[y] - lo[y]) * sizeof *yrow);
		}
		rt_bit_set(yrow, y);
		lo[y] = y >> 6;
		hi[y] = lo[y] + 1;
		y = RT_NONE;
		while (nd) {
			uint32_t x = dfs[nd - 1];
			uint64_t *xin = rows + (size_t)x * 2 * w, *xfr = xin + w;
			const uint32_t *list = lists + offs[x];
			uint32_t j = pos[nd - 1], nl = lens[x];
			for (; j < nl; j++) {
				uint32_t v = list[j];
				if (tag[v] & 1) {
					rt_bit_set(xfr, v);
					if (v >> 6 < lo[x])
						lo[x] = v >> 6;
					if (v >> 6 >= hi[x])
						hi[x] = (v >> 6) + 1;
				} else if (valid[v]) {
					if (!rt_bit_has(xin, v))
						row_or(xin, rows + (size_t)v * 2 * w, w, &lo[x], &hi[x], lo[v], hi[v]);
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
						row_or(xin, rows + (size_t)scc[m] * 2 * w, w, &lo[x], &hi[x],
						       lo[scc[m]], hi[scc[m]]);
					/* each member's row is within x's span now */
					for (uint32_t m = k + 1; m < ns; m++) {
						uint64_t *mr = rows + (size_t)scc[m] * 2 * w;
						uint32_t a = lo[x], e = hi[x];
						memcpy(mr + a, xin + a, (e - a) * sizeof *xin);
						memcpy(mr + w + a, xfr + a, (e - a) * sizeof *xin);
						lo[scc[m]] = a;
						hi[scc[m]] = e;
					}
				}
				for (uint32_t m = k; m < ns; m++)
					valid[scc[m]] = 1;
				ns = k;
			}
			if (nd) {
				uint32_t p = dfs[nd - 1];
				if (valid[x]) {
					if (!rt_bit_has(rows + (size_t)p * 2 * w, x))
						row_or(rows + (size_t)p * 2 * w, xin, w, &lo[p], &hi[p], lo[x], hi[x]);
				} else if (low[x] < low[p]) {
					low[p] = low[x];
				}
			}
		}
	}
}

/* The interior size of valid reach row k, kept once counted or summed
 * (RT_NONE from its fill until then). */
static inline uint32_t reach_card(struct rt_memo *m, const uint64_t *row, size_t k)
{
	if (m->card[k] != RT_NONE)
		return m->card[k];
	uint32_t c = 0;
	for (uint32_t i = m->lo[k]; i < m->hi[k]; i++)
		c += (uint32_t)__builtin_popcountll(row[i]);
	m->card[k] = c;
	return c;
}

/* Sum valid reach row y of direction d (its edges, computes and size)
 * from row sub (RT_NONE: none), one of its evicted neighbours' and so
 * within it, summed: its sums plus those of the members beyond it. */
static inline __attribute__((always_inline)) void reach_sum_over(struct runtime_state *rt, int d, uint32_t y,
								 uint32_t sub)
{
	const size_t n = rt->s->n_storages;
	struct rt_memo *m = &rt->memo;
	const uint32_t *lens = d ? rt->graph.n_srev : rt->graph.n_sfwd;
	const uint32_t w = m->w;
	const uint64_t *rows = m->row + d * n * 2 * w;
	const uint64_t *row = rows + (size_t)y * 2 * w;
	uint64_t a = 0;
	int64_t c = 0;
	uint32_t card = 0;
	uint64_t none = 0;
	const uint64_t *srow = &none;
	uint32_t smask = 0; /* (srow[0] when there is no sub) */
	if (sub != RT_NONE) {
		a = m->acc[d * n + sub];
		c = m->comp[d * n + sub];
		card = m->card[d * n + sub];
		srow = rows + (size_t)sub * 2 * w;
		smask = ~0u;
	}
	for (uint32_t i = m->lo[d * n + y]; i < m->hi[d * n + y]; i++) {
		uint64_t b = row[i] & ~srow[i & smask];
		card += (uint32_t)__builtin_popcountll(b);
		for (; b; b &= b - 1) {
			uint32_t x = i << 6 | (uint32_t)__builtin_ctzll(b);
			a += lens[x];
			c += rt->key[x].compute;
		}
	}
	m->summed[d * n + y] = 1;
	m->acc[d * n + y] = a;
	m->comp[d * n + y] = c;
	m->card[d * n + y] = card;
}

/* Sum valid reach row y of direction d. It holds the reach of each
 * evicted neighbour: from the largest of those already summed, only the
 * members beyond it are summed one by one (a fill's rows are mostly a new
 * storage over reaches summed before). Where none is summed, the one of
 * widest span is summed first, the same way, down a chain of at most
 * REACH_SUM_DEPTH rows (each then summed for later rebuilds too). */
#define REACH_SUM_DEPTH 8
static inline __attribute__((always_inline)) void reach_sum(struct runtime_state *rt, int d, uint32_t y)
{
	const size_t n = rt->s->n_storages;
	const struct rt_graph *g = &rt->graph;
	struct rt_memo *m = &rt->memo;
	const uint32_t *lens = d ? g->n_srev : g->n_sfwd;
	const uint32_t w = m->w;
	const uint8_t *valid = m->valid + d * n, *summed = m->summed + d * n;
	const uint64_t *rows = m->row + d * n * 2 * w;
	const uint32_t *lo = m->lo + d * n, *hi = m->hi + d * n;
	uint32_t chain[REACH_SUM_DEPTH], depth = 0, sub = RT_NONE;
	for (uint32_t x = y;;) {
		const uint32_t *list = d ? g->srev + g->srev_off[x] : g->sfwd + g->sfwd_off[x];
		uint32_t card = 0, next = RT_NONE, span = 0;
		chain[depth++] = x;
		for (uint32_t j = 0, nl = lens[x]; j < nl; j++) {
			uint32_t v = list[j];
			if ((rt->tag[v] & 1) || !valid[v])
				continue;
			if (summed[v]) {
				uint32_t c = reach_card(m, rows + (size_t)v * 2 * w, d * n + v);
				if (sub == RT_NONE || c > card) {
					sub = v;
					card = c;
				}
			} else if (sub == RT_NONE && hi[v] - lo[v] > span) {
				uint32_t k = 0;
				while (k < depth && chain[k] != v)
					k++;
				if (k == depth) {
					next = v;
					span = hi[v] - lo[v];
				}
			}
		}
		if (sub != RT_NONE || next == RT_NONE || depth == REACH_SUM_DEPTH)
			break;
		x = next;
	}
	while (depth) {
		uint32_t x = chain[--depth];
		reach_sum_over(rt, d, x, sub);
		sub = x;
	}
}

/* rt_region_rebuild within a batch (same sets and counts), into the
 * region's bitsets. */
RT_WIDE void rt_memo_rebuild_batched(struct runtime_state *rt, struct region *r, uint32_t base, bool reverse)
{
	const size_t n = rt->s->n_storages;
	const int d = reverse;
	const struct rt_graph *g = &rt->graph;
	struct rt_memo *m = &rt->memo;
	const uint32_t *list = (d ? g->srev + g->srev_off[base] : g->sfwd + g->sfwd_off[base]);
	const uint32_t nl = d ? g->n_srev[base] : g->n_sfwd[base];
	const uint32_t *lens = d ? g->n_srev : g->n_sfwd;
	const uint32_t *tag = rt->tag;
	const uint32_t w = m->w;
	const uint8_t *valid = m->valid + d * n;
	const uint64_t *rows = m->row + d * n * 2 * w;
	const uint32_t *lo = m->lo + d * n, *hi = m->hi + d * n;
	uint64_t *in = r->bin, *fr = r->bfr; /* adjacent, as in a row */
	uint8_t *summed = m->summed + d * n;
	uint64_t acc = 0;
	int64_t compute = 0;
	/* The region is the union of its evicted neighbours' reaches, and its
	 * sums are over the union, in any order. It starts as a copy of the
	 * largest reach, whose sums are kept with it (computed once while it
	 * stays valid, shared by the regions that start from it); each other
	 * reach adds only the members new to the region. (Starting from the
	 * first reach in list order summed 4x more members on the InceptionV4
	 * log, whose concatenations list a small reach before large ones.) A
	 * neighbour inside the largest reach so far has a reach within it. */
	uint32_t piv = RT_NONE, best = RT_NONE; /* best: unknown while alone */
	const uint64_t *prow = NULL;
	for (uint32_t j = 0; j < nl; j++) {
		uint32_t y = list[j];
		if ((tag[y] & 1) || (prow && rt_bit_has(prow, y)))
			continue;
		if (!valid[y])
			reach_fill(rt, y, d);
		const uint64_t *row = rows + (size_t)y * 2 * w;
		if (!prow) {
			piv = y;
			prow = row;
			continue;
		}
		if (best == RT_NONE)
			best = reach_card(m, prow, d * n + piv);
		uint32_t c = reach_card(m, row, d * n + y);
		if (c > best) {
			piv = y;
			best = c;
			prow = row;
		}
	}
	if (prow) {
		size_t k = d * n + piv;
		if (!summed[piv])
			reach_sum(rt, d, piv);
		acc = m->acc[k];
		compute = m->comp[k];
		memcpy(in, prow, 2 * w * sizeof *in);
	} else {
		rt_bits_clear(in, 2 * w);
	}
	for (uint32_t j = 0; j < nl; j++) {
		uint32_t y = list[j];
		if (tag[y] & 1) {
			rt_bit_set(fr, y);
			continue;
		}
		if (rt_bit_has(in, y))
			continue; /* y's reach is closed: all it adds is inside */
		const uint64_t *row = rows + (size_t)y * 2 * w;
		for (uint32_t i = lo[y]; i < hi[y]; i++) {
			for (uint64_t b = row[i] & ~in[i]; b; b &= b - 1) {
				uint32_t x = i << 6 | (uint32_t)__builtin_ctzll(b);
				acc += lens[x];
				compute += rt->key[x].compute;
			}
			in[i] |= row[i];
			fr[i] |= row[w + i];
		}
	}
	fr[base >> 6] &= ~(1ULL << (base & 63));
	acc += nl;
	r->compute = compute;
	rt->res->heuristic_accesses += acc;
}


/* Check mode: memoized reach row d of x (if valid, and its sums if kept)
 * against a fresh walk of the current graph. */
static void check_reach_row(struct runtime_state *rt, int d, uint32_t x)
{
	const size_t n = rt->s->n_storages;
	const struct rt_graph *g = &rt->graph;
	const struct rt_memo *m = &rt->memo;
	struct rt_scratch *x0 = &rt->scratch;
	const uint32_t w = m->w;
	if (!m->valid[d * n + x])
		return;
	const uint32_t *lists = d ? g->srev : g->sfwd;
	const uint32_t *offs = d ? g->srev_off : g->sfwd_off;
	const uint32_t *lens = d ? g->n_srev : g->n_sfwd;
	uint64_t *fresh = xcalloc(2 * w, sizeof *fresh);
	uint64_t acc = 0;
	int64_t comp = 0;
	size_t b = x0->stk_len;
	rt_bit_set(fresh, x);
	for (uint32_t y = x;;) {
		acc += lens[y];
		comp += rt->key[y].compute;
		for (uint32_t j = 0; j < lens[y]; j++) {
			uint32_t v = lists[offs[y] + j];
			if (rt_material(rt, v)) {
				rt_bit_set(fresh + w, v);
			} else if (!rt_bit_has(fresh, v)) {
				rt_bit_set(fresh, v);
				rt_push(rt, v);
			}
		}
		if (x0->stk_len == b)
			break;
		y = x0->stk[--x0->stk_len];
	}
	if (memcmp(fresh, m->row + (d * n + x) * 2 * w, 2 * w * sizeof *fresh))
		rt_bug_at(rt, d ? "a memoized reverse reach is stale" : "a memoized forward reach is stale", x);
	if (m->summed[d * n + x] && (m->acc[d * n + x] != acc || m->comp[d * n + x] != comp))
		rt_bug_at(rt, "a memoized reach's sums are stale", x);
	uint32_t card = 0;
	for (uint32_t i = 0; i < w; i++)
		card += (uint32_t)__builtin_popcountll(fresh[i]);
	if (m->card[d * n + x] != RT_NONE && m->card[d * n + x] != card)
		rt_bug_at(rt, "a memoized reach's size is stale", x);
	free(fresh);
}

/* A few memoized reaches per command (all of them would be quadratic): a
 * stale row stays stale until forgotten, so sampling finds it. */
void rt_memo_check(struct runtime_state *rt)
{
	if (!rt->memo.w)
		return;
	for (uint32_t k = 0; k < 2; k++) {
		uint32_t x = (uint32_t)((rt->cmd * 2 + k) * 7919u % rt->s->n_storages);
		check_reach_row(rt, 0, x);
		check_reach_row(rt, 1, x);
	}
}
