/*
 * sha256.c: a plain implementation of FIPS 180-4 SHA-256, written from the
 * standard, and on x86-64 CPUs with the SHA extensions the same compression
 * by those instructions (blocks_ni). Logs are hashed once, as they stream
 * through the reader, but every `replay --json` does it: the plain blocks
 * took a third of the instructions of a short replay of a paper log (60
 * instructions a byte, 9 ms for the Unrolled GAN's 1.9 MB); the SHA
 * instructions take about 1 ms.
 */
#include "hash.h"
#include "sha256.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* SPEED-ONLY: the SHA extensions where the compiler and CPU have them (the
 * CPU asked once, by cpuid); -Dportable=true builds the plain blocks only.
 * Both give the same digest (test-util holds them to each other and to
 * FIPS 180-4's examples). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(REMATSIM_PORTABLE)
#define SHA_NI 1
#include <cpuid.h>
#include <immintrin.h>
#endif

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static void block(uint32_t h[8], const uint8_t *p)
{
	uint32_t w[64];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = hh + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
		uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		hh = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
	}
	h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

#ifdef SHA_NI
/* n blocks at p into h, by the SHA extensions: the state as ABEF and CDGH
 * in two vectors, the schedule four words a vector (sha256msg1/msg2), two
 * rounds an instruction. */
__attribute__((target("sha,sse4.1"))) static void blocks_ni(uint32_t h[8], const uint8_t *p, size_t n)
{
	const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
	__m128i t = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(const void *)h), 0xB1); /* CDAB */
	__m128i s1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(const void *)(h + 4)), 0x1B); /* EFGH */
	__m128i s0 = _mm_alignr_epi8(t, s1, 8);   /* ABEF */
	s1 = _mm_blend_epi16(s1, t, 0xF0);        /* CDGH */
	for (; n; n--, p += 64) {
		const __m128i abef = s0, cdgh = s1;
		__m128i m[4];
		for (int i = 0; i < 16; i++) {
			__m128i w;
			if (i < 4) {
				w = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i)), bswap);
			} else {
				/* W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16] */
				w = _mm_add_epi32(_mm_sha256msg1_epu32(m[i & 3], m[(i + 1) & 3]),
						  _mm_alignr_epi8(m[(i + 3) & 3], m[(i + 2) & 3], 4));
				w = _mm_sha256msg2_epu32(w, m[(i + 3) & 3]);
			}
			m[i & 3] = w;
			__m128i k = _mm_add_epi32(w, _mm_loadu_si128((const __m128i *)(const void *)(K + 4 * i)));
			s1 = _mm_sha256rnds2_epu32(s1, s0, k);
			s0 = _mm_sha256rnds2_epu32(s0, s1, _mm_shuffle_epi32(k, 0x0E));
		}
		s0 = _mm_add_epi32(s0, abef);
		s1 = _mm_add_epi32(s1, cdgh);
	}
	t = _mm_shuffle_epi32(s0, 0x1B);          /* FEBA */
	s1 = _mm_shuffle_epi32(s1, 0xB1);         /* DCHG */
	_mm_storeu_si128((__m128i *)(void *)h, _mm_blend_epi16(t, s1, 0xF0));        /* DCBA */
	_mm_storeu_si128((__m128i *)(void *)(h + 4), _mm_alignr_epi8(s1, t, 8));     /* HGFE */
}

/* The CPU has SHA, SSSE3 and SSE4.1 (asked once; a race only asks twice). */
static bool have_ni(void)
{
	static int known; /* 0 unknown, 1 no, 2 yes */
	int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
	if (!k) {
		unsigned a, b, c, d, c1 = 0;
		bool yes = __get_cpuid(1, &a, &b, &c1, &d) && (c1 & (1u << 9)) && (c1 & (1u << 19)) &&
			   __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 29));
		k = yes ? 2 : 1;
		__atomic_store_n(&known, k, __ATOMIC_RELAXED);
	}
	return k == 2;
}
#endif

/* n blocks at p into h. */
static void blocks(uint32_t h[8], const uint8_t *p, size_t n)
{
#ifdef SHA_NI
	if (!sha256_plain_only && have_ni()) {
		blocks_ni(h, p, n);
		return;
	}
#endif
	for (; n; n--, p += 64)
		block(h, p);
}

int sha256_plain_only;

void sha256_init(struct sha256_ctx *c)
{
	static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
				       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	memcpy(c->h, h0, sizeof h0);
	c->len = 0;
}

void sha256_update(struct sha256_ctx *c, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t have = (size_t)(c->len % 64);
	c->len += len;
	if (have) {
		size_t take = 64 - have < len ? 64 - have : len;
		memcpy(c->part + have, p, take);
		p += take, len -= take;
		if (have + take < 64)
			return;
		blocks(c->h, c->part, 1);
	}
	blocks(c->h, p, len / 64);
	p += len / 64 * 64;
	len %= 64;
	memcpy(c->part, p, len);
}

void sha256_final(struct sha256_ctx *c, uint8_t out[32])
{
	size_t n = (size_t)(c->len % 64);
	uint8_t tail[128] = {0};
	memcpy(tail, c->part, n);
	tail[n] = 0x80;
	size_t tl = n < 56 ? 64 : 128;
	uint64_t bits = c->len * 8;
	for (int i = 0; i < 8; i++)
		tail[tl - 1 - i] = (uint8_t)(bits >> (8 * i));
	blocks(c->h, tail, tl / 64);
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (uint8_t)(c->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(c->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(c->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)c->h[i];
	}
}

void sha256(const void *data, size_t len, uint8_t out[32])
{
	struct sha256_ctx c;
	sha256_init(&c);
	sha256_update(&c, data, len);
	sha256_final(&c, out);
}

void sha256_hex(const uint8_t digest[32], char hex[65])
{
	hex_encode(digest, 32, hex);
}
