/*
 * cmd_bench_scale.c: `rematsim bench --scale`, the runtime at growing log
 * sizes. The logs come from the library's generator (gen.h, the code of
 * `rematsim gen`): the paper's uniform chain (`gen linear --n N`, 2N ops
 * of time 1 and size 1) at n = 2^MIN..2^MAX and budgets 2*sqrt(n) and
 * sqrt(n) bytes (rounded up), and transformer-shaped logs (`gen
 * transformer`, GPT-3's block dimensions at batch 32, 8, 78 and 776 layers: about
 * 10^4, 10^5 and 10^6 ops) at ratios 0.2..0.9 of their baseline memory,
 * for the deterministic paper heuristics. Each point runs in a child
 * process (a time limit kills it, the memory limit stops it) whose peak
 * resident memory is measured from the replay's start (the schedule
 * included, the log's text not). A benchmark: it prints measured figures,
 * it tests nothing. docs/scale.md holds figures measured with it.
 */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_opts.h"
#include "gen.h"
#include "heuristics.h"
#include "runtime.h"
#include "schedule.h"
#include "util.h"

static const char scale_help[] =
	"usage: rematsim bench --scale [--shape chain|transformer|both] [--min-log2 K] [--max-log2 K]\n"
	"                      [--budget 2sqrt|sqrt|both] [--min-log10 K] [--max-log10 K]\n"
	"                      [--ratio R[,R...]] [--heuristic H[,H...]] [--overhead-limit L]\n"
	"                      [--timeout S]\n"
	"\n"
	"Replay logs of growing size written by the generator of `rematsim gen`,\n"
	"under V2EagerOptimized, for DTR, DTREqClass, DTRLocal, MSPS, LRU and\n"
	"LargestStorage (or the --heuristic list):\n"
	"  chain        `gen linear --n N` (2N ops of time 1 and size 1) at\n"
	"               n = 2^K for K from --min-log2 (10) to --max-log2 (16; up\n"
	"               to 22) in steps of 2, at budgets ceil(2*sqrt(n)) and\n"
	"               ceil(sqrt(n)) bytes (--budget); LargestStorage up to\n"
	"               n = 2^13 only unless named (its evaluations grow about\n"
	"               as n^2.5);\n"
	"  transformer  `gen transformer --layers L --batch 32` with its default\n"
	"               (GPT-3 block) dimensions, L = 8, 78, 776 for 10,317,\n"
	"               100,477 and 999,501 ops (about 10^K),\n"
	"               K from --min-log10 (4) to --max-log10 (4; up to 6), at\n"
	"               ratios 0.2, 0.3, ..., 0.9 of the baseline memory\n"
	"               (--ratio).\n"
	"--shape picks one (default: both). Each point runs in its own process;\n"
	"one past --timeout seconds (default 600) is killed and shown as such.\n"
	"The overhead limit defaults to 'inf' (every point runs to its end).\n"
	"Per point: outcome, wall and CPU seconds of the replay, peak resident memory\n"
	"from the replay's start (schedule included, log text not) and the resident\n"
	"memory at its start (base_MB: the schedule and the process), commands\n"
	"replayed, evictions, heuristic evaluations and metadata accesses, and\n"
	"CPU nanoseconds per (command + evaluation + access).\n";

/* Transformer depths for about 10^4, 10^5, 10^6 ops: at the default
 * dimensions (96 heads) a layer records 1,288 ops (forward, backward and
 * its 12 weights) and the rest 13, so L layers give 1,288 L + 13 ops. */
static const unsigned transformer_layers[] = {8, 78, 776};
/* Batch 32 (65,536 tokens) makes the activations some 93% of the
 * baseline memory (the weights, constants, the rest), so every ratio from
 * 0.2 up leaves room to evict; at batch 1 the weights alone are half. */
static const unsigned transformer_batch = 32;

static const char *const default_heuristics[] = {
	"DTR", "DTREqClass", "DTRLocal", "MSPS", "LRU", "LargestStorage",
};

/* A generated log's schedule (gives it); exits on failure, which would
 * be a bug of the generator or the reader. */
static struct schedule *gen_schedule(const struct gen_params *gp, const char *name)
{
	struct rs_error err;
	struct schedule *s = NULL;
	struct read_options ropt = {0};
	if (gen_build(gp, name, &ropt, &s, &err) < 0)
		rs_bug("cannot generate %s: %s", name, err.msg);
	malloc_trim(0);
	return s;
}

/* A field of /proc/self/status in KiB ("VmHWM:", the peak resident
 * memory; "VmRSS:", the current), or 0 if unknown; reset_peak makes the
 * peak the current resident memory (Linux 4.0+). */
static long status_kib(const char *field)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, field, strlen(field)))
			kib = strtol(line + strlen(field), NULL, 10);
	fclose(f);
	return kib;
}

static void reset_peak(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");
	if (f) {
		fputs("5", f);
		fclose(f);
	}
}

struct scale_opts {
	unsigned timeout;
	double limit;
};

struct scale_point {
	int rc;
	struct point_result pr;
	long rss_kib;  /* peak resident memory of the replay */
	long base_kib; /* resident memory at its start: the schedule, mostly */
	double cpu_s; /* the replay's CPU time (user + system) */
};

static double cpu_seconds(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

/* One point in a child process: 0 with *out filled, or the child's end
 * (as a wait status) in *status. */
static int run_child(const struct schedule *s, const struct baseline *b, const struct point_config *pc,
		     unsigned timeout, struct scale_point *out, int *status)
{
	int fd[2];
	if (pipe(fd))
		return -1;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(fd[0]);
		alarm(timeout);
		struct scale_point p = {0};
		struct rs_error err;
		reset_peak();
		p.base_kib = status_kib("VmRSS:");
		double c0 = cpu_seconds();
		p.rc = point_run(s, b, pc, &p.pr, &err);
		p.cpu_s = cpu_seconds() - c0;
		p.rss_kib = status_kib("VmHWM:");
		ssize_t w = write(fd[1], &p, sizeof p);
		_exit(w == (ssize_t)sizeof p ? 0 : EXIT_IOERR);
	}
	close(fd[1]);
	size_t got = 0;
	while (got < sizeof *out) {
		ssize_t r = read(fd[0], (char *)out + got, sizeof *out - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd[0]);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	return got == sizeof *out && WIFEXITED(*status) && WEXITSTATUS(*status) == 0 ? 0 : 1;
}

/* Run one point in a child and print its row. */
static void scale_row(const struct schedule *s, const struct baseline *b, const char *log,
		      const char *ratio, const struct heuristic *heur, const struct scale_opts *o,
		      struct point_config *pc)
{
	struct scale_point p;
	int status = 0;
	pc->rt.heuristic = heur;
	pc->rt.runtime = RUNTIME_V2_EAGER_OPTIMIZED;
	pc->overhead_limit = o->limit;
	int r = run_child(s, b, pc, o->timeout, &p, &status);
	printf("%-16s %8zu %5s %12llu %-14s ", log, s->n_ops, ratio,
	       (unsigned long long)point_budget(b, pc), heur->name);
	if (r < 0) {
		printf("cannot start a process: %s\n", strerror(errno));
		return;
	}
	if (r > 0 || p.rc) {
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
			printf("timeout (over %u s)\n", o->timeout);
		else if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_NOMEM)
			printf("memory limit reached\n");
		else if (WIFSIGNALED(status))
			printf("killed by signal %d\n", WTERMSIG(status));
		else
			printf("failed (status %d)\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		fflush(stdout);
		return;
	}
	const struct runtime_result *res = &p.pr.run;
	uint64_t cmds = res->outcome == OUTCOME_PASS ? s->n_cmds : res->stopped_at + 1;
	double units = (double)cmds + (double)res->heuristic_evals + (double)res->heuristic_accesses;
	printf("%-7s %9.3f %9.3f %8.1f %8.1f %9llu %12llu %14llu %16llu %8.3g\n", outcome_name(res->outcome),
	       p.pr.wall_ms / 1e3, p.cpu_s, (double)p.rss_kib / 1024.0, (double)p.base_kib / 1024.0, (unsigned long long)cmds,
	       (unsigned long long)res->evictions, (unsigned long long)res->heuristic_evals,
	       (unsigned long long)res->heuristic_accesses, p.cpu_s * 1e9 / units);
	fflush(stdout);
}

/* Parse "0.2,0.5" into ratios in (0, 1]; the count, or 0 if malformed. */
static size_t parse_ratios(const char *text, double *out, size_t max)
{
	size_t n = 0;
	const char *p = text;
	while (*p) {
		char *end;
		errno = 0;
		double r = strtod(p, &end);
		if (end == p || errno || !(r > 0 && r <= 1) || n == max || (*end && *end != ','))
			return 0;
		out[n++] = r;
		p = *end ? end + 1 : end;
		if (*end && !*p)
			return 0;
	}
	return n;
}

/* A whole number of at most 9 digits (no sign), or -1 with *end at the
 * first byte that is not one (the caller's 'not a number'). */
static int small_whole(const char *s, char **end)
{
	size_t n = strspn(s, "0123456789");
	*end = (char *)s + n;
	if (!n || s[n] || n > 9) {
		if (!**end)
			*end = (char *)s; /* too long: not a number we take */
		return -1;
	}
	return (int)strtol(s, NULL, 10);
}

int bench_scale(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"scale", no_argument, NULL, 'S'},
		{"shape", required_argument, NULL, 's'},
		{"min-log2", required_argument, NULL, 'a'},
		{"max-log2", required_argument, NULL, 'z'},
		{"min-log10", required_argument, NULL, 'A'},
		{"max-log10", required_argument, NULL, 'Z'},
		{"ratio", required_argument, NULL, 'r'},
		{"heuristic", required_argument, NULL, 'H'},
		{"budget", required_argument, NULL, 'b'},
		{"overhead-limit", required_argument, NULL, 'l'},
		{"timeout", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int kmin = 10, kmax = 16, tmin = 4, tmax = 4;
	struct scale_opts o = {.timeout = 600, .limit = INFINITY};
	bool want2 = true, want1 = true, chain = true, transformer = true;
	double ratios[32] = {0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9};
	size_t n_ratios = 8;
	const char *names[64];
	size_t n_names = 0;
	char *hlist = NULL;
	/* an option with a value given twice is refused (cmd_opts.h) */
	if (opt_refuse_repeats("bench --scale", argc, argv, "h", longopts, NULL))
		return EXIT_USAGE;
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		char *end = NULL;
		switch (c) {
		case 'S': break;
		case 's':
			chain = !strcmp(optarg, "chain") || !strcmp(optarg, "both");
			transformer = !strcmp(optarg, "transformer") || !strcmp(optarg, "both");
			if (!chain && !transformer) {
				fprintf(stderr, "rematsim bench --scale: --shape wants chain, transformer or both\n");
				free(hlist);
				return EXIT_USAGE;
			}
			break;
		/* (whole numbers checked before they are narrowed: -1 or 2^32 + 1
		 * would wrap into range) */
		case 'a': kmin = small_whole(optarg, &end); break;
		case 'z': kmax = small_whole(optarg, &end); break;
		case 'A': tmin = small_whole(optarg, &end); break;
		case 'Z': tmax = small_whole(optarg, &end); break;
		case 'r':
			n_ratios = parse_ratios(optarg, ratios, sizeof ratios / sizeof *ratios);
			if (!n_ratios) {
				fprintf(stderr, "rematsim bench --scale: --ratio wants numbers in (0, 1] separated "
						"by commas (at most 32), not '%s'\n", optarg);
				free(hlist);
				return EXIT_USAGE;
			}
			break;
		case 'H': free(hlist); hlist = xstrdup(optarg); break;
		case 'b':
			want2 = !strcmp(optarg, "2sqrt") || !strcmp(optarg, "both");
			want1 = !strcmp(optarg, "sqrt") || !strcmp(optarg, "both");
			if (!want1 && !want2) {
				fprintf(stderr, "rematsim bench --scale: --budget wants 2sqrt, sqrt or both\n");
				free(hlist);
				return EXIT_USAGE;
			}
			break;
		case 'l':
			o.limit = !strcmp(optarg, "inf") ? INFINITY : strtod(optarg, &end);
			if (!(o.limit >= 1)) {
				fprintf(stderr, "rematsim bench --scale: --overhead-limit wants a number >= 1 or 'inf'\n");
				free(hlist);
				return EXIT_USAGE;
			}
			break;
		case 't': o.timeout = (unsigned)small_whole(optarg, &end); break;
		case 'h': fputs(scale_help, stdout); free(hlist); return 0;
		default:
			fprintf(stderr, "rematsim bench --scale: bad option '%s'\n", argv[optind - 1]);
			fputs(scale_help, stderr);
			free(hlist);
			return EXIT_USAGE;
		}
		if (end && *end) {
			fprintf(stderr, "rematsim bench --scale: '%s' is not a %s\n", optarg,
				strchr("azAZt", c) ? "whole number (at most 9 digits)" : "number");
			free(hlist);
			return EXIT_USAGE;
		}
	}
	if (optind != argc || kmin < 1 || kmax > 22 || kmin > kmax || o.timeout < 1 || tmin < 4 ||
	    tmax > 6 || tmin > tmax) {
		fprintf(stderr, "rematsim bench --scale: want 1 <= --min-log2 <= --max-log2 <= 22, "
				"4 <= --min-log10 <= --max-log10 <= 6 and a positive --timeout\n");
		free(hlist);
		return EXIT_USAGE;
	}
	if (hlist) {
		for (char *tok = strtok(hlist, ","); tok && n_names < 64; tok = strtok(NULL, ",")) {
			if (!heuristic_find(tok)) {
				fprintf(stderr, "rematsim bench --scale: unknown heuristic '%s'\n", tok);
				free(hlist);
				return EXIT_USAGE;
			}
			names[n_names++] = tok;
		}
	} else {
		for (size_t i = 0; i < sizeof default_heuristics / sizeof *default_heuristics; i++)
			names[n_names++] = default_heuristics[i];
	}

	bench_print_machine();
	printf("# V2EagerOptimized, overhead limit %g, timeout %u s per point\n", o.limit, o.timeout);
	printf("# chain-N: rematsim gen linear --n N; transformer-L: rematsim gen transformer --layers L\n");
	printf("# ns/unit: CPU nanoseconds per (command + evaluation + access)\n");
	printf("%-16s %8s %5s %12s %-14s %-7s %9s %9s %8s %8s %9s %12s %14s %16s %8s\n", "log", "ops",
	       "ratio", "budget", "heuristic", "outcome", "wall_s", "cpu_s", "rss_MB", "base_MB", "commands", "evictions",
	       "evaluations", "accesses", "ns/unit");
	for (int k = kmin; chain && k <= kmax; k += 2) {
		uint32_t n = 1u << k;
		struct gen_params gp;
		gen_params_default(&gp, GEN_LINEAR);
		gp.n = n;
		char name[64];
		snprintf(name, sizeof name, "chain-%u", n);
		struct schedule *s = gen_schedule(&gp, name);
		struct baseline b;
		baseline_run(s, &b);
		/* What the reader and the baseline freed goes back to the
		 * system: a point's base is then the schedule alone. */
		malloc_trim(0);
		for (int which = 0; which < 2; which++) {
			if (which == 0 ? !want2 : !want1)
				continue;
			uint64_t budget = (uint64_t)ceil((which == 0 ? 2.0 : 1.0) * sqrt((double)n));
			for (size_t h = 0; h < n_names; h++) {
				const struct heuristic *heur = heuristic_find(names[h]);
				if (!strcmp(heur->name, "LargestStorage") && k > 13 && !hlist)
					continue;
				struct point_config pc = {.budget = budget};
				scale_row(s, &b, name, "-", heur, &o, &pc);
			}
		}
		schedule_free(s);
	}
	for (int k = tmin; transformer && k <= tmax; k++) {
		struct gen_params gp;
		gen_params_default(&gp, GEN_TRANSFORMER);
		gp.layers = transformer_layers[k - 4];
		gp.batch = transformer_batch;
		/* GPT-3's block, as docs/scale.md measured (no longer gen's defaults) */
		gp.width = 12288;
		gp.heads = 96;
		gp.seq = 2048;
		char name[64];
		snprintf(name, sizeof name, "transformer-%u", transformer_layers[k - 4]);
		struct schedule *s = gen_schedule(&gp, name);
		struct baseline b;
		baseline_run(s, &b);
		malloc_trim(0);
		for (size_t h = 0; h < n_names; h++) {
			const struct heuristic *heur = heuristic_find(names[h]);
			for (size_t i = 0; i < n_ratios; i++) {
				char rt[16];
				snprintf(rt, sizeof rt, "%.2f", ratios[i]);
				struct point_config pc = {.ratio = ratios[i]};
				scale_row(s, &b, name, rt, heur, &o, &pc);
			}
		}
		schedule_free(s);
	}
	free(hlist);
	return 0;
}
