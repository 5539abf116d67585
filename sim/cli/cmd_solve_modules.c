/*
 * cmd_solve_modules.c: `rematsim solve --modules` (a planner's split
 * points restricted to module boundaries, named by module, and the
 * modules to wrap with a checkpoint: solvers/modules.h) and `rematsim
 * solve --splits A,B,...` (an explicit plan, of forward-op indices or
 * module names, replayed). cmd_solve.c parses the options and hands over.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "modules.h"
#include "plan.h"
#include "planners.h"
#include "profile.h"
#include "schedule.h"
#include "util.h"

/* Most split points --splits takes. */
#define MAX_SPLITS 100000

static void print_error(const struct rs_error *err)
{
	if (err->file[0])
		rs_error_print(err);
	else
		fprintf(stderr, "rematsim solve: %s\n", err->msg);
}

/* --splits: comma-separated forward-op indices or module names. */
static int parse_splits(const char *text, const struct module_calls *m, bool have_m,
			const struct schedule *s, const struct profile *p, bool modules, size_t **out,
			size_t *n_out, struct rs_error *err)
{
	size_t cap = 8, n = 0;
	size_t *sp = xmalloc(cap * sizeof *sp);
	char *copy = xstrdup(text), *save = NULL;
	int rc = 0;
	if (!*text)
		rc = rs_error_set(err, EXIT_USAGE, NULL, 0, "--splits wants a list of forward-op "
				  "indices or module names, A,B,...");
	for (char *tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		size_t at = 0;
		bool digits = *tok != 0;
		for (const char *q = tok; *q; q++)
			digits = digits && *q >= '0' && *q <= '9';
		if (digits) {
			errno = 0;
			unsigned long long v = strtoull(tok, NULL, 10);
			if (errno || v > p->n) {
				rc = rs_error_set(err, EXIT_USAGE, NULL, 0, "split point %s is past the "
						  "last forward op (the log has %zu)", tok, p->n);
				break;
			}
			at = (size_t)v;
		} else if (!have_m) {
			rc = rs_error_set(err, EXIT_DATAERR, s->source, 0,
					  "split '%s' names a module, but the log has no module calls "
					  "(ANNOTATE ENTER/EXIT): give forward-op indices", tok);
			break;
		} else {
			long c = modules_find(m, tok);
			if (c < 0) {
				const char **names = xmalloc(m->n * sizeof *names);
				for (size_t i = 0; i < m->n; i++)
					names[i] = schedule_str(m->s, m->c[i].name);
				const char *near = nearest_name(tok, names, m->n);
				rc = rs_error_set(err, EXIT_USAGE, NULL, 0,
						  "split '%s' is no module of the log's forward pass%s%s%s",
						  tok, near ? " (did you mean '" : "", near ? near : "",
						  near ? "'?)" : "");
				free(names);
				break;
			}
			const struct module_call *mc = &m->c[c];
			if (mc->veto != MODULE_OK && modules) {
				rc = rs_error_set(err, EXIT_USAGE, NULL, 0,
						  "module '%s' cannot be checkpointed: %s%s", tok,
						  module_veto_text(mc->veto),
						  mc->veto == MODULE_CALLED_AGAIN ? "; a checkpoint wrapper wraps "
						  "every call of it" : "");
				break;
			}
			if (mc->calls > 1) {
				rc = rs_error_set(err, EXIT_USAGE, NULL, 0,
						  "module '%s' is called %u times in the forward pass: give the "
						  "forward-op index of the call to split at", tok, mc->calls);
				break;
			}
			at = mc->first;
		}
		if (modules && !modules_is_bound(m, at)) {
			size_t lo = 0, hi = 0;
			for (size_t i = 0; i < m->n_bound; i++) {
				if (m->bound[i] < at)
					lo = m->bound[i];
				else if (!hi)
					hi = m->bound[i];
			}
			rc = rs_error_set(err, EXIT_USAGE, NULL, 0,
					  "split point %s (forward op %zu) is not a module boundary (the start "
					  "or end of a call that can be checkpointed): the nearest are %zu and "
					  "%zu (`rematsim profile --modules` lists the calls)", tok, at, lo,
					  hi ? hi : p->n);
			break;
		}
		if (n && at <= sp[n - 1]) {
			rc = rs_error_set(err, EXIT_USAGE, NULL, 0, "split point %s (forward op %zu) is "
					  "not after the one before it (%zu): give them in order", tok, at,
					  sp[n - 1]);
			break;
		}
		if (n == MAX_SPLITS) {
			rc = rs_error_set(err, EXIT_USAGE, NULL, 0, "more than %d split points",
					  MAX_SPLITS);
			break;
		}
		XGROW(sp, cap, n + 1);
		sp[n++] = at;
	}
	free(copy);
	if (rc) {
		free(sp);
		return -1;
	}
	*out = sp;
	*n_out = n;
	return 0;
}

/* The name of split point at: the outermost call starting there, else
 * "after" the innermost call ending there; NULL for neither. */
static const char *split_name(const struct module_calls *m, size_t at, bool *after)
{
	long c = modules_starting(m, at);
	*after = false;
	if (c < 0) {
		c = modules_ending(m, at);
		*after = c >= 0;
	}
	return c >= 0 ? schedule_str(m->s, m->c[c].name) : NULL;
}

/* Planner pl's split points on the module units (a profile of bare sizes,
 * no graph: planners of split points only), param k: 0, or -1 with err. */
static int plan_units(const struct planner *pl, const uint64_t *units, size_t n_units,
		      uint64_t k, bool exact, struct reset_plan *out, struct rs_error *err)
{
	struct profile up;
	profile_from_sizes(units, n_units, &up);
	struct planner_args args = {.param = k, .exact = exact};
	struct planner_plan pp;
	int rc = planner_plan(pl, &up, &args, &pp, err);
	profile_free(&up);
	if (rc)
		return -1;
	*out = pp.split;
	memset(&pp.split, 0, sizeof pp.split);
	planner_plan_free(&pp);
	return 0;
}

/* The tries of --budget's search: every k in turn. */
struct mod_try {
	uint64_t k, peak;
	bool replayed; /* false: the plan as applied is the one of k - 1 */
};
struct mod_search {
	struct mod_try *t;
	size_t n, cap, n_replays, best;
	size_t *prev, n_prev; /* the plan as applied of the try before */
};

/* Replay a module plan (the plan as applied) of planner param k, unless
 * it is the plan of the try before; fits? -1 on error. */
static int try_k(const struct planner *pl, const struct module_calls *m, const uint64_t *units,
		 size_t n_units, size_t lo, const struct schedule *s, const struct baseline *b, uint64_t k,
		 bool exact, uint64_t budget, struct mod_search *ms, struct rs_error *err)
{
	struct reset_plan plan;
	if (plan_units(pl, units, n_units, k, exact, &plan, err))
		return -1;
	for (size_t i = 0; i < plan.n_splits; i++)
		plan.splits[i] = modules_unit_split(m, lo + plan.splits[i]);
	struct module_plan mp;
	modules_apply(m, plan.splits, plan.n_splits, &mp);
	reset_plan_free(&plan);
	XGROW(ms->t, ms->cap, ms->n + 1);
	struct mod_try *t = &ms->t[ms->n];
	t->k = k;
	if (ms->n && ms->n_prev == mp.n_splits &&
	    (!mp.n_splits || !memcmp(ms->prev, mp.splits, mp.n_splits * sizeof *mp.splits))) {
		t->peak = t[-1].peak;
		t->replayed = false;
	} else {
		struct plan_result res;
		if (plan_replay_wraps(s, b, mp.splits, mp.n_splits, mp.as_usual, false, &res, err)) {
			module_plan_free(&mp);
			return -1;
		}
		t->peak = res.run.outcome == OUTCOME_PASS ? res.run.peak_memory : UINT64_MAX;
		t->replayed = true;
		ms->n_replays++;
		free(ms->prev);
		ms->prev = xmalloc((mp.n_splits ? mp.n_splits : 1) * sizeof *ms->prev);
		if (mp.n_splits)
			memcpy(ms->prev, mp.splits, mp.n_splits * sizeof *mp.splits);
		ms->n_prev = mp.n_splits;
	}
	module_plan_free(&mp);
	if (!ms->n || t->peak < ms->t[ms->best].peak)
		ms->best = ms->n;
	ms->n++;
	return t->peak <= budget;
}

/* The search as JSON (search.tries: every k tried). */
static json_t *search_json(const struct mod_search *ms, uint64_t budget, bool found, uint64_t k)
{
	json_t *f = json_object(), *tr = json_array();
	json_object_set_new(f, "budget", json_integer((json_int_t)budget));
	json_object_set_new(f, "found", json_boolean(found));
	json_object_set_new(f, "k", found ? json_integer((json_int_t)k) : json_null());
	if (ms->n)
		json_object_set_new(f, "best", json_pack("{s:I, s:I}", "k",
			(json_int_t)ms->t[ms->best].k, "peak_memory", (json_int_t)ms->t[ms->best].peak));
	json_object_set_new(f, "replays", json_integer((json_int_t)ms->n_replays));
	for (size_t i = 0; i < ms->n; i++)
		json_array_append_new(tr, json_pack("{s:I, s:I, s:b}", "k", (json_int_t)ms->t[i].k,
						    "peak_memory", (json_int_t)ms->t[i].peak,
						    "replayed", ms->t[i].replayed));
	json_object_set_new(f, "tries", tr);
	return f;
}

/* One `solve --modules`/`--splits` run: what parse, search and print
 * share. */
struct mod_run {
	struct schedule *s;
	struct profile p;
	struct module_calls m;
	bool have_m;
	struct baseline base;
	struct reset_plan plan;
	struct module_plan mp;
	struct plan_result res;
	uint64_t *units;
	size_t n_units;
	size_t *given, n_given;
	uint64_t param, floor, chunk;
	struct mod_search ms;
	size_t lo;   /* --within: the first unit of the container */
	long within; /* its call */
};

/* The log's profile and module calls, restricted by --depth and --within,
 * its baseline and the budget's check: 0, or -1 with err. */
static int mod_load(const struct solve_module_opts *o, struct mod_run *r, struct rs_error *err)
{
	const struct schedule *s = r->s;
	struct module_calls *m = &r->m;
	if (profile_build(s, &r->p, err))
		return -1;
	if (s->n_marks) {
		if (modules_build(s, &r->p, m, err)) {
			if (o->modules)
				return -1;
		} else {
			r->have_m = true;
		}
	}
	if (o->modules && !r->have_m) {
		rs_error_set(err, EXIT_DATAERR, s->source, 0,
			     "--modules needs the log's module calls (ANNOTATE ENTER/EXIT records), "
			     "and it has none: record it with rematsim_torch and model= "
			     "(docs/log-format.md, Module calls)");
		return -1;
	}
	if (r->have_m && (o->depth >= 0 || o->within)) {
		long parent = -1;
		if (o->within) {
			parent = modules_find(m, o->within);
			if (parent < 0) {
				const char **names = xmalloc(m->n * sizeof *names);
				for (size_t i = 0; i < m->n; i++)
					names[i] = schedule_str(s, m->c[i].name);
				const char *near = nearest_name(o->within, names, m->n);
				rs_error_set(err, EXIT_USAGE, NULL, 0,
					     "--within '%s' is no module of the log's forward pass%s%s%s",
					     o->within, near ? " (did you mean '" : "", near ? near : "",
					     near ? "'?)" : "");
				free(names);
				return -1;
			}
		}
		r->within = parent;
		if (!modules_restrict(m, o->depth, parent)) {
			char at[64] = "";
			if (o->depth >= 0)
				snprintf(at, sizeof at, " at depth %ld", o->depth);
			rs_error_set(err, EXIT_DATAERR, s->source, 0,
				     "no module call%s%s%s can be checkpointed (`rematsim profile "
				     "--modules` lists each call's depth and why)", at,
				     o->within ? " inside " : "", o->within ? o->within : "");
			return -1;
		}
	}
	if (o->modules && !m->n_bound && !o->splits) {
		rs_error_set(err, EXIT_DATAERR, s->source, 0,
			     "no module call of the forward pass can be checkpointed "
			     "(`rematsim profile --modules` says why for each)");
		return -1;
	}
	baseline_run(s, &r->base);
	if (o->have_budget && o->budget < r->floor) {
		rs_error_set(err, EXIT_USAGE, NULL, 0,
			     "budget %" PRIu64 " bytes is below the log's floor, %" PRIu64 " bytes "
			     "(what a replay holds pinned at the end: the constants and the outputs "
			     "still held): no plan can fit it", o->budget, r->floor);
		return -1;
	}
	return 0;
}

/* --budget found no k that fits: the search (JSON, on standard output
 * with --json) and the error. */
static void mod_no_fit(const struct solve_module_opts *o, const struct mod_run *r, struct rs_error *err)
{
	const struct mod_try *b = &r->ms.t[r->ms.best];
	if (o->json) {
		json_t *j = json_object();
		json_object_set_new(j, "log", json_string(r->s->source));
		json_object_set_new(j, "planner", json_string(o->pl->name));
		json_object_set_new(j, "forward_ops", json_integer((json_int_t)r->p.n));
		json_object_set_new(j, "module_boundaries", json_integer((json_int_t)r->m.n_bound));
		json_object_set_new(j, "search", search_json(&r->ms, o->budget, false, 0));
		char *line = json_dumps(j, JSON_COMPACT);
		puts(line);
		free(line);
		json_decref(j);
	}
	rs_error_set(err, EXIT_DATAERR, r->s->source, 0,
		     "no %s plan on module boundaries fits in %" PRIu64 " bytes: "
		     "the smallest replayed peak is %" PRIu64 " bytes, at k = %" PRIu64
		     " (every k tried, 0 to %zu: %zu replays)", o->pl->name, o->budget,
		     b->peak, b->k, r->n_units, r->ms.n_replays);
}

/* The planner's split points on the module units (--min-peak and --budget
 * search every k), or the ones given; 0, or -1 with err. */
static int mod_plan(const struct solve_module_opts *o, struct mod_run *r, struct rs_error *err)
{
	struct module_calls *m = &r->m;
	if (o->splits) {
		if (parse_splits(o->splits, m, r->have_m, r->s, &r->p, o->modules, &r->given, &r->n_given, err))
			return -1;
		r->plan.splits = r->given;
		r->plan.n_splits = r->n_given;
		r->given = NULL;
		return 0;
	}
	r->units = modules_units(m, &r->n_units);
	if (r->within >= 0) {
		/* --within: the planner splits the container's units only
		 * (b_lo = its first op, b_hi = its end); the ops before it
		 * fall in the first segment, unwrapped, those after it in
		 * the last, run as usual */
		size_t hi = r->n_units;
		for (size_t j = 0; j <= m->n_bound; j++) {
			size_t b = j ? m->bound[j - 1] : 0;
			if (b <= m->c[r->within].first)
				r->lo = j;
			if (b >= m->c[r->within].end && hi == r->n_units)
				hi = j;
		}
		r->n_units = hi - r->lo;
	}
	const uint64_t *units = r->units + r->lo;
	if (o->min_peak) {
		/* every k: the smallest replayed peak of the plans as applied */
		for (uint64_t k = 0; k <= r->n_units; k++)
			if (try_k(o->pl, m, units, r->n_units, r->lo, r->s, &r->base, k, o->exact, 0, &r->ms,
				  err) < 0)
				return -1;
		r->param = r->ms.t[r->ms.best].k;
	} else if (o->have_budget) {
		/* dp's smallest k whose plan, as applied, fits: the peak is
		 * not monotone in k (docs/solvers.md), so every k in turn */
		int fit = 0;
		for (uint64_t k = 0; k <= r->n_units && !fit; k++)
			if ((fit = try_k(o->pl, m, units, r->n_units, r->lo, r->s, &r->base, k, o->exact,
					 o->budget, &r->ms, err)) < 0)
				return -1;
		if (!fit) {
			mod_no_fit(o, r, err);
			return -1;
		}
		r->param = r->ms.t[r->ms.n - 1].k;
	}
	if (plan_units(o->pl, units, r->n_units, r->param, o->exact, &r->plan, err))
		return -1;
	for (size_t i = 0; i < r->plan.n_splits; i++)
		r->plan.splits[i] = modules_unit_split(m, r->lo + r->plan.splits[i]);
	return 0;
}

/* The plan applied to the module calls (--modules) and replayed
 * (--replay); its largest chunk. 0, or -1 with err. */
static int mod_apply(const struct solve_module_opts *o, struct mod_run *r, struct rs_error *err)
{
	const size_t *rsplits = r->plan.splits;
	const bool *usual = NULL;
	size_t rn = r->plan.n_splits;
	if (o->modules) {
		modules_apply(&r->m, r->plan.splits, r->plan.n_splits, &r->mp);
		rsplits = r->mp.splits;
		usual = r->mp.as_usual;
		rn = r->mp.n_splits;
	}
	if (o->replay && plan_replay_wraps(r->s, &r->base, rsplits, rn, usual, o->check, &r->res, err))
		return -1;
	r->chunk = planner_max_chunk(r->p.bytes, r->p.n, r->plan.splits, r->plan.n_splits);
	return 0;
}

/* The split points, each with its op and module, as JSON (into j). */
static void mod_json_splits(const struct solve_module_opts *o, const struct mod_run *r, json_t *j)
{
	const struct schedule *s = r->s;
	json_t *sp = json_array(), *named = json_array(), *smods = json_array();
	for (size_t i = 0; i < r->plan.n_splits; i++) {
		size_t at = r->plan.splits[i];
		json_array_append_new(sp, json_integer((json_int_t)at));
		json_t *x = json_pack("{s:I}", "index", (json_int_t)at);
		if (at < r->p.n) {
			const struct sched_op *op = &s->ops[r->p.op[at]];
			json_object_set_new(x, "op", json_string(schedule_str(s, op->name)));
			json_object_set_new(x, "line", json_integer(op->line));
		} else {
			json_object_set_new(x, "op", json_null());
			json_object_set_new(x, "line", json_null());
		}
		if (r->have_m) {
			bool after;
			const char *nm = split_name(&r->m, at, &after);
			json_object_set_new(x, after ? "after" : "module", nm ? json_string(nm) : json_null());
			json_array_append_new(smods, nm && !after ? json_string(nm) : json_null());
		}
		json_array_append_new(named, x);
	}
	json_object_set_new(j, "split_points", sp);
	json_object_set_new(j, "splits", named);
	if (r->have_m)
		json_object_set_new(j, "split_modules", smods);
	else
		json_decref(smods);
	if (o->modules) {
		const struct module_plan *mp = &r->mp;
		json_t *wraps = json_array(), *ap = json_array();
		for (size_t w = 0; w < mp->n_wraps; w++) {
			json_t *names = json_array();
			for (size_t q = mp->off[w]; q < mp->off[w + 1]; q++)
				json_array_append_new(names, json_string(schedule_str(s, r->m.c[mp->calls[q]].name)));
			json_array_append_new(wraps, names);
		}
		for (size_t i = 0; i < mp->n_splits; i++)
			json_array_append_new(ap, json_integer((json_int_t)mp->splits[i]));
		json_object_set_new(j, "checkpoint", wraps);
		json_object_set_new(j, "applied_split_points", ap);
		json_object_set_new(j, "unwrapped_ops", json_integer((json_int_t)mp->unwrapped_ops));
		json_object_set_new(j, "unwrapped_bytes", json_integer((json_int_t)mp->unwrapped_bytes));
	}
}

static void mod_print_json(const struct solve_module_opts *o, const struct mod_run *r)
{
	json_t *j = json_object();
	json_object_set_new(j, "log", json_string(r->s->source));
	json_object_set_new(j, "planner", json_string(o->splits ? "splits" : o->pl->name));
	if (!o->splits && o->pl->param_name)
		json_object_set_new(j, o->pl->param_name, json_integer((json_int_t)r->param));
	if (!o->splits && o->pl->param == PLANNER_PARAM_K)
		json_object_set_new(j, "mode", json_string(o->exact ? "exact" : "fast"));
	json_object_set_new(j, "forward_ops", json_integer((json_int_t)r->p.n));
	json_object_set_new(j, "activations", json_integer((json_int_t)r->p.total));
	json_object_set_new(j, "floor_memory", json_integer((json_int_t)r->floor));
	if (o->modules)
		json_object_set_new(j, "module_boundaries", json_integer((json_int_t)r->m.n_bound));
	json_object_set_new(j, "max_memory", json_integer((json_int_t)r->chunk));
	mod_json_splits(o, r, j);
	if (r->ms.n) {
		json_t *f = search_json(&r->ms, o->budget, true, r->param);
		if (o->min_peak) { /* no budget: the smallest peak is the answer */
			json_object_del(f, "budget");
			json_object_del(f, "found");
			json_object_set_new(f, "min_peak", json_true());
		}
		json_object_set_new(j, "search", f);
	}
	if (o->depth >= 0)
		json_object_set_new(j, "depth", json_integer(o->depth));
	if (o->within)
		json_object_set_new(j, "within", json_string(o->within));
	if (o->replay)
		json_object_set_new(j, "replay", plan_replay_json(&r->res, &r->base));
	char *line = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17));
	puts(line);
	free(line);
	json_decref(j);
}

/* --min-peak's curve of the replayed peak against k, or --budget's tries. */
static void mod_print_search(const struct solve_module_opts *o, const struct mod_run *r)
{
	const struct mod_search *ms = &r->ms;
	if (o->min_peak) {
		printf("replayed peak against k (dp's plan for every k, as applied; %zu "
		       "replays, a plan equal to the one before not replayed again):\n",
		       ms->n_replays);
		printf("  %-6s %16s  %s\n", "k", "peak", "note");
		size_t lowest = 0; /* the try of the smallest peak so far */
		for (size_t i = 0; i < ms->n; i++) {
			const struct mod_try *t = &ms->t[i];
			if (i && !t->replayed) /* the plan of k - 1 again */
				continue;
			printf("  %-6" PRIu64 " %16" PRIu64 "  ", t->k, t->peak);
			if (i == ms->best)
				printf("the smallest");
			else if (i && t->peak > ms->t[lowest].peak)
				printf("more k costs more: %+.1f%% over k=%" PRIu64 "'s",
				       100.0 * ((double)t->peak / (double)ms->t[lowest].peak - 1),
				       ms->t[lowest].k);
			size_t same = i + 1;
			while (same < ms->n && !ms->t[same].replayed)
				same++;
			if (same > i + 1)
				printf("%s(k=%" PRIu64 "..%" PRIu64 ": the same plan)",
				       i == ms->best || (i && t->peak > ms->t[lowest].peak) ? " " : "",
				       t->k, ms->t[same - 1].k);
			printf("\n");
			if (t->peak < ms->t[lowest].peak)
				lowest = i;
		}
		printf("smallest replayed peak at k = %" PRIu64 "\n", r->param);
		return;
	}
	printf("search for budget %" PRIu64 " bytes (every k in turn; %zu replays of "
	       "plans as applied, a plan equal to the one before not replayed again):",
	       o->budget, ms->n_replays);
	for (size_t i = 0; i < ms->n; i++) {
		if (ms->n > 24 && i == 12) {
			printf(", ... (%zu more; --json lists every try)", ms->n - 24);
			i = ms->n - 12;
		}
		printf("%s k=%" PRIu64 " peak %" PRIu64, i ? "," : "", ms->t[i].k, ms->t[i].peak);
	}
	printf("\nsmallest k that fits: %" PRIu64 "\n", r->param);
}

/* The split points as a table, and --modules' wraps. */
static void mod_print_splits(const struct solve_module_opts *o, const struct mod_run *r)
{
	const struct schedule *s = r->s;
	const struct module_calls *m = &r->m;
	printf("split points: %zu (forward-op index where a segment starts)\n", r->plan.n_splits);
	if (r->plan.n_splits)
		printf("  %-6s %-8s %-8s %-24s %s\n", "split", "index", "line", "op",
		       r->have_m ? "module" : "");
	for (size_t i = 0; i < r->plan.n_splits; i++) {
		size_t at = r->plan.splits[i];
		bool after = false;
		const char *nm = r->have_m ? split_name(m, at, &after) : NULL;
		if (at < r->p.n) {
			const struct sched_op *op = &s->ops[r->p.op[at]];
			printf("  %-6zu %-8zu %-8u %-24s %s%s\n", i + 1, at, op->line,
			       rs_text_safe(schedule_str(s, op->name)), after ? "after " : "", nm ? rs_text_safe(nm) : "");
		} else {
			printf("  %-6zu %-8zu %-8s %-24s %s%s\n", i + 1, at, "-", "(past the last op)",
			       after ? "after " : "", nm ? nm : "");
		}
	}
	if (!o->modules)
		return;
	const struct module_plan *mp = &r->mp;
	printf("checkpoint: %zu wrap%s (torch.utils.checkpoint around each, in order)\n",
	       mp->n_wraps, mp->n_wraps == 1 ? "" : "s");
	for (size_t w = 0; w < mp->n_wraps; w++) {
		const struct module_call *c0 = &m->c[mp->calls[mp->off[w]]];
		const struct module_call *c1 = &m->c[mp->calls[mp->off[w + 1] - 1]];
		uint64_t bytes = 0;
		printf("  %zu. ", w + 1);
		for (size_t q = mp->off[w]; q < mp->off[w + 1]; q++) {
			bytes += m->c[mp->calls[q]].bytes;
			printf("%s%s", q > mp->off[w] ? " + " : "",
			       rs_text_safe(schedule_str(s, m->c[mp->calls[q]].name)));
		}
		printf(" (%s): forward ops %zu-%zu, %" PRIu64 " bytes%s\n",
		       schedule_str(s, c0->type), c0->first, c1->end - 1, bytes,
		       mp->off[w + 1] - mp->off[w] > 1 ? "; one checkpoint: consecutive calls "
		       "of one nn.Sequential" : "");
	}
	if (mp->unwrapped_ops)
		printf("  not wrapped: %zu forward op%s of the checkpointed segments in no "
		       "module that can be checkpointed (%" PRIu64 " bytes of activations): "
		       "the replay checkpoints them, the program will not\n",
		       mp->unwrapped_ops, mp->unwrapped_ops == 1 ? "" : "s", mp->unwrapped_bytes);
	printf("the plan as applied: split points");
	for (size_t i = 0; i < mp->n_splits; i++)
		printf(" %zu", mp->splits[i]);
	printf("%s\n", mp->n_splits ? "" : " none");
}

static void mod_print_text(const struct solve_module_opts *o, const struct mod_run *r)
{
	const struct plan_result *res = &r->res;
	printf("log: %s\n", r->s->source);
	if (o->splits)
		printf("plan: the split points given\n");
	else if (o->pl->param == PLANNER_PARAM_NONE)
		printf("planner: %s\n", o->pl->name);
	else
		printf("planner: %s, %s = %" PRIu64 "%s\n", o->pl->name, o->pl->param_name, r->param,
		       o->pl->param == PLANNER_PARAM_K ? (o->exact ? " (exact mode)" : " (fast mode)") : "");
	printf("forward ops: %zu, activations: %" PRIu64 " bytes, floor %" PRIu64 " bytes\n",
	       r->p.n, r->p.total, r->floor);
	if (o->modules) {
		size_t ok = 0;
		for (size_t i = 0; i < r->m.n; i++)
			ok += r->m.c[i].veto == MODULE_OK;
		printf("module boundaries: %zu (starts and ends of the %zu of %zu module calls "
		       "that can be checkpointed)\n", r->m.n_bound, ok, r->m.n);
	}
	if (r->ms.n)
		mod_print_search(o, r);
	mod_print_splits(o, r);
	printf("predicted largest chunk: %" PRIu64 " bytes (%.1f%% of the activations)\n",
	       r->chunk, r->p.total ? 100.0 * (double)r->chunk / (double)r->p.total : 0.0);
	if (o->replay)
		printf("replay%s: %s, peak %" PRIu64 " bytes (%.4g of the baseline %" PRIu64
		       "), overhead %.6g, %" PRIu64 " remats (%" PRId64 " ns), %" PRIu64
		       " evictions\n", o->modules ? " of the plan as applied" : "",
		       outcome_name(res->run.outcome), res->run.peak_memory, res->ratio, r->base.memory,
		       res->overhead, res->run.remats, res->run.remat_compute, res->run.evictions);
}

/* solve --modules / --splits: load, plan, apply and replay, print. */
int solve_modules(const struct solve_module_opts *o)
{
	struct rs_error err = {0};
	struct mod_run r = {.param = o->param, .within = -1};
	if (schedule_read(o->log, &o->ropt, &r.s, &err) < 0) {
		rs_error_print(&err);
		return err.status;
	}
	r.floor = schedule_floor(r.s, false);
	int status = 0;
	if (mod_load(o, &r, &err) || mod_plan(o, &r, &err) || mod_apply(o, &r, &err)) {
		print_error(&err);
		status = err.status;
	} else if (o->json) {
		mod_print_json(o, &r);
	} else {
		mod_print_text(o, &r);
	}
	free(r.ms.t);
	free(r.ms.prev);
	free(r.units);
	free(r.given);
	reset_plan_free(&r.plan);
	module_plan_free(&r.mp);
	if (r.have_m)
		modules_free(&r.m);
	profile_free(&r.p);
	schedule_free(r.s);
	return status;
}
