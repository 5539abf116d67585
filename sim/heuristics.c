/*
 * heuristics.c: the eviction policies of the DTR paper's simulator, one
 * registry row and one cost function each (heuristic/dtr.py, etc.py,
 * ablation.py). A cost is the reference's value exactly: an integer
 * numerator over an integer denominator, divided once and correctly
 * rounded (Python's int / int), so that ties and orderings come out as in
 * the reference.
 *
 * Each heuristic's cost function gives that fraction (num / den, den 0 for
 * +inf); SCAN() turns it into the heuristic's choice, a scan of the pool
 * with the cost inlined: lowest cost wins, ties keep the later storage, a
 * cost of exactly 0 ends the scan. The exact division is only done when a
 * cheap estimate cannot tell the candidate is worse than the best so far.
 *
 * The scan counts one evaluation and one access per cost; the cost
 * functions count the further accesses the reference counts (evicted
 * neighbours and class look-ups for the EqClass family, region rebuilds for
 * DTRUnopt).
 */
#include "heuristics.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "runtime-state.h"
#include "util.h"

/* A cost as a fraction; den == 0 means +inf. */
struct frac {
	int64_t num;
	unsigned __int128 den;
};

enum { BY_SIZE = 1, BY_STALE = 2 };

/* num / (size? * staleness?), as the reference's `x / d if d > 0 else inf`. */
static inline struct frac ratio(const struct runtime_state *rt, const struct rt_key *x, int64_t num, int by)
{
	unsigned __int128 den = 1;
	if (by & BY_SIZE)
		den = x->size;
	if (by & BY_STALE) {
		if (x->last == RT_NEVER) /* infinitely stale: num / inf = 0 */
			return (struct frac){0, den > 0 ? 1 : 0};
		int64_t stale = rt->clock - x->last;
		den *= (uint64_t)(stale > 0 ? stale : 0);
	}
	return (struct frac){num, den};
}

static inline struct frac whole(int64_t v)
{
	return (struct frac){v, 1};
}

/* e*: the storage's compute plus its evicted regions' (both directions). */
static inline int64_t num_estar(const struct runtime_state *rt, uint32_t s, const struct rt_key *x)
{
	const struct region *r = &rt->reg[2 * (size_t)s];
	return x->compute + r[0].compute + r[1].compute;
}

/* eq: compute plus the distinct classes of the evicted neighbours. As
 * rt_evicted_neighbors then rt_uf_find on each in turn, fused: each
 * distinct evicted neighbour's class is found as it is met (the same finds
 * in the same order, so the same path compression and access counts), the
 * distinct roots kept on the scratch stack. */
static int64_t num_eq(struct runtime_state *rt, uint32_t s, const struct rt_key *x)
{
	int64_t sum = x->compute;
	uint32_t ns = rt->n_srev[s], nf = rt->n_sfwd[s];
	uint64_t acc = (uint64_t)ns + nf;
	if (++rt->stamp_a == 0) {
		memset(rt->mark_a, 0, rt->s->n_storages * sizeof *rt->mark_a);
		rt->stamp_a = 1;
	}
	const uint32_t stamp = rt->stamp_a;
	if (rt->stk_cap - rt->stk_len < (size_t)ns + nf)
		XGROW(rt->stk, rt->stk_cap, rt->stk_len + ns + nf);
	uint32_t *roots = rt->stk + rt->stk_len, nr = 0;
	uint32_t *mark = rt->mark_a, *parent = rt->uf_parent;
	const uint32_t *tag = rt->tag;
	const struct rt_storage *st = rt->st;
	for (int dir = 0; dir < 2; dir++) {
		const uint32_t *list = dir ? rt->sfwd + rt->sfwd_off[s] : rt->srev + rt->srev_off[s];
		uint32_t n = dir ? nf : ns;
		for (uint32_t j = 0; j < n; j++) {
			uint32_t us = list[j];
			if ((tag[us] & 1) || us == s || mark[us] == stamp)
				continue;
			mark[us] = stamp;
			/* rt_uf_find, inlined: one access per node on the path */
			uint32_t y = st[us].ecn, r = y;
			acc++;
			while (parent[r] != RT_NONE) {
				r = parent[r];
				acc++;
			}
			while (y != r && parent[y] != r) {
				uint32_t next = parent[y];
				parent[y] = r;
				y = next;
			}
			bool seen = false;
			for (uint32_t k = 0; k < nr && !seen; k++)
				seen = roots[k] == r;
			if (!seen) {
				roots[nr++] = r;
				sum += rt->uf_value[r];
			}
		}
	}
	rt->res->heuristic_accesses += acc;
	return sum;
}

static inline int64_t num_local(const struct rt_key *x)
{
	return x->compute;
}

static inline struct frac h_dtr(struct runtime_state *rt, uint32_t s, const struct rt_key *x)
{
	return ratio(rt, x, num_estar(rt, s, x), BY_SIZE | BY_STALE);
}

static inline struct frac h_dtr_eqclass(struct runtime_state *rt, uint32_t s, const struct rt_key *x)
{
	return ratio(rt, x, num_eq(rt, s, x), BY_SIZE | BY_STALE);
}

static inline struct frac h_dtr_local(struct runtime_state *rt, uint32_t s, const struct rt_key *x)
{
	(void)s;
	return ratio(rt, x, num_local(x), BY_SIZE | BY_STALE);
}

static inline struct frac h_msps(struct runtime_state *rt, uint32_t s, const struct rt_key *x)
{
	return ratio(rt, x, x->compute + rt->reg[2 * (size_t)s + 1].compute, BY_SIZE);
}

/* The last access itself (never: below every clock, like -inf). */
static inline struct frac h_lru(struct runtime_state *rt, uint32_t s, const struct rt_key *x)
{
	(void)rt, (void)s;
	return whole(x->last);
}

static inline struct frac h_largest(struct runtime_state *rt, uint32_t s, const struct rt_key *x)
{
	(void)s;
	return ratio(rt, x, 1, BY_SIZE);
}

/* DTR-Full: rebuilds both regions from scratch; the neighbourhood's latest
 * access stands for the staleness. */
static struct frac h_dtr_unopt(struct runtime_state *rt, uint32_t s, const struct rt_key *x)
{
	(void)rt, (void)s;
	struct region *f = &rt->scratch_fwd, *r = &rt->scratch_rev;
	rt_region_rebuild(rt, f, s, false);
	rt_region_rebuild(rt, r, s, true);
	int64_t compute = x->compute, last = x->last;
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
			compute += rt->key[v].compute;
			if (rt->key[v].last > last)
				last = rt->key[v].last;
		}
	}
	if (last == RT_NEVER)
		return (struct frac){0, x->size > 0 ? 1 : 0};
	int64_t stale = rt->clock - last;
	return (struct frac){compute, (unsigned __int128)x->size * (uint64_t)(stale > 0 ? stale : 0)};
}

/* The ablation grid: {e*, eq, local, 1} x {size} x {staleness}. */
static inline struct frac h_ab_e_size(struct runtime_state *rt, uint32_t s, const struct rt_key *x)
{
	return ratio(rt, x, num_estar(rt, s, x), BY_SIZE);
}

static inline struct frac h_ab_e_stale(struct runtime_state *rt, uint32_t s, const struct rt_key *x)
{
	return ratio(rt, x, num_estar(rt, s, x), BY_STALE);
}

static inline struct frac h_ab_e(struct runtime_state *rt, uint32_t s, const struct rt_key *x)
{
	return whole(num_estar(rt, s, x));
}

static inline struct frac h_ab_eq_size(struct runtime_state *rt, uint32_t s, const struct rt_key *x)
{
	return ratio(rt, x, num_eq(rt, s, x), BY_SIZE);
}

static inline struct frac h_ab_eq_stale(struct runtime_state *rt, uint32_t s, const struct rt_key *x)
{
	return ratio(rt, x, num_eq(rt, s, x), BY_STALE);
}

static inline struct frac h_ab_eq(struct runtime_state *rt, uint32_t s, const struct rt_key *x)
{
	return whole(num_eq(rt, s, x));
}

static inline struct frac h_ab_local_size(struct runtime_state *rt, uint32_t s, const struct rt_key *x)
{
	(void)s;
	return ratio(rt, x, num_local(x), BY_SIZE);
}

static inline struct frac h_ab_local_stale(struct runtime_state *rt, uint32_t s, const struct rt_key *x)
{
	(void)s;
	return ratio(rt, x, num_local(x), BY_STALE);
}

static inline struct frac h_ab_local(struct runtime_state *rt, uint32_t s, const struct rt_key *x)
{
	(void)rt, (void)s;
	return whole(num_local(x));
}

static inline struct frac h_ab_size_stale(struct runtime_state *rt, uint32_t s, const struct rt_key *x)
{
	(void)s;
	return ratio(rt, x, 1, BY_SIZE | BY_STALE);
}

static inline struct frac h_ab_stale(struct runtime_state *rt, uint32_t s, const struct rt_key *x)
{
	(void)s;
	return ratio(rt, x, 1, BY_STALE);
}

/* The value of a cost, exactly as the reference's float. */
static inline double frac_value(struct frac c)
{
	if (c.den == 0)
		return INFINITY;
	if (c.den == 1)
		return (double)c.num;
	return rt_div(c.num, c.den);
}

/*
 * Whether cost c is surely above best (a positive finite double): its
 * double estimate num / (double)den is within a few ulps of the exact
 * quotient, so a margin of 8 ulps decides without the exact division.
 */
static inline bool surely_above(struct frac c, double best)
{
	if (c.den <= 1 || c.num <= 0 || !(best > 0) || isinf(best))
		return false;
	double est = (double)c.num / (double)c.den;
	return est > best * (1 + 8 * DBL_EPSILON);
}

/* The choice of one heuristic: its cost inlined in the pool scan. */
#define SCAN(name, costfn)                                                      \
	static uint32_t name(struct runtime_state *rt)                          \
	{                                                                       \
		double best = INFINITY;                                         \
		uint32_t best_s = RT_NONE;                                      \
		uint64_t n = 0;                                                 \
		for (uint32_t i = 0; i < rt->pool_end; i++) {                   \
			uint32_t s = rt->pool[i];                               \
			if (s == RT_NONE)                                       \
				continue;                                       \
			n++;                                                    \
			struct frac c = costfn(rt, s, &rt->pkey[i]);                          \
			if (surely_above(c, best))                              \
				continue;                                       \
			double v = frac_value(c);                               \
			if (v <= best) { /* ties keep the later storage */      \
				best = v;                                       \
				best_s = s;                                     \
			}                                                       \
			if (v == 0)                                             \
				break;                                          \
		}                                                               \
		rt->res->heuristic_evals += n;                                  \
		rt->res->heuristic_accesses += n;                               \
		return best_s;                                                  \
	}

/* The evaluations of a scan that stopped at slot i: members up to it. */
static uint64_t members_upto(const struct runtime_state *rt, uint32_t i)
{
	uint64_t n = 0;
	for (uint32_t j = 0; j <= i; j++)
		n += rt->pool[j] != RT_NONE;
	return n;
}

/*
 * The choice of a heuristic whose cost orders as one integer key of the
 * pool's copy (rt->pkey), lowest first: LRU (the last access), AbLocal (the
 * compute), AbStale (1 / (clock - last): the last access, capped at the
 * clock where the cost is +inf, RT_NEVER costing 0). While no key is wide
 * (runtime-state.h) the integers order and tie exactly as the reference's
 * costs, so the scan compares them without branches; holes hold INT64_MAX
 * and are passed by. `stop` is the key whose cost is exactly 0: the scan
 * ends at the first one, the evaluations counted up to it.
 */
#define ISCAN(name, KEY, stop, generic)                                         \
	static uint32_t name(struct runtime_state *rt)                          \
	{                                                                       \
		if (rt->wide || rt->clock < 0 || rt->clock > RT_NARROW)         \
			return generic(rt);                                     \
		const struct rt_key *pk = rt->pkey;                             \
		const int64_t clock = rt->clock;                                \
		(void)clock;                                                    \
		int64_t best = INT64_MAX;                                       \
		uint32_t bi = 0, end = rt->pool_end, i;                         \
		uint64_t n = rt->pool_len;                                      \
		for (i = 0; i < end; i++) {                                     \
			int64_t v = KEY(pk[i]);                                 \
			if (v == (stop)) {                                      \
				bi = i;                                         \
				n = members_upto(rt, i);                        \
				break;                                          \
			}                                                       \
			bool take = v <= best; /* ties keep the later one */    \
			best = take ? v : best;                                 \
			bi = take ? i : bi;                                     \
		}                                                               \
		rt->res->heuristic_evals += n;                                  \
		rt->res->heuristic_accesses += n;                               \
		return rt->pool[bi];                                            \
	}

#define KEY_LAST(k) ((k).last)
#define KEY_COMPUTE(k) ((k).compute)
#define KEY_STALE(k) ((k).last < clock || (k).last == INT64_MAX ? (k).last : clock)

/*
 * The costs that are a fraction num / den of narrow keys (the compute over
 * size, staleness or both), as the reference's correctly rounded double:
 * while num and den are at most 2^53 both are exact doubles and one IEEE
 * division is the correctly rounded quotient. A larger den (size times
 * staleness) takes the exact division unless the estimate is surely above
 * best, when the estimate (also above best, and not 0) stands in for it.
 */
static inline double narrow_div(int64_t num, unsigned __int128 den, double best)
{
	if (den == 0)
		return INFINITY;
	if (den <= ((unsigned __int128)1 << 53))
		return (double)num / (double)(uint64_t)den;
	struct frac c = {num, den};
	if (surely_above(c, best))
		return (double)num / (double)den;
	return rt_div(num, den);
}

static inline int64_t narrow_stale(int64_t clock, int64_t last)
{
	return clock > last ? clock - last : 0;
}

#define VAL_LOCAL_SIZE(k, clock, best) narrow_div((k)->compute, (k)->size, best)
#define VAL_LOCAL_STALE(k, clock, best)                                         \
	((k)->last == RT_NEVER ? 0.0                                            \
			       : narrow_div((k)->compute, (uint64_t)narrow_stale(clock, (k)->last), best))
#define VAL_SIZE_STALE(k, clock, best)                                          \
	((k)->last == RT_NEVER ? ((k)->size > 0 ? 0.0 : INFINITY)               \
			       : narrow_div(1, (unsigned __int128)(k)->size *           \
						  (uint64_t)narrow_stale(clock, (k)->last), best))
#define VAL_LOCAL_SIZE_STALE(k, clock, best)                                    \
	((k)->last == RT_NEVER ? ((k)->size > 0 ? 0.0 : INFINITY)               \
			       : narrow_div((k)->compute, (unsigned __int128)(k)->size * \
						  (uint64_t)narrow_stale(clock, (k)->last), best))

/*
 * The choice of a heuristic whose cost is such a fraction of the pool's
 * key copy: SCAN without the gather or the 128-bit arithmetic, while no
 * key is wide. Holes (compute INT64_MAX, which no narrow key has) are
 * skipped.
 */
#define DSCAN(name, VAL, generic)                                               \
	static uint32_t name(struct runtime_state *rt)                          \
	{                                                                       \
		if (rt->wide || rt->clock < 0 || rt->clock > RT_NARROW)         \
			return generic(rt);                                     \
		const struct rt_key *pk = rt->pkey;                             \
		const int64_t clock = rt->clock;                                \
		(void)clock;                                                    \
		double best = INFINITY;                                         \
		uint32_t bi = RT_NONE, end = rt->pool_end;                      \
		uint64_t n = rt->pool_len;                                      \
		for (uint32_t i = 0; i < end; i++) {                            \
			const struct rt_key *k = &pk[i];                        \
			if (k->compute == INT64_MAX)                            \
				continue;                                       \
			double v = VAL(k, clock, best);                         \
			if (v <= best) { /* ties keep the later storage */      \
				best = v;                                       \
				bi = i;                                         \
			}                                                       \
			if (v == 0) {                                           \
				n = members_upto(rt, i);                        \
				break;                                          \
			}                                                       \
		}                                                               \
		rt->res->heuristic_evals += n;                                  \
		rt->res->heuristic_accesses += n;                               \
		return rt->pool[bi];                                            \
	}

/*
 * LargestStorage and AbSize: 1 / size, +inf for size 0, never 0: the
 * largest size, ties to the later one (sizes of at most 2^50 have distinct
 * reciprocals). Holes hold size 0; a best of 0 means no member has a
 * nonzero size, left to the plain scan.
 */
static uint32_t choose_largest_generic(struct runtime_state *rt);
static uint32_t choose_largest(struct runtime_state *rt)
{
	if (rt->wide)
		return choose_largest_generic(rt);
	const struct rt_key *pk = rt->pkey;
	uint64_t best = 0;
	uint32_t bi = 0, end = rt->pool_end;
	for (uint32_t i = 0; i < end; i++) {
		uint64_t v = pk[i].size;
		bool take = v >= best;
		best = take ? v : best;
		bi = take ? i : bi;
	}
	if (best == 0)
		return choose_largest_generic(rt);
	rt->res->heuristic_evals += rt->pool_len;
	rt->res->heuristic_accesses += rt->pool_len;
	return rt->pool[bi];
}

SCAN(choose_dtr, h_dtr)
SCAN(choose_dtr_eqclass, h_dtr_eqclass)
SCAN(choose_dtr_local_generic, h_dtr_local)
DSCAN(choose_dtr_local, VAL_LOCAL_SIZE_STALE, choose_dtr_local_generic)
SCAN(choose_msps, h_msps)
SCAN(choose_lru_generic, h_lru)
ISCAN(choose_lru, KEY_LAST, 0, choose_lru_generic)
SCAN(choose_largest_generic, h_largest)
SCAN(choose_dtr_unopt, h_dtr_unopt)
SCAN(choose_ab_e_size, h_ab_e_size)
SCAN(choose_ab_e_stale, h_ab_e_stale)
SCAN(choose_ab_e, h_ab_e)
SCAN(choose_ab_eq_size, h_ab_eq_size)
SCAN(choose_ab_eq_stale, h_ab_eq_stale)
SCAN(choose_ab_eq, h_ab_eq)
SCAN(choose_ab_local_size_generic, h_ab_local_size)
DSCAN(choose_ab_local_size, VAL_LOCAL_SIZE, choose_ab_local_size_generic)
SCAN(choose_ab_local_stale_generic, h_ab_local_stale)
DSCAN(choose_ab_local_stale, VAL_LOCAL_STALE, choose_ab_local_stale_generic)
SCAN(choose_ab_local_generic, h_ab_local)
ISCAN(choose_ab_local, KEY_COMPUTE, 0, choose_ab_local_generic)
SCAN(choose_ab_size_stale_generic, h_ab_size_stale)
DSCAN(choose_ab_size_stale, VAL_SIZE_STALE, choose_ab_size_stale_generic)
SCAN(choose_ab_stale_generic, h_ab_stale)
ISCAN(choose_ab_stale, KEY_STALE, RT_NEVER, choose_ab_stale_generic)

static inline uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* h_rand: a uniformly random pool member (one evaluation, one access). */
static uint32_t choose_random(struct runtime_state *rt)
{
	rt->res->heuristic_evals++;
	rt->res->heuristic_accesses++;
	uint64_t k = splitmix64(&rt->rng) % rt->pool_len;
	for (uint32_t i = 0;; i++)
		if (rt->pool[i] != RT_NONE && k-- == 0)
			return rt->pool[i];
}

#define R NEEDS_REGIONS
#define Q NEEDS_EQCLASS
static const struct heuristic registry[] = {
	{"DTR", "h_DTR", R, false, 0, choose_dtr},
	{"DTREqClass", "h_DTR^eq", Q, false, 1, choose_dtr_eqclass},
	{"DTRLocal", "h_DTR^local", 0, false, 2, choose_dtr_local},
	{"MSPS", "h_MSPS", R, false, 3, choose_msps},
	{"LRU", "h_LRU", 0, false, 4, choose_lru},
	{"LargestStorage", "h_size", 0, false, 5, choose_largest},
	{"RandomStorage", "h_rand", 0, true, 6, choose_random},
	{"DTRUnopt", "DTR-Full", NEEDS_UNOPT, false, 7, choose_dtr_unopt},
	{"AbESizeStale", "e*, size, staleness", R, false, 8, choose_dtr},
	{"AbESize", "e*, size, no staleness", R, false, 9, choose_ab_e_size},
	{"AbEStale", "e*, no size, staleness", R, false, 10, choose_ab_e_stale},
	{"AbE", "e*, no size, no staleness", R, false, 11, choose_ab_e},
	{"AbEqSizeStale", "EqClass, size, staleness", Q, false, 12, choose_dtr_eqclass},
	{"AbEqSize", "EqClass, size, no staleness", Q, false, 13, choose_ab_eq_size},
	{"AbEqStale", "EqClass, no size, staleness", Q, false, 14, choose_ab_eq_stale},
	{"AbEq", "EqClass, no size, no staleness", Q, false, 15, choose_ab_eq},
	{"AbLocalSizeStale", "local, size, staleness", 0, false, 16, choose_dtr_local},
	{"AbLocalSize", "local, size, no staleness", 0, false, 17, choose_ab_local_size},
	{"AbLocalStale", "local, no size, staleness", 0, false, 18, choose_ab_local_stale},
	{"AbLocal", "local, no size, no staleness", 0, false, 19, choose_ab_local},
	{"AbSizeStale", "no cost, size, staleness", 0, false, 20, choose_ab_size_stale},
	{"AbSize", "no cost, size, no staleness", 0, false, 21, choose_largest},
	{"AbStale", "no cost, no size, staleness", 0, false, 22, choose_ab_stale},
	{"AbRandom", "no cost, no size, no staleness (random)", 0, true, 23, choose_random},
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
