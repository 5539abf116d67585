/*
 * hash.h: the project's one FNV-1a, one splitmix64 and one hex formatter.
 * Seeds of experiment trials, the config hash, the random heuristics'
 * choices and the logger's demo weights all come from these, so changing
 * a constant here changes recorded numbers: tests pin them
 * (test-heuristics: random choices; test-experiment: trial seeds).
 */
#ifndef REMATSIM_HASH_H
#define REMATSIM_HASH_H

#include <stddef.h>
#include <stdint.h>

/** 64-bit FNV-1a of len bytes, continuing from h (start with FNV1A64_INIT). */
#define FNV1A64_INIT 0xcbf29ce484222325ull
static inline uint64_t fnv1a64(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/** splitmix64's output for state x: x + golden gamma, then the finalizer. */
static inline uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/** The next number of the splitmix64 generator whose state is *state. */
static inline uint64_t splitmix64_next(uint64_t *state)
{
	uint64_t z = splitmix64(*state);
	*state += 0x9e3779b97f4a7c15ull;
	return z;
}

/** n bytes as 2n lower-case hex digits and a NUL into out (2n+1 bytes). */
static inline void hex_encode(const uint8_t *bytes, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[bytes[i] >> 4];
		out[2 * i + 1] = digits[bytes[i] & 15];
	}
	out[2 * n] = '\0';
}

#endif
