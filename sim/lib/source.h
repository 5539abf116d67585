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

#include "util.h"

/**
 * Read the whole (decompressed) content named by spec into *data (gives a
 * NUL-terminated buffer the caller frees) and its length into *len.
 * Errors: EXIT_NOINPUT (missing file, missing member), EXIT_DATAERR
 * (truncated or corrupt gzip/zip).
 */
int source_load(const char *spec, char **data, size_t *len, struct rs_error *err);

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
