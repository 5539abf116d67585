/*
 * experiment.c: see experiment.h. The YAML file is loaded with libyaml's
 * document API and then walked node by node; every value is checked against
 * a table of known keys, so that an unknown key, a duplicate key or a
 * wrongly typed value is reported with its line and column before any log
 * is read or any point runs.
 */
#include "experiment.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "config.h"
#include "heuristics.h"
#include "plan.h"
#include "planners.h"
#include "pool.h"
#include "profile.h"
#include "reset_points.h"
#include "scalar.h"
#include "source.h"

#define DEFAULT_RUNTIME RUNTIME_V2_EAGER_OPTIMIZED
#define DEFAULT_RANDOM_TRIALS 10u
#define DEFAULT_OVERHEAD_LIMIT 2.0

/* ---------------------------------------------------------------- seeds */

uint64_t experiment_trial_seed(uint64_t seed, const char *model,
			       const char *heuristic, unsigned trial)
{
	char num[16];
	snprintf(num, sizeof num, "%u", trial);
	uint64_t h = FNV1A64_INIT;
	h = fnv1a64(h, model, strlen(model));
	h = fnv1a64(h, "\x1f", 1);
	h = fnv1a64(h, heuristic, strlen(heuristic));
	h = fnv1a64(h, "\x1f", 1);
	h = fnv1a64(h, num, strlen(num));
	return splitmix64(seed ^ h);
}

/* ------------------------------------------------------------ YAML walking */

struct walk {
	const char *file;
	yaml_document_t *doc;
	struct rs_error *err;
};

static int node_error(struct walk *w, yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int node_error(struct walk *w, yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rs_error_vset(w->err, EXIT_DATAERR, w->file, n ? (long)n->start_mark.line + 1 : 0,
		      fmt, ap);
	va_end(ap);
	if (w->err && n)
		w->err->column = (long)n->start_mark.column + 1;
	return -1;
}

static const char *node_kind(yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE: return "a scalar";
	case YAML_SEQUENCE_NODE: return "a list";
	case YAML_MAPPING_NODE: return "a mapping";
	default: return "nothing";
	}
}

static const char *scalar(yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

/* A plain (unquoted) scalar that YAML would read as null. */
static int is_null(yaml_node_t *n)
{
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	const char *s = scalar(n);
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
	       !strcmp(s, "NULL");
}

static int want_string(struct walk *w, yaml_node_t *n, const char *key, char **out)
{
	if (n->type != YAML_SCALAR_NODE || is_null(n))
		return node_error(w, n, "'%s' must be a string, not %s", key,
				  is_null(n) ? "null" : node_kind(n));
	free(*out);
	*out = xstrdup(scalar(n));
	return 0;
}

static int want_double(struct walk *w, yaml_node_t *n, const char *key, double *out)
{
	const char *why;
	if (n->type != YAML_SCALAR_NODE)
		return node_error(w, n, "'%s' must be a number, not %s", key, node_kind(n));
	if (scalar_parse_double(scalar(n), out, &why))
		return node_error(w, n, "'%s': '%s': %s", key, scalar(n), why);
	return 0;
}

static int want_u64(struct walk *w, yaml_node_t *n, const char *key, uint64_t *out)
{
	const char *why;
	if (n->type != YAML_SCALAR_NODE)
		return node_error(w, n, "'%s' must be a whole number, not %s", key,
				  node_kind(n));
	if (scalar_parse_u64(scalar(n), out, &why))
		return node_error(w, n, "'%s': '%s': %s", key, scalar(n), why);
	return 0;
}

static int want_bool(struct walk *w, yaml_node_t *n, const char *key, bool *out)
{
	const char *why;
	int b;
	if (n->type != YAML_SCALAR_NODE)
		return node_error(w, n, "'%s' must be true or false, not %s", key,
				  node_kind(n));
	if (scalar_parse_bool(scalar(n), &b, &why))
		return node_error(w, n, "'%s': '%s': %s", key, scalar(n), why);
	*out = b;
	return 0;
}

static int want_trials(struct walk *w, yaml_node_t *n, const char *key, unsigned *out)
{
	uint64_t v;
	if (want_u64(w, n, key, &v))
		return -1;
	if (v < 1 || v > 1000000)
		return node_error(w, n, "'%s' must be between 1 and 1000000", key);
	*out = (unsigned)v;
	return 0;
}

static int want_runtime(struct walk *w, yaml_node_t *n, const char *key,
			enum runtime_kind *out)
{
	char *s = NULL;
	if (want_string(w, n, key, &s))
		return -1;
	int rc = runtime_kind_parse(s, out);
	free(s);
	if (rc) {
		char known[256] = "";
		for (int k = 0; k < RUNTIME_KIND_COUNT; k++) {
			strcat(known, k ? ", " : "");
			strcat(known, runtime_kind_name((enum runtime_kind)k));
		}
		const char *near = runtime_suggest(scalar(n));
		if (near)
			return node_error(w, n, "unknown runtime '%s': did you mean %s? (known: %s)",
					  scalar(n), near, known);
		return node_error(w, n, "unknown runtime '%s' (known: %s)", scalar(n), known);
	}
	return 0;
}

static int want_heuristic(struct walk *w, yaml_node_t *n, const char *key,
			  const struct heuristic **out)
{
	if (n->type != YAML_SCALAR_NODE || is_null(n))
		return node_error(w, n, "'%s' must be a heuristic name, not %s", key,
				  is_null(n) ? "null" : node_kind(n));
	*out = heuristic_find(scalar(n));
	if (!*out) {
		size_t nh;
		const struct heuristic *list = heuristic_list(&nh);
		char known[2048] = "";
		for (size_t i = 0; i < nh && strlen(known) + 40 < sizeof known; i++) {
			strcat(known, i ? ", " : "");
			strcat(known, list[i].name);
		}
		const char *near = heuristic_suggest(scalar(n));
		if (near)
			return node_error(w, n, "unknown heuristic '%s': did you mean %s? (known: %s)",
					  scalar(n), near, known);
		return node_error(w, n, "unknown heuristic '%s' (known: %s)", scalar(n), known);
	}
	return 0;
}

/*
 * Check a mapping against its known keys: every key a scalar, known, and
 * not repeated. values[i] is set to the value node of keys[i] (or NULL).
 */
static int want_mapping(struct walk *w, yaml_node_t *n, const char *what,
			const char *const *keys, size_t n_keys, yaml_node_t **values)
{
	for (size_t i = 0; i < n_keys; i++)
		values[i] = NULL;
	if (n->type != YAML_MAPPING_NODE)
		return node_error(w, n, "%s must be a mapping, not %s", what, node_kind(n));
	for (yaml_node_pair_t *pair = n->data.mapping.pairs.start;
	     pair < n->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_document_get_node(w->doc, pair->key);
		yaml_node_t *v = yaml_document_get_node(w->doc, pair->value);
		if (k->type != YAML_SCALAR_NODE)
			return node_error(w, k, "keys of %s must be strings", what);
		size_t i;
		for (i = 0; i < n_keys; i++)
			if (!strcmp(scalar(k), keys[i]))
				break;
		if (i == n_keys) {
			char known[512] = "";
			for (size_t j = 0; j < n_keys; j++) {
				strcat(known, j ? ", " : "");
				strcat(known, keys[j]);
			}
			return node_error(w, k, "unknown key '%s' in %s (known: %s)",
					  scalar(k), what, known);
		}
		if (values[i])
			return node_error(w, k, "duplicate key '%s' in %s (first at line %lu)",
					  scalar(k), what,
					  (unsigned long)values[i]->start_mark.line + 1);
		values[i] = v;
	}
	return 0;
}

/* Can the series' runtime serve its heuristic? (simrd refuses otherwise.) */
static int want_servable(struct walk *w, yaml_node_t *n, const struct exp_series *s)
{
	struct runtime_config cfg = {.runtime = s->runtime, .heuristic = s->heuristic,
				     .offload = s->offload ? &s->off : NULL};
	struct rs_error err = {0};
	if (runtime_check_config(&cfg, &err))
		return node_error(w, n, "%s", err.msg);
	return 0;
}

static int want_list(struct walk *w, yaml_node_t *n, const char *key)
{
	if (n->type != YAML_SEQUENCE_NODE)
		return node_error(w, n, "'%s' must be a list, not %s", key, node_kind(n));
	if (n->data.sequence.items.top == n->data.sequence.items.start)
		return node_error(w, n, "'%s' is an empty list", key);
	return 0;
}

#define LIST_LEN(n) ((size_t)((n)->data.sequence.items.top - (n)->data.sequence.items.start))
#define LIST_ITEM(w, n, i) yaml_document_get_node((w)->doc, (n)->data.sequence.items.start[i])

/* ------------------------------------------------------------ the keys */

enum top_key {
	K_EXPERIMENT, K_MODELS, K_MANIFEST, K_HEURISTICS, K_SERIES, K_RUNTIME,
	K_RATIOS, K_BUDGETS, K_OVERHEAD_LIMIT, K_TRIALS, K_SEED, K_NO_DEALLOC,
	K_PLANNERS, K_YRANGE, K_AT_PLAN_PEAKS, K_GAP, K_ALLOCATOR, K_DEVICE_MEMORY, K_TOP_COUNT
};
static const char *const top_keys[K_TOP_COUNT] = {
	"experiment", "models", "manifest", "heuristics", "series", "runtime",
	"ratios", "budgets", "overhead_limit", "trials", "seed", "no_dealloc",
	"planners", "yrange", "heuristics_at_plan_peaks", "gap", "allocator", "device_memory",
};

enum model_key { M_NAME, M_LOG, M_TITLE, M_DESC, M_HAS_START, M_COUNT };
static const char *const model_keys[M_COUNT] = {
	"name", "log", "title", "desc", "has_start",
};

enum series_key {
	S_NAME, S_HEURISTIC, S_RUNTIME, S_NO_DEALLOC, S_TRIALS,
	S_OFFLOAD, S_OFFLOAD_BANDWIDTH, S_OFFLOAD_LATENCY, S_HOST_MEMORY, S_OFFLOAD_PREFETCH,
	S_COUNT
};
static const char *const series_keys[S_COUNT] = {
	"name", "heuristic", "runtime", "no_dealloc", "trials",
	"offload", "offload_bandwidth", "offload_latency", "host_memory", "offload_prefetch",
};

/* dir/spec unless spec is absolute (or dir is "."). */
static char *resolve(const char *dir, const char *spec)
{
	if (spec[0] == '/' || !strcmp(dir, "."))
		return xstrdup(spec);
	size_t n = strlen(dir) + strlen(spec) + 2;
	char *p = xmalloc(n);
	snprintf(p, n, "%s/%s", dir, spec);
	return p;
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	size_t n = (size_t)(slash - path);
	char *d = xmalloc(n + 1);
	memcpy(d, path, n);
	d[n] = 0;
	return d;
}

/*
 * A generated model: `{gen: SHAPE, name, title, desc, PARAM: VALUE or
 * [VALUES...], ...}`; PARAM is any option of `rematsim gen SHAPE` (without
 * the dashes, '_' or '-'). A list makes one model per value (the cross
 * product over listed parameters, the first listed outermost), named
 * "NAME PARAM=VALUE..." (NAME defaults to the shape).
 */
static int read_gen_model(struct walk *w, struct experiment *e, size_t *cap, yaml_node_t *item)
{
	enum gen_shape shape;
	yaml_node_t *shape_node = NULL, *name_node = NULL, *title_node = NULL, *desc_node = NULL;
	for (yaml_node_pair_t *pair = item->data.mapping.pairs.start;
	     pair < item->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_document_get_node(w->doc, pair->key);
		yaml_node_t *v = yaml_document_get_node(w->doc, pair->value);
		if (k->type != YAML_SCALAR_NODE)
			return node_error(w, k, "keys of a model must be strings");
		for (yaml_node_pair_t *q = item->data.mapping.pairs.start; q < pair; q++)
			if (!strcmp(scalar(yaml_document_get_node(w->doc, q->key)), scalar(k)))
				return node_error(w, k, "duplicate key '%s' in a model", scalar(k));
		if (!strcmp(scalar(k), "gen"))
			shape_node = v;
		else if (!strcmp(scalar(k), "name"))
			name_node = v;
		else if (!strcmp(scalar(k), "title"))
			title_node = v;
		else if (!strcmp(scalar(k), "desc"))
			desc_node = v;
		else if (!strcmp(scalar(k), "log") || !strcmp(scalar(k), "has_start"))
			return node_error(w, k, "a generated model takes no '%s'", scalar(k));
	}
	if (shape_node->type != YAML_SCALAR_NODE || gen_shape_parse(scalar(shape_node), &shape))
		return node_error(w, shape_node, "'gen' must be a shape: linear, residual, unet "
				  "or transformer");
	char *base = NULL, *title = NULL, *desc = NULL;
	int rc = -1;
	if ((name_node && want_string(w, name_node, "name", &base)) ||
	    (title_node && want_string(w, title_node, "title", &title)) ||
	    (desc_node && want_string(w, desc_node, "desc", &desc)))
		goto out;
	if (!base)
		base = xstrdup(scalar(shape_node));

	/* Expand: params[k] for k < count, each with the name suffix of its lists. */
	size_t count = 1;
	struct gen_params *params = xcalloc(1, sizeof *params);
	char **suffix = xcalloc(1, sizeof *suffix);
	gen_params_default(&params[0], shape);
	suffix[0] = xstrdup("");
	for (yaml_node_pair_t *pair = item->data.mapping.pairs.start;
	     pair < item->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_document_get_node(w->doc, pair->key);
		yaml_node_t *v = yaml_document_get_node(w->doc, pair->value);
		const char *key = scalar(k);
		if (!strcmp(key, "gen") || !strcmp(key, "name") || !strcmp(key, "title") ||
		    !strcmp(key, "desc"))
			continue;
		/* size_dist and size-dist name one parameter: once, not the last */
		for (yaml_node_pair_t *q = item->data.mapping.pairs.start; q < pair; q++) {
			const char *other = scalar(yaml_document_get_node(w->doc, q->key));
			size_t i = 0;
			while (key[i] && (key[i] == other[i] ||
					  (strchr("-_", key[i]) && other[i] && strchr("-_", other[i]))))
				i++;
			if (!key[i] && !other[i]) {
				node_error(w, k, "'%s' and '%s' are one parameter: give it once", other,
					   key);
				goto expand_fail;
			}
		}
		bool list = v->type == YAML_SEQUENCE_NODE;
		if (list && want_list(w, v, key))
			goto expand_fail;
		size_t nv = list ? LIST_LEN(v) : 1;
		if (count * nv > 100000) {
			node_error(w, v, "more than 100000 generated models");
			goto expand_fail;
		}
		struct gen_params *np = xcalloc(count * nv, sizeof *np);
		char **ns = xcalloc(count * nv, sizeof *ns);
		for (size_t c = 0; c < count; c++)
			for (size_t j = 0; j < nv; j++) {
				yaml_node_t *it = list ? LIST_ITEM(w, v, j) : v;
				size_t o = c * nv + j;
				np[o] = params[c];
				if (it->type != YAML_SCALAR_NODE || is_null(it)) {
					node_error(w, it, "'%s' must be a value%s, not %s", key,
						   list ? "" : " or a list of values",
						   is_null(it) ? "null" : node_kind(it));
					goto inner_fail;
				}
				struct rs_error gerr = {0};
				if (gen_params_set(&np[o], key, scalar(it), &gerr)) {
					node_error(w, it, "%s", gerr.msg);
					goto inner_fail;
				}
				size_t sl = strlen(suffix[c]) + strlen(key) + strlen(scalar(it)) + 3;
				ns[o] = xmalloc(sl);
				snprintf(ns[o], sl, "%s%s%s%s%s", suffix[c], list ? " " : "",
					 list ? key : "", list ? "=" : "", list ? scalar(it) : "");
				continue;
			inner_fail:
				for (size_t q = 0; q < count * nv; q++)
					free(ns[q]);
				free(ns);
				free(np);
				goto expand_fail;
			}
		for (size_t c = 0; c < count; c++)
			free(suffix[c]);
		free(suffix);
		free(params);
		params = np;
		suffix = ns;
		count *= nv;
	}
	for (size_t c = 0; c < count; c++) {
		struct rs_error gerr = {0};
		if (gen_check(&params[c], &gerr)) {
			node_error(w, item, "%s", gerr.msg);
			goto expand_fail;
		}
	}
	XGROW(e->models, *cap, e->n_models + count);
	for (size_t c = 0; c < count; c++) {
		struct exp_model *m = &e->models[e->n_models++];
		memset(m, 0, sizeof *m);
		size_t nl = strlen(base) + strlen(suffix[c]) + 1;
		m->name = xmalloc(nl);
		snprintf(m->name, nl, "%s%s", base, suffix[c]);
		if (title) {
			nl = strlen(title) + strlen(suffix[c]) + 1;
			m->title = xmalloc(nl);
			snprintf(m->title, nl, "%s%s", title, suffix[c]);
		}
		char d[512];
		gen_describe(&params[c], d, sizeof d);
		m->desc = xstrdup(desc ? desc : d);
		size_t sl = strlen(d) + 5;
		m->spec = xmalloc(sl);
		snprintf(m->spec, sl, "gen:%s", d);
		m->gen = xmemdup(&params[c], sizeof params[c]);
		m->has_start = true;
	}
	e->gen_columns = true;
	rc = 0;
expand_fail:
	for (size_t c = 0; c < count; c++)
		free(suffix[c]);
	free(suffix);
	free(params);
out:
	free(base);
	free(title);
	free(desc);
	return rc;
}

static bool has_key(struct walk *w, yaml_node_t *map, const char *key)
{
	if (map->type != YAML_MAPPING_NODE)
		return false;
	for (yaml_node_pair_t *pair = map->data.mapping.pairs.start;
	     pair < map->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_document_get_node(w->doc, pair->key);
		if (k->type == YAML_SCALAR_NODE && !strcmp(scalar(k), key))
			return true;
	}
	return false;
}

static int read_models(struct walk *w, struct experiment *e, yaml_node_t *n,
		       const char *dir)
{
	if (want_list(w, n, "models"))
		return -1;
	size_t len = LIST_LEN(n), cap = 0;
	for (size_t i = 0; i < len; i++) {
		yaml_node_t *item = LIST_ITEM(w, n, i), *v[M_COUNT];
		size_t first = e->n_models;
		if (has_key(w, item, "gen")) {
			if (read_gen_model(w, e, &cap, item))
				return -1;
		} else {
			XGROW(e->models, cap, e->n_models + 1);
			struct exp_model *m = &e->models[e->n_models++];
			memset(m, 0, sizeof *m);
			m->has_start = true;
			if (want_mapping(w, item, "a model", model_keys, M_COUNT, v))
				return -1;
			if (!v[M_NAME] || !v[M_LOG])
				return node_error(w, item, "a model needs 'name' and 'log' "
						  "(or 'gen': a generated model)");
			char *log = NULL;
			if (want_string(w, v[M_NAME], "name", &m->name) ||
			    want_string(w, v[M_LOG], "log", &log))
				return -1;
			m->spec = resolve(dir, log);
			free(log);
			if (v[M_TITLE] && want_string(w, v[M_TITLE], "title", &m->title))
				return -1;
			if (v[M_DESC] && want_string(w, v[M_DESC], "desc", &m->desc))
				return -1;
			if (v[M_HAS_START] && want_bool(w, v[M_HAS_START], "has_start", &m->has_start))
				return -1;
		}
		for (size_t k = first; k < e->n_models; k++)
			for (size_t j = 0; j < k; j++)
				if (!strcmp(e->models[j].name, e->models[k].name))
					return node_error(w, item, "model '%s' is listed twice",
							  e->models[k].name);
	}
	return 0;
}

static int read_manifest(struct walk *w, struct experiment *e, yaml_node_t *n,
			 const char *dir)
{
	char *path = NULL;
	if (want_string(w, n, "manifest", &path))
		return -1;
	char *full = resolve(dir, path);
	free(path);
	struct manifest *man = NULL;
	struct rs_error merr = {0};
	int rc = manifest_read(full, &man, &merr);
	free(full);
	if (rc) {
		/* The manifest's own error, located at the YAML line naming it. */
		char what[2100];
		snprintf(what, sizeof what, "%s%s%s", merr.file, merr.file[0] ? ": " : "",
			 merr.msg);
		node_error(w, n, "manifest: %s", what);
		if (w->err)
			w->err->status = merr.status ? merr.status : EXIT_DATAERR;
		return -1;
	}
	if (!man->n_models) {
		manifest_free(man);
		return node_error(w, n, "the manifest lists no models");
	}
	e->models = xcalloc(man->n_models, sizeof *e->models);
	for (size_t i = 0; i < man->n_models; i++) {
		struct manifest_model *mm = &man->models[i];
		struct exp_model *m = &e->models[e->n_models++];
		m->name = xstrdup(mm->name);
		m->title = mm->title ? xstrdup(mm->title) : NULL;
		m->desc = mm->desc ? xstrdup(mm->desc) : NULL;
		m->spec = xstrdup(mm->spec);
		m->has_start = mm->has_start;
	}
	manifest_free(man);
	return 0;
}

static void add_series(struct experiment *e, size_t *cap, struct exp_series s)
{
	XGROW(e->series, *cap, e->n_series + 1);
	e->series[e->n_series++] = s;
}

/* `planners: {dp: {k: [1, 2, 4]}, greedy: {segment_budget: [1MiB]}, sqrtn: {}}` */
static int read_planners(struct walk *w, struct experiment *e, yaml_node_t *n)
{
	if (n->type != YAML_MAPPING_NODE)
		return node_error(w, n, "'planners' must be a mapping (planner: its parameters), "
				  "not %s", node_kind(n));
	size_t len = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	e->plans = xcalloc(len ? len : 1, sizeof *e->plans);
	for (yaml_node_pair_t *pair = n->data.mapping.pairs.start;
	     pair < n->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_document_get_node(w->doc, pair->key);
		yaml_node_t *v = yaml_document_get_node(w->doc, pair->value);
		char names[256];
		planner_names(names, sizeof names);
		if (k->type != YAML_SCALAR_NODE || !planner_find(scalar(k)))
			return node_error(w, k, "unknown planner '%s' (known: %s)",
					  k->type == YAML_SCALAR_NODE ? scalar(k) : "?", names);
		const struct planner *pl = planner_find(scalar(k));
		for (size_t i = 0; i < e->n_plans; i++)
			if (e->plans[i].planner == pl)
				return node_error(w, k, "planner '%s' is listed twice", pl->name);
		struct exp_plan *ep = &e->plans[e->n_plans++];
		ep->planner = pl;
		/* an ILP's rows say what its solver found (results.h) */
		if (pl->param == PLANNER_PARAM_BUDGET)
			e->ilp_columns = true;
		/* the ILP planners also take a solver time limit, and budgets as
		 * ratios of each model's baseline memory instead of bytes */
		const char *keys[4] = {pl->param_name, "time_limit", "ratio", "max_ops"};
		yaml_node_t *pv[4] = {NULL, NULL, NULL, NULL};
		size_t nkeys = !pl->param_name ? 0 : pl->param == PLANNER_PARAM_BUDGET ? 4 : 1;
		char what[64];
		snprintf(what, sizeof what, "planner '%s'", pl->name);
		if (!pl->param_name && v->type == YAML_MAPPING_NODE &&
		    v->data.mapping.pairs.top > v->data.mapping.pairs.start)
			return node_error(w, v, "planner '%s' takes no parameters: give it as "
					  "'%s: {}'", pl->name, pl->name);
		if (!is_null(v) && want_mapping(w, v, what, keys, nkeys, pv))
			return -1;
		if (pv[1]) {
			if (want_double(w, pv[1], "time_limit", &ep->time_limit))
				return -1;
			if (!(ep->time_limit > 0) || ep->time_limit > 1e9)
				return node_error(w, pv[1], "'time_limit' must be seconds above 0");
		}
		/* models past max_ops ops are not solved (their rows say too_large) */
		if (pv[3]) {
			if (want_u64(w, pv[3], "max_ops", &ep->max_ops))
				return -1;
			if (!ep->max_ops)
				return node_error(w, pv[3], "'max_ops' must be at least 1");
		}
		if (!pl->param_name) {
			ep->params = xcalloc(1, sizeof *ep->params);
			ep->n_params = 1;
			continue;
		}
		if (pv[0] && pv[2])
			return node_error(w, pv[2], "planner '%s' takes '%s' or 'ratio', not both",
					  pl->name, pl->param_name);
		if (pv[2]) {
			if (want_list(w, pv[2], "ratio"))
				return -1;
			ep->n_params = LIST_LEN(pv[2]);
			ep->params = xcalloc(ep->n_params, sizeof *ep->params);
			ep->ratios = xcalloc(ep->n_params, sizeof *ep->ratios);
			for (size_t i = 0; i < ep->n_params; i++) {
				yaml_node_t *it = LIST_ITEM(w, pv[2], i);
				if (want_double(w, it, "ratio", &ep->ratios[i]))
					return -1;
				if (!(ep->ratios[i] > 0 && ep->ratios[i] <= 10))
					return node_error(w, it, "a ratio must be in (0, 10], not %s",
							  scalar(it));
				for (size_t j = 0; j < i; j++)
					if (ep->ratios[j] == ep->ratios[i])
						return node_error(w, it, "this ratio is listed twice");
			}
			continue;
		}
		if (!pv[0])
			return node_error(w, v, "planner '%s' needs '%s' (a list)%s", pl->name,
					  pl->param_name,
					  pl->param == PLANNER_PARAM_BUDGET ? " or 'ratio'" : "");
		if (want_list(w, pv[0], pl->param_name))
			return -1;
		ep->n_params = LIST_LEN(pv[0]);
		ep->params = xcalloc(ep->n_params, sizeof *ep->params);
		for (size_t i = 0; i < ep->n_params; i++) {
			yaml_node_t *it = LIST_ITEM(w, pv[0], i);
			if (want_u64(w, it, pl->param_name, &ep->params[i]))
				return -1;
			if (pl->param == PLANNER_PARAM_BYTES && !ep->params[i])
				return node_error(w, it, "a segment budget must be positive");
			if ((pl->param == PLANNER_PARAM_BUDGET || pl->param == PLANNER_PARAM_COUNT) &&
			    !ep->params[i])
				return node_error(w, it, "%s must be positive", pl->param_name);
			for (size_t j = 0; j < i; j++)
				if (ep->params[j] == ep->params[i])
					return node_error(w, it, "this %s is listed twice",
							  pl->param_name);
		}
	}
	return 0;
}

/* Order of step indices by ratio or budget (qsort has no context argument;
 * the experiment reader runs on one thread). */
static const struct experiment *sort_steps;
static int by_step(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	if (sort_steps->ratios)
		return (sort_steps->ratios[i] > sort_steps->ratios[j]) -
		       (sort_steps->ratios[i] < sort_steps->ratios[j]);
	/* budget formulas of n (docs/gen.md): after plain budgets, by text */
	const struct formula *fi = sort_steps->formulas ? sort_steps->formulas[i] : NULL;
	const struct formula *fj = sort_steps->formulas ? sort_steps->formulas[j] : NULL;
	if (fi || fj)
		return !fi ? -1 : !fj ? 1 : strcmp(fi->text, fj->text);
	return (sort_steps->budgets[i] > sort_steps->budgets[j]) -
	       (sort_steps->budgets[i] < sort_steps->budgets[j]);
}

/*
 * A model's fields are fields of models.tsv and points.tsv: a title or
 * description is text, whose tabs and line breaks become spaces (the DTR
 * paper's manifest describes its LSTM on three lines); a name or log path
 * keys rows, and one with a tab or newline is refused. Returns what is
 * refused ("names", "log paths") or NULL. Both routes to a manifest (the
 * `manifest:` key and `sweep --manifest`) and `models:` go through it.
 */
static const char *model_fields(struct exp_model *m)
{
	for (char *t = m->title; *t; t++)
		*t = strchr("\t\n\r", *t) ? ' ' : *t;
	for (char *t = m->desc; *t; t++)
		*t = strchr("\t\n\r", *t) ? ' ' : *t;
	return strpbrk(m->name, "\t\n\r")   ? "names"
	       : strpbrk(m->spec, "\t\n\r") ? "log paths"
					     : NULL;
}

/* What series inherit from the top of the file, wherever they appear in it. */
struct series_defaults {
	enum runtime_kind runtime;
	bool no_dealloc;
	unsigned trials;
};

/* 'experiment': the name, which names a folder and heads the TSV files. */
static int read_name(struct walk *w, struct experiment *e, yaml_node_t *root, yaml_node_t **v)
{
	if (!v[K_EXPERIMENT])
		return node_error(w, root, "missing key 'experiment' (the experiment's name)");
	if (want_string(w, v[K_EXPERIMENT], "experiment", &e->name))
		return -1;
	if (!*e->name || strpbrk(e->name, "/\t\n\r"))
		return node_error(w, v[K_EXPERIMENT], "'experiment' must be a non-empty name without "
				  "'/', tabs or newlines (it names a folder and heads the TSV files)");
	return 0;
}

/* 'runtime', 'no_dealloc', 'trials' (the series' defaults), 'seed',
 * 'overhead_limit' and 'yrange'. */
static int read_settings(struct walk *w, struct experiment *e, yaml_node_t **v,
			 struct series_defaults *def)
{
	def->runtime = DEFAULT_RUNTIME;
	def->no_dealloc = false;
	def->trials = DEFAULT_RANDOM_TRIALS;
	e->overhead_limit = DEFAULT_OVERHEAD_LIMIT;
	e->seed = 0;
	if (v[K_RUNTIME] && want_runtime(w, v[K_RUNTIME], "runtime", &def->runtime))
		return -1;
	if (v[K_NO_DEALLOC] && want_bool(w, v[K_NO_DEALLOC], "no_dealloc", &def->no_dealloc))
		return -1;
	if (v[K_TRIALS] && want_trials(w, v[K_TRIALS], "trials", &def->trials))
		return -1;
	if (v[K_SEED] && want_u64(w, v[K_SEED], "seed", &e->seed))
		return -1;
	if (v[K_OVERHEAD_LIMIT]) {
		if (want_double(w, v[K_OVERHEAD_LIMIT], "overhead_limit", &e->overhead_limit))
			return -1;
		if (!(e->overhead_limit >= 1))
			return node_error(w, v[K_OVERHEAD_LIMIT], "'overhead_limit' must be at least 1");
	}

	/* The figures' y range: how results are drawn, not which, so it is
	 * not part of the config hash. */
	e->yrange[0] = e->yrange[1] = NAN;
	if (v[K_YRANGE]) {
		if (want_list(w, v[K_YRANGE], "yrange"))
			return -1;
		double yr[2];
		bool two = LIST_LEN(v[K_YRANGE]) == 2;
		if (two && (want_double(w, LIST_ITEM(w, v[K_YRANGE], 0), "yrange", &yr[0]) ||
			    want_double(w, LIST_ITEM(w, v[K_YRANGE], 1), "yrange", &yr[1])))
			return -1; /* (its message is set) */
		if (!two || !isfinite(yr[0]) || !isfinite(yr[1]) || !(yr[1] > yr[0]))
			return node_error(w, v[K_YRANGE],
					  "'yrange' must be [LOW, HIGH], finite, LOW < HIGH");
		e->yrange[0] = yr[0];
		e->yrange[1] = yr[1];
	}

	/* The allocator model under every heuristic point (docs/allocator.md):
	 * 'allocator: pytorch[:CONF]', CONF in PYTORCH_CUDA_ALLOC_CONF syntax,
	 * and the device's size, 'device_memory'. */
	e->device_memory = UINT64_MAX;
	if (v[K_ALLOCATOR]) {
		if (want_string(w, v[K_ALLOCATOR], "allocator", &e->alloc_text))
			return -1;
		char why[512];
		if (alloc_spec_parse(&e->alloc, e->alloc_text, why, sizeof why))
			return node_error(w, v[K_ALLOCATOR], "'allocator': '%s': %s", e->alloc_text, why);
		e->alloc_columns = true;
	}
	if (v[K_DEVICE_MEMORY]) {
		if (!e->alloc_columns)
			return node_error(w, v[K_DEVICE_MEMORY], "'device_memory' needs 'allocator: "
					  "pytorch[:CONF]'");
		if (want_u64(w, v[K_DEVICE_MEMORY], "device_memory", &e->device_memory))
			return -1;
		if (!e->device_memory)
			return node_error(w, v[K_DEVICE_MEMORY], "'device_memory' must be above 0");
	}

	/* gap.tsv (gap.h) and its optimum: how results are tabulated, not
	 * which, so not part of the config hash either. */
	if (v[K_GAP]) {
		if (want_string(w, v[K_GAP], "gap", &e->gap))
			return -1;
		if (strcmp(e->gap, "best") && !planner_find(e->gap)) {
			char names[512];
			planner_names(names, sizeof names);
			return node_error(w, v[K_GAP], "'gap' names the optimum: 'best' (the least "
					  "overhead reached) or a planner (%s), not '%s'", names, e->gap);
		}
	}
	return 0;
}

/* 'budgets': bytes, or formulas of n (formula.h). */
static int read_budgets(struct walk *w, struct experiment *e, yaml_node_t *list)
{
	if (want_list(w, list, "budgets"))
		return -1;
	e->n_steps = LIST_LEN(list);
	e->budgets = xcalloc(e->n_steps, sizeof *e->budgets);
	for (size_t i = 0; i < e->n_steps; i++) {
		yaml_node_t *it = LIST_ITEM(w, list, i);
		const char *why;
		/* A budget in bytes, or a formula of n (formula.h). */
		if (it->type == YAML_SCALAR_NODE && !is_null(it) &&
		    scalar_parse_u64(scalar(it), &e->budgets[i], &why)) {
			struct formula f;
			const char *fwhy;
			int at;
			if (formula_parse(scalar(it), &f, &fwhy, &at))
				return node_error(w, it, "budgets: '%s' is neither a whole number of "
						  "bytes (%s) nor a formula of n (column %d: %s)",
						  scalar(it), why, at + 1, fwhy);
			if (!e->formulas)
				e->formulas = xcalloc(e->n_steps, sizeof *e->formulas);
			e->formulas[i] = xmemdup(&f, sizeof f);
			e->gen_columns = true;
			continue;
		}
		if (want_u64(w, it, "budgets", &e->budgets[i]))
			return -1;
		if (!e->budgets[i])
			return node_error(w, it, "a budget must be positive");
	}
	return 0;
}

/* 'ratios' (fractions in (0, 10] of the baseline peak), or the paper's
 * 0.1 ... 1.0 when the file gives neither. */
static int read_ratios(struct walk *w, struct experiment *e, yaml_node_t *list)
{
	if (!list) {
		e->n_steps = 10;
		e->ratios = xcalloc(e->n_steps, sizeof *e->ratios);
		for (size_t i = 0; i < e->n_steps; i++)
			e->ratios[i] = (double)(i + 1) / 10; /* 0.1 ... 1.0 */
		return 0;
	}
	if (want_list(w, list, "ratios"))
		return -1;
	e->n_steps = LIST_LEN(list);
	e->ratios = xcalloc(e->n_steps, sizeof *e->ratios);
	for (size_t i = 0; i < e->n_steps; i++) {
		yaml_node_t *it = LIST_ITEM(w, list, i);
		if (want_double(w, it, "ratios", &e->ratios[i]))
			return -1;
		/* as `replay --ratio`: a fraction of the baseline peak memory */
		if (!(e->ratios[i] > 0 && e->ratios[i] <= 10))
			return node_error(w, it, "a ratio must be in (0, 10], not %s", scalar(it));
	}
	return 0;
}

/* The steps: 'ratios' or 'budgets', within the limit, none twice. */
static int read_steps(struct walk *w, struct experiment *e, yaml_node_t **v)
{
	if (v[K_RATIOS] && v[K_BUDGETS])
		return node_error(w, v[K_BUDGETS], "give 'ratios' or 'budgets', not both");
	if (v[K_BUDGETS] ? read_budgets(w, e, v[K_BUDGETS]) : read_ratios(w, e, v[K_RATIOS]))
		return -1;
	if (e->n_steps > EXPERIMENT_MAX_STEPS)
		return node_error(w, v[e->ratios ? K_RATIOS : K_BUDGETS], "%zu %s, more than the "
				  "limit of %u (docs/limits.md)", e->n_steps,
				  e->ratios ? "ratios" : "budgets", EXPERIMENT_MAX_STEPS);
	/* A repeat, found in n log n (sorted indices): the first one listed twice. */
	size_t *order = xcalloc(e->n_steps + 1, sizeof *order), dup = SIZE_MAX;
	for (size_t i = 0; i < e->n_steps; i++)
		order[i] = i;
	sort_steps = e;
	qsort(order, e->n_steps, sizeof *order, by_step);
	for (size_t i = 1; i < e->n_steps; i++)
		if (!by_step(&order[i - 1], &order[i])) {
			size_t later = order[i - 1] > order[i] ? order[i - 1] : order[i];
			if (later < dup)
				dup = later;
		}
	free(order);
	if (dup != SIZE_MAX)
		return node_error(w, LIST_ITEM(w, v[e->ratios ? K_RATIOS : K_BUDGETS], dup),
				  "this %s is listed twice", e->ratios ? "ratio" : "budget");
	return 0;
}

/* A series' host link (docs/offload.md): 'offload_bandwidth' (a rate, or
 * none), 'offload' (cost, local or swap), 'offload_latency', 'host_memory',
 * 'offload_prefetch'; the others need the bandwidth. */
static int want_offload(struct walk *w, yaml_node_t *it, yaml_node_t **sv, struct exp_series *sp)
{
	const char *why;
	static const int extra[] = {S_OFFLOAD, S_OFFLOAD_LATENCY, S_HOST_MEMORY, S_OFFLOAD_PREFETCH};
	yaml_node_t *bw = sv[S_OFFLOAD_BANDWIDTH];
	if (bw) {
		if (bw->type != YAML_SCALAR_NODE)
			return node_error(w, bw, "'offload_bandwidth' must be a rate, not %s", node_kind(bw));
		if (scalar_parse_rate(scalar(bw), &sp->off.bandwidth, &why))
			return node_error(w, bw, "'offload_bandwidth': '%s': %s", scalar(bw), why);
		sp->offload = sp->off.bandwidth > 0;
	}
	for (size_t k = 0; k < sizeof extra / sizeof *extra; k++)
		if (sv[extra[k]] && !sp->offload)
			return node_error(w, sv[extra[k]], "'%s' needs a host link: 'offload_bandwidth' "
					  "(25GB/s, ...)", series_keys[extra[k]]);
	yaml_node_t *n;
	if ((n = sv[S_OFFLOAD])) {
		if (n->type != YAML_SCALAR_NODE || offload_policy_parse(scalar(n), &sp->off.policy))
			return node_error(w, n, "'offload' must be cost, local or swap");
	}
	if ((n = sv[S_OFFLOAD_LATENCY])) {
		if (n->type != YAML_SCALAR_NODE)
			return node_error(w, n, "'offload_latency' must be a time, not %s", node_kind(n));
		if (scalar_parse_seconds(scalar(n), &sp->off.latency_ns, &why))
			return node_error(w, n, "'offload_latency': '%s': %s", scalar(n), why);
	}
	if ((n = sv[S_HOST_MEMORY])) {
		if (want_u64(w, n, "host_memory", &sp->off.host_memory))
			return -1;
		if (!sp->off.host_memory)
			return node_error(w, n, "'host_memory' must be above 0 (leave it out: unbounded)");
	}
	if ((n = sv[S_OFFLOAD_PREFETCH])) {
		uint64_t v;
		if (want_u64(w, n, "offload_prefetch", &v))
			return -1;
		if (v > 1000000)
			return node_error(w, n, "'offload_prefetch' must be at most 1000000");
		sp->off.prefetch = (uint32_t)v;
	}
	(void)it;
	return 0;
}

/* 'series': named curves of a heuristic, runtime, no_dealloc, trials, and
 * a host link. */
static int read_series(struct walk *w, struct experiment *e, yaml_node_t *sl,
		       const struct series_defaults *def, size_t *cap)
{
	if (want_list(w, sl, "series"))
		return -1;
	for (size_t i = 0; i < LIST_LEN(sl); i++) {
		yaml_node_t *it = LIST_ITEM(w, sl, i), *sv[S_COUNT];
		if (want_mapping(w, it, "a series", series_keys, S_COUNT, sv))
			return -1;
		if (!sv[S_NAME] || !sv[S_HEURISTIC])
			return node_error(w, it, "a series needs 'name' and 'heuristic'");
		struct exp_series s = {.runtime = def->runtime, .no_dealloc = def->no_dealloc};
		add_series(e, cap, s);
		struct exp_series *sp = &e->series[e->n_series - 1];
		if (want_string(w, sv[S_NAME], "name", &sp->name) ||
		    want_heuristic(w, sv[S_HEURISTIC], "heuristic", &sp->heuristic))
			return -1;
		if (sv[S_RUNTIME] && want_runtime(w, sv[S_RUNTIME], "runtime", &sp->runtime))
			return -1;
		if (sv[S_NO_DEALLOC] && want_bool(w, sv[S_NO_DEALLOC], "no_dealloc", &sp->no_dealloc))
			return -1;
		if (want_offload(w, it, sv, sp))
			return -1;
		if (sp->offload)
			e->offload_columns = true;
		if (want_servable(w, it, sp))
			return -1;
		sp->trials = sp->heuristic->random ? def->trials : 1;
		if (sv[S_TRIALS] && want_trials(w, sv[S_TRIALS], "trials", &sp->trials))
			return -1;
		if (sp->trials > 1 && !sp->heuristic->random)
			return node_error(w, sv[S_TRIALS], "heuristic '%s' is deterministic: "
					  "more than one trial would repeat the same run",
					  sp->heuristic->name);
	}
	return 0;
}

/* The node that gave series i (read by read_curves: the heuristics'
 * items, then each series' name), for messages at its line and column. */
static yaml_node_t *series_node(struct walk *w, yaml_node_t **v, size_t i)
{
	size_t nh = v[K_HEURISTICS] ? LIST_LEN(v[K_HEURISTICS]) : 0;
	if (i < nh)
		return LIST_ITEM(w, v[K_HEURISTICS], i);
	yaml_node_t *it = LIST_ITEM(w, v[K_SERIES], i - nh);
	for (yaml_node_pair_t *p = it->data.mapping.pairs.start; p < it->data.mapping.pairs.top; p++)
		if (!strcmp(scalar(yaml_document_get_node(w->doc, p->key)), "name"))
			return yaml_document_get_node(w->doc, p->value);
	return it;
}

/* The curves: 'heuristics' (a series each), 'series', 'planners'; at
 * least one, within the limit, names unique and tab-free. */
static int read_curves(struct walk *w, struct experiment *e, yaml_node_t *root, yaml_node_t **v,
		       const struct series_defaults *def)
{
	size_t cap = 0;
	if (v[K_HEURISTICS]) {
		yaml_node_t *hl = v[K_HEURISTICS];
		if (want_list(w, hl, "heuristics"))
			return -1;
		for (size_t i = 0; i < LIST_LEN(hl); i++) {
			yaml_node_t *it = LIST_ITEM(w, hl, i);
			struct exp_series s = {.runtime = def->runtime, .no_dealloc = def->no_dealloc};
			if (want_heuristic(w, it, "heuristics", &s.heuristic))
				return -1;
			s.trials = s.heuristic->random ? def->trials : 1;
			if (want_servable(w, it, &s))
				return -1;
			s.name = xstrdup(s.heuristic->name);
			add_series(e, &cap, s);
		}
	}
	if (v[K_SERIES] && read_series(w, e, v[K_SERIES], def, &cap))
		return -1;
	if (v[K_PLANNERS] && read_planners(w, e, v[K_PLANNERS]))
		return -1;
	/* every series also at each plan's replayed peak: equal memory */
	if (v[K_AT_PLAN_PEAKS]) {
		if (want_bool(w, v[K_AT_PLAN_PEAKS], "heuristics_at_plan_peaks", &e->at_plan_peaks))
			return -1;
		if (e->at_plan_peaks && (!e->n_plans || !e->n_series))
			return node_error(w, v[K_AT_PLAN_PEAKS], "'heuristics_at_plan_peaks' needs "
					  "'planners' and heuristics (or series) to run at their peaks");
	}
	if (!e->n_series && !e->n_plans)
		return node_error(w, root, "no heuristics: give 'heuristics', 'series' or 'planners'");
	/* gap: PLANNER measures from that planner's rows: one the experiment
	 * lacks would leave gap.tsv without an optimum anywhere */
	if (e->gap && strcmp(e->gap, "best")) {
		bool found = false;
		for (size_t i = 0; i < e->n_plans && !found; i++)
			found = !strcmp(e->plans[i].planner->name, e->gap);
		if (!found)
			return node_error(w, v[K_GAP], "'gap' names planner '%s', which 'planners' "
					  "lacks: add it there, or measure from 'best'", e->gap);
	}
	if (e->n_series > EXPERIMENT_MAX_SERIES)
		return node_error(w, root, "%zu series, more than the limit of %u (docs/limits.md)",
				  e->n_series, EXPERIMENT_MAX_SERIES);
	for (size_t i = 0; i < e->n_series; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(e->series[i].name, e->series[j].name)) /* at the second one */
				return node_error(w, series_node(w, v, i), "series '%s' appears twice",
						  e->series[i].name);
	for (size_t i = 0; i < e->n_series; i++)
		if (strpbrk(e->series[i].name, "\t\n\r"))
			return node_error(w, series_node(w, v, i),
					  "series names cannot hold tabs or newlines");
	return 0;
}

/* The models: 'models' or 'manifest' (dir: the experiment file's folder),
 * their fields (model_fields), and the points they make within the limit. */
static int read_model_keys(struct walk *w, struct experiment *e, yaml_node_t *root,
			   yaml_node_t **v, const char *dir)
{
	if (v[K_MODELS] && v[K_MANIFEST])
		return node_error(w, v[K_MANIFEST], "give 'models' or 'manifest', not both");
	if (v[K_MODELS]) {
		if (read_models(w, e, v[K_MODELS], dir))
			return -1;
	} else if (v[K_MANIFEST]) {
		if (read_manifest(w, e, v[K_MANIFEST], dir))
			return -1;
	} else {
		return node_error(w, root, "no models: give 'models' or 'manifest'");
	}
	for (size_t i = 0; i < e->n_models; i++) {
		struct exp_model *m = &e->models[i];
		if (!m->title)
			m->title = xstrdup(m->name);
		if (!m->desc)
			m->desc = xstrdup("");
		const char *what = model_fields(m);
		if (what)
			return node_error(w, v[K_MODELS] ? v[K_MODELS] : v[K_MANIFEST],
					  "model %s cannot hold tabs or newlines (model '%s')", what,
					  m->name);
	}
	/* models x (series x trials x (steps + plans at whose peaks they run)
	 * + plans), without overflowing */
	long double n = 0, plans = (long double)experiment_plan_points(e);
	for (size_t i = 0; i < e->n_series; i++)
		n += (long double)e->series[i].trials *
		     ((long double)e->n_steps + (e->at_plan_peaks ? plans : 0));
	n = (n + plans) * (long double)e->n_models;
	if (n > EXPERIMENT_MAX_POINTS)
		return node_error(w, root, "the experiment has %.0Lf points, more than the limit of "
				  "%u (docs/limits.md)", n, EXPERIMENT_MAX_POINTS);
	return 0;
}

/* The whole file, key by key, in the order its errors are reported. */
static int read_top(struct walk *w, struct experiment *e, yaml_node_t *root)
{
	yaml_node_t *v[K_TOP_COUNT];
	if (want_mapping(w, root, "the experiment", top_keys, K_TOP_COUNT, v))
		return -1;
	struct series_defaults def;
	char *dir = dir_of(w->file);
	int rc = read_name(w, e, root, v) || read_settings(w, e, v, &def) || read_steps(w, e, v) ||
			 read_curves(w, e, root, v, &def) || read_model_keys(w, e, root, v, dir)
		 ? -1 : 0;
	free(dir);
	return rc;
}

/* Refuse YAML nested deeper than EXPERIMENT_MAX_DEPTH, reading events
 * only up to the first too deep one: libyaml's cost per token grows with
 * the nesting (its simple-key stack), so a million levels would take hours
 * to load; this stops after a bounded amount of work. Syntax errors are
 * left to the loader, which reports them the same way. */
static int yaml_depth_check(const char *name, const char *text, size_t len, struct rs_error *err)
{
	yaml_parser_t parser;
	if (!yaml_parser_initialize(&parser))
		rs_bug("cannot initialize the YAML parser");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	int rc = 0, depth = 0;
	for (;;) {
		yaml_event_t ev;
		if (!yaml_parser_parse(&parser, &ev))
			break;
		yaml_event_type_t type = ev.type;
		if (type == YAML_SEQUENCE_START_EVENT || type == YAML_MAPPING_START_EVENT) {
			if (++depth > EXPERIMENT_MAX_DEPTH) {
				rs_error_set(err, EXIT_DATAERR, name, (long)ev.start_mark.line + 1,
					     "YAML nested deeper than %d levels (docs/limits.md)",
					     EXPERIMENT_MAX_DEPTH);
				if (err)
					err->column = (long)ev.start_mark.column + 1;
				rc = -1;
			}
		} else if (type == YAML_SEQUENCE_END_EVENT || type == YAML_MAPPING_END_EVENT) {
			depth--;
		}
		yaml_event_delete(&ev);
		if (rc || type == YAML_STREAM_END_EVENT)
			break;
	}
	yaml_parser_delete(&parser);
	return rc;
}

int experiment_parse(const char *name, const char *text, size_t len,
		     struct experiment **out, struct rs_error *err)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	*out = NULL;
	if (yaml_depth_check(name, text, len, err))
		return -1;
	if (!yaml_parser_initialize(&parser))
		rs_bug("cannot initialize the YAML parser");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		rs_error_set(err, EXIT_DATAERR, name, (long)parser.problem_mark.line + 1,
			     "YAML: %s%s%s", parser.problem ? parser.problem : "syntax error",
			     parser.context ? " " : "", parser.context ? parser.context : "");
		if (err)
			err->column = (long)parser.problem_mark.column + 1;
		yaml_parser_delete(&parser);
		return -1;
	}
	struct walk w = {.file = name, .doc = &doc, .err = err};
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	struct experiment *e = xcalloc(1, sizeof *e);
	e->file = xstrdup(name);
	int rc;
	if (!root)
		rc = rs_error_set(err, EXIT_DATAERR, name, 0, "the file is empty");
	else
		rc = read_top(&w, e, root);
	/* A second document is an error: it would be silently ignored. */
	if (!rc) {
		yaml_document_t extra;
		if (yaml_parser_load(&parser, &extra)) {
			yaml_node_t *r2 = yaml_document_get_root_node(&extra);
			if (r2)
				rc = node_error(&w, r2, "a second YAML document; "
					       "an experiment file holds one");
			yaml_document_delete(&extra);
		}
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (rc) {
		experiment_free(e);
		return -1;
	}
	*out = e;
	return 0;
}

int experiment_read(const char *path, struct experiment **out, struct rs_error *err)
{
	*out = NULL;
	char *buf;
	size_t len;
	if (read_whole_file(path, &buf, &len, err))
		return -1;
	int rc = experiment_parse(path, buf, len, out, err);
	free(buf);
	return rc;
}

/* ------------------------------------------------------------ loading */

struct load_ctx {
	struct experiment *e;
	struct rs_error *errs; /* one per model */
};

static void load_one(void *ctx, size_t i)
{
	struct load_ctx *lc = ctx;
	struct exp_model *m = &lc->e->models[i];
	struct read_options ro = {.from_start = !m->has_start, .digest = true};
	if (m->gen) {
		if (gen_build(m->gen, m->spec, &ro, &m->sched, &lc->errs[i])) {
			m->sched = NULL;
			if (!lc->errs[i].file[0])
				snprintf(lc->errs[i].file, sizeof lc->errs[i].file, "%s", m->name);
			lc->errs[i].status = EXIT_DATAERR;
			return;
		}
	} else if (schedule_read(m->spec, &ro, &m->sched, &lc->errs[i]))
		return;
	baseline_run(m->sched, &m->base);
}

static void hash_str(uint64_t *h, const char *s)
{
	*h = fnv1a64(*h, s, strlen(s) + 1);
}

int experiment_load(struct experiment *e, unsigned jobs, struct rs_error *err)
{
	struct load_ctx lc = {.e = e, .errs = xcalloc(e->n_models, sizeof *lc.errs)};
	pool_run(jobs, e->n_models, load_one, &lc, NULL, 1);
	for (size_t i = 0; i < e->n_models; i++)
		if (!e->models[i].sched) {
			if (err)
				*err = lc.errs[i];
			free(lc.errs);
			return -1;
		}
	free(lc.errs);

	/* Each model's budgets: formulas at the model's n. */
	if (e->budgets) {
		e->model_budgets = xcalloc(e->n_models * e->n_steps, sizeof *e->model_budgets);
		for (size_t m = 0; m < e->n_models; m++)
			for (size_t i = 0; i < e->n_steps; i++) {
				uint64_t *b = &e->model_budgets[m * e->n_steps + i];
				const char *why;
				uint64_t n = experiment_model_n(e, m);
				if (!e->formulas || !e->formulas[i])
					*b = e->budgets[i];
				else if (formula_budget(e->formulas[i], (double)n, b, &why))
					return rs_error_set(err, EXIT_DATAERR, e->file, 0,
							    "budget formula '%s' %s (model '%s', "
							    "n = %llu)", e->formulas[i]->text, why,
							    e->models[m].name, (unsigned long long)n);
			}
	}

	/*
	 * The config hash covers everything that decides a row's numbers: the
	 * program version, the logs' content, the series, the steps, the limit
	 * and the seed. Titles and the output folder do not count.
	 */
	uint64_t h = FNV1A64_INIT;
	char buf[64];
	hash_str(&h, "rematsim-experiment-1");
	hash_str(&h, REMATSIM_VERSION);
	for (size_t i = 0; i < e->n_models; i++) {
		hash_str(&h, e->models[i].name);
		h = fnv1a64(h, e->models[i].sched->sha256, 32);
		h = fnv1a64(h, &e->models[i].has_start, 1);
	}
	for (size_t i = 0; i < e->n_series; i++) {
		struct exp_series *s = &e->series[i];
		hash_str(&h, s->name);
		hash_str(&h, s->heuristic->name);
		hash_str(&h, runtime_kind_name(s->runtime));
		snprintf(buf, sizeof buf, "%d %u", s->no_dealloc, s->trials);
		hash_str(&h, buf);
		if (s->offload) { /* only then: other series keep their hash */
			char bw[FMT_DOUBLE_LEN];
			snprintf(buf, sizeof buf, "offload %s %s %lld %llu %u", offload_policy_name(s->off.policy),
				 fmt_double(bw, s->off.bandwidth), (long long)s->off.latency_ns,
				 (unsigned long long)s->off.host_memory, s->off.prefetch);
			hash_str(&h, buf);
		}
	}
	for (size_t i = 0; i < e->n_steps; i++) {
		if (e->ratios)
			fmt_double(buf, e->ratios[i]);
		else if (e->formulas && e->formulas[i]) {
			hash_str(&h, "F");
			snprintf(buf, sizeof buf, "%.60s", e->formulas[i]->text);
			hash_str(&h, e->formulas[i]->text);
		} else
			snprintf(buf, sizeof buf, "B%llu", (unsigned long long)e->budgets[i]);
		hash_str(&h, buf);
	}
	fmt_double(buf, e->overhead_limit);
	hash_str(&h, buf);
	snprintf(buf, sizeof buf, "%llu", (unsigned long long)e->seed);
	hash_str(&h, buf);
	/* Only when asked for: other experiments keep their hash. */
	if (e->alloc_columns) {
		hash_str(&h, "allocator");
		hash_str(&h, e->alloc_text);
		snprintf(buf, sizeof buf, "%llu", (unsigned long long)e->device_memory);
		hash_str(&h, buf);
	}
	if (e->at_plan_peaks)
		hash_str(&h, "heuristics_at_plan_peaks");
	/* Planners only where there are some: older experiments keep their hash. */
	for (size_t i = 0; i < e->n_plans; i++) {
		hash_str(&h, "planner");
		hash_str(&h, e->plans[i].planner->name);
		for (size_t j = 0; j < e->plans[i].n_params; j++) {
			snprintf(buf, sizeof buf, "%llu", (unsigned long long)e->plans[i].params[j]);
			hash_str(&h, buf);
		}
		for (size_t j = 0; e->plans[i].ratios && j < e->plans[i].n_params; j++) {
			hash_str(&h, "ratio");
			fmt_double(buf, e->plans[i].ratios[j]);
			hash_str(&h, buf);
		}
		if (e->plans[i].max_ops) {
			hash_str(&h, "max_ops");
			snprintf(buf, sizeof buf, "%llu", (unsigned long long)e->plans[i].max_ops);
			hash_str(&h, buf);
		}
		if (e->plans[i].time_limit > 0) {
			hash_str(&h, "time_limit");
			fmt_double(buf, e->plans[i].time_limit);
			hash_str(&h, buf);
		}
	}
	snprintf(e->hash, sizeof e->hash, "%016llx", (unsigned long long)h);
	return 0;
}

void experiment_free(struct experiment *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n_models; i++) {
		struct exp_model *m = &e->models[i];
		free(m->name);
		free(m->title);
		free(m->desc);
		free(m->spec);
		free(m->gen);
		if (m->sched)
			schedule_free(m->sched);
	}
	for (size_t i = 0; i < e->n_series; i++)
		free(e->series[i].name);
	for (size_t i = 0; i < e->n_plans; i++) {
		free(e->plans[i].params);
		free(e->plans[i].ratios);
	}
	free(e->plans);
	free(e->models);
	free(e->series);
	free(e->ratios);
	free(e->budgets);
	for (size_t i = 0; e->formulas && i < e->n_steps; i++)
		free(e->formulas[i]);
	free(e->formulas);
	free(e->model_budgets);
	free(e->name);
	free(e->gap);
	free(e->alloc_text);
	free(e->file);
	free(e);
}

/* ------------------------------------------------------------ points */

uint64_t experiment_model_n(const struct experiment *e, size_t model)
{
	const struct schedule *s = e->models[model].sched;
	return s ? s->n_forward_ops : 0;
}

uint64_t experiment_budget(const struct experiment *e, size_t model, size_t step)
{
	if (!e->budgets)
		return 0;
	if (e->model_budgets)
		return e->model_budgets[model * e->n_steps + step];
	return e->budgets[step];
}

void experiment_step_text(const struct experiment *e, size_t step, char *buf, size_t size)
{
	char b[FMT_DOUBLE_LEN];
	if (e->ratios)
		snprintf(buf, size, "%s", fmt_double(b, e->ratios[step]));
	else if (e->formulas && e->formulas[step])
		snprintf(buf, size, "%s", e->formulas[step]->text);
	else
		snprintf(buf, size, "%llu", (unsigned long long)e->budgets[step]);
}

/* Heuristic points, all models. */
static size_t heuristic_points(const struct experiment *e)
{
	size_t per_model = 0;
	for (size_t s = 0; s < e->n_series; s++)
		per_model += e->series[s].trials * e->n_steps;
	return per_model * e->n_models;
}

size_t experiment_plan_points(const struct experiment *e)
{
	size_t n = 0;
	for (size_t i = 0; i < e->n_plans; i++)
		n += e->plans[i].n_params;
	return n;
}
#define plan_points_per_model experiment_plan_points

void experiment_plan_point(const struct experiment *e, size_t k, uint32_t *plan, uint32_t *step)
{
	for (*plan = 0; k >= e->plans[*plan].n_params; (*plan)++)
		k -= e->plans[*plan].n_params;
	*step = (uint32_t)k;
}

/* Heuristic points at plan peaks, per model: every series' trials x plans. */
static size_t peak_points_per_model(const struct experiment *e)
{
	if (!e->at_plan_peaks)
		return 0;
	size_t trials = 0;
	for (size_t s = 0; s < e->n_series; s++)
		trials += e->series[s].trials;
	return trials * plan_points_per_model(e);
}

uint64_t experiment_plan_param(const struct experiment *e, size_t model, uint32_t plan,
			       uint32_t step)
{
	const struct exp_plan *ep = &e->plans[plan];
	/* a ratio's budget as a heuristic point's: floor(baseline * ratio) */
	return ep->ratios ? (uint64_t)((double)e->models[model].base.memory * ep->ratios[step])
			  : ep->params[step];
}

int experiment_plan_replay(const struct experiment *e, size_t model, uint32_t plan, uint32_t step,
			   struct planner_plan *pp, struct plan_result *out, struct rs_error *err)
{
	const struct exp_model *m = &e->models[model];
	const struct exp_plan *ep = &e->plans[plan];
	struct profile prof;
	memset(pp, 0, sizeof *pp); /* no solver's answer until one runs */
	if (profile_build(m->sched, &prof, err))
		return -1;
	/* dp: the tracker's own split points where its table fits */
	uint64_t k = ep->params[step];
	bool exact = ep->planner->param != PLANNER_PARAM_K ||
		     ((k < prof.n ? k : prof.n) + 1) <= RESET_POINTS_EXACT_CELLS / (prof.n + 1);
	uint64_t param = experiment_plan_param(e, model, plan, step);
	struct planner_args args = {.param = param, .exact = exact, .time_limit = ep->time_limit,
				    .rounds = PLANNER_DEFAULT_ROUNDS};
	int rc = planner_replay(ep->planner, m->sched, &m->base, &prof, &args, false, pp, out, err);
	profile_free(&prof);
	return rc;
}

size_t experiment_first_peak_point(const struct experiment *e)
{
	return heuristic_points(e) + plan_points_per_model(e) * e->n_models;
}

size_t experiment_n_points(const struct experiment *e)
{
	return experiment_first_peak_point(e) + peak_points_per_model(e) * e->n_models;
}

void experiment_point(const struct experiment *e, size_t i, struct exp_point *p)
{
	size_t nh = heuristic_points(e), first_peak = experiment_first_peak_point(e);
	p->at_peak = EXP_NONE;
	if (i >= first_peak) {
		/* a series' trial at a plan's peak: models, series, trials, plans */
		size_t np = plan_points_per_model(e), per_model = peak_points_per_model(e);
		size_t r = (i - first_peak) % per_model;
		p->model = (uint32_t)((i - first_peak) / per_model);
		p->plan = EXP_NONE;
		p->step = EXP_NONE;
		for (p->series = 0;; p->series++) {
			size_t n = e->series[p->series].trials * np;
			if (r < n)
				break;
			r -= n;
		}
		p->trial = (uint32_t)(r / np);
		p->at_peak = (uint32_t)(r % np);
		p->seed = experiment_trial_seed(e->seed, e->models[p->model].name,
						e->series[p->series].heuristic->name, p->trial);
		return;
	}
	if (i >= nh) {
		size_t per_model = plan_points_per_model(e), r = (i - nh) % per_model;
		p->model = (uint32_t)((i - nh) / per_model);
		experiment_plan_point(e, r, &p->plan, &p->step);
		p->series = EXP_NONE;
		p->trial = 0;
		p->seed = 0;
		return;
	}
	size_t per_model = nh / e->n_models;
	p->plan = EXP_NONE;
	p->model = (uint32_t)(i / per_model);
	size_t r = i % per_model;
	for (p->series = 0;; p->series++) {
		size_t n = e->series[p->series].trials * e->n_steps;
		if (r < n)
			break;
		r -= n;
	}
	p->trial = (uint32_t)(r / e->n_steps);
	p->step = (uint32_t)(r % e->n_steps);
	const struct exp_series *s = &e->series[p->series];
	p->seed = experiment_trial_seed(e->seed, e->models[p->model].name,
					s->heuristic->name, p->trial);
}

/* ------------------------------------------------------------ overrides */

static void free_models(struct experiment *e)
{
	for (size_t i = 0; i < e->n_models; i++) {
		free(e->models[i].name);
		free(e->models[i].title);
		free(e->models[i].desc);
		free(e->models[i].spec);
	}
	free(e->models);
	e->models = NULL;
	e->n_models = 0;
}

int experiment_set_models(struct experiment *e, const char *manifest, const char *logs,
			  struct rs_error *err)
{
	if (e->models && e->models[0].sched)
		rs_bug("experiment_set_models after experiment_load");
	if (manifest) {
		struct manifest *man = NULL;
		if (manifest_read(manifest, &man, err))
			return -1;
		if (!man->n_models) {
			manifest_free(man);
			return rs_error_set(err, EXIT_DATAERR, manifest, 0, "the manifest lists no models");
		}
		free_models(e);
		e->models = xcalloc(man->n_models, sizeof *e->models);
		for (size_t i = 0; i < man->n_models; i++) {
			const struct manifest_model *mm = &man->models[i];
			struct exp_model *m = &e->models[e->n_models++];
			m->name = xstrdup(mm->name);
			m->title = xstrdup(mm->title ? mm->title : mm->name);
			m->desc = xstrdup(mm->desc ? mm->desc : "");
			m->spec = xstrdup(mm->spec);
			m->has_start = mm->has_start;
			const char *what = model_fields(m);
			if (what) {
				rs_error_set(err, EXIT_DATAERR, manifest, 0,
					     "model %s cannot hold tabs or newlines (model '%s')", what,
					     m->name);
				manifest_free(man);
				return -1;
			}
		}
		manifest_free(man);
		return 0;
	}
	/* LOG,LOG,...: each its own model, named by its file or member */
	size_t n = 1;
	for (const char *c = logs; *c; c++)
		n += *c == ',';
	struct exp_model *models = xcalloc(n, sizeof *models);
	size_t k = 0;
	const char *p = logs;
	int rc = 0;
	while (!rc) {
		size_t len = strcspn(p, ",");
		if (len == 0) {
			rc = rs_error_set(err, EXIT_USAGE, NULL, 0, "--models: an empty log name in '%s'", logs);
			break;
		}
		struct exp_model *m = &models[k++];
		m->spec = xmalloc(len + 1);
		memcpy(m->spec, p, len);
		m->spec[len] = 0;
		const char *colon = strstr(m->spec, ".zip:");
		const char *base = colon ? colon + 5 : strrchr(m->spec, '/') ? strrchr(m->spec, '/') + 1 : m->spec;
		m->name = xstrdup(base);
		char *ext = strstr(m->name, ".log");
		if (!ext && strlen(m->name) > 5 && !strcmp(m->name + strlen(m->name) - 5, ".json"))
			ext = m->name + strlen(m->name) - 5; /* a graph: "vgg16.json" -> "vgg16" */
		if (!colon && ext)
			*ext = 0; /* "mlp-cpu.log.gz" -> "mlp-cpu" */
		if (strchr(m->name, '\t') || strchr(m->name, '\n'))
			rc = rs_error_set(err, EXIT_USAGE, NULL, 0, "--models: '%s': tabs or newlines", m->spec);
		m->title = xstrdup(m->name);
		m->desc = xstrdup("");
		m->has_start = true;
		for (size_t j = 0; j + 1 < k && !rc; j++)
			if (!strcmp(models[j].name, m->name))
				rc = rs_error_set(err, EXIT_USAGE, NULL, 0, "--models: model '%s' twice", m->name);
		p += len;
		if (!*p)
			break;
		p++;
	}
	if (rc) {
		for (size_t i = 0; i < k; i++) {
			free(models[i].name);
			free(models[i].title);
			free(models[i].desc);
			free(models[i].spec);
		}
		free(models);
		return -1;
	}
	free_models(e);
	e->models = models;
	e->n_models = k;
	return 0;
}
