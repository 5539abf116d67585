/*
 * baselines.c: see baselines.h. Written from Checkmate's description of
 * its baselines (the paper's section 6 and its strategy_*.py as a
 * statement of the rules), in rematsim's stages: stage t (one per node)
 * ends with node t; steps_kept lists, for t = 1 .. T, what stage t-1
 * keeps into stage t (own nodes below t).
 */
#include "baselines.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

uint8_t *baselines_forward(const struct profile *p)
{
	const struct profile_graph *g = p->graph;
	uint8_t *fwd = xcalloc(g->n + 1, 1);
	for (size_t v = 0; v < g->n; v++)
		fwd[v] = !p->s->ops[g->op[v]].backward;
	return fwd;
}

/* Undirected adjacency of the forward graph (links into forward nodes,
 * between forward nodes), plus virtual nodes n (input) and n+1 (output). */
struct ugraph {
	uint32_t *adj, *off;
};

static void forward_ugraph(const struct profile_graph *g, const uint8_t *fwd, uint32_t first,
			   uint32_t last, struct ugraph *u)
{
	size_t n = g->n, V = n + 2;
	u->off = xcalloc(V + 1, sizeof *u->off);
	for (uint32_t v = 0; v < n; v++) {
		if (!fwd[v])
			continue;
		for (uint32_t e = g->pred_off[v]; e < g->pred_off[v + 1]; e++)
			if (fwd[g->pred[e]]) {
				u->off[v + 1]++;
				u->off[g->pred[e] + 1]++;
			}
	}
	if (first != NONE) {
		u->off[first + 1]++;
		u->off[n + 1]++;
		u->off[last + 1]++;
		u->off[n + 2]++;
	}
	for (size_t i = 0; i < V; i++)
		u->off[i + 1] += u->off[i];
	u->adj = xmalloc(((size_t)u->off[V] + 1) * sizeof *u->adj);
	uint32_t *fill = xmemdup(u->off, (V + 1) * sizeof *fill);
	for (uint32_t v = 0; v < n; v++) {
		if (!fwd[v])
			continue;
		for (uint32_t e = g->pred_off[v]; e < g->pred_off[v + 1]; e++) {
			uint32_t w = g->pred[e];
			if (fwd[w]) {
				u->adj[fill[v]++] = w;
				u->adj[fill[w]++] = v;
			}
		}
	}
	if (first != NONE) {
		u->adj[fill[first]++] = (uint32_t)n;
		u->adj[fill[n]++] = first;
		u->adj[fill[last]++] = (uint32_t)n + 1;
		u->adj[fill[n + 1]++] = last;
	}
	free(fill);
}

size_t baselines_articulation_points(const struct profile_graph *g, const uint8_t *fwd, bool *ap)
{
	size_t n = g->n, V = n + 2, count = 0;
	uint32_t first = NONE, last = NONE;
	for (uint32_t v = 0; v < n; v++) {
		ap[v] = false;
		if (fwd[v]) {
			if (first == NONE)
				first = v;
			last = v;
		}
	}
	if (first == NONE)
		return 0;
	struct ugraph u;
	forward_ugraph(g, fwd, first, last, &u);
	/* the vertices of the undirected graph: the forward nodes that have a
	 * link (Checkmate's V is the nodes of its forward edges) and the two
	 * virtual ones */
	uint8_t *in = xcalloc(V, 1);
	size_t n_in = 0;
	for (size_t v = 0; v < V; v++) {
		in[v] = (v >= n || fwd[v]) && u.off[v + 1] > u.off[v];
		n_in += in[v];
	}
	uint32_t *seen = xcalloc(V, sizeof *seen);
	uint32_t *stack = xmalloc(V * sizeof *stack);
	for (uint32_t x = 0; x < n; x++) {
		if (!in[x])
			continue;
		/* removing x: is what is left connected? one search from any other vertex */
		uint32_t start = NONE;
		for (uint32_t v = 0; v < V && start == NONE; v++)
			if (in[v] && v != x)
				start = v;
		if (start == NONE)
			continue;
		uint32_t stamp = x + 1;
		size_t sp = 0, reached = 1;
		seen[start] = stamp;
		stack[sp++] = start;
		while (sp) {
			uint32_t v = stack[--sp];
			for (uint32_t e = u.off[v]; e < u.off[v + 1]; e++) {
				uint32_t w = u.adj[e];
				if (w == x || seen[w] == stamp)
					continue;
				seen[w] = stamp;
				stack[sp++] = w;
				reached++;
			}
		}
		if (reached < n_in - 1) {
			ap[x] = true;
			count++;
		}
	}
	free(stack);
	free(seen);
	free(in);
	free(u.adj);
	free(u.off);
	return count;
}

/* A stage-by-node bitmap of what is kept: row t (1 .. T) for what stage
 * t-1 keeps into stage t. */
struct keepmap {
	size_t T, words;
	uint64_t *bits;
};

static void km_init(struct keepmap *m, size_t T)
{
	m->T = T;
	m->words = (T + 64) / 64;
	m->bits = xcalloc((T + 2) * m->words, sizeof *m->bits);
}

static void km_set(struct keepmap *m, const struct profile_graph *g, size_t t, uint32_t i)
{
	if (t < 1 || t > m->T)
		return;
	if (g->kind[i] == PGRAPH_VIEW)
		i = g->base[i];
	if (g->kind[i] != PGRAPH_OWN || i >= t)
		return;
	m->bits[t * m->words + i / 64] |= UINT64_C(1) << (i % 64);
}

static void km_to_kept(struct keepmap *m, struct steps_kept *k)
{
	size_t T = m->T, total = 0;
	k->T = T;
	k->off = xcalloc(T + 2, sizeof *k->off);
	for (size_t t = 1; t <= T; t++)
		for (size_t w = 0; w < m->words; w++)
			total += (size_t)__builtin_popcountll(m->bits[t * m->words + w]);
	k->node = xmalloc((total + 1) * sizeof *k->node);
	size_t n = 0;
	for (size_t t = 1; t <= T; t++) {
		k->off[t] = (uint32_t)n;
		for (size_t w = 0; w < m->words; w++) {
			uint64_t b = m->bits[t * m->words + w];
			while (b) {
				k->node[n++] = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(b));
				b &= b - 1;
			}
		}
	}
	k->off[T + 1] = (uint32_t)n;
	free(m->bits);
	m->bits = NULL;
}

void baselines_keep_all(const struct profile_graph *g, struct steps_kept *k)
{
	struct keepmap m;
	size_t T = g->n;
	km_init(&m, T);
	for (uint32_t i = 0; i < T; i++) {
		uint32_t lastu = i;
		for (uint32_t e = g->succ_off[i]; e < g->succ_off[i + 1]; e++)
			if (g->succ[e] > lastu)
				lastu = g->succ[e];
		/* a view keeps its storage until the view's last reader */
		uint32_t upto = g->keep[i] ? (uint32_t)T : lastu;
		for (size_t t = i + 1; t <= upto; t++)
			km_set(&m, g, t, i);
	}
	km_to_kept(&m, k);
}

void baselines_kept(const struct profile_graph *g, const uint8_t *fwd, const bool *is_cp,
		    struct steps_kept *k)
{
	size_t T = g->n;
	struct keepmap m;
	km_init(&m, T);
	/* backward values are never recomputed: kept from where they are
	 * made to each backward reader; every input is there in its reader's
	 * stage (kept into it, or recomputed just before by steps_build) */
	for (uint32_t v = 0; v < T; v++)
		for (uint32_t e = g->pred_off[v]; e < g->pred_off[v + 1]; e++) {
			uint32_t u = g->pred[e];
			if (!fwd[u] && !fwd[v])
				for (size_t t = u + 1; t <= v; t++)
					km_set(&m, g, t, u);
			km_set(&m, g, v, u);
		}
	/* what the log pins at its end: kept from where it is made */
	for (uint32_t i = 0; i < T; i++)
		if (g->keep[i] && !fwd[i])
			for (size_t t = i + 1; t <= T; t++)
				km_set(&m, g, t, i);
	/* checkpoints: kept in every later stage */
	for (uint32_t i = 0; i < T; i++)
		if (fwd[i] && is_cp[i])
			for (size_t t = i + 1; t <= T; t++)
				km_set(&m, g, t, i);
	/* segments of the forward nodes in order: [0, c1), [c1, c2), ...,
	 * each starting at a checkpoint; while a segment runs forward, and
	 * across the backward stages that read any of its nodes (from the
	 * first such stage to the last: Checkmate's "ladder", there at the
	 * mirror positions), every node of it made so far is kept */
	uint32_t *fw = xmalloc((T + 1) * sizeof *fw);
	size_t nf = 0;
	for (uint32_t v = 0; v < T; v++)
		if (fwd[v])
			fw[nf++] = v;
	size_t a = 0;
	while (a < nf) {
		size_t b = a + 1;
		while (b < nf && !is_cp[fw[b]])
			b++;
		/* forward block: stages fw[a] .. (the next checkpoint's stage, or
		 * the stage after the segment's last node) */
		size_t tend = b < nf ? fw[b] : fw[b - 1] + 1;
		for (size_t q = a; q < b; q++)
			for (size_t t = fw[q] + 1; t <= tend; t++)
				km_set(&m, g, t, fw[q]);
		/* ladder: the backward stages reading the segment */
		uint32_t lo = NONE, hi = 0;
		for (size_t q = a; q < b; q++) {
			uint32_t i = fw[q];
			for (uint32_t e = g->succ_off[i]; e < g->succ_off[i + 1]; e++) {
				uint32_t v = g->succ[e];
				if (fwd[v])
					continue;
				if (lo == NONE || v < lo)
					lo = v;
				if (v > hi)
					hi = v;
			}
		}
		if (lo != NONE)
			for (size_t q = a; q < b; q++)
				for (size_t t = lo; t <= hi; t++)
					km_set(&m, g, t, fw[q]);
		a = b;
	}
	free(fw);
	km_to_kept(&m, k);
}

/* The candidates, in node (log) order. */
static size_t candidates(const struct profile_graph *g, const uint8_t *fwd, bool use_ap,
			 uint32_t *c)
{
	bool *ap = NULL;
	if (use_ap) {
		ap = xcalloc(g->n + 1, sizeof *ap);
		baselines_articulation_points(g, fwd, ap);
	}
	size_t n = 0;
	for (uint32_t v = 0; v < g->n; v++)
		if (fwd[v] && g->kind[v] == PGRAPH_OWN && (!use_ap || ap[v]))
			c[n++] = v;
	free(ap);
	return n;
}

size_t baselines_chen_sqrtn(const struct profile_graph *g, const uint8_t *fwd, bool use_ap,
			    bool *is_cp)
{
	uint32_t *c = xmalloc((g->n + 1) * sizeof *c);
	size_t nc = candidates(g, fwd, use_ap, c), count = 0;
	memset(is_cp, 0, g->n * sizeof *is_cp);
	size_t k = (size_t)sqrt((double)nc);
	while (k * k > nc)
		k--;
	while ((k + 1) * (k + 1) <= nc)
		k++;
	for (size_t q = 0; k && q < nc; q++)
		if ((q + 1) % k == 0) {
			is_cp[c[q]] = true;
			count++;
		}
	free(c);
	return count;
}

size_t baselines_chen_greedy(const struct profile_graph *g, const uint8_t *fwd, bool use_ap,
			     uint64_t segment_bytes, bool *is_cp)
{
	bool *cand = xcalloc(g->n + 1, sizeof *cand);
	uint32_t *c = xmalloc((g->n + 1) * sizeof *c);
	size_t nc = candidates(g, fwd, use_ap, c), count = 0;
	for (size_t q = 0; q < nc; q++)
		cand[c[q]] = true;
	memset(is_cp, 0, g->n * sizeof *is_cp);
	uint64_t run = 0;
	for (uint32_t v = 0; v < g->n; v++) {
		if (!fwd[v])
			continue;
		run += g->bytes[v];
		if (cand[v] && run > segment_bytes) {
			is_cp[v] = true;
			count++;
			run = 0;
		}
	}
	free(c);
	free(cand);
	return count;
}
