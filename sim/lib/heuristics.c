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
 *
 * Everything here reads the runtime through policy.h's queries (the pool,
 * its key arrays, a storage's key, the clock, region and class sums,
 * counters), never struct runtime_state's fields.
 */
#include "hash.h"
#include "heuristics.h"

#include <float.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include "util.h"
/* The runtime as a policy sees it: the queries of policy.h, the state's
 * fields poisoned from here on. */
#define POLICY_ONLY
#include "policy.h"

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
		int64_t stale = pol_clock(rt) - x->last;
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
	return rt_wadd(rt_wadd(x->compute, pol_region_compute(rt, s, false)), pol_region_compute(rt, s, true));
}

/* eq: compute plus the values of the distinct classes of the evicted
 * neighbours, with the reference's accesses (pol_class_sum). */
static int64_t num_eq(struct runtime_state *rt, uint32_t s, const struct rt_key *x)
{
	return pol_class_sum(rt, s, x->compute);
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
	return ratio(rt, x, rt_wadd(x->compute, pol_region_compute(rt, s, true)), BY_SIZE);
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
	int64_t compute = x->compute, last = x->last;
	pol_unopt_neighbourhood(rt, s, &compute, &last);
	if (last == RT_NEVER)
		return (struct frac){0, x->size > 0 ? 1 : 0};
	int64_t stale = pol_clock(rt) - last;
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
		for (uint32_t i = 0; i < pol_pool_end(rt); i++) {               \
			uint32_t s = pol_pool_member(rt, i);                    \
			if (s == POL_HOLE)                                      \
				continue;                                       \
			n++;                                                    \
			struct frac c = costfn(rt, s, pol_key(rt, s));          \
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
		pol_count(rt, n, n);                                            \
		return best_s;                                                  \
	}

/*
 * The choice of a heuristic whose cost orders as one integer key of the
 * pool's key arrays, lowest first: LRU (the last access), AbLocal (the
 * compute), AbStale (1 / (clock - last): the last access, capped at the
 * clock where the cost is +inf, RT_NEVER costing 0). While no key is wide
 * (runtime-state.h) the integers order and tie exactly as the reference's
 * costs. `stop` is the key whose cost is exactly 0: the reference's scan
 * ends at the first one, the evaluations counted up to it; otherwise it
 * takes the last slot of the least key (ties keep the later storage).
 * Holes hold INT64_MAX, above every narrow key.
 *
 * So the scan is a minimum (with its latest slot, lane by lane) and a
 * search for `stop` over blocks of 16 slots in 4-lane vectors (GCC and
 * clang vector extensions: AVX2 in the x86-64-v3 build): about a fifth of
 * the instructions of one pass with a branch per slot. The caps are left
 * out where there are none (LRU, AbLocal).
 */
typedef int64_t i64x4 __attribute__((vector_size(32)));

/* The vector helpers are always inlined into the scans, so no call passes
 * a vector and the compilers' note that an AVX build would pass them
 * differently does not apply (GCC gives it as the file's clones are
 * emitted, at its end: so it is off for the rest of the file). */
#if defined(__clang__)
#if __has_warning("-Wpsabi")
#pragma clang diagnostic ignored "-Wpsabi"
#endif
#elif defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

static inline __attribute__((always_inline)) i64x4 load4(const int64_t *p)
{
	i64x4 v;
	memcpy(&v, p, sizeof v);
	return v;
}

static inline __attribute__((always_inline)) i64x4 splat4(int64_t x)
{
	return (i64x4){x, x, x, x};
}

static inline __attribute__((always_inline)) i64x4 min4(i64x4 a, i64x4 b)
{
	i64x4 m = a < b;
	return (a & m) | (b & ~m);
}

/* The key of v capped at c (holes stay INT64_MAX). */
static inline __attribute__((always_inline)) i64x4 cap4(i64x4 v, i64x4 c)
{
	i64x4 keep = (v < c) | (v == splat4(INT64_MAX));
	return (v & keep) | (c & ~keep);
}

static inline int64_t cap1(int64_t v, int64_t c)
{
	return v < c || v == INT64_MAX ? v : c;
}

static inline __attribute__((always_inline)) bool any4(i64x4 h)
{
#if (defined(__GNUC__) && __GNUC__ >= 12) || defined(__clang__)
	h |= __builtin_shufflevector(h, h, 2, 3, 0, 1);
	return (h[0] | h[1]) != 0;
#else
	return (h[0] | h[1] | h[2] | h[3]) != 0;
#endif
}

#define IBLOCK 16

/* The last slot of a[0..end) whose key capped at `cap` is b (there is one),
 * from the end, a block at a time. */
static inline __attribute__((always_inline)) uint32_t last_slot(const int64_t *a, uint32_t end,
								 int64_t cap, int64_t b)
{
	const i64x4 c = splat4(cap), bb = splat4(b);
	uint32_t k = end;
	for (; k >= IBLOCK; k -= IBLOCK) {
		const int64_t *p = a + k - IBLOCK;
		if (any4((cap4(load4(p), c) == bb) | (cap4(load4(p + 4), c) == bb) |
			 (cap4(load4(p + 8), c) == bb) | (cap4(load4(p + 12), c) == bb)))
			break;
	}
	while (cap1(a[k - 1], cap) != b)
		k--;
	return k - 1;
}

/* The slot ISCAN chooses over keys a[0..end) capped at `cap` (unless
 * `capped` is false: no cap); *stopped says whether it is the first
 * `stop` (looked for only if `stops`). Each lane keeps its least key and
 * the latest slot holding it (a key at most the lane's least takes its
 * place: ties keep the later slot); the least of the lanes' keys, at the
 * latest of their slots holding it, is the least key's last slot, with no
 * second pass. Sixteen slots at a time, then four, then one. */
static inline __attribute__((always_inline)) uint32_t iscan(const int64_t *a, uint32_t end, int64_t cap,
							     bool capped, int64_t stop, bool stops, bool *stopped)
{
	const i64x4 c = splat4(cap), sk = splat4(stop);
	i64x4 best = splat4(INT64_MAX), slot = splat4(-1), at = {0, 1, 2, 3};
	uint32_t i = 0;
	*stopped = false;
#define ISTEP(k, off)                                                           \
	do {                                                                    \
		i64x4 take = ~((k) > best);                                     \
		best ^= (best ^ (k)) & take;                                    \
		slot ^= (slot ^ (at + (off))) & take;                           \
	} while (0)
	for (; i + IBLOCK <= end; i += IBLOCK, at += IBLOCK) {
		i64x4 k0 = load4(a + i), k1 = load4(a + i + 4);
		i64x4 k2 = load4(a + i + 8), k3 = load4(a + i + 12);
		if (capped) {
			k0 = cap4(k0, c), k1 = cap4(k1, c);
			k2 = cap4(k2, c), k3 = cap4(k3, c);
		}
		if (stops && any4((k0 == sk) | (k1 == sk) | (k2 == sk) | (k3 == sk)))
			break;
		ISTEP(k0, 0);
		ISTEP(k1, 4);
		ISTEP(k2, 8);
		ISTEP(k3, 12);
	}
	for (; i + 4 <= end; i += 4, at += 4) {
		i64x4 k0 = load4(a + i);
		if (capped)
			k0 = cap4(k0, c);
		if (stops && any4(k0 == sk))
			break;
		ISTEP(k0, 0);
	}
#undef ISTEP
	int64_t b = INT64_MAX, bs = -1;
	for (int l = 0; l < 4; l++)
		if (best[l] < b || (best[l] == b && slot[l] > bs))
			b = best[l], bs = slot[l];
	for (; i < end; i++) {
		int64_t v = capped ? cap1(a[i], cap) : a[i];
		if (stops && v == stop) {
			*stopped = true;
			return i;
		}
		if (v <= b)
			b = v, bs = i;
	}
	return (uint32_t)bs;
}

RT_WIDE static uint32_t iscan_capped(const int64_t *a, uint32_t end, int64_t cap, int64_t stop, bool *stopped)
{
	return iscan(a, end, cap, true, stop, true, stopped);
}

RT_WIDE static uint32_t iscan_plain(const int64_t *a, uint32_t end, int64_t cap, int64_t stop, bool *stopped)
{
	(void)cap;
	return iscan(a, end, INT64_MAX, false, stop, true, stopped);
}

/* LRU's: its stop, a last access of 0, never comes (the clock starts at 1
 * and never goes back, and a last access is a clock reading or RT_NEVER),
 * so it is not looked for. */
RT_WIDE static uint32_t iscan_last(const int64_t *a, uint32_t end, int64_t cap, int64_t stop, bool *stopped)
{
	(void)cap;
	return iscan(a, end, INT64_MAX, false, stop, false, stopped);
}

#define ISCAN(name, ARR, SCANNER, CAP, stop, generic)                           \
	static uint32_t name(struct runtime_state *rt)                          \
	{                                                                       \
		if (!pol_keys_narrow(rt))                                       \
			return generic(rt);                                     \
		bool stopped;                                                   \
		uint32_t end = pol_pool_end(rt);                                \
		uint32_t i = SCANNER(pol_pool_keys(rt).ARR, end, CAP, stop, &stopped); \
		uint64_t n = stopped ? pol_pool_members_upto(rt, i) : pol_pool_len(rt); \
		pol_count(rt, n, n);                                            \
		return pol_pool_member(rt, i);                                  \
	}

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
 * keys: SCAN without the gather or the 128-bit arithmetic, while no key is
 * wide. Holes (compute INT64_MAX, which no narrow key has) are skipped.
 * Costs here are never negative (compute, size and staleness are not).
 *
 * Most slots are settled without their division, in vectors of four:
 *  1. kscan, eight slots at a time, on the integer keys alone: slots with
 *     the best's compute and size are a tie or above best by their last
 *     access alone (see there). On the chain every member has the same
 *     keys, so this settles all but the slots that are a new best. Their
 *     ties are not recorded as they pass: once best is final, kscan_tie
 *     finds the latest from the end (a tie after the slot of the last new
 *     best is one with the final best; any other tie DOPEN leaves open, so
 *     DSLOT takes it).
 *  2. DOPEN, four slots at a time from where kscan stopped, up to a
 *     block it does not settle (kscan then resumes, unless it settled none:
 *     the pool's keys differ, as in the paper's logs): in doubles (keys below 2^52 convert exactly, by adding them to 2^52's
 *     bits), a slot whose num > best * (1 + 2^-40) * den is surely above
 *     best (the two roundings in computing the right side are far below
 *     2^-40, and den is the one rounding of size * staleness): neither
 *     taken nor 0. A real slot's last access is at most the clock
 *     (accesses read the clock, which never goes back), so clock - last
 *     is its staleness.
 *  3. DSLOT, one by one, exactly as SCAN: every slot while best is +inf;
 *     in a block with slots DOPEN did not settle (a possible new best or
 *     tie, a never-accessed one), those slots (the others are above best,
 *     which only falls).
 * The last few slots are tested as the last eight (kscan) or four, those
 * already passed left out. So the choice and the evaluations counted are
 * SCAN's. Before kscan, nearly every block of the chain's pool (equal
 * keys, equal last accesses, so ties with the best) took the scalar path:
 * the chain at n = 4,096 took 0.17-0.2 CPU s to replay under DTRLocal,
 * now about 0.05 (docs/scale.md).
 */
typedef double f64x4 __attribute__((vector_size(32)));
typedef uint64_t u64x4 __attribute__((vector_size(32)));

static inline __attribute__((always_inline)) f64x4 dbl4(i64x4 x)
{
	i64x4 b = x | splat4(INT64_C(0x4330000000000000));
	f64x4 d;
	memcpy(&d, &b, sizeof d);
	return d - (f64x4){0x1p52, 0x1p52, 0x1p52, 0x1p52};
}

static inline __attribute__((always_inline)) f64x4 fsplat4(double x)
{
	return (f64x4){x, x, x, x};
}

/* num and den of four slots (keys S, C and staleness ST) in doubles. */
#define VNUM_COMPUTE(S, C, ST) dbl4(C)
#define VNUM_ONE(S, C, ST) fsplat4(1)
#define VDEN_SIZE(S, C, ST) dbl4(S)
#define VDEN_STALE(S, C, ST) dbl4(ST)
#define VDEN_SIZE_STALE(S, C, ST) (dbl4(S) * dbl4(ST))

/* The slots of four from j not surely above best (vbm: best * (1 +
 * 2^-40)), or never accessed; not holes. */
#define DOPEN(j, VNUM, VDEN)                                                    \
	({                                                                      \
		i64x4 S = load4((const int64_t *)ps + (j));                     \
		i64x4 C = load4(pc + (j)), L = load4(pl + (j));                 \
		/* wrapping: never-accessed slots are open whatever it gives */ \
		i64x4 ST = (i64x4)((u64x4)clk - (u64x4)L);                      \
		(void)S;                                                        \
		(void)C;                                                        \
		(void)ST;                                                       \
		((L == never) | ~(VNUM(S, C, ST) > vbm * VDEN(S, C, ST))) & ~(C == hole); \
	})

/* The slots of four from j that the integer keys alone leave open (see
 * kscan), and those of them that tie with best's keys. */
#define KOPEN(j, STALE)                                                         \
	({                                                                      \
		i64x4 C_ = load4(pc + (j)), S_ = load4((const int64_t *)ps + (j)); \
		i64x4 same_ = (C_ == vbc) & (S_ == vbs);                        \
		if (STALE)                                                      \
			same_ &= ~(vbl > load4(pl + (j)));                      \
		~(same_ | (C_ == hole));                                        \
	})
#define KTIE(j, STALE)                                                          \
	({                                                                      \
		i64x4 same_ = (load4(pc + (j)) == vbc) & (load4((const int64_t *)ps + (j)) == vbs); \
		if (STALE)                                                      \
			same_ &= load4(pl + (j)) == vbl;                        \
		same_;                                                          \
	})

/*
 * From slot i, eight slots at a time while the integer keys alone settle
 * them: returns where it stopped (at the first eight with a slot not
 * settled; end when all are, the last few tested as the last eight).
 *
 * While best is finite and above 0, a slot whose compute and size are
 * best's (bc, bs) has best's fraction but for the staleness (the costs
 * here are f(compute, size) / staleness or f(compute, size), f > 0
 * then), so its last access L settles it, with no conversion:
 *  - L == best's (bl): the same fraction, a tie (and without staleness in
 *    the cost, any L);
 *  - L later than bl: staleness st below best's st_b, so its exact cost
 *    is +inf (st = 0) or at least best's times st_b / st >= 1 + 1 / st >=
 *    1 + 2^-50 (st_b is at most the clock, narrow); between doubles
 *    (costs here lie within 2^-100 and 2^50) a ratio of 1 + 2^-50 is
 *    over 4 ulps, so the rounded cost is above best: neither taken nor 0;
 *  - L earlier (a never-accessed slot among them): not settled.
 * Holes are settled. bc = INT64_MIN, which no compute is, stands for no
 * such best. On the chain every member has the same keys: eight slots
 * cost a few compares and no branch but the loop's.
 */
static inline __attribute__((always_inline)) uint32_t kscan(const uint64_t *ps, const int64_t *pc,
							     const int64_t *pl, uint32_t i, uint32_t end,
							     int64_t bc, int64_t bs, int64_t bl, bool stale)
{
	const i64x4 vbc = splat4(bc), vbs = splat4(bs), vbl = splat4(bl), hole = splat4(INT64_MAX);
	for (; i + 8 <= end; i += 8)
		if (any4(KOPEN(i, stale) | KOPEN(i + 4, stale)))
			return i;
	if (i < end && end >= 8) {
		const i64x4 from = splat4(i), at = splat4(end - 8) + (i64x4){0, 1, 2, 3};
		if (!any4((KOPEN(end - 8, stale) & ~(from > at)) | (KOPEN(end - 4, stale) & ~(from > at + 4))))
			return end;
	}
	return i;
}

/* The latest slot after lo (below end) whose keys tie with best's, or -1. */
static inline __attribute__((always_inline)) int64_t kscan_tie(const uint64_t *ps, const int64_t *pc,
								const int64_t *pl, uint32_t lo, uint32_t end,
								int64_t bc, int64_t bs, int64_t bl, bool stale)
{
	const i64x4 vbc = splat4(bc), vbs = splat4(bs), vbl = splat4(bl);
	uint32_t j = end;
	for (; j >= lo + 5; j -= 4) {
		i64x4 t = KTIE(j - 4, stale);
		if (any4(t))
			return j - 4 + (t[3] ? 3 : t[2] ? 2 : t[1] ? 1 : 0);
	}
	for (; j > lo + 1; j--)
		if (pc[j - 1] == bc && (int64_t)ps[j - 1] == bs && (!stale || pl[j - 1] == bl))
			return j - 1;
	return -1;
}

/* Slot j taken alone, exactly as SCAN takes it; a new best's keys kept for
 * kscan. */
#define DSLOT(j, VAL)                                                           \
	do {                                                                    \
		const uint32_t q = (j);                                         \
		if (pc[q] == INT64_MAX)                                         \
			break;                                                  \
		const struct rt_key kk = {ps[q], pc[q], pl[q]};                 \
		const struct rt_key *k = &kk;                                   \
		double v = VAL(k, clock, best);                                 \
		if (v <= best) { /* ties keep the later one */                  \
			best = v;                                               \
			bi = q;                                                 \
			vbm = fsplat4(best * (1 + 0x1p-40));                    \
			bool valid = v > 0 && v < INFINITY && pl[q] != RT_NEVER; \
			bc = valid ? pc[q] : INT64_MIN;                         \
			bs = (int64_t)ps[q];                                    \
			bl = pl[q];                                             \
		}                                                               \
		if (v == 0) {                                                   \
			n = pol_pool_members_upto(rt, q);                       \
			goto done;                                              \
		}                                                               \
	} while (0)

#define DSCAN(name, VAL, VNUM, VDEN, STALE, generic)                           \
	RT_WIDE static uint32_t name##_fast(struct runtime_state *rt)           \
	{                                                                       \
		const struct pol_keys pk = pol_pool_keys(rt);                   \
		const uint64_t *ps = pk.size;                                   \
		const int64_t *pc = pk.compute, *pl = pk.last;                  \
		const int64_t clock = pol_clock(rt);                            \
		const i64x4 clk = splat4(clock), hole = splat4(INT64_MAX);      \
		const i64x4 never = splat4(RT_NEVER), lane = {0, 1, 2, 3};      \
		double best = INFINITY;                                         \
		f64x4 vbm = fsplat4(INFINITY); /* best * (1 + 2^-40) */         \
		int64_t bc = INT64_MIN, bs = 0, bl = 0; /* best's keys */       \
		uint32_t bi = RT_NONE, end = pol_pool_end(rt), i = 0;           \
		uint64_t n = pol_pool_len(rt);                                  \
		bool keys = true; /* kscan settles slots of this pool */        \
		uint32_t kend = 0; /* the end of the last slots it settled */   \
		for (; i < end && !(best < INFINITY); i++)                      \
			DSLOT(i, VAL);                                          \
		while (i < end) {                                               \
			if (keys) {                                             \
				uint32_t i0 = i;                                \
				i = kscan(ps, pc, pl, i, end, bc, bs, bl, STALE); \
				keys = i != i0;                                 \
				if (keys)                                       \
					kend = i;                               \
				if (i == end)                                   \
					break;                                  \
			}                                                       \
			/* four at a time while none is open */                 \
			for (; i + 4 <= end && !any4(DOPEN(i, VNUM, VDEN)); i += 4) \
				;                                               \
			if (i == end)                                           \
				break;                                          \
			uint32_t j = i;                                         \
			if (i + 4 > end) {                                      \
				if (end < 4) {                                  \
					for (; i < end; i++)                    \
						DSLOT(i, VAL);                  \
					break;                                  \
				}                                               \
				j = end - 4; /* those before i left out */      \
			}                                                       \
			i64x4 o = DOPEN(j, VNUM, VDEN);                         \
			if (j < i)                                              \
				o &= ~(splat4(i) > splat4(j) + lane);          \
			i = j + 4;                                              \
			if (any4(o))                                            \
				for (uint32_t l = 0; l < 4; l++)                \
					if (o[l])                               \
						DSLOT(j + l, VAL);              \
		}                                                               \
		/* the latest tie of the keys with the final best among the    \
		 * slots kscan settled (the others' ties are in bi) */          \
		if (bc != INT64_MIN && kend > bi + 1) {                         \
			int64_t t = kscan_tie(ps, pc, pl, bi, kend, bc, bs, bl, STALE); \
			if (t >= 0)                                             \
				bi = (uint32_t)t;                               \
		}                                                               \
	done:                                                                   \
		pol_count(rt, n, n);                                            \
		return pol_pool_member(rt, bi);                                 \
	}                                                                       \
	static uint32_t name(struct runtime_state *rt)                          \
	{                                                                       \
		if (!pol_keys_narrow(rt))                                       \
			return generic(rt);                                     \
		return name##_fast(rt);                                         \
	}

/*
 * LargestStorage and AbSize: 1 / size, +inf for size 0, never 0: the
 * largest size, ties to the later one (sizes of at most 2^50 have distinct
 * reciprocals). Holes hold size 0; a best of 0 means no member has a
 * nonzero size, left to the plain scan.
 */
static uint32_t choose_largest_generic(struct runtime_state *rt);
/* The last slot of the largest of a[0..end) (narrow sizes, as int64),
 * or RT_NONE if all are 0. */
RT_WIDE static uint32_t lscan(const int64_t *a, uint32_t end)
{
	i64x4 best = splat4(0);
	uint32_t i = 0;
	for (; i + IBLOCK <= end; i += IBLOCK) {
		i64x4 m = min4(min4(-load4(a + i), -load4(a + i + 4)),
			       min4(-load4(a + i + 8), -load4(a + i + 12)));
		best = min4(best, m);
	}
	int64_t b = 0;
	for (int l = 0; l < 4; l++)
		b = -best[l] > b ? -best[l] : b;
	for (; i < end; i++)
		b = a[i] > b ? a[i] : b;
	if (b == 0)
		return RT_NONE;
	return last_slot(a, end, INT64_MAX, b); /* sizes: no cap, holes 0 */
}

static uint32_t choose_largest(struct runtime_state *rt)
{
	if (pol_keys_wide(rt))
		return choose_largest_generic(rt);
	/* sizes are at most 2^50 here: as int64 they order the same */
	uint32_t i = lscan((const int64_t *)pol_pool_keys(rt).size, pol_pool_end(rt));
	if (i == RT_NONE)
		return choose_largest_generic(rt);
	pol_count(rt, pol_pool_len(rt), pol_pool_len(rt));
	return pol_pool_member(rt, i);
}

SCAN(choose_dtr, h_dtr)
SCAN(choose_dtr_eqclass, h_dtr_eqclass)
SCAN(choose_dtr_local_generic, h_dtr_local)
DSCAN(choose_dtr_local, VAL_LOCAL_SIZE_STALE, VNUM_COMPUTE, VDEN_SIZE_STALE, true,
      choose_dtr_local_generic)
SCAN(choose_msps, h_msps)
SCAN(choose_lru_generic, h_lru)
ISCAN(choose_lru, last, iscan_last, INT64_MAX, 0, choose_lru_generic)
SCAN(choose_largest_generic, h_largest)
SCAN(choose_dtr_unopt, h_dtr_unopt)
SCAN(choose_ab_e_size, h_ab_e_size)
SCAN(choose_ab_e_stale, h_ab_e_stale)
SCAN(choose_ab_e, h_ab_e)
SCAN(choose_ab_eq_size, h_ab_eq_size)
SCAN(choose_ab_eq_stale, h_ab_eq_stale)
SCAN(choose_ab_eq, h_ab_eq)
SCAN(choose_ab_local_size_generic, h_ab_local_size)
DSCAN(choose_ab_local_size, VAL_LOCAL_SIZE, VNUM_COMPUTE, VDEN_SIZE, false,
      choose_ab_local_size_generic)
SCAN(choose_ab_local_stale_generic, h_ab_local_stale)
DSCAN(choose_ab_local_stale, VAL_LOCAL_STALE, VNUM_COMPUTE, VDEN_STALE, true,
      choose_ab_local_stale_generic)
SCAN(choose_ab_local_generic, h_ab_local)
ISCAN(choose_ab_local, compute, iscan_plain, INT64_MAX, 0, choose_ab_local_generic)
SCAN(choose_ab_size_stale_generic, h_ab_size_stale)
DSCAN(choose_ab_size_stale, VAL_SIZE_STALE, VNUM_ONE, VDEN_SIZE_STALE, true,
      choose_ab_size_stale_generic)
SCAN(choose_ab_stale_generic, h_ab_stale)
ISCAN(choose_ab_stale, last, iscan_capped, pol_clock(rt), RT_NEVER, choose_ab_stale_generic)

/* h_rand: a uniformly random pool member (one evaluation, one access). */
static uint32_t choose_random(struct runtime_state *rt)
{
	pol_count(rt, 1, 1);
	uint64_t k = pol_draw(rt, pol_pool_len(rt));
	return pol_pool_nth(rt, k);
}

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
		.choose = choose_dtr,
	},
	{
		.name = "DTREqClass",
		.label = "h_DTR^eq",
		.tex_label = "h_{DTR}^{eq}",
		.family = FAMILY_PAPER,
		.cost = "eq(s) / (size(s) * staleness(s))",
		.color = "#4169e1", .marker = 13,
		.needs = Q,
		.choose = choose_dtr_eqclass,
	},
	{
		.name = "DTRLocal",
		.label = "h_DTR^local",
		.tex_label = "h_{DTR}^{local}",
		.family = FAMILY_PAPER,
		.cost = "compute(s) / (size(s) * staleness(s))",
		.color = "#663399", .marker = 7,
		.needs = 0,
		.choose = choose_dtr_local,
	},
	{
		.name = "MSPS",
		.label = "h_MSPS",
		.tex_label = "h_{MSPS}",
		.family = FAMILY_PAPER,
		.cost = "(compute(s) + compute of its evicted ancestors' region) / size(s)",
		.color = "#00b3b3", .marker = 11,
		.needs = R,
		.choose = choose_msps,
	},
	{
		.name = "LRU",
		.label = "h_LRU",
		.tex_label = "h_{LRU}",
		.family = FAMILY_PAPER,
		.cost = "last_access(s): the least recently used goes first",
		.color = "#ffa500", .marker = 9,
		.needs = 0,
		.choose = choose_lru,
	},
	{
		.name = "LargestStorage",
		.label = "h_size",
		.tex_label = "h_{size}",
		.family = FAMILY_PAPER,
		.cost = "1 / size(s): the largest goes first",
		.color = "#ff0000", .marker = 5,
		.needs = 0,
		.choose = choose_largest,
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
		.choose = choose_dtr_unopt,
	},
	{
		.name = "AbESizeStale",
		.label = "e*, size, staleness",
		.tex_label = "size and staleness",
		.family = FAMILY_ESTAR,
		.cost = "e*(s) / (size(s) * staleness(s))",
		.color = "#008000", .marker = 3,
		.needs = R,
		.choose = choose_dtr,
	},
	{
		.name = "AbESize",
		.label = "e*, size, no staleness",
		.tex_label = "size",
		.family = FAMILY_ESTAR,
		.cost = "e*(s) / size(s)",
		.color = "#0000ff", .marker = 13,
		.needs = R,
		.choose = choose_ab_e_size,
	},
	{
		.name = "AbEStale",
		.label = "e*, no size, staleness",
		.tex_label = "staleness",
		.family = FAMILY_ESTAR,
		.cost = "e*(s) / staleness(s)",
		.color = "#ffa500", .marker = 9,
		.needs = R,
		.choose = choose_ab_e_stale,
	},
	{
		.name = "AbE",
		.label = "e*, no size, no staleness",
		.tex_label = "no size, no staleness",
		.family = FAMILY_ESTAR,
		.cost = "e*(s)",
		.color = "#ff0000", .marker = 2,
		.needs = R,
		.choose = choose_ab_e,
	},
	{
		.name = "AbEqSizeStale",
		.label = "EqClass, size, staleness",
		.tex_label = "size and staleness",
		.family = FAMILY_EQ,
		.cost = "eq(s) / (size(s) * staleness(s))",
		.color = "#008000", .marker = 3,
		.needs = Q,
		.choose = choose_dtr_eqclass,
	},
	{
		.name = "AbEqSize",
		.label = "EqClass, size, no staleness",
		.tex_label = "size",
		.family = FAMILY_EQ,
		.cost = "eq(s) / size(s)",
		.color = "#0000ff", .marker = 13,
		.needs = Q,
		.choose = choose_ab_eq_size,
	},
	{
		.name = "AbEqStale",
		.label = "EqClass, no size, staleness",
		.tex_label = "staleness",
		.family = FAMILY_EQ,
		.cost = "eq(s) / staleness(s)",
		.color = "#ffa500", .marker = 9,
		.needs = Q,
		.choose = choose_ab_eq_stale,
	},
	{
		.name = "AbEq",
		.label = "EqClass, no size, no staleness",
		.tex_label = "no size, no staleness",
		.family = FAMILY_EQ,
		.cost = "eq(s)",
		.color = "#ff0000", .marker = 2,
		.needs = Q,
		.choose = choose_ab_eq,
	},
	{
		.name = "AbLocalSizeStale",
		.label = "local, size, staleness",
		.tex_label = "size and staleness",
		.family = FAMILY_LOCAL,
		.cost = "compute(s) / (size(s) * staleness(s))",
		.color = "#008000", .marker = 3,
		.needs = 0,
		.choose = choose_dtr_local,
	},
	{
		.name = "AbLocalSize",
		.label = "local, size, no staleness",
		.tex_label = "size",
		.family = FAMILY_LOCAL,
		.cost = "compute(s) / size(s)",
		.color = "#0000ff", .marker = 13,
		.needs = 0,
		.choose = choose_ab_local_size,
	},
	{
		.name = "AbLocalStale",
		.label = "local, no size, staleness",
		.tex_label = "staleness",
		.family = FAMILY_LOCAL,
		.cost = "compute(s) / staleness(s)",
		.color = "#ffa500", .marker = 9,
		.needs = 0,
		.choose = choose_ab_local_stale,
	},
	{
		.name = "AbLocal",
		.label = "local, no size, no staleness",
		.tex_label = "no size, no staleness",
		.family = FAMILY_LOCAL,
		.cost = "compute(s)",
		.color = "#ff0000", .marker = 2,
		.needs = 0,
		.choose = choose_ab_local,
	},
	{
		.name = "AbSizeStale",
		.label = "no cost, size, staleness",
		.tex_label = "size and staleness",
		.family = FAMILY_NOCOST,
		.cost = "1 / (size(s) * staleness(s))",
		.color = "#008000", .marker = 3,
		.needs = 0,
		.choose = choose_ab_size_stale,
	},
	{
		.name = "AbSize",
		.label = "no cost, size, no staleness",
		.tex_label = "size",
		.family = FAMILY_NOCOST,
		.cost = "1 / size(s)",
		.color = "#0000ff", .marker = 13,
		.needs = 0,
		.choose = choose_largest,
	},
	{
		.name = "AbStale",
		.label = "no cost, no size, staleness",
		.tex_label = "staleness",
		.family = FAMILY_NOCOST,
		.cost = "1 / staleness(s)",
		.color = "#ffa500", .marker = 9,
		.needs = 0,
		.choose = choose_ab_stale,
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
		.choose = rt_proto_choose,
	},
};
#undef R
#undef Q

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
