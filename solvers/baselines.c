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

#include "revolve.h"

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
	steps_kept_from_bits(m->bits, m->T, m->words, k);
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

/* What every baseline keeps: backward values are never recomputed, kept
 * from where they are made to each backward reader; what the log pins at
 * its end, from where it is made; with inputs, every input is there in
 * its reader's stage (kept into it, or recomputed just before by
 * steps_build), as Checkmate's S matrices have it. */
static void keep_implied(const struct profile_graph *g, const uint8_t *fwd, bool inputs,
			 struct keepmap *m)
{
	size_t T = g->n;
	for (uint32_t v = 0; v < T; v++)
		for (uint32_t e = g->pred_off[v]; e < g->pred_off[v + 1]; e++) {
			uint32_t u = g->pred[e];
			if (!fwd[u] && !fwd[v])
				for (size_t t = u + 1; t <= v; t++)
					km_set(m, g, t, u);
			if (inputs || !fwd[u])
				km_set(m, g, v, u);
		}
	/* what the log pins at its end: kept from where it is made */
	for (uint32_t i = 0; i < T; i++)
		if (g->keep[i] && !fwd[i])
			for (size_t t = i + 1; t <= T; t++)
				km_set(m, g, t, i);
}

void baselines_kept(const struct profile_graph *g, const uint8_t *fwd, const bool *is_cp,
		    struct steps_kept *k)
{
	size_t T = g->n;
	struct keepmap m;
	km_init(&m, T);
	keep_implied(g, fwd, true, &m);
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

/* ------------------------------------------------------------------ */
/* Griewank's log n on the linearised graph.                           */

/* The meta chain: step j (1 .. n) makes x_j, the last node of segment j,
 * from x_{j-1} (x_0: the graph's input, no node). */
struct gw {
	const struct profile_graph *g;
	struct keepmap *m;
	size_t n;
	uint32_t *x;          /* [n + 1]: x[j] the node of x_j (x[0] unused) */
	uint32_t *lo, *hi;    /* [n + 1]: the stages reversing step j, or NONE */
	uint32_t *taken;      /* [n + 1]: a snapshot's stage, or NONE */
	uint32_t *last;       /* [n + 1]: the last stage that reads it */
	uint32_t stage;       /* the stage the actions run in; NONE: the forward sweep */
	uint32_t cur_stage;   /* where the current state was made */
	uint64_t cur;
};

static void gw_keep(struct gw *w, uint64_t j, uint32_t from, uint32_t to)
{
	if (!j || from == NONE || to == NONE)
		return;
	for (size_t t = (size_t)from + 1; t <= to; t++)
		km_set(w->m, w->g, t, w->x[j]);
}

static void gw_close(struct gw *w, uint64_t j)
{
	if (w->taken[j] == NONE)
		return;
	gw_keep(w, j, w->taken[j], w->last[j]);
	w->taken[j] = NONE;
}

static void gw_action(void *ctx, const struct revolve_action *a)
{
	struct gw *w = ctx;
	switch (a->kind) {
	case REVOLVE_ADVANCE:
		w->cur = a->to;
		w->cur_stage = w->stage == NONE ? (a->to ? w->x[a->to] : NONE) : w->stage;
		break;
	case REVOLVE_TAKESHOT:
		if (a->to) {
			gw_close(w, a->to);
			w->taken[a->to] = w->stage == NONE ? w->x[a->to] : w->stage;
			w->last[a->to] = w->taken[a->to];
		}
		break;
	case REVOLVE_RESTORE:
		w->cur = a->to;
		w->cur_stage = w->stage;
		if (w->taken[a->to] != NONE && w->stage != NONE && w->stage > w->last[a->to])
			w->last[a->to] = w->stage;
		break;
	case REVOLVE_TURN: {
		uint64_t j = a->to;
		if (w->stage == NONE || w->lo[j] != NONE)
			w->stage = w->lo[j] != NONE ? w->lo[j] : w->x[w->n] + 1;
		uint32_t end = w->hi[j] != NONE ? w->hi[j] : w->stage;
		/* the state the turn reads: x_{j-1}, current since cur_stage */
		gw_keep(w, j - 1, w->cur_stage, end);
		if (j > 1 && w->taken[j - 1] != NONE && end > w->last[j - 1])
			w->last[j - 1] = end;
		/* what runs before the next turn runs in its first stage */
		if (j > 1 && w->lo[j - 1] != NONE)
			w->stage = w->lo[j - 1];
		w->cur = NONE;
		w->cur_stage = NONE;
		break;
	}
	}
}

/* The first and last backward readers of node v into *lo, *hi. */
static void bw_readers(const struct profile_graph *g, const uint8_t *fwd, uint32_t v,
		       uint32_t *lo, uint32_t *hi)
{
	for (uint32_t e = g->succ_off[v]; e < g->succ_off[v + 1]; e++) {
		uint32_t r = g->succ[e];
		if (fwd[r])
			continue;
		if (*lo == NONE || r < *lo)
			*lo = r;
		if (*hi == NONE || r > *hi)
			*hi = r;
	}
}

size_t baselines_griewank(const struct profile_graph *g, const uint8_t *fwd, uint64_t snapshots,
			  struct steps_kept *k, uint64_t *fwd_steps, uint64_t *used)
{
	size_t T = g->n;
	struct keepmap m;
	km_init(&m, T);
	/* a forward value a backward stage reads is recomputed in that stage
	 * where no snapshot or turn keeps it (revolve's turns) */
	keep_implied(g, fwd, false, &m);
	uint32_t *c = xmalloc((T + 1) * sizeof *c), *fw = xmalloc((T + 1) * sizeof *fw);
	size_t nc = candidates(g, fwd, true, c), nf = 0;
	for (uint32_t v = 0; v < T; v++)
		if (fwd[v] && g->kind[v] == PGRAPH_OWN)
			fw[nf++] = v;
	/* segments: the forward nodes in order, each ending at an articulation
	 * point (the last one at the last forward node) */
	struct gw w = {.g = g, .m = &m, .stage = NONE, .cur_stage = NONE};
	w.x = xmalloc((nf + 2) * sizeof *w.x);
	size_t n = 0, q = 0;
	for (size_t i = 0; i < nf; i++) {
		bool ap = q < nc && c[q] == fw[i];
		q += ap;
		if (ap || i + 1 == nf)
			w.x[++n] = fw[i];
	}
	w.n = n;
	w.lo = xmalloc((n + 2) * sizeof *w.lo);
	w.hi = xmalloc((n + 2) * sizeof *w.hi);
	w.taken = xmalloc((n + 2) * sizeof *w.taken);
	w.last = xmalloc((n + 2) * sizeof *w.last);
	size_t a = 0;
	for (size_t j = 1; j <= n; j++) {
		/* segment j: fw[a .. b], b the index of x_j */
		size_t b = a;
		while (fw[b] != w.x[j])
			b++;
		/* forward sweep: each node kept to the next segment's first stage */
		size_t tend = b + 1 < nf ? fw[b + 1] : fw[b] + 1;
		for (size_t i = a; i <= b; i++)
			for (size_t t = fw[i] + 1; t <= tend; t++)
				km_set(&m, g, t, fw[i]);
		/* reversing step j: the backward stages reading its input x_{j-1}
		 * and its nodes before x_j; the ladder keeps those across them */
		uint32_t lo = NONE, hi = NONE;
		if (j > 1)
			bw_readers(g, fwd, w.x[j - 1], &lo, &hi);
		for (size_t i = a; i < b; i++)
			bw_readers(g, fwd, fw[i], &lo, &hi);
		w.lo[j] = lo;
		w.hi[j] = hi;
		if (lo != NONE)
			for (size_t i = a; i < b; i++)
				for (size_t t = lo; t <= hi; t++)
					km_set(&m, g, t, fw[i]);
		w.taken[j] = w.last[j] = NONE;
		a = b + 1;
	}
	w.taken[0] = w.last[0] = NONE;
	if (!snapshots) {
		snapshots = 1;
		while (snapshots < 64 && (UINT64_C(1) << snapshots) < n)
			snapshots++;
	}
	*used = snapshots;
	*fwd_steps = n ? revolve_run(n, snapshots, gw_action, &w) : 0;
	for (size_t j = 1; j <= n; j++)
		gw_close(&w, j);
	free(w.x);
	free(w.lo);
	free(w.hi);
	free(w.taken);
	free(w.last);
	free(fw);
	free(c);
	km_to_kept(&m, k);
	return n;
}
