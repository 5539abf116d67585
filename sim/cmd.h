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

#endif
