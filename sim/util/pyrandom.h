/*
 * pyrandom.h: Python's `random` generator as the reference simulator uses
 * it, so that a replay can make simrd's random draws, draw for draw.
 *
 * MT19937 (Matsumoto and Nishimura, 1998), seeded as CPython's
 * random.seed(k) seeds it for a whole number k (init_by_array over the
 * 32-bit words of k, least significant first; [0] for 0), and
 * randrange(0, n) as CPython's _randbelow draws: with b the bit length of
 * n, getrandbits(b) until the result is below n.
 */
#ifndef REMATSIM_PYRANDOM_H
#define REMATSIM_PYRANDOM_H

#include <stdint.h>

struct py_random {
	uint32_t mt[624];
	unsigned idx;
};

/** As Python's random.seed(seed). */
void py_random_seed(struct py_random *r, uint64_t seed);

/** As Python's random.getrandbits(bits), 0 < bits <= 64. */
uint64_t py_random_bits(struct py_random *r, unsigned bits);

/** As Python's random.randrange(0, n), n >= 1. */
uint64_t py_random_below(struct py_random *r, uint64_t n);

#endif
