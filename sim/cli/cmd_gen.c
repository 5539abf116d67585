/*
 * cmd_gen.c: `rematsim gen SHAPE [options] --out FILE[.gz]`, a synthetic
 * op log (sim/lib/read/gen.h) written whole to a temporary file beside FILE and
 * renamed, so that FILE is never half written.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "cmd.h"
#include "gen.h"
#include "outfile.h"
#include "util.h"

static const char gen_help[] =
	"usage: rematsim gen SHAPE [options] --out FILE[.log|.log.gz]\n"
	"\n"
	"Write a synthetic op log that every command reads like a recorded one\n"
	"(gzip when FILE ends in .gz). The graphs: docs/gen.md.\n"
	"\n"
	"Shapes and their options:\n"
	"  linear --n N           the DTR paper's chain: N forward ops, each\n"
	"                         from the one before, then N backward ops\n"
	"  residual --blocks B    ResNet-like blocks with skip connections\n"
	"  unet --depth D         an encoder whose outputs a mirrored decoder consumes\n"
	"     these three also take (defaults const:1, i.e. 1 ns and 1 byte):\n"
	"     --time-dist DIST    each op's time in ns\n"
	"     --size-dist DIST    each result's size in bytes\n"
	"     DIST: const:X, uniform:A:B (0 < A <= B), lognormal:MU:SIGMA (SIGMA > 0),\n"
	"     drawn per op and rounded to whole numbers of at least 1\n"
	"  transformer            a pre-norm decoder stack, head-by-head attention;\n"
	"                         sizes from the shapes, times from FLOP counts\n"
	"                         (defaults: GPT-2 small's dimensions at 1024 tokens,\n"
	"                         where activations dominate the peak, as in the DTR\n"
	"                         paper's logs; GPT-3's block: --width 12288\n"
	"                         --heads 96 --seq 2048):\n"
	"     --layers L          blocks (default 12; 96 gives about 1.8e4 ops)\n"
	"     --width W           model width (default 768)\n"
	"     --seq S             tokens per sequence (default 1024)\n"
	"     --batch B           sequences (default 1)\n"
	"     --heads H           attention heads, dividing W (default 12)\n"
	"     --vocab V           vocabulary of the embedding and head (default 50257)\n"
	"     --dtype T           fp32, bf16 or fp16 (default bf16)\n"
	"     --flops RATE        FLOP/s turning FLOP counts into ns (default 1e15)\n"
	"  --seed N               seed of the random draws (default 0): the same\n"
	"                         options and seed give the same bytes\n"
	"  --out FILE             the log to write (required): written whole under a\n"
	"                         temporary name and renamed; /dev/stdout or a FIFO\n"
	"                         is written in place\n"
	"\n"
	"Exit status: 0 ok, 64 bad shape or option (n < 1, a distribution that does\n"
	"not parse, sizes past the reader's bounds), 73 cannot create FILE (or it is\n"
	"a symbolic link to a file), 74 I/O error.\n";

struct sink {
	gzFile gz;
	FILE *f;
};

static int sink_write(void *ctx, const char *data, size_t len)
{
	struct sink *s = ctx;
	if (s->gz) {
		while (len) {
			unsigned chunk = len > (1u << 30) ? (1u << 30) : (unsigned)len;
			if (gzwrite(s->gz, data, chunk) != (int)chunk)
				return -1;
			data += chunk;
			len -= chunk;
		}
		return 0;
	}
	return fwrite(data, 1, len, s->f) == len ? 0 : -1;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

int cmd_gen(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"n", required_argument, NULL, 0},
		{"blocks", required_argument, NULL, 0},
		{"depth", required_argument, NULL, 0},
		{"layers", required_argument, NULL, 0},
		{"width", required_argument, NULL, 0},
		{"seq", required_argument, NULL, 0},
		{"batch", required_argument, NULL, 0},
		{"heads", required_argument, NULL, 0},
		{"vocab", required_argument, NULL, 0},
		{"dtype", required_argument, NULL, 0},
		{"flops", required_argument, NULL, 0},
		{"time-dist", required_argument, NULL, 0},
		{"size-dist", required_argument, NULL, 0},
		{"seed", required_argument, NULL, 0},
		{"out", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *keys[64], *values[64];
	size_t n_set = 0;
	const char *out = NULL;
	optind = 1;
	opterr = 0;
	int c, idx;
	while ((c = getopt_long(argc, argv, ":h", longopts, &idx)) != -1) {
		switch (c) {
		case 0:
			if (n_set == 64) {
				fprintf(stderr, "rematsim gen: too many options\n");
				return EXIT_USAGE;
			}
			keys[n_set] = longopts[idx].name;
			values[n_set++] = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			fputs(gen_help, stdout);
			return 0;
		case ':':
			fprintf(stderr, "rematsim gen: option '%s' needs a value\n", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			fprintf(stderr, "rematsim gen: unknown option '%s' (rematsim gen --help)\n",
				argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "rematsim gen: no shape given (linear, residual, unet, transformer)\n");
		return EXIT_USAGE;
	}
	if (optind + 1 < argc) {
		fprintf(stderr, "rematsim gen: one shape only: unexpected '%s'\n", argv[optind + 1]);
		return EXIT_USAGE;
	}
	enum gen_shape shape;
	if (gen_shape_parse(argv[optind], &shape)) {
		fprintf(stderr, "rematsim gen: unknown shape '%s' (known: linear, residual, unet, "
			"transformer)\n", argv[optind]);
		return EXIT_USAGE;
	}
	struct gen_params p;
	struct rs_error err = {0};
	gen_params_default(&p, shape);
	for (size_t i = 0; i < n_set; i++) {
		for (size_t j = 0; j < i; j++)
			if (!strcmp(keys[i], keys[j])) {
				fprintf(stderr, "rematsim gen: --%s given twice\n", keys[i]);
				return EXIT_USAGE;
			}
		if (gen_params_set(&p, keys[i], values[i], &err)) {
			fprintf(stderr, "rematsim gen: %s\n", err.msg);
			return EXIT_USAGE;
		}
	}
	if (gen_check(&p, &err)) {
		fprintf(stderr, "rematsim gen: %s\n", err.msg);
		return EXIT_USAGE;
	}
	if (!out || !*out) {
		fprintf(stderr, "rematsim gen: --out FILE is required\n");
		return EXIT_USAGE;
	}

	/* Through the one safe output path (outfile.h): a whole file renamed
	 * into place, a device or FIFO written in place, never replaced. */
	struct outfile o;
	if (outfile_open(&o, out, &err)) {
		fprintf(stderr, "rematsim gen: %s: %s\n", err.file, err.msg);
		return err.status;
	}
	struct sink sk = {.f = o.f};
	if (ends_with(out, ".gz")) {
		/* zlib writes a descriptor of its own: outfile's, duplicated */
		int fd = dup(fileno(o.f));
		sk.gz = fd < 0 ? NULL : gzdopen(fd, "wb6");
		if (!sk.gz) {
			fprintf(stderr, "rematsim gen: cannot create %s: %s\n", out,
				strerror(errno ? errno : ENOMEM));
			if (fd >= 0)
				close(fd);
			outfile_abort(&o);
			return EXIT_CANTCREAT;
		}
	}
	errno = 0;
	int rc = gen_write(&p, sink_write, &sk, &err);
	int wrote_err = errno;
	int closed = sk.gz ? (gzclose(sk.gz) == Z_OK ? 0 : -1) : 0;
	if (rc || closed) {
		int status = rc ? err.status : EXIT_IOERR;
		if (status == EXIT_IOERR)
			fprintf(stderr, "rematsim gen: cannot write %s: %s\n", out,
				strerror(wrote_err ? wrote_err : errno ? errno : EIO));
		else
			fprintf(stderr, "rematsim gen: %s\n", err.msg);
		outfile_abort(&o);
		return status;
	}
	if (outfile_commit(&o, false, &err)) {
		fprintf(stderr, "rematsim gen: %s: %s\n", err.file, err.msg);
		return err.status;
	}
	return 0;
}
