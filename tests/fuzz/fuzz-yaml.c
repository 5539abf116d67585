/*
 * fuzz-yaml.c: experiment files (YAML) edited in a hurry must give an
 * experiment or a message with FILE:LINE:COLUMN, in time linear in their
 * size (nesting is bounded), never a crash or leak. experiment_parse reads
 * the text only (no log is loaded). libFuzzer entry point
 * LLVMFuzzerTestOneInput; FUZZ_STANDALONE adds fuzz-main.h's driver.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct experiment *e;
	struct rs_error err;
	memset(&err, 0x5a, sizeof err); /* a status read before it is set shows */
	if (experiment_parse("fuzz.yaml", (const char *)data, size, &e, &err) == 0) {
		size_t n = experiment_n_points(e);
		if (n > EXPERIMENT_MAX_POINTS)
			abort();
		for (size_t i = 0; i < n && i < 64; i++) {
			struct exp_point p;
			experiment_point(e, i, &p);
		}
		experiment_free(e);
	} else if ((err.status != 65 && err.status != 66) || !err.msg[0]) {
		abort();
	}
	return 0;
}

#ifdef FUZZ_STANDALONE
#define FUZZ_DICT "[]{}:,-\n #&*!|>'\"0123456789.e"
#include "fuzz-main.h"
#endif
