/*
 * runtime-test.h: the runtime's test-only speed switches
 * (runtime_config.test, point_config.test). Each forces one way of
 * computing the same replay, so that the tests can hold the fast paths to
 * the plain ones (test-differential, test-reference, test-runtime,
 * test-offload, test-heuristics). No command sets them; a point with any
 * is never cached (sim/exp/cache.c). All false and 0: the runtime's own
 * choice, as a NULL runtime_config.test.
 */
#ifndef REMATSIM_RUNTIME_TEST_H
#define REMATSIM_RUNTIME_TEST_H

#include <stdbool.h>
#include <stddef.h>

struct runtime_test_switches {
	/* Keep regions as lists and walk each one (the path taken above
	 * RMEMO_MAX_STORAGES storages) even for small logs: for tests. */
	bool plain_regions;
	/* Keep regions as compressed sets (the path taken above
	 * RMEMO_MAX_STORAGES storages) even for small logs: for tests. */
	bool run_regions;
	/* With run_regions: switch the regions to bitsets after this command
	 * (0: never), as a replay of 4,097 to RMEMO_MAX_BITSETS storages does
	 * when its runs cost more than bitsets would: for tests. */
	size_t bits_after_cmd;
	/* Deduplicate the class heuristics' kept evicted-neighbour lists by
	 * stamps (the path taken up to RMEMO_MAX_STORAGES storages) even for
	 * large logs: for tests. */
	bool mark_lists;
	/* Make every choice by the heuristic's plain scoring loop (each
	 * member's exact cost, no vector scan or shortcut): for tests, which
	 * hold the fast scans to it (runtime-scan.c). */
	bool plain_scans;
	/* Choose by the vector scans of the pool's keys even where the pool
	 * kept in a choice's order would (LRU, DTRLocal; runtime-order.c);
	 * or keep that order from the start, not only once the scans have
	 * cost more than it would: for tests, which compare the ways. */
	bool no_order, order_at_once;
	/* Score every member at every choice even for a row whose costs the
	 * runtime would keep between choices (heuristic.clock_free; struct
	 * rt_costs): for tests, which compare the ways. */
	bool no_kept_costs;
};

#endif
