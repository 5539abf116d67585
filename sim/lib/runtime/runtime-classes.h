/*
 * runtime-classes.h: runtime-classes.c's part: union-find classes and the kept
 * evicted-neighbour lists (eqclass.py; struct rt_classes in
 * runtime-state.h); the class sum the eq costs read, inline as they call
 * it for every member they score.
 */
#ifndef REMATSIM_RUNTIME_CLASSES_H
#define REMATSIM_RUNTIME_CLASSES_H

#include "runtime-state.h"

void rt_classes_init(struct runtime_state *rt);
void rt_classes_free(struct runtime_state *rt);
/** Check mode: a few kept evicted-neighbour lists against fresh walks. */
void rt_classes_check(struct runtime_state *rt);
/** s is being evicted: its class, of its compute, merged with its evicted
 * neighbours' (their accesses counted). */
void rt_classes_evict(struct runtime_state *rt, uint32_t s);
/** The storages ids[0, n) were rematerialized or made by one op: their
 * compute leaves their classes, and they have none. */
void rt_classes_computed(struct runtime_state *rt, const uint32_t *ids, size_t n);
/** Storage v's materiality or edges changed: forget the kept evicted
 * neighbour lists that may hold it. */
void rt_en_changed(struct runtime_state *rt, uint32_t v);

/** The arena is full and the free list empty: collect or grow. */
void rt_uf_full(struct rt_classes *c);

/* A new class of storage s's node, of the given value: reuses a free node,
 * else takes the next one, else collects or grows the arena. */
static inline uint32_t rt_uf_new(struct rt_classes *c, uint32_t s, int64_t value)
{
	uint32_t x = c->free;
	if (s >= c->scan)
		c->scan = s + 1;
	if (x != RT_NONE) {
		c->free = c->parent[x];
	} else {
		if (c->len == c->cap)
			rt_uf_full(c);
		x = c->free;
		if (x != RT_NONE)
			c->free = c->parent[x];
		else
			x = (uint32_t)c->len++;
	}
	c->parent[x] = RT_NONE;
	c->value[x] = value;
	return x;
}

/* A new storage s (material): its class, of value 0. */
static inline void rt_classes_made(struct runtime_state *rt, uint32_t s)
{
	rt->cls.ecn[s] = rt_uf_new(&rt->cls, s, 0);
}

/** Walk s's edges into its kept list (rt_evicted_list's slow path). */
const uint32_t *rt_evicted_list_fill(struct runtime_state *rt, uint32_t s, uint32_t *n);

/* Where s's kept evicted-neighbour list starts in cls.en: after the room
 * of the storages before it, as many as their edges in both directions. */
static inline size_t rt_en_off(const struct runtime_state *rt, uint32_t s)
{
	return (size_t)rt->graph.sfwd_off[s] + rt->graph.srev_off[s];
}

/** The distinct evicted neighbours of s (kept lists, see cls.en): *n of
 * them; inline, as the eq costs mostly find the list kept. */
static inline const uint32_t *rt_evicted_list(struct runtime_state *rt, uint32_t s, uint32_t *n)
{
	uint32_t len = rt->cls.en_len[s];
	if (!len)
		return rt_evicted_list_fill(rt, s, n);
	*n = len - 1;
	return rt->cls.en + rt_en_off(rt, s);
}

/* The root of node x, compressing the path (each node on it then points
 * at the root, as eqclass.py's find leaves it); counts an access per node
 * on it into *acc. */
static inline uint32_t rt_uf_find_acc(struct rt_classes *c, uint32_t x, uint64_t *acc)
{
	uint32_t *parent = c->parent;
	uint32_t r = x;
	++*acc;
	while (parent[r] != RT_NONE) {
		r = parent[r];
		++*acc;
	}
	while (x != r && parent[x] != r) {
		uint32_t next = parent[x];
		parent[x] = r;
		x = next;
	}
	return r;
}

/* Up to this many evicted neighbours, on a large log (cls.en_scan), a
 * class sum tells roots apart without the stamps per node. */
#define RT_CLASS_SUM_SCAN 4

/**
 * start plus the values of the distinct union-find classes of s's distinct
 * evicted neighbours, added in the order they are met, with the
 * reference's accesses: one per edge of s walked, one per node on each
 * find's path (the reference's order, so the same path compression).
 * Distinct roots by a stamp per node: linear in the neighbours. Inline, as
 * the eq costs call it for every member they score.
 */
static inline int64_t rt_class_sum(struct runtime_state *rt, uint32_t s, int64_t start)
{
	struct rt_classes *c = &rt->cls;
	int64_t sum = start;
	uint64_t acc = (uint64_t)rt->graph.n_srev[s] + rt->graph.n_sfwd[s];
	uint32_t n;
	const uint32_t *nb = rt_evicted_list(rt, s, &n);
	if (c->en_scan && n <= RT_CLASS_SUM_SCAN) {
		/* a short list's roots told apart by looking back, as its list
		 * was made (rt_evicted_list_fill): the stamps per node stay
		 * untouched (16 MiB fewer resident on the 2^20 chain) */
		uint32_t roots[RT_CLASS_SUM_SCAN];
		for (uint32_t j = 0; j < n; j++) {
			uint32_t r = rt_uf_find_acc(c, c->ecn[nb[j]], &acc), i = 0;
			while (i < j && roots[i] != r)
				i++;
			roots[j] = r;
			if (i == j)
				sum += c->value[r];
		}
		rt->res->heuristic_accesses += acc;
		return sum;
	}
	uint32_t stamp = rt_next_stamp(&c->seen_stamp, c->seen, c->room);
	for (uint32_t j = 0; j < n; j++) {
		uint32_t r = rt_uf_find_acc(c, c->ecn[nb[j]], &acc);
		if (c->seen[r] != stamp) {
			c->seen[r] = stamp;
			sum += c->value[r];
		}
	}
	rt->res->heuristic_accesses += acc;
	return sum;
}

#endif
