/*
 * profile.c: see profile.h. No replay is needed: in an unbounded replay a
 * storage is freed only when its handles drop to none, so walking the
 * commands up to the first backward op and counting handles
 * (schedule_count_handles) says which storages are alive.
 */
#include "profile.h"

#include <stdlib.h>
#include <string.h>

#include "plan.h"

int profile_build(const struct schedule *s, struct profile *p, struct rs_error *err)
{
	memset(p, 0, sizeof *p);
	p->s = s;
	p->n = plan_forward_ops(s, &p->op);
	if (!p->n)
		return rs_error_set(err, EXIT_DATAERR, s->source, 0,
				    "the log has no forward ops (non-constant ops before the "
				    "first backward op): no activations to profile or split");
	int64_t *refs = xcalloc(s->n_storages + 1, sizeof *refs);
	for (size_t i = 0; i < s->n_cmds; i++) {
		const struct sched_cmd *c = &s->cmds[i];
		if (c->kind == CMD_COMPUTE && s->ops[c->id].backward)
			break;
		schedule_count_handles(s, c, refs);
	}
	/* op id -> forward index, through the ascending op list */
	p->bytes = xcalloc(p->n, sizeof *p->bytes);
	for (size_t st = 0; st < s->n_storages; st++) {
		if (!refs[st])
			continue;
		uint32_t o = s->tensors[schedule_storage_root(s, st)].op;
		size_t lo = 0, hi = p->n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (p->op[mid] < o)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < p->n && p->op[lo] == o)
			p->bytes[lo] += s->storages[st].size;
	}
	free(refs);
	for (size_t i = 0; i < p->n; i++)
		p->total += p->bytes[i];
	return 0;
}

void profile_from_sizes(const uint64_t *a, size_t n, struct profile *p)
{
	memset(p, 0, sizeof *p);
	p->n = n;
	p->op = xcalloc(n + 1, sizeof *p->op);
	p->bytes = xcalloc(n + 1, sizeof *p->bytes);
	if (n)
		memcpy(p->bytes, a, n * sizeof *a);
	for (size_t i = 0; i < n; i++) {
		p->op[i] = (uint32_t)i;
		p->total += a[i];
	}
}

/* ------------------------------------------------------------------ */
/* The graph.                                                           */

#define NONE UINT32_MAX

static void graph_free(struct profile_graph *g)
{
	if (!g)
		return;
	free(g->op);
	free(g->kind);
	free(g->base);
	free(g->bytes);
	free(g->cost);
	free(g->pred);
	free(g->pred_off);
	free(g->succ);
	free(g->succ_off);
	free(g->static_bytes);
	free(g->keep);
	free(g);
}

static int by_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

int profile_graph_build(struct profile *p, struct rs_error *err)
{
	if (p->graph)
		return 0;
	const struct schedule *s = p->s;
	if (!s)
		return rs_error_set(err, EXIT_USAGE, NULL, 0,
				    "a list of sizes has no graph: this planner needs a log");
	struct profile_graph *g = xcalloc(1, sizeof *g);
	g->unsupported_op = NONE;
	uint32_t *node_of = xmalloc((s->n_ops + 1) * sizeof *node_of);
	for (size_t i = 0; i < s->n_ops; i++)
		node_of[i] = s->ops[i].constant ? NONE : (uint32_t)g->n++;
	const size_t T = g->n;
	g->op = xmalloc((T + 1) * sizeof *g->op);
	g->kind = xcalloc(T + 1, sizeof *g->kind);
	g->base = xmalloc((T + 1) * sizeof *g->base);
	g->bytes = xcalloc(T + 1, sizeof *g->bytes);
	g->cost = xcalloc(T + 1, sizeof *g->cost);
	g->keep = xcalloc(T + 1, sizeof *g->keep);
	g->static_bytes = xcalloc(T + 1, sizeof *g->static_bytes);
	for (size_t i = 0; i < s->n_ops; i++) {
		uint32_t t = node_of[i];
		if (t == NONE)
			continue;
		const struct sched_op *op = &s->ops[i];
		g->op[t] = (uint32_t)i;
		g->cost[t] = op->cost;
		g->base[t] = t;
		/* Its kind, from its outputs: all owning, or all views into one
		 * storage (the storage's root op says whose). */
		uint32_t own = 0, views = 0, st = NONE;
		bool two = false;
		for (uint32_t k = 0; k < op->n_outs; k++) {
			const struct sched_tensor *x = &s->tensors[op->outs + k];
			if (x->alias < 0) {
				own++;
			} else {
				views++;
				two |= st != NONE && st != x->storage;
				st = x->storage;
			}
		}
		const char *why = NULL;
		if (own && views)
			why = "has outputs of its own and views among its outputs";
		else if (two)
			why = "has views into two storages among its outputs";
		if (why) {
			if (g->unsupported_op == NONE) {
				g->unsupported_op = (uint32_t)i;
				g->unsupported_why = why;
			}
			g->kind[t] = PGRAPH_OWN; /* as good as any: the graph is refused */
		} else if (views) {
			uint32_t root = s->tensors[schedule_storage_root(s, st)].op;
			g->kind[t] = node_of[root] == NONE || g->kind[node_of[root]] == PGRAPH_FIXED
					     ? PGRAPH_FIXED : PGRAPH_VIEW;
			if (g->kind[t] == PGRAPH_VIEW)
				g->base[t] = node_of[root];
		} else {
			g->kind[t] = PGRAPH_OWN;
			g->bytes[t] = op->total_size;
		}
	}
	/* Inputs: the distinct nodes an op reads (constants and FIXED views
	 * are always there), ascending. */
	g->pred_off = xcalloc(T + 2, sizeof *g->pred_off);
	size_t cap = 0;
	for (size_t t = 0; t < T; t++)
		cap += s->ops[g->op[t]].n_args;
	g->pred = xmalloc((cap + 1) * sizeof *g->pred);
	size_t e = 0;
	for (size_t t = 0; t < T; t++) {
		const struct sched_op *op = &s->ops[g->op[t]];
		size_t from = e;
		for (uint32_t a = 0; a < op->n_args; a++) {
			uint32_t u = node_of[s->tensors[s->op_args[op->args + a]].op];
			if (u != NONE && g->kind[u] != PGRAPH_FIXED)
				g->pred[e++] = u;
		}
		qsort(g->pred + from, e - from, sizeof *g->pred, by_u32);
		size_t w = from;
		for (size_t i = from; i < e; i++)
			if (i == from || g->pred[i] != g->pred[i - 1])
				g->pred[w++] = g->pred[i];
		e = w;
		g->pred_off[t + 1] = (uint32_t)e;
	}
	g->n_edges = e;
	g->succ_off = xcalloc(T + 2, sizeof *g->succ_off);
	g->succ = xmalloc((e + 1) * sizeof *g->succ);
	for (size_t i = 0; i < e; i++)
		g->succ_off[g->pred[i] + 1]++;
	for (size_t t = 0; t < T; t++)
		g->succ_off[t + 1] += g->succ_off[t];
	uint32_t *fill = xmemdup(g->succ_off, (T + 1) * sizeof *fill);
	for (size_t t = 0; t < T; t++) /* t ascending: each succ list comes out ascending */
		for (uint32_t i = g->pred_off[t]; i < g->pred_off[t + 1]; i++)
			g->succ[fill[g->pred[i]]++] = (uint32_t)t;
	free(fill);
	/* Constants made before each node's command; what the end pins. */
	uint64_t consts = 0;
	for (size_t i = 0; i < s->n_cmds; i++) {
		const struct sched_cmd *c = &s->cmds[i];
		if (c->kind == CMD_COMPUTE) {
			if (s->ops[c->id].constant)
				consts += s->ops[c->id].total_size;
			else
				g->static_bytes[node_of[c->id]] = consts;
		} else if (c->kind == CMD_PIN) {
			uint32_t t = node_of[s->tensors[c->id].op];
			if (t != NONE && g->kind[t] != PGRAPH_FIXED)
				g->keep[t] = 1;
		}
	}
	g->static_bytes[T] = consts;
	/* A view pinned at the end needs its storage there too. */
	for (size_t t = 0; t < T; t++)
		if (g->keep[t] && g->kind[t] == PGRAPH_VIEW)
			g->keep[g->base[t]] = 1;
	free(node_of);
	p->graph = g;
	return 0;
}

void profile_free(struct profile *p)
{
	free(p->op);
	free(p->bytes);
	graph_free(p->graph);
	memset(p, 0, sizeof *p);
}

uint64_t profile_graph_op_need(const struct profile_graph *g, size_t t, uint32_t *stamp)
{
	uint64_t need = g->static_bytes[t] + g->bytes[t];
	stamp[t] = (uint32_t)t;
	for (uint32_t e = g->pred_off[t]; e < g->pred_off[t + 1]; e++) {
		uint32_t b = g->base[g->pred[e]];
		if (stamp[b] != t) {
			stamp[b] = (uint32_t)t;
			need += g->bytes[b];
		}
	}
	return need;
}
