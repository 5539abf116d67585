/*
 * fuzz-main.h: the standalone driver of the fuzz targets fuzz-zip,
 * fuzz-yaml and fuzz-results (included once, by each, under
 * FUZZ_STANDALONE). main() runs LLVMFuzzerTestOneInput on every file named
 * (seeds and kept crash inputs: the regression corpus) and on a
 * deterministic stream of FUZZ_ROUNDS (default 2000) byte-level mutations
 * of each: flips, truncations, dictionary bytes (FUZZ_DICT), duplicated and
 * deleted spans. A folder argument means every file in it. libFuzzer
 * builds (tests/fuzz/build-libfuzzer.sh) use their own main.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t fz_rng = 0x9E3779B97F4A7C15ULL;
static uint64_t fz_next(void)
{
	fz_rng ^= fz_rng << 13;
	fz_rng ^= fz_rng >> 7;
	fz_rng ^= fz_rng << 17;
	return fz_rng;
}

static long fz_inputs;

static void fz_file(const char *path, long rounds)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(1);
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	for (size_t got; (got = fread(buf + n, 1, cap - n, f)) > 0;)
		if ((n += got) == cap)
			buf = realloc(buf, cap *= 2);
	fclose(f);
	fz_inputs++;
	LLVMFuzzerTestOneInput((const uint8_t *)buf, n);
	size_t mcap = n * 2 + 256;
	char *m = malloc(mcap);
	for (long r = 0; r < rounds; r++) {
		size_t len = n;
		memcpy(m, buf, n);
		int edits = 1 + (int)(fz_next() % 6);
		for (int e = 0; e < edits; e++) {
			size_t at = len ? fz_next() % len : 0;
			switch (fz_next() % 6) {
			case 0: if (len) m[at] = (char)fz_next(); break;
			case 1: len = at; break;
			case 2: if (len) m[at] ^= (char)(1u << (fz_next() % 8)); break;
			case 3: { /* a dictionary byte inserted */
				const char *d = FUZZ_DICT;
				if (len + 1 > mcap) break;
				memmove(m + at + 1, m + at, len - at);
				m[at] = d[fz_next() % strlen(d)];
				len++;
				break;
			}
			case 4: { /* duplicate a span */
				size_t span = len ? fz_next() % 64 : 0, from = len ? fz_next() % len : 0;
				if (from + span > len) span = len - from;
				if (len + span > mcap) break;
				memmove(m + at + span, m + at, len - at);
				memmove(m + at, m + (from < at ? from : from + span), span);
				len += span;
				break;
			}
			case 5: { /* delete a span */
				size_t span = fz_next() % 32;
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
	free(buf);
}

int main(int argc, char **argv)
{
	long rounds = getenv("FUZZ_ROUNDS") ? atol(getenv("FUZZ_ROUNDS")) : 2000;
	for (int a = 1; a < argc; a++) {
		struct stat st;
		if (stat(argv[a], &st) == 0 && S_ISDIR(st.st_mode)) {
			struct dirent **names;
			int k = scandir(argv[a], &names, NULL, alphasort);
			for (int i = 0; i < k; i++) {
				if (names[i]->d_name[0] != '.') {
					char p[4096];
					snprintf(p, sizeof p, "%s/%s", argv[a], names[i]->d_name);
					fz_file(p, rounds);
				}
				free(names[i]);
			}
			free(names);
		} else {
			fz_file(argv[a], rounds);
		}
	}
	printf("%s: %ld inputs x %ld mutations, no crash\n", argv[0], fz_inputs, rounds);
	return 0;
}
