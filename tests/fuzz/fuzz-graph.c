/*
 * fuzz-graph.c: node-link graphs (sim/lib/read/graph.c) must give a schedule
 * or a message with status 65, never a crash, hang or leak, whatever the
 * JSON: cycles, repeated or missing ids, dangling links, costs of every
 * type, orders that are not topological. A graph that imports is replayed
 * (the baseline, then DTR and LRU at half its peak in check mode, which
 * aborts on a broken invariant); the same bytes through check mode must
 * find a problem exactly when the read refuses them. libFuzzer entry point
 * LLVMFuzzerTestOneInput; FUZZ_STANDALONE adds fuzz-main.h's driver, run
 * by `meson test` on tests/fuzz/corpus/graph.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "graph.h"
#include "heuristics.h"
#include "runtime.h"

static void noop(void *ctx, const struct rs_error *e)
{
	(void)ctx;
	if (e->status != 65 || !e->msg[0])
		abort();
}

static void replay(const struct schedule *s)
{
	struct baseline b;
	baseline_run(s, &b);
	static const char *const names[] = {"DTR", "LRU"};
	for (size_t i = 0; i < 2; i++) {
		struct runtime_config cfg = {
			.runtime = RUNTIME_V2_EAGER_OPTIMIZED,
			.heuristic = heuristic_find(names[i]),
			.budget = b.memory / 2,
			.remat_limit = INFINITY,
			.check = true,
		};
		struct runtime_result r;
		struct rs_error err;
		if (runtime_run(s, &cfg, &r, &err) && err.status != 65)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct schedule *s = NULL;
	struct rs_error err = {0};
	struct read_options ro = {0};
	int n = graph_import("fuzz.json", text, size, &ro, 1, NULL, NULL, &s, &err);
	if (n) {
		if (s || err.status != 65 || !err.msg[0])
			abort();
	} else {
		if (!s || s->n_ops == 0)
			abort();
		replay(s);
		schedule_free(s);
	}
	/* check mode agrees on whether there is a problem */
	int m = graph_import("fuzz.json", text, size, &ro, 20, noop, NULL, &s, NULL);
	if ((m == 0) != (n == 0))
		abort();
	schedule_free(s);
	return 0;
}

#ifdef FUZZ_STANDALONE
#define FUZZ_DICT "[]{}:,\"-0123456789.e \nidsourcetargetnodeslinkscost_cpucost_ramordergraph"
#include "fuzz-main.h"
#endif
