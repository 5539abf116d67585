/*
 * heuristics.h: the eviction policies, one self-describing registry row
 * each: its name, how figures label and draw it, its family, its cost in
 * words, what runtime state it needs, and how it chooses (its cost and
 * key, or a choice of its own). The figures (sim/exp/plot.c), `replay
 * --help` and the tests read the rows; nothing else lists heuristics.
 * Adding one is a cost function and a row in heuristics.c
 * (docs/adding-a-heuristic.md).
 */
#ifndef REMATSIM_HEURISTICS_H
#define REMATSIM_HEURISTICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime-scan.h"

struct policy; /* policy.h: the runtime as a heuristic sees it */
struct rt_key; /* runtime-arith.h: a storage's size, compute, last access */
struct rt_frac; /* runtime-arith.h: a cost as an exact fraction */

/* What a heuristic needs the runtime to maintain. */
enum heuristic_needs {
	NEEDS_NOTHING = 0,
	NEEDS_REGIONS = 1 << 0, /* evicted neighbourhoods (Optimized runtimes) */
	NEEDS_EQCLASS = 1 << 1, /* union-find classes (Optimized runtimes) */
	/* Regions rebuilt from scratch on every evaluation (DTRUnopt): nothing
	 * kept, so no runtime's `maintains` has it and every runtime serves it
	 * (simrd accepts it on V2 too); the paper runs it on V1, which is what
	 * its figures and the shipped logs' reference rows use
	 * (docs/semantics.md, "Random heuristics and refusals"). */
	NEEDS_UNOPT = 1 << 2,
	/* The DTR prototype's own candidate list and classes (DTRPrototype,
	 * runtime-proto.c): kept by every runtime for the heuristic that
	 * needs them, as they belong to no runtime of the reference. */
	NEEDS_PROTO = 1 << 3,
	/* Every storage's future uses (runtime-future.c): the offline Belady
	 * heuristic, which knows the whole schedule. Kept by every runtime
	 * for the heuristic that needs it, as NEEDS_PROTO is. */
	NEEDS_FUTURE = 1 << 4,
};

/* The figures a heuristic is drawn in: the paper's main comparison, or one
 * of the four ablation grids (one cost numerator each). */
enum heuristic_family {
	FAMILY_PAPER,   /* "paper": the Pareto comparison */
	FAMILY_ESTAR,   /* "estar": ablation, e* numerator */
	FAMILY_EQ,      /* "eq": ablation, eq-class numerator */
	FAMILY_LOCAL,   /* "local": ablation, local numerator */
	FAMILY_NOCOST,  /* "nocost": ablation, no numerator */
	FAMILY_COUNT
};
/** "paper", "estar", "eq", "local", "nocost". */
const char *heuristic_family_name(enum heuristic_family f);
/** A figure title for the family, gnuplot enhanced text. */
const char *heuristic_family_title(enum heuristic_family f);

struct heuristic {
	const char *name;      /* as the reference names it: "DTR", "AbEqSize", ... */
	const char *label;     /* plain text: "h_DTR", "e*, size, staleness" */
	const char *tex_label; /* gnuplot enhanced text for legends, within the
				* family's figure: "h_{DTR}", "size, staleness" */
	enum heuristic_family family;
	const char *cost;      /* the cost formula in words (replay --help) */
	const char *color;     /* "#rrggbb", the DTR paper's where it has one */
	int marker;            /* gnuplot point type (cairo terminals) */
	unsigned needs;        /* enum heuristic_needs */
	bool random;           /* draws from a seeded generator (trials) */
	/* score reads no clock, no last access and no class, and counts
	 * nothing: a member's cost changes only with its key's compute or size
	 * and its regions, so the runtime may keep the costs between choices
	 * (struct rt_costs, runtime-scan.c). */
	bool clock_free;
	/* The cost of evicting pool member s (x its key), exactly: the lowest
	 * is evicted, ties to the later member, a cost of 0 at once (the
	 * scoring loop of heuristics.c). NULL for a row with a choice of its
	 * own (the random ones). */
	struct rt_frac (*score)(struct policy *rt, uint32_t s, const struct rt_key *x);
	/* With score: the key of the pool that orders as it does, which the
	 * runtime scans by itself (runtime-scan.h), or SCAN_NONE. */
	enum scan_key key;
	/* The storage to evict from the runtime's (non-empty) pool: score's
	 * loop, or the row's own choice. Counts evaluations and accesses. */
	uint32_t (*choose)(struct policy *rt);
};

/** h's choice by the plain scoring loop: every member's exact cost, no
 * shortcut (runtime_test_switches.plain_scans, for tests); h->choose for a row
 * without a score. */
uint32_t heuristic_choose_plain(struct policy *rt, const struct heuristic *h);

/*
 * The rules by which the DTR prototype (the modified PyTorch of the
 * paper's artifact, dtr_code/dtr-implementation.patch) evicts differently
 * from the reference simulator, each one switchable (docs/validation.md
 * gives the patch lines of each). DTRPrototype's row runs with all of
 * them on unless runtime_config.proto says otherwise.
 */
struct proto_rules {
	/* CheckpointPool::evict: score a random sample of the candidates,
	 * index 0 then steps drawn uniformly from 1..floor(sqrt(N)) (N the
	 * list's length): about 2 sqrt(N) of them; else every candidate. */
	bool sampling;
	/* CheckpointPool::add: a storage joins the candidates only if it is
	 * at least 1% of the mean storage size (ignore_small_tensors). */
	bool ignore_small;
	/* make_raw, Rematerializer::remat: the budget is checked after the op
	 * ran, its outputs allocated (pool.auto_evict()), not before. */
	bool after;
	/* AliasPool::cost and ::evict: one class node per op (the evicted
	 * outputs of one op share it, and a storage whose op has an evicted
	 * output costs no compute of its own), and evicted neighbours' classes
	 * summed once per node, not per class. Off: DTREqClass's eq(s). */
	bool op_classes;
};
/** All rules on: the prototype as the artifact ran it. */
extern const struct proto_rules proto_rules_default;
/* struct proto_rules' fields as bits (proto_rules_parse's *named). */
enum { PROTO_SAMPLING = 1, PROTO_SMALL = 2, PROTO_AFTER = 4, PROTO_CLASSES = 8, PROTO_ALL = 15 };
/**
 * Parse a comma list of rule names, each optionally prefixed with "no-"
 * (sampling, small, after, classes; "all", "none"), applied in order to
 * *r, and the rules it named set in *named (PROTO_*; NULL: not wanted):
 * 0, or -1 with a message in why (naming the word).
 */
int proto_rules_parse(const char *text, struct proto_rules *r, unsigned *named, char *why, size_t why_len);
/** The rules as "sampling,small,after,classes" with "no-" where off. */
const char *proto_rules_text(const struct proto_rules *r, char *buf, size_t len);

/** NULL when no heuristic has that name (in any case: "dtr" is DTR). */
const struct heuristic *heuristic_find(const char *name);
/** The registry's name nearest to name (edit distance, any case), or NULL
 * when none is close enough to be a likely typo. */
const char *heuristic_suggest(const char *name);
/** The registry, in a stable order; *n is set to its length. */
const struct heuristic *heuristic_list(size_t *n);

#endif
