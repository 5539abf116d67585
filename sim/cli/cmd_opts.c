/*
 * cmd_opts.c: see cmd_opts.h. One parser and one message for each option
 * several commands take, so the commands agree; the lists of names in
 * messages and help come from the registries (heuristics.c, runtimes.c).
 */
#include "cmd_opts.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "heuristics.h"
#include "scalar.h"
#include "util.h"

int opt_overhead_limit(const char *cmd, const char *arg, double *out)
{
	const char *why;
	if (scalar_parse_double(arg, out, &why) || !(*out >= 1)) {
		fprintf(stderr, "rematsim %s: --overhead-limit wants a number >= 1 or 'inf', not '%s'\n",
			cmd, arg);
		return EXIT_USAGE;
	}
	return 0;
}

int opt_whole(const char *cmd, const char *opt, const char *arg, int base, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(arg, &end, base);
	if (end == arg || *end || errno || *arg == '-') {
		fprintf(stderr, "rematsim %s: %s wants a non-negative integer, not '%s'\n", cmd, opt, arg);
		return EXIT_USAGE;
	}
	*out = v;
	return 0;
}

int opt_count(const char *cmd, const char *opt, const char *arg, uint64_t lo, uint64_t hi,
	      uint64_t *out)
{
	uint64_t v = 0;
	bool ok = *arg != '\0';
	for (const char *p = arg; *p && ok; p++) {
		unsigned d = (unsigned)(*p - '0');
		ok = *p >= '0' && *p <= '9' && v <= (UINT64_MAX - d) / 10;
		v = v * 10 + d;
	}
	if (!ok || v < lo || v > hi) {
		fprintf(stderr, "rematsim %s: %s wants a number from %llu to %llu, not '%s'\n", cmd, opt,
			(unsigned long long)lo, (unsigned long long)hi, arg);
		return EXIT_USAGE;
	}
	*out = v;
	return 0;
}

/* A budget that reads as a share of the baseline (0.5): the option it
 * was meant for, or "". */
static const char *ratio_hint(const char *opt, const char *arg)
{
	double v;
	const char *why;
	if (strcmp(opt, "--budget") || scalar_parse_double(arg, &v, &why) || !(v > 0 && v < 1))
		return "";
	return "; a share of the baseline memory is --ratio";
}

int opt_bytes(const char *cmd, const char *opt, const char *arg, uint64_t *out)
{
	const char *why = NULL;
	if (scalar_parse_u64(arg, out, &why)) {
		fprintf(stderr, "rematsim %s: %s wants a byte count (e.g. 8e9 or 6GiB), not '%s' (%s%s)\n",
			cmd, opt, arg, why, ratio_hint(opt, arg));
		return EXIT_USAGE;
	}
	return 0;
}

int usage_error(const char *cmd, const char *help, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "rematsim %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fputs(help, stderr);
	return EXIT_USAGE;
}

void opt_init(struct opt_parser *p, const char *cmd, const char *help, int max_values)
{
	memset(p, 0, sizeof *p);
	p->cmd = cmd;
	p->help = help;
	p->max_values = max_values < 1 ? 1 : max_values > OPT_MAX_VALUES ? OPT_MAX_VALUES : max_values;
	p->overhead_limit = 2;
	p->runtime = OPT_DEFAULT_RUNTIME;
	optind = 1;
	opterr = 0;
}

/* Split a comma list of numbers (scalar.h's grammar: 0.25, 1e9, 2GiB, inf);
 * returns the count, or -1 with *why set. */
static int parse_list(const char *arg, double *out, uint64_t *uout, int max, const char **why)
{
	char buf[256];
	int n = 0;
	const char *p = arg;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (n == max || len >= sizeof buf) {
			*why = "too many values or too long";
			return -1;
		}
		memcpy(buf, p, len);
		buf[len] = 0;
		if (uout ? scalar_parse_u64(buf, &uout[n], why) : scalar_parse_double(buf, &out[n], why))
			return -1;
		n++;
		if (!comma)
			return n;
		p = comma + 1;
	}
}

/* --ratio: fractions in (0,10] of the baseline peak, a list or one. */
static int take_ratio(struct opt_parser *p, const char *arg)
{
	const char *why = NULL;
	if (p->max_values == 1) {
		double r;
		if (scalar_parse_double(arg, &r, &why) || !(r > 0 && r <= 10)) {
			fprintf(stderr, "rematsim %s: --ratio wants a number in (0,10], not '%s'\n",
				p->cmd, arg);
			return EXIT_USAGE;
		}
		p->ratios[0] = r;
		p->n_ratios = 1;
		return 0;
	}
	int n = parse_list(arg, p->ratios, NULL, p->max_values, &why);
	if (n <= 0) {
		fprintf(stderr, "rematsim %s: --ratio wants numbers in (0,10], not '%s' (%s)\n", p->cmd,
			arg, why);
		return EXIT_USAGE;
	}
	for (int i = 0; i < n; i++) {
		if (!(p->ratios[i] > 0 && p->ratios[i] <= 10)) {
			fprintf(stderr, "rematsim %s: --ratio '%s': every ratio must be in (0,10], a "
					"fraction of the baseline peak memory\n", p->cmd, arg);
			return EXIT_USAGE;
		}
	}
	p->n_ratios = n;
	return 0;
}

/* --budget: byte counts, a list or one. */
static int take_budget(struct opt_parser *p, const char *arg)
{
	if (p->max_values == 1) {
		if (opt_bytes(p->cmd, "--budget", arg, &p->budgets[0]))
			return EXIT_USAGE;
		p->n_budgets = 1;
		return 0;
	}
	const char *why = NULL;
	int n = parse_list(arg, NULL, p->budgets, p->max_values, &why);
	if (n <= 0) {
		fprintf(stderr, "rematsim %s: --budget wants byte counts (whole numbers >= 0, e.g. 8e9 "
				"or 6GiB), not '%s' (%s%s)\n", p->cmd, arg, why,
			strchr(arg, ',') ? "" : ratio_hint("--budget", arg));
		return EXIT_USAGE;
	}
	p->n_budgets = n;
	return 0;
}

/* The key of the option getopt_long just returned in a seen set: its
 * value, or for rows of value 0 (told apart by their index) past them. */
static int seen_key(int c, int longindex)
{
	if (c > 0 && c < OPT_ID_END)
		return c;
	if (c == 0 && longindex >= 0 && longindex < OPT_SEEN_KEYS - OPT_ID_END)
		return OPT_ID_END + longindex;
	return -1;
}

/* Refuse an option with a value seen before (marking it seen): 0, or
 * EXIT_USAGE after the message. */
static int check_repeat(const char *cmd, bool *seen, int c, int longindex,
			const struct option *longopts)
{
	int key = seen_key(c, longindex);
	if (!optarg || key < 0)
		return 0; /* a flag given twice is the flag */
	if (!seen[key]) {
		seen[key] = true;
		return 0;
	}
	char name[64];
	if (longindex >= 0)
		snprintf(name, sizeof name, "--%s", longopts[longindex].name);
	else
		snprintf(name, sizeof name, "-%c", c);
	fprintf(stderr, "rematsim %s: %s given twice (the second time '%s'): give each option "
			"once%s\n", cmd, name, optarg,
		c == OPT_RATIO || c == OPT_BUDGET ? ", with every value in one list: 0.5,0.7" : "");
	return EXIT_USAGE;
}

/* Whether name is one of the space-separated words of list. */
static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; p && *p; p += strcspn(p, " "), p += *p == ' ')
		if (strcspn(p, " ") == n && !strncmp(p, name, n))
			return true;
	return false;
}

int opt_refuse_repeats(const char *cmd, int argc, char **argv, const char *shortopts,
		       const struct option *longopts, const char *repeatable)
{
	bool seen[OPT_SEEN_KEYS] = {0};
	int rc = 0, c, longindex;
	char so[64];
	snprintf(so, sizeof so, "%s%s", shortopts[0] == ':' ? "" : ":", shortopts);
	int saved_opterr = opterr; /* the command's own loop may let getopt speak */
	optind = 1;
	opterr = 0;
	do {
		longindex = -1;
		optarg = NULL;
		c = getopt_long(argc, argv, so, longopts, &longindex);
		if (c != -1 && c != '?' && c != ':' &&
		    !(longindex >= 0 && in_list(repeatable, longopts[longindex].name)))
			rc = check_repeat(cmd, seen, c, longindex, longopts);
	} while (c != -1 && !rc);
	optind = 1;
	opterr = saved_opterr;
	return rc;
}

int opt_next(struct opt_parser *p, int argc, char **argv, const char *shortopts,
	     const struct option *longopts)
{
	/* a leading ':' makes getopt tell a missing value from an unknown option */
	if (!p->shortopts[0])
		snprintf(p->shortopts, sizeof p->shortopts, "%s%s", shortopts[0] == ':' ? "" : ":",
			 shortopts);
	for (;;) {
		int longindex = -1;
		optarg = NULL;
		int c = getopt_long(argc, argv, p->shortopts, longopts, &longindex);
		if (c == -1)
			return -1;
		if (c == ':') {
			p->status = usage_error(p->cmd, p->help, "option '%s' needs a value",
						argv[optind - 1]);
			return OPT_FAIL;
		}
		if (c == '?') {
			p->status = usage_error(p->cmd, p->help, "bad option '%s'", argv[optind - 1]);
			return OPT_FAIL;
		}
		/* An option with a value, given again, would silently replace
		 * the first value: refused. */
		if ((p->status = check_repeat(p->cmd, p->seen, c, longindex, longopts)))
			return OPT_FAIL;
		int rc = 0;
		switch (c) {
		case OPT_HEURISTIC: p->hname = optarg; break;
		case OPT_RUNTIME: p->rname = optarg; break;
		case OPT_RATIO: rc = take_ratio(p, optarg); break;
		case OPT_BUDGET: rc = take_budget(p, optarg); break;
		case OPT_OVERHEAD_LIMIT:
			rc = opt_overhead_limit(p->cmd, optarg, &p->overhead_limit);
			p->has_limit = true;
			break;
		case OPT_SEED:
			rc = opt_whole(p->cmd, "--seed", optarg, 0, &p->seed);
			p->has_seed = true;
			break;
		default:
			return c;
		}
		if (rc) {
			p->status = rc;
			return OPT_FAIL;
		}
	}
}

void opt_put_runtime_names(FILE *f, int indent, int width)
{
	int col = indent;
	for (int i = 0; i < RUNTIME_KIND_COUNT; i++) {
		const char *name = runtime_kind_name((enum runtime_kind)i);
		int w = (int)strlen(name) + (i + 1 < RUNTIME_KIND_COUNT);
		if (i && col + 1 + w > width) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (i) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%s%s", name, i + 1 < RUNTIME_KIND_COUNT ? "," : "");
		col += w;
	}
}

/* The names to choose from, on one line each (after an unknown name). */
static void list_choices(FILE *f, bool runtimes)
{
	size_t n;
	const struct heuristic *h = heuristic_list(&n);
	fprintf(f, "heuristics:");
	for (size_t i = 0; i < n; i++)
		fprintf(f, " %s", h[i].name);
	fputc('\n', f);
	if (!runtimes)
		return;
	fprintf(f, "runtimes:");
	for (int i = 0; i < RUNTIME_KIND_COUNT; i++)
		fprintf(f, " %s", runtime_kind_name((enum runtime_kind)i));
	fputc('\n', f);
}

int opt_resolve(struct opt_parser *p, unsigned flags)
{
	p->heuristic = p->hname ? heuristic_find(p->hname) : NULL;
	bool rt_ok = !p->rname || !runtime_kind_parse(p->rname, &p->runtime);
	if ((p->hname || !(flags & OPT_NEED_HEURISTIC)) && (!p->hname || p->heuristic) && rt_ok)
		return 0;
	if (!p->hname && (flags & OPT_NEED_HEURISTIC))
		fprintf(stderr, "rematsim %s: --heuristic is required\n", p->cmd);
	else if (p->hname && !p->heuristic && heuristic_suggest(p->hname))
		fprintf(stderr, "rematsim %s: unknown heuristic '%s': did you mean %s?\n", p->cmd,
			p->hname, heuristic_suggest(p->hname));
	else if (p->hname && !p->heuristic)
		fprintf(stderr, "rematsim %s: unknown heuristic '%s'\n", p->cmd, p->hname);
	else if (runtime_suggest(p->rname))
		fprintf(stderr, "rematsim %s: unknown runtime '%s': did you mean %s?\n", p->cmd,
			p->rname, runtime_suggest(p->rname));
	else
		fprintf(stderr, "rematsim %s: unknown runtime '%s'\n", p->cmd, p->rname);
	list_choices(stderr, !(flags & OPT_NO_RUNTIME));
	return EXIT_USAGE;
}

int opt_check_config(const struct opt_parser *p)
{
	struct rs_error err;
	struct runtime_config probe = {.runtime = p->runtime, .heuristic = p->heuristic};
	if (p->heuristic && runtime_check_config(&probe, &err)) {
		fprintf(stderr, "rematsim %s: %s\n", p->cmd, err.msg);
		return EXIT_USAGE;
	}
	return 0;
}

struct point_config opt_point(const struct opt_parser *p, int i)
{
	return (struct point_config){
		.rt.heuristic = p->heuristic,
		.rt.runtime = p->runtime,
		.rt.seed = p->seed,
		.ratio = i < p->n_ratios ? p->ratios[i] : 0,
		.budget = i < p->n_budgets ? p->budgets[i] : 0,
		.overhead_limit = p->overhead_limit,
	};
}

/* A positive rate or a latency in ns of the measured link, or -1 after a
 * message naming the field. */
static double link_field(const char *cmd, const json_t *link, const char *meta, const char *key,
			 bool rate)
{
	const json_t *v = json_object_get(link, key);
	double x = json_is_number(v) ? json_number_value(v) : NAN;
	if (rate ? !(x > 0) || isinf(x) : !(x >= 0 && x < 1e18)) {
		fprintf(stderr, "rematsim %s: %s: the measured link's '%s' is %s, not %s\n", cmd, meta, key,
			v ? (json_is_number(v) ? "out of range" : "not a number") : "missing",
			rate ? "bytes per second above 0" : "nanoseconds, 0 or more");
		return -1;
	}
	return x;
}

/* With a host link: does the log's meta file (when there is one) say its
 * op times were taken on a CPU, with no device time model? Copies over a
 * PCIe link priced against CPU op times look cheap, and offload passes
 * where it would not on the device (issue 44, item 4). A log without a
 * meta file, or one that cannot be read, is not judged. */
static bool meta_cpu_timed(const char *meta)
{
	FILE *in = fopen(meta, "r");
	if (!in)
		return false;
	json_t *root = json_loadf(in, 0, NULL);
	fclose(in);
	if (!root)
		return false;
	const json_t *dev = json_object_get(root, "device");
	const json_t *tm = json_object_get(root, "time_model");
	bool cpu = json_is_string(dev) && !strcmp(json_string_value(dev), "cpu") &&
		   (!tm || json_is_null(tm));
	json_decref(root);
	return cpu;
}

/* --offload-bandwidth measured: the link `rematsim-record --measure-link`
 * wrote in the log's meta file (NAME.meta.json beside NAME.log[.gz],
 * docs/offload.md), each direction's bandwidth and latency: 0 or an exit
 * status after a message. */
int opt_offload_link(struct opt_offload *x, const struct opt_parser *o, const char *log)
{
	if (x->on) {
		char *m = rs_meta_path(log);
		x->cpu_timed = meta_cpu_timed(m);
		if (x->cpu_timed)
			fprintf(stderr, "rematsim %s: warning: %s says the log's op times were taken on "
					"a CPU (device cpu, no device time model): a host link priced "
					"against CPU op times makes every copy look cheap, so offload "
					"looks better than it would on a device%s (docs/offload.md)\n", o->cmd,
				rs_text_safe(m), strcmp(o->cmd, "replay") ? ""
						 : "; recompute only is shown beside it");
		free(m);
	}
	if (!x->measured)
		return 0;
	char *p = rs_meta_path(log);
	free(x->meta);
	x->meta = p;
	FILE *in = fopen(p, "r");
	if (!in) {
		fprintf(stderr, "rematsim %s: %s: %s (--offload-bandwidth measured reads the link "
				"that rematsim-record --measure-link writes there)\n", o->cmd, p, strerror(errno));
		return EXIT_NOINPUT;
	}
	json_error_t je;
	json_t *root = json_loadf(in, JSON_REJECT_DUPLICATES, &je);
	fclose(in);
	if (!root) {
		fprintf(stderr, "rematsim %s: %s:%d: %s\n", o->cmd, p, je.line, je.text);
		return EXIT_DATAERR;
	}
	const json_t *link = json_object_get(root, "link");
	int rc = 0;
	if (!json_is_object(link)) {
		fprintf(stderr, "rematsim %s: %s: no measured link ('link'): record the log with "
				"rematsim-record --measure-link, or give --offload-bandwidth RATE\n", o->cmd, p);
		rc = EXIT_DATAERR;
	} else {
		double d2h = link_field(o->cmd, link, p, "d2h_bytes_per_s", true);
		double d2h_ns = d2h < 0 ? -1 : link_field(o->cmd, link, p, "d2h_latency_ns", false);
		double h2d = d2h_ns < 0 ? -1 : link_field(o->cmd, link, p, "h2d_bytes_per_s", true);
		double h2d_ns = h2d < 0 ? -1 : link_field(o->cmd, link, p, "h2d_latency_ns", false);
		if (h2d_ns < 0) {
			rc = EXIT_DATAERR;
		} else {
			x->cfg.bandwidth = d2h;
			x->cfg.latency_ns = (int64_t)llround(d2h_ns);
			x->cfg.h2d_bandwidth = h2d;
			x->cfg.h2d_latency_ns = (int64_t)llround(h2d_ns);
		}
	}
	json_decref(root);
	return rc;
}

/* The offload options (docs/offload.md): 0, or -1 after a message. */
int opt_offload_parse(struct opt_offload *x, const struct opt_parser *p, int c, const char *arg)
{
	const char *why = NULL;
	uint64_t v;
	switch (c) {
	case 'B':
		x->measured = !strcmp(arg, "measured");
		if (x->measured) {
			x->on = true;
			return 0;
		}
		if (scalar_parse_rate(arg, &x->cfg.bandwidth, &why))
			break;
		x->on = x->cfg.bandwidth > 0;
		return 0;
	case 'L':
		x->extra = "--offload-latency";
		x->latency = true;
		if (scalar_parse_seconds(arg, &x->cfg.latency_ns, &why))
			break;
		return 0;
	case 'H':
		x->extra = "--host-memory";
		if (scalar_parse_u64(arg, &v, &why))
			break;
		if (!v) {
			why = "a size above 0 is expected (leave it out for an unbounded host)";
			break;
		}
		x->cfg.host_memory = v;
		return 0;
	case 'A':
		x->extra = "--offload-prefetch";
		if (scalar_parse_u64(arg, &v, &why))
			break;
		if (v > 1000000) {
			why = "at most 1000000 ops ahead";
			break;
		}
		x->cfg.prefetch = (uint32_t)v;
		return 0;
	case 'O':
		x->extra = "--offload-policy";
		if (offload_policy_parse(arg, &x->cfg.policy)) {
			why = "cost, local or swap is expected";
			break;
		}
		return 0;
	}
	static const char *const names[] = {"B--offload-bandwidth", "L--offload-latency", "H--host-memory",
					    "A--offload-prefetch", "O--offload-policy"};
	const char *name = "";
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (names[i][0] == c)
			name = names[i] + 1;
	usage_error(p->cmd, p->help, "%s '%s': %s", name, arg, why);
	return -1;
}

int opt_offload_check(const struct opt_offload *x, const struct opt_parser *p)
{
	if (x->extra && !x->on) {
		fprintf(stderr, "rematsim %s: %s needs a host link: --offload-bandwidth RATE "
				"(25GB/s, ...)\n", p->cmd, x->extra);
		return -1;
	}
	if (x->measured && x->latency) {
		fprintf(stderr, "rematsim %s: --offload-latency: the measured link has its own "
				"latencies (leave it out, or give --offload-bandwidth RATE)\n", p->cmd);
		return -1;
	}
	if (!x->on)
		return 0;
	/* the runtime's rules (a link measured later: its rates are checked as
	 * they are read) */
	struct offload_config oc = x->cfg;
	if (x->measured)
		oc.bandwidth = INFINITY;
	struct runtime_config probe = {.runtime = p->runtime, .heuristic = p->heuristic, .offload = &oc};
	struct rs_error err;
	if (runtime_check_config(&probe, &err)) {
		fprintf(stderr, "rematsim %s: %s\n", p->cmd, err.msg);
		return -1;
	}
	return 0;
}

const struct offload_config *opt_offload_config(const struct opt_offload *x)
{
	return x->on ? &x->cfg : NULL;
}

void opt_offload_json(const struct opt_offload *x, json_t *j)
{
	if (!x->on)
		return;
	json_object_set_new(j, "offload_bandwidth", cmd_json_finite(x->cfg.bandwidth));
	json_object_set_new(j, "offload_latency_ns", json_integer((json_int_t)x->cfg.latency_ns));
	if (x->measured) { /* the log's measured link: each direction */
		json_object_set_new(j, "offload_link", json_string(x->meta));
		json_object_set_new(j, "offload_h2d_bandwidth", cmd_json_finite(x->cfg.h2d_bandwidth));
		json_object_set_new(j, "offload_h2d_latency_ns",
				    json_integer((json_int_t)x->cfg.h2d_latency_ns));
	}
	json_object_set_new(j, "host_memory",
			    x->cfg.host_memory ? cmd_json_u64(x->cfg.host_memory) : json_null());
	json_object_set_new(j, "offload_prefetch", json_integer((json_int_t)x->cfg.prefetch));
	json_object_set_new(j, "offload_policy", json_string(offload_policy_name(x->cfg.policy)));
}

void opt_offload_print(const struct opt_offload *x, FILE *f)
{
	if (!x->on)
		return;
	char bw[FMT_DOUBLE_LEN];
	fmt_double(bw, x->cfg.bandwidth);
	if (x->measured) {
		char back[FMT_DOUBLE_LEN];
		fmt_double(back, x->cfg.h2d_bandwidth);
		fprintf(f, "offload: the link measured in %s: to the host %s bytes/s, latency %" PRId64
			" ns; back %s bytes/s, latency %" PRId64 " ns; host memory ",
			x->meta, bw, x->cfg.latency_ns, back, x->cfg.h2d_latency_ns);
	} else {
		fprintf(f, "offload: %s bytes/s, latency %" PRId64 " ns, host memory ", bw,
			x->cfg.latency_ns);
	}
	if (x->cfg.host_memory)
		fprintf(f, "%" PRIu64 " bytes", x->cfg.host_memory);
	else
		fprintf(f, "unbounded");
	fprintf(f, ", prefetch %u, policy %s\n", x->cfg.prefetch, offload_policy_name(x->cfg.policy));
}

void opt_offload_free(struct opt_offload *x)
{
	free(x->meta);
	x->meta = NULL;
}
