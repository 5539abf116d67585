/*
 * fit.c: the smallest passing budget, searched without assuming
 * monotone feasibility (fit.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devmem.h"
#include "experiment.h"
#include "fit.h"
#include "heuristics.h"
#include "pool.h"

uint64_t fit_lower_bound(const struct schedule *s)
{
	/* distinct storages per op through a stamp per storage */
	uint32_t *seen = xcalloc(s->n_storages ? s->n_storages : 1, sizeof *seen);
	uint64_t best = 0;
	for (size_t i = 0; i < s->n_ops; i++) {
		const struct sched_op *op = &s->ops[i];
		uint64_t need = op->total_size;
		for (uint32_t a = 0; a < op->n_args; a++) {
			uint32_t st = s->arg_storage[op->args + a];
			if (seen[st] != i + 1) {
				seen[st] = (uint32_t)(i + 1);
				need += s->storages[st].size;
			}
		}
		if (need > best)
			best = need;
	}
	free(seen);
	return best;
}

uint64_t fit_floor(const struct schedule *s, const struct fit_config *c)
{
	uint64_t op = fit_lower_bound(s), floor = schedule_floor(s, c->point.rt.runtime == RUNTIME_V1);
	return op > floor ? op : floor;
}

static uint64_t unbounded_peak(const struct schedule *s, const struct baseline *b, const struct fit_config *c,
			       struct rs_error *err, int *rc)
{
	/* the probes' point, unbounded */
	struct point_config u = c->point;
	u.budget = UINT64_MAX / 2;
	u.overhead_limit = INFINITY;
	struct runtime_config cfg = point_runtime_config(b, &u);
	struct runtime_result res;
	*rc = runtime_run(s, &cfg, &res, err);
	return res.peak_memory;
}

static bool device_full(void *ctx)
{
	return devmem_failed(ctx);
}

/* One replay of c's point at budget through the allocator model on a
 * device of `device` bytes (UINT64_MAX: unbounded): whether it passes
 * (the replay, and the allocator never failing to reserve), its live-byte
 * peak and the model's reserved peak. */
static bool device_replay(const struct schedule *s, const struct baseline *b, const struct fit_config *c,
			  uint64_t budget, uint64_t device, uint64_t *peak, uint64_t *reserved)
{
	struct point_config cfg = c->point;
	cfg.ratio = 0;
	cfg.budget = budget;
	struct devmem *dm = devmem_new(s, c->alloc, device);
	cfg.rt.on_event = devmem_on_event;
	cfg.rt.ctx = dm;
	if (device != UINT64_MAX)
		cfg.rt.stop = device_full;
	struct point_result pr;
	struct rs_error err;
	/* the live-byte probe at this budget ran already */
	if (point_run(s, b, &cfg, &pr, &err))
		rs_bug("fit --allocator: a replay at %llu bytes failed after the unbounded run passed: %s",
		       (unsigned long long)budget, err.msg);
	struct devmem_result dr;
	devmem_result(dm, &dr);
	devmem_free(dm);
	if (dr.broken && pr.run.outcome == OUTCOME_PASS)
		rs_bug("fit --allocator: the allocator's follower lost the replay's memory");
	*peak = pr.run.peak_memory;
	*reserved = dr.reserved_peak;
	return pr.run.outcome == OUTCOME_PASS;
}

/*
 * The smallest device on which the replay at budget (which passes in live
 * bytes) passes through the allocator: bisection between its live peak
 * minus one, which fails (the allocator holds at least the live bytes),
 * and its reserved peak on an unbounded device, which passes (the model
 * acts as unbounded until a reservation would pass the device; a device
 * limit turns garbage_collection_threshold on, which may need more: then
 * larger, by eighths). Assumes that for one budget a larger device does
 * not fail where a smaller passes. *replays counts the replays.
 */
static uint64_t device_min(const struct schedule *s, const struct baseline *b, const struct fit_config *c,
			   uint64_t budget, size_t *replays)
{
	uint64_t peak, hi, p2, r2;
	device_replay(s, b, c, budget, UINT64_MAX, &peak, &hi);
	*replays = 1;
	uint64_t lo = peak ? peak - 1 : 0;
	if (hi <= lo)
		hi = lo + 1;
	while ((++*replays, !device_replay(s, b, c, budget, hi, &p2, &r2))) {
		if (hi > UINT64_MAX / 4)
			return UINT64_MAX;
		lo = hi;
		hi += hi / 8 + 1;
	}
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		++*replays;
		if (device_replay(s, b, c, budget, mid, &p2, &r2))
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

int fit_plan(const struct schedule *s, const struct baseline *b, const struct fit_config *c,
	     uint64_t *lower, uint64_t *upper, uint64_t *step, size_t *n_grid, struct rs_error *err)
{
	if (!(c->resolution > 0 && c->resolution <= 1))
		return rs_error_set(err, EXIT_USAGE, NULL, 0,
				    "resolution %g is outside (0, 1] (a fraction of the baseline memory)",
				    c->resolution);
	double st = ceil(c->resolution * (double)b->memory);
	if (c->resolution * (double)b->memory < 1)
		return rs_error_set(err, EXIT_USAGE, NULL, 0,
				    "resolution %g is finer than one byte for a baseline memory of %llu bytes",
				    c->resolution, (unsigned long long)b->memory);
	int rc;
	*upper = unbounded_peak(s, b, c, err, &rc);
	if (rc)
		return -1;
	*lower = fit_floor(s, c);
	if (*lower > *upper) /* cannot be: the peak holds every op's inputs and outputs, and
			      * the end of an unbounded run the floor */
		rs_bug("fit: lower bound %llu above the unbounded peak %llu",
		       (unsigned long long)*lower, (unsigned long long)*upper);
	*step = (uint64_t)st;
	uint64_t span = *upper - *lower;
	uint64_t n = span / *step + (span % *step ? 1 : 0) + 1; /* L + k step < U, then U */
	if (span == 0)
		n = 1;
	if (n > FIT_MAX_GRID)
		return rs_error_set(err, EXIT_USAGE, NULL, 0,
				    "resolution %g makes %llu grid points between %llu and %llu bytes, more than %d: "
				    "take a coarser one", c->resolution, (unsigned long long)n,
				    (unsigned long long)*lower, (unsigned long long)*upper, FIT_MAX_GRID);
	*n_grid = (size_t)n;
	if (c->scan > 0) {
		double ss = c->scan_step > 0 ? c->scan_step : c->resolution / 10;
		if (!(c->scan <= 10) || !(ss > 0 && ss <= 1) || ss * (double)b->memory < 1)
			return rs_error_set(err, EXIT_USAGE, NULL, 0,
					    "a scan of %g with a step of %g of the baseline memory (%llu bytes): "
					    "the span must be in (0, 10], the step in (0, 1] and at least a byte",
					    c->scan, ss, (unsigned long long)b->memory);
		double probes = floor(c->scan / ss);
		if (probes > FIT_MAX_GRID)
			return rs_error_set(err, EXIT_USAGE, NULL, 0,
					    "a scan of %g in steps of %g is %.0f replays, more than %d: "
					    "take a shorter span or a coarser --scan-step",
					    c->scan, ss, probes, FIT_MAX_GRID);
	}
	return 0;
}

struct probe_ctx {
	const struct schedule *s;
	const struct baseline *b;
	const struct fit_config *c;
	struct fit_probe *probes;
};

static void probe(const struct probe_ctx *pc, struct fit_probe *p)
{
	struct point_config cfg = pc->c->point;
	cfg.ratio = 0;
	cfg.budget = p->budget;
	struct point_result pr;
	struct rs_error err;
	/* The configuration was accepted by the unbounded run already, and
	 * a log a region heuristic cannot replay failed it there. */
	if (point_run(pc->s, pc->b, &cfg, &pr, &err))
		rs_bug("fit: a probe at %llu bytes failed after the unbounded run passed: %s",
		       (unsigned long long)p->budget, err.msg);
	p->outcome = pr.run.outcome;
	p->overhead = pr.overhead;
	p->same_from = pr.run.same_from;
	p->same_below = pr.run.same_below;
}

static void grid_task(void *ctx, size_t i)
{
	struct probe_ctx *pc = ctx;
	probe(pc, &pc->probes[i]);
}

static int by_budget(const void *a, const void *b)
{
	const struct fit_probe *x = a, *y = b;
	return x->budget < y->budget ? -1 : x->budget > y->budget;
}

/* Bisect (lo fails, hi passes) to adjacent budgets; appends the probes.
 * Returns the final hi: the byte below it fails, and every probe of
 * this bisection at or above it passed. */
static uint64_t bisect(const struct probe_ctx *pc, uint64_t lo, uint64_t hi, struct fit_probe **ps,
		       size_t *n, size_t *cap)
{
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		XGROW(*ps, *cap, *n + 1);
		struct fit_probe *p = &(*ps)[(*n)++];
		memset(p, 0, sizeof *p);
		p->budget = mid;
		/* A probe made already whose replay every budget in a range
		 * repeats, this one's among them: its answer, with no replay.
		 * The steps and their answers are what replays would give. */
		const struct fit_probe *same = NULL;
		for (size_t i = 0; i + 1 < *n && !same; i++)
			if (!(*ps)[i].known && (*ps)[i].same_from <= mid && mid < (*ps)[i].same_below)
				same = &(*ps)[i];
		if (same) {
			p->outcome = same->outcome;
			p->overhead = same->overhead;
			p->same_from = same->same_from;
			p->same_below = same->same_below;
			p->known = true;
		} else {
			probe(pc, p);
		}
		if (p->outcome == OUTCOME_PASS)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* The device phase (fit_config.alloc): the passing probes' devices. */
struct device_ctx {
	const struct probe_ctx *pc;
	struct fit_probe **todo;
};

static void device_task(void *ctx, size_t i)
{
	struct device_ctx *dc = ctx;
	struct fit_probe *p = dc->todo[i];
	p->device = device_min(dc->pc->s, dc->pc->b, dc->pc->c, p->budget, &p->device_replays);
}

static void device_phase(struct probe_ctx *pc, struct fit_result *r, struct fit_probe *ps, size_t np)
{
	struct fit_probe **todo = xcalloc(np ? np : 1, sizeof *todo);
	size_t n = 0;
	for (size_t i = 0; i < np; i++)
		if (ps[i].outcome == OUTCOME_PASS && !ps[i].scan)
			todo[n++] = &ps[i];
	struct device_ctx dc = {.pc = pc, .todo = todo};
	pool_run(pc->c->jobs ? pc->c->jobs : pool_default_jobs(), n, device_task, &dc, NULL, 1.0);
	free(todo);
	uint64_t peak;
	device_replay(pc->s, pc->b, pc->c, r->upper, UINT64_MAX, &peak, &r->reserved_upper);
	r->device_min = UINT64_MAX;
	for (size_t i = 0; i < np; i++) {
		r->n_device_replays += ps[i].device_replays;
		if (ps[i].device && ps[i].device < r->device_min) {
			r->device_min = ps[i].device;
			r->device_budget = ps[i].budget;
		}
		if (ps[i].budget == r->smallest_pass)
			r->device_at_smallest = ps[i].device;
	}
}

static void scan_task(void *ctx, size_t i)
{
	struct probe_ctx *pc = ctx;
	probe(pc, &pc->probes[i]);
}

/* Step 3 and 4 of fit.h, when the floor fails: the grid above it and the
 * bisections. ps[0] is the floor's probe; returns the probe count. */
static size_t grid_search(struct probe_ctx *pc, struct fit_result *r, size_t n,
			  struct fit_probe **psp, size_t *cap)
{
	struct fit_probe *ps = *psp;
	for (size_t i = 1; i < n; i++) {
		ps[i].budget = i + 1 < n ? r->lower + i * r->step : r->upper;
		ps[i].grid = true;
	}
	pc->probes = ps + 1;
	pool_run(pc->c->jobs ? pc->c->jobs : pool_default_jobs(), n - 1, grid_task, pc, NULL, 1.0);
	pc->probes = NULL;

	/* The smallest passing grid point (U passes: nothing is evicted). */
	size_t lo_pass = 1;
	while (lo_pass < n && ps[lo_pass].outcome != OUTCOME_PASS)
		lo_pass++;
	if (lo_pass == n)
		rs_bug("fit: the unbounded peak %llu does not pass", (unsigned long long)r->upper);
	size_t hi_fail = n; /* the largest failing grid point above it */
	for (size_t i = n; i-- > lo_pass;)
		if (ps[i].outcome != OUTCOME_PASS) {
			hi_fail = i;
			break;
		}
	uint64_t pass_b = ps[lo_pass].budget, fail_b = hi_fail < n ? ps[hi_fail].budget : 0;
	uint64_t next_pass = hi_fail < n ? ps[hi_fail + 1].budget : 0;
	size_t np = n;
	r->smallest_pass = bisect(pc, ps[lo_pass - 1].budget, pass_b, psp, &np, cap);
	if (hi_fail < n) {
		r->all_pass_from = bisect(pc, fail_b, next_pass, psp, &np, cap);
		r->largest_fail = r->all_pass_from - 1;
	} else {
		r->all_pass_from = r->smallest_pass;
	}
	return np;
}

/* Step 5: every scan step above the smallest pass, up to the span (or U). */
static size_t scan(struct probe_ctx *pc, const struct baseline *b, struct fit_result *r,
		   struct fit_probe **psp, size_t np, size_t *cap)
{
	const struct fit_config *c = pc->c;
	double ss = c->scan_step > 0 ? c->scan_step : c->resolution / 10;
	r->scan_step = (uint64_t)ceil(ss * (double)b->memory);
	double to = (double)r->smallest_pass + c->scan * (double)b->memory;
	r->scan_to = to < (double)r->upper ? (uint64_t)to : r->upper;
	size_t k = r->scan_to > r->smallest_pass ? (size_t)((r->scan_to - r->smallest_pass) / r->scan_step) : 0;
	XGROW(*psp, *cap, np + k + 1);
	struct fit_probe *sp = *psp + np;
	memset(sp, 0, (k + 1) * sizeof *sp);
	for (size_t i = 0; i < k; i++) {
		sp[i].budget = r->smallest_pass + (i + 1) * r->scan_step;
		sp[i].scan = true;
	}
	pc->probes = sp;
	pool_run(c->jobs ? c->jobs : pool_default_jobs(), k, scan_task, pc, NULL, 1.0);
	pc->probes = NULL;
	r->n_scan = k;
	return np + k;
}

/* The gaps between consecutive probes above the smallest pass (and below
 * U, which passes): how many, and the widest. ps sorted. */
static void untried(struct fit_result *r, const struct fit_probe *ps, size_t np)
{
	uint64_t prev = r->smallest_pass, widest = 0;
	for (size_t i = 0; i <= np; i++) {
		uint64_t next = i < np ? ps[i].budget : r->upper;
		if (next <= prev)
			continue;
		if (next - prev > 1) {
			r->n_untried_gaps++;
			if (next - prev - 1 > widest) { /* the first of the widest */
				widest = next - prev - 1;
				r->untried_lo = prev + 1;
				r->untried_hi = next - 1;
			}
		}
		prev = next;
	}
}

int fit_run(const struct schedule *s, const struct baseline *b, const struct fit_config *c,
	    struct fit_result *r, struct rs_error *err)
{
	memset(r, 0, sizeof *r);
	double t0 = now_seconds();
	size_t n = 0;
	if (fit_plan(s, b, c, &r->lower, &r->upper, &r->step, &n, err))
		return -1;
	r->footprint = fit_lower_bound(s);
	r->floor_memory = schedule_floor(s, c->point.rt.runtime == RUNTIME_V1);
	size_t cap = n + 128;
	struct fit_probe *ps = xcalloc(cap, sizeof *ps);
	struct probe_ctx pc = {.s = s, .b = b, .c = c};
	/* L first: when it passes, it is the answer. */
	ps[0].budget = r->lower;
	ps[0].grid = true;
	probe(&pc, &ps[0]);
	size_t np;
	if (ps[0].outcome == OUTCOME_PASS) {
		r->floor_passes = true;
		r->smallest_pass = r->all_pass_from = r->lower;
		r->n_grid = np = 1;
	} else {
		np = grid_search(&pc, r, n, &ps, &cap);
		r->n_grid = n;
	}
	if (c->scan > 0)
		np = scan(&pc, b, r, &ps, np, &cap);
	qsort(ps, np, sizeof *ps, by_budget);
	/* a scan may meet a budget probed already: keep one probe a budget */
	size_t m = 0;
	for (size_t i = 0; i < np; i++)
		if (!m || ps[m - 1].budget != ps[i].budget)
			ps[m++] = ps[i];
	np = m;
	/* What the probes say, recomputed from all of them: a bisection may
	 * have met a pass below the grid's smallest, or a failure above the
	 * grid's largest failing point (or the scan one). */
	for (size_t i = 0; i < np; i++)
		if (ps[i].outcome == OUTCOME_PASS) {
			r->smallest_pass = ps[i].budget;
			break;
		}
	r->largest_fail = 0;
	for (size_t i = np; i-- > 0;)
		if (ps[i].outcome != OUTCOME_PASS) {
			if (ps[i].budget > r->smallest_pass)
				r->largest_fail = ps[i].budget;
			r->all_pass_from = i + 1 < np ? ps[i + 1].budget : r->upper;
			break;
		}
	if (!r->largest_fail)
		r->all_pass_from = r->smallest_pass;
	r->exact = r->smallest_pass == r->lower;
	untried(r, ps, np);
	if (c->alloc)
		device_phase(&pc, r, ps, np);
	r->probes = ps;
	r->n_probes = np;
	for (size_t i = 0; i < np; i++)
		r->n_known += ps[i].known;
	r->wall_ms = (now_seconds() - t0) * 1e3;
	return 0;
}

void fit_result_free(struct fit_result *r)
{
	free(r->probes);
	memset(r, 0, sizeof *r);
}


int fit_experiment_tsv(const struct experiment *e, double resolution, unsigned jobs,
		       char **text, size_t *len, struct rs_error *err)
{
	FILE *f = open_memstream(text, len);
	if (!f)
		rs_bug("fit: open_memstream failed");
	fputs("model\tseries\theuristic\truntime\tseed\toverhead_limit\tresolution\tbaseline_memory"
	      "\tlower_bound\tunbounded_peak\tstep\tsmallest_pass\tsmallest_pass_ratio"
	      "\tlargest_fail_above\tall_pass_from\tall_pass_from_ratio\tmonotone\tprobes\n", f);
	int rc = 0;
	for (size_t m = 0; m < e->n_models; m++) {
		const struct exp_model *em = &e->models[m];
		if (!em->base.memory) {
			fprintf(stderr, "rematsim: fit.tsv: model '%s' has a baseline memory of 0 bytes: "
				"nothing to search, left out\n", em->name);
			continue;
		}
		/* one byte at least: a resolution finer than that, for a small
		 * model, is one byte (the finest grid there is) */
		double res_m = resolution;
		if (res_m * (double)em->base.memory < 1) {
			res_m = 1.0 / (double)em->base.memory;
			while (res_m * (double)em->base.memory < 1)
				res_m = nextafter(res_m, 2);
		}
		for (size_t k = 0; k < e->n_series; k++) {
			const struct exp_series *se = &e->series[k];
			struct fit_config fc = {
				.point.rt.heuristic = se->heuristic, .point.rt.runtime = se->runtime,
				.point.overhead_limit = e->overhead_limit,
				.point.rt.seed = experiment_trial_seed(e->seed, em->name,
								       se->heuristic->name, 0),
				.point.rt.no_dealloc = se->no_dealloc, .resolution = res_m, .jobs = jobs,
			};
			struct fit_result r;
			struct rs_error e1;
			if (fit_run(em->sched, &em->base, &fc, &r, &e1)) {
				fprintf(stderr, "rematsim: fit.tsv: model '%s', series '%s' left out: %s\n",
					em->name, se->name, e1.msg);
				if (!rc)
					*err = e1;
				rc = -1;
				continue;
			}
			char lim[FMT_DOUBLE_LEN], res[FMT_DOUBLE_LEN], r1[FMT_DOUBLE_LEN], r2[FMT_DOUBLE_LEN];
			double bm = (double)em->base.memory;
			fmt_double(lim, e->overhead_limit);
			fmt_double(res, res_m);
			fmt_double(r1, (double)r.smallest_pass / bm);
			fmt_double(r2, (double)r.all_pass_from / bm);
			/* names as they are: no tab or line break (experiment.c) */
			fprintf(f, "%s\t%s\t%s\t%s\t%" PRIu64 "\t%s\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
				"\t%" PRIu64 "\t%" PRIu64 "\t%s\t", em->name, se->name, se->heuristic->name,
				runtime_kind_name(se->runtime), fc.point.rt.seed, lim, res, em->base.memory, r.lower,
				r.upper, r.step, r.smallest_pass, r1);
			if (r.largest_fail)
				fprintf(f, "%" PRIu64, r.largest_fail);
			else
				fputs("-", f);
			fprintf(f, "\t%" PRIu64 "\t%s\t%s\t%zu\n", r.all_pass_from, r2,
				r.largest_fail ? "no" : "yes", r.n_probes);
			fit_result_free(&r);
		}
	}
	if (fclose(f))
		rs_bug("fit: memstream failed");
	return rc;
}
