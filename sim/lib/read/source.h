/*
 * source.h: where op-log bytes come from. A plain file, a gzip file (by its
 * magic bytes, whatever its name), or a member of a zip archive named as
 * `ARCHIVE.zip:MEMBER`, MEMBER being a path inside the archive or a model
 * name from the archive's manifest.json. Also reads manifests.
 */
#ifndef REMATSIM_SOURCE_H
#define REMATSIM_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

/**
 * Read the whole (decompressed) content named by spec into *data (gives a
 * NUL-terminated buffer the caller frees) and its length into *len.
 * Errors: EXIT_NOINPUT (missing file, missing member), EXIT_DATAERR
 * (truncated or corrupt gzip/zip).
 */
int source_load(const char *spec, char **data, size_t *len, struct rs_error *err);

/*
 * The same content in pieces, never all of it in memory: open, read until
 * 0 (the end) or -1 (an error, err filled), close. The checks and messages
 * are source_load's, and so is which error comes first when a source has
 * several (docs/reader.md); an error may come after some of the bytes were
 * given, so a reader that must not act on a bad source reads it through
 * once first.
 */
struct source;
/** Open spec (gives *out). Errors as source_load's that need no reading. */
int source_open(const char *spec, struct source **out, struct rs_error *err);
/** Up to cap (at least 64 KiB) bytes into buf: their count, 0 at the end, -1 on error. */
long source_read(struct source *src, char *buf, size_t cap, struct rs_error *err);
/** Whether opening spec again gives the same bytes from the start: a
 * regular file or a zip member, not a pipe or a terminal. */
bool source_reopenable(const struct source *src);
/** The bytes given so far. */
uint64_t source_bytes(const struct source *src);
/** How many bytes of text the container says it holds (a zip member's
 * header, a plain file's size; 0 when it does not say: gzip, a pipe): a
 * hint for sizing buffers, never trusted for anything else. */
uint64_t source_size_hint(const struct source *src);
/** Also digest the bytes read from now on (call before the first read). */
void source_digest(struct source *src);
/** The SHA-256 of the bytes read, once source_read has returned 0. */
void source_sha256(struct source *src, uint8_t out[32]);
/**
 * Keep a 64-bit check digest (XXH3) of the text, from its start: the n
 * bytes at p, which must be all the text given so far (a reader that
 * decides to read a source twice once it has read some of it), then what
 * is given from now on. A reader that reads a source twice compares the
 * two passes' digests (docs/reader.md).
 */
void source_check_start(struct source *src, const void *p, size_t n);
/** The check digest of the text given so far (source_check_start first). */
uint64_t source_check_digest(const struct source *src);
/** The file a source reads (a zip member's archive): device and inode,
 * both 0 for none known. Another file by the same name has another. */
struct source_file_id {
	uint64_t dev, ino;
};
struct source_file_id source_file_id(const struct source *src);
void source_close(struct source *src);
/** Test hooks: read zip members through minizip only (no whole decode by
 * libdeflate, source.c); the members decoded whole so far. */
extern bool source_test_no_whole;
extern unsigned long source_test_whole_reads;

/*
 * Lines of a source, or of bytes in memory, through a window that holds
 * the unread part of the current piece and grows only to the longest line.
 */
struct source_lines {
	struct source *src; /* NULL: the bytes are in memory */
	const char *mem, *mem_end;
	char *buf;
	size_t cap, pos, len, scanned; /* window [pos, len); no newline in [pos, scanned) */
	bool eof;
	uint64_t max_line;  /* a longer line is skipped, given as empty (0: none) */
	bool skipping;
	bool mapped;        /* buf is from source_map */
};

/*
 * A large scratch buffer mapped on its own (cap bytes), given back whole by
 * source_unmap: freeing a large malloc'ed block would raise glibc's
 * threshold for such mappings and leave the schedule's growing arrays to
 * fragment the heap (8 MB more at the peak of a 128 MB log).
 */
char *source_map(size_t cap);
void source_unmap(char *buf, size_t cap);
/** Lines of len bytes at data (borrowed). */
void source_lines_mem(struct source_lines *l, const char *data, size_t len);
/**
 * Lines of src (borrowed, read from where it is), through a window of at
 * least `window` bytes. buf (NULL, or from source_map with cap bytes:
 * taken over) holds the first len bytes already read from src.
 */
void source_lines_src(struct source_lines *l, struct source *src, size_t window, char *buf,
		      size_t len, size_t cap);
/**
 * The next line without its newline: 1 with *p and *len (valid until the
 * next call), 0 at the end, -1 on a read error (err filled).
 */
int source_lines_next(struct source_lines *l, const char **p, size_t *len, struct rs_error *err);
void source_lines_free(struct source_lines *l);

/** One model of a manifest.json (LOG-FORMAT.md, Containers). */
struct manifest_model {
	char *name;
	char *title;
	char *desc;
	char *log;      /* as written in the manifest */
	char *spec;     /* what source_load takes: archive:member or a path */
	bool has_start;
};

struct manifest {
	char *source;   /* the manifest file or archive */
	struct manifest_model *models;
	size_t n_models;
};

/**
 * Read a manifest: `manifest.json` (log paths relative to its folder), or a
 * `.zip` holding one (`manifest.json` or `DIR/manifest.json`; log paths are
 * archive members). Gives *out; free with manifest_free.
 */
int manifest_read(const char *path, struct manifest **out, struct rs_error *err);
void manifest_free(struct manifest *m);

/** True when spec names a zip archive with no member (`X.zip`). */
bool source_is_bare_zip(const char *spec);

#endif
