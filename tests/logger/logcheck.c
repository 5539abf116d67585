/*
 * logcheck.c: see logcheck.h. Deliberately shares no code with oplog.c
 * or the reader (module calls and WRITES are checked here on their own):
 * names map to tensors through a jansson object, storages are counted in
 * plain arrays, and every rule is checked from the record text.
 */
#include "logcheck.h"

#include <ctype.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct st {
	uint64_t bytes;
	long handles;
	bool pinned;
};

struct replay {
	json_t *names;   /* name -> tensor index */
	json_t *live;    /* name -> true while the handle is not released */
	long *tensor_st; /* tensor -> storage */
	long ntensors, tcap;
	struct st *st;
	long nst, scap;
	uint64_t live_bytes, peak;
};

static int fail(struct logcheck *c, long line, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(c->error, sizeof c->error, "line %ld: ", line);
	va_start(ap, fmt);
	vsnprintf(c->error + n, sizeof c->error - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static bool digits(json_t *v)
{
	const char *s = json_string_value(v);
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static void replay_reset(struct replay *r)
{
	json_object_clear(r->names);
	json_object_clear(r->live);
	r->ntensors = r->nst = 0;
	r->live_bytes = r->peak = 0;
}

static long add_storage(struct replay *r, uint64_t bytes, bool pinned)
{
	if (r->nst == r->scap) {
		r->scap = r->scap ? 2 * r->scap : 256;
		r->st = realloc(r->st, (size_t)r->scap * sizeof *r->st);
	}
	r->st[r->nst] = (struct st){bytes, 0, pinned};
	r->live_bytes += bytes;
	return r->nst++;
}

static void add_tensor(struct replay *r, long storage, const char *name)
{
	if (r->ntensors == r->tcap) {
		r->tcap = r->tcap ? 2 * r->tcap : 256;
		r->tensor_st = realloc(r->tensor_st, (size_t)r->tcap * sizeof *r->tensor_st);
	}
	r->tensor_st[r->ntensors] = storage;
	r->st[storage].handles++;
	json_object_set_new(r->names, name, json_integer(r->ntensors++));
	json_object_set_new(r->live, name, json_true());
}

static long tensor_of(struct replay *r, const char *name)
{
	json_t *v = json_object_get(r->names, name);
	return v ? (long)json_integer_value(v) : -1;
}

static void drop(struct replay *r, long tensor)
{
	struct st *s = &r->st[r->tensor_st[tensor]];
	if (--s->handles == 0 && !s->pinned)
		r->live_bytes -= s->bytes;
}

static void peak(struct replay *r)
{
	if (r->live_bytes > r->peak)
		r->peak = r->live_bytes;
}

static bool is_live(struct replay *r, json_t *name)
{
	const char *s = json_string_value(name);
	return s && json_is_true(json_object_get(r->live, s));
}

/* The next line of the gz stream (plain files read through too), or NULL. */
static char *next_line(gzFile f, char **buf, size_t *cap)
{
	size_t len = 0;
	for (;;) {
		if (len + 2 > *cap) {
			*cap = *cap ? 2 * *cap : 4096;
			*buf = realloc(*buf, *cap);
		}
		if (!gzgets(f, *buf + len, (int)(*cap - len)))
			return len ? *buf : NULL;
		len += strlen(*buf + len);
		if (len && (*buf)[len - 1] == '\n')
			return *buf;
	}
}

int logcheck_file(const char *path, struct logcheck *c)
{
	memset(c, 0, sizeof *c);
	gzFile f = gzopen(path, "rb");
	if (!f)
		return fail(c, 0, "cannot open %s", path);
	struct replay r = {.names = json_object(), .live = json_object()};
	char *buf = NULL;
	size_t cap = 0;
	long line = 0;
	int rc = 0;
	bool in_backward = false;
	json_t *modules = json_array(); /* module calls entered and not exited */
	long nargs = 0;
	const char *constant_owed = NULL;
	char constant_name[128];
	json_t *rec = NULL;

	while (rc == 0 && next_line(f, &buf, &cap)) {
		line++;
		c->records++;
		json_decref(rec);
		json_error_t jerr;
		rec = json_loads(buf, JSON_REJECT_DUPLICATES, &jerr);
		if (!json_is_object(rec)) {
			rc = fail(c, line, "not a JSON object: %s", jerr.text);
			break;
		}
		const char *ins = json_string_value(json_object_get(rec, "INSTRUCTION"));
		const char *name = json_string_value(json_object_get(rec, "NAME"));
		if (!ins) {
			rc = fail(c, line, "no INSTRUCTION");
			break;
		}
		if (constant_owed) {
			if (strcmp(ins, "MEMORY") || !name || strcmp(name, constant_owed) ||
			    !digits(json_object_get(rec, "MEMORY"))) {
				rc = fail(c, line, "CONSTANT %s not followed by its MEMORY", constant_owed);
				break;
			}
			uint64_t b = strtoull(json_string_value(json_object_get(rec, "MEMORY")), NULL, 10);
			add_tensor(&r, add_storage(&r, b, true), constant_owed);
			peak(&r);
			constant_owed = NULL;
			continue;
		}
		if (!strcmp(ins, "ANNOTATE")) {
			const char *a = json_string_value(json_object_get(rec, "ANNOTATION"));
			if (a && !strcmp(a, "START")) {
				c->starts++;
				c->forward_ops = c->backward_ops = 0;
				c->last_forward_op[0] = c->first_backward_op[0] = '\0';
				in_backward = false;
				replay_reset(&r);
			} else if (a && !strcmp(a, "BACKWARD")) {
				c->backwards++;
				in_backward = true;
			} else if (a && (!strcmp(a, "ENTER") || !strcmp(a, "EXIT"))) {
				/* a module call (docs/log-format.md): MODULE named, calls nested */
				const char *m = json_string_value(json_object_get(rec, "MODULE"));
				size_t depth = json_array_size(modules);
				if (!m || !*m) {
					rc = fail(c, line, "%s without a MODULE name", a);
				} else if (a[1] == 'N') {
					c->module_calls++;
					json_array_append_new(modules, json_string(m));
				} else if (!depth ||
					   strcmp(json_string_value(json_array_get(modules, depth - 1)), m)) {
					rc = fail(c, line, "EXIT of %s closes no open ENTER of it", m);
				} else {
					json_array_remove(modules, depth - 1);
				}
			} else {
				rc = fail(c, line, "unknown ANNOTATION");
			}
		} else if (!strcmp(ins, "CONSTANT")) {
			if (!name) {
				rc = fail(c, line, "CONSTANT without NAME");
				break;
			}
			snprintf(constant_name, sizeof constant_name, "%s", name);
			constant_owed = constant_name;
			c->constants++;
		} else if (!strcmp(ins, "CALL") || !strcmp(ins, "MUTATE")) {
			bool call = !strcmp(ins, "CALL");
			json_t *args = json_object_get(rec, "ARGS");
			if (!name || !json_is_array(args) || !digits(json_object_get(rec, "TIME"))) {
				rc = fail(c, line, "%s lacks NAME, ARGS or a digit-string TIME", ins);
				break;
			}
			/* Forward ops before BACKWARD, backward ops after it. */
			if (strstr(name, "backward") && !in_backward) {
				rc = fail(c, line, "%s before the BACKWARD annotation", name);
				break;
			}
			if (in_backward) {
				if (c->backward_ops++ == 0)
					snprintf(c->first_backward_op, sizeof c->first_backward_op, "%s", name);
			} else {
				c->forward_ops++;
				snprintf(c->last_forward_op, sizeof c->last_forward_op, "%s", name);
			}
			size_t i;
			json_t *v;
			nargs = (long)json_array_size(args);
			long argt[64];
			json_array_foreach(args, i, v) {
				if (!is_live(&r, v)) {
					rc = fail(c, line, "%s: argument %s is not a live handle", name,
						  json_string_value(v) ? json_string_value(v) : "?");
					break;
				}
				argt[i < 64 ? i : 63] = tensor_of(&r, json_string_value(v));
			}
			if (rc)
				break;
			if (call) {
				c->calls++;
				json_t *wr = json_object_get(rec, "WRITES");
				if (wr) {
					size_t wi;
					json_t *wv;
					bool bad = !json_is_array(wr);
					json_array_foreach(wr, wi, wv)
						bad = bad || !json_is_integer(wv) || json_integer_value(wv) < 0 ||
						      json_integer_value(wv) >= nargs;
					if (bad) {
						rc = fail(c, line, "WRITES is not a list of argument indices");
						break;
					}
					c->writes++;
				}
				json_t *res = json_object_get(rec, "RESULT");
				if (!json_is_array(res) || json_array_size(res) == 0) {
					rc = fail(c, line, "CALL without RESULT");
					break;
				}
				/* Read the MEMORY/ALIAS pair of each result now. */
				json_t *recs = json_array();
				json_array_append(recs, rec);
				for (size_t j = 0; j < 2 * json_array_size(res); j++) {
					if (!next_line(f, &buf, &cap)) {
						rc = fail(c, line, "log ends inside CALL %s", name);
						break;
					}
					json_array_append_new(recs, json_loads(buf, 0, NULL));
				}
				if (rc) {
					json_decref(recs);
					break;
				}
				/* Check the pairs with the code above, then replay. */
				for (size_t j = 1; j < json_array_size(recs) && rc == 0; j++) {
					json_t *x = json_array_get(recs, j);
					line++;
					c->records++;
					const char *xn = json_string_value(json_object_get(x, "NAME"));
					const char *xi = json_string_value(json_object_get(x, "INSTRUCTION"));
					const char *want = json_string_value(json_array_get(res, (j - 1) / 2));
					bool alias = (j - 1) % 2;
					if (!json_is_object(x) || !xn || !xi || !want || strcmp(xn, want) ||
					    strcmp(xi, alias ? "ALIAS" : "MEMORY")) {
						rc = fail(c, line, "expected %s of result %s",
							  alias ? "ALIAS" : "MEMORY", want ? want : "?");
					} else if (!alias && !digits(json_object_get(x, "MEMORY"))) {
						rc = fail(c, line, "MEMORY is not a digit string");
					} else if (alias) {
						const char *a = json_string_value(json_object_get(x, "ALIAS"));
						char *end;
						long k = a ? strtol(a, &end, 10) : -2;
						if (!a || *end || k < -1 || k >= nargs)
							rc = fail(c, line, "bad ALIAS for %s", want);
					}
				}
				if (rc) {
					json_decref(recs);
					break;
				}
				long news[64];
				size_t nres = json_array_size(res);
				for (size_t j = 0; j < nres && j < 64; j++) {
					json_t *mem = json_array_get(recs, 1 + 2 * j);
					json_t *al = json_array_get(recs, 2 + 2 * j);
					long k = strtol(json_string_value(json_object_get(al, "ALIAS")), NULL, 10);
					uint64_t b = strtoull(json_string_value(json_object_get(mem, "MEMORY")),
							      NULL, 10);
					if (k >= 0) {
						c->views++;
						news[j] = argt[k] >= 0 ? r.tensor_st[argt[k]] : -1;
					} else {
						news[j] = add_storage(&r, b, false);
					}
				}
				peak(&r);
				for (size_t j = 0; j < nres && j < 64; j++)
					if (news[j] >= 0)
						add_tensor(&r, news[j], json_string_value(json_array_get(res, j)));
				json_decref(recs);
			} else {
				c->mutates++;
				json_t *mut = json_object_get(rec, "MUTATE");
				if (!json_is_array(mut) || json_array_size(mut) == 0) {
					rc = fail(c, line, "MUTATE without indices");
					break;
				}
				long news[64], olds[64];
				size_t nm = json_array_size(mut);
				json_array_foreach(mut, i, v) {
					json_int_t k = json_integer_value(v);
					if (!json_is_integer(v) || k < 0 || k >= nargs || i >= 64) {
						rc = fail(c, line, "MUTATE index out of range");
						break;
					}
					olds[i] = argt[k];
					news[i] = olds[i] >= 0 ? add_storage(&r, r.st[r.tensor_st[olds[i]]].bytes, false)
							       : -1;
				}
				if (rc)
					break;
				peak(&r);
				for (i = 0; i < nm; i++) {
					if (news[i] < 0)
						continue;
					json_int_t k = json_integer_value(json_array_get(mut, i));
					add_tensor(&r, news[i], json_string_value(json_array_get(args, (size_t)k)));
					drop(&r, olds[i]);
				}
			}
		} else if (!strcmp(ins, "COPY") || !strcmp(ins, "COPY_FROM")) {
			json_t *dst = json_object_get(rec, "DST"), *src = json_object_get(rec, "SRC");
			bool from = !strcmp(ins, "COPY_FROM");
			if (!json_is_string(dst) || !is_live(&r, src) || (from && !is_live(&r, dst))) {
				rc = fail(c, line, "%s of a handle that is not live", ins);
				break;
			}
			long t = tensor_of(&r, json_string_value(src));
			long old = from ? tensor_of(&r, json_string_value(dst)) : -1;
			if (t >= 0) {
				r.st[r.tensor_st[t]].handles++;
				json_object_set_new(r.names, json_string_value(dst), json_integer(t));
				json_object_set_new(r.live, json_string_value(dst), json_true());
			}
			if (old >= 0)
				drop(&r, old);
			from ? c->copy_froms++ : c->copies++;
		} else if (!strcmp(ins, "RELEASE")) {
			c->releases++;
			if (!name) {
				rc = fail(c, line, "RELEASE without NAME");
				break;
			}
			long t = tensor_of(&r, name);
			if (t < 0) {
				rc = fail(c, line, "RELEASE of %s, which is not defined", name);
				break;
			}
			if (t >= 0) {
				if (!is_live(&r, json_object_get(rec, "NAME"))) {
					rc = fail(c, line, "%s released twice", name);
					break;
				}
				json_object_set_new(r.live, name, json_false());
				drop(&r, t);
			}
		} else {
			rc = fail(c, line, "unknown INSTRUCTION %s", ins);
		}
	}
	if (rc == 0 && constant_owed)
		rc = fail(c, line, "log ends inside a CALL or CONSTANT");
	if (rc == 0 && json_array_size(modules))
		rc = fail(c, line, "module %s is never exited",
			  json_string_value(json_array_get(modules, json_array_size(modules) - 1)));
	json_decref(modules);
	c->peak_bytes = r.peak;
	json_decref(rec);
	json_decref(r.names);
	json_decref(r.live);
	free(r.tensor_st);
	free(r.st);
	free(buf);
	gzclose(f);
	return rc;
}

long long logcheck_meta_peak(const char *log_path)
{
	char meta[4096];
	snprintf(meta, sizeof meta, "%s", log_path);
	size_t n = strlen(meta);
	if (n > 3 && !strcmp(meta + n - 3, ".gz"))
		meta[n -= 3] = '\0';
	if (n > 4 && !strcmp(meta + n - 4, ".log"))
		meta[n -= 4] = '\0';
	snprintf(meta + n, sizeof meta - n, ".meta.json");
	json_t *j = json_load_file(meta, 0, NULL);
	json_t *p = json_object_get(j, "peak_live_bytes");
	long long v = json_is_integer(p) ? (long long)json_integer_value(p) : -1;
	json_decref(j);
	return v;
}
