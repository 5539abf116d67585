/*
 * source.c: loading op-log bytes from plain, gzip and zip containers, and
 * reading manifests (see source.h).
 *
 * A log streams through a window (source_open/read, source_lines), so
 * that its size does not bound what can be read; source_load, the same
 * bytes whole, is for check mode and small files. gzip is recognised by its magic bytes, not by the file name; a stream
 * that ends before its trailer is a data error, never a silent short read.
 */
#include "source.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <libdeflate.h>
#include <unzip.h>
#include <xxhash.h>
#include <zlib.h>

#include "sha256.h"

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

/* Append n bytes read from name and check them against the limits (a
 * manifest: no line limit; gzip data is not inflated here). */
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
	struct source_file_id *id = opaque; /* the archive read, for the caller */
	if (id)
		*id = (struct source_file_id){(uint64_t)st.st_dev, (uint64_t)st.st_ino};
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

/* Open the archive; *id (if not NULL) gets the file opened. */
static int zip_open(const char *archive, unzFile *zf, struct source_file_id *id,
		    struct rs_error *err)
{
	FILE *f = fopen(archive, "rb");
	if (!f)
		return rs_error_set(err, EXIT_NOINPUT, archive, 0, "cannot open: %s", strerror(errno));
	fclose(f);
	zlib_filefunc64_def io = {
		.zopen64_file = zwin_open, .zread_file = zwin_read, .zwrite_file = zwin_write,
		.ztell64_file = zwin_tell, .zseek64_file = zwin_seek, .zclose_file = zwin_close,
		.zerror_file = zwin_error, .opaque = id,
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

/* Open the current member of zf (already located) for reading. */
static int zip_open_current(unzFile zf, const char *what, struct rs_error *err)
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
	return 0;
}

/* Read the current member of zf (already located) into out. */
static int zip_read_current(unzFile zf, const char *what, struct buf *out, struct rs_error *err)
{
	if (zip_open_current(zf, what, err) < 0)
		return -1;
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
		if (zip_open(path, &zf, NULL, err) < 0)
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

/* Open MEMBER of ARCHIVE for reading (gives *out, the member current and
 * open): an exact member path, else a manifest model name. */
static int open_zip_member(const char *spec, const char *archive, const char *member,
			   unzFile *out, struct source_file_id *id, struct rs_error *err)
{
	unzFile zf;
	if (zip_open(archive, &zf, id, err) < 0)
		return -1;
	if (strlen(member) > ZIP_MAX_NAME) {
		unzClose(zf);
		return rs_error_set(err, EXIT_NOINPUT, archive, 0,
				    "a member name of %zu bytes is longer than the limit of %d",
				    strlen(member), ZIP_MAX_NAME);
	}
	if (member[0] && zip_locate(zf, member)) {
		if (zip_open_current(zf, spec, err) < 0) {
			unzClose(zf);
			return -1;
		}
		*out = zf;
		return 0;
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
			if (zip_open(archive, &zf, id, err) < 0) {
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
			if (zip_open_current(zf, spec, err) < 0) {
				unzClose(zf);
				return -1;
			}
			*out = zf;
			return 0;
		}
		/* the nearest model name, for the message */
		const char **names = xmalloc((m->n_models + 1) * sizeof *names);
		for (size_t i = 0; i < m->n_models; i++)
			names[i] = m->models[i].name;
		const char *near = nearest_name(member, names, m->n_models);
		free(names);
		if (near) {
			rs_error_set(err, EXIT_NOINPUT, archive, 0,
				     "no member or model named '%s' in the archive: did you mean "
				     "'%s'? (list them with 'rematsim info %s')", member, near, archive);
			manifest_free(m);
			return -1;
		}
		manifest_free(m);
	}
	return rs_error_set(err, EXIT_NOINPUT, archive, 0,
			    "no member or model named '%s' in the archive (list them with 'rematsim info %s')",
			    member, archive);
}

/* ------------------------------------------------------------------ */
/* Streaming */

/*
 * The raw bytes (file or zip member) are read in pieces of CHUNK, as
 * source_load always read them, and each piece is checked against the size
 * limit and then (plain text) the line limit: so the first error is the
 * same whatever the window of the reader. gzip data (by its first two
 * bytes) is inflated as it is read; the errors of that layer are given in
 * the order a whole-buffer load finds them: an error of the raw bytes
 * (read error, zip CRC, the size limit on compressed bytes) first, then
 * the size limit on the text, then the first line over the line limit,
 * then a corrupt, truncated or trailing-garbage stream.
 */
#define CHUNK ((size_t)1 << 16)

struct source {
	char *name;          /* the spec, for messages */
	FILE *f;             /* a plain file, or */
	unzFile zf;          /* an archive, its member open */
	bool raw_eof;
	uint64_t raw_total;  /* raw bytes read */
	uint64_t limit, line_limit;
	/* raw bytes read but not given or inflated yet: in[in_pos, in_len) */
	unsigned char *in;
	size_t in_pos, in_len;
	/* gzip */
	bool gz;
	z_stream z;
	bool member_end;     /* at the end of a gzip member */
	bool finished;
	long bad_line;       /* gzip: the first line over the limit, 0 if none */
	/* the text given */
	uint64_t total, newlines, line_len;
	bool digest;
	struct sha256_ctx sha;
	XXH3_state_t *check; /* the check digest of the text given, or NULL */
	struct source_file_id id;
	bool regular;        /* a regular file or a zip member */
	uint64_t size_hint;  /* source_size_hint */
	/* a zip member to decode whole (zip_take_raw): its compressed bytes,
	 * the size and CRC its header gives */
	unsigned char *zraw;
	size_t zraw_len;
	uint64_t zsize;
	uint32_t zcrc;
	bool failed;         /* errors are sticky */
	struct rs_error ferr;
};

static int src_fail(struct source *src, const struct rs_error *e, struct rs_error *err)
{
	src->failed = true;
	src->ferr = *e;
	if (err)
		*err = *e;
	return -1;
}

static int size_error(struct source *src, struct rs_error *e)
{
	char t[32];
	return rs_error_set(e, EXIT_DATAERR, src->name, 0,
			    "more than %s of data (decompressed): over the input size limit; "
			    "set %s to raise it (docs/limits.md)",
			    rs_bytes_text(src->limit, t, sizeof t), RS_MAX_INPUT_ENV);
}

/* Read the next raw piece (at most CHUNK bytes) into buf: its count, 0 at
 * the end, -1 with e filled. */
static long raw_read(struct source *src, unsigned char *buf, struct rs_error *e)
{
	if (src->raw_eof)
		return 0;
	size_t n;
	if (src->f) {
		n = fread(buf, 1, CHUNK, src->f);
		if (n == 0 && ferror(src->f))
			return rs_error_set(e, EXIT_NOINPUT, src->name, 0, "read error: %s",
					    strerror(errno));
	} else {
		int r = unzReadCurrentFile(src->zf, buf, (unsigned)CHUNK);
		if (r < 0)
			return rs_error_set(e, EXIT_DATAERR, src->name, 0,
					    "corrupt zip member (error %d)", r);
		n = (size_t)r;
		if (n == 0 && unzCloseCurrentFile(src->zf) == UNZ_CRCERROR) {
			src->raw_eof = true;
			return rs_error_set(e, EXIT_DATAERR, src->name, 0,
					    "zip member fails its CRC check");
		}
	}
	if (n == 0) {
		src->raw_eof = true;
		return 0;
	}
	src->raw_total += n;
	if (src->limit && src->raw_total > src->limit)
		return size_error(src, e);
	return (long)n;
}

static size_t count_newlines(const char *p, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		c += p[i] == '\n';
	return c;
}

/*
 * Check n bytes of text against the line limit, in pieces of at most
 * line_limit bytes: a line wholly inside a piece is shorter than the limit,
 * so only the line running into a piece and the one running out of it need
 * counting. Returns the line (from 1) of the first line over the limit, or 0.
 */
static long check_lines(struct source *src, const char *p, size_t len)
{
	const char *end = p + len;
	long bad = 0;
	while (p < end) {
		size_t n = (size_t)(end - p);
		if (src->line_limit && n > src->line_limit)
			n = (size_t)src->line_limit;
		if (src->line_limit) {
			const char *nl = memchr(p, '\n', n);
			if (!nl) {
				src->line_len += n;
			} else {
				src->line_len += (size_t)(nl - p);
				if (src->line_len <= src->line_limit)
					src->line_len = (size_t)(p + n - (const char *)memrchr(p, '\n', n) - 1);
			}
			if (!bad && src->line_len > src->line_limit)
				bad = (long)src->newlines + 1;
		}
		src->newlines += count_newlines(p, n);
		p += n;
	}
	return bad;
}

static int line_error(struct source *src, long line, struct rs_error *e)
{
	char t[32];
	return rs_error_set(e, EXIT_DATAERR, src->name, line,
			    "line longer than %s: over the line length limit "
			    "(not an op log?); set %s to raise it (docs/limits.md)",
			    rs_bytes_text(src->line_limit, t, sizeof t), RS_MAX_LINE_ENV);
}

/* Account for n bytes of text given (digest, size limit, line limit: now for
 * plain text, at the end for gzip). */
static int text_given(struct source *src, const char *p, size_t n, struct rs_error *e)
{
	src->total += n;
	if (src->gz && src->limit && src->total > src->limit) {
		char t[32];
		return rs_error_set(e, EXIT_DATAERR, src->name, 0,
				    "more than %s of data (decompressed): over the input size limit; "
				    "set %s to raise it (docs/limits.md)",
				    rs_bytes_text(src->limit, t, sizeof t), RS_MAX_INPUT_ENV);
	}
	long bad = check_lines(src, p, n);
	if (bad && !src->gz)
		return line_error(src, bad, e);
	if (bad && !src->bad_line)
		src->bad_line = bad;
	if (src->digest)
		sha256_update(&src->sha, p, n);
	if (src->check)
		XXH3_64bits_update(src->check, p, n);
	return 0;
}

/* A gzip-layer error e: the raw bytes are read to their end first, and an
 * error there comes first; then a line over the limit, unless e is the size
 * limit. */
static int gz_fail(struct source *src, struct rs_error *e, bool size_error, struct rs_error *err)
{
	unsigned char *scratch = xmalloc(CHUNK);
	struct rs_error re;
	long n;
	while ((n = raw_read(src, scratch, &re)) > 0)
		;
	free(scratch);
	if (n < 0)
		return src_fail(src, &re, err);
	if (!size_error && src->bad_line)
		line_error(src, src->bad_line, e);
	return src_fail(src, e, err);
}

/* Make at least `want` raw bytes available in in[] (fewer at the end). */
static int in_fill(struct source *src, size_t want, struct rs_error *e)
{
	while (src->in_len - src->in_pos < want && !src->raw_eof) {
		size_t left = src->in_len - src->in_pos;
		memmove(src->in, src->in + src->in_pos, left);
		src->in_pos = 0;
		src->in_len = left;
		long n = raw_read(src, src->in + left, e);
		if (n < 0)
			return -1;
		src->in_len += (size_t)n;
	}
	return 0;
}

/* After the last member: zero padding is harmless, anything else is not
 * ours to ignore. Reads the raw bytes to their end. */
static int gz_trailer(struct source *src, struct rs_error *e)
{
	uint64_t garbage_at = 0;
	bool garbage = false;
	for (;;) {
		uint64_t base = src->raw_total - (src->in_len - src->in_pos);
		for (size_t i = src->in_pos; !garbage && i < src->in_len; i++)
			if (src->in[i]) {
				garbage = true;
				garbage_at = base + (i - src->in_pos);
			}
		src->in_pos = src->in_len = 0;
		if (src->raw_eof)
			break;
		long n = raw_read(src, src->in, e);
		if (n < 0)
			return -1;
		src->in_len = (size_t)n;
	}
	if (garbage)
		return rs_error_set(e, EXIT_DATAERR, src->name, 0,
				    "%zu bytes of trailing garbage after the gzip stream "
				    "(at byte %zu)", (size_t)(src->raw_total - garbage_at),
				    (size_t)garbage_at);
	return 0;
}

static long gz_read(struct source *src, char *buf, size_t cap, struct rs_error *err)
{
	struct rs_error e;
	z_stream *z = &src->z;
	const size_t window = (size_t)1 << 30;
	for (;;) {
		if (src->finished)
			return 0;
		if (src->member_end) {
			/* Another member may follow (gzip allows concatenation). */
			if (in_fill(src, 2, &e) < 0)
				return src_fail(src, &e, err);
			if (src->in_len - src->in_pos >= 2 && src->in[src->in_pos] == 0x1f &&
			    src->in[src->in_pos + 1] == 0x8b) {
				inflateReset(z);
				src->member_end = false;
				continue;
			}
			if (gz_trailer(src, &e) < 0)
				return src_fail(src, &e, err);
			src->finished = true;
			if (src->bad_line) {
				line_error(src, src->bad_line, &e);
				return src_fail(src, &e, err);
			}
			return 0;
		}
		if (src->in_pos == src->in_len && in_fill(src, 1, &e) < 0)
			return src_fail(src, &e, err);
		z->next_in = src->in + src->in_pos;
		z->avail_in = (uInt)(src->in_len - src->in_pos);
		z->next_out = (Bytef *)buf;
		z->avail_out = (uInt)(cap < window ? cap : window);
		uInt before = z->avail_out;
		int rc = inflate(z, Z_NO_FLUSH);
		src->in_pos = src->in_len - z->avail_in;
		size_t made = before - z->avail_out;
		if (made && text_given(src, buf, made, &e) < 0)
			return gz_fail(src, &e, true, err);
		if (rc == Z_STREAM_END)
			src->member_end = true;
		else if (rc == Z_BUF_ERROR && z->avail_in == 0 && src->raw_eof) {
			rs_error_set(&e, EXIT_DATAERR, src->name, 0,
				     "truncated gzip stream (ends after %zu decompressed bytes)",
				     (size_t)src->total);
			return gz_fail(src, &e, false, err);
		} else if (rc != Z_OK && rc != Z_BUF_ERROR) {
			rs_error_set(&e, EXIT_DATAERR, src->name, 0, "bad gzip stream: %s",
				     z->msg ? z->msg : "corrupt data");
			return gz_fail(src, &e, false, err);
		}
		if (made)
			return (long)made;
	}
}

/*
 * A deflated zip member of at most ZIP_WHOLE_MAX bytes (every log of the
 * paper's archive) is decoded in one call by libdeflate, into the buffer
 * of the first source_read when it holds the whole text: three to four
 * times faster than minizip's inflate and CRC (zlib) in 64 KiB pieces.
 * Only a member that decodes cleanly to exactly the size its header gives,
 * with the header's CRC, is taken so, and its bytes are then the ones
 * minizip would give; any other (corrupt, short, long, a CRC that fails,
 * a gzip stream inside, a first read into a smaller buffer) is read again
 * from its start through minizip, which meets and orders its errors as
 * ever. The text is checked (size, lines, digests) in the same pieces.
 */
#define ZIP_WHOLE_MAX ((uint64_t)8 << 20)

bool source_test_no_whole;
unsigned long source_test_whole_reads;

/* Reopen the current member for minizip's own reading (after a raw read). */
static int zip_reopen(struct source *src, struct rs_error *e)
{
	if (unzOpenCurrentFile(src->zf) != UNZ_OK)
		return rs_error_set(e, EXIT_DATAERR, src->name, 0, "cannot open zip member");
	return 0;
}

/* At open, the member (open for minizip's reading) read raw into
 * src->zraw when it may take the whole decode: 1 when it does, 0 when it
 * is left to minizip, -1 with e filled. */
static int zip_take_raw(struct source *src, struct rs_error *e)
{
	unz_file_info64 info;
	if (source_test_no_whole ||
	    unzGetCurrentFileInfo64(src->zf, &info, NULL, 0, NULL, 0, NULL, 0) != UNZ_OK ||
	    info.compression_method != Z_DEFLATED || info.uncompressed_size < 2 ||
	    info.uncompressed_size > ZIP_WHOLE_MAX || info.compressed_size > ZIP_WHOLE_MAX ||
	    (src->limit && info.uncompressed_size > src->limit))
		return 0;
	unzCloseCurrentFile(src->zf);
	int method, level;
	bool ok = unzOpenCurrentFile2(src->zf, &method, &level, 1) == UNZ_OK;
	size_t cap = (size_t)info.compressed_size + 1, len = 0;
	unsigned char *raw = xmalloc(cap);
	while (ok) {
		int r = unzReadCurrentFile(src->zf, raw + len, (unsigned)(cap - len));
		if (r <= 0) {
			ok = r == 0;
			break;
		}
		len += (size_t)r;
		ok = len < cap; /* (minizip stops at the header's size) */
	}
	unzCloseCurrentFile(src->zf); /* raw: nothing checked */
	if (ok) {
		/* The text's first two bytes: a gzip stream inside is inflated
		 * as it is read, by minizip and zlib. */
		z_stream z;
		memset(&z, 0, sizeof z);
		unsigned char two[2];
		if (inflateInit2(&z, -MAX_WBITS) != Z_OK)
			rs_bug("inflateInit2 failed");
		z.next_in = raw;
		z.avail_in = (uInt)len;
		z.next_out = two;
		z.avail_out = 2;
		inflate(&z, Z_NO_FLUSH);
		ok = z.avail_out == 0 && !(two[0] == 0x1f && two[1] == 0x8b);
		inflateEnd(&z);
	}
	if (!ok) {
		free(raw);
		return zip_reopen(src, e) < 0 ? -1 : 0;
	}
	src->zraw = raw;
	src->zraw_len = len;
	src->zsize = (uint64_t)info.uncompressed_size;
	src->zcrc = (uint32_t)info.crc;
	return 1;
}

/* The first read of a member taken by zip_take_raw: the whole text into
 * buf (its size), 0 to read it through minizip instead, -1 on an error. */
static long zip_read_whole(struct source *src, char *buf, size_t cap, struct rs_error *e)
{
	unsigned char *raw = src->zraw;
	src->zraw = NULL;
	size_t n = (size_t)src->zsize;
	bool ok = cap >= n;
	if (ok) {
		struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
		if (!d)
			rs_out_of_memory(sizeof(void *) << 12);
		ok = libdeflate_deflate_decompress(d, raw, src->zraw_len, buf, n, NULL) ==
			     LIBDEFLATE_SUCCESS &&
		     libdeflate_crc32(0, buf, n) == src->zcrc;
		libdeflate_free_decompressor(d);
	}
	free(raw);
	if (!ok)
		return zip_reopen(src, e) < 0 ? -1 : 0;
	source_test_whole_reads++;
	src->raw_eof = true;
	for (size_t at = 0; at < n; at += CHUNK) {
		size_t piece = n - at < CHUNK ? n - at : CHUNK;
		src->raw_total += piece;
		if (src->limit && src->raw_total > src->limit)
			return size_error(src, e);
		if (text_given(src, buf + at, piece, e) < 0)
			return -1;
	}
	return (long)n;
}

int source_open(const char *spec, struct source **out, struct rs_error *err)
{
	*out = NULL;
	char *archive;
	const char *member = split_zip_spec(spec, &archive);
	unzFile zf = NULL;
	FILE *f = NULL;
	struct source_file_id id = {0, 0};
	if (member) {
		int rc = open_zip_member(spec, archive, member, &zf, &id, err);
		free(archive);
		if (rc < 0)
			return -1;
	} else {
		struct stat st;
		if (stat(spec, &st) == 0 && S_ISDIR(st.st_mode))
			return rs_error_set(err, EXIT_NOINPUT, spec, 0, "is a directory, not a log");
		f = fopen(spec, "rb");
		if (!f)
			return rs_error_set(err, EXIT_NOINPUT, spec, 0, "cannot open: %s", strerror(errno));
	}
	struct source *src = xcalloc(1, sizeof *src);
	src->name = xstrdup(spec);
	src->f = f;
	src->zf = zf;
	struct stat st;
	src->regular = zf || (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode));
	if (!zf && src->regular)
		id = (struct source_file_id){(uint64_t)st.st_dev, (uint64_t)st.st_ino};
	src->id = id;
	src->limit = rs_limit(RS_MAX_INPUT_ENV, RS_MAX_INPUT_DEFAULT);
	src->line_limit = rs_limit(RS_MAX_LINE_ENV, RS_MAX_LINE_DEFAULT);
	if (src->limit == UINT64_MAX)
		src->limit = 0;
	if (src->line_limit == UINT64_MAX)
		src->line_limit = 0;
	src->in = xmalloc(2 * CHUNK);
	struct rs_error e;
	int whole = zf ? zip_take_raw(src, &e) : 0;
	if (whole < 0) {
		*err = e;
		source_close(src);
		return -1;
	}
	/* The first piece tells gzip by its magic bytes (a member taken
	 * whole is known not to be gzip). */
	long n = whole ? 0 : raw_read(src, src->in, &e);
	if (n < 0) {
		*err = e;
		source_close(src);
		return -1;
	}
	src->in_len = (size_t)n;
	if (n >= 2 && src->in[0] == 0x1f && src->in[1] == 0x8b) {
		src->gz = true;
		if (inflateInit2(&src->z, 15 + 16) != Z_OK)
			rs_bug("inflateInit2 failed");
	}
	unz_file_info64 info;
	if (zf && unzGetCurrentFileInfo64(zf, &info, NULL, 0, NULL, 0, NULL, 0) == UNZ_OK)
		src->size_hint = (uint64_t)info.uncompressed_size;
	else if (!zf && !src->gz && src->regular)
		src->size_hint = (uint64_t)st.st_size;
	*out = src;
	return 0;
}

uint64_t source_size_hint(const struct source *src)
{
	return src->gz ? 0 : src->size_hint;
}

uint64_t source_bytes(const struct source *src)
{
	return src->total;
}

bool source_reopenable(const struct source *src)
{
	return src->regular;
}

void source_digest(struct source *src)
{
	src->digest = true;
	sha256_init(&src->sha);
}

void source_sha256(struct source *src, uint8_t out[32])
{
	sha256_final(&src->sha, out);
}

void source_check_start(struct source *src, const void *p, size_t n)
{
	if (src->check || n != src->total)
		rs_bug("source_check_start: %zu bytes of %" PRIu64 " given", n, src->total);
	src->check = XXH3_createState();
	if (!src->check)
		rs_out_of_memory(1024); /* (an XXH3 state: 576 bytes) */
	XXH3_64bits_reset(src->check);
	XXH3_64bits_update(src->check, p, n);
}

uint64_t source_check_digest(const struct source *src)
{
	return src->check ? XXH3_64bits_digest(src->check) : 0;
}

struct source_file_id source_file_id(const struct source *src)
{
	return src->id;
}

long source_read(struct source *src, char *buf, size_t cap, struct rs_error *err)
{
	if (src->failed) {
		if (err)
			*err = src->ferr;
		return -1;
	}
	if (cap < CHUNK)
		rs_bug("source_read: a buffer of %zu bytes (at least %zu)", cap, CHUNK);
	if (src->gz)
		return gz_read(src, buf, cap, err);
	struct rs_error e;
	if (src->zraw) {
		long whole = zip_read_whole(src, buf, cap, &e);
		if (whole < 0)
			return src_fail(src, &e, err);
		if (whole > 0)
			return whole;
	}
	size_t n;
	if (src->in_pos < src->in_len) { /* the first piece */
		n = src->in_len - src->in_pos;
		memcpy(buf, src->in + src->in_pos, n);
		src->in_pos = src->in_len;
	} else {
		long r = raw_read(src, (unsigned char *)buf, &e);
		if (r < 0)
			return src_fail(src, &e, err);
		n = (size_t)r;
	}
	if (n && text_given(src, buf, n, &e) < 0)
		return src_fail(src, &e, err);
	return (long)n;
}

void source_close(struct source *src)
{
	if (!src)
		return;
	if (src->f)
		fclose(src->f);
	if (src->zf)
		unzClose(src->zf);
	if (src->gz)
		inflateEnd(&src->z);
	XXH3_freeState(src->check);
	free(src->zraw);
	free(src->in);
	free(src->name);
	free(src);
}

int source_load(const char *spec, char **data, size_t *len, struct rs_error *err)
{
	*data = NULL;
	*len = 0;
	struct source *src;
	if (source_open(spec, &src, err) < 0)
		return -1;
	size_t cap = 4 * CHUNK, n = 0;
	char *p = xmalloc(cap + 1);
	long r;
	for (;;) {
		if (cap - n < CHUNK) {
			cap *= 2;
			p = xrealloc(p, cap + 1);
		}
		r = source_read(src, p + n, cap - n, err);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	source_close(src);
	if (r < 0) {
		free(p);
		return -1;
	}
	p[n] = '\0';
	*data = p;
	*len = n;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Lines */

void source_lines_mem(struct source_lines *l, const char *data, size_t len)
{
	memset(l, 0, sizeof *l);
	l->mem = data;
	l->mem_end = data + len;
}

char *source_map(size_t cap)
{
	void *p = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		rs_out_of_memory(cap);
	return p;
}

void source_unmap(char *buf, size_t cap)
{
	if (buf)
		munmap(buf, cap);
}

void source_lines_src(struct source_lines *l, struct source *src, size_t window, char *buf,
		      size_t len, size_t cap)
{
	memset(l, 0, sizeof *l);
	l->src = src;
	l->cap = window < 2 * CHUNK ? 2 * CHUNK : window;
	if (buf && cap >= l->cap) {
		l->buf = buf;
		l->len = len;
		l->cap = cap;
		l->mapped = true;
	} else {
		l->buf = xmalloc(l->cap);
		if (buf) {
			memcpy(l->buf, buf, len);
			l->len = len;
			source_unmap(buf, cap);
		}
	}
}

int source_lines_next(struct source_lines *l, const char **p, size_t *len, struct rs_error *err)
{
	if (!l->src) {
		if (l->mem >= l->mem_end)
			return 0;
		const char *nl = memchr(l->mem, '\n', (size_t)(l->mem_end - l->mem));
		const char *end = nl ? nl : l->mem_end;
		*p = l->mem;
		*len = (size_t)(end - l->mem);
		l->mem = nl ? nl + 1 : l->mem_end;
		return 1;
	}
	for (;;) {
		char *nl = l->scanned < l->len ? memchr(l->buf + l->scanned, '\n', l->len - l->scanned)
					       : NULL;
		if (nl) {
			size_t at = (size_t)(nl - l->buf);
			bool skipped = l->skipping;
			*p = l->buf + l->pos;
			*len = skipped ? 0 : at - l->pos;
			l->pos = l->scanned = at + 1;
			l->skipping = false;
			return 1;
		}
		l->scanned = l->len;
		if (l->eof) {
			if (l->pos >= l->len && !l->skipping)
				return 0;
			*p = l->buf + l->pos;
			*len = l->skipping ? 0 : l->len - l->pos;
			l->pos = l->scanned = l->len;
			l->skipping = false;
			return 1;
		}
		if (l->max_line && l->len - l->pos > l->max_line) {
			/* a line over the limit: not kept */
			l->skipping = true;
			l->pos = l->scanned = l->len;
		}
		/* Move the unfinished line to the front, grow for a long one. */
		if (l->pos) {
			memmove(l->buf, l->buf + l->pos, l->len - l->pos);
			l->len -= l->pos;
			l->scanned -= l->pos;
			l->pos = 0;
		}
		if (l->cap - l->len < CHUNK) {
			char *bigger = xmalloc(2 * l->cap);
			memcpy(bigger, l->buf, l->len);
			source_lines_free(l);
			l->buf = bigger;
			l->cap *= 2;
		}
		long n = source_read(l->src, l->buf + l->len, l->cap - l->len, err);
		if (n < 0)
			return -1;
		if (n == 0)
			l->eof = true;
		l->len += (size_t)n;
	}
}

void source_lines_free(struct source_lines *l)
{
	if (l->mapped)
		source_unmap(l->buf, l->cap);
	else
		free(l->buf);
	l->buf = NULL;
	l->mapped = false;
}
