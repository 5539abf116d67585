/*
 * runtime.h: replaying a schedule under a memory budget (SIMULATION.md
 * sections 2-7). This header is the contract between the simulator and its
 * users (replay, sweeps, solvers); the state lives in runtime-state.h.
 *
 * A run never touches the schedule (read-only, shared by threads) and keeps
 * no global state: any number of runs may go at once on different threads.
 */
#ifndef REMATSIM_RUNTIME_H
#define REMATSIM_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>

#include "schedule.h"

enum runtime_kind {
	RUNTIME_V1,
	RUNTIME_V2,
	RUNTIME_V2_EAGER,
	RUNTIME_V2_OPTIMIZED,
	RUNTIME_V2_EAGER_OPTIMIZED,
	RUNTIME_KIND_COUNT
};

/*
 * The runtimes as a table (runtimes.c), one row each: what sets one apart
 * is read from its row, never from its name.
 */
struct runtime_desc {
	const char *name;    /* "V1", "V2", "V2Eager", "V2Optimized", "V2EagerOptimized" */
	bool banishing;      /* V1: an evicted storage is banished for good */
	bool eager;          /* evicts a storage as soon as only the pool holds it */
	unsigned maintains;  /* enum heuristic_needs it keeps up to date */
	const char *summary; /* one line for --help */
};
/** The row of k (k < RUNTIME_KIND_COUNT). */
const struct runtime_desc *runtime_desc(enum runtime_kind k);
/** The row's name, "?" out of range. */
const char *runtime_kind_name(enum runtime_kind k);
/** Returns 0 and sets *k, or -1 for an unknown name (any case: "v2" is V2). */
int runtime_kind_parse(const char *name, enum runtime_kind *k);
/** The runtime name nearest to name, or NULL (util.h, nearest_name). */
const char *runtime_suggest(const char *name);

enum outcome { OUTCOME_PASS, OUTCOME_OOM, OUTCOME_THRASH };
/** "pass", "oom", "thrash". */
const char *outcome_name(enum outcome o);

struct heuristic; /* heuristics.h */
struct proto_rules; /* heuristics.h */
struct runtime_test_switches; /* runtime-test.h: for tests only */

/*
 * Offload (docs/offload.md): a host link beside recomputation. One
 * device-to-host and one host-to-device copy channel, each serial, each
 * overlapping compute; a copy of b bytes takes latency + ceil(b / bandwidth)
 * ns. An evicted storage may be offloaded instead of dropped: its device
 * memory counts until its copy ends; bringing it back is a copy the op that
 * needs it waits for (the stall adds to the clock).
 */
enum offload_policy {
	/* offload a victim when its copy there and back takes no longer than
	 * recomputing it: compute(s), plus its evicted neighbourhood's (e*)
	 * where the runtime keeps regions; else drop it */
	OFFLOAD_COST,
	/* the same with compute(s) alone as the recompute: a rule that
	 * offloads less (docs/offload.md compares them) */
	OFFLOAD_LOCAL,
	/* offload every victim, never drop one (a swap baseline: nothing is
	 * recomputed); a full host memory is out of memory */
	OFFLOAD_SWAP,
};
struct offload_config {
	double bandwidth;      /* bytes per second, > 0; INFINITY: copies take no time */
	int64_t latency_ns;    /* added to every copy, >= 0 */
	/* The copies back (host to device) where the link is not the same
	 * both ways (a measured link): h2d_bandwidth 0 takes bandwidth and
	 * latency_ns for both directions. */
	double h2d_bandwidth;
	int64_t h2d_latency_ns;
	uint64_t host_memory;  /* bytes the host copies may hold; 0: unbounded */
	uint32_t prefetch;     /* after each command, bring back the next N ops' inputs that fit */
	enum offload_policy policy;
};
/** "cost", "local", "swap"; "?" out of range. */
const char *offload_policy_name(enum offload_policy p);
/** Returns 0 and sets *p, or -1 for an unknown name (any case). */
int offload_policy_parse(const char *name, enum offload_policy *p);
/** A copy of `bytes` to the host (back: from it) over c's link: latency +
 * ceil(bytes / bandwidth) ns of that direction, at most 2^61 ns. */
int64_t offload_copy_ns(const struct offload_config *c, uint64_t bytes, bool back);

/** What a timeline callback sees (replay --timeline). */
enum runtime_event_kind {
	EV_COMPUTE, /* a model computation: memory after it */
	EV_REMAT,   /* a rematerialization */
	EV_EVICT,   /* an eviction (also eager and banishing ones) */
	/* Offload only (runtime_config.offload): */
	EV_OFFLOAD, /* a storage's copy to the host is queued (start, end); its
		       bytes still count */
	EV_OFFLOADED, /* its copy has ended: memory freed */
	EV_FETCH,   /* a storage is brought back (start, end): memory after */
};
struct runtime_event {
	enum runtime_event_kind kind;
	int64_t clock;     /* simulated time after the event */
	uint64_t memory;   /* bytes in use after the event */
	/* COMPUTE/REMAT: bytes in use while the op ran, all its outputs
	 * allocated, before those of them that were in memory already (a
	 * rematerialized op's results still material) are dropped again: the
	 * reported peak counts this moment (as simrd does). Else memory. */
	uint64_t memory_high;
	uint32_t op;       /* COMPUTE/REMAT: the op */
	uint32_t storage;  /* EVICT: the storage */
	size_t cmd;        /* index of the schedule command in progress */
	/* OFFLOAD, FETCH: the copy's start and end on its channel (ns). */
	int64_t start, end;
};

/** What runtime_config.before may ask for before a command. */
enum runtime_action_kind {
	RUNTIME_ACT_REMAT, /* id: a tensor to rematerialize (nothing if defined) */
	RUNTIME_ACT_EVICT, /* id: a storage to evict */
};
struct runtime_action {
	uint32_t kind; /* enum runtime_action_kind */
	uint32_t id;
};

struct runtime_config {
	enum runtime_kind runtime;
	const struct heuristic *heuristic; /* NULL: no eviction possible */
	uint64_t budget;         /* bytes; UINT64_MAX for no bound */
	double remat_limit;      /* remat compute above it = thrash; INFINITY: none */
	uint64_t seed;           /* for random heuristics */
	/* Random heuristics draw as simrd after random.seed(seed) (Python's
	 * MT19937, pyrandom.h), not from the seeded splitmix64. */
	bool python_random;
	bool no_dealloc;         /* drop every RELEASE command */
	bool check;              /* verify invariants after every command */
	/* Test-only speed switches (runtime-test.h): each forces one way of
	 * computing the same answers, for the tests that compare the ways.
	 * NULL in every command: the runtime chooses. Borrowed. */
	const struct runtime_test_switches *test;
	/* DTRPrototype's rules (heuristics.h); NULL: all on. Borrowed. */
	const struct proto_rules *proto;
	/* Optional: called for each event; borrows ctx. */
	void (*on_event)(void *ctx, const struct runtime_event *ev);
	void *ctx;
	/* Optional, for plan replay (plan.h): called after each command with
	 * its index (done) and after each rematerialization within it (!done),
	 * it may name storages (*list, returned count) to evict now; those
	 * material, unlocked and not pinned are. Shares ctx. */
	size_t (*evict_after)(void *ctx, size_t cmd, bool done, const uint32_t **list);
	/* Optional, for plan replays (plan.h): called before each command
	 * with its index, it may name actions (*list, returned count) to run
	 * first, in order: rematerialize a tensor (if it is not defined) or
	 * evict a storage (if material, unlocked and not pinned). Module plans
	 * name only rematerializations, explicit plans both. Shares ctx. */
	size_t (*before)(void *ctx, size_t cmd, const struct runtime_action **list);
	/* Optional: asked after each command (shares ctx); true stops the
	 * replay there, out of memory (replay --allocator --device-memory:
	 * the device's allocator could not reserve what the command needed). */
	bool (*stop)(void *ctx);
	/* Optional: offload beside recomputation (NULL: off, as the reference).
	 * Needs a runtime without banishing, no plan hooks, not DTRPrototype.
	 * Borrowed. */
	const struct offload_config *offload;
};

struct runtime_result {
	enum outcome outcome;
	int64_t clock;              /* final simulated clock (starts at 1) */
	int64_t model_compute;
	int64_t remat_compute;
	uint64_t peak_memory;
	uint64_t const_memory;
	uint64_t evictions;
	uint64_t remats;
	uint64_t heuristic_evals;
	uint64_t heuristic_accesses;
	uint64_t bottleneck_memory; /* largest op output + input bytes (simrd) */
	/* Every budget in [same_from, same_below) replays exactly as this
	 * one did (the same outcome, choices and clock): every comparison of
	 * memory with the budget (rt_over) gives the same answer there. The
	 * largest demand that fitted, and the smallest that did not (0 and
	 * UINT64_MAX when none). fit reads them to skip probes whose answer
	 * is known. */
	uint64_t same_from, same_below;
	size_t stopped_at;          /* command index where OOM/thrash stopped */
	/* Regions switched from runs to bitsets after this many commands (0:
	 * never): speed only, printed nowhere, for tests of the switch. */
	size_t regions_bits_at;
	/* Offload (all 0 when off): storages sent to the host and their bytes,
	 * storages brought back (prefetched too) and theirs, time the ops
	 * waited for copies, each channel's busy time, the most bytes the
	 * host held at once. Evictions count the offloaded storages too. */
	uint64_t offloads, bytes_offloaded, fetches, bytes_fetched;
	int64_t stall_ns, d2h_busy_ns, h2d_busy_ns;
	uint64_t peak_host_memory;
	/* Choices made from the ordered pool (runtime-order.c) rather than
	 * by a scan: a speed diagnostic for tests, printed nowhere. */
	uint64_t ordered_choices;
	/* Choices made from the kept costs (struct rt_costs): the same. */
	uint64_t kept_choices;
};

/**
 * Replay s under cfg. Returns 0 with res filled (whatever the outcome), or
 * -1 with err filled when the configuration is unusable (a heuristic that
 * this runtime cannot serve: EXIT_USAGE).
 */
int runtime_run(const struct schedule *s, const struct runtime_config *cfg,
		struct runtime_result *res, struct rs_error *err);

/**
 * Whether cfg's runtime can serve its heuristic (as simrd refuses a
 * heuristic whose features the runtime lacks): 0, or -1 with err filled
 * (EXIT_USAGE).
 */
int runtime_check_config(const struct runtime_config *cfg, struct rs_error *err);

/** Section 7, step 1: V1, no bound, no heuristic. */
struct baseline {
	uint64_t memory;      /* peak memory */
	int64_t compute;      /* model compute */
	uint64_t const_memory;
	uint64_t bottleneck_memory; /* largest op outputs + its inputs' bytes (simrd) */
};
void baseline_run(const struct schedule *s, struct baseline *b);

/** One experiment point (section 7, steps 2-3). */
/*
 * One point of a sweep, a replay, a fit or a peak: the replay's runtime
 * configuration and the point's budget (a ratio of the baseline's memory,
 * or bytes) and overhead limit, which point_runtime_config turns into the
 * runtime's budget and remat_limit: the one conversion every command uses.
 */
struct point_config {
	/* runtime, heuristic, seed, python_random, no_dealloc, check, proto,
	 * offload, on_event and ctx, test; its budget and remat_limit are
	 * point_runtime_config's (leave them 0). */
	struct runtime_config rt;
	double ratio;          /* budget = floor(baseline.memory * ratio) ... */
	uint64_t budget;       /* ... unless this is non-zero */
	double overhead_limit; /* 2 by default; INFINITY: no limit */
};
struct point_result {
	uint64_t budget;
	double overhead;       /* final clock / baseline compute */
	struct runtime_result run;
	double wall_ms;
};
/** A point's budget in bytes: pc->budget, else floor(baseline memory * ratio). */
static inline uint64_t point_budget(const struct baseline *b, const struct point_config *pc)
{
	return pc->budget ? pc->budget : (uint64_t)((double)b->memory * pc->ratio);
}

/** pc's runtime configuration, with the budget point_budget gives and the
 * remat limit of its overhead limit over b's compute. */
struct runtime_config point_runtime_config(const struct baseline *b, const struct point_config *pc);

int point_run(const struct schedule *s, const struct baseline *b,
	      const struct point_config *pc, struct point_result *pr,
	      struct rs_error *err);

/** A point's overhead as point_run computes it: clock / b->compute,
 * correctly rounded (+inf when the baseline computes nothing). */
double point_overhead(const struct baseline *b, int64_t clock);

#endif
