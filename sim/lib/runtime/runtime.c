/*
 * runtime.c: replaying a schedule under a memory budget, exactly as the DTR
 * paper's simulator (simrd) does it: its V1 runtime (banishing) and its V2
 * family (plain, eager eviction, and the "Optimized" variants that keep
 * evicted-neighbourhood regions and union-find classes up to date).
 * docs/semantics.md lists the reference's quirks that this file keeps.
 *
 * Key invariants (see runtime-state.h; verified by check mode):
 *  - a storage is in the pool iff it is material, unlocked and unpinned;
 *  - memory == sum of material storage sizes.
 * A run allocates its state once; the hot paths (choosing, evicting,
 * rematerializing) only grow scratch arrays, region lists and their
 * indexes to their peak sizes, never free them mid-run.
 *
 * Layout for speed: the pool is an array in joining order (holes where
 * members left); each storage keeps the storages of its tensors' children
 * and parents in one list for region walks; one tag word per storage holds
 * bit 0 = material and a walk's visit stamp. Up to RMEMO_MAX_STORAGES
 * storages, regions are bitsets rebuilt from memoized reaches (see
 * runtime-memo.c); beyond, runs of ids derived from what changed
 * (runtime-regions.c).
 *
 * This file holds the public API (runtime_run, baseline_run, point_run)
 * and the shared part of the state; each other part is set up and freed by
 * its owner, called from state_init and state_free here. runtime-state.h
 * lists the parts, their owners and their headers, and where the rest lives (start reading at rt_replay in
 * runtime-commands.c).
 */
#include "runtime.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heuristics.h"
#include "runtime-banish.h"
#include "runtime-choose.h"
#include "runtime-classes.h"
#include "runtime-commands.h"
#include "runtime-future.h"
#include "runtime-memo.h"
#include "runtime-offload.h"
#include "runtime-order.h"
#include "runtime-proto.h"
#include "runtime-regions.h"
#include "runtime-state.h"
#include "runtime-unopt.h"

const char *outcome_name(enum outcome o)
{
	switch (o) {
	case OUTCOME_PASS: return "pass";
	case OUTCOME_OOM: return "oom";
	case OUTCOME_THRASH: return "thrash";
	}
	return "?";
}

static void state_init(struct runtime_state *rt, const struct schedule *s,
		       const struct runtime_config *cfg, struct runtime_result *res)
{
	memset(rt, 0, sizeof *rt);
	rt->s = s;
	rt->cfg = cfg;
	static const struct runtime_test_switches none;
	rt->test = cfg->test ? cfg->test : &none;
	rt->h = cfg->heuristic;
	rt->res = res;
	const struct runtime_desc *rd = runtime_desc(cfg->runtime);
	rt->v1 = rd->banishing;
	rt->eager = rd->eager;
	rt->regions = rt->h && (rt->h->needs & rd->maintains & NEEDS_REGIONS);
	rt->eqclass = rt->h && (rt->h->needs & rd->maintains & NEEDS_EQCLASS);
	rt->budget = cfg->budget;
	rt->clock = 1;
	rt->st = xcalloc(s->n_storages + 1, sizeof *rt->st);
	rt->key = xcalloc(s->n_storages + 1, sizeof *rt->key);
	rt->tag = xcalloc(s->n_storages + 1, sizeof *rt->tag);
	rt->defined = xcalloc(s->n_tensors + 1, 1);
	struct rt_graph *g = &rt->graph;
	g->ts = s->tensor_storage;
	g->par = s->op_args;
	g->par_s = s->arg_storage;
	g->sfwd = s->storage_fwd;
	g->sfwd_off = s->storage_fwd_off;
	g->srev = s->storage_rev;
	g->srev_off = s->storage_rev_off;
	g->n_sfwd = xcalloc(s->n_storages + 1, sizeof *g->n_sfwd);
	g->n_srev = xcalloc(s->n_storages + 1, sizeof *g->n_srev);
	rt->scratch.mark_a = xcalloc(s->n_storages + 1, sizeof *rt->scratch.mark_a);
	rt->scratch.mark_b = xcalloc(s->n_storages + 1, sizeof *rt->scratch.mark_b);
	rt->scratch.mark_c = xcalloc(s->n_storages + 1, sizeof *rt->scratch.mark_c);
	/* the parts, each by its owner (runtime-state.h) */
	rt_commands_init(rt);
	rt_scan_init(rt);
	rt_order_init(rt);
	if (rt->v1)
		rt_banish_init(rt);
	rt_regions_init(rt);
	rt_memo_init(rt);
	if (rt->eqclass)
		rt_classes_init(rt);
	if (rt->h && (rt->h->needs & NEEDS_PROTO))
		rt_proto_init(rt);
	if (rt->h && (rt->h->needs & NEEDS_FUTURE))
		rt_future_init(rt);
	if (cfg->offload)
		rt_offload_init(rt);
	rt_unopt_init(rt);
}

static void state_free(struct runtime_state *rt)
{
	rt_unopt_free(rt);
	rt_offload_free(rt);
	rt_proto_free(rt);
	rt_future_free(rt);
	rt_classes_free(rt);
	rt_memo_free(rt);
	rt_regions_free(rt);
	rt_banish_free(rt);
	rt_order_free(rt);
	rt_scan_free(rt);
	rt_commands_free(rt);
	free(rt->scratch.stk);
	free(rt->scratch.mark_a);
	free(rt->scratch.mark_b);
	free(rt->scratch.mark_c);
	free(rt->graph.n_sfwd);
	free(rt->graph.n_srev);
	free(rt->defined);
	free(rt->tag);
	free(rt->key);
	free(rt->st);
}

int runtime_check_config(const struct runtime_config *cfg, struct rs_error *err)
{
	const struct heuristic *h = cfg->heuristic;
	if ((unsigned)cfg->runtime >= RUNTIME_KIND_COUNT)
		return rs_error_set(err, EXIT_USAGE, NULL, 0, "unknown runtime");
	const struct offload_config *oc = cfg->offload;
	if (oc) {
		if (!(oc->bandwidth > 0))
			return rs_error_set(err, EXIT_USAGE, NULL, 0, "offload bandwidth must be above 0");
		if (oc->latency_ns < 0 || oc->h2d_latency_ns < 0)
			return rs_error_set(err, EXIT_USAGE, NULL, 0, "offload latency must not be negative");
		if (!(oc->h2d_bandwidth >= 0))
			return rs_error_set(err, EXIT_USAGE, NULL, 0,
					    "offload bandwidth back to the device must be above 0 (or 0: as the other way)");
		if (runtime_desc(cfg->runtime)->banishing)
			return rs_error_set(err, EXIT_USAGE, NULL, 0,
					    "offload needs a runtime without banishing (not %s)",
					    runtime_kind_name(cfg->runtime));
		if (h && (h->needs & NEEDS_PROTO))
			return rs_error_set(err, EXIT_USAGE, NULL, 0,
					    "offload is not modelled for %s (the prototype's own eviction)", h->name);
		if (cfg->evict_after || cfg->before)
			return rs_error_set(err, EXIT_USAGE, NULL, 0, "offload is not modelled for plan replays");
	}
	unsigned kept = runtime_desc(cfg->runtime)->maintains;
	unsigned missing = h ? h->needs & (NEEDS_REGIONS | NEEDS_EQCLASS) & ~kept : 0;
	if (!missing)
		return 0;
	/* the runtimes that keep it, from the runtime table: "the A and B runtimes" */
	unsigned need = (h->needs & NEEDS_REGIONS) ? NEEDS_REGIONS : NEEDS_EQCLASS;
	char keepers[256] = "";
	int n = 0, total = 0;
	for (int i = 0; i < RUNTIME_KIND_COUNT; i++)
		total += (runtime_desc((enum runtime_kind)i)->maintains & need) != 0;
	for (int i = 0; i < RUNTIME_KIND_COUNT; i++) {
		if (!(runtime_desc((enum runtime_kind)i)->maintains & need))
			continue;
		size_t len = strlen(keepers);
		snprintf(keepers + len, sizeof keepers - len, "%s%s", n == 0 ? "" :
			 n + 1 == total ? " and " : ", ", runtime_kind_name((enum runtime_kind)i));
		n++;
	}
	return rs_error_set(err, EXIT_USAGE, NULL, 0,
			    "heuristic %s needs %s, which only the %s runtime%s keep%s (runtime %s)",
			    h->name, need == NEEDS_REGIONS ? "evicted regions" : "union-find classes",
			    keepers, total > 1 ? "s" : "", total > 1 ? "" : "s",
			    runtime_kind_name(cfg->runtime));
}

int runtime_run(const struct schedule *s, const struct runtime_config *cfg,
		struct runtime_result *res, struct rs_error *err)
{
	if (runtime_check_config(cfg, err))
		return -1;
	memset(res, 0, sizeof *res);
	res->same_below = UINT64_MAX;
	struct runtime_state rt;
	state_init(&rt, s, cfg, res);
	int rc = rt_replay(&rt);
	if (rc == RT_BROKEN) {
		uint32_t bs = rt.broken_storage;
		uint32_t root = schedule_storage_root(s, bs);
		const struct sched_op *op = &s->ops[s->tensors[root].op];
		rs_error_set(err, EXIT_DATAERR, s->source, (long)op->line,
			     "%s cannot replay this log: at command %zu, the storage of %s (made here) "
			     "is evicted while a region at its edge does not hold it on its "
			     "frontier. Views made by ops with several arguments or results "
			     "(a storage feeding itself) let regions drift so; the reference "
			     "simulator stops here too (an assertion in region.py). Heuristics "
			     "without regions replay it: DTREqClass, DTRLocal, LRU, ...",
			     cfg->heuristic->name, res->stopped_at,
			     rs_text_safe(schedule_str(s, s->tensors[root].name)));
		state_free(&rt);
		return -1;
	}
	res->outcome = rc ? (enum outcome)rc : OUTCOME_PASS;
	if (!rc)
		res->stopped_at = s->n_cmds;
	res->clock = rt.clock;
	res->bottleneck_memory = rt.bottleneck;
	state_free(&rt);
	return 0;
}

void baseline_run(const struct schedule *s, struct baseline *b)
{
	struct runtime_config cfg = {
		.runtime = RUNTIME_V1,
		.heuristic = NULL,
		.budget = UINT64_MAX / 2,
		.remat_limit = INFINITY,
	};
	struct runtime_result res;
	struct rs_error err;
	if (runtime_run(s, &cfg, &res, &err))
		rs_bug("baseline run refused: %s", err.msg);
	b->memory = res.peak_memory;
	b->compute = res.model_compute;
	b->const_memory = res.const_memory;
	b->bottleneck_memory = res.bottleneck_memory;
}

struct runtime_config point_runtime_config(const struct baseline *b, const struct point_config *pc)
{
	struct runtime_config cfg = pc->rt;
	double limit = pc->overhead_limit;
	cfg.budget = point_budget(b, pc);
	cfg.remat_limit = isinf(limit) ? INFINITY : (double)b->compute * (limit - 1);
	return cfg;
}

int point_run(const struct schedule *s, const struct baseline *b,
	      const struct point_config *pc, struct point_result *pr,
	      struct rs_error *err)
{
	memset(pr, 0, sizeof *pr);
	struct runtime_config cfg = point_runtime_config(b, pc);
	pr->budget = cfg.budget;
	double t0 = now_seconds();
	if (runtime_run(s, &cfg, &pr->run, err))
		return -1;
	pr->wall_ms = (now_seconds() - t0) * 1e3;
	pr->overhead = point_overhead(b, pr->run.clock);
	return 0;
}

double point_overhead(const struct baseline *b, int64_t clock)
{
	return b->compute > 0 ? rt_div(clock, (unsigned __int128)b->compute) : INFINITY;
}
