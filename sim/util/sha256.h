/*
 * sha256.h: SHA-256 (FIPS 180-4) of a byte buffer or stream, so that every result
 * file can name the exact logs it came from.
 */
#ifndef REMATSIM_SHA256_H
#define REMATSIM_SHA256_H

#include <stddef.h>
#include <stdint.h>

/** Digest of len bytes at data into out. */
void sha256(const void *data, size_t len, uint8_t out[32]);

/** An incremental digest: init, update with the bytes in any pieces, final. */
struct sha256_ctx {
	uint32_t h[8];
	uint64_t len;      /* bytes so far */
	uint8_t part[64];  /* the unfinished block: len % 64 bytes */
};
void sha256_init(struct sha256_ctx *c);
void sha256_update(struct sha256_ctx *c, const void *data, size_t len);
void sha256_final(struct sha256_ctx *c, uint8_t out[32]);
/** For tests: non-zero makes every digest take the plain C blocks, not the
 *  CPU's SHA instructions (where sha256.c uses them). */
extern int sha256_plain_only;
/** Lower-case hex of a digest into hex (65 bytes with the NUL). */
void sha256_hex(const uint8_t digest[32], char hex[65]);

#endif
