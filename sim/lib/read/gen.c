/*
 * gen.c: see gen.h. One emitter turns ops into the log's records (CALL,
 * then a MEMORY and an ALIAS line per result; RELEASE; CONSTANT + MEMORY)
 * into a 64 KiB buffer handed to the writer, or into a schedule builder
 * (schedule_builder.h) with the lines the text would have, or both (a
 * generated model of an experiment: its schedule, and the digest of its
 * text); each shape is a function that walks its graph forward, then
 * backward, releasing every tensor after its last use as autograd would.
 * Random draws come from one splitmix64 stream seeded by the parameters'
 * seed, in the order the ops are written.
 */
#include "gen.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedule_builder.h"
#include "sha256.h"

#define GEN_MAX_VALUE (1ull << 62)  /* one size or time (docs/reader.md) */
#define GEN_MAX_TOTAL (1ull << 60)  /* total time, total bytes */
#define GEN_MAX_N (1ull << 28)      /* linear n: ids stay far inside 32 bits */
#define GEN_MAX_COUNT (1ull << 24)  /* blocks, depth, layers */
#define DEFAULT_FLOPS 1e15          /* FLOP/s: an H100-class bf16 dense rate */

static const char *const shape_names[GEN_SHAPE_COUNT] = {
	"linear", "residual", "unet", "transformer",
};

const char *gen_shape_name(enum gen_shape s)
{
	return (unsigned)s < GEN_SHAPE_COUNT ? shape_names[s] : "?";
}

int gen_shape_parse(const char *name, enum gen_shape *out)
{
	for (int i = 0; i < GEN_SHAPE_COUNT; i++)
		if (!strcmp(name, shape_names[i])) {
			*out = (enum gen_shape)i;
			return 0;
		}
	return -1;
}

/* ------------------------------------------------------------ parameters */

/* A whole decimal number: no sign, no fraction, at most max. */
static int parse_count(const char *s, uint64_t max, uint64_t *out)
{
	if (!*s || strlen(s) > 20)
		return -1;
	uint64_t v = 0;
	for (const char *c = s; *c; c++) {
		if (*c < '0' || *c > '9')
			return -1;
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*c - '0');
	}
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

/* A finite real number, the whole string: 0, -1 (not one), or -2 (past
 * 2^53 and not a value a double holds: it would be rounded silently). */
static int parse_real(const char *s, double *out)
{
	if (!*s || strchr(s, 'x') || strchr(s, 'X') || strchr(s, 'n') || strchr(s, 'N') ||
	    strchr(s, ' '))
		return -1; /* no hex, nan, inf, blanks */
	char *end;
	double v = strtod(s, &end);
	if (*end || !isfinite(v))
		return -1;
	/* (x86's long double holds every whole number below 2^64) */
	long double exact = strtold(s, NULL);
	if (fabsl(exact) > 0x1p53L && (long double)v != exact)
		return -2;
	*out = v;
	return 0;
}

int gen_dist_parse(const char *text, struct gen_dist *d, const char **why)
{
	char buf[256];
	if (strlen(text) >= sizeof buf) {
		*why = "too long";
		return -1;
	}
	strcpy(buf, text);
	char *parts[4];
	int np = 0;
	for (char *p = buf;; p++) {
		if (np == 4) {
			*why = "too many ':' fields";
			return -1;
		}
		parts[np++] = p;
		p = strchr(p, ':');
		if (!p)
			break;
		*p = 0;
	}
	memset(d, 0, sizeof *d);
	int want;
	if (!strcmp(parts[0], "const")) {
		d->kind = DIST_CONST;
		want = 2;
	} else if (!strcmp(parts[0], "uniform")) {
		d->kind = DIST_UNIFORM;
		want = 3;
	} else if (!strcmp(parts[0], "lognormal")) {
		d->kind = DIST_LOGNORMAL;
		want = 3;
	} else {
		*why = "unknown distribution (known: const:X, uniform:A:B, lognormal:MU:SIGMA)";
		return -1;
	}
	if (np != want) {
		*why = want == 2 ? "const takes one number: const:X"
				 : d->kind == DIST_UNIFORM ? "uniform takes two numbers: uniform:A:B"
							   : "lognormal takes two numbers: lognormal:MU:SIGMA";
		return -1;
	}
	int pa = parse_real(parts[1], &d->a), pb = want == 3 ? parse_real(parts[2], &d->b) : 0;
	if (pa == -2 || pb == -2) {
		*why = "a value past 2^53 that a double does not hold exactly, which would be "
		       "rounded silently: give one it holds (past 2^53 an even number, past "
		       "2^54 a multiple of 4, ...)";
		return -1;
	}
	if (pa || pb) {
		*why = "not a finite number";
		return -1;
	}
	switch (d->kind) {
	case DIST_CONST:
		if (!(d->a > 0)) {
			*why = "the value must be positive";
			return -1;
		}
		break;
	case DIST_UNIFORM:
		if (!(d->a > 0) || !(d->b >= d->a)) {
			*why = "uniform:A:B needs 0 < A <= B";
			return -1;
		}
		break;
	case DIST_LOGNORMAL:
		if (!(d->b > 0)) {
			*why = "lognormal:MU:SIGMA needs SIGMA > 0";
			return -1;
		}
		if (fabs(d->a) > 43) { /* e^43 > 2^62 */
			*why = "lognormal:MU:SIGMA needs |MU| <= 43 (e^43 passes 2^62)";
			return -1;
		}
		break;
	}
	/* Values are rounded to whole numbers: one past 2^62 can never be written. */
	if (d->a >= (double)GEN_MAX_VALUE || d->b >= (double)GEN_MAX_VALUE) {
		*why = "a value passes 2^62, the reader's bound for one size or time";
		return -1;
	}
	return 0;
}

void gen_dist_format(const struct gen_dist *d, char *buf, size_t size)
{
	switch (d->kind) {
	case DIST_CONST:
		snprintf(buf, size, "const:%.17g", d->a);
		break;
	case DIST_UNIFORM:
		snprintf(buf, size, "uniform:%.17g:%.17g", d->a, d->b);
		break;
	case DIST_LOGNORMAL:
		snprintf(buf, size, "lognormal:%.17g:%.17g", d->a, d->b);
		break;
	}
}

void gen_params_default(struct gen_params *p, enum gen_shape shape)
{
	memset(p, 0, sizeof *p);
	p->shape = shape;
	p->n = 0; /* required */
	p->blocks = 0;
	p->depth = 0;
	/* GPT-2 small's dimensions (12 layers, width 768, 12 heads) at 1024
	 * tokens: activations dominate the peak, as in the DTR paper's logs
	 * (GPT-3's block, width 12288, 96 heads, 2048 tokens, left the
	 * weights and their pinned gradients the whole peak); batch 1, bf16. */
	p->layers = 12;
	p->width = 768;
	p->seq = 1024;
	p->batch = 1;
	p->heads = 12;
	p->vocab = 50257;
	p->dtype_bytes = 2;
	p->flops = DEFAULT_FLOPS;
	p->time = (struct gen_dist){DIST_CONST, 1, 0};
	p->size = (struct gen_dist){DIST_CONST, 1, 0};
}

enum pkey {
	P_N, P_BLOCKS, P_DEPTH, P_LAYERS, P_WIDTH, P_SEQ, P_BATCH, P_HEADS, P_VOCAB,
	P_DTYPE, P_FLOPS, P_TIME, P_SIZE, P_SEED, P_COUNT
};
static const char *const pkey_names[P_COUNT] = {
	"n", "blocks", "depth", "layers", "width", "seq", "batch", "heads", "vocab",
	"dtype", "flops", "time-dist", "size-dist", "seed",
};

/* Which shapes use a parameter (bit per shape). */
static unsigned pkey_shapes(enum pkey k)
{
	const unsigned lin = 1u << GEN_LINEAR, res = 1u << GEN_RESIDUAL, unet = 1u << GEN_UNET,
		       tf = 1u << GEN_TRANSFORMER;
	switch (k) {
	case P_N: return lin;
	case P_BLOCKS: return res;
	case P_DEPTH: return unet;
	case P_TIME: case P_SIZE: return lin | res | unet;
	case P_SEED: return lin | res | unet | tf;
	default: return tf;
	}
}

int gen_params_set(struct gen_params *p, const char *key, const char *value,
		   struct rs_error *err)
{
	char k[32];
	const char *key0 = key;
	if (!strncmp(key, "--", 2))
		key += 2;
	if (strlen(key) >= sizeof k)
		return rs_error_set(err, EXIT_USAGE, NULL, 0, "unknown parameter '%s'", key0);
	strcpy(k, key);
	for (char *c = k; *c; c++)
		if (*c == '_')
			*c = '-';
	int i;
	for (i = 0; i < P_COUNT; i++)
		if (!strcmp(k, pkey_names[i]))
			break;
	if (i == P_COUNT)
		return rs_error_set(err, EXIT_USAGE, NULL, 0, "unknown parameter '%s'", key0);
	if (!(pkey_shapes((enum pkey)i) & (1u << p->shape)))
		return rs_error_set(err, EXIT_USAGE, NULL, 0,
				    "the %s shape takes no '%s' (docs/gen.md lists each shape's)",
				    gen_shape_name(p->shape), pkey_names[i]);
	const char *why = NULL;
	uint64_t v = 0;
	switch ((enum pkey)i) {
	case P_N:
		if (parse_count(value, GEN_MAX_N, &v) || v < 1)
			return rs_error_set(err, EXIT_USAGE, NULL, 0,
					    "n: '%s': a whole number from 1 to %llu", value,
					    (unsigned long long)GEN_MAX_N);
		p->n = v;
		return 0;
	case P_BLOCKS: case P_DEPTH: case P_LAYERS: case P_HEADS: case P_BATCH:
	case P_WIDTH: case P_SEQ: case P_VOCAB: {
		uint64_t max = i == P_WIDTH || i == P_SEQ || i == P_VOCAB || i == P_BATCH
				       ? (1ull << 30) : GEN_MAX_COUNT;
		if (parse_count(value, max, &v) || v < 1)
			return rs_error_set(err, EXIT_USAGE, NULL, 0,
					    "%s: '%s': a whole number from 1 to %llu",
					    pkey_names[i], value, (unsigned long long)max);
		uint64_t *f = i == P_BLOCKS ? &p->blocks : i == P_DEPTH ? &p->depth :
			      i == P_LAYERS ? &p->layers : i == P_HEADS ? &p->heads :
			      i == P_BATCH ? &p->batch : i == P_WIDTH ? &p->width :
			      i == P_SEQ ? &p->seq : &p->vocab;
		*f = v;
		return 0;
	}
	case P_DTYPE:
		if (!strcmp(value, "fp32"))
			p->dtype_bytes = 4;
		else if (!strcmp(value, "bf16") || !strcmp(value, "fp16"))
			p->dtype_bytes = 2;
		else
			return rs_error_set(err, EXIT_USAGE, NULL, 0,
					    "dtype: '%s': fp32, bf16 or fp16", value);
		return 0;
	case P_FLOPS: {
		double f;
		if (parse_real(value, &f) || !(f >= 1e3) || f > 1e21)
			return rs_error_set(err, EXIT_USAGE, NULL, 0,
					    "flops: '%s': FLOP/s, a number from 1e3 to 1e21",
					    value);
		p->flops = f;
		return 0;
	}
	case P_TIME:
	case P_SIZE: {
		struct gen_dist d;
		if (gen_dist_parse(value, &d, &why))
			return rs_error_set(err, EXIT_USAGE, NULL, 0, "%s: '%s': %s",
					    pkey_names[i], value, why);
		if (i == P_TIME)
			p->time = d;
		else
			p->size = d;
		return 0;
	}
	case P_SEED:
		if (parse_count(value, UINT64_MAX, &v))
			return rs_error_set(err, EXIT_USAGE, NULL, 0,
					    "seed: '%s': a whole number from 0 to 2^64-1", value);
		p->seed = v;
		return 0;
	default:
		break;
	}
	rs_bug("parameter %d not handled", i);
}

/* ------------------------------------------------------------ the emitter */

#define BUF_BYTES 65536

struct em {
	int (*write)(void *ctx, const char *data, size_t len); /* NULL: no text */
	void *ctx;
	char buf[BUF_BYTES];
	size_t len;
	int status;        /* 0, or the EXIT_* of the first failure */
	char why[512];
	uint64_t total_time, total_bytes;
	uint64_t next;     /* next tensor number of the x/w names */
	uint64_t rng;

	/* The builder (NULL: text only), fed the ops with the lines and the
	 * record counts of the text; names of one op's tensors in scratch. */
	struct schedule_builder *sb;
	long line;         /* lines of text so far */
	uint64_t records[REC_KIND_COUNT];
	char *names;       /* "x12\0f3\0..." */
	size_t cap_names;
	size_t *offs;      /* of each name in names */
	size_t cap_offs;
	const char **argv;
	size_t cap_argv;
	struct schedule_result *resv;
	size_t cap_resv;
};

static void em_fail(struct em *e, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void em_fail(struct em *e, int status, const char *fmt, ...)
{
	if (e->status)
		return;
	e->status = status;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->why, sizeof e->why, fmt, ap);
	va_end(ap);
}

static void em_flush(struct em *e)
{
	if (e->len && !e->status && e->write && e->write(e->ctx, e->buf, e->len))
		em_fail(e, EXIT_IOERR, "cannot write the log");
	e->len = 0;
}

static void em_printf(struct em *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void em_printf(struct em *e, const char *fmt, ...)
{
	if (!e->write)
		return;
	if (BUF_BYTES - e->len < 1024)
		em_flush(e);
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(e->buf + e->len, BUF_BYTES - e->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= BUF_BYTES - e->len)
		rs_bug("gen: a record of %d bytes", n);
	e->len += (size_t)n;
}

/*
 * A tensor handle: a prefix letter and a number (f12, b3, x40, w7), packed
 * in 64 bits so that graphs keep plain integers.
 */
typedef uint64_t tid;
#define TID(c, i) (((uint64_t)(unsigned char)(c) << 56) | (uint64_t)(i))
#define TID_C(t) ((char)((t) >> 56))
#define TID_I(t) ((unsigned long long)((t) & ((1ull << 56) - 1)))

static tid fresh(struct em *e)
{
	return TID('x', e->next++);
}

static void add_total(struct em *e, uint64_t *total, uint64_t v, const char *what)
{
	if (v > GEN_MAX_VALUE || *total + v > GEN_MAX_TOTAL)
		em_fail(e, EXIT_USAGE, "the log's total %s would pass 2^60 (the reader's bound): "
			"choose smaller parameters", what);
	else
		*total += v;
}

/* The op of `op` below, to the builder: the CALL on the next line, each
 * result's MEMORY and ALIAS on the two after. */
static void build_op(struct em *e, const char *name, uint64_t time_ns, const tid *args,
		     size_t nargs, const tid *res, const uint64_t *sizes, const int *alias,
		     size_t nres)
{
	/* The names of args then results, "x12\0f3\0...", then pointers to them
	 * (once the buffer has stopped growing). */
	size_t used = 0, n = nargs + nres;
	XGROW(e->offs, e->cap_offs, n + 1);
	for (size_t i = 0; i < n; i++) {
		tid t = i < nargs ? args[i] : res[i - nargs];
		XGROW(e->names, e->cap_names, used + 24);
		e->offs[i] = used;
		used += (size_t)snprintf(e->names + used, 24, "%c%llu", TID_C(t), TID_I(t)) + 1;
	}
	XGROW(e->argv, e->cap_argv, n + 1);
	for (size_t i = 0; i < n; i++)
		e->argv[i] = e->names + e->offs[i];
	XGROW(e->resv, e->cap_resv, nres + 1);
	for (size_t i = 0; i < nres; i++) {
		int a = alias ? alias[i] : -1;
		e->resv[i] = (struct schedule_result){
			.name = e->argv[nargs + i],
			.bytes = a < 0 ? sizes[i] : 0,
			.alias = a < 0 ? -1 : a,
			.line = e->line + 2 + 2 * (long)i,
		};
	}
	schedule_builder_call(e->sb, e->line + 1, name, time_ns, e->argv, nargs, e->resv, nres);
}

/*
 * One op: CALL NAME(args) -> res, then MEMORY and ALIAS of each result.
 * alias[k] < 0: res[k] owns sizes[k] bytes; else a view of argument alias[k].
 */
static void op(struct em *e, const char *name, uint64_t time_ns, const tid *args, size_t nargs,
	       const tid *res, const uint64_t *sizes, const int *alias, size_t nres)
{
	if (e->status)
		return;
	add_total(e, &e->total_time, time_ns, "time");
	em_printf(e, "{\"ARGS\":[");
	for (size_t i = 0; i < nargs; i++)
		em_printf(e, "%s\"%c%llu\"", i ? "," : "", TID_C(args[i]), TID_I(args[i]));
	em_printf(e, "],\"INSTRUCTION\":\"CALL\",\"NAME\":\"%s\",\"RESULT\":[", name);
	for (size_t i = 0; i < nres; i++)
		em_printf(e, "%s\"%c%llu\"", i ? "," : "", TID_C(res[i]), TID_I(res[i]));
	em_printf(e, "],\"TIME\":\"%llu\"}\n", (unsigned long long)time_ns);
	for (size_t i = 0; i < nres; i++) {
		int a = alias ? alias[i] : -1;
		uint64_t sz = a < 0 ? sizes[i] : 0;
		if (a < 0)
			add_total(e, &e->total_bytes, sz, "bytes");
		em_printf(e, "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"%llu\",\"NAME\":\"%c%llu\"}\n",
			  (unsigned long long)sz, TID_C(res[i]), TID_I(res[i]));
		em_printf(e, "{\"ALIAS\":\"%d\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"%c%llu\"}\n",
			  a < 0 ? -1 : a, TID_C(res[i]), TID_I(res[i]));
	}
	if (e->sb && !e->status)
		build_op(e, name, time_ns, args, nargs, res, sizes, alias, nres);
	e->line += 1 + 2 * (long)nres;
	e->records[REC_CALL]++;
	e->records[REC_MEMORY] += nres;
	e->records[REC_ALIAS] += nres;
}

/* The common case: one new result of `bytes`. */
static tid op1(struct em *e, const char *name, uint64_t time_ns, const tid *args, size_t nargs,
	       uint64_t bytes)
{
	tid r = fresh(e);
	op(e, name, time_ns, args, nargs, &r, &bytes, NULL, 1);
	return r;
}

/* A view of argument 0 (no bytes of its own). */
static tid view(struct em *e, const char *name, tid of)
{
	tid r = fresh(e);
	int a = 0;
	uint64_t z = 0;
	op(e, name, 1, &of, 1, &r, &z, &a, 1);
	return r;
}

static void release(struct em *e, tid t)
{
	if (e->status)
		return;
	em_printf(e, "{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"%c%llu\"}\n", TID_C(t), TID_I(t));
	if (e->sb) {
		char name[24];
		snprintf(name, sizeof name, "%c%llu", TID_C(t), TID_I(t));
		schedule_builder_release(e->sb, e->line + 1, name);
	}
	e->line++;
	e->records[REC_RELEASE]++;
}

static tid constant(struct em *e, uint64_t bytes)
{
	tid w = TID('w', e->next++);
	if (e->status)
		return w;
	add_total(e, &e->total_bytes, bytes, "bytes");
	em_printf(e, "{\"INSTRUCTION\":\"CONSTANT\",\"NAME\":\"w%llu\"}\n", TID_I(w));
	em_printf(e, "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"%llu\",\"NAME\":\"w%llu\"}\n",
		  (unsigned long long)bytes, TID_I(w));
	if (e->sb && !e->status) {
		char name[24];
		snprintf(name, sizeof name, "w%llu", TID_I(w));
		schedule_builder_constant(e->sb, e->line + 1, e->line + 2, name, bytes);
	}
	e->line += 2;
	e->records[REC_CONSTANT]++;
	e->records[REC_MEMORY]++;
	return w;
}

static void backward_mark(struct em *e)
{
	em_printf(e, "{\"ANNOTATION\":\"BACKWARD\",\"INSTRUCTION\":\"ANNOTATE\"}\n");
	if (e->sb)
		schedule_builder_backward(e->sb);
	e->line++;
	e->records[REC_ANNOTATE]++;
}

/* ------------------------------------------------------------ random draws */

static uint64_t next_u64(struct em *e)
{
	uint64_t z = (e->rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1), 53 bits. */
static double next_unit(struct em *e)
{
	return (double)(next_u64(e) >> 11) * 0x1p-53;
}

/* One draw, rounded to a whole number >= 1 (capped past 2^62: add_total refuses it). */
static uint64_t draw(struct em *e, const struct gen_dist *d)
{
	double x;
	switch (d->kind) {
	case DIST_CONST:
		x = d->a;
		break;
	case DIST_UNIFORM:
		x = d->a + (d->b - d->a) * next_unit(e);
		break;
	default: {
		/* Box-Muller, one normal per draw (the second is dropped so that a
		 * draw always takes two numbers of the stream). */
		double u1 = 1.0 - next_unit(e), u2 = next_unit(e);
		x = exp(d->a + d->b * sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2));
		break;
	}
	}
	x = floor(x + 0.5);
	if (x < 1)
		return 1;
	if (!(x <= (double)GEN_MAX_VALUE))
		return GEN_MAX_VALUE + 1;
	return (uint64_t)x;
}

/* ------------------------------------------------------------ shapes */

/*
 * The paper's uniform chain, as simrd's uniform_linear driver builds it:
 * f0..f(n-1), fi from f(i-1); release f(n-1); b(n-1) from nothing; then for
 * k = n-2 .. 0: release fk, bk from f(k-1) (k > 0) and b(k+1), release
 * b(k+1). Each op draws its time, then its result's size, in the order
 * the ops are written (docs/gen.md).
 */
static void gen_linear(struct em *e, const struct gen_params *p)
{
	uint64_t n = p->n;
	for (uint64_t i = 0; i < n && !e->status; i++) {
		tid f = TID('f', i), prev = TID('f', i - 1);
		uint64_t t = draw(e, &p->time), s = draw(e, &p->size);
		op(e, "f", t, &prev, i ? 1 : 0, &f, &s, NULL, 1);
	}
	backward_mark(e);
	release(e, TID('f', n - 1));
	{
		tid b = TID('b', n - 1);
		uint64_t t = draw(e, &p->time), s = draw(e, &p->size);
		op(e, "f_backward", t, NULL, 0, &b, &s, NULL, 1);
	}
	for (uint64_t k = n - 1; k-- > 0 && !e->status;) {
		release(e, TID('f', k));
		tid args[2];
		size_t na = 0;
		if (k > 0)
			args[na++] = TID('f', k - 1);
		args[na++] = TID('b', k + 1);
		tid b = TID('b', k);
		uint64_t t = draw(e, &p->time), s = draw(e, &p->size);
		op(e, "f_backward", t, args, na, &b, &s, NULL, 1);
		release(e, TID('b', k + 1));
	}
}

/*
 * Residual blocks: x0 = input(); block j: c = conv(x), r = relu(c), c2 =
 * conv(r), y = add(c2, x), x' = relu(y). Backward from a seed gradient,
 * each tensor released after its last use (docs/gen.md has the graph).
 */
static void gen_residual(struct em *e, const struct gen_params *p)
{
	uint64_t B = p->blocks;
	/* Per block we keep x (its input) and r: the tensors backward reads. */
	tid *xs = xcalloc(B + 1, sizeof *xs), *rs = xcalloc(B + 1, sizeof *rs);
	uint64_t *xsz = xcalloc(B + 1, sizeof *xsz), *rsz = xcalloc(B + 1, sizeof *rsz);
#define T() draw(e, &p->time)
#define S() draw(e, &p->size)
	uint64_t t0 = T();
	xsz[0] = S();
	xs[0] = op1(e, "input", t0, NULL, 0, xsz[0]);
	for (uint64_t j = 1; j <= B && !e->status; j++) {
		tid x = xs[j - 1];
		uint64_t t = T(), s = S();
		tid c = op1(e, "conv", t, &x, 1, s);
		t = T();
		rsz[j] = S();
		rs[j] = op1(e, "relu", t, &c, 1, rsz[j]);
		release(e, c);
		t = T();
		s = S();
		tid c2 = op1(e, "conv", t, &rs[j], 1, s);
		tid a[2] = {c2, x};
		t = T();
		s = S();
		tid y = op1(e, "add", t, a, 2, s);
		release(e, c2);
		t = T();
		xsz[j] = S();
		xs[j] = op1(e, "relu", t, &y, 1, xsz[j]);
		release(e, y);
	}
	backward_mark(e);
	uint64_t t = T();
	tid g = op1(e, "seed_backward", t, NULL, 0, xsz[B]);
	for (uint64_t j = B; j >= 1 && !e->status; j--) {
		tid a[2] = {g, xs[j]};
		t = T();
		tid gy = op1(e, "relu_backward", t, a, 2, xsz[j]);
		release(e, g);
		release(e, xs[j]);
		tid a2[2] = {gy, rs[j]};
		t = T();
		tid gr = op1(e, "conv_backward", t, a2, 2, rsz[j]);
		tid a3[2] = {gr, rs[j]};
		t = T();
		tid gc = op1(e, "relu_backward", t, a3, 2, rsz[j]);
		release(e, gr);
		release(e, rs[j]);
		tid a4[2] = {gc, xs[j - 1]};
		t = T();
		tid gx = op1(e, "conv_backward", t, a4, 2, xsz[j - 1]);
		release(e, gc);
		tid a5[2] = {gx, gy};
		t = T();
		g = op1(e, "add_backward", t, a5, 2, xsz[j - 1]);
		release(e, gx);
		release(e, gy);
	}
	release(e, xs[0]);
	free(xs);
	free(rs);
	free(xsz);
	free(rsz);
}

/*
 * U-Net: e0 = input(), e_i = down(e_{i-1}) for i = 1..D, m = mid(e_D),
 * u_D = up(m, e_D), u_i = up(u_{i+1}, e_i) for i = D-1..0: the decoder
 * consumes the encoder's outputs in mirror order. Backward: each up op's
 * backward gives the gradients of both its inputs (one op, two results).
 */
static void gen_unet(struct em *e, const struct gen_params *p)
{
	uint64_t D = p->depth;
	tid *en = xcalloc(D + 1, sizeof *en), *up = xcalloc(D + 1, sizeof *up);
	tid *gskip = xcalloc(D + 1, sizeof *gskip);
	uint64_t *esz = xcalloc(D + 1, sizeof *esz), *usz = xcalloc(D + 1, sizeof *usz);
	uint64_t t = T();
	esz[0] = S();
	en[0] = op1(e, "input", t, NULL, 0, esz[0]);
	for (uint64_t i = 1; i <= D && !e->status; i++) {
		t = T();
		esz[i] = S();
		en[i] = op1(e, "down", t, &en[i - 1], 1, esz[i]);
	}
	t = T();
	uint64_t msz = S();
	tid m = op1(e, "mid", t, &en[D], 1, msz);
	for (uint64_t i = D + 1; i-- > 0 && !e->status;) {
		tid a[2] = {i == D ? m : up[i + 1], en[i]};
		t = T();
		usz[i] = S();
		up[i] = op1(e, "up", t, a, 2, usz[i]);
	}
	backward_mark(e);
	release(e, up[0]);
	t = T();
	tid g = op1(e, "seed_backward", t, NULL, 0, usz[0]);
	for (uint64_t i = 0; i <= D && !e->status; i++) {
		tid in0 = i == D ? m : up[i + 1];
		uint64_t in0sz = i == D ? msz : usz[i + 1];
		tid a[3] = {g, in0, en[i]};
		tid r[2] = {fresh(e), fresh(e)};
		uint64_t sz[2] = {in0sz, esz[i]};
		t = T();
		op(e, "up_backward", t, a, 3, r, sz, NULL, 2);
		release(e, g);
		release(e, in0);
		g = r[0];
		gskip[i] = r[1];
	}
	/* g: the gradient of m. */
	tid a[2] = {g, en[D]};
	t = T();
	tid gm = op1(e, "mid_backward", t, a, 2, esz[D]);
	release(e, g);
	tid a2[2] = {gm, gskip[D]};
	t = T();
	g = op1(e, "add_backward", t, a2, 2, esz[D]);
	release(e, gm);
	release(e, gskip[D]);
	for (uint64_t i = D; i >= 1 && !e->status; i--) {
		tid a3[2] = {g, en[i - 1]};
		t = T();
		tid gd = op1(e, "down_backward", t, a3, 2, esz[i - 1]);
		release(e, g);
		release(e, en[i]);
		tid a4[2] = {gd, gskip[i - 1]};
		t = T();
		g = op1(e, "add_backward", t, a4, 2, esz[i - 1]);
		release(e, gd);
		release(e, gskip[i - 1]);
	}
	release(e, en[0]);
#undef T
#undef S
	free(en);
	free(up);
	free(gskip);
	free(esz);
	free(usz);
}

/* FLOPs to whole ns at p->flops, at least 1. */
static uint64_t ns_of(const struct gen_params *p, double flop)
{
	double ns = ceil(flop / p->flops * 1e9);
	if (ns < 1)
		return 1;
	if (ns > (double)GEN_MAX_VALUE)
		return GEN_MAX_VALUE + 1; /* add_total refuses it */
	return (uint64_t)ns;
}

struct tf_block_weights {
	tid ln1_w, ln1_b, qkv_w, qkv_b, o_w, o_b, ln2_w, ln2_b, fc1_w, fc1_b, fc2_w, fc2_b;
};

/* What each layer's backward reads. */
struct tf_saved {
	tid x, ln1, m1, r1, qkv, ctx, x1, ln2, m2, r2, h1, g1;
	tid *q, *k, *kt, *v, *attn; /* per head */
};

/* One transformer's sizes (bytes) and FLOP factors. */
struct tf {
	struct em *e;
	const struct gen_params *p;
	double Bt, S, W, V, D;
	uint64_t L, NH;
	uint64_t tok;    /* tokens */
	uint64_t act;    /* one [B,S,W] activation */
	uint64_t stat;   /* layer-norm mean / rstd (fp32) */
	uint64_t head;   /* one head's [B,S,D] */
	uint64_t score;  /* one head's [B,S,S] */
	uint64_t wbytes; /* one row of width W */
	double mm;       /* FLOPs per (in x out) of a projection */
	tid tokens, emb_w, lnf_w, lnf_b;
};

/* ns of flop FLOPs at the device's rate. */
#define NS(t, flop) ns_of((t)->p, (flop))

/* A layer norm's three outputs (y, mean, rstd) of x. */
static void tf_layer_norm(struct tf *t, tid x, tid w, tid b, tid r[3])
{
	tid a3[3] = {x, w, b};
	uint64_t z3[3] = {t->act, t->stat, t->stat};
	r[0] = fresh(t->e), r[1] = fresh(t->e), r[2] = fresh(t->e);
	op(t->e, "native_layer_norm", NS(t, 8 * t->Bt * t->S * t->W), a3, 3, r, z3, NULL, 3);
}

/* A layer norm's backward: its three gradients into r (input, weight,
 * bias). */
static void tf_layer_norm_backward(struct tf *t, const tid a6[6], tid r[3])
{
	uint64_t z3[3] = {t->act, t->wbytes, t->wbytes};
	r[0] = fresh(t->e), r[1] = fresh(t->e), r[2] = fresh(t->e);
	op(t->e, "native_layer_norm_backward", NS(t, 16 * t->Bt * t->S * t->W), a6, 6, r, z3, NULL, 3);
}

/* Layer l's forward from x (saving what its backward reads in s); its
 * output. */
static tid tf_layer_forward(struct tf *t, const struct tf_block_weights *w, struct tf_saved *s, tid x)
{
	struct em *e = t->e;
	const double Bt = t->Bt, S = t->S, W = t->W, D = t->D, mm = t->mm;
	const uint64_t act = t->act, NH = t->NH;
	tid a2[2], a3[3], r3[3];
	s->x = x;
	tf_layer_norm(t, x, w->ln1_w, w->ln1_b, r3);
	s->ln1 = r3[0], s->m1 = r3[1], s->r1 = r3[2];
	a3[0] = s->ln1, a3[1] = w->qkv_w, a3[2] = w->qkv_b;
	s->qkv = op1(e, "addmm", NS(t, mm * W * 3 * W), a3, 3, 3 * act);
	s->q = xcalloc(NH, sizeof *s->q);
	s->k = xcalloc(NH, sizeof *s->k);
	s->kt = xcalloc(NH, sizeof *s->kt);
	s->v = xcalloc(NH, sizeof *s->v);
	s->attn = xcalloc(NH, sizeof *s->attn);
	tid *ctxh = xcalloc(NH, sizeof *ctxh);
	for (uint64_t h = 0; h < NH && !e->status; h++) {
		s->q[h] = view(e, "select", s->qkv);
		s->k[h] = view(e, "select", s->qkv);
		s->v[h] = view(e, "select", s->qkv);
		s->kt[h] = view(e, "transpose", s->k[h]);
		a2[0] = s->q[h], a2[1] = s->kt[h];
		tid sc = op1(e, "bmm", NS(t, 2 * Bt * S * S * D), a2, 2, t->score);
		s->attn[h] = op1(e, "_softmax", NS(t, 5 * Bt * S * S), &sc, 1, t->score);
		release(e, sc);
		a2[0] = s->attn[h], a2[1] = s->v[h];
		ctxh[h] = op1(e, "bmm", NS(t, 2 * Bt * S * S * D), a2, 2, t->head);
	}
	s->ctx = op1(e, "cat", NS(t, Bt * S * W), ctxh, NH, act);
	for (uint64_t h = 0; h < NH; h++)
		release(e, ctxh[h]);
	free(ctxh);
	a3[0] = s->ctx, a3[1] = w->o_w, a3[2] = w->o_b;
	tid ao = op1(e, "addmm", NS(t, mm * W * W), a3, 3, act);
	a2[0] = x, a2[1] = ao;
	s->x1 = op1(e, "add", NS(t, Bt * S * W), a2, 2, act);
	release(e, ao);
	tf_layer_norm(t, s->x1, w->ln2_w, w->ln2_b, r3);
	s->ln2 = r3[0], s->m2 = r3[1], s->r2 = r3[2];
	a3[0] = s->ln2, a3[1] = w->fc1_w, a3[2] = w->fc1_b;
	s->h1 = op1(e, "addmm", NS(t, mm * W * 4 * W), a3, 3, 4 * act);
	s->g1 = op1(e, "gelu", NS(t, 8 * Bt * S * 4 * W), &s->h1, 1, 4 * act);
	a3[0] = s->g1, a3[1] = w->fc2_w, a3[2] = w->fc2_b;
	tid h2 = op1(e, "addmm", NS(t, mm * 4 * W * W), a3, 3, act);
	a2[0] = s->x1, a2[1] = h2;
	tid out = op1(e, "add", NS(t, Bt * S * W), a2, 2, act);
	release(e, h2);
	return out;
}

/* The head: final norm, logits, loss; then its backward down to the
 * gradient of the last layer's output (returned), the embedding's weight
 * gradient from the LM head in *gemb. */
static tid tf_head(struct tf *t, tid x, tid *gemb)
{
	struct em *e = t->e;
	const double Bt = t->Bt, S = t->S, W = t->W, V = t->V, mm = t->mm;
	tid a2[2], r3[3];
	tf_layer_norm(t, x, t->lnf_w, t->lnf_b, r3);
	tid lnf = r3[0], mf = r3[1], rf = r3[2];
	const uint64_t logits_bytes = t->tok * t->p->vocab * t->p->dtype_bytes;
	a2[0] = lnf, a2[1] = t->emb_w;
	tid logits = op1(e, "mm", NS(t, mm * W * V), a2, 2, logits_bytes);
	a2[0] = logits, a2[1] = t->tokens;
	tid loss = op1(e, "cross_entropy", NS(t, 5 * Bt * S * V), a2, 2, 4);

	backward_mark(e);
	release(e, loss);
	a2[0] = logits, a2[1] = t->tokens;
	tid glog = op1(e, "cross_entropy_backward", NS(t, 5 * Bt * S * V), a2, 2, logits_bytes);
	release(e, logits);
	a2[0] = glog, a2[1] = t->emb_w;
	tid g = op1(e, "mm_backward", NS(t, mm * V * W), a2, 2, t->act);
	a2[0] = glog, a2[1] = lnf;
	*gemb = op1(e, "mm_backward", NS(t, mm * V * W), a2, 2, t->p->vocab * t->wbytes);
	release(e, glog);
	release(e, lnf);
	tid a6[6] = {g, x, mf, rf, t->lnf_w, t->lnf_b};
	tf_layer_norm_backward(t, a6, r3);
	release(e, g), release(e, mf), release(e, rf), release(e, x);
	return r3[0];
}

/* The attention's backward, head by head, from gctx (the gradient of the
 * heads' concatenation); the gradient of the fused q/k/v projection. */
static tid tf_attention_backward(struct tf *t, struct tf_saved *s, tid gctx)
{
	struct em *e = t->e;
	const double Bt = t->Bt, S = t->S, W = t->W, D = t->D;
	const uint64_t NH = t->NH;
	tid a2[2];
	tid *gqkv = xcalloc(3 * NH, sizeof *gqkv);
	for (uint64_t h = NH; h-- > 0 && !e->status;) {
		tid gc = view(e, "narrow", gctx);
		a2[0] = gc, a2[1] = s->v[h];
		tid ga = op1(e, "bmm", NS(t, 2 * Bt * S * S * D), a2, 2, t->score);
		a2[0] = s->attn[h], a2[1] = gc;
		gqkv[3 * h + 2] = op1(e, "bmm", NS(t, 2 * Bt * S * S * D), a2, 2, t->head);
		release(e, gc), release(e, s->v[h]);
		a2[0] = ga, a2[1] = s->attn[h];
		tid gs = op1(e, "_softmax_backward_data", NS(t, 5 * Bt * S * S), a2, 2, t->score);
		release(e, ga), release(e, s->attn[h]);
		a2[0] = gs, a2[1] = s->kt[h];
		gqkv[3 * h] = op1(e, "bmm", NS(t, 2 * Bt * S * S * D), a2, 2, t->head);
		a2[0] = gs, a2[1] = s->q[h];
		gqkv[3 * h + 1] = op1(e, "bmm", NS(t, 2 * Bt * S * S * D), a2, 2, t->head);
		release(e, gs), release(e, s->q[h]), release(e, s->kt[h]), release(e, s->k[h]);
	}
	release(e, gctx);
	tid gq = op1(e, "cat", NS(t, 3 * Bt * S * W), gqkv, 3 * NH, 3 * t->act);
	for (uint64_t h = 0; h < 3 * NH; h++)
		release(e, gqkv[h]);
	free(gqkv);
	return gq;
}

/* Layer l's backward from g (the gradient of its output); the gradient of
 * its input. */
static tid tf_layer_backward(struct tf *t, const struct tf_block_weights *w, struct tf_saved *s, tid g,
			     uint64_t l)
{
	struct em *e = t->e;
	const double Bt = t->Bt, S = t->S, W = t->W, mm = t->mm;
	const uint64_t act = t->act, wbytes = t->wbytes, width = t->p->width;
	tid a2[2], r3[3];
	/* x2 = x1 + fc2(g1): the add passes g on to both. */
	a2[0] = g, a2[1] = w->fc2_w;
	tid gg1 = op1(e, "mm", NS(t, mm * W * 4 * W), a2, 2, 4 * act);
	a2[0] = g, a2[1] = s->g1;
	op1(e, "mm", NS(t, mm * W * 4 * W), a2, 2, 4 * wbytes * width);
	op1(e, "sum", NS(t, Bt * S * W), &g, 1, wbytes);
	release(e, s->g1);
	a2[0] = gg1, a2[1] = s->h1;
	tid gh1 = op1(e, "gelu_backward", NS(t, 8 * Bt * S * 4 * W), a2, 2, 4 * act);
	release(e, gg1), release(e, s->h1);
	a2[0] = gh1, a2[1] = w->fc1_w;
	tid gln2 = op1(e, "mm", NS(t, mm * 4 * W * W), a2, 2, act);
	a2[0] = gh1, a2[1] = s->ln2;
	op1(e, "mm", NS(t, mm * 4 * W * W), a2, 2, 4 * wbytes * width);
	op1(e, "sum", NS(t, Bt * S * 4 * W), &gh1, 1, 4 * wbytes);
	release(e, gh1), release(e, s->ln2);
	tid b6[6] = {gln2, s->x1, s->m2, s->r2, w->ln2_w, w->ln2_b};
	tf_layer_norm_backward(t, b6, r3);
	release(e, gln2), release(e, s->m2), release(e, s->r2), release(e, s->x1);
	a2[0] = g, a2[1] = r3[0];
	tid gx1 = op1(e, "add", NS(t, Bt * S * W), a2, 2, act);
	release(e, g), release(e, r3[0]);
	/* x1 = x + proj(ctx) */
	a2[0] = gx1, a2[1] = w->o_w;
	tid gctx = op1(e, "mm", NS(t, mm * W * W), a2, 2, act);
	a2[0] = gx1, a2[1] = s->ctx;
	op1(e, "mm", NS(t, mm * W * W), a2, 2, wbytes * width);
	op1(e, "sum", NS(t, Bt * S * W), &gx1, 1, wbytes);
	release(e, s->ctx);
	tid gq = tf_attention_backward(t, s, gctx);
	a2[0] = gq, a2[1] = w->qkv_w;
	tid gln1 = op1(e, "mm", NS(t, mm * 3 * W * W), a2, 2, act);
	a2[0] = gq, a2[1] = s->ln1;
	op1(e, "mm", NS(t, mm * 3 * W * W), a2, 2, 3 * wbytes * width);
	op1(e, "sum", NS(t, 3 * Bt * S * W), &gq, 1, 3 * wbytes);
	release(e, gq), release(e, s->ln1), release(e, s->qkv);
	tid b7[6] = {gln1, s->x, s->m1, s->r1, w->ln1_w, w->ln1_b};
	tf_layer_norm_backward(t, b7, r3);
	release(e, gln1), release(e, s->m1), release(e, s->r1);
	a2[0] = gx1, a2[1] = r3[0];
	tid gin = op1(e, "add", NS(t, Bt * S * W), a2, 2, act);
	release(e, gx1), release(e, r3[0]);
	if (l > 0)
		release(e, s->x); /* layer 0's input is the embedding's output, below */
	return gin;
}

/*
 * A pre-norm transformer (GPT-style decoder stack): tokens and weights are
 * constants; per layer: x1 = x + proj(attention(ln1(x))), x2 = x1 +
 * fc2(gelu(fc1(ln2(x1)))), attention computed head by head through views
 * of the fused q/k/v projection. Then a final norm, the LM head and a
 * cross-entropy loss; backward releases what autograd would once used.
 * docs/gen.md lists the ops, sizes and FLOP counts.
 */
static void gen_transformer(struct em *e, const struct gen_params *p)
{
	const uint64_t dt = p->dtype_bytes, L = p->layers;
	struct tf t = {
		.e = e, .p = p,
		.Bt = (double)p->batch, .S = (double)p->seq, .W = (double)p->width, .V = (double)p->vocab,
		.D = (double)p->width / (double)p->heads,
		.L = L, .NH = p->heads,
		.tok = p->batch * p->seq,
		.act = p->batch * p->seq * p->width * dt,
		.stat = p->batch * p->seq * 4,
		.head = p->batch * p->seq * (p->width / p->heads) * dt,
		.score = p->batch * p->seq * p->seq * dt,
		.wbytes = p->width * dt,
		.mm = 2 * (double)p->batch * (double)p->seq,
	};
	const uint64_t wbytes = t.wbytes;
	t.tokens = constant(e, t.tok * 8);
	t.emb_w = constant(e, p->vocab * wbytes);
	struct tf_block_weights *bw = xcalloc(L, sizeof *bw);
	for (uint64_t l = 0; l < L; l++) {
		struct tf_block_weights *w = &bw[l];
		w->ln1_w = constant(e, wbytes);
		w->ln1_b = constant(e, wbytes);
		w->qkv_w = constant(e, 3 * p->width * wbytes);
		w->qkv_b = constant(e, 3 * wbytes);
		w->o_w = constant(e, p->width * wbytes);
		w->o_b = constant(e, wbytes);
		w->ln2_w = constant(e, wbytes);
		w->ln2_b = constant(e, wbytes);
		w->fc1_w = constant(e, 4 * p->width * wbytes);
		w->fc1_b = constant(e, 4 * wbytes);
		w->fc2_w = constant(e, 4 * p->width * wbytes);
		w->fc2_b = constant(e, wbytes);
	}
	t.lnf_w = constant(e, wbytes), t.lnf_b = constant(e, wbytes);
	struct tf_saved *sv = xcalloc(L, sizeof *sv);

	tid a2[2] = {t.emb_w, t.tokens}, a3[3];
	tid x = op1(e, "embedding", NS(&t, t.Bt * t.S * t.W), a2, 2, t.act);
	for (uint64_t l = 0; l < L && !e->status; l++)
		x = tf_layer_forward(&t, &bw[l], &sv[l], x);
	tid gemb;
	tid g = tf_head(&t, x, &gemb);
	for (uint64_t l = L; l-- > 0 && !e->status;)
		g = tf_layer_backward(&t, &bw[l], &sv[l], g, l);
	a3[0] = g, a3[1] = t.tokens, a3[2] = gemb;
	op1(e, "embedding_backward", NS(&t, t.Bt * t.S * t.W), a3, 3, p->vocab * wbytes);
	release(e, g), release(e, gemb), release(e, sv[0].x);
	for (uint64_t l = 0; l < L; l++) {
		free(sv[l].q);
		free(sv[l].k);
		free(sv[l].kt);
		free(sv[l].v);
		free(sv[l].attn);
	}
	free(sv);
	free(bw);
}
#undef NS

/* ------------------------------------------------------------ entry points */

int gen_check(const struct gen_params *p, struct rs_error *err)
{
	switch (p->shape) {
	case GEN_LINEAR:
		if (p->n < 1)
			return rs_error_set(err, EXIT_USAGE, NULL, 0, "linear needs --n N (N >= 1)");
		break;
	case GEN_RESIDUAL:
		if (p->blocks < 1)
			return rs_error_set(err, EXIT_USAGE, NULL, 0,
					    "residual needs --blocks B (B >= 1)");
		break;
	case GEN_UNET:
		if (p->depth < 1)
			return rs_error_set(err, EXIT_USAGE, NULL, 0, "unet needs --depth D (D >= 1)");
		break;
	case GEN_TRANSFORMER: {
		if (p->width % p->heads)
			return rs_error_set(err, EXIT_USAGE, NULL, 0,
					    "transformer: --width %llu is not a multiple of --heads %llu",
					    (unsigned long long)p->width,
					    (unsigned long long)p->heads);
		/* The largest tensors: logits [B,S,V], 3H scores' worth per layer... */
		double dt = p->dtype_bytes, tok = (double)p->batch * (double)p->seq;
		double biggest = fmax(tok * (double)p->vocab * dt,
				      fmax((double)p->batch * (double)p->seq * (double)p->seq * dt,
					   4.0 * tok * (double)p->width * dt));
		if (biggest > (double)GEN_MAX_VALUE)
			return rs_error_set(err, EXIT_USAGE, NULL, 0,
					    "transformer: a tensor of %.3g bytes passes 2^62, the "
					    "reader's bound for one size", biggest);
		double ops = (double)p->layers * (30.0 + 13.0 * (double)p->heads);
		if (ops > 1e8)
			return rs_error_set(err, EXIT_USAGE, NULL, 0,
					    "transformer: %.3g ops is more than this generator "
					    "writes (1e8)", ops);
		break;
	}
	default:
		return rs_error_set(err, EXIT_USAGE, NULL, 0, "unknown shape");
	}
	return 0;
}

static void emit_shape(struct em *e, const struct gen_params *p)
{
	e->rng = p->seed;
	switch (p->shape) {
	case GEN_LINEAR: gen_linear(e, p); break;
	case GEN_RESIDUAL: gen_residual(e, p); break;
	case GEN_UNET: gen_unet(e, p); break;
	case GEN_TRANSFORMER: gen_transformer(e, p); break;
	default: break;
	}
	em_flush(e);
}

int gen_write(const struct gen_params *p,
	      int (*write)(void *ctx, const char *data, size_t len), void *ctx,
	      struct rs_error *err)
{
	if (gen_check(p, err))
		return -1;
	struct em *e = xcalloc(1, sizeof *e);
	e->write = write;
	e->ctx = ctx;
	emit_shape(e, p);
	int rc = 0;
	if (e->status)
		rc = rs_error_set(err, e->status, NULL, 0, "%s", e->why);
	free(e);
	return rc;
}

static int digest_write(void *ctx, const char *data, size_t len)
{
	sha256_update(ctx, data, len);
	return 0;
}

int gen_build(const struct gen_params *p, const char *name, const struct read_options *opt,
	      struct schedule **out, struct rs_error *err)
{
	static const struct read_options defaults = {0};
	*out = NULL;
	if (gen_check(p, err))
		return -1;
	if (!opt)
		opt = &defaults;
	struct rs_error build_err = {0};
	struct sha256_ctx sha;
	sha256_init(&sha);
	struct em *e = xcalloc(1, sizeof *e);
	if (opt->digest) { /* the text is written for its digest only */
		e->write = digest_write;
		e->ctx = &sha;
	}
	e->sb = schedule_builder_new(name, opt->preallocate, 1, &build_err, NULL, NULL);
	emit_shape(e, p);
	struct schedule *s;
	int problems = schedule_builder_finish(e->sb, &s);
	int rc = 0;
	if (e->status) {
		/* the generator's failure comes first, as when its text was parsed after */
		rc = rs_error_set(err, e->status, NULL, 0, "%s", e->why);
		schedule_free(s);
	} else if (problems) {
		if (err)
			*err = build_err;
		rc = -1;
	} else {
		/* The facts a read of the text gives (schedule_read). */
		memcpy(s->records, e->records, sizeof s->records);
		s->lines = (uint64_t)e->line;
		s->from_start = true;
		if (opt->digest)
			sha256_final(&sha, s->sha256);
		*out = s;
	}
	free(e->names);
	free(e->offs);
	free(e->argv);
	free(e->resv);
	free(e);
	return rc;
}

struct membuf {
	char *data;
	size_t len, cap;
};

static int mem_write(void *ctx, const char *data, size_t len)
{
	struct membuf *m = ctx;
	XGROW(m->data, m->cap, m->len + len + 1);
	memcpy(m->data + m->len, data, len);
	m->len += len;
	m->data[m->len] = 0;
	return 0;
}

int gen_text(const struct gen_params *p, char **text, size_t *len, struct rs_error *err)
{
	struct membuf m = {0};
	*text = NULL;
	*len = 0;
	if (gen_write(p, mem_write, &m, err)) {
		free(m.data);
		return -1;
	}
	if (!m.data)
		m.data = xcalloc(1, 1);
	*text = m.data;
	*len = m.len;
	return 0;
}

void gen_describe(const struct gen_params *p, char *buf, size_t size)
{
	char t[96], s[96];
	gen_dist_format(&p->time, t, sizeof t);
	gen_dist_format(&p->size, s, sizeof s);
	switch (p->shape) {
	case GEN_LINEAR:
		snprintf(buf, size, "linear n=%llu time=%s size=%s seed=%llu",
			 (unsigned long long)p->n, t, s, (unsigned long long)p->seed);
		break;
	case GEN_RESIDUAL:
		snprintf(buf, size, "residual blocks=%llu time=%s size=%s seed=%llu",
			 (unsigned long long)p->blocks, t, s, (unsigned long long)p->seed);
		break;
	case GEN_UNET:
		snprintf(buf, size, "unet depth=%llu time=%s size=%s seed=%llu",
			 (unsigned long long)p->depth, t, s, (unsigned long long)p->seed);
		break;
	default:
		snprintf(buf, size, "transformer layers=%llu width=%llu seq=%llu batch=%llu "
			 "heads=%llu vocab=%llu dtype=%s flops=%.17g",
			 (unsigned long long)p->layers, (unsigned long long)p->width,
			 (unsigned long long)p->seq, (unsigned long long)p->batch,
			 (unsigned long long)p->heads, (unsigned long long)p->vocab,
			 p->dtype_bytes == 4 ? "fp32" : "bf16", p->flops);
		break;
	}
}
