/*
 * runtime-arith.c: exact arithmetic for the runtime and the heuristics:
 * rt_div, a correctly rounded int64 / int128 division (Python's int / int),
 * which the costs' ratios and the overhead go through so that they round
 * as the reference's doubles do.
 */
#include <math.h>
#include <stdint.h>

#include "runtime-arith.h"

/* ---- exact arithmetic ------------------------------------------------ */

static int bitlen128(unsigned __int128 x)
{
	uint64_t hi = (uint64_t)(x >> 64);
	if (hi)
		return 128 - __builtin_clzll(hi);
	uint64_t lo = (uint64_t)x;
	return lo ? 64 - __builtin_clzll(lo) : 0;
}

/* Correctly rounded a / b for a >= 0, b > 0, as CPython's int / int. */
static double div_unsigned(uint64_t a, unsigned __int128 b)
{
	const unsigned __int128 two53 = (unsigned __int128)1 << 53;
	if (a == 0)
		return 0.0;
	if (a <= two53 && b <= two53)
		return (double)a / (double)(uint64_t)b;
	int la = 64 - __builtin_clzll(a) - 1;
	int lb = bitlen128(b) - 1;
	if (lb > 70) /* not reached by real logs; good to ~1 ulp */
		return (double)((long double)a / (long double)b);
	/* Scale so that the integer quotient has 55 or 56 bits. */
	int k = 55 - (la - lb);
	unsigned __int128 num = a, den = b;
	if (k >= 0)
		num <<= k;
	else
		den <<= -k;
	unsigned __int128 q = num / den, r = num % den;
	int drop = bitlen128(q) - 53;
	uint64_t qq = (uint64_t)q;
	uint64_t mant = qq >> drop, rem = qq & ((1ULL << drop) - 1);
	uint64_t half = 1ULL << (drop - 1);
	if (rem > half || (rem == half && (r != 0 || (mant & 1))))
		mant++;
	return ldexp((double)mant, drop - k);
}

double rt_div(int64_t num, unsigned __int128 den)
{
	if (num < 0)
		return -div_unsigned((uint64_t)0 - (uint64_t)num, den);
	return div_unsigned((uint64_t)num, den);
}

