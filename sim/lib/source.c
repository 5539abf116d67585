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
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <unzip.h>
#include <zlib.h>

/* A growable byte buffer, NUL-terminated when handed out. */
struct buf {
	char *p;
	size_t len, cap;
	/* Limits on what is read into it (docs/limits.md): total bytes, and
	 * bytes of one line when line_limit (logs: a file that never ends a
	 * line, /dev/zero, is refused early); 0 = not yet set. */
	uint64_t limit, line_limit;
	uint64_t line_len; /* bytes of the current (last, unfinished) line */
	size_t scanned;    /* bytes already checked */
	bool gz_lines;     /* gzip data: check the lines of what it inflates to */
};

static void buf_limits(struct buf *b, bool lines)
{
	b->limit = rs_limit(RS_MAX_INPUT_ENV, RS_MAX_INPUT_DEFAULT);
	b->line_limit = lines ? rs_limit(RS_MAX_LINE_ENV, RS_MAX_LINE_DEFAULT) : 0;
}

/* Check the bytes added since the last call against the limits. */
static int buf_check(struct buf *b, const char *name, struct rs_error *err)
{
	char t[32];
	if (b->limit && b->len > b->limit)
		return rs_error_set(err, EXIT_DATAERR, name, 0,
				    "more than %s of data (decompressed): over the input size limit; "
				    "set %s to raise it (docs/limits.md)",
				    rs_bytes_text(b->limit, t, sizeof t), RS_MAX_INPUT_ENV);
	if (!b->line_limit) {
		b->scanned = b->len;
		return 0;
	}
	/* In pieces of at most line_limit bytes: a line wholly inside a piece
	 * is shorter than the limit, so only the line running into a piece
	 * and the one running out of it need counting (a file of a billion
	 * empty lines costs two memchr calls per piece, not a billion). */
	const char *p = b->p + b->scanned, *end = b->p + b->len;
	while (p < end) {
		size_t n = (size_t)(end - p);
		if (n > b->line_limit)
			n = (size_t)b->line_limit;
		const char *nl = memchr(p, '\n', n);
		if (!nl) {
			b->line_len += n;
		} else {
			b->line_len += (size_t)(nl - p);
			if (b->line_len <= b->line_limit)
				b->line_len = (size_t)(p + n - (const char *)memrchr(p, '\n', n) - 1);
		}
		if (b->line_len > b->line_limit) {
			/* the line number, counted once, for the message */
			long line = 1;
			for (const char *q = b->p; (q = memchr(q, '\n', (size_t)(p - q))); q++)
				line++;
			return rs_error_set(err, EXIT_DATAERR, name, line,
					    "line longer than %s: over the line length limit "
					    "(not an op log?); set %s to raise it (docs/limits.md)",
					    rs_bytes_text(b->line_limit, t, sizeof t), RS_MAX_LINE_ENV);
		}
		p += n;
	}
	b->scanned = b->len;
	return 0;
}

static void buf_append(struct buf *b, const void *data, size_t n)
{
	XGROW(b->p, b->cap, b->len + n + 1);
	memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
}

/* Append n bytes read from name and check them against the limits; the
 * lines of gzip data are checked once decompressed (maybe_gunzip). */
static int buf_put(struct buf *b, const void *data, size_t n, const char *name,
		   struct rs_error *err)
{
	if (!b->len && n >= 2 && ((const unsigned char *)data)[0] == 0x1f &&
	    ((const unsigned char *)data)[1] == 0x8b)
		b->line_limit = 0, b->gz_lines = true;
	buf_append(b, data, n);
	return buf_check(b, name, err);
}

static int read_file(const char *path, struct buf *out, struct rs_error *err)
{
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return rs_error_set(err, EXIT_NOINPUT, path, 0, "is a directory, not a log");
	FILE *f = fopen(path, "rb");
	if (!f)
		return rs_error_set(err, EXIT_NOINPUT, path, 0, "cannot open: %s", strerror(errno));
	char chunk[1 << 16];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		if (buf_put(out, chunk, n, path, err)) {
			fclose(f);
			return -1;
		}
	int bad = ferror(f);
	fclose(f);
	if (bad)
		return rs_error_set(err, EXIT_NOINPUT, path, 0, "read error: %s", strerror(errno));
	if (!out->p)
		buf_append(out, "", 0);
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
	/* zlib counts in 32 bits (uInt): the input and output are handed over
	 * in windows of at most 1 GiB, so inputs of 4 GiB and more inflate. */
	const size_t window = (size_t)1 << 30;
	const unsigned char *in_next = (const unsigned char *)in->p, *in_end = in_next + in->len;
	z.next_in = (Bytef *)in_next;
	z.avail_in = (uInt)(in->len < window ? in->len : window);
	/* The trailer's ISIZE (size mod 2^32) sizes the buffer in one go. */
	size_t guess = in->len * 8;
	if (in->len >= 18) {
		const unsigned char *t = (const unsigned char *)in->p + in->len - 4;
		size_t isize = (size_t)t[0] | (size_t)t[1] << 8 | (size_t)t[2] << 16 | (size_t)t[3] << 24;
		/* deflate expands at most ~1032:1; a larger ISIZE is a truncated file's garbage */
		if (isize > guess / 64 && isize / 1032 <= in->len)
			guess = isize + 65536;
	}
	if (out->limit && guess > out->limit)
		guess = (size_t)out->limit + 65536;
	XGROW(out->p, out->cap, guess + 1);
	int rc;
	for (;;) {
		if (out->cap - out->len < 65536) {
			/* double, but never far past the limit (the error comes first) */
			size_t want = out->cap * 2;
			if (out->limit && want > out->limit + 2 * 65536 && out->cap < out->limit + 2 * 65536)
				want = (size_t)out->limit + 2 * 65536;
			XGROW(out->p, out->cap, want);
		}
		/* refill the input window */
		in_next = z.next_in;
		if (z.avail_in == 0 && in_next < in_end) {
			size_t left = (size_t)(in_end - in_next);
			z.avail_in = (uInt)(left < window ? left : window);
		}
		z.next_out = (Bytef *)out->p + out->len;
		size_t room = out->cap - out->len - 1;
		z.avail_out = (uInt)(room < window ? room : window);
		uInt before = z.avail_out;
		rc = inflate(&z, Z_NO_FLUSH);
		out->len += before - z.avail_out;
		out->p[out->len] = '\0';
		if (buf_check(out, name, err)) {
			inflateEnd(&z);
			return -1;
		}
		size_t in_left = (size_t)(in_end - (const unsigned char *)z.next_in);
		if (rc == Z_STREAM_END) {
			/* Another member may follow (gzip allows concatenation). */
			if (in_left >= 2 && z.next_in[0] == 0x1f && z.next_in[1] == 0x8b) {
				inflateReset(&z);
				continue;
			}
			/* Zero padding (tape blocks) is harmless; anything else after
			 * the last member is not ours to ignore. */
			for (size_t i = 0; i < in_left; i++)
				if (z.next_in[i]) {
					inflateEnd(&z);
					return rs_error_set(err, EXIT_DATAERR, name, 0,
							    "%zu bytes of trailing garbage after the gzip stream "
							    "(at byte %zu)", in_left - i,
							    (size_t)(in_end - in_left - (const unsigned char *)in->p) + i);
				}
			break;
		}
		if (rc == Z_OK || (rc == Z_BUF_ERROR && z.avail_in == 0 && in_left > 0))
			continue; /* (the next input window) */
		if (rc == Z_BUF_ERROR && in_left == 0) {
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
	buf_limits(&plain, b->gz_lines);
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

/*
 * The archive as minizip reads it: through a 64 KiB window read with
 * pread, so that its many small seeks and reads (a header field at a time:
 * tens of thousands for a crafted extra field) cost a memcpy, not two
 * system calls each.
 */
struct zwin {
	int fd;
	uint64_t pos;        /* where minizip reads next */
	uint64_t start, len; /* the window's place and bytes in the file */
	uint64_t size;       /* of the file */
	int error;
	unsigned char data[1 << 16];
};

static voidpf ZCALLBACK zwin_open(voidpf opaque, const void *name, int mode)
{
	(void)opaque;
	if ((mode & ZLIB_FILEFUNC_MODE_READWRITEFILTER) != ZLIB_FILEFUNC_MODE_READ)
		return NULL;
	int fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	if (fstat(fd, &st)) {
		close(fd);
		return NULL;
	}
	struct zwin *w = xcalloc(1, sizeof *w);
	w->fd = fd;
	w->size = (uint64_t)st.st_size;
	return w;
}

static uLong ZCALLBACK zwin_read(voidpf opaque, voidpf stream, void *buf, uLong size)
{
	(void)opaque;
	struct zwin *w = stream;
	uLong done = 0;
	while (done < size) {
		if (w->pos < w->start || w->pos >= w->start + w->len) {
			if (w->pos >= w->size)
				break; /* past the end: no call needed */
			/* an aligned window: reads that step back stay in it */
			uint64_t at = w->pos & ~(uint64_t)(sizeof w->data / 2 - 1);
			ssize_t n;
			do
				n = pread(w->fd, w->data, sizeof w->data, (off_t)at);
			while (n < 0 && errno == EINTR);
			if (n < 0)
				w->error = errno;
			if (n <= 0 || at + (uint64_t)n <= w->pos)
				break;
			w->start = at;
			w->len = (uint64_t)n;
		}
		uint64_t off = w->pos - w->start, n = w->len - off;
		if (n > size - done)
			n = size - done;
		memcpy((char *)buf + done, w->data + off, n);
		done += (uLong)n;
		w->pos += n;
	}
	return done;
}

static uLong ZCALLBACK zwin_write(voidpf opaque, voidpf stream, const void *buf, uLong size)
{
	(void)opaque, (void)stream, (void)buf, (void)size;
	return 0;
}

static ZPOS64_T ZCALLBACK zwin_tell(voidpf opaque, voidpf stream)
{
	(void)opaque;
	return ((struct zwin *)stream)->pos;
}

static long ZCALLBACK zwin_seek(voidpf opaque, voidpf stream, ZPOS64_T offset, int origin)
{
	(void)opaque;
	struct zwin *w = stream;
	uint64_t base;
	if (origin == ZLIB_FILEFUNC_SEEK_SET) {
		base = 0;
	} else if (origin == ZLIB_FILEFUNC_SEEK_CUR) {
		base = w->pos;
	} else {
		base = w->size;
	}
	w->pos = base + offset;
	return 0;
}

static int ZCALLBACK zwin_close(voidpf opaque, voidpf stream)
{
	(void)opaque;
	struct zwin *w = stream;
	int rc = close(w->fd);
	free(w);
	return rc;
}

static int ZCALLBACK zwin_error(voidpf opaque, voidpf stream)
{
	(void)opaque;
	return ((struct zwin *)stream)->error;
}

static int zip_open(const char *archive, unzFile *zf, struct rs_error *err)
{
	FILE *f = fopen(archive, "rb");
	if (!f)
		return rs_error_set(err, EXIT_NOINPUT, archive, 0, "cannot open: %s", strerror(errno));
	fclose(f);
	zlib_filefunc64_def io = {
		.zopen64_file = zwin_open, .zread_file = zwin_read, .zwrite_file = zwin_write,
		.ztell64_file = zwin_tell, .zseek64_file = zwin_seek, .zclose_file = zwin_close,
		.zerror_file = zwin_error,
	};
	*zf = unzOpen2_64(archive, &io);
	if (!*zf)
		return rs_error_set(err, EXIT_DATAERR, archive, 0, "not a readable zip archive");
	return 0;
}

/* The longest member name looked up (docs/limits.md); the zip format's own
 * bound is 65535 bytes. */
#define ZIP_MAX_NAME 4096

/* The name of the current member of zf (gives), read into a buffer of its
 * own size (minizip leaves a name that fills the buffer unterminated);
 * NULL when unreadable. */
static char *zip_current_name(unzFile zf, unz_file_info64 *info)
{
	if (unzGetCurrentFileInfo64(zf, info, NULL, 0, NULL, 0, NULL, 0) != UNZ_OK)
		return NULL;
	size_t n = (size_t)info->size_filename;
	char *name = xmalloc(n + 1);
	if (unzGetCurrentFileInfo64(zf, info, name, (uLong)n + 1, NULL, 0, NULL, 0) != UNZ_OK) {
		free(name);
		return NULL;
	}
	name[n] = '\0';
	return name;
}

/* Make the member named `member` current (an exact, case-sensitive match of
 * the whole name, at any length: minizip's own lookup stops at 256 bytes). */
static bool zip_locate(unzFile zf, const char *member)
{
	size_t want = strlen(member);
	for (int rc = unzGoToFirstFile(zf); rc == UNZ_OK; rc = unzGoToNextFile(zf)) {
		unz_file_info64 info;
		if (unzGetCurrentFileInfo64(zf, &info, NULL, 0, NULL, 0, NULL, 0) != UNZ_OK ||
		    info.size_filename != want)
			continue;
		char *name = zip_current_name(zf, &info);
		bool hit = name && !strcmp(name, member);
		free(name);
		if (hit)
			return true;
	}
	return false;
}

/* Read the current member of zf (already located) into out. */
static int zip_read_current(unzFile zf, const char *what, struct buf *out, struct rs_error *err)
{
	unz_file_info64 info;
	if (unzGetCurrentFileInfo64(zf, &info, NULL, 0, NULL, 0, NULL, 0) != UNZ_OK)
		return rs_error_set(err, EXIT_DATAERR, what, 0, "cannot read the zip member's header");
	if (info.flag & 1)
		return rs_error_set(err, EXIT_DATAERR, what, 0,
				    "the zip member is encrypted (not supported: unpack it with its password)");
	if (info.compression_method != 0 && info.compression_method != Z_DEFLATED)
		return rs_error_set(err, EXIT_DATAERR, what, 0,
				    "the zip member uses compression method %lu (only stored and "
				    "deflated members are supported)", (unsigned long)info.compression_method);
	if (unzOpenCurrentFile(zf) != UNZ_OK)
		return rs_error_set(err, EXIT_DATAERR, what, 0, "cannot open zip member");
	char chunk[1 << 16];
	int n;
	while ((n = unzReadCurrentFile(zf, chunk, sizeof chunk)) > 0)
		if (buf_put(out, chunk, (size_t)n, what, err)) {
			unzCloseCurrentFile(zf);
			return -1;
		}
	int close_rc = unzCloseCurrentFile(zf);
	if (n < 0)
		return rs_error_set(err, EXIT_DATAERR, what, 0, "corrupt zip member (error %d)", n);
	if (close_rc == UNZ_CRCERROR)
		return rs_error_set(err, EXIT_DATAERR, what, 0, "zip member fails its CRC check");
	if (!out->p)
		buf_append(out, "", 0);
	return 0;
}

/* Make the manifest member of an open archive current: "manifest.json" or
 * "X/manifest.json". */
static bool zip_find_manifest(unzFile zf)
{
	if (zip_locate(zf, "manifest.json"))
		return true;
	for (int rc = unzGoToFirstFile(zf); rc == UNZ_OK; rc = unzGoToNextFile(zf)) {
		unz_file_info64 info;
		char *member = zip_current_name(zf, &info);
		if (!member)
			continue;
		const char *slash = strrchr(member, '/');
		/* One folder down only: "logs/manifest.json", as in the artifact. */
		bool hit = slash && !strcmp(slash + 1, "manifest.json") && strchr(member, '/') == slash;
		free(member);
		if (hit)
			return true; /* and current */
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
		buf_limits(&b, false);
		if (!zip_find_manifest(zf)) {
			unzClose(zf);
			return rs_error_set(err, EXIT_DATAERR, path, 0, "archive holds no manifest.json");
		}
		rc = zip_read_current(zf, path, &b, err);
		unzClose(zf);
		if (rc == 0)
			rc = manifest_parse(path, b.p, b.len, path, "", out, err);
	} else {
		buf_limits(&b, false);
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
	if (strlen(member) > ZIP_MAX_NAME) {
		unzClose(zf);
		return rs_error_set(err, EXIT_NOINPUT, archive, 0,
				    "a member name of %zu bytes is longer than the limit of %d",
				    strlen(member), ZIP_MAX_NAME);
	}
	if (member[0] && zip_locate(zf, member)) {
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
			if (!zip_locate(zf, log)) {
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
	buf_limits(&b, true);
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
