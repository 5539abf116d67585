/*
 * source.c: loading op-log bytes from plain, gzip and zip containers, and
 * reading manifests (see source.h).
 *
 * Everything is loaded whole into memory: the largest reference log is
 * 2.8 MB, and the schedule builder wants random access to lines anyway.
 * gzip is recognised by its magic bytes, not by the file name; a stream
 * that ends before its trailer is a data error, never a silent short read.
 */
#include "source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>
#include <unzip.h>
#include <zlib.h>

/* A growable byte buffer, NUL-terminated when handed out. */
struct buf {
	char *p;
	size_t len, cap;
};

static void buf_append(struct buf *b, const void *data, size_t n)
{
	XGROW(b->p, b->cap, b->len + n + 1);
	memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static int read_file(const char *path, struct buf *out, struct rs_error *err)
{
	if (read_whole_file(path, &out->p, &out->len, err))
		return -1;
	out->cap = out->len + 1;
	return 0;
}

static bool is_gzip(const struct buf *b)
{
	return b->len >= 2 && (unsigned char)b->p[0] == 0x1f && (unsigned char)b->p[1] == 0x8b;
}

/* Inflate one or more concatenated gzip members. */
static int gunzip(const char *name, const struct buf *in, struct buf *out,
		  struct rs_error *err)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		rs_bug("inflateInit2 failed");
	z.next_in = (Bytef *)in->p;
	z.avail_in = (uInt)in->len;
	/* The trailer's ISIZE (size mod 2^32) sizes the buffer in one go. */
	size_t guess = in->len * 8;
	if (in->len >= 18) {
		const unsigned char *t = (const unsigned char *)in->p + in->len - 4;
		size_t isize = (size_t)t[0] | (size_t)t[1] << 8 | (size_t)t[2] << 16 | (size_t)t[3] << 24;
		/* deflate expands at most ~1032:1; a larger ISIZE is a truncated file's garbage */
		if (isize > guess / 64 && isize / 1032 <= in->len)
			guess = isize + 65536;
	}
	XGROW(out->p, out->cap, guess + 1);
	int rc;
	for (;;) {
		if (out->cap - out->len < 65536)
			XGROW(out->p, out->cap, out->cap * 2);
		z.next_out = (Bytef *)out->p + out->len;
		z.avail_out = (uInt)(out->cap - out->len - 1);
		uInt before = z.avail_out;
		rc = inflate(&z, Z_NO_FLUSH);
		out->len += before - z.avail_out;
		if (rc == Z_STREAM_END) {
			/* Another member may follow (gzip allows concatenation). */
			if (z.avail_in >= 2 && z.next_in[0] == 0x1f && z.next_in[1] == 0x8b) {
				inflateReset(&z);
				continue;
			}
			break;
		}
		if (rc == Z_OK)
			continue;
		if (rc == Z_BUF_ERROR && z.avail_in == 0) {
			inflateEnd(&z);
			return rs_error_set(err, EXIT_DATAERR, name, 0,
					    "truncated gzip stream (ends after %zu decompressed bytes)",
					    out->len);
		}
		const char *msg = z.msg ? z.msg : "corrupt data";
		rs_error_set(err, EXIT_DATAERR, name, 0, "bad gzip stream: %s", msg);
		inflateEnd(&z);
		return -1;
	}
	inflateEnd(&z);
	out->p[out->len] = '\0';
	return 0;
}

/* If b holds gzip data, replace it with its decompressed bytes. */
static int maybe_gunzip(const char *name, struct buf *b, struct rs_error *err)
{
	if (!is_gzip(b))
		return 0;
	struct buf plain = {0};
	if (gunzip(name, b, &plain, err) < 0) {
		free(plain.p);
		return -1;
	}
	free(b->p);
	*b = plain;
	return 0;
}

/* Split "ARCHIVE.zip:MEMBER" into its two parts (gives *archive); NULL member if none. */
static const char *split_zip_spec(const char *spec, char **archive)
{
	const char *hit = strstr(spec, ".zip:");
	if (!hit) {
		*archive = NULL;
		return NULL;
	}
	size_t n = (size_t)(hit - spec) + 4;
	*archive = xmalloc(n + 1);
	memcpy(*archive, spec, n);
	(*archive)[n] = '\0';
	return hit + 5;
}

bool source_is_bare_zip(const char *spec)
{
	size_t n = strlen(spec);
	return n >= 4 && !strcmp(spec + n - 4, ".zip");
}

static int zip_open(const char *archive, unzFile *zf, struct rs_error *err)
{
	FILE *f = fopen(archive, "rb");
	if (!f)
		return rs_error_set(err, EXIT_NOINPUT, archive, 0, "cannot open: %s", strerror(errno));
	fclose(f);
	*zf = unzOpen64(archive);
	if (!*zf)
		return rs_error_set(err, EXIT_DATAERR, archive, 0, "not a readable zip archive");
	return 0;
}

/* Read the current member of zf (already located) into out. */
static int zip_read_current(unzFile zf, const char *what, struct buf *out, struct rs_error *err)
{
	if (unzOpenCurrentFile(zf) != UNZ_OK)
		return rs_error_set(err, EXIT_DATAERR, what, 0, "cannot open zip member");
	char chunk[1 << 16];
	int n;
	while ((n = unzReadCurrentFile(zf, chunk, sizeof chunk)) > 0)
		buf_append(out, chunk, (size_t)n);
	int close_rc = unzCloseCurrentFile(zf);
	if (n < 0)
		return rs_error_set(err, EXIT_DATAERR, what, 0, "corrupt zip member (error %d)", n);
	if (close_rc == UNZ_CRCERROR)
		return rs_error_set(err, EXIT_DATAERR, what, 0, "zip member fails its CRC check");
	if (!out->p)
		buf_append(out, "", 0);
	return 0;
}

/* Find the manifest member of an open archive: "manifest.json" or "X/manifest.json". */
static bool zip_find_manifest(unzFile zf, char *name, size_t cap)
{
	if (unzLocateFile(zf, "manifest.json", 0) == UNZ_OK) {
		snprintf(name, cap, "manifest.json");
		return true;
	}
	for (int rc = unzGoToFirstFile(zf); rc == UNZ_OK; rc = unzGoToNextFile(zf)) {
		char member[1024];
		unz_file_info64 info;
		if (unzGetCurrentFileInfo64(zf, &info, member, sizeof member, NULL, 0, NULL, 0) != UNZ_OK)
			continue;
		const char *slash = strrchr(member, '/');
		/* One folder down only: "logs/manifest.json", as in the artifact. */
		if (slash && !strcmp(slash + 1, "manifest.json") && strchr(member, '/') == slash) {
			snprintf(name, cap, "%s", member);
			return unzLocateFile(zf, name, 0) == UNZ_OK;
		}
	}
	return false;
}

static char *json_str_dup(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	return xstrdup(json_is_string(v) ? json_string_value(v) : "");
}

/* Parse manifest JSON text; a model's spec is archive:log or dir/log. */
static int manifest_parse(const char *where, const char *text, size_t len,
			  const char *archive, const char *dir, struct manifest **out,
			  struct rs_error *err)
{
	json_error_t je;
	json_t *root = json_loadb(text, len, 0, &je);
	if (!root)
		return rs_error_set(err, EXIT_DATAERR, where, je.line, "invalid JSON: %s", je.text);
	json_t *models = json_object_get(root, "models");
	if (!json_is_array(models)) {
		json_decref(root);
		return rs_error_set(err, EXIT_DATAERR, where, 0, "no \"models\" list");
	}
	struct manifest *m = xcalloc(1, sizeof *m);
	m->source = xstrdup(where);
	m->n_models = json_array_size(models);
	m->models = xcalloc(m->n_models, sizeof *m->models);
	for (size_t i = 0; i < m->n_models; i++) {
		json_t *o = json_array_get(models, i);
		json_t *log = json_object_get(o, "log");
		json_t *name = json_object_get(o, "name");
		if (!json_is_object(o) || !json_is_string(log) || !json_is_string(name)) {
			manifest_free(m);
			json_decref(root);
			return rs_error_set(err, EXIT_DATAERR, where, 0,
					    "model %zu needs string \"name\" and \"log\" fields", i + 1);
		}
		struct manifest_model *mm = &m->models[i];
		mm->name = json_str_dup(o, "name");
		mm->title = json_str_dup(o, "title");
		if (!mm->title[0]) {
			free(mm->title);
			mm->title = xstrdup(mm->name);
		}
		mm->desc = json_str_dup(o, "desc");
		mm->log = json_str_dup(o, "log");
		mm->has_start = json_is_true(json_object_get(o, "has_start"));
		size_t n = strlen(mm->log) + (archive ? strlen(archive) : strlen(dir)) + 2;
		mm->spec = xmalloc(n);
		if (archive)
			snprintf(mm->spec, n, "%s:%s", archive, mm->log);
		else if (mm->log[0] == '/' || !dir[0])
			snprintf(mm->spec, n, "%s", mm->log);
		else
			snprintf(mm->spec, n, "%s/%s", dir, mm->log);
	}
	json_decref(root);
	*out = m;
	return 0;
}

int manifest_read(const char *path, struct manifest **out, struct rs_error *err)
{
	*out = NULL;
	struct buf b = {0};
	int rc;
	if (source_is_bare_zip(path)) {
		unzFile zf;
		if (zip_open(path, &zf, err) < 0)
			return -1;
		char name[1024];
		if (!zip_find_manifest(zf, name, sizeof name)) {
			unzClose(zf);
			return rs_error_set(err, EXIT_DATAERR, path, 0, "archive holds no manifest.json");
		}
		rc = zip_read_current(zf, path, &b, err);
		unzClose(zf);
		if (rc == 0)
			rc = manifest_parse(path, b.p, b.len, path, "", out, err);
	} else {
		rc = read_file(path, &b, err);
		if (rc == 0) {
			char *dir = xstrdup(path);
			char *slash = strrchr(dir, '/');
			if (slash)
				*slash = '\0';
			else
				dir[0] = '\0';
			rc = manifest_parse(path, b.p, b.len, NULL, dir, out, err);
			free(dir);
		}
	}
	free(b.p);
	return rc;
}

void manifest_free(struct manifest *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n_models; i++) {
		free(m->models[i].name);
		free(m->models[i].title);
		free(m->models[i].desc);
		free(m->models[i].log);
		free(m->models[i].spec);
	}
	free(m->models);
	free(m->source);
	free(m);
}

/* Load MEMBER of ARCHIVE: an exact member path, else a manifest model name. */
static int load_zip_member(const char *spec, const char *archive, const char *member,
			   struct buf *out, struct rs_error *err)
{
	unzFile zf;
	if (zip_open(archive, &zf, err) < 0)
		return -1;
	int rc;
	if (member[0] && unzLocateFile(zf, member, 0) == UNZ_OK) {
		rc = zip_read_current(zf, spec, out, err);
		unzClose(zf);
		return rc;
	}
	unzClose(zf);
	struct manifest *m;
	struct rs_error merr;
	if (manifest_read(archive, &m, &merr) == 0) {
		for (size_t i = 0; i < m->n_models; i++) {
			if (strcmp(m->models[i].name, member) != 0)
				continue;
			char *log = xstrdup(m->models[i].log);
			manifest_free(m);
			if (zip_open(archive, &zf, err) < 0) {
				free(log);
				return -1;
			}
			if (unzLocateFile(zf, log, 0) != UNZ_OK) {
				unzClose(zf);
				rs_error_set(err, EXIT_DATAERR, archive, 0,
					     "manifest names log '%s' for model '%s', but the archive has no such member",
					     log, member);
				free(log);
				return -1;
			}
			free(log);
			rc = zip_read_current(zf, spec, out, err);
			unzClose(zf);
			return rc;
		}
		manifest_free(m);
	}
	return rs_error_set(err, EXIT_NOINPUT, archive, 0,
			    "no member or model named '%s' in the archive (list them with 'rematsim info %s')",
			    member, archive);
}

int source_load(const char *spec, char **data, size_t *len, struct rs_error *err)
{
	struct buf b = {0};
	char *archive;
	const char *member = split_zip_spec(spec, &archive);
	int rc;
	if (member)
		rc = load_zip_member(spec, archive, member, &b, err);
	else
		rc = read_file(spec, &b, err);
	free(archive);
	if (rc == 0)
		rc = maybe_gunzip(spec, &b, err);
	if (rc < 0) {
		free(b.p);
		*data = NULL;
		*len = 0;
		return -1;
	}
	*data = b.p;
	*len = b.len;
	return 0;
}
