/*
 * cmd_opts.h: the command-line options that replay, peak, fit, solve and
 * bench share (heuristic, runtime, ratio, budget, overhead limit, seed),
 * parsed, checked and reported the same way for each, and the loop every
 * command runs its own options through.
 *
 * A command puts the shared options' rows (OPT_ROW_*) in its longopts
 * beside its own and calls opt_next instead of getopt_long: opt_next
 * takes the shared options itself and returns the command's own, one at
 * a time. Rules every command then keeps:
 *   - an option with a value given twice is refused (status 64), never
 *     silently overridden; a flag given twice is the flag once;
 *   - an option without its value, or an unknown one, gets one message
 *     and the command's help on stderr (status 64);
 *   - names are read in any case; an unknown heuristic or runtime gets
 *     the nearest name and the lists, from the registries.
 * Adding an option to one command: a longopts row and a case in its
 * switch. Adding a shared one: an enum value, a row macro, a case in
 * opt_next (cmd_opts.c).
 */
#ifndef REMATSIM_CMD_OPTS_H
#define REMATSIM_CMD_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "runtime.h"

/* getopt_long values of the shared options (above any character). */
enum opt_id {
	OPT_HEURISTIC = 0x100,
	OPT_RUNTIME,
	OPT_RATIO,
	OPT_BUDGET,
	OPT_OVERHEAD_LIMIT,
	OPT_SEED,
	OPT_ID_END
};
/* opt_next's answer for a usage error it has reported: return p->status. */
#define OPT_FAIL (-2)

#define OPT_ROW_HEURISTIC {"heuristic", required_argument, NULL, OPT_HEURISTIC}
#define OPT_ROW_RUNTIME {"runtime", required_argument, NULL, OPT_RUNTIME}
#define OPT_ROW_RATIO {"ratio", required_argument, NULL, OPT_RATIO}
#define OPT_ROW_BUDGET {"budget", required_argument, NULL, OPT_BUDGET}
#define OPT_ROW_OVERHEAD_LIMIT {"overhead-limit", required_argument, NULL, OPT_OVERHEAD_LIMIT}
#define OPT_ROW_SEED {"seed", required_argument, NULL, OPT_SEED}

/* The runtime of a command that names none. */
#define OPT_DEFAULT_RUNTIME RUNTIME_V2_EAGER_OPTIMIZED
/* Keys of options seen: getopt values below OPT_ID_END, then longopts
 * rows of value 0 by their index. */
#define OPT_SEEN_KEYS (OPT_ID_END + 256)
/* Values one --ratio or --budget may list. */
#define OPT_MAX_VALUES 1024

struct heuristic;

struct opt_parser {
	/* The command: its name ("replay") and help (printed after a usage
	 * error), and how many values its --ratio and --budget take (1: one). */
	const char *cmd;
	const char *help;
	int max_values;
	/* The shared options: their defaults, then what was given. */
	const char *hname, *rname;  /* NULL: not given */
	double ratios[OPT_MAX_VALUES];
	uint64_t budgets[OPT_MAX_VALUES];
	int n_ratios, n_budgets;
	double overhead_limit;      /* 2 */
	uint64_t seed;              /* 0 */
	bool has_seed, has_limit;
	/* Set by opt_resolve. */
	const struct heuristic *heuristic;
	enum runtime_kind runtime;
	/* After OPT_FAIL: the exit status. */
	int status;
	/* private: the options with a value given so far (opt_seen_key) */
	bool seen[OPT_SEEN_KEYS];
	char shortopts[64];
};

/**
 * For commands that parse with getopt_long themselves: a first pass over
 * argv that refuses an option with a value given twice (cmd_opts.h's
 * rule), leaving every other problem to the command's own loop (optind is
 * reset). repeatable: long names, space-separated, that a command collects
 * (slurm's --sbatch), or NULL. 0, or EXIT_USAGE after a message.
 */
int opt_refuse_repeats(const char *cmd, int argc, char **argv, const char *shortopts,
		       const struct option *longopts, const char *repeatable);

/** Ready p for `rematsim cmd` (help: its --help text; borrowed). */
void opt_init(struct opt_parser *p, const char *cmd, const char *help, int max_values);

/**
 * getopt_long over argv with the command's short options and longopts
 * (which hold the OPT_ROW_* rows it takes): the next option of the
 * command's own, -1 at the end (optind then indexes the operands), or
 * OPT_FAIL after a usage error it has reported.
 */
int opt_next(struct opt_parser *p, int argc, char **argv, const char *shortopts,
	     const struct option *longopts);

enum {
	OPT_NEED_HEURISTIC = 1 << 0, /* --heuristic is required */
	OPT_NO_RUNTIME = 1 << 1,     /* the command takes no --runtime: list heuristics only */
};
/**
 * Look the heuristic and runtime names up (p->heuristic: NULL when none
 * was given; p->runtime: the default when none was): 0, or EXIT_USAGE
 * after a message with the nearest name and the lists.
 */
int opt_resolve(struct opt_parser *p, unsigned flags);

/** Whether the runtime keeps what the heuristic needs: 0, or EXIT_USAGE
 * after a message. */
int opt_check_config(const struct opt_parser *p);

/*
 * The offload options (docs/offload.md), one value for every command that
 * replays (replay, peak, fit): OPT_ROWS_OFFLOAD in its option table,
 * OPT_CASES_OFFLOAD in its switch calling opt_offload_parse, then
 * opt_offload_check after opt_resolve, opt_offload_link once the log is
 * known, and opt_offload_config into point_config.rt.offload. Zeroed: off.
 */
struct opt_offload {
	struct offload_config cfg; /* --offload-*, --host-memory */
	bool on;                   /* a bandwidth other than none */
	const char *extra;         /* an offload option other than the bandwidth */
	bool measured;             /* --offload-bandwidth measured: the log's meta file */
	bool latency;              /* --offload-latency given */
	char *meta;                /* that meta file's path (opt_offload_link) */
	bool cpu_timed;            /* the log's meta file says its op times are a CPU's
				    * (device cpu, no time model): warned (issue 44) */
};
#define OPT_ROWS_OFFLOAD                                             \
	{"offload-bandwidth", required_argument, NULL, 'B'},         \
	{"offload-latency", required_argument, NULL, 'L'},           \
	{"host-memory", required_argument, NULL, 'H'},               \
	{"offload-prefetch", required_argument, NULL, 'A'},          \
	{"offload-policy", required_argument, NULL, 'O'}
#define OPT_CASES_OFFLOAD case 'B': case 'L': case 'H': case 'A': case 'O'
/** One offload option (c: its row's letter): 0, or -1 after a usage message. */
int opt_offload_parse(struct opt_offload *x, const struct opt_parser *p, int c, const char *arg);
/** After opt_resolve: the options together and the runtime's own rules
 * for offload (runtime_check_config): 0, or -1 after a message. */
int opt_offload_check(const struct opt_offload *x, const struct opt_parser *p);
/** --offload-bandwidth measured: read the link of log's meta file; 0 (also
 * when not measured) or an exit status after a message. With a host link,
 * a log whose meta file says it was timed on a CPU (device cpu and no
 * device time model) gets a warning on stderr and x->cpu_timed set. */
int opt_offload_link(struct opt_offload *x, const struct opt_parser *p, const char *log);
/** The runtime's offload configuration: NULL when off. */
const struct offload_config *opt_offload_config(const struct opt_offload *x);
/** The text form: the link's keys of a JSON row (when on), and the
 * "offload: ..." line of a table (when on). */
void opt_offload_json(const struct opt_offload *x, struct json_t *j);
void opt_offload_print(const struct opt_offload *x, FILE *f);
void opt_offload_free(struct opt_offload *x);

/**
 * After opt_resolve: the point the shared options give (heuristic, runtime,
 * seed, overhead limit; the i-th ratio or budget given, 0 if none), the
 * one conversion from the command line to a point (runtime.h); the
 * command adds its own options (no_dealloc, check, proto, offload, hooks).
 */
struct point_config opt_point(const struct opt_parser *p, int i);

/* Single option values, each with one message naming the command. */
/** --overhead-limit: a number >= 1 or inf. */
int opt_overhead_limit(const char *cmd, const char *arg, double *out);
/** A whole number >= 0 in base (0: C's prefixes) for option opt. */
int opt_whole(const char *cmd, const char *opt, const char *arg, int base, uint64_t *out);
/** A count from lo to hi (decimal digits) for option opt. */
int opt_count(const char *cmd, const char *opt, const char *arg, uint64_t lo, uint64_t hi,
	      uint64_t *out);
/** A byte count (8e9, 6GiB) for option opt ("--budget"). */
int opt_bytes(const char *cmd, const char *opt, const char *arg, uint64_t *out);

/** The runtimes' names, ", "-separated, wrapped at width from column
 * indent (the line is at indent when called); no newline at the end. */
void opt_put_runtime_names(FILE *f, int indent, int width);

#endif
