/*
 * fake-main.c: the test-only driver `rematsim-fake`, the experiment
 * commands linked against tests/fake-sim.c instead of the simulator.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "util.h"

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "sweep"))
		return cmd_sweep(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "merge"))
		return cmd_merge(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "plot"))
		return cmd_plot(argc - 1, argv + 1);
	fprintf(stderr, "rematsim-fake: sweep, merge or plot\n");
	return EXIT_USAGE;
}
