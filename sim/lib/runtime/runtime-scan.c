/*
 * runtime-scan.c: how the runtime asks a heuristic for its choice
 * (rt_choose), and the fast scans behind the rows that name a key
 * (runtime-scan.h): the lowest cost over the pool computed from the pool's
 * key arrays in 4-lane vectors, as integers where they order and tie as
 * the reference's costs, in doubles settled a block at a time otherwise.
 * Owns the scan part of struct runtime_state (the keys' width, the plain
 * switch, the random heuristics' generator) and reads the pool's arrays,
 * whose hole encoding (size 0, compute and last INT64_MAX) it shares with
 * runtime-commands.c; heuristics never see them.
 *
 * Every fast scan chooses what the row's plain loop (heuristics.c) would,
 * with the same evaluations and accesses counted: SPEED-ONLY
 * (docs/architecture.md). runtime_test_switches.plain_scans makes every choice by
 * the plain loop; test-heuristics and test-differential compare the two.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "heuristics.h"
#include "pyrandom.h"
#include "runtime-choose.h"
#include "runtime-commands.h"
#include "runtime-order.h"
#include "runtime-scan.h"
#include "runtime-state.h"

/* Whether a key may ever be wide (struct rt_scan), known from the
 * schedule: a storage is at most its op's total output, and its compute is
 * a sum of distinct op costs (non-negative: the reader refuses others), so
 * at most their total. Last accesses are clock readings, which the scans
 * check themselves. */
static bool keys_may_be_wide(const struct schedule *s)
{
	return s->total_compute > RT_NARROW || s->max_output_size > (uint64_t)RT_NARROW;
}

void rt_scan_init(struct runtime_state *rt)
{
	const struct runtime_config *cfg = rt->cfg;
	/* SPEED-ONLY: integer scans while no key can pass 2^50, else the
	 * double ones (test-differential's wide_keys_agree forces them). */
	rt->scan.wide = keys_may_be_wide(rt->s);
	rt->scan.plain = rt->test->plain_scans;
	rt->scan.rng = cfg->seed;
	if (cfg->python_random) {
		rt->scan.pyrng = xmalloc(sizeof *rt->scan.pyrng);
		py_random_seed(rt->scan.pyrng, cfg->seed);
	}
	/* SPEED-ONLY: kept costs (struct rt_costs) for the rows whose cost
	 * reads no clock; V1's banishing changes the graph under the regions
	 * by paths of its own, so it scores every member as the reference. */
	const struct heuristic *h = rt->h;
	if (h && h->clock_free && h->score && !rt->test->plain_scans && !rt->test->no_kept_costs && !rt->pool.off && !rt->v1) {
		size_t n = rt->s->n_storages + 1;
		rt->costs.on = rt->costs.all = true; /* limit 0: all, at the first choice */
		rt->costs.marked = xcalloc(n, 1);
		rt->costs.list = xmalloc(n * sizeof *rt->costs.list);
	}
}

void rt_scan_free(struct runtime_state *rt)
{
	free(rt->scan.pyrng);
	free(rt->costs.val);
	free(rt->costs.marked);
	free(rt->costs.list);
}

/* Whether every key and the clock are within RT_NARROW, where the integer
 * and double scans of last accesses and staleness are exact; otherwise
 * the row's own loop. */
static inline bool keys_narrow(const struct runtime_state *rt)
{
	return !rt->scan.wide && rt->clock >= 0 && rt->clock <= RT_NARROW;
}

static inline void count(struct runtime_state *rt, uint64_t n)
{
	rt->res->heuristic_evals += n;
	rt->res->heuristic_accesses += n;
}

/*
 * The choice of a heuristic whose cost orders as one integer key of the
 * pool's key arrays, lowest first: LRU (the last access), AbLocal (the
 * compute), AbStale (1 / (clock - last): the last access, capped at the
 * clock where the cost is +inf, RT_NEVER costing 0). While no key is wide
 * (RT_NARROW, runtime-arith.h) the integers order and tie exactly as the reference's
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

/* The choice of a row whose key is one of the pool's integer keys; RT_NONE
 * where the keys are not narrow. */
#define ISCAN(name, ARR, SCANNER, CAP, stop)                                    \
	static uint32_t name(struct runtime_state *rt)                          \
	{                                                                       \
		if (!keys_narrow(rt))                                           \
			return RT_NONE;                                         \
		bool stopped;                                                   \
		uint32_t end = rt->pool.end;                                    \
		uint32_t i = SCANNER(rt->pool.ARR, end, CAP, stop, &stopped);   \
		uint64_t n = stopped ? rt_pool_members_upto(rt, i) : rt->pool.len; \
		count(rt, n);                                                   \
		return rt->pool.slot[i];                                        \
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
	struct rt_frac c = {num, den};
	if (rt_frac_surely_above(c, best))
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
 * keys: the row's loop without the gather or the 128-bit arithmetic,
 * while no key is wide. Holes (compute INT64_MAX, which no narrow key has) are skipped.
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
 *  3. DSLOT, one by one, exactly as the row's loop: every slot while best is +inf;
 *     in a block with slots DOPEN did not settle (a possible new best or
 *     tie, a never-accessed one), those slots (the others are above best,
 *     which only falls).
 * The last few slots are tested as the last eight (kscan) or four, those
 * already passed left out. So the choice and the evaluations counted are
 * the row's loop's. Before kscan, nearly every block of the chain's pool (equal
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

/* Slot j taken alone, exactly as the row's loop takes it; a new best's keys kept for
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
			n = rt_pool_members_upto(rt, q);                        \
			goto done;                                              \
		}                                                               \
	} while (0)

/* The choice of a row whose key is such a fraction; RT_NONE where the keys
 * are not narrow. */
#define DSCAN(name, VAL, VNUM, VDEN, STALE)                                     \
	RT_WIDE static uint32_t name##_fast(struct runtime_state *rt)           \
	{                                                                       \
		const uint64_t *ps = rt->pool.size;                             \
		const int64_t *pc = rt->pool.compute, *pl = rt->pool.last;      \
		const int64_t clock = rt->clock;                                \
		const i64x4 clk = splat4(clock), hole = splat4(INT64_MAX);      \
		const i64x4 never = splat4(RT_NEVER), lane = {0, 1, 2, 3};      \
		double best = INFINITY;                                         \
		f64x4 vbm = fsplat4(INFINITY); /* best * (1 + 2^-40) */         \
		int64_t bc = INT64_MIN, bs = 0, bl = 0; /* best's keys */       \
		uint32_t bi = RT_NONE, end = rt->pool.end, i = 0;               \
		uint64_t n = rt->pool.len;                                      \
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
		count(rt, n);                                                   \
		return rt->pool.slot[bi];                                       \
	}                                                                       \
	static uint32_t name(struct runtime_state *rt)                          \
	{                                                                       \
		return keys_narrow(rt) ? name##_fast(rt) : RT_NONE;             \
	}

/*
 * LargestStorage and AbSize: 1 / size, +inf for size 0, never 0: the
 * largest size, ties to the later one (sizes of at most 2^50 have distinct
 * reciprocals). Holes hold size 0; a best of 0 means no member has a
 * nonzero size, left to the row's loop.
 */
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

static uint32_t scan_per_size(struct runtime_state *rt)
{
	if (rt->scan.wide)
		return RT_NONE;
	/* sizes are at most 2^50 here: as int64 they order the same */
	uint32_t i = lscan((const int64_t *)rt->pool.size, rt->pool.end);
	if (i == RT_NONE)
		return RT_NONE;
	count(rt, rt->pool.len);
	return rt->pool.slot[i];
}

ISCAN(scan_last_keys, last, iscan_last, INT64_MAX, 0)
ISCAN(scan_compute, compute, iscan_plain, INT64_MAX, 0)
ISCAN(scan_per_stale, last, iscan_capped, rt->clock, RT_NEVER)
DSCAN(scan_per_size_stale, VAL_SIZE_STALE, VNUM_ONE, VDEN_SIZE_STALE, true)
DSCAN(scan_compute_per_size, VAL_LOCAL_SIZE, VNUM_COMPUTE, VDEN_SIZE, false)
DSCAN(scan_compute_per_stale, VAL_LOCAL_STALE, VNUM_COMPUTE, VDEN_STALE, true)
DSCAN(scan_compute_per_size_stale_keys, VAL_LOCAL_SIZE_STALE, VNUM_COMPUTE, VDEN_SIZE_STALE, true)

/*
 * The choices from the ordered pool (runtime-order.c), while the keys are
 * narrow: LRU's is the first of its first run (the oldest last access, the
 * later slot among equals), every member counted as the scan counts them.
 */
static uint32_t scan_last(struct runtime_state *rt)
{
	if (!keys_narrow(rt) || !rt_order_ready(rt))
		return scan_last_keys(rt);
	count(rt, rt->pool.len);
	rt_order_chose(rt);
	rt->res->ordered_choices++;
	return rt->ord.runs[rt->ord.g[0].head].first;
}

/*
 * DTRLocal's: each group's first is the group's choice (runtime-order.c),
 * so the lowest of their costs, ties to the later slot, is the plain
 * loop's, every member counted. Not where a cost can be 0 (a compute of
 * 0, a member never accessed: the plain loop stops at the first such in
 * slot order) or a size is 0 (every cost of the group +inf, the later
 * slot's taken): then the scan of the keys. A member never accessed is
 * its group's top (RT_NEVER is the oldest).
 */
static uint32_t scan_compute_per_size_stale(struct runtime_state *rt)
{
	struct rt_order *o = &rt->ord;
	if (!keys_narrow(rt) || !rt_order_ready(rt))
		return scan_compute_per_size_stale_keys(rt);
	const int64_t clock = rt->clock;
	double best = INFINITY;
	uint32_t bi = RT_NONE, bpos = 0, groups = 0;
	for (uint32_t g = 0; g < o->n_groups; g++) {
		const struct rt_ogroup *G = &o->g[g];
		if (G->head == RT_NONE)
			continue;
		if (G->compute == 0 || G->size == 0 || o->runs[G->head].last == RT_NEVER) {
			/* the scan and the key arrays' refresh are on the ordered pool */
			o->credit -= (int64_t)(rt->pool.end / 2) + 1;
			rt_pool_keys_refresh(rt);
			return scan_compute_per_size_stale_keys(rt);
		}
		groups++;
		bi = o->runs[G->head].first;
	}
	if (groups > 1) /* else the one group's first, whatever its cost */
		bi = RT_NONE;
	for (uint32_t g = 0; g < o->n_groups && groups > 1; g++) {
		const struct rt_ogroup *G = &o->g[g];
		if (G->head == RT_NONE)
			continue;
		const struct rt_orun *R = &o->runs[G->head];
		const struct rt_key kk = {G->size, G->compute, R->last}, *k = &kk;
		double v = VAL_LOCAL_SIZE_STALE(k, clock, best);
		uint32_t s = R->first, pos = rt->st[s].pool_pos;
		if (v < best || (v == best && (bi == RT_NONE || pos > bpos)))
			best = v, bi = s, bpos = pos;
	}
	count(rt, rt->pool.len);
	rt_order_chose(rt);
	rt->res->ordered_choices++;
	return bi;
}

static uint32_t (*const key_scan[SCAN_KEY_COUNT])(struct runtime_state *rt) = {
	[SCAN_LAST] = scan_last,
	[SCAN_COMPUTE] = scan_compute,
	[SCAN_PER_STALE] = scan_per_stale,
	[SCAN_PER_SIZE] = scan_per_size,
	[SCAN_PER_SIZE_STALE] = scan_per_size_stale,
	[SCAN_COMPUTE_PER_SIZE] = scan_compute_per_size,
	[SCAN_COMPUTE_PER_STALE] = scan_compute_per_stale,
	[SCAN_COMPUTE_PER_SIZE_STALE] = scan_compute_per_size_stale,
};

/* The cost of member s as the plain loop reads it. */
static inline double kept_cost(struct runtime_state *rt, uint32_t s)
{
	return rt_frac_value(rt->h->score(rt_policy(rt), s, &rt->key[s]));
}

/* Check mode: every member's kept cost is its cost now, bit for bit. */
static void costs_check(struct runtime_state *rt)
{
	const struct rt_pool *p = &rt->pool;
	for (uint32_t i = 0; i < p->end; i++) {
		uint32_t s = p->slot[i];
		double v = rt->costs.val[i];
		if (s == RT_NONE ? !isnan(v) : memcmp(&v, &(double){kept_cost(rt, s)}, sizeof v) != 0)
			rt_bug_at(rt, s == RT_NONE ? "a hole has a kept cost" : "a kept cost is stale", s);
	}
}

/*
 * SPEED-ONLY: the choice from the kept costs (struct rt_costs): the marked
 * members' costs computed first, then the plain loop's rule over the array
 * (heuristics.c, lowest_cost): the lowest cost, a tie to the later slot,
 * a cost of exactly 0 at once, and as many evaluations and accesses as
 * that loop makes. Holes are NaN, which neither test takes.
 */
static uint32_t choose_kept(struct runtime_state *rt)
{
	struct rt_costs *c = &rt->costs;
	const struct rt_pool *p = &rt->pool;
	for (uint32_t k = 0; k < c->n; k++) {
		uint32_t s = c->list[k];
		c->marked[s] = 0;
		if (!c->all && rt->st[s].in_pool)
			c->val[rt->st[s].pool_pos] = kept_cost(rt, s);
	}
	if (c->all)
		for (uint32_t i = 0; i < p->end; i++)
			c->val[i] = p->slot[i] == RT_NONE ? NAN : kept_cost(rt, p->slot[i]);
	c->n = 0;
	c->all = false;
	c->marking = true;
	/* past this many marks, computing them all costs less */
	c->limit = (uint32_t)(p->len < rt->s->n_storages ? p->len : rt->s->n_storages);
	if (rt->cfg->check)
		costs_check(rt);
	const double *val = c->val;
	double best = INFINITY;
	uint32_t at = RT_NONE, i;
	for (i = 0; i < p->end; i++) {
		double v = val[i];
		if (v <= best) {
			best = v;
			at = i;
		}
		if (v == 0)
			break;
	}
	count(rt, i < p->end ? rt_pool_members_upto(rt, i) : p->len);
	rt->res->kept_choices++;
	return at == RT_NONE ? RT_NONE : p->slot[at];
}

uint32_t rt_choose(struct runtime_state *rt)
{
	const struct heuristic *h = rt->h;
	/* LRU from its ordered pool (scan_last), without the calls */
	if (rt->ord.on && !rt->ord.grouped && keys_narrow(rt)) {
		count(rt, rt->pool.len);
		rt_order_chose(rt);
		rt->res->ordered_choices++;
		return rt->ord.runs[rt->ord.g[0].head].first;
	}
	if (rt->costs.on)
		return choose_kept(rt);
	if (rt->scan.plain)
		return heuristic_choose_plain(rt_policy(rt), h);
	if (h->key != SCAN_NONE && (unsigned)h->key < SCAN_KEY_COUNT) {
		uint32_t s = key_scan[h->key](rt);
		if (s != RT_NONE)
			return s;
	}
	return h->choose(rt_policy(rt));
}
