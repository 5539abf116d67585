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
 * and the state's allocation; runtime-state.h lists where the rest lives
 * (start reading at rt_replay in runtime-commands.c).
 */
#include "runtime.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heuristics.h"
#include "pyrandom.h"
#include "runtime-state.h"

const char *outcome_name(enum outcome o)
{
	switch (o) {
	case OUTCOME_PASS: return "pass";
	case OUTCOME_OOM: return "oom";
	case OUTCOME_THRASH: return "thrash";
	}
	return "?";
}

/* Whether a key may ever be wide (runtime-state.h), known from the
 * schedule: a storage is at most its op's total output, and its compute is
 * a sum of distinct op costs (non-negative: the reader refuses others), so
 * at most their total. Last accesses are clock readings, which the scans
 * check themselves. */
static bool keys_may_be_wide(const struct schedule *s)
{
	return s->total_compute > RT_NARROW || s->max_output_size > (uint64_t)RT_NARROW;
}

static void state_init(struct runtime_state *rt, const struct schedule *s,
		       const struct runtime_config *cfg, struct runtime_result *res)
{
	memset(rt, 0, sizeof *rt);
	rt->s = s;
	rt->cfg = cfg;
	rt->h = cfg->heuristic;
	rt->res = res;
	const struct runtime_desc *rd = runtime_desc(cfg->runtime);
	rt->v1 = rd->banishing;
	rt->eager = rd->eager;
	rt->regions = rt->h && (rt->h->needs & rd->maintains & NEEDS_REGIONS);
	rt->eqclass = rt->h && (rt->h->needs & rd->maintains & NEEDS_EQCLASS);
	rt->st = xcalloc(s->n_storages + 1, sizeof *rt->st);
	rt->uf_free = RT_NONE;
	rt->key = xcalloc(s->n_storages + 1, sizeof *rt->key);
	for (size_t i = 0; i < s->n_storages; i++)
		rt->st[i].ecn = RT_NONE;
	rt->defined = xcalloc(s->n_tensors + 1, 1);
	rt->ts = s->tensor_storage;
	rt->par = s->op_args;
	rt->par_s = s->arg_storage;
	rt->sfwd = s->storage_fwd;
	rt->sfwd_off = s->storage_fwd_off;
	rt->srev = s->storage_rev;
	rt->srev_off = s->storage_rev_off;
	rt->n_sfwd = xcalloc(s->n_storages + 1, sizeof *rt->n_sfwd);
	rt->n_srev = xcalloc(s->n_storages + 1, sizeof *rt->n_srev);
	if (rt->v1) {
		rt->n_deps = xcalloc(s->n_storages + 1, sizeof *rt->n_deps);
		/* Banishing edits the lists: copies, appended to as ops come. */
		/* Children, one entry per argument slot and output, CSR by
		 * tensor (room for all of them; n_chi[t] so far). */
		rt->w_chi_off = xcalloc(s->n_tensors + 1, sizeof *rt->w_chi_off);
		for (size_t o = 0; o < s->n_ops; o++)
			for (uint32_t a = 0; a < s->ops[o].n_args; a++)
				rt->w_chi_off[s->op_args[s->ops[o].args + a]] += s->ops[o].n_outs;
		size_t nchi = 0;
		for (size_t t = 0; t < s->n_tensors; t++) {
			uint32_t c = rt->w_chi_off[t];
			rt->w_chi_off[t] = (uint32_t)nchi;
			nchi += c;
		}
		/* Each tensor has its own copy of its op's arguments (the
		 * siblings' lists lose different parents). */
		size_t npar = 0;
		for (size_t t = 0; t < s->n_tensors; t++)
			npar += s->ops[s->tensors[t].op].n_args;
		rt->w_par_off = xmalloc((s->n_tensors + 1) * sizeof *rt->w_par_off);
		rt->w_n_par = xmalloc((s->n_tensors + 1) * sizeof *rt->w_n_par);
		rt->w_par = xmalloc((npar + 1) * sizeof *rt->w_par);
		rt->w_par_s = xmalloc((npar + 1) * sizeof *rt->w_par_s);
		npar = 0;
		for (size_t t = 0; t < s->n_tensors; t++) {
			const struct sched_op *op = &s->ops[s->tensors[t].op];
			uint32_t a = op->args, n = op->n_args;
			rt->w_par_off[t] = (uint32_t)npar;
			rt->w_n_par[t] = n;
			memcpy(rt->w_par + npar, s->op_args + a, n * sizeof *rt->w_par);
			memcpy(rt->w_par_s + npar, s->arg_storage + a, n * sizeof *rt->w_par_s);
			npar += n;
		}
		rt->w_chi = xmalloc((nchi + 1) * sizeof *rt->w_chi);
		rt->n_chi = xcalloc(s->n_tensors + 1, sizeof *rt->n_chi);
		rt->w_sfwd = xmalloc(((size_t)s->storage_fwd_off[s->n_storages] + 1) * sizeof *rt->w_sfwd);
		rt->w_srev = xmalloc(((size_t)s->storage_rev_off[s->n_storages] + 1) * sizeof *rt->w_srev);
		rt->par = rt->w_par;
		rt->par_s = rt->w_par_s;
		rt->sfwd = rt->w_sfwd;
		rt->srev = rt->w_srev;
	}
	rt->tag = xcalloc(s->n_storages + 1, sizeof *rt->tag);

	/* SPEED-ONLY (docs/architecture.md): walks, bitsets or compressed
	 * sets keep the same regions and counts; test-differential compares
	 * all three, the reference test runs plain walks too. */
	rt->runs = rt->regions && !cfg->plain_regions &&
		   (cfg->run_regions || s->n_storages > RMEMO_MAX_STORAGES);
	if (rt->regions && !rt->runs)
		rt->reg = xcalloc(2 * s->n_storages + 1, sizeof *rt->reg);
	if (rt->runs) {
		rt->reg_slot = xmalloc((s->n_storages + 1) * sizeof *rt->reg_slot);
		memset(rt->reg_slot, 0xff, (s->n_storages + 1) * sizeof *rt->reg_slot);
		for (int d = 0; d < 2; d++)
			fenwick32_init(&rt->fw_len[d], s->n_storages);
		fenwick_init(&rt->fw_comp, s->n_storages);
	}
	if (rt->regions && !cfg->plain_regions && !rt->runs) {
		size_t n = s->n_storages;
		rt->rw = (uint32_t)((n + 63) / 64);
		rt->rrow = xmalloc((4 * n * rt->rw + 1) * sizeof *rt->rrow);
		rt->rbits = xcalloc(4 * n * rt->rw + 1, sizeof *rt->rbits);
		for (size_t i = 0; i < 2 * n; i++) {
			rt->reg[i].bin = rt->rbits + 2 * i * rt->rw;
			rt->reg[i].bfr = rt->reg[i].bin + rt->rw;
		}
		rt->rvalid = xcalloc(2 * n + 1, sizeof *rt->rvalid);
		rt->rseen = xcalloc(2 * n + 1, sizeof *rt->rseen);
		rt->rsummed = xcalloc(2 * n + 1, sizeof *rt->rsummed);
		rt->racc = xmalloc((2 * n + 1) * sizeof *rt->racc);
		rt->rcomp = xmalloc((2 * n + 1) * sizeof *rt->rcomp);
		rt->ridx = xmalloc((2 * n + 1) * sizeof *rt->ridx);
		rt->rlow = xmalloc((2 * n + 1) * sizeof *rt->rlow);
		rt->dfs = xmalloc((n + 1) * sizeof *rt->dfs);
		rt->dfs_pos = xmalloc((n + 1) * sizeof *rt->dfs_pos);
		rt->scc = xmalloc((n + 1) * sizeof *rt->scc);
	}
	if (rt->eqclass) {
		size_t ne = (size_t)s->storage_fwd_off[s->n_storages] + s->storage_rev_off[s->n_storages];
		rt->en = xmalloc((ne + 1) * sizeof *rt->en);
		rt->en_len = xcalloc(s->n_storages + 1, sizeof *rt->en_len);
		/* SPEED-ONLY: the same lists either way (test-differential's
		 * large_lists_equal_marks compares). Stamps take fewer
		 * instructions; a look through short lists leaves a large
		 * log's stamp array untouched (8 MiB on the 2^20 chain). */
		rt->en_scan = s->n_storages > RMEMO_MAX_STORAGES && !cfg->mark_lists;
		rt->uf_room = 2 * s->n_storages + 1024;
		rt->uf_parent = xmalloc(rt->uf_room * sizeof *rt->uf_parent);
		rt->uf_value = xmalloc(rt->uf_room * sizeof *rt->uf_value);
	}
	rt->mark_a = xcalloc(s->n_storages + 1, sizeof *rt->mark_a);
	rt->mark_b = xcalloc(s->n_storages + 1, sizeof *rt->mark_b);
	rt->mark_c = xcalloc(s->n_storages + 1, sizeof *rt->mark_c);
	/* SPEED-ONLY: integer scans while no key can pass 2^50, else the
	 * double ones (test-differential's wide_keys_agree forces them). */
	rt->wide = keys_may_be_wide(s);
	rt->budget = cfg->budget;
	rt->clock = 1;
	rt->rng = cfg->seed;
	if (rt->h && (rt->h->needs & NEEDS_PROTO))
		rt_proto_init(rt);
	if (cfg->python_random) {
		rt->pyrng = xmalloc(sizeof *rt->pyrng);
		py_random_seed(rt->pyrng, cfg->seed);
	}
}

static void state_free(struct runtime_state *rt)
{
	rt_proto_free(rt);
	free(rt->pyrng);
	if (rt->reg) {
		size_t nr = rt->reg_slot ? 2 * rt->n_slots : 2 * rt->s->n_storages;
		for (size_t i = 0; i < nr; i++) {
			free(rt->reg[i].in);
			free(rt->reg[i].fr);
			free(rt->reg[i].hs);
			if (rt->reg[i].rr)
				rt_region_free_runs(rt, &rt->reg[i]);
		}
		free(rt->reg);
	}
	free(rt->reg_slot);
	free(rt->slot_free);
	while (rt->rr_free) {
		struct rregion *x = rt->rr_free;
		rt->rr_free = x->next_free;
		iset_free(&x->in);
		iset_free(&x->fr);
		free(x);
	}
	for (int d = 0; d < 2; d++)
		fenwick32_free(&rt->fw_len[d]);
	fenwick_free(&rt->fw_comp);
	iset_free(&rt->is_tmp);
	iset_free(&rt->is_tmp2);
	free(rt->srt);
	free(rt->rrow);
	free(rt->rbits);
	free(rt->rvalid);
	free(rt->rseen);
	free(rt->rsummed);
	free(rt->racc);
	free(rt->rcomp);
	free(rt->ridx);
	free(rt->rlow);
	free(rt->dfs);
	free(rt->dfs_pos);
	free(rt->scc);
	free(rt->scratch_fwd.in);
	free(rt->scratch_fwd.fr);
	free(rt->scratch_rev.in);
	free(rt->scratch_rev.fr);
	u64set_free(&rt->deps);
	free(rt->n_deps);
	free(rt->st);
	free(rt->key);
	free(rt->w_par);
	free(rt->w_par_off);
	free(rt->w_n_par);
	free(rt->w_par_s);
	free(rt->w_chi);
	free(rt->w_chi_off);
	free(rt->w_sfwd);
	free(rt->w_srev);
	free(rt->n_sfwd);
	free(rt->n_srev);
	free(rt->defined);
	free(rt->n_chi);
	free(rt->en);
	free(rt->en_len);
	free(rt->uf_parent);
	free(rt->uf_value);
	free(rt->uf_mark);
	free(rt->stk);
	free(rt->mf);
	free(rt->fr2);
	free(rt->pool);
	free(rt->pk_size);
	free(rt->pk_compute);
	free(rt->pk_last);
	free(rt->mark_a);
	free(rt->mark_b);
	free(rt->mark_c);
	free(rt->tag);
}

int runtime_check_config(const struct runtime_config *cfg, struct rs_error *err)
{
	const struct heuristic *h = cfg->heuristic;
	if ((unsigned)cfg->runtime >= RUNTIME_KIND_COUNT)
		return rs_error_set(err, EXIT_USAGE, NULL, 0, "unknown runtime");
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
			     schedule_str(s, s->tensors[root].name));
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

int point_run(const struct schedule *s, const struct baseline *b,
	      const struct point_config *pc, struct point_result *pr,
	      struct rs_error *err)
{
	memset(pr, 0, sizeof *pr);
	pr->budget = point_budget(b, pc);
	double limit = pc->overhead_limit;
	struct runtime_config cfg = {
		.runtime = pc->runtime,
		.heuristic = pc->heuristic,
		.budget = pr->budget,
		.remat_limit = isinf(limit) ? INFINITY : (double)b->compute * (limit - 1),
		.seed = pc->seed,
		.no_dealloc = pc->no_dealloc,
		.check = pc->check,
		.plain_regions = pc->plain_regions,
		.run_regions = pc->run_regions,
		.mark_lists = pc->mark_lists,
		.proto = pc->proto,
		.on_event = pc->on_event,
		.ctx = pc->ctx,
	};
	double t0 = now_seconds();
	if (runtime_run(s, &cfg, &pr->run, err))
		return -1;
	pr->wall_ms = (now_seconds() - t0) * 1e3;
	pr->overhead = b->compute > 0 ? rt_div(pr->run.clock, (unsigned __int128)b->compute) : INFINITY;
	return 0;
}
