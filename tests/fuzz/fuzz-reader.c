/*
 * fuzz-reader.c: the log reader must never crash, hang or leak on any
 * bytes; built with FUZZ_REPLAY, every log it accepts (up to 3000
 * commands) is also replayed under all 24 heuristics at two budgets (and
 * those that may offload, also with a host link) in
 * check mode, which aborts on a broken invariant. LLVMFuzzerTestOneInput
 * is the libFuzzer entry point:
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
#ifdef FUZZ_REPLAY
#include <math.h>

#include "heuristics.h"
#include "runtime.h"

/* Every heuristic on a runtime that serves it (the Optimized one where it
 * needs regions or classes, else alternately V1 and V2Eager), at two
 * budgets, with and without deallocation: a result or the region error,
 * never an abort. */
static long replayed;

static void replay_all(const struct schedule *s)
{
	replayed++;
	static const double ratios[] = {0.3, 0.8};
	struct baseline b;
	baseline_run(s, &b);
	size_t nh;
	const struct heuristic *hs = heuristic_list(&nh);
	for (size_t h = 0; h < nh; h++) {
		for (size_t r = 0; r < 2; r++) {
			struct point_config pc = {
				.rt.heuristic = &hs[h],
				.rt.runtime = hs[h].needs ? RUNTIME_V2_EAGER_OPTIMIZED
					 : (h + r) % 2 ? RUNTIME_V1 : RUNTIME_V2_EAGER,
				.ratio = ratios[r], .overhead_limit = 2, .rt.seed = 5,
				.rt.no_dealloc = h % 3 == 0, .rt.check = true,
			};
			struct runtime_config probe = {.runtime = pc.rt.runtime, .heuristic = pc.rt.heuristic};
			struct rs_error err;
			struct point_result pr;
			if (runtime_check_config(&probe, &err) == 0 && point_run(s, &b, &pc, &pr, &err) &&
			    err.status != 65)
				abort();
			/* ... and with a host link (docs/offload.md): each policy,
			 * slow and fast, prefetch, a small host */
			if (pc.rt.runtime == RUNTIME_V1 || (hs[h].needs & NEEDS_PROTO))
				continue;
			struct offload_config oc = {
				.bandwidth = (h + r) % 2 ? 1e9 : INFINITY, .latency_ns = (int64_t)r * 7,
				.host_memory = h % 4 == 1 ? b.memory / 3 + 1 : 0, .prefetch = (uint32_t)(h % 3),
				.policy = (enum offload_policy)((h + r) % 3),
			};
			pc.rt.offload = &oc;
			if (point_run(s, &b, &pc, &pr, &err) && err.status != 65)
				abort();
		}
	}
}
#endif

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
	memset(&err, 0x5a, sizeof err); /* a status read before it is set shows */
	struct read_options opt = {0};
	int rc = schedule_parse("fuzz", (const char *)data, size, &opt, &s, &err);
	if (rc && (err.status != 65 || !err.msg[0] || strlen(err.msg) >= sizeof err.msg))
		abort(); /* a refusal is a data error with a message */
	if (rc == 0) {
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
#ifdef FUZZ_REPLAY
		if (s->n_cmds <= 3000)
			replay_all(s);
#endif
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
				size_t cap = n * 2 + 64, ls = at, le = at;
				while (ls > 0 && m[ls - 1] != '\n')
					ls--;
				while (le < len && m[le++] != '\n')
					;
#ifdef FUZZ_REPLAY
				unsigned op = 5 + (unsigned)(next() % 4); /* records only */
#else
				unsigned op = (unsigned)(next() % 9);
#endif
				switch (op) {
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
				/* Whole records, which keep most logs readable (and so
				 * replayed under FUZZ_REPLAY): */
				case 5: /* drop a line */
					memmove(m + ls, m + le, len - le);
					len -= le - ls;
					break;
				case 6: { /* copy a line before another */
					size_t span = le - ls, to = next() % len;
					while (to > 0 && m[to - 1] != '\n')
						to--;
					if (len + span <= cap) {
						char line[4096];
						if (span > sizeof line) break;
						memcpy(line, m + ls, span);
						memmove(m + to + span, m + to, len - to);
						memcpy(m + to, line, span);
						len += span;
					}
					break;
				}
				case 7: { /* swap a line with the next one */
					size_t e2 = le;
					while (e2 < len && m[e2++] != '\n')
						;
					char tmp[8192];
					if (e2 - ls > sizeof tmp || le == e2) break;
					memcpy(tmp, m + le, e2 - le);
					memcpy(tmp + (e2 - le), m + ls, le - ls);
					memcpy(m + ls, tmp, e2 - ls);
					break;
				}
				case 8: { /* a number of the line becomes another */
					size_t d = ls;
					while (d < le && (m[d] < '0' || m[d] > '9'))
						d++;
					size_t de = d;
					while (de < le && m[de] >= '0' && m[de] <= '9')
						de++;
					if (d == le) break;
					static const unsigned long long picks[] = {0, 1, 7, 4096, 1000000,
										   1ULL << 40, 1ULL << 62};
					char num[32];
					int k = snprintf(num, sizeof num, "%llu",
							 picks[next() % (sizeof picks / sizeof picks[0])] + next() % 3);
					size_t nl = (size_t)k;
					if (len - (de - d) + nl > cap) break;
					memmove(m + d + nl, m + de, len - de);
					memcpy(m + d, num, nl);
					len = len - (de - d) + nl;
					break;
				}
				}
			}
			LLVMFuzzerTestOneInput((const uint8_t *)m, len);
		}
		free(m);
	}
#ifdef FUZZ_REPLAY
	printf("fuzz-replay: %d inputs x %ld mutations, %ld accepted and replayed, no crash\n",
	       argc - 1, rounds, replayed);
#else
	printf("fuzz-reader: %d inputs x %ld mutations, no crash\n", argc - 1, rounds);
#endif
	return 0;
}
#endif
