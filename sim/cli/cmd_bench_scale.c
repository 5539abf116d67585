/*
 * cmd_bench_scale.c: `rematsim bench --scale`, the runtime at growing log
 * sizes: the paper's uniform chain (x0, then n ops f of time 1 and size 1,
 * then the backward pass, each gradient op releasing what it used) at
 * n = 2^MIN..2^MAX and budgets 2*sqrt(n) and sqrt(n) (rounded up), for
 * the deterministic paper heuristics. Each point runs in a child process
 * (a time limit kills it, the memory limit stops it) whose peak resident
 * memory is measured from the replay's start (the schedule included, the
 * log's text not). A benchmark: it prints measured figures, it tests
 * nothing. docs/scale.md holds figures measured with it.
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
#include "heuristics.h"
#include "runtime.h"
#include "schedule.h"
#include "util.h"

static const char scale_help[] =
	"usage: rematsim bench --scale [--min-log2 K] [--max-log2 K] [--heuristic H[,H...]]\n"
	"                      [--budget 2sqrt|sqrt|both] [--overhead-limit L] [--timeout S]\n"
	"\n"
	"Replay the uniform chain (n forward ops of time 1 and size 1, then the\n"
	"backward pass: 2n+2 ops) at n = 2^K for K from --min-log2 (10) to\n"
	"--max-log2 (16; up to 22) in steps of 2, at budgets ceil(2*sqrt(n)) and\n"
	"ceil(sqrt(n)) bytes, under V2EagerOptimized, for DTR, DTREqClass,\n"
	"DTRLocal, MSPS, LRU and LargestStorage (this one up to n = 2^13 only: its\n"
	"evaluations grow about as n^2.5). Each point runs in its own process;\n"
	"one past --timeout seconds (default 600) is killed and shown as such.\n"
	"The overhead limit defaults to 'inf' (every point runs to its end).\n"
	"Per point: outcome, wall and CPU seconds of the replay, peak resident memory\n"
	"from the replay's start (schedule included, log text not), commands\n"
	"replayed, evictions, heuristic evaluations and metadata accesses, and\n"
	"CPU nanoseconds per (command + evaluation + access).\n";

static const char *const default_heuristics[] = {
	"DTR", "DTREqClass", "DTRLocal", "MSPS", "LRU", "LargestStorage",
};

/* The uniform chain's log text (gives it). */
static char *chain_text(uint32_t n, size_t *len_out)
{
	size_t cap = (size_t)n * 560 + 4096, len = 0;
	char *t = xmalloc(cap);
#define PUT(...) (len += (size_t)snprintf(t + len, cap - len, __VA_ARGS__))
	PUT("{\"ANNOTATION\":\"START\",\"INSTRUCTION\":\"ANNOTATE\"}\n"
	    "{\"INSTRUCTION\":\"CONSTANT\",\"NAME\":\"x0\"}\n"
	    "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"1\",\"NAME\":\"x0\"}\n");
	for (uint32_t i = 1; i <= n; i++)
		PUT("{\"ARGS\":[\"x%u\"],\"INSTRUCTION\":\"CALL\",\"NAME\":\"f\",\"RESULT\":[\"x%u\"],\"TIME\":\"1\"}\n"
		    "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"1\",\"NAME\":\"x%u\"}\n"
		    "{\"ALIAS\":\"-1\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"x%u\"}\n", i - 1, i, i, i);
	PUT("{\"ANNOTATION\":\"BACKWARD\",\"INSTRUCTION\":\"ANNOTATE\"}\n"
	    "{\"ARGS\":[\"x%u\"],\"INSTRUCTION\":\"CALL\",\"NAME\":\"loss\",\"RESULT\":[\"g%u\"],\"TIME\":\"1\"}\n"
	    "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"1\",\"NAME\":\"g%u\"}\n"
	    "{\"ALIAS\":\"-1\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"g%u\"}\n", n, n, n, n);
	for (uint32_t i = n; i >= 1; i--)
		PUT("{\"ARGS\":[\"x%u\",\"g%u\"],\"INSTRUCTION\":\"CALL\",\"NAME\":\"f_backward\",\"RESULT\":[\"g%u\"],\"TIME\":\"1\"}\n"
		    "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"1\",\"NAME\":\"g%u\"}\n"
		    "{\"ALIAS\":\"-1\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"g%u\"}\n"
		    "{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"g%u\"}\n"
		    "{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"x%u\"}\n", i - 1, i, i - 1, i - 1, i - 1, i, i);
#undef PUT
	if (len >= cap)
		rs_bug("chain text of %u ops overflowed its buffer", n);
	*len_out = len;
	return t;
}

/* Peak resident memory (VmHWM) in KiB, or 0 if unknown; reset_peak makes
 * the peak the current resident memory (Linux 4.0+). */
static long peak_rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, "VmHWM:", 6))
			kib = strtol(line + 6, NULL, 10);
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

struct scale_point {
	int rc;
	struct point_result pr;
	long rss_kib;
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
		double c0 = cpu_seconds();
		p.rc = point_run(s, b, pc, &p.pr, &err);
		p.cpu_s = cpu_seconds() - c0;
		p.rss_kib = peak_rss_kib();
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

int bench_scale(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"scale", no_argument, NULL, 'S'},
		{"min-log2", required_argument, NULL, 'a'},
		{"max-log2", required_argument, NULL, 'z'},
		{"heuristic", required_argument, NULL, 'H'},
		{"budget", required_argument, NULL, 'b'},
		{"overhead-limit", required_argument, NULL, 'l'},
		{"timeout", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int kmin = 10, kmax = 16;
	unsigned timeout = 600;
	double limit = INFINITY;
	bool want2 = true, want1 = true;
	const char *names[64];
	size_t n_names = 0;
	char *hlist = NULL;
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		char *end = NULL;
		switch (c) {
		case 'S': break;
		case 'a': kmin = (int)strtol(optarg, &end, 10); break;
		case 'z': kmax = (int)strtol(optarg, &end, 10); break;
		case 'H': free(hlist); hlist = xstrdup(optarg); break;
		case 'b':
			want2 = !strcmp(optarg, "2sqrt") || !strcmp(optarg, "both");
			want1 = !strcmp(optarg, "sqrt") || !strcmp(optarg, "both");
			if (!want1 && !want2) {
				fprintf(stderr, "rematsim bench --scale: --budget wants 2sqrt, sqrt or both\n");
				return EXIT_USAGE;
			}
			break;
		case 'l':
			limit = !strcmp(optarg, "inf") ? INFINITY : strtod(optarg, &end);
			if (!(limit >= 1)) {
				fprintf(stderr, "rematsim bench --scale: --overhead-limit wants a number >= 1 or 'inf'\n");
				return EXIT_USAGE;
			}
			break;
		case 't': timeout = (unsigned)strtoul(optarg, &end, 10); break;
		case 'h': fputs(scale_help, stdout); free(hlist); return 0;
		default:
			fprintf(stderr, "rematsim bench --scale: bad option '%s'\n", argv[optind - 1]);
			fputs(scale_help, stderr);
			free(hlist);
			return EXIT_USAGE;
		}
		if (end && *end) {
			fprintf(stderr, "rematsim bench --scale: '%s' is not a number\n", optarg);
			free(hlist);
			return EXIT_USAGE;
		}
	}
	if (optind != argc || kmin < 1 || kmax > 22 || kmin > kmax || timeout == 0) {
		fprintf(stderr, "rematsim bench --scale: want 1 <= --min-log2 <= --max-log2 <= 22 and a "
				"positive --timeout\n");
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

	printf("# uniform chain, V2EagerOptimized, overhead limit %g, timeout %u s per point\n", limit, timeout);
	printf("# ns/unit: CPU nanoseconds per (command + evaluation + access)\n");
	printf("%8s %8s %6s %-14s %-7s %9s %9s %8s %9s %12s %14s %16s %8s\n", "n", "ops", "budget", "heuristic",
	       "outcome", "wall_s", "cpu_s", "rss_MB", "commands", "evictions", "evaluations", "accesses",
	       "ns/unit");
	for (int k = kmin; k <= kmax; k += 2) {
		uint32_t n = 1u << k;
		size_t len;
		char *text = chain_text(n, &len);
		struct schedule *s = NULL;
		struct rs_error err;
		struct read_options ropt = {0};
		char name[64];
		snprintf(name, sizeof name, "chain-%u.log", n);
		if (schedule_parse(name, text, len, &ropt, &s, &err) < 0)
			rs_bug("the generated chain was refused: %s", err.msg);
		free(text);
		malloc_trim(0);
		struct baseline b;
		baseline_run(s, &b);
		for (int which = 0; which < 2; which++) {
			if (which == 0 ? !want2 : !want1)
				continue;
			uint64_t budget = (uint64_t)ceil((which == 0 ? 2.0 : 1.0) * sqrt((double)n));
			for (size_t h = 0; h < n_names; h++) {
				const struct heuristic *heur = heuristic_find(names[h]);
				if (!strcmp(heur->name, "LargestStorage") && k > 13 && !hlist)
					continue;
				struct point_config pc = {
					.heuristic = heur, .runtime = RUNTIME_V2_EAGER_OPTIMIZED,
					.budget = budget, .overhead_limit = limit,
				};
				struct scale_point p;
				int status = 0;
				int r = run_child(s, &b, &pc, timeout, &p, &status);
				printf("%8u %8zu %6llu %-14s ", n, s->n_ops, (unsigned long long)budget, heur->name);
				if (r < 0) {
					printf("cannot start a process: %s\n", strerror(errno));
					continue;
				}
				if (r > 0 || p.rc) {
					if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
						printf("timeout (over %u s)\n", timeout);
					else if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_NOMEM)
						printf("memory limit reached\n");
					else if (WIFSIGNALED(status))
						printf("killed by signal %d\n", WTERMSIG(status));
					else
						printf("failed (status %d)\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
					fflush(stdout);
					continue;
				}
				const struct runtime_result *res = &p.pr.run;
				uint64_t cmds = res->outcome == OUTCOME_PASS ? s->n_cmds : res->stopped_at + 1;
				double units = (double)cmds + (double)res->heuristic_evals + (double)res->heuristic_accesses;
				printf("%-7s %9.3f %9.3f %8.1f %9llu %12llu %14llu %16llu %8.2f\n",
				       outcome_name(res->outcome), p.pr.wall_ms / 1e3, p.cpu_s,
				       (double)p.rss_kib / 1024.0, (unsigned long long)cmds,
				       (unsigned long long)res->evictions, (unsigned long long)res->heuristic_evals,
				       (unsigned long long)res->heuristic_accesses, p.cpu_s * 1e9 / units);
				fflush(stdout);
			}
		}
		schedule_free(s);
	}
	free(hlist);
	return 0;
}
