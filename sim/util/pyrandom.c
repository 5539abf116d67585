/*
 * pyrandom.c: MT19937 as CPython's random module seeds and reads it (see
 * pyrandom.h). Written from the generator's published definition and
 * CPython's documented seeding; checked against Python's own outputs in
 * tests/test-gen.c (py_random_matches_python).
 */
#include "pyrandom.h"

enum { MT_N = 624, MT_M = 397 };

static void seed_one(struct py_random *r, uint32_t s)
{
	r->mt[0] = s;
	for (uint32_t i = 1; i < MT_N; i++)
		r->mt[i] = 1812433253u * (r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) + i;
	r->idx = MT_N;
}

void py_random_seed(struct py_random *r, uint64_t seed)
{
	uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
	uint32_t len = seed >> 32 ? 2 : 1;
	seed_one(r, 19650218u);
	uint32_t i = 1, j = 0;
	for (uint32_t k = MT_N > len ? MT_N : len; k; k--) {
		r->mt[i] = (r->mt[i] ^ ((r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) * 1664525u)) + key[j] + j;
		if (++i >= MT_N) {
			r->mt[0] = r->mt[MT_N - 1];
			i = 1;
		}
		if (++j >= len)
			j = 0;
	}
	for (uint32_t k = MT_N - 1; k; k--) {
		r->mt[i] = (r->mt[i] ^ ((r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) * 1566083941u)) - i;
		if (++i >= MT_N) {
			r->mt[0] = r->mt[MT_N - 1];
			i = 1;
		}
	}
	r->mt[0] = 0x80000000u;
}

static uint32_t next32(struct py_random *r)
{
	if (r->idx >= MT_N) {
		for (unsigned k = 0; k < MT_N; k++) {
			uint32_t y = (r->mt[k] & 0x80000000u) | (r->mt[(k + 1) % MT_N] & 0x7fffffffu);
			r->mt[k] = r->mt[(k + MT_M) % MT_N] ^ (y >> 1) ^ (y & 1 ? 0x9908b0dfu : 0);
		}
		r->idx = 0;
	}
	uint32_t y = r->mt[r->idx++];
	y ^= y >> 11;
	y ^= (y << 7) & 0x9d2c5680u;
	y ^= (y << 15) & 0xefc60000u;
	y ^= y >> 18;
	return y;
}

uint64_t py_random_bits(struct py_random *r, unsigned bits)
{
	if (bits <= 32)
		return next32(r) >> (32 - bits);
	/* CPython fills 32-bit words least significant first, the last one
	 * shifted down to the bits left. */
	uint64_t lo = next32(r);
	return lo | (uint64_t)(next32(r) >> (64 - bits)) << 32;
}

uint64_t py_random_below(struct py_random *r, uint64_t n)
{
	unsigned bits = 64 - (unsigned)__builtin_clzll(n);
	uint64_t x;
	do
		x = py_random_bits(r, bits);
	while (x >= n);
	return x;
}
