/*
 * gen.h: synthetic op logs of chosen shapes and sizes (`rematsim gen`,
 * generated models of experiment files). A shape and its parameters go
 * in, the records of LOG-FORMAT.md come out through a writer callback, so
 * the same text lands in a file, a gzip stream or memory; or the schedule
 * a read of that text would give comes out, built directly (gen_build).
 *
 * Invariants:
 *  - pure: the output depends only on the parameters (the seed included),
 *    never on the time, the machine's thread count or earlier calls;
 *  - every log it writes is accepted by the reader (schedule_read): sizes
 *    and times are whole numbers >= 1, each within 2^62, their totals
 *    within 2^60 (docs/reader.md), else the parameters are refused before
 *    a byte is written (gen_check) or, for random draws, the write stops
 *    with an error (EXIT_USAGE) and the caller discards the output.
 *
 * The shapes and their graphs: docs/gen.md.
 */
#ifndef REMATSIM_GEN_H
#define REMATSIM_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "schedule.h"
#include "util.h"

enum gen_shape { GEN_LINEAR, GEN_RESIDUAL, GEN_UNET, GEN_TRANSFORMER, GEN_SHAPE_COUNT };

/** "linear", "residual", "unet", "transformer". */
const char *gen_shape_name(enum gen_shape s);
/** 0 and *out, or -1 for an unknown name. */
int gen_shape_parse(const char *name, enum gen_shape *out);

/** A distribution of whole positive values (ns or bytes). */
enum gen_dist_kind { DIST_CONST, DIST_UNIFORM, DIST_LOGNORMAL };
struct gen_dist {
	enum gen_dist_kind kind;
	double a, b; /* const: a; uniform: [a, b]; lognormal: mu = a, sigma = b */
};

/**
 * Parse `const:X`, `uniform:A:B` (0 < A <= B) or `lognormal:MU:SIGMA`
 * (SIGMA > 0); X, A, B > 0 and finite, MU finite, plain decimal numbers
 * (`1e3`, `0.5`). Returns 0, or -1 with a static reason in *why.
 */
int gen_dist_parse(const char *text, struct gen_dist *d, const char **why);
/** The canonical text of d (for headers and hashes). */
void gen_dist_format(const struct gen_dist *d, char *buf, size_t size);

struct gen_params {
	enum gen_shape shape;
	uint64_t n;        /* linear: chain length */
	uint64_t blocks;   /* residual: blocks */
	uint64_t depth;    /* unet: levels */
	/* transformer */
	uint64_t layers, width, seq, batch, heads, vocab;
	unsigned dtype_bytes; /* 4 fp32, 2 bf16 */
	double flops;      /* FLOP/s that turn FLOP counts into ns */
	/* linear, residual, unet: per-op time (ns) and per-tensor size (bytes) */
	struct gen_dist time, size;
	uint64_t seed;
};

/** Defaults for a shape (docs/gen.md): unit ops, GPT-2-small-like transformer dims. */
void gen_params_default(struct gen_params *p, enum gen_shape shape);

/**
 * Set one parameter by name, from text: "n", "blocks", "depth", "layers",
 * "width", "seq", "batch", "heads", "vocab", "dtype" (fp32, bf16, fp16),
 * "flops", "time-dist", "size-dist", "seed" (a leading "--" and '_' for
 * '-' are accepted). A parameter the shape does not use is refused.
 * Returns 0, or -1 with err (EXIT_USAGE) naming the parameter.
 */
int gen_params_set(struct gen_params *p, const char *key, const char *value,
		   struct rs_error *err);

/** Check the parameters as a whole (sizes that overflow...): 0, or -1 with err (EXIT_USAGE). */
int gen_check(const struct gen_params *p, struct rs_error *err);

/**
 * Write the log. write() receives the text in chunks and returns 0, or -1
 * to stop (its error is the caller's); gen_write then returns -1 with err
 * status EXIT_IOERR. Other failures: EXIT_USAGE (gen_check's, or a random
 * draw that takes a total past the reader's bound).
 */
int gen_write(const struct gen_params *p,
	      int (*write)(void *ctx, const char *data, size_t len), void *ctx,
	      struct rs_error *err);

/** The whole log in memory (gives a NUL-terminated buffer); -1 with err as gen_write. */
int gen_text(const struct gen_params *p, char **text, size_t *len, struct rs_error *err);

/**
 * The schedule that reading the log's text would give (schedule_parse with
 * opt, the source named `name`), built without the text: the same ops,
 * tensors, commands, lines and record counts, and with opt->digest the
 * digest of the text (which is then written, for the digest only). Gives
 * *out; returns 0, or -1 with err: gen_write's failures, or the reader's
 * (EXIT_DATAERR, `name` and the line) for a log it would refuse.
 */
int gen_build(const struct gen_params *p, const char *name, const struct read_options *opt,
	      struct schedule **out, struct rs_error *err);

/** A one-line description of p: "linear n=8 time=const:1 size=const:1 seed=0". */
void gen_describe(const struct gen_params *p, char *buf, size_t size);

#endif
