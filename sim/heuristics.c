/*
 * heuristics.c: the eviction policies of the DTR paper's simulator, one
 * registry row and one cost function each (heuristic/dtr.py, etc.py,
 * ablation.py). A cost is the reference's value exactly: integer sums,
 * then one correctly rounded division (Python's int / int), so that ties
 * and orderings come out as in the reference.
 *
 * The runtime counts one evaluation and one access per cost it asks for;
 * the functions here count the further accesses the reference counts
 * (evicted neighbours and class look-ups for the EqClass family, region
 * rebuilds for DTRUnopt).
 */
#include "heuristics.h"

#include <math.h>
#include <string.h>

#include "runtime-state.h"

enum { BY_SIZE = 1, BY_STALE = 2 };

/* num / (size? * staleness?), +inf for a zero denominator. */
static double ratio(const struct runtime_state *rt, uint32_t s, int64_t num, int by)
{
	const struct rt_storage *x = &rt->st[s];
	unsigned __int128 den = 1;
	if (by & BY_SIZE)
		den = x->size;
	if (by & BY_STALE) {
		if (x->last_access == RT_NEVER) /* infinitely stale */
			return den > 0 ? (num < 0 ? -0.0 : 0.0) : INFINITY;
		int64_t stale = rt->clock - x->last_access;
		if (stale <= 0)
			return INFINITY;
		den *= (uint64_t)stale;
	}
	return den > 0 ? rt_div(num, den) : INFINITY;
}

/* e*: the storage's compute plus its evicted regions' (both directions). */
static int64_t num_estar(const struct runtime_state *rt, uint32_t s)
{
	const struct region *r = &rt->reg[2 * (size_t)s];
	return rt->st[s].compute + r[0].compute + r[1].compute;
}

/* eq: compute plus the distinct classes of the evicted neighbours. */
static int64_t num_eq(struct runtime_state *rt, uint32_t s)
{
	int64_t sum = rt->st[s].compute;
	size_t b = rt->stk_len;
	rt_evicted_neighbors(rt, s);
	size_t e = rt->stk_len;
	/* Replace each neighbour by its class root; sum the distinct roots. */
	for (size_t i = b; i < e; i++) {
		uint32_t r = rt_uf_find(rt, rt->st[rt->stk[i]].ecn);
		bool seen = false;
		for (size_t j = b; j < i && !seen; j++)
			seen = rt->stk[j] == r;
		rt->stk[i] = r;
		if (!seen)
			sum += rt->uf_value[r];
	}
	rt->stk_len = b;
	return sum;
}

static int64_t num_local(const struct runtime_state *rt, uint32_t s)
{
	return rt->st[s].compute;
}

static double h_dtr(struct runtime_state *rt, uint32_t s)
{
	return ratio(rt, s, num_estar(rt, s), BY_SIZE | BY_STALE);
}

static double h_dtr_eqclass(struct runtime_state *rt, uint32_t s)
{
	return ratio(rt, s, num_eq(rt, s), BY_SIZE | BY_STALE);
}

static double h_dtr_local(struct runtime_state *rt, uint32_t s)
{
	return ratio(rt, s, num_local(rt, s), BY_SIZE | BY_STALE);
}

static double h_msps(struct runtime_state *rt, uint32_t s)
{
	return ratio(rt, s, rt->st[s].compute + rt->reg[2 * (size_t)s + 1].compute, BY_SIZE);
}

static double h_lru(struct runtime_state *rt, uint32_t s)
{
	int64_t t = rt->st[s].last_access;
	return t == RT_NEVER ? -INFINITY : (double)t;
}

static double h_largest(struct runtime_state *rt, uint32_t s)
{
	return ratio(rt, s, 1, BY_SIZE);
}

/* DTR-Full: rebuilds both regions from scratch; the neighbourhood's latest
 * access stands for the staleness. */
static double h_dtr_unopt(struct runtime_state *rt, uint32_t s)
{
	struct region *f = &rt->scratch_fwd, *r = &rt->scratch_rev;
	rt_region_rebuild(rt, f, s, false);
	rt_region_rebuild(rt, r, s, true);
	const struct rt_storage *x = &rt->st[s];
	int64_t compute = x->compute, last = x->last_access;
	uint32_t stamp = ++rt->stamp_c;
	if (stamp == 0) {
		memset(rt->mark_c, 0, rt->s->n_storages * sizeof *rt->mark_c);
		stamp = rt->stamp_c = 1;
	}
	for (int k = 0; k < 2; k++) {
		const struct region *g = k ? r : f;
		for (uint32_t i = 0; i < g->n_in; i++) {
			uint32_t v = g->in[i];
			if (rt->mark_c[v] == stamp)
				continue;
			rt->mark_c[v] = stamp;
			compute += rt->st[v].compute;
			if (rt->st[v].last_access > last)
				last = rt->st[v].last_access;
		}
	}
	if (last == RT_NEVER)
		return x->size > 0 ? 0.0 : INFINITY;
	int64_t stale = rt->clock - last;
	unsigned __int128 den = (unsigned __int128)x->size * (uint64_t)(stale > 0 ? stale : 0);
	return den > 0 ? rt_div(compute, den) : INFINITY;
}

/* The ablation grid: {e*, eq, local, 1} x {size} x {staleness}. */
static double h_ab_e_size(struct runtime_state *rt, uint32_t s)
{
	return ratio(rt, s, num_estar(rt, s), BY_SIZE);
}

static double h_ab_e_stale(struct runtime_state *rt, uint32_t s)
{
	return ratio(rt, s, num_estar(rt, s), BY_STALE);
}

static double h_ab_e(struct runtime_state *rt, uint32_t s)
{
	return (double)num_estar(rt, s);
}

static double h_ab_eq_size(struct runtime_state *rt, uint32_t s)
{
	return ratio(rt, s, num_eq(rt, s), BY_SIZE);
}

static double h_ab_eq_stale(struct runtime_state *rt, uint32_t s)
{
	return ratio(rt, s, num_eq(rt, s), BY_STALE);
}

static double h_ab_eq(struct runtime_state *rt, uint32_t s)
{
	return (double)num_eq(rt, s);
}

static double h_ab_local_size(struct runtime_state *rt, uint32_t s)
{
	return ratio(rt, s, num_local(rt, s), BY_SIZE);
}

static double h_ab_local_stale(struct runtime_state *rt, uint32_t s)
{
	return ratio(rt, s, num_local(rt, s), BY_STALE);
}

static double h_ab_local(struct runtime_state *rt, uint32_t s)
{
	return (double)num_local(rt, s);
}

static double h_ab_size_stale(struct runtime_state *rt, uint32_t s)
{
	return ratio(rt, s, 1, BY_SIZE | BY_STALE);
}

static double h_ab_stale(struct runtime_state *rt, uint32_t s)
{
	return ratio(rt, s, 1, BY_STALE);
}

#define R NEEDS_REGIONS
#define Q NEEDS_EQCLASS
static const struct heuristic registry[] = {
	{"DTR", "h_DTR", R, false, 0, h_dtr},
	{"DTREqClass", "h_DTR^eq", Q, false, 1, h_dtr_eqclass},
	{"DTRLocal", "h_DTR^local", 0, false, 2, h_dtr_local},
	{"MSPS", "h_MSPS", R, false, 3, h_msps},
	{"LRU", "h_LRU", 0, false, 4, h_lru},
	{"LargestStorage", "h_size", 0, false, 5, h_largest},
	{"RandomStorage", "h_rand", 0, true, 6, NULL},
	{"DTRUnopt", "DTR-Full", NEEDS_UNOPT, false, 7, h_dtr_unopt},
	{"AbESizeStale", "e*, size, staleness", R, false, 8, h_dtr},
	{"AbESize", "e*, size, no staleness", R, false, 9, h_ab_e_size},
	{"AbEStale", "e*, no size, staleness", R, false, 10, h_ab_e_stale},
	{"AbE", "e*, no size, no staleness", R, false, 11, h_ab_e},
	{"AbEqSizeStale", "EqClass, size, staleness", Q, false, 12, h_dtr_eqclass},
	{"AbEqSize", "EqClass, size, no staleness", Q, false, 13, h_ab_eq_size},
	{"AbEqStale", "EqClass, no size, staleness", Q, false, 14, h_ab_eq_stale},
	{"AbEq", "EqClass, no size, no staleness", Q, false, 15, h_ab_eq},
	{"AbLocalSizeStale", "local, size, staleness", 0, false, 16, h_dtr_local},
	{"AbLocalSize", "local, size, no staleness", 0, false, 17, h_ab_local_size},
	{"AbLocalStale", "local, no size, staleness", 0, false, 18, h_ab_local_stale},
	{"AbLocal", "local, no size, no staleness", 0, false, 19, h_ab_local},
	{"AbSizeStale", "no cost, size, staleness", 0, false, 20, h_ab_size_stale},
	{"AbSize", "no cost, size, no staleness", 0, false, 21, h_largest},
	{"AbStale", "no cost, no size, staleness", 0, false, 22, h_ab_stale},
	{"AbRandom", "no cost, no size, no staleness (random)", 0, true, 23, NULL},
};
#undef R
#undef Q

const struct heuristic *heuristic_find(const char *name)
{
	for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
		if (!strcmp(registry[i].name, name))
			return &registry[i];
	return NULL;
}

const struct heuristic *heuristic_list(size_t *n)
{
	*n = sizeof registry / sizeof registry[0];
	return registry;
}
