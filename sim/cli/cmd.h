/*
 * cmd.h: the subcommands of `rematsim`, one function each, registered in
 * main.c's table. Each parses its own options, prints its own --help, and
 * returns an exit status (0, or an EXIT_* of util.h).
 */
#ifndef REMATSIM_CMD_H
#define REMATSIM_CMD_H

int cmd_info(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_bench(int argc, char **argv);
/* `bench --scale` (cmd_bench_scale.c), which cmd_bench hands over to. */
int bench_scale(int argc, char **argv);
/* The experiment layer (docs/experiments.md). */
int cmd_sweep(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_plot(int argc, char **argv);

#endif
