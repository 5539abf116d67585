/*
 * measured.c: see measured.h. Reading the DTR artifact's measured files,
 * pairing their runs with logs, and replaying them.
 */
#include "measured.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fit.h"
#include "heuristics.h"
#include "pool.h"
#include "results.h"
#include "schedule.h"
#include "source.h"

/*
 * The models of the artifact's measured files (data_files/ of
 * uwsampl/dtr-prototype) and the logs of its simrd/logs.zip recorded from
 * the same configuration (the same model, batch size and input shape:
 * the logs' unbounded peaks agree with the runs' measured total_mem within
 * 0.1 %, their compute with base_compute_time within 1 %). Only these four
 * are; the other rows say why a run of that key has no log. A run matches
 * a row by its key and batch size, and by the extra_params the row names
 * where the run gives them.
 */
static const struct measured_model models[] = {
	{.key = "tv_densenet121", .batch = 84, .extra = "height=224,width=224",
	 .log = "DenseNet-121 (84)", .title = "DenseNet-121", .color = "#1f77b4", .marker = 7},
	{.key = "inceptionv4", .batch = 64, .log = "InceptionV4 (64)", .title = "InceptionV4",
	 .color = "#ff7f0e", .marker = 9},
	{.key = "transformer", .batch = 10, .extra = "input_seq_length=512",
	 .log = "Transformer (10)", .title = "Transformer", .color = "#2ca02c", .marker = 5},
	{.key = "unet", .batch = 6, .extra = "height=608,width=416", .log = "U-Net (6)",
	 .title = "U-Net", .color = "#d62728", .marker = 13},
	{.key = "inceptiov4", .title = "InceptionV4 (misspelt)", .color = "#ff7f0e", .marker = 8,
	 .why = "a misspelt key of the artifact's data-full.json that repeats inceptionv4's runs"},
	{.key = "resnet1202", .title = "ResNet-1202", .color = "#9467bd", .marker = 11,
	 .why = "the archive's ResNet log is of ResNet-32 (batch 56), which no measured run used"},
	{.key = "treelstm", .title = "TreeLSTM", .color = "#8c564b", .marker = 15,
	 .why = "the archive's TreeLSTM log (batch_size 6, 640-wide nodes) peaks at 162 MiB "
		"unbounded: no measured run is of its configuration"},
	{.key = "lstm", .title = "LSTM", .color = "#e377c2", .marker = 3,
	 .why = "the archive's LSTM log has batch_size 128 (5.3 GiB unbounded): no measured run "
		"is of its configuration"},
	{.key = "unroll_gan", .title = "Unrolled GAN", .color = "#7f7f7f", .marker = 1,
	 .why = "the archive's Unrolled GAN log unrolls 10 steps (241 MiB unbounded); the "
		"measured runs unroll 60"},
};

const struct measured_model *measured_models(size_t *n)
{
	*n = sizeof models / sizeof models[0];
	return models;
}

const struct measured_model *measured_model_find(const char *key)
{
	for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
		if (!strcmp(models[i].key, key))
			return &models[i];
	return NULL;
}

const char *measured_kind_name(enum measured_kind k)
{
	switch (k) {
	case MEASURED_BASELINE: return "baseline";
	case MEASURED_FIXED: return "fixed";
	case MEASURED_RATIO: return "ratio";
	case MEASURED_SWEEP: return "param_sweep";
	}
	return "?";
}

/* ---- where a value is: its path in the file, and the line it starts on ---- */

#define JPATH_MAX 6
struct jpath {
	int depth;
	const char *key[JPATH_MAX]; /* a member's key, or NULL for ... */
	size_t idx[JPATH_MAX];      /* ... an array's element */
};

static struct jpath jp_key(struct jpath p, const char *key)
{
	if (p.depth < JPATH_MAX) {
		p.key[p.depth] = key;
		p.idx[p.depth++] = 0;
	}
	return p;
}

static struct jpath jp_idx(struct jpath p, size_t i)
{
	if (p.depth < JPATH_MAX) {
		p.key[p.depth] = NULL;
		p.idx[p.depth++] = i;
	}
	return p;
}

static void jp_text(const struct jpath *p, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (int i = 0; i < p->depth && n < len; i++) {
		int k = p->key[i] ? snprintf(buf + n, len - n, "%s%s", i ? "." : "", p->key[i])
				  : snprintf(buf + n, len - n, "[%zu]", p->idx[i]);
		if (k < 0)
			break;
		n += (size_t)k;
	}
}

static const char *skip_ws(const char *p, const char *e, long *line)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) {
		if (*p == '\n')
			(*line)++;
		p++;
	}
	return p;
}

static const char *skip_string(const char *p, const char *e)
{
	for (p++; p < e && *p != '"'; p++)
		if (*p == '\\')
			p++;
	return p < e ? p + 1 : e;
}

/* Past one value (JSON that jansson accepted: strings hold no newline). */
static const char *skip_value(const char *p, const char *e, long *line)
{
	p = skip_ws(p, e, line);
	if (p >= e)
		return e;
	if (*p == '"')
		return skip_string(p, e);
	if (*p == '{' || *p == '[') {
		int depth = 0;
		while (p < e) {
			char c = *p;
			if (c == '"') {
				p = skip_string(p, e);
				continue;
			}
			if (c == '\n')
				(*line)++;
			else if (c == '{' || c == '[')
				depth++;
			else if ((c == '}' || c == ']') && --depth == 0)
				return p + 1;
			p++;
		}
		return e;
	}
	while (p < e && !strchr(",}] \t\r\n", *p))
		p++;
	return p;
}

/* The line where the value at path starts, walking the text as far as the
 * path leads (the line of the deepest step found). */
static long jp_line(const char *text, size_t len, const struct jpath *path)
{
	const char *p = text, *e = text + len;
	long line = 1;
	for (int d = 0; d < path->depth; d++) {
		p = skip_ws(p, e, &line);
		if (path->key[d]) {
			if (p >= e || *p != '{')
				return line;
			p++;
			size_t kl = strlen(path->key[d]);
			for (;;) {
				p = skip_ws(p, e, &line);
				if (p >= e || *p != '"')
					return line;
				const char *k = p + 1, *ke = skip_string(p, e) - 1;
				p = skip_ws(ke + 1, e, &line);
				if (p < e && *p == ':')
					p++;
				if ((size_t)(ke - k) == kl && !memcmp(k, path->key[d], kl))
					break;
				p = skip_ws(skip_value(p, e, &line), e, &line);
				if (p < e && *p == ',')
					p++;
			}
		} else {
			if (p >= e || *p != '[')
				return line;
			p++;
			for (size_t i = 0; i < path->idx[d]; i++) {
				p = skip_ws(skip_value(p, e, &line), e, &line);
				if (p < e && *p == ',')
					p++;
			}
		}
	}
	skip_ws(p, e, &line);
	return line;
}

/*
 * The lines where each run of every model's list starts, found in one walk
 * of the file: a cursor over the top object's members moves on from the
 * last model found (jansson gives the members in the file's order), so
 * reading a file of n runs is O(size), not a walk from the top per run
 * (a 20 MB file took 145 s). A key the cursor does not meet (one written
 * with escapes: the walk compares keys as written) gives its runs the
 * line where one walk to it gets (jp_line), once for all of them.
 */
struct jp_cursor {
	const char *text, *p, *e;
	long line;
	bool ok; /* the text is an object and p is inside it */
};

static void jp_cursor_init(struct jp_cursor *c, const char *text, size_t len)
{
	c->text = text;
	c->e = text + len;
	c->line = 1;
	c->p = skip_ws(text, c->e, &c->line);
	c->ok = c->p < c->e && *c->p == '{';
	if (c->ok)
		c->p++;
}

/* Move to the value of the top member key (at most one lap): true with
 * c->p at the value, or false. */
static bool jp_cursor_seek(struct jp_cursor *c, const char *key)
{
	if (!c->ok)
		return false;
	size_t kl = strlen(key);
	bool wrapped = false;
	for (;;) {
		const char *p = skip_ws(c->p, c->e, &c->line);
		if (p < c->e && *p == ',')
			p = skip_ws(p + 1, c->e, &c->line);
		if (p >= c->e || *p != '"') {
			/* the object's end: once more from its start */
			if (wrapped)
				return false;
			wrapped = true;
			jp_cursor_init(c, c->text, (size_t)(c->e - c->text));
			continue;
		}
		const char *k = p + 1, *ke = skip_string(p, c->e) - 1;
		p = skip_ws(ke + 1, c->e, &c->line);
		if (p < c->e && *p == ':')
			p = skip_ws(p + 1, c->e, &c->line);
		if ((size_t)(ke - k) == kl && !memcmp(k, key, kl)) {
			c->p = p;
			return true;
		}
		c->p = skip_value(p, c->e, &c->line);
	}
}

/* At a list (c->p): the line of each of its first n elements into lines
 * (0 where the text ends first); c->p moves past the list. */
static void jp_cursor_lines(struct jp_cursor *c, size_t n, long *lines)
{
	const char *p = c->p;
	size_t i = 0;
	if (p < c->e && *p == '[') {
		p++;
		for (; i < n; i++) {
			p = skip_ws(p, c->e, &c->line);
			if (p >= c->e || *p == ']')
				break;
			lines[i] = c->line;
			p = skip_ws(skip_value(p, c->e, &c->line), c->e, &c->line);
			if (p < c->e && *p == ',')
				p++;
		}
		p = skip_ws(p, c->e, &c->line);
		if (p < c->e && *p == ']')
			p++;
	}
	for (; i < n; i++)
		lines[i] = 0;
	c->p = p;
}

/* ---- reading ---------------------------------------------------------- */

struct reader {
	const char *path, *text;
	size_t len;
	struct rs_error *err;
};

__attribute__((format(printf, 3, 4)))
static int fail(struct reader *rd, const struct jpath *at, const char *fmt, ...)
{
	char where[256], msg[600];
	jp_text(at, where, sizeof where);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return rs_error_set(rd->err, EXIT_DATAERR, rd->path, jp_line(rd->text, rd->len, at), "%s%s%s",
			    where, *where ? ": " : "", msg);
}

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "a list";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	case JSON_NULL: return "null";
	}
	return "?";
}

/* A whole number in [lo, hi] (an integer, or a real with no fraction). */
static bool whole_in(const json_t *v, double lo, double hi, double *out)
{
	if (!json_is_number(v))
		return false;
	double x = json_number_value(v);
	if (!(x >= lo && x <= hi) || x != floor(x))
		return false;
	*out = x;
	return true;
}

/* A median of the summary's statistics: NAN when absent or not recorded
 * (the artifact writes -1e-06, or -0.0, for a statistic it did not take). */
static int stat_median(struct reader *rd, struct jpath at, const json_t *stats, const char *name, double *out)
{
	*out = NAN;
	const json_t *s = json_object_get(stats, name);
	if (!s)
		return 0;
	at = jp_key(at, name);
	if (!json_is_object(s))
		return fail(rd, &at, "%s where an object of statistics (median, mean, ...) belongs",
			    type_name(s));
	const json_t *m = json_object_get(s, "median");
	at = jp_key(at, "median");
	if (!m)
		return fail(rd, &at, "missing: every statistic needs its median");
	if (!json_is_number(m) || !isfinite(json_number_value(m)))
		return fail(rd, &at, "%s where a number belongs", type_name(m));
	double x = json_number_value(m);
	if (x > 0 || (x == 0 && !signbit(x)))
		*out = x;
	return 0;
}

static int flag(struct reader *rd, struct jpath at, const json_t *sp, const char *name, bool *out)
{
	const json_t *v = json_object_get(sp, name);
	*out = true; /* the prototype's defaults (CheckpointPool) */
	if (!v)
		return 0;
	if (!json_is_boolean(v)) {
		at = jp_key(at, name);
		return fail(rd, &at, "%s where true or false belongs", type_name(v));
	}
	*out = json_is_true(v);
	return 0;
}

/* Run i of model's list, which starts on line (0: not known; found by a
 * walk, jp_line). */
static int read_run(struct reader *rd, const char *model, size_t i, long line, const json_t *r,
		    struct measured_run *out)
{
	struct jpath at = jp_idx(jp_key((struct jpath){0}, model), i);
	memset(out, 0, sizeof *out);
	out->model = xstrdup(model);
	out->index = i;
	out->line = line ? line : jp_line(rd->text, rd->len, &at);
	out->remat_ms = out->base_ms = out->total_mem = NAN;
	if (!json_is_object(r))
		return fail(rd, &at, "%s where a run belongs ({\"specific_params\": ..., \"summary\": ...})",
			    type_name(r));
	const json_t *sp = json_object_get(r, "specific_params"), *sum = json_object_get(r, "summary");
	struct jpath asp = jp_key(at, "specific_params");
	if (!json_is_object(sp))
		return fail(rd, sp ? &asp : &at, "%s", sp ? "specific_params is not an object"
							  : "no specific_params: not a run of the DTR artifact's files");
	const json_t *type = json_object_get(sp, "type");
	struct jpath atype = jp_key(asp, "type");
	if (!json_is_string(type) || (strcmp(json_string_value(type), "baseline") &&
				      strcmp(json_string_value(type), "dtr")))
		return fail(rd, type ? &atype : &asp, "the run's type must be \"baseline\" or \"dtr\"");
	bool dtr = !strcmp(json_string_value(type), "dtr");
	double x;
	struct jpath ab = jp_key(asp, "batch_size");
	if (!whole_in(json_object_get(sp, "batch_size"), 1, 1e9, &x))
		return fail(rd, json_object_get(sp, "batch_size") ? &ab : &asp,
			    json_object_get(sp, "batch_size") ? "not a batch size (a whole number from 1 to 1e9)"
							      : "no batch_size (a whole number from 1 to 1e9)");
	out->batch = (unsigned)x;
	const json_t *ex = json_object_get(sp, "extra_params");
	out->extra = xstrdup("");
	if (ex) {
		struct jpath ae = jp_key(asp, "extra_params");
		if (!json_is_object(ex))
			return fail(rd, &ae, "%s where an object belongs", type_name(ex));
		const char *k;
		json_t *v;
		size_t n = 0;
		json_object_foreach((json_t *)ex, k, v) {
			char *vt = json_is_string(v) ? xstrdup(json_string_value(v))
						     : json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
			size_t need = n + strlen(k) + strlen(vt ? vt : "") + 3;
			out->extra = xrealloc(out->extra, need);
			n += (size_t)snprintf(out->extra + n, need - n, "%s%s=%s", n ? "," : "", k, vt ? vt : "");
			free(vt);
		}
	}
	if (flag(rd, asp, sp, "use_sampling", &out->use_sampling) ||
	    flag(rd, asp, sp, "ignore_small_tensors", &out->ignore_small))
		return -1;
	out->kind = MEASURED_BASELINE;
	if (dtr) {
		const json_t *kind = json_object_get(sp, "kind");
		struct jpath ak = jp_key(asp, "kind");
		const char *ks = json_is_string(kind) ? json_string_value(kind) : "";
		if (!strcmp(ks, "fixed"))
			out->kind = MEASURED_FIXED;
		else if (!strcmp(ks, "ratio"))
			out->kind = MEASURED_RATIO;
		else if (!strcmp(ks, "param_sweep"))
			out->kind = MEASURED_SWEEP;
		else
			return fail(rd, kind ? &ak : &asp,
				    "a dtr run's kind must be \"fixed\", \"ratio\" or \"param_sweep\"");
		if (out->kind == MEASURED_RATIO) {
			const json_t *rv = json_object_get(sp, "ratio");
			struct jpath ar = jp_key(asp, "ratio");
			if (!json_is_number(rv) || !(json_number_value(rv) > 0 && json_number_value(rv) <= 10))
				return fail(rd, rv ? &ar : &asp, "a ratio run needs a ratio in (0, 10] "
					    "(of its baseline's measured total_mem)");
			out->ratio = json_number_value(rv);
		} else {
			const json_t *bv = json_object_get(sp, "memory_budget");
			struct jpath abv = jp_key(asp, "memory_budget");
			if (!bv)
				return fail(rd, &asp, "a %s run needs its memory_budget (bytes)",
					    measured_kind_name(out->kind));
			double b = json_is_number(bv) ? json_number_value(bv) : NAN;
			if (!(b >= 1 && b < 0x1p63))
				return fail(rd, &abv, "%s is not a budget: bytes from 1 up, like 8e9",
					    json_is_number(bv) ? "this number" : type_name(bv));
			out->budget = (uint64_t)b;
		}
	}
	struct jpath as = jp_key(at, "summary");
	if (!sum)
		return fail(rd, &at, "no summary (a list of one object of statistics, or \"error\")");
	if (json_is_string(sum)) {
		if (strcmp(json_string_value(sum), "error"))
			return fail(rd, &as, "\"%.40s\": a summary is a list of one object of statistics, "
				    "or \"error\" for a run that failed", json_string_value(sum));
		out->error = true;
		return 0;
	}
	if (!json_is_array(sum) || json_array_size(sum) != 1 || !json_is_object(json_array_get(sum, 0)))
		return fail(rd, &as, "%s: a summary is a list of one object of statistics, or \"error\"",
			    json_is_array(sum) ? "a list not of one object" : type_name(sum));
	const json_t *st = json_array_get(sum, 0);
	struct jpath a0 = jp_idx(as, 0);
	if (stat_median(rd, a0, st, "remat_compute_time", &out->remat_ms) ||
	    stat_median(rd, a0, st, "base_compute_time", &out->base_ms) ||
	    stat_median(rd, a0, st, "total_mem", &out->total_mem))
		return -1;
	/* bytes that fit the byte counts they are compared with and written
	 * as (int64 in --json: 1e308 MB wrapped to -2^63) */
	if (!(isnan(out->total_mem) || out->total_mem * 1e6 < 0x1p63)) {
		struct jpath am = jp_key(jp_key(a0, "total_mem"), "median");
		return fail(rd, &am, "%g MB is not a memory size (at most 2^63 bytes)", out->total_mem);
	}
	if (!isnan(out->total_mem))
		out->total_mem *= 1e6; /* MB */
	return 0;
}

/* The baseline runs by model, batch and place in the file (first of equals
 * first): a ratio run finds its own by a binary search, not a pass over
 * every run (a file of many ratio runs was quadratic). */
static int by_model_batch(const struct measured_run *x, const struct measured_run *y)
{
	int c = strcmp(x->model, y->model);
	return c ? c : x->batch < y->batch ? -1 : x->batch > y->batch;
}

static int by_baseline(const void *a, const void *b)
{
	const struct measured_run *x = *(const struct measured_run *const *)a,
				  *y = *(const struct measured_run *const *)b;
	int c = by_model_batch(x, y);
	return c ? c : x < y ? -1 : x > y; /* (one array: its order) */
}

/* A ratio run's budget: its ratio of the total_mem of the (first) baseline
 * run of its model and batch; base: the baselines, sorted (by_baseline). */
static int resolve_ratio(struct reader *rd, const struct measured_run *const *base, size_t n_base,
			 struct measured_run *r)
{
	struct jpath at = jp_key(jp_key(jp_idx(jp_key((struct jpath){0}, r->model), r->index),
					"specific_params"), "ratio");
	size_t lo = 0, hi = n_base;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (by_model_batch(base[mid], r) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct measured_run *b = lo < n_base && !by_model_batch(base[lo], r) ? base[lo] : NULL;
	if (!b)
		return fail(rd, &at, "a ratio run needs the measured total_mem of a baseline run of %s at "
			    "batch %u, and the file has none", r->model, r->batch);
	if (b->error || isnan(b->total_mem))
		return fail(rd, &at, "its baseline run (line %ld) %s, so the ratio has no budget to scale",
			    b->line, b->error ? "failed (\"error\")" : "did not record total_mem");
	double bytes = floor(r->ratio * b->total_mem);
	if (!(bytes >= 1 && bytes < 0x1p63))
		return fail(rd, &at, "a budget of %.0f bytes", bytes);
	r->budget = (uint64_t)bytes;
	return 0;
}

/* The file whole, at most REMATSIM_MAX_INPUT bytes (docs/limits.md): an
 * endless input (/dev/zero, a pipe) stops there. */
static int read_bounded(const char *path, char **data, size_t *len, struct rs_error *err)
{
	return read_whole_file_limit(path, rs_limit(RS_MAX_INPUT_ENV, RS_MAX_INPUT_DEFAULT), data, len, err);
}

int measured_read(const char *path, struct measured_file *f, struct rs_error *err)
{
	memset(f, 0, sizeof *f);
	f->path = xstrdup(path);
	char *text;
	size_t len;
	if (read_bounded(path, &text, &len, err))
		return -1;
	struct reader rd = {.path = path, .text = text, .len = len, .err = err};
	json_error_t je;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	int rc = 0;
	if (!root) {
		rc = rs_error_set(err, EXIT_DATAERR, path, je.line, "not JSON: %s", je.text);
		goto out;
	}
	struct jpath top = {0};
	if (!json_is_object(root)) {
		rc = fail(&rd, &top, "%s: a measured file is an object of models, each a list of runs "
			  "(the DTR artifact's data-full.json)", type_name(root));
		goto out;
	}
	const char *key;
	json_t *v;
	size_t cap = 0, models_seen = 0;
	struct jp_cursor cur;
	jp_cursor_init(&cur, text, len);
	json_object_foreach(root, key, v) {
		struct jpath at = jp_key(top, key);
		if (json_is_string(v) || json_is_number(v))
			continue; /* notes: timestamp, start_time, ... */
		if (!json_is_array(v)) {
			rc = fail(&rd, &at, "%s: a member is a model's list of runs, or a note (a string "
				  "or number)", type_name(v));
			goto out;
		}
		models_seen++;
		size_t nr = json_array_size(v);
		long *lines = xcalloc(nr ? nr : 1, sizeof *lines);
		if (jp_cursor_seek(&cur, key)) {
			jp_cursor_lines(&cur, nr, lines);
		} else {
			/* (a key written with escapes: its runs say where the
			 * walk gets, found once, not a walk per run) */
			long l = jp_line(text, len, &at);
			for (size_t i = 0; i < nr; i++)
				lines[i] = l;
		}
		for (size_t i = 0; i < nr && !rc; i++) {
			XGROW(f->runs, cap, f->n_runs + 1);
			rc = read_run(&rd, key, i, lines[i], json_array_get(v, i), &f->runs[f->n_runs++]);
		}
		free(lines);
		if (rc)
			goto out;
	}
	if (!models_seen) {
		rc = fail(&rd, &top, "no model's list of runs: not a measured file (an object of models, "
			  "each a list of {specific_params, summary})");
		goto out;
	}
	const struct measured_run **base = xmalloc((f->n_runs + 1) * sizeof *base);
	size_t n_base = 0;
	for (size_t i = 0; i < f->n_runs; i++)
		if (f->runs[i].kind == MEASURED_BASELINE)
			base[n_base++] = &f->runs[i];
	qsort(base, n_base, sizeof *base, by_baseline);
	for (size_t i = 0; i < f->n_runs && !rc; i++)
		if (f->runs[i].kind == MEASURED_RATIO)
			rc = resolve_ratio(&rd, base, n_base, &f->runs[i]);
	free(base);
out:
	json_decref(root);
	free(text);
	return rc ? -1 : 0;
}

void measured_file_free(struct measured_file *f)
{
	for (size_t i = 0; i < f->n_runs; i++) {
		free(f->runs[i].model);
		free(f->runs[i].extra);
		free(f->runs[i].spec);
		free(f->runs[i].why);
	}
	free(f->runs);
	free(f->path);
	memset(f, 0, sizeof *f);
}

/* ---- matching ------------------------------------------------------------- */

/* The value of key in a "k=v,k=v" list, into buf; false if absent. */
static bool kv_get(const char *list, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);
	for (const char *p = list; p && *p;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		if (n > kl && !strncmp(p, key, kl) && p[kl] == '=') {
			snprintf(buf, len, "%.*s", (int)(n - kl - 1), p + kl + 1);
			return true;
		}
		p = comma ? comma + 1 : NULL;
	}
	return false;
}

/* Whether the run's extra_params agree with the row's; else *why. */
static bool extra_agrees(const struct measured_run *r, const struct measured_model *m, char **why)
{
	if (!m->extra)
		return true;
	char key[64], want[64], have[64];
	for (const char *p = m->extra; p && *p;) {
		const char *eq = strchr(p, '='), *comma = strchr(p, ',');
		snprintf(key, sizeof key, "%.*s", (int)(eq - p), p);
		if (kv_get(m->extra, key, want, sizeof want) && kv_get(r->extra, key, have, sizeof have) &&
		    strcmp(want, have)) {
			char buf[400];
			snprintf(buf, sizeof buf, "extra_params %s=%s; the %s log's run had %s=%s", key, have,
				 m->log, key, want);
			*why = xstrdup(buf);
			return false;
		}
		p = comma ? comma + 1 : NULL;
	}
	return true;
}

/* ---- mapping files -------------------------------------------------------- */

struct measured_table {
	struct measured_model *rows; /* the file's rows, then the compiled rows of other keys */
	size_t n;
	char **specs;                /* per row: the manifest's spec of its log (NULL: none) */
	long *lines;                 /* per file row: its line */
};

void measured_table_free(struct measured_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		if (t->specs[i]) { /* a file's row: its strings are ours */
			free((char *)t->rows[i].key);
			free((char *)t->rows[i].extra);
			free((char *)t->rows[i].log);
			free(t->specs[i]);
		}
	}
	free(t->rows);
	free(t->specs);
	free(t->lines);
	free(t);
}

/* A row of the table in the order rows are looked up: key, batch, place. */
struct row_ix {
	const char *key;
	unsigned batch;
	const char *extra; /* (a mapping file's duplicate rows) */
	size_t i;
};

/* key then batch */
static int by_row_key(const struct row_ix *x, const struct row_ix *y)
{
	int c = strcmp(x->key, y->key);
	if (c)
		return c;
	return x->batch != y->batch ? (x->batch < y->batch ? -1 : 1) : 0;
}

static int by_row(const void *a, const void *b)
{
	const struct row_ix *x = a, *y = b;
	int c = by_row_key(x, y);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* key, batch, extra, place */
static int by_dup(const void *a, const void *b)
{
	const struct row_ix *x = a, *y = b;
	int c = by_row_key(x, y);
	if (!c)
		c = strcmp(x->extra, y->extra);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* The first entry at or after (key, batch) in the sorted ix. */
static size_t row_lower(const struct row_ix *ix, size_t n, const char *key, unsigned batch)
{
	size_t lo = 0, hi = n;
	struct row_ix want = {key, batch, "", 0};
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (by_row(&ix[mid], &want) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct name_ix {
	const char *name;
	size_t i;
};

static int by_name(const void *a, const void *b)
{
	const struct name_ix *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* The first entry of name in the sorted ix, or NULL. */
static const struct name_ix *name_find(const struct name_ix *ix, size_t n, const char *name)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(ix[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !strcmp(ix[lo].name, name) ? &ix[lo] : NULL;
}

/* Whether s is a "k=v,k=v" list with non-empty keys. */
static bool extra_valid(const char *s)
{
	for (const char *p = s; *p;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		const char *eq = memchr(p, '=', n);
		if (!eq || eq == p || (size_t)(eq - p) >= 64 || n - (size_t)(eq - p) - 1 >= 64)
			return false;
		p = comma ? comma + 1 : p + n;
		if (comma && !*p)
			return false;
	}
	return true;
}

static int map_row(const char *path, long line, char *text, const struct name_ix *mix, size_t nm,
		   const struct manifest *mf, struct measured_model *row, char **spec, struct rs_error *err)
{
	char *fd[4];
	size_t n = tsv_split(text, fd, 4);
	if (n < 3 || n > 4)
		return rs_error_set(err, EXIT_DATAERR, path, line, "%zu field%s: a row is KEY<TAB>BATCH<TAB>LOG, "
				    "optionally <TAB>EXTRA (k=v,k=v)", n, n == 1 ? "" : "s");
	for (const char *p = text; p < fd[n - 1] + strlen(fd[n - 1]); p++)
		if ((unsigned char)*p < 0x20 && *p != '\0')
			return rs_error_set(err, EXIT_DATAERR, path, line, "a control character (0x%02x) in a row",
					    (unsigned char)*p);
	if (!*fd[0])
		return rs_error_set(err, EXIT_DATAERR, path, line, "an empty KEY (the measured file's model name)");
	char *end;
	errno = 0;
	unsigned long long b = strtoull(fd[1], &end, 10);
	if (fd[1][0] < '0' || fd[1][0] > '9' || *end || errno || b < 1 || b > 1000000000)
		return rs_error_set(err, EXIT_DATAERR, path, line, "BATCH '%s': not a batch size (a whole "
				    "number from 1 to 1e9)", fd[1]);
	if (!*fd[2])
		return rs_error_set(err, EXIT_DATAERR, path, line, "an empty LOG (a model of the manifest)");
	if (n == 4 && !extra_valid(fd[3]))
		return rs_error_set(err, EXIT_DATAERR, path, line, "EXTRA '%s': not a list k=v,k=v", fd[3]);
	/* LOG: a model's name in the manifest, else the log member it names */
	const struct name_ix *m = name_find(mix, nm, fd[2]);
	if (!m)
		m = name_find(mix + nm, nm, fd[2]);
	if (!m)
		return rs_error_set(err, EXIT_DATAERR, path, line, "'%s' is neither a model nor a log of %s "
				    "(rematsim info %s lists them)", fd[2], mf->source, mf->source);
	const struct manifest_model *mm = &mf->models[m->i];
	*row = (struct measured_model){
		.key = xstrdup(fd[0]), .batch = (unsigned)b, .extra = n == 4 && *fd[3] ? xstrdup(fd[3]) : NULL,
		.log = xstrdup(mm->name), .title = NULL, .color = "#555555", .marker = 1,
	};
	row->title = row->key;
	*spec = xstrdup(mm->spec);
	return 0;
}

int measured_table_read(const char *path, const struct manifest *mf, struct measured_table **out,
			struct rs_error *err)
{
	*out = NULL;
	char *text;
	size_t len;
	if (read_whole_file_limit(path, rs_limit(RS_MAX_INPUT_ENV, RS_MAX_INPUT_DEFAULT), &text, &len, err))
		return -1;
	if (memchr(text, '\0', len)) {
		free(text);
		return rs_error_set(err, EXIT_DATAERR, path, 0, "a NUL byte: not a text file of rows");
	}
	/* the manifest's names, then its log members, each sorted */
	size_t nm = mf->n_models;
	struct name_ix *mix = xmalloc((2 * nm + 1) * sizeof *mix);
	for (size_t i = 0; i < nm; i++) {
		mix[i] = (struct name_ix){mf->models[i].name, i};
		mix[nm + i] = (struct name_ix){mf->models[i].log, i};
	}
	qsort(mix, nm, sizeof *mix, by_name);
	qsort(mix + nm, nm, sizeof *mix, by_name);
	struct measured_table *t = xcalloc(1, sizeof *t);
	size_t cap = 0, scap = 0, lcap = 0;
	long line = 0;
	int rc = 0;
	for (char *p = text, *nl; p < text + len && !rc; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(text + len - p));
		if (!nl)
			nl = text + len;
		*nl = '\0';
		line++;
		if (nl > p && nl[-1] == '\r')
			nl[-1] = '\0';
		if (!*p || *p == '#')
			continue;
		XGROW(t->rows, cap, t->n + 1);
		XGROW(t->specs, scap, t->n + 1);
		XGROW(t->lines, lcap, t->n + 1);
		t->lines[t->n] = line;
		rc = map_row(path, line, p, mix, nm, mf, &t->rows[t->n], &t->specs[t->n], err);
		if (!rc)
			t->n++;
	}
	free(mix);
	free(text);
	if (!rc && !t->n)
		rc = rs_error_set(err, EXIT_DATAERR, path, 0, "no rows (KEY<TAB>BATCH<TAB>LOG[<TAB>EXTRA]): "
				  "nothing to map");
	/* a row twice (key, batch and extra): refused; sorted, the rows of
	 * one key and batch are together */
	struct row_ix *ix = rc ? NULL : xmalloc((t->n + 1) * sizeof *ix);
	size_t nfile = t->n;
	for (size_t i = 0; !rc && i < nfile; i++)
		ix[i] = (struct row_ix){t->rows[i].key, t->rows[i].batch, t->rows[i].extra ? t->rows[i].extra : "", i};
	if (!rc)
		qsort(ix, nfile, sizeof *ix, by_dup);
	for (size_t i = 0; !rc && i + 1 < nfile; i++)
		if (!by_row_key(&ix[i], &ix[i + 1]) && !strcmp(ix[i].extra, ix[i + 1].extra))
			rc = rs_error_set(err, EXIT_DATAERR, path, t->lines[ix[i + 1].i], "%s at batch %u%s%s is "
					  "mapped twice (the first time on line %ld)", ix[i].key, ix[i].batch,
					  *ix[i].extra ? " with " : "", ix[i].extra, t->lines[ix[i].i]);
	/* the compiled rows of the keys the file does not name, after its own */
	size_t nc = sizeof models / sizeof models[0];
	for (size_t k = 0; !rc && k < nc; k++) {
		size_t at = row_lower(ix, nfile, models[k].key, 0);
		if (at < nfile && !strcmp(ix[at].key, models[k].key))
			continue;
		XGROW(t->rows, cap, t->n + 1);
		XGROW(t->specs, scap, t->n + 1);
		t->rows[t->n] = models[k];
		t->specs[t->n++] = NULL;
	}
	free(ix);
	if (rc) {
		measured_table_free(t);
		return -1;
	}
	*out = t;
	return 0;
}

/* ---- matching ------------------------------------------------------------- */

void measured_match(struct measured_file *f, const struct manifest *mf, const struct measured_table *t)
{
	const struct measured_model *rows = t ? t->rows : models;
	size_t nrows = t ? t->n : sizeof models / sizeof models[0];
	/* the rows by (key, batch, place), and per key the first row (in
	 * table order) with a log and without one: a run costs two binary
	 * searches, not a walk of the table (a file of 10^5 runs against a
	 * mapping of 10^5 rows stays linear, issue 40) */
	struct row_ix *ix = xmalloc((nrows + 1) * sizeof *ix);
	for (size_t k = 0; k < nrows; k++)
		ix[k] = (struct row_ix){rows[k].key, rows[k].batch, "", k};
	qsort(ix, nrows, sizeof *ix, by_row);
	size_t *first_log = xmalloc((nrows + 1) * sizeof *first_log);
	size_t *first_nolog = xmalloc((nrows + 1) * sizeof *first_nolog);
	for (size_t g = 0, e; g < nrows; g = e) {
		size_t fl = SIZE_MAX, fn = SIZE_MAX;
		for (e = g; e < nrows && !strcmp(ix[e].key, ix[g].key); e++) {
			if (rows[ix[e].i].log)
				fl = ix[e].i < fl ? ix[e].i : fl;
			else
				fn = ix[e].i < fn ? ix[e].i : fn;
		}
		first_log[g] = fl;
		first_nolog[g] = fn;
	}
	/* the manifest's models by name (the compiled table's logs) */
	size_t nm = mf ? mf->n_models : 0;
	struct name_ix *mix = xmalloc((nm + 1) * sizeof *mix);
	for (size_t i = 0; i < nm; i++)
		mix[i] = (struct name_ix){mf->models[i].name, i};
	qsort(mix, nm, sizeof *mix, by_name);
	for (size_t i = 0; i < f->n_runs; i++) {
		struct measured_run *r = &f->runs[i];
		if (r->kind == MEASURED_BASELINE)
			continue;
		/* its row; else the first row of its key with a log (another
		 * batch), or without one (why not) */
		const struct measured_model *row = NULL, *logged = NULL, *nolog = NULL;
		size_t row_i = SIZE_MAX;
		char *why = NULL, buf[600];
		size_t g = row_lower(ix, nrows, r->model, 0);
		if (g < nrows && !strcmp(ix[g].key, r->model)) {
			logged = first_log[g] == SIZE_MAX ? NULL : &rows[first_log[g]];
			nolog = first_nolog[g] == SIZE_MAX ? NULL : &rows[first_nolog[g]];
			for (size_t k = row_lower(ix, nrows, r->model, r->batch);
			     k < nrows && !row && ix[k].batch == r->batch && !strcmp(ix[k].key, r->model); k++) {
				const struct measured_model *m = &rows[ix[k].i];
				if (!m->log)
					continue;
				free(why);
				why = NULL;
				if (extra_agrees(r, m, &why)) {
					row = m;
					row_i = ix[k].i;
				}
			}
		}
		if (row && t && t->specs[row_i]) {
			r->spec = xstrdup(t->specs[row_i]);
		} else if (row) {
			const struct name_ix *m = name_find(mix, nm, row->log);
			if (m)
				r->spec = xstrdup(mf->models[m->i].spec);
		}
		if (r->spec) {
			r->mm = row;
		} else if (row) {
			snprintf(buf, sizeof buf, "%s has no model '%s' (the log of this configuration)",
				 mf ? mf->source : "the archive", row->log);
			r->why = xstrdup(buf);
		} else if (why) {
			r->why = why;
			why = NULL;
		} else if (logged) {
			snprintf(buf, sizeof buf, "the %s log is of batch %u", logged->log, logged->batch);
			r->why = xstrdup(buf);
		} else if (nolog) {
			r->why = xstrdup(nolog->why);
		} else {
			snprintf(buf, sizeof buf, "%s is not in the table of logged models "
				 "(sim/exp/measured.c, models[]): map it to a log with --mapping FILE", r->model);
			r->why = xstrdup(buf);
		}
		free(why);
	}
	free(mix);
	free(first_log);
	free(first_nolog);
	free(ix);
}

/* ---- replaying ------------------------------------------------------------ */

struct rlog {
	const char *spec;
	struct schedule *s;
	struct baseline b;
};

struct task {
	size_t point;   /* index into the points */
	unsigned trial;
};

struct rctx {
	const struct measured_file *f;
	const struct measured_options *o;
	struct rlog *logs;
	size_t *run_log;              /* per run, its log (SIZE_MAX: none) */
	struct proto_rules *rules;    /* per run */
	struct measured_point *pts;
	struct task *tasks;
	/* per task: results */
	double *pct, *peak;
	enum outcome *out;
	uint64_t *fit;
	bool *refused;             /* per task: the runtime refused the log */
	struct rs_error *why;      /* ... and why */
};

static void run_task(void *vctx, size_t i)
{
	struct rctx *c = vctx;
	const struct task *t = &c->tasks[i];
	const struct measured_point *pt = &c->pts[t->point];
	const struct measured_run *r = &c->f->runs[pt->run];
	const struct rlog *lg = &c->logs[c->run_log[pt->run]];
	struct point_config pc = {
		.rt.heuristic = pt->h,
		.rt.runtime = RUNTIME_V2_EAGER_OPTIMIZED,
		.budget = r->budget,
		.overhead_limit = c->o->overhead_limit,
		.rt.seed = c->o->seed + t->trial,
		.rt.proto = &c->rules[pt->run],
	};
	struct point_result pr;
	struct rs_error err;
	/* The configuration was checked: a refusal is a log whose views a
	 * region heuristic cannot follow (runtime.h), reported after the pool. */
	if (point_run(lg->s, &lg->b, &pc, &pr, &c->why[i])) {
		c->refused[i] = true;
		return;
	}
	c->pct[i] = lg->b.compute > 0 ? 100.0 * (double)pr.run.remat_compute / (double)lg->b.compute : 0;
	c->peak[i] = (double)pr.run.peak_memory;
	c->out[i] = pr.run.outcome;
	c->fit[i] = 0;
	if (r->kind == MEASURED_SWEEP) {
		/* the same point, the fit's budgets */
		struct fit_config fc = {.point = pc, .resolution = c->o->fit_resolution, .jobs = 1};
		struct fit_result fr;
		if (fit_run(lg->s, &lg->b, &fc, &fr, &err) == 0) {
			c->fit[i] = fr.smallest_pass;
			fit_result_free(&fr);
		}
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int measured_replay(const struct measured_file *f, const struct measured_options *o,
		    struct measured_point **pts_out, size_t *n_pts_out, struct rs_error *err)
{
	struct rctx c = {.f = f, .o = o};
	size_t n_logs = 0, n_pts = 0, n_tasks = 0;
	int rc = 0;
	c.logs = xcalloc(f->n_runs + 1, sizeof *c.logs);
	c.run_log = xmalloc((f->n_runs + 1) * sizeof *c.run_log);
	c.rules = xcalloc(f->n_runs + 1, sizeof *c.rules);
	struct read_options ro = {.preallocate = true}; /* no final pins */
	for (size_t i = 0; i < f->n_runs; i++) {
		const struct measured_run *r = &f->runs[i];
		c.run_log[i] = SIZE_MAX;
		if (!r->mm || r->kind == MEASURED_BASELINE)
			continue;
		size_t k = 0;
		while (k < n_logs && strcmp(c.logs[k].spec, r->spec))
			k++;
		if (k == n_logs) {
			c.logs[k].spec = r->spec;
			if (schedule_read(r->spec, &ro, &c.logs[k].s, err) < 0) {
				rc = -1;
				goto out;
			}
			baseline_run(c.logs[k].s, &c.logs[k].b);
			n_logs++;
		}
		c.run_log[i] = k;
		struct proto_rules *pr = &c.rules[i];
		*pr = (struct proto_rules){.sampling = r->use_sampling, .ignore_small = r->ignore_small,
					   .after = true, .op_classes = true};
		unsigned nm = o->rules ? o->rules_named : 0;
		if (nm & PROTO_SAMPLING)
			pr->sampling = o->rules->sampling;
		if (nm & PROTO_SMALL)
			pr->ignore_small = o->rules->ignore_small;
		if (nm & PROTO_AFTER)
			pr->after = o->rules->after;
		if (nm & PROTO_CLASSES)
			pr->op_classes = o->rules->op_classes;
		for (size_t h = 0; h < o->n_heuristics; h++) {
			struct runtime_config probe = {.runtime = RUNTIME_V2_EAGER_OPTIMIZED,
						       .heuristic = o->heuristics[h]};
			if (runtime_check_config(&probe, err)) {
				rc = -1;
				goto out;
			}
			n_pts++;
			n_tasks += o->heuristics[h]->random ? o->trials : 1;
		}
	}
	c.pts = xcalloc(n_pts + 1, sizeof *c.pts);
	c.tasks = xcalloc(n_tasks + 1, sizeof *c.tasks);
	c.pct = xcalloc(n_tasks + 1, sizeof *c.pct);
	c.peak = xcalloc(n_tasks + 1, sizeof *c.peak);
	c.out = xcalloc(n_tasks + 1, sizeof *c.out);
	c.fit = xcalloc(n_tasks + 1, sizeof *c.fit);
	size_t p = 0, t = 0;
	for (size_t i = 0; i < f->n_runs; i++) {
		if (c.run_log[i] == SIZE_MAX)
			continue;
		for (size_t h = 0; h < o->n_heuristics; h++) {
			struct measured_point *pt = &c.pts[p];
			pt->run = i;
			pt->h = o->heuristics[h];
			pt->trials = pt->h->random ? o->trials : 1;
			pt->baseline_memory = c.logs[c.run_log[i]].b.memory;
			pt->rules = c.rules[i];
			for (unsigned k = 0; k < pt->trials; k++)
				c.tasks[t++] = (struct task){.point = p, .trial = k};
			p++;
		}
	}
	c.refused = xcalloc(n_tasks + 1, sizeof *c.refused);
	c.why = xcalloc(n_tasks + 1, sizeof *c.why);
	pool_run(o->jobs ? o->jobs : pool_default_jobs(), n_tasks, run_task, &c, NULL, 0);
	for (size_t k = 0; k < n_tasks; k++) {
		if (c.refused[k]) {
			*err = c.why[k];
			rc = -1;
			goto out;
		}
	}
	double *v = xmalloc((o->trials + 2) * sizeof *v), *w = xmalloc((o->trials + 2) * sizeof *w);
	for (size_t k = 0, tk = 0; k < n_pts; k++) {
		struct measured_point *pt = &c.pts[k];
		pt->outcome = OUTCOME_PASS;
		for (unsigned j = 0; j < pt->trials; j++, tk++) {
			v[j] = c.pct[tk];
			w[j] = c.peak[tk];
			if (c.out[tk] == OUTCOME_PASS)
				pt->passed++;
			else if (pt->outcome == OUTCOME_PASS)
				pt->outcome = c.out[tk];
			if (j == 0)
				pt->fit_budget = c.fit[tk];
		}
		pt->remat_pct = median(v, pt->trials);
		pt->min_pct = v[0];
		pt->max_pct = v[pt->trials - 1];
		pt->peak = median(w, pt->trials);
	}
	free(v);
	free(w);
	*pts_out = c.pts;
	*n_pts_out = n_pts;
	c.pts = NULL;
out:
	for (size_t k = 0; k < n_logs; k++)
		schedule_free(c.logs[k].s);
	free(c.logs);
	free(c.run_log);
	free(c.rules);
	free(c.pts);
	free(c.tasks);
	free(c.pct);
	free(c.peak);
	free(c.out);
	free(c.fit);
	free(c.refused);
	free(c.why);
	return rc;
}
