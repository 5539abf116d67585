/*
 * fuzz-results.c: the results reader that `merge`, `plot` and a resumed
 * `sweep` use (points.tsv and the journal) must read a file or refuse it
 * with FILE:LINE, never trusting a header count for an allocation, never
 * crashing. An accepted table is written back (points and frontier) and
 * must read back the same. libFuzzer entry point LLVMFuzzerTestOneInput;
 * FUZZ_STANDALONE adds fuzz-main.h's driver.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "experiment.h"
#include "results.h"

static char path[64], path2[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!path[0]) {
		snprintf(path, sizeof path, "/tmp/fuzz-results-%ld.tsv", (long)getpid());
		snprintf(path2, sizeof path2, "/tmp/fuzz-results-%ld-2.tsv", (long)getpid());
	}
	FILE *f = fopen(path, "wb");
	if (!f)
		abort();
	fwrite(data, 1, size, f);
	fclose(f);
	struct points_table t;
	struct rs_error err;
	if (points_read(path, false, &t, &err) == 0) {
		if (t.total > EXPERIMENT_MAX_POINTS || t.n_rows > t.total)
			abort();
		FILE *o = fopen(path2, "wb");
		points_write(o, &t);
		frontier_write(o, &t);
		fclose(o);
		/* what was written reads back to the same rows */
		o = fopen(path2, "wb");
		points_write(o, &t);
		fclose(o);
		struct points_table u;
		if (points_read(path2, false, &u, &err) || u.total != t.total || u.n_rows != t.n_rows)
			abort();
		for (size_t i = 0; i < t.total; i++)
			if (!t.rows[i] != !u.rows[i] || (t.rows[i] && strcmp(t.rows[i], u.rows[i])))
				abort();
		points_table_free(&u);
		points_table_free(&t);
	} else if (err.status != 65 && err.status != 66) {
		abort();
	}
	return 0;
}

#ifdef FUZZ_STANDALONE
#define FUZZ_DICT "\t\n#: 0123456789.-epassoomthrash"
#include "fuzz-main.h"
#endif
