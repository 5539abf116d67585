/*
 * oplog.c: the op-log writer (see oplog.h) and its shadow replay.
 *
 * The shadow is a tiny model of the simulator's unbounded eager replay: a
 * map from handle name to tensor, each tensor sharing a storage, each
 * storage counting the handles of all its tensors. A storage's bytes count
 * from the record that creates it until its last handle goes, except for
 * constants, which the simulator pins for good. Keeping it beside the writer
 * means the peak we report is, by construction, the one the log replays to.
 */
#include "hash.h"
#include "oplog.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <zlib.h>

#include "outfile.h"

struct shadow_storage {
	uint64_t bytes;
	uint64_t handles; /* handles of all tensors sharing it */
	bool pinned;      /* a constant: never freed */
};

struct shadow_tensor {
	size_t storage;
};

struct name_slot {
	char *name;    /* NULL: empty */
	size_t tensor; /* index into tensors */
};

struct meta_field {
	char *key;
	char *json; /* the value as JSON text */
};

struct oplog {
	char *path;
	char *tmp_path; /* written here, renamed to path by oplog_close */
	gzFile gz;
	bool write_failed;
	char *line; /* the record being built */
	size_t line_len, line_cap;

	struct name_slot *slots;
	size_t nslots, nnames;
	struct shadow_tensor *tensors;
	size_t ntensors, tensors_cap;
	struct shadow_storage *storages;
	size_t nstorages, storages_cap;

	uint64_t live_bytes, peak_bytes;
	uint64_t records, calls, next_name;
	bool has_costs; /* oplog_set_costs: FLOPS and BYTES on the next op */
	uint64_t cost_flops, cost_bytes;
	struct meta_field *meta;
	size_t nmeta, meta_cap;
	struct rs_error err;
};

/* ---- line building ---- */

static void put(struct oplog *log, const char *s, size_t n)
{
	XGROW(log->line, log->line_cap, log->line_len + n + 1);
	memcpy(log->line + log->line_len, s, n);
	log->line_len += n;
	log->line[log->line_len] = '\0';
}

static void puts_raw(struct oplog *log, const char *s)
{
	put(log, s, strlen(s));
}

/* A JSON string with the escapes the names and op names might need. */
static void put_str(struct oplog *log, const char *s)
{
	put(log, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char esc[8];
		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			put(log, esc, 2);
		} else if (c < 0x20) {
			snprintf(esc, sizeof esc, "\\u%04x", c);
			put(log, esc, 6);
		} else {
			put(log, (const char *)&c, 1);
		}
	}
	put(log, "\"", 1);
}

static void put_u64(struct oplog *log, uint64_t v)
{
	char buf[32];
	int n = snprintf(buf, sizeof buf, "\"%llu\"", (unsigned long long)v);
	put(log, buf, (size_t)n);
}

static void put_names(struct oplog *log, size_t n, const char *const *names)
{
	put(log, "[", 1);
	for (size_t i = 0; i < n; i++) {
		if (i)
			put(log, ",", 1);
		put_str(log, names[i]);
	}
	put(log, "]", 1);
}

/* End the record and hand it to zlib (which buffers). */
static void emit(struct oplog *log)
{
	put(log, "\n", 1);
	if (!log->write_failed &&
	    gzwrite(log->gz, log->line, (unsigned)log->line_len) != (int)log->line_len)
		log->write_failed = true;
	log->line_len = 0;
	log->records++;
}

/* ---- the shadow replay ---- */

static uint64_t hash_name(const char *s)
{
	return fnv1a64(FNV1A64_INIT, s, strlen(s));
}

static struct name_slot *find_slot(struct name_slot *slots, size_t nslots, const char *name)
{
	size_t i = hash_name(name) & (nslots - 1);
	while (slots[i].name && strcmp(slots[i].name, name))
		i = (i + 1) & (nslots - 1);
	return &slots[i];
}

static void rehash(struct oplog *log, size_t nslots)
{
	struct name_slot *slots = xcalloc(nslots, sizeof *slots);
	for (size_t i = 0; i < log->nslots; i++)
		if (log->slots[i].name)
			*find_slot(slots, nslots, log->slots[i].name) = log->slots[i];
	free(log->slots);
	log->slots = slots;
	log->nslots = nslots;
}

/* The tensor NAME maps to, or -1. */
static long lookup(const struct oplog *log, const char *name)
{
	struct name_slot *s = find_slot(log->slots, log->nslots, name);
	return s->name ? (long)s->tensor : -1;
}

static void map_name(struct oplog *log, const char *name, size_t tensor)
{
	if (2 * (log->nnames + 1) > log->nslots)
		rehash(log, log->nslots * 2);
	struct name_slot *s = find_slot(log->slots, log->nslots, name);
	if (!s->name) {
		s->name = xstrdup(name);
		log->nnames++;
	}
	s->tensor = tensor;
}

static size_t new_storage(struct oplog *log, uint64_t bytes, bool pinned)
{
	XGROW(log->storages, log->storages_cap, log->nstorages + 1);
	log->storages[log->nstorages] = (struct shadow_storage){bytes, 0, pinned};
	log->live_bytes += bytes;
	return log->nstorages++;
}

/* A new tensor on STORAGE with one handle, NAME. */
static size_t new_tensor(struct oplog *log, size_t storage, const char *name)
{
	XGROW(log->tensors, log->tensors_cap, log->ntensors + 1);
	log->tensors[log->ntensors].storage = storage;
	log->storages[storage].handles++;
	map_name(log, name, log->ntensors);
	return log->ntensors++;
}

static void note_peak(struct oplog *log)
{
	if (log->live_bytes > log->peak_bytes)
		log->peak_bytes = log->live_bytes;
}

static void drop_handle(struct oplog *log, size_t tensor)
{
	struct shadow_storage *s = &log->storages[log->tensors[tensor].storage];
	if (s->handles == 0)
		return; /* already gone: the simulator ignores it too */
	if (--s->handles == 0 && !s->pinned)
		log->live_bytes -= s->bytes;
}

static void shadow_reset(struct oplog *log)
{
	for (size_t i = 0; i < log->nslots; i++) {
		free(log->slots[i].name);
		log->slots[i].name = NULL;
	}
	log->nnames = 0;
	log->ntensors = 0;
	log->nstorages = 0;
	log->live_bytes = 0;
	log->peak_bytes = 0;
}

/* ---- API ---- */

int oplog_check_path(const char *path, struct rs_error *err)
{
	/* a log is written under a temporary name and renamed into place:
	 * never over a device, a FIFO or a symbolic link (outfile.h) */
	if (outfile_check(path, false, err) < 0)
		return -1;
	char *tmp;
	int fd = outfile_create_tmp(path, &tmp);
	if (fd < 0)
		return rs_error_set(err, EXIT_CANTCREAT, path, 0, "cannot create the log: %s",
				    strerror(errno));
	close(fd);
	unlink(tmp);
	outfile_tmp_done(tmp);
	free(tmp);
	return 0;
}

struct oplog *oplog_open(const char *path, struct rs_error *err)
{
	size_t n = strlen(path);
	bool gz = n >= 3 && !strcmp(path + n - 3, ".gz");
	/* Written under a temporary name and renamed by oplog_close, so that a
	 * recording that dies half-way never leaves a half log under PATH. */
	if (oplog_check_path(path, err))
		return NULL;
	char *tmp;
	int fd = outfile_create_tmp(path, &tmp); /* unique, O_EXCL: no planted link followed */
	if (fd < 0) {
		rs_error_set(err, EXIT_CANTCREAT, path, 0, "cannot create the log: %s", strerror(errno));
		return NULL;
	}
	/* "T": zlib writes plain bytes, so both kinds share one code path. */
	gzFile f = gzdopen(fd, gz ? "wb6" : "wbT");
	if (!f) {
		rs_error_set(err, EXIT_CANTCREAT, path, 0, "cannot create the log: %s",
			     errno ? strerror(errno) : "zlib error");
		close(fd);
		unlink(tmp);
		outfile_tmp_done(tmp);
		free(tmp);
		return NULL;
	}
	gzbuffer(f, 1 << 18);
	struct oplog *log = xcalloc(1, sizeof *log);
	log->path = xstrdup(path);
	log->tmp_path = tmp;
	log->gz = f;
	log->nslots = 1024;
	log->slots = xcalloc(log->nslots, sizeof *log->slots);
	return log;
}

char *oplog_meta_path(const char *path)
{
	return rs_meta_path(path);
}

/* ---- the meta side file ---- */

/* S as a JSON string, in the line buffer's escaping; gives a string. */
static char *quote(struct oplog *log, const char *s)
{
	size_t keep = log->line_len;
	put_str(log, s);
	char *q = xstrdup(log->line + keep);
	log->line_len = keep;
	if (log->line)
		log->line[keep] = '\0';
	return q;
}

static void meta_set(struct oplog *log, const char *key, char *json)
{
	for (size_t i = 0; i < log->nmeta; i++)
		if (!strcmp(log->meta[i].key, key)) {
			free(log->meta[i].json);
			log->meta[i].json = json;
			return;
		}
	XGROW(log->meta, log->meta_cap, log->nmeta + 1);
	log->meta[log->nmeta].key = xstrdup(key);
	log->meta[log->nmeta++].json = json;
}

void oplog_meta_str(struct oplog *log, const char *key, const char *value)
{
	meta_set(log, key, quote(log, value));
}

void oplog_meta_int(struct oplog *log, const char *key, int64_t value)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%lld", (long long)value);
	meta_set(log, key, xstrdup(buf));
}

void oplog_meta_real(struct oplog *log, const char *key, double value)
{
	char buf[64];
	snprintf(buf, sizeof buf, "%.17g", value);
	meta_set(log, key, xstrdup(isfinite(value) ? buf : "null"));
}

void oplog_meta_strv(struct oplog *log, const char *key, size_t n, const char *const *values)
{
	size_t len = 3, cap = 0;
	char *out = NULL;
	XGROW(out, cap, len);
	strcpy(out, "[");
	for (size_t i = 0; i < n; i++) {
		char *q = quote(log, values[i]);
		XGROW(out, cap, strlen(out) + strlen(q) + 4);
		if (i)
			strcat(out, ", ");
		strcat(out, q);
		free(q);
	}
	strcat(out, "]");
	meta_set(log, key, out);
}

void oplog_meta_json(struct oplog *log, const char *key, const char *value)
{
	meta_set(log, key, xstrdup(value));
}

static int cmp_field(const void *a, const void *b)
{
	return strcmp(((const struct meta_field *)a)->key, ((const struct meta_field *)b)->key);
}

static int write_meta(struct oplog *log, const char *path)
{
	struct outfile o;
	struct rs_error ignore;
	if (outfile_open(&o, path, &ignore))
		return -1;
	FILE *f = o.f;
	qsort(log->meta, log->nmeta, sizeof *log->meta, cmp_field);
	fprintf(f, "{\n");
	for (size_t i = 0; i < log->nmeta; i++) {
		char *k = quote(log, log->meta[i].key);
		fprintf(f, "  %s: %s%s\n", k, log->meta[i].json, i + 1 < log->nmeta ? "," : "");
		free(k);
	}
	fprintf(f, "}\n");
	return outfile_commit(&o, false, &ignore);
}

int oplog_close(struct oplog *log, struct rs_error *err)
{
	int rc = 0;
	int zrc = gzclose(log->gz);
	if (log->write_failed || zrc != Z_OK)
		rc = rs_error_set(err, EXIT_IOERR, log->path, 0, "could not write the log%s%s",
				  errno ? ": " : "", errno ? strerror(errno) : "");
	oplog_meta_int(log, "records", (int64_t)log->records);
	oplog_meta_int(log, "calls", (int64_t)log->calls);
	oplog_meta_int(log, "peak_live_bytes", (int64_t)log->peak_bytes);
	oplog_meta_str(log, "time_unit", "ns");
	/* The meta file first, the log last: a kill between the two renames
	 * leaves no log without its meta file. */
	char *meta_path = oplog_meta_path(log->path);
	if (rc == 0 && write_meta(log, meta_path))
		rc = rs_error_set(err, EXIT_IOERR, meta_path, 0, "cannot write the meta file: %s",
				  strerror(errno));
	free(meta_path);
	if (rc == 0 && getenv("OPLOG_TEST_KILL_BETWEEN_RENAMES"))
		raise(SIGKILL); /* testing: a kill between the two renames */
	if (rc == 0 && rename(log->tmp_path, log->path))
		rc = rs_error_set(err, EXIT_CANTCREAT, log->path, 0, "cannot move the log into place: %s",
				  strerror(errno));
	if (rc)
		unlink(log->tmp_path); /* no half log left behind */
	outfile_tmp_done(log->tmp_path);
	free(log->tmp_path);

	shadow_reset(log);
	free(log->slots);
	free(log->tensors);
	free(log->storages);
	free(log->line);
	for (size_t i = 0; i < log->nmeta; i++) {
		free(log->meta[i].key);
		free(log->meta[i].json);
	}
	free(log->meta);
	free(log->path);
	free(log);
	return rc;
}

void oplog_new_name(struct oplog *log, char *buf)
{
	snprintf(buf, 24, "x%llu", (unsigned long long)log->next_name++);
}

static int bad(struct oplog *log, const char *fmt, const char *a, const char *b)
{
	return rs_error_set(&log->err, EXIT_SOFTWARE, log->path, (long)log->records + 1, fmt, a,
			    b);
}

static int check_name(struct oplog *log, const char *name)
{
	if (!name || !*name || strlen(name) > OPLOG_NAME_MAX)
		return bad(log, "bad tensor name '%s'%s", name ? name : "(null)", "");
	return 0;
}

int oplog_constant(struct oplog *log, const char *name, uint64_t bytes)
{
	if (check_name(log, name))
		return -1;
	new_tensor(log, new_storage(log, bytes, true), name);
	note_peak(log);

	puts_raw(log, "{\"INSTRUCTION\":\"CONSTANT\",\"NAME\":");
	put_str(log, name);
	puts_raw(log, "}");
	emit(log);
	puts_raw(log, "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":");
	put_u64(log, bytes);
	puts_raw(log, ",\"NAME\":");
	put_str(log, name);
	puts_raw(log, "}");
	emit(log);
	return 0;
}

void oplog_set_costs(struct oplog *log, uint64_t flops, uint64_t bytes)
{
	log->has_costs = true;
	log->cost_flops = flops;
	log->cost_bytes = bytes;
}

/* The pending costs' fields (sorted: after ARGS), then no more pending. */
static void put_costs(struct oplog *log)
{
	if (!log->has_costs)
		return;
	puts_raw(log, ",\"BYTES\":");
	put_u64(log, log->cost_bytes);
	puts_raw(log, ",\"FLOPS\":");
	put_u64(log, log->cost_flops);
	log->has_costs = false;
}

int oplog_call(struct oplog *log, const char *op, size_t nargs, const char *const *args,
	       size_t nres, const char *const *results, const uint64_t *bytes,
	       const int *alias, uint64_t time_ns)
{
	if (!nres) /* the simulator replays an op through its outputs */
		return bad(log, "CALL %s: an op with no results cannot be replayed%s", op, "");
	long argt[nargs ? nargs : 1];
	for (size_t i = 0; i < nargs; i++) {
		if (check_name(log, args[i]))
			return -1;
		if ((argt[i] = lookup(log, args[i])) < 0)
			return bad(log, "CALL %s: argument '%s' is not defined", op, args[i]);
	}
	for (size_t i = 0; i < nres; i++) {
		if (check_name(log, results[i]))
			return -1;
		if (alias[i] < -1 || alias[i] >= (int)nargs)
			return bad(log, "CALL %s: result '%s' aliases no argument", op, results[i]);
	}

	/* Outputs come into being while the inputs are still held. */
	for (size_t i = 0; i < nres; i++) {
		size_t st = alias[i] < 0 ? new_storage(log, bytes[i], false)
					 : log->tensors[argt[alias[i]]].storage;
		new_tensor(log, st, results[i]);
	}
	note_peak(log);

	puts_raw(log, "{\"ARGS\":");
	put_names(log, nargs, args);
	put_costs(log);
	puts_raw(log, ",\"INSTRUCTION\":\"CALL\",\"NAME\":");
	put_str(log, op);
	puts_raw(log, ",\"RESULT\":");
	put_names(log, nres, results);
	puts_raw(log, ",\"TIME\":");
	put_u64(log, time_ns);
	puts_raw(log, "}");
	emit(log);
	for (size_t i = 0; i < nres; i++) {
		char a[16];
		puts_raw(log, "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":");
		put_u64(log, bytes[i]);
		puts_raw(log, ",\"NAME\":");
		put_str(log, results[i]);
		puts_raw(log, "}");
		emit(log);
		snprintf(a, sizeof a, "%d", alias[i]);
		puts_raw(log, "{\"ALIAS\":");
		put_str(log, a);
		puts_raw(log, ",\"INSTRUCTION\":\"ALIAS\",\"NAME\":");
		put_str(log, results[i]);
		puts_raw(log, "}");
		emit(log);
	}
	log->calls++;
	return 0;
}

int oplog_mutate(struct oplog *log, const char *op, size_t nargs, const char *const *args,
		 size_t nmutated, const int *mutated, uint64_t time_ns)
{
	if (!nmutated)
		return bad(log, "MUTATE %s: an op that changes no argument cannot be replayed%s", op, "");
	long argt[nargs ? nargs : 1];
	for (size_t i = 0; i < nargs; i++) {
		if (check_name(log, args[i]))
			return -1;
		if ((argt[i] = lookup(log, args[i])) < 0)
			return bad(log, "MUTATE %s: argument '%s' is not defined", op, args[i]);
	}
	for (size_t i = 0; i < nmutated; i++)
		if (mutated[i] < 0 || mutated[i] >= (int)nargs)
			return bad(log, "MUTATE %s: index out of range%s", op, "");

	/*
	 * The simulator treats an in-place op as one making a new tensor per
	 * mutated argument, as large as that argument's storage, then dropping
	 * the old tensor's handle: count it the same way.
	 */
	size_t news[nmutated ? nmutated : 1];
	for (size_t i = 0; i < nmutated; i++) {
		uint64_t b = log->storages[log->tensors[argt[mutated[i]]].storage].bytes;
		news[i] = new_storage(log, b, false);
	}
	note_peak(log);
	for (size_t i = 0; i < nmutated; i++) {
		new_tensor(log, news[i], args[mutated[i]]);
		drop_handle(log, (size_t)argt[mutated[i]]);
	}

	puts_raw(log, "{\"ARGS\":");
	put_names(log, nargs, args);
	put_costs(log);
	puts_raw(log, ",\"INSTRUCTION\":\"MUTATE\",\"MUTATE\":[");
	for (size_t i = 0; i < nmutated; i++) {
		char a[16];
		int n = snprintf(a, sizeof a, "%s%d", i ? "," : "", mutated[i]);
		put(log, a, (size_t)n);
	}
	puts_raw(log, "],\"NAME\":");
	put_str(log, op);
	puts_raw(log, ",\"TIME\":");
	put_u64(log, time_ns);
	puts_raw(log, "}");
	emit(log);
	return 0;
}

static int copy_record(struct oplog *log, const char *kind, const char *dst, const char *src)
{
	puts_raw(log, "{\"DST\":");
	put_str(log, dst);
	puts_raw(log, ",\"INSTRUCTION\":");
	put_str(log, kind);
	puts_raw(log, ",\"SRC\":");
	put_str(log, src);
	puts_raw(log, "}");
	emit(log);
	return 0;
}

int oplog_copy(struct oplog *log, const char *dst, const char *src)
{
	if (check_name(log, dst) || check_name(log, src))
		return -1;
	long t = lookup(log, src);
	if (t < 0)
		return bad(log, "COPY %s <- %s: source not defined", dst, src);
	log->storages[log->tensors[t].storage].handles++;
	map_name(log, dst, (size_t)t);
	return copy_record(log, "COPY", dst, src);
}

int oplog_copy_from(struct oplog *log, const char *dst, const char *src)
{
	if (check_name(log, dst) || check_name(log, src))
		return -1;
	long old = lookup(log, dst), t = lookup(log, src);
	if (t < 0 || old < 0)
		return bad(log, "COPY_FROM %s <- %s: a name is not defined", dst, src);
	log->storages[log->tensors[t].storage].handles++;
	map_name(log, dst, (size_t)t);
	drop_handle(log, (size_t)old);
	return copy_record(log, "COPY_FROM", dst, src);
}

int oplog_release(struct oplog *log, const char *name)
{
	if (check_name(log, name))
		return -1;
	long t = lookup(log, name);
	if (t >= 0)
		drop_handle(log, (size_t)t);
	puts_raw(log, "{\"INSTRUCTION\":\"RELEASE\",\"NAME\":");
	put_str(log, name);
	puts_raw(log, "}");
	emit(log);
	return 0;
}

int oplog_annotate(struct oplog *log, enum oplog_annotation what)
{
	/* A replay skips everything before START: so does our count. */
	if (what == OPLOG_START)
		shadow_reset(log);
	puts_raw(log, what == OPLOG_START ? "{\"ANNOTATION\":\"START\""
					  : "{\"ANNOTATION\":\"BACKWARD\"");
	puts_raw(log, ",\"INSTRUCTION\":\"ANNOTATE\"}");
	emit(log);
	return 0;
}

const struct rs_error *oplog_error(const struct oplog *log)
{
	return &log->err;
}

uint64_t oplog_live_bytes(const struct oplog *log)
{
	return log->live_bytes;
}

uint64_t oplog_peak_live_bytes(const struct oplog *log)
{
	return log->peak_bytes;
}

uint64_t oplog_records(const struct oplog *log)
{
	return log->records;
}

uint64_t oplog_calls(const struct oplog *log)
{
	return log->calls;
}
