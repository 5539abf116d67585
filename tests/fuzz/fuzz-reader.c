/*
 * fuzz-reader.c: the log reader must never crash, hang or leak on any
 * bytes. LLVMFuzzerTestOneInput is the libFuzzer entry point:
 *
 *   clang -g -O1 -fsanitize=fuzzer,address -D_GNU_SOURCE -Isim -Ibuild/sim $(pkg-config --cflags minizip) \
 *     tests/fuzz/fuzz-reader.c sim/{schedule,jsonl,source,util,sha256}.c \
 *     -ljansson -lminizip -lz -o fuzz-reader && ./fuzz-reader tests/data
 *
 * Without libFuzzer (FUZZ_STANDALONE), main() replays each file given and
 * a deterministic stream of mutations of it (byte flips, truncations,
 * spliced lines), which is what `meson test` runs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedule.h"

static void noop(void *ctx, const struct rs_error *e)
{
	(void)ctx;
	(void)e;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct schedule *s = NULL;
	struct rs_error err;
	struct read_options opt = {0};
	if (schedule_parse("fuzz", (const char *)data, size, &opt, &s, &err) == 0) {
		/* A schedule that was accepted must hold together. */
		for (size_t i = 0; i < s->n_cmds; i++) {
			uint32_t id = s->cmds[i].id;
			size_t bound = s->cmds[i].kind == CMD_COMPUTE ? s->n_ops : s->n_tensors;
			if (id >= bound)
				abort();
		}
		for (size_t t = 0; t < s->n_tensors; t++)
			if (s->tensors[t].storage >= s->n_storages)
				abort();
		schedule_free(s);
	}
	opt.from_start = true;
	schedule_check("fuzz", (const char *)data, size, &opt, 50, noop, NULL);
	return 0;
}

#ifdef FUZZ_STANDALONE
static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

int main(int argc, char **argv)
{
	long rounds = getenv("FUZZ_ROUNDS") ? atol(getenv("FUZZ_ROUNDS")) : 3000;
	for (int a = 1; a < argc; a++) {
		FILE *f = fopen(argv[a], "rb");
		if (!f) {
			perror(argv[a]);
			return 1;
		}
		static char buf[1 << 20];
		size_t n = fread(buf, 1, sizeof buf, f);
		fclose(f);
		LLVMFuzzerTestOneInput((const uint8_t *)buf, n);
		char *m = malloc(n * 2 + 64);
		for (long r = 0; r < rounds; r++) {
			size_t len = n;
			memcpy(m, buf, n);
			int edits = 1 + (int)(next() % 8);
			for (int e = 0; e < edits && len; e++) {
				size_t at = next() % len;
				switch (next() % 5) {
				case 0: m[at] = (char)next(); break;              /* flip a byte */
				case 1: len = at; break;                          /* truncate */
				case 2: m[at] = "{}[]\":,\n-0123456789"[next() % 19]; break;
				case 3: { /* duplicate a span (lines move around) */
					size_t span = next() % 200, from = next() % len;
					if (from + span > len) span = len - from;
					if (len + span <= n * 2 + 64) {
						memmove(m + at + span, m + at, len - at);
						memmove(m + at, m + (from < at ? from : from + span), span);
						len += span;
					}
					break;
				}
				case 4: { /* delete a span */
					size_t span = next() % 100;
					if (at + span > len) span = len - at;
					memmove(m + at, m + at + span, len - at - span);
					len -= span;
					break;
				}
				}
			}
			LLVMFuzzerTestOneInput((const uint8_t *)m, len);
		}
		free(m);
	}
	printf("fuzz-reader: %d inputs x %ld mutations, no crash\n", argc - 1, rounds);
	return 0;
}
#endif
