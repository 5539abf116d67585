/*
 * runtime-arith.h: the runtime's exact arithmetic on keys and costs, what
 * the heuristics compute with (policy.h includes it; the state's layout
 * stays out of a heuristic's view): a storage's key (struct rt_key), a
 * cost as the reference's fraction (struct rt_frac) and its value, the
 * wrapping sums of computes, and the two sentinels, RT_NONE (no storage,
 * no choice) and RT_NEVER (a last access that never happened). rt_div is
 * runtime-arith.c's.
 */
#ifndef REMATSIM_RUNTIME_ARITH_H
#define REMATSIM_RUNTIME_ARITH_H

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#define RT_NONE UINT32_MAX
#define RT_NEVER INT64_MIN /* last access "-inf" */

/* What costs read: a storage's key (policy.h hands it to a heuristic as
 * it is). */
struct rt_key {
	uint64_t size;        /* bytes */
	int64_t compute;      /* cost of the distinct ops of its tensors so far */
	int64_t last;         /* last access (the reference's last_access_int) */
};

/* A region's compute can only grow by absorbs (the reference adds the
 * absorbed storage even if it is already inside), without bound in
 * principle: such sums wrap instead of overflowing (never in a real log). */
static inline int64_t rt_wadd(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* Keys within 2^50 are exact as doubles, and so are their reciprocals'
 * orders and ties (a relative gap of over 2^-50 between 1/a and 1/b,
 * wider than an ulp): see the integer scans in runtime-scan.c. */
#define RT_NARROW (INT64_C(1) << 50)

/** Correctly rounded num / den (as Python's int / int). den > 0. */
double rt_div(int64_t num, unsigned __int128 den);

/* A cost as the reference computes it: an integer numerator over an
 * integer denominator, den == 0 meaning +inf. */
struct rt_frac {
	int64_t num;
	unsigned __int128 den;
};

/** The value of a cost, exactly as the reference's float (one correctly
 * rounded division). */
static inline double rt_frac_value(struct rt_frac c)
{
	if (c.den == 0)
		return INFINITY;
	if (c.den == 1)
		return (double)c.num;
	return rt_div(c.num, c.den);
}

/*
 * SPEED-ONLY: whether cost c is surely above best (a positive finite
 * double), without the exact division: the double estimate num /
 * (double)den is within a few ulps of the exact quotient, so a margin of 8
 * ulps decides. False says nothing.
 */
static inline bool rt_frac_surely_above(struct rt_frac c, double best)
{
	if (c.den <= 1 || c.num <= 0 || !(best > 0) || isinf(best))
		return false;
	/* (double) of an unsigned __int128 is a libgcc call: the same
	 * correctly rounded value from 64 bits where the high half is 0 */
	double den = (uint64_t)(c.den >> 64) ? (double)c.den : (double)(uint64_t)c.den;
	double est = (double)c.num / den;
	return est > best * (1 + 8 * DBL_EPSILON);
}

#endif
