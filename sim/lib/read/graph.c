/*
 * graph.c: see graph.h; docs/graphs.md says where each choice comes from.
 *
 * The import in four steps, each refusing what the next cannot take:
 *  1. the JSON (jansson) and its shape: an object with "nodes" and
 *     "links" (or networkx 3.4's "edges") arrays, directed;
 *  2. the nodes: an integer id each, unique, and the costs of their kind
 *     (Checkmate's cost_cpu, cost_ram, backward; the random layered
 *     graphs' duration, out_cost, param_cost), whole and non-negative;
 *  3. the links: both ends among the nodes, none repeated (unless the
 *     graph says it is a multigraph), no cycle;
 *  4. the order ops run in (graph.order, or simrd's depth-first order) and
 *     the schedule: each node's op in that order, then the releases of the
 *     tensors whose last use it was, in the order of a Python set.
 * Memory and time are linear in nodes and links, but for sorting the ids
 * and links (n log n); the depth-first walk keeps its own stack.
 */
#include "graph.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pyset.h"
#include "schedule_builder.h"

#define MAX_ID INT32_MAX                  /* node ids: 0 .. 2^31 - 1 */
#define MAX_VALUE (UINT64_C(1) << 62)     /* one cost or size, as in a log */
#define MAX_TOTAL (UINT64_C(1) << 60)     /* their sums (docs/reader.md) */
#define NONE UINT32_MAX

enum kind { KIND_CHECKMATE, KIND_LAYERED };

struct node {
	uint32_t id;
	const char *name;  /* Checkmate's layer name, or NULL (borrowed from the JSON) */
	uint64_t time;     /* cost_cpu or duration */
	uint64_t bytes;    /* cost_ram or out_cost */
	uint64_t params;   /* param_cost (random layered), else 0 */
	bool backward;     /* Checkmate's "backward" */
};

struct link {
	uint32_t from, to; /* node indices */
	size_t pos;        /* in the file's links list */
};

struct gi {
	struct schedule_builder *sb;
	enum kind kind;
	struct node *nodes;
	size_t n;
	struct link *links;
	size_t m;
	uint32_t *by_id; /* node indices sorted by id */
};

/* "node 12 (\"block1_conv1\")" or "node 12". */
static const char *node_text(const struct node *v, char *buf, size_t cap)
{
	if (v->name)
		snprintf(buf, cap, "node %" PRIu32 " (\"%.200s\")", v->id, v->name);
	else
		snprintf(buf, cap, "node %" PRIu32, v->id);
	return buf;
}

#define problem(g, ...) schedule_builder_problem((g)->sb, EXIT_DATAERR, 0, __VA_ARGS__)

/* ------------------------------------------------------------------ */
/* Nodes */

static const char *json_kind(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a real number";
	case JSON_TRUE: case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

/*
 * A whole number of field `key` of node object o (described as who): a
 * JSON integer, or a real with no fraction. Returns 1 (in *out), 0 when
 * absent and not required, -1 after a problem.
 */
static int amount(struct gi *g, const json_t *o, const char *key, bool required, const char *who,
		  uint64_t *out)
{
	const json_t *v = json_object_get(o, key);
	*out = 0;
	if (!v) {
		if (required)
			problem(g, "%s lacks \"%s\"", who, key);
		return required ? -1 : 0;
	}
	if (json_is_integer(v)) {
		json_int_t x = json_integer_value(v);
		if (x < 0) {
			problem(g, "%s: \"%s\" is negative (%lld)", who, key, (long long)x);
			return -1;
		}
		*out = (uint64_t)x;
	} else if (json_is_real(v)) {
		double x = json_real_value(v);
		if (x < 0) {
			problem(g, "%s: \"%s\" is negative (%g)", who, key, x);
			return -1;
		}
		if (x != floor(x) || !(x < (double)MAX_VALUE)) {
			problem(g, "%s: \"%s\" must be a whole number below 2^62, not %.17g", who, key, x);
			return -1;
		}
		*out = (uint64_t)x;
	} else {
		problem(g, "%s: \"%s\" must be a non-negative whole number, not %s", who, key,
			json_kind(v));
		return -1;
	}
	if (*out > MAX_VALUE) {
		problem(g, "%s: \"%s\" is too large (%" PRIu64 ", over 2^62)", who, key, *out);
		return -1;
	}
	return 1;
}

/* An id: a JSON integer from 0 to 2^31 - 1. */
static bool id_of(const json_t *v, uint32_t *out)
{
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > MAX_ID)
		return false;
	*out = (uint32_t)json_integer_value(v);
	return true;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The index of the node with id, or NONE. */
static uint32_t find(const struct gi *g, uint32_t id)
{
	size_t lo = 0, hi = g->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->nodes[g->by_id[mid]].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->n && g->nodes[g->by_id[lo]].id == id ? g->by_id[lo] : NONE;
}

static void read_nodes(struct gi *g, const json_t *nodes)
{
	const json_t *first = json_array_get(nodes, 0);
	if (!json_is_object(first)) {
		problem(g, "the first node is %s, not an object", json_kind(first));
		return;
	}
	/* Its fields tell the kind, and which key holds the ids (networkx's
	 * default "id"; the random layered files keep them in "name"). */
	if (json_object_get(first, "cost_ram") || json_object_get(first, "cost_cpu")) {
		g->kind = KIND_CHECKMATE;
	} else if (json_object_get(first, "out_cost") || json_object_get(first, "duration")) {
		g->kind = KIND_LAYERED;
	} else {
		problem(g, "the first node has neither \"cost_cpu\" and \"cost_ram\" (Checkmate's "
			   "graphs) nor \"duration\" and \"out_cost\" (random layered graphs): "
			   "docs/graphs.md lists the fields");
		return;
	}
	const char *id_key = json_object_get(first, "id") ? "id" : "name";
	g->n = json_array_size(nodes);
	g->nodes = xcalloc(g->n, sizeof *g->nodes);
	for (size_t i = 0; i < g->n && !schedule_builder_stopped(g->sb); i++) {
		const json_t *o = json_array_get(nodes, i);
		struct node *v = &g->nodes[i];
		char who[300];
		if (!json_is_object(o)) {
			problem(g, "nodes[%zu] is %s, not an object", i, json_kind(o));
			continue;
		}
		if (!id_of(json_object_get(o, id_key), &v->id)) {
			problem(g, "nodes[%zu] has no \"%s\" that is an integer from 0 to 2^31-1 "
				   "(the node's id)", i, id_key);
			continue;
		}
		if (g->kind == KIND_CHECKMATE) {
			const json_t *name = json_object_get(o, "name");
			v->name = json_is_string(name) ? json_string_value(name) : NULL;
			node_text(v, who, sizeof who);
			amount(g, o, "cost_cpu", true, who, &v->time);
			amount(g, o, "cost_ram", true, who, &v->bytes);
			const json_t *bw = json_object_get(o, "backward");
			if (bw && !json_is_boolean(bw) && !json_is_null(bw))
				problem(g, "%s: \"backward\" must be true or false, not %s", who,
					json_kind(bw));
			v->backward = json_is_true(bw);
		} else {
			node_text(v, who, sizeof who);
			amount(g, o, "duration", true, who, &v->time);
			amount(g, o, "out_cost", true, who, &v->bytes);
			amount(g, o, "param_cost", false, who, &v->params);
		}
	}
	if (schedule_builder_problems(g->sb))
		return;
	/* (id, index) pairs sorted: ids below 2^31, indices below 2^32 */
	uint64_t *keys = xmalloc(g->n * sizeof *keys);
	for (size_t i = 0; i < g->n; i++)
		keys[i] = (uint64_t)g->nodes[i].id << 32 | i;
	qsort(keys, g->n, sizeof *keys, by_u64);
	g->by_id = xmalloc(g->n * sizeof *g->by_id);
	for (size_t i = 0; i < g->n; i++)
		g->by_id[i] = (uint32_t)keys[i];
	free(keys);
	for (size_t i = 1; i < g->n; i++)
		if (g->nodes[g->by_id[i - 1]].id == g->nodes[g->by_id[i]].id) {
			uint32_t a = g->by_id[i - 1], b = g->by_id[i];
			problem(g, "node id %" PRIu32 " is given twice (nodes[%u] and nodes[%u])",
				g->nodes[a].id, a < b ? a : b, a < b ? b : a);
		}
}

/* ------------------------------------------------------------------ */
/* Links */

static int by_ends(const void *a, const void *b)
{
	const struct link *x = a, *y = b;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static void read_links(struct gi *g, const json_t *links, bool multigraph)
{
	g->m = json_array_size(links);
	g->links = xcalloc(g->m + 1, sizeof *g->links);
	for (size_t i = 0; i < g->m && !schedule_builder_stopped(g->sb); i++) {
		const json_t *o = json_array_get(links, i);
		if (!json_is_object(o)) {
			problem(g, "links[%zu] is %s, not an object", i, json_kind(o));
			continue;
		}
		/* networkx's "source"/"target"; the random layered files' "0"/"1" */
		const char *ks = json_object_get(o, "source") ? "source" : "0";
		const char *kt = json_object_get(o, "source") ? "target" : "1";
		uint32_t ends[2];
		const char *keys[2] = {ks, kt};
		bool ok = true;
		for (int e = 0; e < 2; e++) {
			const json_t *v = json_object_get(o, keys[e]);
			uint32_t id;
			if (!id_of(v, &id)) {
				problem(g, "links[%zu] has no \"%s\" that is an integer node id%s", i,
					keys[e], e == 0 && !v ? " (\"source\" or \"0\")" : "");
				ok = false;
				break;
			}
			ends[e] = find(g, id);
			if (ends[e] == NONE) {
				problem(g, "links[%zu] names node %" PRIu32 " as its %s, and no node has that id",
					i, id, e ? "target" : "source");
				ok = false;
				break;
			}
		}
		if (!ok)
			continue;
		if (ends[0] == ends[1]) {
			char who[300];
			problem(g, "links[%zu] leads from %s to itself: a computation graph has no cycles",
				i, node_text(&g->nodes[ends[0]], who, sizeof who));
			continue;
		}
		g->links[i] = (struct link){.from = ends[0], .to = ends[1], .pos = i};
	}
	if (schedule_builder_problems(g->sb) || multigraph)
		return;
	/* A link given twice: networkx's DiGraph would keep one, silently. */
	struct link *sorted = xmemdup(g->links, (g->m + 1) * sizeof *sorted);
	qsort(sorted, g->m, sizeof *sorted, by_ends);
	for (size_t i = 1; i < g->m; i++)
		if (sorted[i].from == sorted[i - 1].from && sorted[i].to == sorted[i - 1].to) {
			char a[300], b[300];
			problem(g, "links[%zu] repeats links[%zu] (from %s to %s), and the graph is not a "
				   "multigraph", sorted[i].pos, sorted[i - 1].pos,
				node_text(&g->nodes[sorted[i].from], a, sizeof a),
				node_text(&g->nodes[sorted[i].to], b, sizeof b));
		}
	free(sorted);
}

/* ------------------------------------------------------------------ */
/* The order */

/* CSR lists: off[v] .. off[v + 1] in item. */
struct csr {
	uint32_t *off, *item;
};

static void csr_free(struct csr *c)
{
	free(c->off);
	free(c->item);
}

/* Each node's arguments: the sources of the links into it, in link order. */
static void build_args(const struct gi *g, struct csr *args)
{
	args->off = xcalloc(g->n + 1, sizeof *args->off);
	args->item = xmalloc((g->m + 1) * sizeof *args->item);
	for (size_t i = 0; i < g->m; i++)
		args->off[g->links[i].to + 1]++;
	for (size_t v = 0; v < g->n; v++)
		args->off[v + 1] += args->off[v];
	uint32_t *at = xmemdup(args->off, (g->n + 1) * sizeof *at);
	for (size_t i = 0; i < g->m; i++)
		args->item[at[g->links[i].to]++] = g->links[i].from;
	free(at);
}

/* The file's graph.order: every node once, each after the nodes it uses.
 * Returns the order (positions of nodes) or NULL after a problem. */
static uint32_t *file_order(struct gi *g, const json_t *order)
{
	if (!json_is_array(order)) {
		problem(g, "\"graph\": \"order\" is %s, not a list of node ids", json_kind(order));
		return NULL;
	}
	if (json_array_size(order) != g->n) {
		problem(g, "\"graph\": \"order\" lists %zu nodes, the graph has %zu",
			json_array_size(order), g->n);
		return NULL;
	}
	uint32_t *seq = xmalloc((g->n + 1) * sizeof *seq);
	uint32_t *pos = xmalloc((g->n + 1) * sizeof *pos);
	for (size_t v = 0; v < g->n; v++)
		pos[v] = NONE;
	for (size_t i = 0; i < g->n && !schedule_builder_stopped(g->sb); i++) {
		uint32_t id, v;
		if (!id_of(json_array_get(order, i), &id) || (v = find(g, id)) == NONE) {
			problem(g, "\"graph\": \"order\"[%zu] is not the id of a node", i);
			continue;
		}
		if (pos[v] != NONE) {
			char who[300];
			problem(g, "\"graph\": \"order\" lists %s twice", node_text(&g->nodes[v], who, sizeof who));
			continue;
		}
		pos[v] = (uint32_t)i;
		seq[i] = v;
	}
	for (size_t i = 0; i < g->m && !schedule_builder_problems(g->sb); i++)
		if (pos[g->links[i].from] > pos[g->links[i].to]) {
			char a[300], b[300];
			problem(g, "\"graph\": \"order\" runs %s before %s, which it uses (links[%zu])",
				node_text(&g->nodes[g->links[i].to], a, sizeof a),
				node_text(&g->nodes[g->links[i].from], b, sizeof b), i);
		}
	free(pos);
	if (schedule_builder_problems(g->sb)) {
		free(seq);
		return NULL;
	}
	return seq;
}

/*
 * simrd's dfgraph_topological: a depth-first walk from each unvisited node
 * in ascending id order, each node's successors taken in the order Python
 * iterates the set of them (DFGraph.successors builds it from the edge
 * list, which lists each target's sources target by target, targets in
 * the order they first appear), a node placed in front of the order once
 * all its successors are. Returns the order, or NULL after a problem (a
 * cycle). Iterative: a frame per node on the path.
 */
static uint32_t *dfs_order(struct gi *g, const struct csr *args)
{
	const size_t n = g->n;
	/* successors as listed, then as Python's set iterates them */
	struct csr succ = {xcalloc(n + 1, sizeof *succ.off), xmalloc((g->m + 1) * sizeof *succ.item)};
	uint32_t *first_seen = xmalloc((n + 1) * sizeof *first_seen), n_targets = 0;
	uint8_t *seen = xcalloc(n + 1, 1);
	for (size_t i = 0; i < g->m; i++) {
		succ.off[g->links[i].from + 1]++;
		if (!seen[g->links[i].to]) {
			seen[g->links[i].to] = 1;
			first_seen[n_targets++] = g->links[i].to;
		}
	}
	for (size_t v = 0; v < n; v++)
		succ.off[v + 1] += succ.off[v];
	uint32_t *at = xmemdup(succ.off, (n + 1) * sizeof *at);
	for (uint32_t t = 0; t < n_targets; t++) {
		uint32_t v = first_seen[t];
		for (uint32_t k = args->off[v]; k < args->off[v + 1]; k++)
			succ.item[at[args->item[k]]++] = v;
	}
	/* Python iterates the set of a node's successor ids: ids, not indices */
	uint32_t *count = xcalloc(n + 1, sizeof *count);
	uint32_t *ids = xmalloc((g->m + 1) * sizeof *ids);
	struct pyset set = {0};
	for (size_t u = 0; u < n; u++) {
		pyset_clear(&set);
		for (uint32_t k = succ.off[u]; k < succ.off[u + 1]; k++)
			pyset_add(&set, g->nodes[succ.item[k]].id);
		count[u] = (uint32_t)pyset_order(&set, ids + succ.off[u]);
		for (uint32_t k = 0; k < count[u]; k++)
			succ.item[succ.off[u] + k] = find(g, ids[succ.off[u] + k]);
	}
	pyset_free(&set);
	free(ids);

	uint8_t *state = seen; /* 0 unvisited, 1 on the path, 2 done */
	memset(state, 0, n + 1);
	uint32_t *post = xmalloc((n + 1) * sizeof *post), n_post = 0;
	uint32_t *path = xmalloc((n + 1) * sizeof *path), *next = xmalloc((n + 1) * sizeof *next);
	for (size_t r = 0; r < n && !schedule_builder_problems(g->sb); r++) {
		uint32_t root = g->by_id[r];
		if (state[root])
			continue;
		size_t depth = 0;
		path[depth] = root;
		next[depth] = 0;
		state[root] = 1;
		depth++;
		while (depth) {
			uint32_t u = path[depth - 1];
			if (next[depth - 1] < count[u]) {
				uint32_t w = succ.item[succ.off[u] + next[depth - 1]++];
				if (state[w] == 1) {
					char a[300], b[300];
					problem(g, "the graph has a cycle: %s leads back to %s",
						node_text(&g->nodes[u], a, sizeof a),
						node_text(&g->nodes[w], b, sizeof b));
					break;
				}
				if (state[w] == 0) {
					state[w] = 1;
					path[depth] = w;
					next[depth] = 0;
					depth++;
				}
				continue;
			}
			state[u] = 2;
			post[n_post++] = u;
			depth--;
		}
	}
	free(path);
	free(next);
	free(count);
	free(first_seen);
	free(at);
	free(seen);
	csr_free(&succ);
	if (schedule_builder_problems(g->sb)) {
		free(post);
		return NULL;
	}
	for (size_t i = 0; i < n / 2; i++) {
		uint32_t t = post[i];
		post[i] = post[n - 1 - i];
		post[n - 1 - i] = t;
	}
	return post;
}

/* ------------------------------------------------------------------ */
/* The schedule */

/* Names of one op's tensors: "x12", "p12", in one buffer. */
struct names {
	char *buf;
	size_t len, cap;
	size_t *off;
	size_t cap_off, n;
	const char **ptr;
	size_t cap_ptr;
};

static void name_add(struct names *nm, char prefix, uint32_t id)
{
	XGROW(nm->buf, nm->cap, nm->len + 16);
	XGROW(nm->off, nm->cap_off, nm->n + 1);
	nm->off[nm->n++] = nm->len;
	nm->len += (size_t)snprintf(nm->buf + nm->len, 16, "%c%" PRIu32, prefix, id) + 1;
}

static const char *const *name_ptrs(struct names *nm)
{
	XGROW(nm->ptr, nm->cap_ptr, nm->n + 1);
	for (size_t i = 0; i < nm->n; i++)
		nm->ptr[i] = nm->buf + nm->off[i];
	return nm->ptr;
}

/* Sums past the reader's bounds, named by the node that passes them. */
static bool within_totals(struct gi *g, const uint32_t *seq)
{
	uint64_t time = 0, bytes = 0;
	for (size_t i = 0; i < g->n; i++) {
		const struct node *v = &g->nodes[seq[i]];
		char who[300];
		if (v->time > MAX_TOTAL - time) {
			problem(g, "%s: the nodes' compute costs add up past 2^60 here: the simulator's "
				   "counters would overflow", node_text(v, who, sizeof who));
			return false;
		}
		time += v->time;
		if (v->bytes > MAX_TOTAL - bytes || v->params > MAX_TOTAL - bytes - v->bytes) {
			problem(g, "%s: the nodes' sizes add up past 2^60 bytes here: the simulator's "
				   "counters would overflow", node_text(v, who, sizeof who));
			return false;
		}
		bytes += v->bytes + v->params;
	}
	return true;
}

static void build(struct gi *g, const uint32_t *seq, const struct csr *args)
{
	const size_t n = g->n;
	/* the position each node runs at, and its last use */
	uint32_t *pos = xmalloc((n + 1) * sizeof *pos), *last = xmalloc((n + 1) * sizeof *last);
	for (size_t i = 0; i < n; i++)
		pos[seq[i]] = last[seq[i]] = (uint32_t)i;
	for (size_t i = 0; i < g->m; i++)
		if (pos[g->links[i].to] > last[g->links[i].from])
			last[g->links[i].from] = pos[g->links[i].to];
	/* freed after step i: the nodes whose last use it is, in run order
	 * (simrd's last_used dict holds its keys in that order) */
	struct csr freed = {xcalloc(n + 1, sizeof *freed.off), xmalloc((n + 1) * sizeof *freed.item)};
	for (size_t v = 0; v < n; v++)
		freed.off[last[v] + 1]++;
	for (size_t i = 0; i < n; i++)
		freed.off[i + 1] += freed.off[i];
	uint32_t *at = xmemdup(freed.off, (n + 1) * sizeof *at);
	for (size_t i = 0; i < n; i++)
		freed.item[at[last[seq[i]]]++] = g->nodes[seq[i]].id;
	free(at);

	struct names nm = {0};
	char pname[16];
	/* Parameters: constants made first, in run order. */
	for (size_t i = 0; i < n; i++) {
		const struct node *v = &g->nodes[seq[i]];
		if (!v->params)
			continue;
		snprintf(pname, sizeof pname, "p%" PRIu32, v->id);
		schedule_builder_constant(g->sb, (long)seq[i] + 1, (long)seq[i] + 1, pname, v->params);
	}
	struct pyset set = {0};
	uint32_t *order = xmalloc((n + 1) * sizeof *order);
	char fname[16];
	for (size_t i = 0; i < n && !schedule_builder_stopped(g->sb); i++) {
		uint32_t vi = seq[i];
		const struct node *v = &g->nodes[vi];
		long line = (long)vi + 1; /* the node's place in the file's list */
		if (v->backward)
			schedule_builder_backward(g->sb);
		nm.len = nm.n = 0;
		for (uint32_t k = args->off[vi]; k < args->off[vi + 1]; k++)
			name_add(&nm, 'x', g->nodes[args->item[k]].id);
		if (v->params)
			name_add(&nm, 'p', v->id);
		name_add(&nm, 'x', v->id);
		const char *const *names = name_ptrs(&nm);
		struct schedule_result res = {
			.name = names[nm.n - 1], .bytes = v->bytes, .alias = -1, .line = line,
		};
		const char *opname = v->name;
		if (!opname) {
			snprintf(fname, sizeof fname, "f%" PRIu32, v->id);
			opname = fname;
		}
		schedule_builder_call(g->sb, line, opname, v->time, names, nm.n - 1, &res, 1);
		pyset_clear(&set);
		for (uint32_t k = freed.off[i]; k < freed.off[i + 1]; k++)
			pyset_add(&set, freed.item[k]);
		size_t nf = pyset_order(&set, order);
		for (size_t k = 0; k < nf; k++) {
			char xname[16];
			snprintf(xname, sizeof xname, "x%" PRIu32, order[k]);
			schedule_builder_release(g->sb, line, xname);
		}
	}
	pyset_free(&set);
	free(order);
	free(nm.buf);
	free(nm.off);
	free(nm.ptr);
	csr_free(&freed);
	free(pos);
	free(last);
}

/* ------------------------------------------------------------------ */

bool graph_detect(const char *text, size_t len)
{
	static const char *const keys[] = {"directed", "multigraph", "graph", "nodes", "links", "edges"};
	size_t i = 0;
	while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
		i++;
	if (i == len || text[i] != '{')
		return false;
	for (i++; i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r');)
		i++;
	if (i == len || text[i] != '"')
		return false;
	i++;
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
		size_t kl = strlen(keys[k]);
		if (len - i > kl && !memcmp(text + i, keys[k], kl) && text[i + kl] == '"')
			return true;
	}
	return false;
}

/* Lines of text, as the log reader counts them. */
static uint64_t count_lines(const char *text, size_t len)
{
	uint64_t n = 0;
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		n++;
		if (!nl)
			break;
		p = nl + 1;
	}
	return n;
}

int graph_import(const char *name, const char *text, size_t len, const struct read_options *opt,
		 int max_problems, void (*report)(void *ctx, const struct rs_error *e), void *ctx,
		 struct schedule **out, struct rs_error *err)
{
	struct gi g = {0};
	g.sb = schedule_builder_new(name, opt && opt->preallocate, max_problems, err, report, ctx);
	json_error_t jerr;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	const json_t *nodes = NULL, *links = NULL, *graph = NULL;
	bool multigraph = false;
	uint32_t *seq = NULL;
	struct csr args = {0};
	if (!root) {
		schedule_builder_problem(g.sb, EXIT_DATAERR, jerr.line > 0 ? jerr.line : 0,
					 "invalid JSON at column %d: %s", jerr.column, jerr.text);
		goto done;
	}
	if (!json_is_object(root)) {
		problem(&g, "a node-link graph must be a JSON object, not %s", json_kind(root));
		goto done;
	}
	const json_t *directed = json_object_get(root, "directed");
	if (directed && !json_is_true(directed)) {
		problem(&g, "\"directed\" is %s: a computation graph's links must have a direction "
			    "(networkx's DiGraph)", json_is_false(directed) ? "false" : json_kind(directed));
		goto done;
	}
	const json_t *mg = json_object_get(root, "multigraph");
	if (mg && !json_is_boolean(mg)) {
		problem(&g, "\"multigraph\" must be true or false, not %s", json_kind(mg));
		goto done;
	}
	multigraph = json_is_true(mg);
	nodes = json_object_get(root, "nodes");
	links = json_object_get(root, "links");
	if (links && json_object_get(root, "edges")) {
		/* which one networkx meant is not ours to guess (issue 40, H18) */
		problem(&g, "both \"links\" and \"edges\": a node-link graph has one list of "
			    "links (\"edges\" in networkx 3.4 and later); remove the other");
		goto done;
	}
	if (!links)
		links = json_object_get(root, "edges"); /* networkx 3.4's default key */
	graph = json_object_get(root, "graph");
	if (!json_is_array(nodes) || !json_array_size(nodes)) {
		problem(&g, "a node-link graph needs a non-empty \"nodes\" list%s",
			nodes ? "" : " (none found)");
		goto done;
	}
	if (!json_is_array(links)) {
		problem(&g, "a node-link graph needs a \"links\" (or \"edges\") list%s",
			links ? ", not that" : " (none found)");
		goto done;
	}
	if (graph && !json_is_object(graph)) {
		problem(&g, "\"graph\" must be an object, not %s", json_kind(graph));
		goto done;
	}
	if (json_array_size(nodes) >= SCHED_MAX_IDS / 2) {
		problem(&g, "the graph has %zu nodes: more than the simulator's ids allow",
			json_array_size(nodes));
		goto done;
	}
	read_nodes(&g, nodes);
	if (schedule_builder_problems(g.sb))
		goto done;
	read_links(&g, links, multigraph);
	if (schedule_builder_problems(g.sb))
		goto done;
	build_args(&g, &args);
	const json_t *order = graph ? json_object_get(graph, "order") : NULL;
	seq = order ? file_order(&g, order) : dfs_order(&g, &args);
	if (!seq || !within_totals(&g, seq))
		goto done;
	build(&g, seq, &args);
done:;
	struct schedule *s;
	int n = schedule_builder_finish(g.sb, &s);
	if (!n) {
		s->format = &graph_format;
		s->input = g.kind == KIND_CHECKMATE ? SCHED_GRAPH_CHECKMATE : SCHED_GRAPH_LAYERED;
		s->graph_file_order = graph && json_object_get(graph, "order");
		s->graph_nodes = g.n;
		s->graph_links = g.m;
		s->lines = count_lines(text, len);
		s->from_start = true;
	}
	*out = s;
	free(seq);
	csr_free(&args);
	free(g.nodes);
	free(g.links);
	free(g.by_id);
	json_decref(root);
	return n;
}

/* info's "graph" line and object (docs/graphs.md). */
static void graph_describe(const struct schedule *s, FILE *text, json_t *json)
{
	bool checkmate = s->input == SCHED_GRAPH_CHECKMATE;
	if (text)
		fprintf(text, "  graph          %" PRIu64 " nodes, %" PRIu64 " links (%s; ops in %s)\n",
			s->graph_nodes, s->graph_links,
			checkmate ? "Checkmate's kind" : "random layered kind",
			s->graph_file_order ? "the file's graph.order" : "simrd's depth-first order");
	if (json) {
		json_t *g = json_object();
		json_object_set_new(g, "kind", json_string(checkmate ? "checkmate" : "random_layered"));
		json_object_set_new(g, "nodes", json_integer((json_int_t)s->graph_nodes));
		json_object_set_new(g, "links", json_integer((json_int_t)s->graph_links));
		json_object_set_new(g, "order", json_string(s->graph_file_order ? "file" : "depth_first"));
		json_object_set_new(json, "graph", g);
	}
}

const struct input_format graph_format = {
	.name = "graph",
	.detect = graph_detect,
	.import = graph_import,
	.describe = graph_describe,
};
