/*
 * heuristics.c: the eviction policies of the DTR paper's simulator, one
 * registry row and one cost function each (heuristic/dtr.py, etc.py,
 * ablation.py). A cost is the reference's value exactly: an integer
 * numerator over an integer denominator (struct rt_frac), divided once and
 * correctly rounded (Python's int / int), so that ties and orderings come
 * out as in the reference.
 *
 * Read it as Redis's evict.c: the costs first, then the scoring loop that
 * turns a cost into a choice, written once with a comment, then the speed
 * tricks, which a reader can skip: the loop inlined per cost, and the rows
 * that name a key of the pool the runtime scans by itself
 * (runtime-scan.h). Last the registry, where each row names its cost (and
 * key), or a choice of its own (the random ones, DTRPrototype).
 *
 * Everything here reads the runtime through policy.h's queries (the pool,
 * a storage's key, the clock, region and class sums, counters, draws): a
 * heuristic's `rt` is a struct policy, which has no fields to read.
 */
#include "hash.h"
#include "heuristics.h"

#include <math.h>
#include <string.h>
#include <strings.h>

#include "util.h"
/* The runtime as a policy sees it: the queries of policy.h; the state
 * cannot be named from here on. */
#define POLICY_ONLY
#include "policy.h"

/* ---- the costs ------------------------------------------------------------ */

enum { BY_SIZE = 1, BY_STALE = 2 };

/* num / (size? * staleness?), as the reference's `x / d if d > 0 else inf`. */
static inline struct rt_frac ratio(const struct policy *rt, const struct rt_key *x, int64_t num, int by)
{
	unsigned __int128 den = 1;
	if (by & BY_SIZE)
		den = x->size;
	if (by & BY_STALE) {
		if (x->last == RT_NEVER) /* infinitely stale: num / inf = 0 */
			return (struct rt_frac){0, den > 0 ? 1 : 0};
		int64_t stale = pol_clock(rt) - x->last;
		den *= (uint64_t)(stale > 0 ? stale : 0);
	}
	return (struct rt_frac){num, den};
}

static inline struct rt_frac whole(int64_t v)
{
	return (struct rt_frac){v, 1};
}

/* e*: the storage's compute plus its evicted regions' (both directions). */
static inline int64_t num_estar(const struct policy *rt, uint32_t s, const struct rt_key *x)
{
	return rt_wadd(rt_wadd(x->compute, pol_region_compute(rt, s, false)), pol_region_compute(rt, s, true));
}

/* eq: compute plus the values of the distinct classes of the evicted
 * neighbours, with the reference's accesses (pol_class_sum). */
static int64_t num_eq(struct policy *rt, uint32_t s, const struct rt_key *x)
{
	return pol_class_sum(rt, s, x->compute);
}

static inline int64_t num_local(const struct rt_key *x)
{
	return x->compute;
}

static inline struct rt_frac h_dtr(struct policy *rt, uint32_t s, const struct rt_key *x)
{
	return ratio(rt, x, num_estar(rt, s, x), BY_SIZE | BY_STALE);
}

static inline struct rt_frac h_dtr_eqclass(struct policy *rt, uint32_t s, const struct rt_key *x)
{
	return ratio(rt, x, num_eq(rt, s, x), BY_SIZE | BY_STALE);
}

static inline struct rt_frac h_dtr_local(struct policy *rt, uint32_t s, const struct rt_key *x)
{
	(void)s;
	return ratio(rt, x, num_local(x), BY_SIZE | BY_STALE);
}

static inline struct rt_frac h_msps(struct policy *rt, uint32_t s, const struct rt_key *x)
{
	return ratio(rt, x, rt_wadd(x->compute, pol_region_compute(rt, s, true)), BY_SIZE);
}

/* The last access itself (never: below every clock, like -inf). */
static inline struct rt_frac h_lru(struct policy *rt, uint32_t s, const struct rt_key *x)
{
	(void)rt, (void)s;
	return whole(x->last);
}

/* Belady (offline): compute(s) / (size(s) x commands to its next use); a
 * storage nothing uses again costs 0 (evicted at once). */
static inline struct rt_frac h_belady(struct policy *rt, uint32_t s, const struct rt_key *x)
{
	uint64_t d = pol_next_use(rt, s);
	if (!d)
		return whole(0);
	return (struct rt_frac){x->compute, (unsigned __int128)x->size * d};
}

static inline struct rt_frac h_largest(struct policy *rt, uint32_t s, const struct rt_key *x)
{
	(void)s;
	return ratio(rt, x, 1, BY_SIZE);
}

/* DTR-Full: rebuilds both regions from scratch; the neighbourhood's latest
 * access stands for the staleness. */
static inline struct rt_frac h_dtr_unopt(struct policy *rt, uint32_t s, const struct rt_key *x)
{
	int64_t compute = x->compute, last = x->last;
	pol_unopt_neighbourhood(rt, s, &compute, &last);
	if (last == RT_NEVER)
		return (struct rt_frac){0, x->size > 0 ? 1 : 0};
	int64_t stale = pol_clock(rt) - last;
	return (struct rt_frac){compute, (unsigned __int128)x->size * (uint64_t)(stale > 0 ? stale : 0)};
}

/* The ablation grid: {e*, eq, local, 1} x {size} x {staleness}. */
static inline struct rt_frac h_ab_e_size(struct policy *rt, uint32_t s, const struct rt_key *x)
{
	return ratio(rt, x, num_estar(rt, s, x), BY_SIZE);
}

static inline struct rt_frac h_ab_e_stale(struct policy *rt, uint32_t s, const struct rt_key *x)
{
	return ratio(rt, x, num_estar(rt, s, x), BY_STALE);
}

static inline struct rt_frac h_ab_e(struct policy *rt, uint32_t s, const struct rt_key *x)
{
	return whole(num_estar(rt, s, x));
}

static inline struct rt_frac h_ab_eq_size(struct policy *rt, uint32_t s, const struct rt_key *x)
{
	return ratio(rt, x, num_eq(rt, s, x), BY_SIZE);
}

static inline struct rt_frac h_ab_eq_stale(struct policy *rt, uint32_t s, const struct rt_key *x)
{
	return ratio(rt, x, num_eq(rt, s, x), BY_STALE);
}

static inline struct rt_frac h_ab_eq(struct policy *rt, uint32_t s, const struct rt_key *x)
{
	return whole(num_eq(rt, s, x));
}

static inline struct rt_frac h_ab_local_size(struct policy *rt, uint32_t s, const struct rt_key *x)
{
	(void)s;
	return ratio(rt, x, num_local(x), BY_SIZE);
}

static inline struct rt_frac h_ab_local_stale(struct policy *rt, uint32_t s, const struct rt_key *x)
{
	(void)s;
	return ratio(rt, x, num_local(x), BY_STALE);
}

static inline struct rt_frac h_ab_local(struct policy *rt, uint32_t s, const struct rt_key *x)
{
	(void)rt, (void)s;
	return whole(num_local(x));
}

static inline struct rt_frac h_ab_size_stale(struct policy *rt, uint32_t s, const struct rt_key *x)
{
	(void)s;
	return ratio(rt, x, 1, BY_SIZE | BY_STALE);
}

static inline struct rt_frac h_ab_stale(struct policy *rt, uint32_t s, const struct rt_key *x)
{
	(void)s;
	return ratio(rt, x, 1, BY_STALE);
}

/* ---- the scoring loop ------------------------------------------------------ */

/*
 * The choice, as the reference makes it: every member of the pool is
 * scored in slot (joining) order; the lowest cost is evicted, a tie going
 * to the later member; a cost of exactly 0 cannot be beaten, so the scan
 * stops there. Each member scored counts one evaluation and one access
 * (the cost functions count the further accesses the reference counts:
 * evicted neighbours and class look-ups for the EqClass family, region
 * rebuilds for DTRUnopt).
 *
 * `exact` false allows the loop's one speed trick: a member whose cost is
 * surely above the best so far (rt_frac_surely_above, a double estimate
 * with a margin) is passed without its exact division, as it could be
 * neither taken nor 0. exact true is the plain loop that
 * runtime_test_switches.plain_scans forces and the tests hold every faster path
 * to.
 */
static inline __attribute__((always_inline)) uint32_t
lowest_cost(struct policy *rt, struct rt_frac (*cost)(struct policy *rt, uint32_t s, const struct rt_key *x),
	    bool exact)
{
	double best = INFINITY;
	uint32_t best_s = RT_NONE;
	uint64_t n = 0;
	for (uint32_t i = 0; i < pol_pool_end(rt); i++) {
		uint32_t s = pol_pool_member(rt, i);
		if (s == POL_HOLE)
			continue;
		n++;
		struct rt_frac c = cost(rt, s, pol_key(rt, s));
		if (!exact && rt_frac_surely_above(c, best))
			continue;
		double v = rt_frac_value(c);
		if (v <= best) { /* ties keep the later storage */
			best = v;
			best_s = s;
		}
		if (v == 0)
			break;
	}
	pol_count(rt, n, n);
	return best_s;
}

uint32_t heuristic_choose_plain(struct policy *rt, const struct heuristic *h)
{
	if (!h->score)
		return h->choose(rt);
	return lowest_cost(rt, h->score, true);
}

/* h_rand: a uniformly random pool member (one evaluation, one access). */
static uint32_t choose_random(struct policy *rt)
{
	pol_count(rt, 1, 1);
	uint64_t k = pol_draw(rt, pol_pool_len(rt));
	return pol_pool_nth(rt, k);
}

/* DTRPrototype: the DTR prototype's own choice over its own candidates,
 * kept by the runtime (pol_proto_choose, runtime-proto.c); POL_HOLE when
 * none of them can go (the runtime then stops with OOM). */
static uint32_t choose_prototype(struct policy *rt)
{
	return pol_proto_choose(rt);
}

/* ---- speed ------------------------------------------------------------------
 * SPEED-ONLY (docs/architecture.md): the scoring loop with each cost
 * inlined, one function per cost, which a row's BY_COST names. Where a row
 * also names a key (BY_KEY), the runtime finds the lowest cost from the
 * pool's key arrays itself (runtime-scan.c) and calls this loop only where
 * the keys are too wide for that. Both choose exactly as the plain loop. */
#define COSTED(cost)                                                            \
	static uint32_t choose_##cost(struct policy *rt)                        \
	{                                                                       \
		return lowest_cost(rt, cost, false);                            \
	}
COSTED(h_dtr)
COSTED(h_dtr_eqclass)
COSTED(h_dtr_local)
COSTED(h_msps)
COSTED(h_lru)
COSTED(h_largest)
COSTED(h_dtr_unopt)
COSTED(h_ab_e_size)
COSTED(h_ab_e_stale)
COSTED(h_ab_e)
COSTED(h_ab_eq_size)
COSTED(h_ab_eq_stale)
COSTED(h_ab_eq)
COSTED(h_ab_local_size)
COSTED(h_ab_local_stale)
COSTED(h_ab_local)
COSTED(h_ab_size_stale)
COSTED(h_ab_stale)
COSTED(h_belady)

/* A row's way of choosing: the lowest of a cost, and optionally the key of
 * the pool that orders the same (runtime-scan.h). */
#define BY_COST(cost) .score = cost, .choose = choose_##cost
#define BY_KEY(cost, k) BY_COST(cost), .key = k

/*
 * The registry: one row per heuristic, read by everything that lists them
 * (replay --help, sweeps, the figures, the tests). Colours and markers are
 * the DTR paper's figures' (simrd's COLOR and MARKER; its cyan darkened to
 * print), as gnuplot point types: 1 +, 2 x, 3 *, 5 square, 7 circle,
 * 9 triangle, 11 triangle down, 13 diamond (filled).
 *
 * Cost words: size(s) its bytes; staleness(s) the clock minus its last
 * access; compute(s) its op's time; e*(s) compute(s) plus the compute of its
 * evicted neighbourhood in both directions (the regions the Optimized
 * runtimes keep); eq(s) compute(s) plus the value of each distinct
 * union-find class among its evicted neighbours. Lowest cost is evicted.
 */
#define R NEEDS_REGIONS
#define Q NEEDS_EQCLASS
static const struct heuristic registry[] = {
	{
		.name = "DTR",
		.label = "h_DTR",
		.tex_label = "h_{DTR}",
		.family = FAMILY_PAPER,
		.cost = "e*(s) / (size(s) * staleness(s))",
		.color = "#008000", .marker = 3,
		.needs = R,
		BY_COST(h_dtr),
	},
	{
		.name = "DTREqClass",
		.label = "h_DTR^eq",
		.tex_label = "h_{DTR}^{eq}",
		.family = FAMILY_PAPER,
		.cost = "eq(s) / (size(s) * staleness(s))",
		.color = "#4169e1", .marker = 13,
		.needs = Q,
		BY_COST(h_dtr_eqclass),
	},
	{
		.name = "DTRLocal",
		.label = "h_DTR^local",
		.tex_label = "h_{DTR}^{local}",
		.family = FAMILY_PAPER,
		.cost = "compute(s) / (size(s) * staleness(s))",
		.color = "#663399", .marker = 7,
		.needs = 0,
		BY_KEY(h_dtr_local, SCAN_COMPUTE_PER_SIZE_STALE),
	},
	{
		.name = "MSPS",
		.label = "h_MSPS",
		.tex_label = "h_{MSPS}",
		.family = FAMILY_PAPER,
		.cost = "(compute(s) + compute of its evicted ancestors' region) / size(s)",
		.color = "#00b3b3", .marker = 11,
		.needs = R,
		BY_COST(h_msps),
		.clock_free = true,
	},
	{
		.name = "LRU",
		.label = "h_LRU",
		.tex_label = "h_{LRU}",
		.family = FAMILY_PAPER,
		.cost = "last_access(s): the least recently used goes first",
		.color = "#ffa500", .marker = 9,
		.needs = 0,
		BY_KEY(h_lru, SCAN_LAST),
	},
	{
		.name = "LargestStorage",
		.label = "h_size",
		.tex_label = "h_{size}",
		.family = FAMILY_PAPER,
		.cost = "1 / size(s): the largest goes first",
		.color = "#ff0000", .marker = 5,
		.needs = 0,
		BY_KEY(h_largest, SCAN_PER_SIZE),
	},
	{
		.name = "RandomStorage",
		.label = "h_rand",
		.tex_label = "h_{rand}",
		.family = FAMILY_PAPER,
		.cost = "none: a uniformly random pool member (seeded)",
		.color = "#800000", .marker = 2,
		.needs = 0,
		.random = true,
		.choose = choose_random,
	},
	{
		.name = "DTRUnopt",
		.label = "DTR-Full",
		.tex_label = "DTR-Full",
		.family = FAMILY_PAPER,
		.cost = "(compute(s) + compute of its evicted neighbourhood, rebuilt) / (size(s) * staleness of the neighbourhood's latest access)",
		.color = "#ffa500", .marker = 2,
		.needs = NEEDS_UNOPT,
		BY_COST(h_dtr_unopt),
	},
	{
		.name = "AbESizeStale",
		.label = "e*, size, staleness",
		.tex_label = "size and staleness",
		.family = FAMILY_ESTAR,
		.cost = "e*(s) / (size(s) * staleness(s))",
		.color = "#008000", .marker = 3,
		.needs = R,
		BY_COST(h_dtr),
	},
	{
		.name = "AbESize",
		.label = "e*, size, no staleness",
		.tex_label = "size",
		.family = FAMILY_ESTAR,
		.cost = "e*(s) / size(s)",
		.color = "#0000ff", .marker = 13,
		.needs = R,
		BY_COST(h_ab_e_size),
		.clock_free = true,
	},
	{
		.name = "AbEStale",
		.label = "e*, no size, staleness",
		.tex_label = "staleness",
		.family = FAMILY_ESTAR,
		.cost = "e*(s) / staleness(s)",
		.color = "#ffa500", .marker = 9,
		.needs = R,
		BY_COST(h_ab_e_stale),
	},
	{
		.name = "AbE",
		.label = "e*, no size, no staleness",
		.tex_label = "no size, no staleness",
		.family = FAMILY_ESTAR,
		.cost = "e*(s)",
		.color = "#ff0000", .marker = 2,
		.needs = R,
		BY_COST(h_ab_e),
		.clock_free = true,
	},
	{
		.name = "AbEqSizeStale",
		.label = "EqClass, size, staleness",
		.tex_label = "size and staleness",
		.family = FAMILY_EQ,
		.cost = "eq(s) / (size(s) * staleness(s))",
		.color = "#008000", .marker = 3,
		.needs = Q,
		BY_COST(h_dtr_eqclass),
	},
	{
		.name = "AbEqSize",
		.label = "EqClass, size, no staleness",
		.tex_label = "size",
		.family = FAMILY_EQ,
		.cost = "eq(s) / size(s)",
		.color = "#0000ff", .marker = 13,
		.needs = Q,
		BY_COST(h_ab_eq_size),
	},
	{
		.name = "AbEqStale",
		.label = "EqClass, no size, staleness",
		.tex_label = "staleness",
		.family = FAMILY_EQ,
		.cost = "eq(s) / staleness(s)",
		.color = "#ffa500", .marker = 9,
		.needs = Q,
		BY_COST(h_ab_eq_stale),
	},
	{
		.name = "AbEq",
		.label = "EqClass, no size, no staleness",
		.tex_label = "no size, no staleness",
		.family = FAMILY_EQ,
		.cost = "eq(s)",
		.color = "#ff0000", .marker = 2,
		.needs = Q,
		BY_COST(h_ab_eq),
	},
	{
		.name = "AbLocalSizeStale",
		.label = "local, size, staleness",
		.tex_label = "size and staleness",
		.family = FAMILY_LOCAL,
		.cost = "compute(s) / (size(s) * staleness(s))",
		.color = "#008000", .marker = 3,
		.needs = 0,
		BY_KEY(h_dtr_local, SCAN_COMPUTE_PER_SIZE_STALE),
	},
	{
		.name = "AbLocalSize",
		.label = "local, size, no staleness",
		.tex_label = "size",
		.family = FAMILY_LOCAL,
		.cost = "compute(s) / size(s)",
		.color = "#0000ff", .marker = 13,
		.needs = 0,
		BY_KEY(h_ab_local_size, SCAN_COMPUTE_PER_SIZE),
	},
	{
		.name = "AbLocalStale",
		.label = "local, no size, staleness",
		.tex_label = "staleness",
		.family = FAMILY_LOCAL,
		.cost = "compute(s) / staleness(s)",
		.color = "#ffa500", .marker = 9,
		.needs = 0,
		BY_KEY(h_ab_local_stale, SCAN_COMPUTE_PER_STALE),
	},
	{
		.name = "AbLocal",
		.label = "local, no size, no staleness",
		.tex_label = "no size, no staleness",
		.family = FAMILY_LOCAL,
		.cost = "compute(s)",
		.color = "#ff0000", .marker = 2,
		.needs = 0,
		BY_KEY(h_ab_local, SCAN_COMPUTE),
	},
	{
		.name = "AbSizeStale",
		.label = "no cost, size, staleness",
		.tex_label = "size and staleness",
		.family = FAMILY_NOCOST,
		.cost = "1 / (size(s) * staleness(s))",
		.color = "#008000", .marker = 3,
		.needs = 0,
		BY_KEY(h_ab_size_stale, SCAN_PER_SIZE_STALE),
	},
	{
		.name = "AbSize",
		.label = "no cost, size, no staleness",
		.tex_label = "size",
		.family = FAMILY_NOCOST,
		.cost = "1 / size(s)",
		.color = "#0000ff", .marker = 13,
		.needs = 0,
		BY_KEY(h_largest, SCAN_PER_SIZE),
	},
	{
		.name = "AbStale",
		.label = "no cost, no size, staleness",
		.tex_label = "staleness",
		.family = FAMILY_NOCOST,
		.cost = "1 / staleness(s)",
		.color = "#ffa500", .marker = 9,
		.needs = 0,
		BY_KEY(h_ab_stale, SCAN_PER_STALE),
	},
	{
		.name = "AbRandom",
		.label = "no cost, no size, no staleness (random)",
		.tex_label = "random",
		.family = FAMILY_NOCOST,
		.cost = "none: a uniformly random pool member (seeded)",
		.color = "#ff0000", .marker = 2,
		.needs = 0,
		.random = true,
		.choose = choose_random,
	},
	{
		/* The paper's prototype (a modified PyTorch): its own candidate
		 * list, sampling, budget check and classes (runtime-proto.c,
		 * heuristics.h's struct proto_rules, docs/validation.md). */
		.name = "DTRPrototype",
		.label = "DTR prototype",
		.tex_label = "DTR prototype",
		.family = FAMILY_PAPER,
		.cost = "eq(s) / (size(s) * staleness(s)) as the DTR prototype scores it: "
			"a seeded sample of about sqrt(N) candidates, none under 1% of the "
			"mean size, the budget checked after each op (--proto-rules)",
		.color = "#8c564b", .marker = 15,
		.needs = Q | NEEDS_PROTO,
		.random = true,
		.choose = choose_prototype,
	},
	{
		/* An OFFLINE BOUND, not a runtime policy: it reads the whole
		 * schedule ahead (every storage's next use, runtime-future.c), as
		 * Belady's cache replacement does. A yardstick for the online
		 * heuristics and a start for the ILP; no framework can run it. */
		.name = "Belady",
		.label = "Belady (offline bound)",
		.tex_label = "Belady (offline)",
		.family = FAMILY_PAPER,
		.cost = "OFFLINE (sees the future, not a runtime policy): compute(s) / (size(s) * "
			"commands until its next use); unused again: 0",
		.color = "#000000", .marker = 13,
		.needs = NEEDS_FUTURE,
		BY_COST(h_belady),
	},
};
#undef R
#undef Q
#undef BY_COST
#undef BY_KEY

static const char *const family_names[FAMILY_COUNT] = {
	[FAMILY_PAPER] = "paper",
	[FAMILY_ESTAR] = "estar",
	[FAMILY_EQ] = "eq",
	[FAMILY_LOCAL] = "local",
	[FAMILY_NOCOST] = "nocost",
};
static const char *const family_titles[FAMILY_COUNT] = {
	[FAMILY_PAPER] = "Eviction heuristics",
	[FAMILY_ESTAR] = "Ablation: e^{*} cost",
	[FAMILY_EQ] = "Ablation: eq-class cost",
	[FAMILY_LOCAL] = "Ablation: local cost",
	[FAMILY_NOCOST] = "Ablation: no cost",
};

const char *heuristic_family_name(enum heuristic_family f)
{
	return (unsigned)f < FAMILY_COUNT ? family_names[f] : "?";
}

const char *heuristic_family_title(enum heuristic_family f)
{
	return (unsigned)f < FAMILY_COUNT ? family_titles[f] : "?";
}

const struct heuristic *heuristic_find(const char *name)
{
	for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
		if (!strcasecmp(registry[i].name, name))
			return &registry[i];
	return NULL;
}

const char *heuristic_suggest(const char *name)
{
	const char *names[sizeof registry / sizeof registry[0]];
	for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
		names[i] = registry[i].name;
	return nearest_name(name, names, sizeof registry / sizeof registry[0]);
}

const struct heuristic *heuristic_list(size_t *n)
{
	*n = sizeof registry / sizeof registry[0];
	return registry;
}
