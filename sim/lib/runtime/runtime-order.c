/*
 * runtime-order.c: the pool kept in the order of a choice, for the rows
 * whose cost is LRU's key (the last access) or DTRLocal's (compute / (size
 * * staleness)): their choice then reads the first member of a group or
 * a few instead of the whole pool (runtime-scan.c), with the same choice
 * and counts. Owns the ord part of struct runtime_state; runtime-commands.c
 * tells it who joins and leaves the pool and whose key changed.
 *
 * The members are split in groups of equal (compute, size) (LRU: one
 * group). In a group the cost only grows with the last access, and among
 * equal last accesses the plain loop takes the later slot: for LRU the
 * cost is the last access; for DTRLocal, with compute and size fixed and
 * both positive, a later access is a smaller staleness, so a cost at
 * least 1 + 2^-50 times as large while the keys are narrow
 * (runtime-scan.c's kscan makes the same argument), which rounds to a
 * larger double. So a group's choice is its member of the oldest last
 * access, the latest slot among equals.
 *
 * A group is a list of runs, one per last access its members have, oldest
 * first; a run lists its members by slot, the latest first; a hash finds
 * the run of a (group, last access). Members join the pool at its end
 * (the latest slot), so a join is the front of its run, which exists
 * (rematerializing a chain of ancestors gives all of them the clock of
 * the moment it began) or is made at the list's start (a new storage,
 * never accessed) or near its end (an access at the clock): no walk,
 * where a heap would sift through its levels at every join and leave
 * (tried: 800 instructions an eviction on the chain, more than the
 * scan). A key that changes in the pool (an output's access at
 * the end of its op) walks its new run by slot. Walks are paid for by the
 * scans they spare (credit); where they are not, the ordered pool is
 * dropped.
 *
 * Invariants (check mode, rt_order_check): while on, every pool member is
 * in the run of its group and last access, each run in slot order, each
 * group's runs in order of last access, each run in the hash.
 *
 * SPEED-ONLY (docs/architecture.md): keeping the order costs every join
 * and leave of the pool (about 90 instructions a pair on the chain), which
 * a run with few choices (a high budget) does not get back, so the scans
 * choose until they have read ORDER_START slots per join; then the order
 * is built from the pool (rt_order_start) and kept. Past
 * ORDER_MAX_GROUPS distinct (compute, size) pairs (the paper's logs,
 * whose op times differ), or once the walks cost more than the scans they
 * spare, it is dropped for the rest of the run and the vector scans
 * choose, as they would have (runtime_test_switches.no_order forces that from
 * the start, order_at_once the order; the tests compare them with the
 * plain loop).
 */
#include <stdlib.h>
#include <string.h>

#include "heuristics.h"
#include "runtime-commands.h"
#include "runtime-order.h"
#include "runtime-state.h"

void rt_order_init(struct runtime_state *rt)
{
	struct rt_order *o = &rt->ord;
	const struct heuristic *h = rt->h;
	if (!h || rt->test->plain_scans || rt->test->no_order || rt->pool.off)
		return;
	if (h->key == SCAN_LAST)
		o->grouped = false;
	else if (h->key == SCAN_COMPUTE_PER_SIZE_STALE)
		o->grouped = true;
	else
		return;
	size_t n = rt->s->n_storages + 1;
	o->next = xmalloc(n * sizeof *o->next);
	o->prev = xmalloc(n * sizeof *o->prev);
	o->run = xmalloc(n * sizeof *o->run);
	o->hot = RT_NONE;
	if (!o->grouped) /* LRU's one group, whatever the keys */
		o->g[o->n_groups++] = (struct rt_ogroup){.head = RT_NONE, .tail = RT_NONE};
	o->free_run = RT_NONE;
	o->hash_mask = 63;
	o->hash = xmalloc((o->hash_mask + 1) * sizeof *o->hash);
	memset(o->hash, 0xff, (o->hash_mask + 1) * sizeof *o->hash);
	o->credit = ORDER_CREDIT;
	o->armed = true;
	if (rt->test->order_at_once)
		rt_order_start(rt);
}

void rt_order_free(struct runtime_state *rt)
{
	struct rt_order *o = &rt->ord;
	free(o->next);
	free(o->prev);
	free(o->run);
	free(o->runs);
	free(o->hash);
}

/* The group of key k, made if new; ORDER_MAX_GROUPS when there is no room. */
static uint32_t order_group(struct rt_order *o, const struct rt_key *k)
{
	if (!o->grouped)
		return 0;
	uint32_t g = o->last_group;
	if (g < o->n_groups && o->g[g].compute == k->compute && o->g[g].size == k->size)
		return g;
	for (g = 0; g < o->n_groups; g++)
		if (o->g[g].compute == k->compute && o->g[g].size == k->size)
			return o->last_group = g;
	if (o->n_groups == ORDER_MAX_GROUPS)
		return ORDER_MAX_GROUPS;
	o->g[g] = (struct rt_ogroup){.compute = k->compute, .size = k->size, .head = RT_NONE, .tail = RT_NONE};
	o->n_groups++;
	return o->last_group = g;
}

/* Dropped for the rest of the run: the scans choose, from the key arrays
 * (not kept meanwhile). */
static void order_off(struct runtime_state *rt)
{
	rt->ord.on = false;
	rt_pool_keys_refresh(rt);
}

/* ---- the hash of runs ---- */

static inline uint32_t home(const struct rt_order *o, uint32_t g, int64_t last)
{
	uint64_t x = ((uint64_t)last ^ (uint64_t)g << 56) * UINT64_C(0x9E3779B97F4A7C15);
	return (uint32_t)(x >> 32) & o->hash_mask;
}

/* The run of (g, last), or RT_NONE. */
static inline uint32_t run_find(const struct rt_order *o, uint32_t g, int64_t last)
{
	for (uint32_t i = home(o, g, last);; i = (i + 1) & o->hash_mask) {
		uint32_t r = o->hash[i];
		if (r == RT_NONE || (o->runs[r].last == last && o->runs[r].g == g))
			return r;
	}
}

static void hash_put(struct rt_order *o, uint32_t r)
{
	uint32_t i = home(o, o->runs[r].g, o->runs[r].last);
	while (o->hash[i] != RT_NONE)
		i = (i + 1) & o->hash_mask;
	o->hash[i] = r;
}

static void hash_grow(struct rt_order *o)
{
	uint32_t *old = o->hash, n = o->hash_mask + 1;
	o->hash_mask = 2 * n - 1;
	o->hash = xmalloc(2 * (size_t)n * sizeof *o->hash);
	memset(o->hash, 0xff, 2 * (size_t)n * sizeof *o->hash);
	for (uint32_t i = 0; i < n; i++)
		if (old[i] != RT_NONE)
			hash_put(o, old[i]);
	free(old);
}

/* Run r leaves the hash (backward-shift deletion keeps probes unbroken). */
static void hash_del(struct rt_order *o, uint32_t r)
{
	uint32_t m = o->hash_mask, i = home(o, o->runs[r].g, o->runs[r].last);
	while (o->hash[i] != r)
		i = (i + 1) & m;
	for (uint32_t j = i;;) {
		j = (j + 1) & m;
		uint32_t q = o->hash[j];
		if (q == RT_NONE)
			break;
		uint32_t k = home(o, o->runs[q].g, o->runs[q].last);
		/* q may move to i unless its home lies cyclically in (i, j] */
		if (((j - k) & m) >= ((j - i) & m)) {
			o->hash[i] = q;
			i = j;
		}
	}
	o->hash[i] = RT_NONE;
	o->hash_used--;
}

/* ---- runs ---- */

/* A new, empty run of (g, last) in its place in g's list: first if it is
 * the oldest (a new storage joins never accessed), else found from the
 * list's end (the walk counted). */
static uint32_t run_make(struct rt_order *o, uint32_t g, int64_t last)
{
	uint32_t r = o->free_run;
	if (r != RT_NONE) {
		o->free_run = o->runs[r].next;
	} else {
		if (o->n_runs == o->cap_runs) {
			size_t cap = o->cap_runs;
			XGROW(o->runs, cap, (size_t)o->n_runs + 1);
			o->cap_runs = (uint32_t)cap;
		}
		r = o->n_runs++;
	}
	struct rt_ogroup *G = &o->g[g];
	uint32_t at = G->tail;
	if (at != RT_NONE && last < o->runs[G->head].last)
		at = RT_NONE; /* first (a new storage, never accessed) */
	while (at != RT_NONE && o->runs[at].last > last) {
		at = o->runs[at].prev;
		o->credit--;
	}
	struct rt_orun *R = &o->runs[r];
	*R = (struct rt_orun){.last = last, .first = RT_NONE, .tail = RT_NONE, .prev = at, .g = g};
	R->next = at == RT_NONE ? G->head : o->runs[at].next;
	if (at == RT_NONE)
		G->head = r;
	else
		o->runs[at].next = r;
	if (R->next == RT_NONE)
		G->tail = r;
	else
		o->runs[R->next].prev = r;
	if (2 * (o->hash_used + 1) > o->hash_mask + 1)
		hash_grow(o);
	hash_put(o, r);
	o->hash_used++;
	return r;
}

void rt_order_drop_run(struct runtime_state *rt, uint32_t r)
{
	struct rt_order *o = &rt->ord;
	struct rt_orun *R = &o->runs[r];
	if (o->hot == r)
		o->hot = RT_NONE;
	struct rt_ogroup *G = &o->g[R->g];
	hash_del(o, r);
	if (R->prev == RT_NONE)
		G->head = R->next;
	else
		o->runs[R->prev].next = R->next;
	if (R->next == RT_NONE)
		G->tail = R->prev;
	else
		o->runs[R->next].prev = R->prev;
	R->next = o->free_run;
	o->free_run = r;
}

/* s into its group's run of its last access, by slot; `latest`: s holds
 * the pool's latest slot (a join), so it goes first. */
static inline void insert(struct runtime_state *rt, uint32_t s, bool latest)
{
	struct rt_order *o = &rt->ord;
	uint32_t g = order_group(o, &rt->key[s]);
	if (g == ORDER_MAX_GROUPS) {
		order_off(rt); /* the scans choose from now on */
		return;
	}
	int64_t last = rt->key[s].last;
	uint32_t r = run_find(o, g, last);
	if (r == RT_NONE)
		r = run_make(o, g, last);
	struct rt_orun *R = &o->runs[r];
	uint32_t at = RT_NONE; /* s goes after at (RT_NONE: first) */
	if (!latest) {
		uint32_t pos = rt->st[s].pool_pos;
		at = R->tail;
		while (at != RT_NONE && rt->st[at].pool_pos < pos) {
			at = o->prev[at];
			o->credit--;
		}
	}
	o->hot = r;
	o->run[s] = r;
	o->prev[s] = at;
	o->next[s] = at == RT_NONE ? R->first : o->next[at];
	if (at == RT_NONE)
		R->first = s;
	else
		o->next[at] = s;
	if (o->next[s] == RT_NONE)
		R->tail = s;
	else
		o->prev[o->next[s]] = s;
	if (--o->credit < 0)
		order_off(rt); /* the walks cost more than the scans */
}

void rt_order_start(struct runtime_state *rt)
{
	struct rt_order *o = &rt->ord;
	const struct rt_pool *p = &rt->pool;
	o->armed = false;
	o->on = true;
	/* in slot order, each the latest so far */
	for (uint32_t i = 0; i < p->end && o->on; i++)
		if (p->slot[i] != RT_NONE)
			insert(rt, p->slot[i], true);
}

void rt_order_join_slow(struct runtime_state *rt, uint32_t s)
{
	rt->ord.credit += 2;
	insert(rt, s, true);
}

void rt_order_rekey(struct runtime_state *rt, uint32_t s)
{
	rt_order_leave(rt, s);
	rt->ord.credit += 2;
	insert(rt, s, false);
}

void rt_order_check(struct runtime_state *rt)
{
	const struct rt_order *o = &rt->ord;
	if (!o->on)
		return;
	size_t n = 0, runs = 0;
	for (uint32_t g = 0; g < o->n_groups; g++) {
		const struct rt_ogroup *G = &o->g[g];
		uint32_t pr = RT_NONE;
		for (uint32_t r = G->head; r != RT_NONE; pr = r, r = o->runs[r].next) {
			const struct rt_orun *R = &o->runs[r];
			if (R->prev != pr || R->g != g || R->first == RT_NONE || run_find(o, g, R->last) != r ||
			    (pr != RT_NONE && !(o->runs[pr].last < R->last)))
				rs_bug("command %zu: the ordered pool's runs are out of order", rt->cmd);
			uint32_t ps = RT_NONE;
			for (uint32_t s = R->first; s != RT_NONE; ps = s, s = o->next[s]) {
				if (!rt->st[s].in_pool || o->run[s] != r || o->prev[s] != ps)
					rt_bug_at(rt, "the ordered pool holds a storage out of its run or the pool", s);
				if (rt->key[s].last != R->last ||
				    (o->grouped && (rt->key[s].compute != G->compute || rt->key[s].size != G->size)))
					rt_bug_at(rt, "the ordered pool's run does not match a key", s);
				if (ps != RT_NONE && !(rt->st[ps].pool_pos > rt->st[s].pool_pos))
					rt_bug_at(rt, "the ordered pool's run is out of slot order", s);
				if (++n > rt->pool.len)
					rt_bug_at(rt, "the ordered pool holds more storages than the pool", s);
			}
			if (R->tail != ps)
				rt_bug_at(rt, "the ordered pool's run has a stale tail", ps);
			runs++;
		}
		if (G->tail != pr)
			rs_bug("command %zu: the ordered pool's group has a stale tail", rt->cmd);
	}
	if (n != rt->pool.len || runs != o->hash_used)
		rs_bug("command %zu: the ordered pool holds %zu storages in %zu runs, the pool %zu, the hash %u",
		       rt->cmd, n, runs, rt->pool.len, o->hash_used);
}
