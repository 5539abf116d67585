/*
 * runtime-proto.c: the DTR prototype's eviction (DTRPrototype), as the
 * modified PyTorch of the paper's artifact does it
 * (dtr_code/dtr-implementation.patch of uwsampl/dtr-prototype, file
 * aten/src/ATen/CheckpointTensorImpl.cpp and .h; docs/validation.md gives
 * the lines of each rule). Four rules set it apart from the reference
 * simulator (heuristics.h, struct proto_rules), each switchable:
 *
 *  - its candidates are its own list (CheckpointPool::aps), appended to
 *    when a storage is made or remade and pruned only when a scan meets an
 *    evicted entry or takes one (swapping the last entry in), so that it
 *    holds locked and evicted storages too, and its order is not the
 *    simulator's pool order;
 *  - sampling: a scan visits entry 0, then steps 1..floor(sqrt(N)) at
 *    random (seeded here, rt_draw);
 *  - ignore_small: a storage under 1% of the mean storage size never joins
 *    the list (the prototype's mean runs over every allocation of the
 *    process, which has run the iteration ten times before it is measured:
 *    the log's own mean stands for it, compared exactly);
 *  - after: the budget is checked once the op has run (runtime-commands.c,
 *    mat_finish), so an op may go over by its outputs;
 *  - op_classes: AliasPool's cost, with one class node per op, else
 *    DTREqClass's eq(s).
 *
 * The cost is the prototype's double: compute / (double)(size * staleness),
 * the first strict minimum of the scan winning (no early stop at 0). Costs
 * that the prototype could not have met (a staleness of 0 on its wall
 * clock) count as +inf, and a scan takes its first candidate before any
 * lower one, so that a choice is always made when a candidate exists.
 *
 * Invariants: aps holds storage ids (any state); fresh[s] is set only
 * between compute() and rt_proto_joined() of one op; a storage's st_node is
 * set iff it was evicted under op_classes and not made material since.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heuristics.h"
#include "runtime-choose.h"
#include "runtime-classes.h"
#include "runtime-proto.h"
#include "runtime-state.h"

const struct proto_rules proto_rules_default = {
	.sampling = true, .ignore_small = true, .after = true, .op_classes = true,
};

static const struct {
	const char *name;
	size_t offset;
} rule_names[] = {
	{"sampling", offsetof(struct proto_rules, sampling)},
	{"small", offsetof(struct proto_rules, ignore_small)},
	{"after", offsetof(struct proto_rules, after)},
	{"classes", offsetof(struct proto_rules, op_classes)},
};
#define N_RULES (sizeof rule_names / sizeof rule_names[0])

int proto_rules_parse(const char *text, struct proto_rules *r, unsigned *named, char *why, size_t why_len)
{
	const char *p = text;
	unsigned seen = 0;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		bool on = true;
		const char *w = p;
		size_t wl = len;
		if (wl > 3 && !strncmp(w, "no-", 3)) {
			on = false;
			w += 3;
			wl -= 3;
		}
		bool found = false;
		if (wl == 3 && !strncmp(w, "all", 3) && on) {
			*r = proto_rules_default;
			seen = PROTO_ALL;
			found = true;
		} else if (wl == 4 && !strncmp(w, "none", 4) && on) {
			memset(r, 0, sizeof *r);
			seen = PROTO_ALL;
			found = true;
		}
		for (size_t i = 0; i < N_RULES && !found; i++) {
			if (strlen(rule_names[i].name) == wl && !strncmp(rule_names[i].name, w, wl)) {
				*(bool *)((char *)r + rule_names[i].offset) = on;
				seen |= 1u << i;
				found = true;
			}
		}
		if (!found) {
			snprintf(why, why_len, "unknown rule '%.*s' (the rules: sampling, small, after, "
				 "classes, each also as no-RULE; all, none)", (int)len, p);
			return -1;
		}
		if (!comma) {
			if (named)
				*named = seen;
			return 0;
		}
		p = comma + 1;
	}
}

const char *proto_rules_text(const struct proto_rules *r, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (size_t i = 0; i < N_RULES; i++) {
		bool on = *(const bool *)((const char *)r + rule_names[i].offset);
		int k = snprintf(buf + n, n < len ? len - n : 0, "%s%s%s", i ? "," : "", on ? "" : "no-",
				 rule_names[i].name);
		if (k > 0)
			n += (size_t)k;
	}
	return buf;
}

void rt_proto_init(struct runtime_state *rt)
{
	const struct schedule *s = rt->s;
	const struct proto_rules *r = rt->cfg->proto ? rt->cfg->proto : &proto_rules_default;
	struct rt_proto *p = &rt->proto;
	p->on = true;
	p->sampling = r->sampling;
	p->ignore_small = r->ignore_small;
	p->after = r->after;
	p->op_classes = r->op_classes;
	p->fresh = xcalloc(s->n_storages + 1, 1);
	for (size_t i = 0; i < s->n_storages; i++)
		p->size_sum += s->storages[i].size;
	p->size_count = s->n_storages;
	if (p->op_classes) {
		p->op_node = xmalloc((s->n_ops + 1) * sizeof *p->op_node);
		memset(p->op_node, 0xff, (s->n_ops + 1) * sizeof *p->op_node);
		p->st_node = xmalloc((s->n_storages + 1) * sizeof *p->st_node);
		memset(p->st_node, 0xff, (s->n_storages + 1) * sizeof *p->st_node);
	}
}

void rt_proto_free(struct runtime_state *rt)
{
	struct rt_proto *p = &rt->proto;
	free(p->aps);
	free(p->fresh);
	free(p->op_node);
	free(p->st_node);
	free(p->uf_parent);
	free(p->uf_value);
	free(p->seen);
	memset(p, 0, sizeof *p);
}

/* ---- classes (the op_classes rule): EquivalentClassNode --------------- */

static uint32_t node_new(struct rt_proto *p, int64_t value)
{
	if (p->n_nodes == p->cap_nodes) {
		size_t c1 = p->cap_nodes, c2 = p->cap_nodes, c3 = p->cap_nodes;
		XGROW(p->uf_parent, c1, p->n_nodes + 1);
		XGROW(p->uf_value, c2, p->n_nodes + 1);
		XGROW(p->seen, c3, p->n_nodes + 1);
		p->cap_nodes = c1 < c2 ? (c1 < c3 ? c1 : c3) : (c2 < c3 ? c2 : c3);
	}
	uint32_t x = (uint32_t)p->n_nodes++;
	p->uf_parent[x] = RT_NONE;
	p->uf_value[x] = value;
	p->seen[x] = 0;
	return x;
}

/* find_root, compressing the path (iteratively). */
static uint32_t node_root(struct rt_proto *p, uint32_t x)
{
	uint32_t r = x;
	while (p->uf_parent[r] != RT_NONE)
		r = p->uf_parent[r];
	while (x != r) {
		uint32_t next = p->uf_parent[x];
		p->uf_parent[x] = r;
		x = next;
	}
	return r;
}

/* The storage's op (its root tensor's): the prototype's head_remat. */
static inline uint32_t creator(const struct runtime_state *rt, uint32_t s)
{
	return rt->s->tensors[schedule_storage_root(rt->s, s)].op;
}

void rt_proto_evicting(struct runtime_state *rt, uint32_t s)
{
	struct rt_proto *p = &rt->proto;
	if (!p->op_classes)
		return;
	/* AliasPool::evict: ecn = head_remat->get_ecn() (a node of the op's
	 * compute, made at its first evicted output), merged with each
	 * distinct node of the evicted neighbours (neighbor_ecn). */
	uint32_t op = creator(rt, s);
	if (p->op_node[op] == RT_NONE)
		p->op_node[op] = node_new(p, rt->key[s].compute);
	uint32_t node = p->op_node[op];
	if (++p->stamp == 0) {
		for (size_t i = 0; i < p->n_nodes; i++)
			p->seen[i] = 0;
		p->stamp = 1;
	}
	for (int d = 0; d < 2; d++) {
		const uint32_t *l = d ? rt->graph.sfwd + rt->graph.sfwd_off[s] : rt->graph.srev + rt->graph.srev_off[s];
		uint32_t n = d ? rt->graph.n_sfwd[s] : rt->graph.n_srev[s];
		for (uint32_t j = 0; j < n; j++) {
			uint32_t v = l[j];
			if (v == s || rt_material(rt, v) || p->st_node[v] == RT_NONE)
				continue;
			uint32_t nv = p->st_node[v];
			if (p->seen[nv] == p->stamp)
				continue;
			p->seen[nv] = p->stamp;
			uint32_t a = node_root(p, node), b = node_root(p, nv);
			if (a != b) { /* merge: l's parent is r, r's value the sum */
				p->uf_parent[a] = b;
				p->uf_value[b] = rt_wadd(p->uf_value[a], p->uf_value[b]);
			}
		}
	}
	p->st_node[s] = node;
}

/* ---- the candidate list ------------------------------------------------ */

/* CheckpointPool::add: memory > 0, and with ignore_small at least 1% of
 * the mean (exactly: 100 size count >= sum). */
static bool admits(const struct rt_proto *p, uint64_t size)
{
	if (size == 0)
		return false;
	if (!p->ignore_small)
		return true;
	return (unsigned __int128)size * 100 * p->size_count >= p->size_sum;
}

static void aps_push(struct rt_proto *p, uint32_t s)
{
	if (p->n_aps == p->cap_aps)
		XGROW(p->aps, p->cap_aps, p->n_aps + 1);
	p->aps[p->n_aps++] = s;
}

void rt_proto_joined(struct runtime_state *rt, uint32_t opi, bool remat)
{
	struct rt_proto *p = &rt->proto;
	const struct schedule *sc = rt->s;
	const struct sched_op *op = &sc->ops[opi];
	/* Output order: make_raw adds each new alias pool, remat() fills each
	 * output cell (set_not_evicted), in the op's order. Constants are
	 * never candidates (checkpoint() makes no remat for them). */
	for (uint32_t k = 0; k < op->n_outs; k++) {
		uint32_t s = rt_storage_of(rt, op->outs + k);
		if (!p->fresh[s])
			continue;
		p->fresh[s] = 0;
		if (p->op_classes && p->st_node[s] != RT_NONE) {
			/* set_not_evicted: its class loses its compute */
			uint32_t r = node_root(p, p->st_node[s]);
			p->uf_value[r] = rt_wadd(p->uf_value[r], -rt->key[s].compute);
			p->st_node[s] = RT_NONE;
		}
		if (!op->constant && admits(p, rt->key[s].size))
			aps_push(p, s);
	}
	if (p->op_classes && remat) /* Rematerializer::remat: ecn.reset() */
		p->op_node[opi] = RT_NONE;
}

/* AliasPool::cost's numerator with op_classes: the op's compute unless an
 * output of it is evicted (get_cpi), plus each distinct evicted
 * neighbour's node's class value (a class met through two nodes counts
 * twice, as the prototype's std::set of node pointers does). Counts the
 * edges walked as accesses. */
static double proto_num(struct runtime_state *rt, uint32_t s, uint64_t *acc)
{
	struct rt_proto *p = &rt->proto;
	if (!p->op_classes)
		return (double)rt_class_sum(rt, s, rt->key[s].compute);
	int64_t num = p->op_node[creator(rt, s)] != RT_NONE ? 0 : rt->key[s].compute;
	if (++p->stamp == 0) {
		for (size_t i = 0; i < p->n_nodes; i++)
			p->seen[i] = 0;
		p->stamp = 1;
	}
	for (int d = 0; d < 2; d++) {
		const uint32_t *l = d ? rt->graph.sfwd + rt->graph.sfwd_off[s] : rt->graph.srev + rt->graph.srev_off[s];
		uint32_t n = d ? rt->graph.n_sfwd[s] : rt->graph.n_srev[s];
		*acc += n;
		for (uint32_t j = 0; j < n; j++) {
			uint32_t v = l[j];
			if (v == s || rt_material(rt, v) || p->st_node[v] == RT_NONE)
				continue;
			uint32_t nv = p->st_node[v];
			if (p->seen[nv] == p->stamp)
				continue;
			p->seen[nv] = p->stamp;
			num = rt_wadd(num, p->uf_value[node_root(p, nv)]);
		}
	}
	return (double)num;
}

static double proto_cost(struct runtime_state *rt, uint32_t s, uint64_t *acc)
{
	double num = proto_num(rt, s, acc);
	const struct rt_key *x = &rt->key[s];
	if (x->last == RT_NEVER) /* never used: infinitely stale */
		return 0;
	int64_t stale = rt->clock - x->last;
	double c = num / ((double)x->size * (double)(stale > 0 ? stale : 0));
	return isnan(c) ? INFINITY : c;
}

/*
 * CheckpointPool::evict, one pass: visit entry 0, then step by 1 (or, with
 * sampling, by a uniform draw of 1..floor(sqrt(N)), N the length when the
 * pass starts); an entry found evicted (or being remade by the op now
 * running) is replaced by the last one (which is visited next); an evictable one (material, unlocked, not pinned: in
 * the simulator's pool) is scored, and the first strict minimum kept; the
 * one taken leaves the list the same way. A pass that scored none (every
 * sampled entry locked) is repeated, as the prototype's loop repeats it;
 * when no entry of the list can go at all the prototype would spin for
 * ever: RT_NONE (OOM).
 */
uint32_t rt_proto_choose(struct runtime_state *rt)
{
	struct rt_proto *p = &rt->proto;
	for (;;) {
		uint64_t k = (uint64_t)sqrt((double)p->n_aps);
		if (k < 1)
			k = 1;
		size_t best = SIZE_MAX;
		double best_cost = INFINITY;
		uint64_t evals = 0, acc = 0;
		for (size_t i = 0; i < p->n_aps;) {
			uint32_t s = p->aps[i];
			/* evicted, or being remade by the op now running (the
			 * after rule: its cells are filled only after the
			 * eviction, so the prototype sees it still evicted) */
			if (!rt_material(rt, s) || p->fresh[s]) {
				p->aps[i] = p->aps[--p->n_aps];
				continue;
			}
			if (rt->st[s].in_pool) {
				double c = proto_cost(rt, s, &acc);
				evals++;
				if (best == SIZE_MAX || c < best_cost) {
					best_cost = c;
					best = i;
				}
			}
			i += p->sampling ? 1 + rt_draw(rt, k) : 1;
		}
		rt->res->heuristic_evals += evals;
		rt->res->heuristic_accesses += evals + acc;
		if (best != SIZE_MAX) {
			uint32_t s = p->aps[best];
			p->aps[best] = p->aps[--p->n_aps];
			return s;
		}
		bool any = false;
		for (size_t i = 0; i < p->n_aps && !any; i++)
			any = rt->st[p->aps[i]].in_pool && !p->fresh[p->aps[i]];
		if (!any)
			return RT_NONE;
	}
}
