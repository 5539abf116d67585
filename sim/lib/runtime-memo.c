/*
 * runtime-memo.c: the reach memo behind batched region rebuilds: each
 * evicted storage's reach (evicted storages reachable through evicted ones,
 * and the material ones at their edge) memoized as bitsets by one pass of
 * Tarjan's algorithm, kept until a storage it may hold changes.
 */
#include <string.h>

#include "runtime-state.h"

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







/* Storage v changed (materiality, edges or compute): forget the memoized
 * reaches of direction d that may hold it, v's own and those of every
 * evicted storage that reaches v in direction d (v in their interior or on
 * their frontier), found by walking the other way from v. A valid row's
 * reach is all valid (a fill validates everything it passes), so the walk
 * stops at rows already forgotten. */
void rt_reach_forget(struct runtime_state *rt, uint32_t v, int d)
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
				rt_push(rt, w);
			}
		}
		if (rt->stk_len == b)
			break;
		x = rt->stk[--rt->stk_len];
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
		rt_bits_clear(yrow, 2 * w);
		rt_bit_set(yrow, y);
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
				} else if (valid[v]) {
					if (!rt_bit_has(xin, v))
						rt_bits_or(xin, rows + (size_t)v * 2 * w, 2 * w);
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
						rt_bits_or(xin, rows + (size_t)scc[m] * 2 * w, 2 * w);
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
					if (!rt_bit_has(rows + (size_t)p * 2 * w, x))
						rt_bits_or(rows + (size_t)p * 2 * w, xin, 2 * w);
				} else if (low[x] < low[p]) {
					low[p] = low[x];
				}
			}
		}
	}
}

/* rt_region_rebuild within a batch (same sets and counts), into the
 * region's bitsets. */
RT_WIDE void rt_region_rebuild_batched(struct runtime_state *rt, struct region *r, uint32_t base, bool reverse)
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
				rt_push(rt, y);
			else
				rt_bit_set(fr, y);
			continue;
		}
		if (!first && rt_bit_has(in, y))
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
		rt_bits_clear(in, 2 * w);
	for (; rt->stk_len > b; rt->stk_len--)
		rt_bit_set(fr, rt->stk[rt->stk_len - 1]);
	fr[base >> 6] &= ~(1ULL << (base & 63));
	acc += nl;
	r->compute = compute;
	rt->res->heuristic_accesses += acc;
}

