/*
 * main.c: `rematsim COMMAND [ARGS...]`, a table of subcommands.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "config.h"
#include "scalar.h"
#include "util.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{"info", cmd_info, "counts, totals and sizes of op logs"},
	{"check", cmd_check, "validate op logs, reporting every problem"},
	{"replay", cmd_replay, "replay a log under memory budgets (DTR eviction)"},
	{"peak", cmd_peak, "what is live when a replay's memory peaks"},
	{"fit", cmd_fit, "the smallest budget at which a replay passes"},
	{"bench", cmd_bench, "time replays against the reference simulator's"},
	{"sweep", cmd_sweep, "run an experiment's points (YAML) into an output folder"},
	{"merge", cmd_merge, "combine the output folders of sweep shards"},
	{"plot", cmd_plot, "render the figures of a sweep's output folder"},
	{"profile", cmd_profile, "the activation profile of a log's forward ops"},
	{"solve", cmd_solve, "static checkpoint plans: split points, and their replay"},
	{"slurm", cmd_slurm, "run a sweep on a Slurm cluster: job array, then merge"},
	{"gen", cmd_gen, "write a synthetic op log (chain, residual, U-Net, transformer)"},
	{"measured", cmd_measured, "measured runs of the DTR prototype beside replays of their logs"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: rematsim COMMAND [ARGS...]\n\n"
		   "Replay recorded op logs of training iterations under memory budgets.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'rematsim COMMAND --help' describes each command.\n"
		   "Every command takes --memory-limit BYTES (2GiB, 8e9, 'none'): past it a\n"
		   "run stops with status 71 instead of being killed (default: 3/4 of the\n"
		   "machine's physical memory).\n"
		   "Exit status: 0 success, 64 usage, 65 bad data, 66 missing input,\n"
		   "69 a tool it needs is missing (gnuplot, an ILP solver), 70 internal\n"
		   "error, 71 memory limit reached, 73 cannot create output, 74 I/O error.\n");
}

/* Take --memory-limit BYTES (or =BYTES) out of a command's arguments and
 * set the limit (by default 3/4 of physical memory): 0, or EXIT_USAGE. */
static int take_memory_limit(int *argc, char **argv)
{
	uint64_t phys = rs_physical_memory();
	uint64_t limit = phys == UINT64_MAX ? UINT64_MAX : phys / 4 * 3;
	int n = 1;
	bool given = false;
	for (int i = 1; i < *argc; i++) {
		const char *v = NULL;
		if (!strcmp(argv[i], "--")) {
			while (i < *argc)
				argv[n++] = argv[i++];
			break;
		}
		if (!strncmp(argv[i], "--memory-limit=", 15)) {
			v = argv[i] + 15;
		} else if (!strcmp(argv[i], "--memory-limit")) {
			if (i + 1 == *argc) {
				fprintf(stderr, "rematsim: --memory-limit wants a size in bytes (2GiB, 8e9) or 'none'\n");
				return EXIT_USAGE;
			}
			v = argv[++i];
		} else {
			argv[n++] = argv[i];
			continue;
		}
		if (given) {
			fprintf(stderr, "rematsim: --memory-limit given twice (the second time '%s'): "
					"give each option once\n", v);
			return EXIT_USAGE;
		}
		given = true;
		const char *why = NULL;
		if (!strcmp(v, "none") || !strcmp(v, "inf")) {
			limit = UINT64_MAX;
		} else if (scalar_parse_u64(v, &limit, &why) || limit < (1u << 20)) {
			fprintf(stderr, "rematsim: --memory-limit wants a size in bytes of at least 1MiB "
					"(2GiB, 8e9) or 'none', not '%s'%s%s\n", v, why ? ": " : "", why ? why : "");
			return EXIT_USAGE;
		}
	}
	argv[n] = NULL;
	*argc = n;
	if (rs_memory_limit_set(limit))
		fprintf(stderr, "rematsim: warning: the memory limit could not be set\n");
	return 0;
}

/* Flush and close standard output, so that a failed write (a full disk,
 * /dev/full) is reported instead of lost: status 74. (A closed pipe ends
 * the process by SIGPIPE, as for any filter.) */
static int close_stdout(int status)
{
	errno = 0;
	bool bad = fflush(stdout) != 0 || ferror(stdout);
	int e = errno;
	if (fclose(stdout) != 0 && !bad) {
		bad = true;
		e = errno;
	}
	if (!bad)
		return status;
	fprintf(stderr, "rematsim: cannot write the results to standard output: %s\n",
		e ? strerror(e) : "write error");
	return status ? status : EXIT_IOERR;
}

static int run(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("rematsim %s\n", REMATSIM_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			int sub_argc = argc - 1, rc = take_memory_limit(&sub_argc, argv + 1);
			return rc ? rc : commands[i].run(sub_argc, argv + 1);
		}
	}
	fprintf(stderr, "rematsim: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	return close_stdout(run(argc, argv));
}
