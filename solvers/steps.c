/*
 * steps.c: see steps.h. Both the builder and the evaluator walk the stages
 * once with per-node state stamped by stage (no clearing between stages),
 * so a schedule costs time linear in its steps and the graph's edges per
 * stage it touches, and memory linear in the graph.
 */
#include "steps.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

void steps_kept_free(struct steps_kept *k)
{
	free(k->off);
	free(k->node);
	memset(k, 0, sizeof *k);
}

void steps_kept_from_bits(const uint64_t *bits, size_t T, size_t words, struct steps_kept *k)
{
	size_t total = 0;
	for (size_t t = 1; t <= T; t++)
		for (size_t w = 0; w < words; w++)
			total += (size_t)__builtin_popcountll(bits[t * words + w]);
	k->T = T;
	k->off = xcalloc(T + 2, sizeof *k->off);
	k->node = xmalloc((total + 1) * sizeof *k->node);
	size_t n = 0;
	for (size_t t = 1; t <= T; t++) {
		k->off[t] = (uint32_t)n;
		for (size_t w = 0; w < words; w++) {
			uint64_t b = bits[t * words + w];
			while (b) {
				k->node[n++] = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(b));
				b &= b - 1;
			}
		}
	}
	k->off[T + 1] = (uint32_t)n;
}

/* The node whose storage u's outputs live in. */
static inline uint32_t sbase(const struct profile_graph *g, uint32_t u)
{
	return g->base[u];
}

/*
 * Which nodes are in memory: an OWN or FIXED node by a flag; a VIEW while
 * its base is and has not been recomputed since the view was (epochs).
 */
struct mem {
	uint8_t *on;      /* OWN, FIXED: in memory */
	uint32_t *epoch;  /* OWN: materializations so far; VIEW: its base's when computed */
};

static bool mem_has(const struct profile_graph *g, const struct mem *m, uint32_t u)
{
	if (g->kind[u] != PGRAPH_VIEW)
		return m->on[u];
	uint32_t b = g->base[u];
	return m->on[u] && m->on[b] && m->epoch[u] == m->epoch[b];
}

static void mem_compute(const struct profile_graph *g, struct mem *m, uint32_t k)
{
	m->on[k] = 1;
	if (g->kind[k] == PGRAPH_OWN)
		m->epoch[k]++;
	else if (g->kind[k] == PGRAPH_VIEW)
		m->epoch[k] = m->epoch[g->base[k]];
}

static void mem_init(struct mem *m, size_t T)
{
	m->on = xcalloc(T + 1, 1);
	m->epoch = xcalloc(T + 1, sizeof *m->epoch);
}

static void mem_free(struct mem *m)
{
	free(m->on);
	free(m->epoch);
}

static int by_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* ------------------------------------------------------------------ */
/* Building.                                                            */

struct builder {
	const struct profile_graph *g;
	struct mem m;
	uint32_t *tgt;      /* stage whose end keeps the node (stamp) */
	uint32_t *mark;     /* stage that computes the node (stamp) */
	uint32_t *lu;       /* the last computation of the stage reading its storage */
	uint32_t *lu_at;    /* ... stamped by stage */
	uint8_t *used;      /* per entry of the kept lists: read in the stage kept into */
	uint32_t *stack, *c;
	struct plan_steps *out;
	size_t cap_steps, cap_frees;
	uint32_t *final;    /* the nodes the log pins at its end, and their bases */
	size_t n_final;
};

static void emit_step(struct builder *b, uint32_t node)
{
	XGROW(b->out->steps, b->cap_steps, b->out->n_steps + 1);
	b->out->steps[b->out->n_steps++] = (struct plan_step){node, 0};
}

static void emit_free(struct builder *b, uint32_t node)
{
	XGROW(b->out->frees, b->cap_frees, b->out->n_frees + 1);
	b->out->frees[b->out->n_frees++] = node;
	b->out->steps[b->out->n_steps - 1].n_free++;
	b->m.on[node] = 0;
}

/* One pass over the stages. used then says, for each kept entry, whether
 * the stage it was kept into read it. */
static int build_pass(struct builder *b, const struct steps_kept *k, struct rs_error *err)
{
	const struct profile_graph *g = b->g;
	const size_t T = g->n;
	memset(b->m.on, 0, T + 1);
	memset(b->m.epoch, 0, (T + 1) * sizeof *b->m.epoch);
	for (size_t i = 0; i <= T; i++)
		b->tgt[i] = b->mark[i] = b->lu_at[i] = NONE;
	b->out->n_steps = b->out->n_frees = 0;
	for (uint32_t t = 0; t <= T; t++) {
		bool own = t < T; /* stage T has no node of its own */
		/* What the stage keeps for the next one (the last: the pins). */
		const uint32_t *kl = b->final;
		size_t nk = b->n_final;
		if (own) {
			kl = k->node + k->off[t + 1];
			nk = k->off[t + 2] - k->off[t + 1];
		}
		for (size_t j = 0; j < nk; j++) {
			uint32_t i = kl[j];
			if (own && (i > t || g->kind[i] != PGRAPH_OWN))
				return rs_error_set(err, EXIT_SOFTWARE, NULL, 0,
						    "explicit plan: stage %u keeps node %u, %s", t + 1, i,
						    i > t ? "not made yet" : "which owns no storage");
			b->tgt[i] = t;
		}
		/* What it computes: node t, what it keeps and lacks, and their
		 * missing inputs, transitively. */
		size_t ns = 0, nc = 0;
		if (own) {
			b->mark[t] = t;
			b->stack[ns++] = t;
		}
		for (size_t j = 0; j < nk; j++) {
			uint32_t i = kl[j];
			if (b->mark[i] != t && !mem_has(g, &b->m, i)) {
				b->mark[i] = t;
				b->stack[ns++] = i;
			}
		}
		while (ns) {
			uint32_t v = b->stack[--ns];
			b->c[nc++] = v;
			for (uint32_t e = g->pred_off[v]; e < g->pred_off[v + 1]; e++) {
				uint32_t u = g->pred[e];
				if (b->mark[u] != t && !mem_has(g, &b->m, u)) {
					b->mark[u] = t;
					b->stack[ns++] = u;
				}
			}
		}
		qsort(b->c, nc, sizeof *b->c, by_u32);
		/* The last computation reading each storage. */
		for (size_t q = 0; q < nc; q++) {
			uint32_t v = b->c[q];
			for (uint32_t e = g->pred_off[v]; e < g->pred_off[v + 1]; e++) {
				uint32_t s = sbase(g, g->pred[e]);
				b->lu[s] = v;
				b->lu_at[s] = t;
			}
		}
		if (t)
			for (uint32_t j = k->off[t]; j < k->off[t + 1]; j++)
				b->used[j] = b->lu_at[k->node[j]] == t;
		for (size_t q = 0; q < nc; q++) {
			uint32_t v = b->c[q];
			emit_step(b, v);
			mem_compute(g, &b->m, v);
			for (uint32_t e = g->pred_off[v]; e < g->pred_off[v + 1]; e++) {
				uint32_t s = sbase(g, g->pred[e]);
				if (b->lu[s] == v && b->lu_at[s] == t && b->tgt[s] != t && b->m.on[s])
					emit_free(b, s);
			}
			if (g->kind[v] == PGRAPH_OWN && b->lu_at[v] != t && b->tgt[v] != t)
				emit_free(b, v); /* nothing after it reads it */
		}
		/* Kept into this stage, unread, not kept further (with no step of
		 * its own to follow, a last stage's go after the one before). */
		if (t && b->out->n_steps)
			for (uint32_t j = k->off[t]; j < k->off[t + 1]; j++) {
				uint32_t i = k->node[j];
				if (b->m.on[i] && b->tgt[i] != t)
					emit_free(b, i);
			}
	}
	return 0;
}

int steps_build(const struct profile_graph *g, const struct steps_kept *k, bool prune,
		struct plan_steps *out, struct rs_error *err)
{
	const size_t T = g->n;
	memset(out, 0, sizeof *out);
	if (k->T != T)
		return rs_error_set(err, EXIT_SOFTWARE, NULL, 0,
				    "explicit plan: %zu stages for %zu nodes", k->T, T);
	struct builder b = {.g = g, .out = out};
	mem_init(&b.m, T);
	b.tgt = xmalloc((T + 1) * sizeof *b.tgt);
	b.mark = xmalloc((T + 1) * sizeof *b.mark);
	b.lu = xmalloc((T + 1) * sizeof *b.lu);
	b.lu_at = xmalloc((T + 1) * sizeof *b.lu_at);
	b.stack = xmalloc((T + 1) * sizeof *b.stack);
	b.c = xmalloc((T + 1) * sizeof *b.c);
	b.final = xmalloc((T + 1) * sizeof *b.final);
	for (uint32_t i = 0; i < T; i++)
		if (g->keep[i])
			b.final[b.n_final++] = i;
	out->n_nodes = T;
	out->node_op = xmemdup(g->op, (T + 1) * sizeof *g->op);

	/* Pruning: drop what a stage keeps but does not read unless the next
	 * keeps it too, back to front; a stage that then keeps less computes
	 * less (and reads less), so repeat until nothing changes. */
	struct steps_kept cur = {T, xmemdup(k->off, (T + 2) * sizeof *k->off),
				 xmemdup(k->node, ((size_t)k->off[T + 1] + 1) * sizeof *k->node)};
	uint32_t *next = xmalloc((T + 1) * sizeof *next); /* kept into stage next[i] */
	int rc;
	for (;;) {
		b.used = xrealloc(b.used, (size_t)cur.off[T + 1] + 1);
		if ((rc = build_pass(&b, &cur, err)) || !prune)
			break;
		for (size_t i = 0; i <= T; i++)
			next[i] = NONE;
		for (size_t i = 0; i < b.n_final; i++)
			next[b.final[i]] = (uint32_t)T + 1;
		size_t dropped = 0;
		for (size_t t = T + 1; t-- > 1;) {
			for (uint32_t j = cur.off[t]; j < cur.off[t + 1]; j++) {
				uint32_t i = cur.node[j];
				if (b.used[j] || next[i] == t + 1) {
					next[i] = (uint32_t)t;
				} else {
					cur.node[j] = NONE;
					dropped++;
				}
			}
		}
		if (!dropped)
			break;
		size_t w = 0;
		uint32_t *off2 = xcalloc(T + 2, sizeof *off2);
		for (size_t t = 0; t <= T; t++) {
			for (uint32_t j = cur.off[t]; j < cur.off[t + 1]; j++)
				if (cur.node[j] != NONE)
					cur.node[w++] = cur.node[j];
			off2[t + 1] = (uint32_t)w;
		}
		free(cur.off);
		cur.off = off2;
	}
	free(next);
	steps_kept_free(&cur);
	mem_free(&b.m);
	free(b.tgt);
	free(b.mark);
	free(b.lu);
	free(b.lu_at);
	free(b.used);
	free(b.stack);
	free(b.c);
	free(b.final);
	if (rc)
		plan_steps_free(out);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Evaluating.                                                          */

int steps_eval(const struct profile_graph *g, const struct plan_steps *ps, struct steps_cost *c,
	       struct rs_error *err)
{
	memset(c, 0, sizeof *c);
	const size_t T = g->n;
	if (ps->n_nodes != T)
		return rs_error_set(err, EXIT_SOFTWARE, NULL, 0,
				    "explicit plan: %zu nodes for a graph of %zu", ps->n_nodes, T);
	struct mem m;
	mem_init(&m, T);
	uint64_t dyn = 0; /* bytes of the nodes in memory */
	uint32_t t = 0;
	size_t f = 0;
	const char *why = NULL;
	uint32_t who = 0;
	size_t k = 0;
	c->peak_step = ps->n_steps;
	uint32_t begun = NONE; /* the stage whose beginning was counted */
	for (; k < ps->n_steps && !why; k++) {
		/* A stage begins after the constants made before its node's
		 * command: memory peaks there if it grew. */
		if (begun != t) {
			begun = t;
			uint64_t grew = g->static_bytes[t] - (t ? g->static_bytes[t - 1] : 0);
			if (grew && g->static_bytes[t] + dyn > c->peak) {
				c->peak = g->static_bytes[t] + dyn;
				c->peak_step = ps->n_steps;
			}
		}
		const struct plan_step *st = &ps->steps[k];
		uint32_t v = st->node;
		who = v;
		if (v >= T || v > t) {
			why = "a computation past its stage";
			break;
		}
		if (v < t && g->kind[v] == PGRAPH_FIXED) {
			why = "a recomputation of a view of a constant";
			break;
		}
		if (mem_has(g, &m, v)) {
			why = "a computation of a value in memory";
			break;
		}
		for (uint32_t e = g->pred_off[v]; e < g->pred_off[v + 1] && !why; e++)
			if (!mem_has(g, &m, g->pred[e])) {
				why = "an input not in memory";
				who = g->pred[e];
			}
		if (why)
			break;
		mem_compute(g, &m, v);
		dyn += g->bytes[v];
		if (g->static_bytes[t] + dyn > c->peak) {
			c->peak = g->static_bytes[t] + dyn;
			c->peak_step = k;
		}
		c->compute += g->cost[v];
		if (v < t) {
			c->remat_compute += g->cost[v];
			c->remats++;
		}
		if (st->n_free > ps->n_frees - f) {
			why = "more frees than listed";
			break;
		}
		for (uint32_t j = 0; j < st->n_free && !why; j++) {
			uint32_t i = ps->frees[f + j];
			who = i;
			if (i >= T || g->kind[i] != PGRAPH_OWN || !m.on[i])
				why = "a free of a value not in memory";
			else {
				m.on[i] = 0;
				dyn -= g->bytes[i];
			}
		}
		f += st->n_free;
		t += v == t;
	}
	if (!why && t != T)
		why = "fewer stages than nodes";
	if (!why) {
		if (g->static_bytes[T] > (T ? g->static_bytes[T - 1] : 0) &&
		    g->static_bytes[T] + dyn > c->peak) {
			c->peak = g->static_bytes[T] + dyn;
			c->peak_step = ps->n_steps;
		}
		for (uint32_t i = 0; i < T && !why; i++)
			if (g->keep[i] && !mem_has(g, &m, i)) {
				why = "a value the log pins at its end is not in memory";
				who = i;
			}
	}
	mem_free(&m);
	if (why)
		return rs_error_set(err, EXIT_SOFTWARE, NULL, 0,
				    "explicit plan: %s (step %zu, node %u, op %u)", why, k, who,
				    who < T ? g->op[who] : 0);
	return 0;
}
