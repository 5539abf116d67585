/*
 * main.c: `rematsim COMMAND [ARGS...]`, a table of subcommands.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "config.h"
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
};

static void usage(FILE *f)
{
	fprintf(f, "usage: rematsim COMMAND [ARGS...]\n\n"
		   "Replay recorded op logs of training iterations under memory budgets.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'rematsim COMMAND --help' describes each command.\n"
		   "Exit status: 0 success, 64 usage, 65 bad data, 66 missing input,\n"
		   "73 cannot create output, 74 I/O error, 70 internal error.\n");
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
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "rematsim: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	return close_stdout(run(argc, argv));
}
