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
/* Questions about one log (docs/questions.md). */
int cmd_peak(int argc, char **argv);
int cmd_fit(int argc, char **argv);
/* `bench --scale` (cmd_bench_scale.c), which cmd_bench hands over to. */
int bench_scale(int argc, char **argv);
/* The benchmarks' first line: "# machine: MODEL, N processors" (the
 * processor's model from /proc/cpuinfo), so that figures of two machines
 * are not set side by side unawares (cmd_bench.c). */
void bench_print_machine(void);
/* The experiment layer (docs/experiments.md). */
int cmd_sweep(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_plot(int argc, char **argv);
/* Static checkpoint plans (docs/solvers.md). */
int cmd_profile(int argc, char **argv);
int cmd_solve(int argc, char **argv);
/* `solve --planner knapsack` (cmd_solve_knapsack.c). */
int cmd_solve_knapsack(int argc, char **argv);
/* `solve --modules` and `solve --splits` (cmd_solve_modules.c), which
 * cmd_solve hands over to with its options. */
#include <stdbool.h>
#include <stdint.h>
#include "schedule.h"
struct planner;
struct solve_module_opts {
	const char *log;
	const struct planner *pl; /* NULL with splits */
	uint64_t param;           /* the planner's -k or --segment-budget */
	uint64_t budget;          /* --budget, when have_budget (dp: the smallest k that fits) */
	bool have_budget;
	const char *splits;       /* --splits A,B,...: forward-op indices or module names */
	bool modules, exact, replay, check, json;
	long depth;               /* --depth N: plans of the calls at depth N (-1: any) */
	const char *within;       /* --within NAME: of the direct children of NAME */
	bool min_peak;            /* --min-peak: every k, the smallest replayed peak */
	struct read_options ropt;
};
int solve_modules(const struct solve_module_opts *o);
/** A plan's replay as JSON, its reals null where not finite (cmd_solve.c;
 * solve's and solve --modules' "replay" object). */
struct plan_result;
struct baseline;
struct json_t *plan_replay_json(const struct plan_result *res, const struct baseline *base);
/* Synthetic logs (docs/gen.md). */
int cmd_gen(int argc, char **argv);
/* Sweeps on a Slurm cluster (docs/slurm.md). */
int cmd_slurm(int argc, char **argv);
/* Measured runs of the DTR prototype against their logs (docs/validation.md). */
int cmd_measured(int argc, char **argv);
/* PyTorch CUDA memory snapshots through the allocator model (docs/allocator.md). */
int cmd_snapshot(int argc, char **argv);

/* The options several commands share, and their values: cmd_opts.h. */
/** "rematsim CMD: " and the message (printf's fmt), then the command's
 * help, on stderr: returns EXIT_USAGE (cmd_opts.c). */
int usage_error(const char *cmd, const char *help, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Shared by the commands that take a LOG (archive.c). */
#include <stdbool.h>
#include <stdio.h>
/** List the models of a bare ARCHIVE.zip on out (one JSON object a line
 * with json) as `rematsim info ARCHIVE.zip` does; 0 or an exit status. */
int list_archive(const char *path, bool json, FILE *out);
/** Whether spec names a whole archive (ARCHIVE.zip), not one log. */
bool log_is_archive(const char *spec);
/** One JSON object (jansson's json_t) as a line on standard output, its
 * reals in the shortest text that reads back exactly (cmd_json.c). */
struct json_t;
void put_json_line(struct json_t *o);

/* JSON of unsigned 64-bit values (cmd_json.c): jansson's integers are
 * signed, so a value above 2^63 - 1 goes in as cmd_json_u64 and the
 * dumped text through cmd_json_text. */
#include <jansson.h>
#include <stdint.h>
/** v as a JSON value: an integer, or above INT64_MAX a mark for cmd_json_text. */
json_t *cmd_json_u64(uint64_t v);
/** s as a JSON string; bytes that are not UTF-8 (a file name) as U+FFFD
 * (jansson refuses them: the key, or the whole object, went missing). */
json_t *cmd_json_str(const char *s);
/** x as a JSON number, or null when not finite (JSON has no infinity;
 * jansson refuses one, and json_pack then drops the whole object). */
json_t *cmd_json_finite(double x);
/** Text of json_dumps with each cmd_json_u64 mark written as its number
 * (in place; returns text, NULL for NULL). */
char *cmd_json_text(char *text);

#endif
