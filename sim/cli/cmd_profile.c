/*
 * cmd_profile.c: `rematsim profile LOG`, the activation profile of a log
 * (SOLVERS.md section 2): one row per forward op, the five largest
 * producers, the total. The text form is TSV with `#` comment lines, so
 * that plots/profile.gp reads it as it is.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "cmd_opts.h"
#include "modules.h"
#include "profile.h"
#include "schedule.h"
#include "util.h"

static const char profile_help[] =
	"usage: rematsim profile LOG [--modules] [--json] [--from-start]\n"
	"\n"
	"The activation profile of a log: for each forward op (the non-constant\n"
	"ops before the first backward op, in log order), the bytes of the\n"
	"storages it made that a handle still holds when the backward pass\n"
	"starts, in an unbounded replay; their running sum; the five largest\n"
	"producers; the total. This is what the checkpoint planners split\n"
	"(`rematsim solve`).\n"
	"\n"
	"The table is TSV (columns index, op, line, bytes, cumulative) between\n"
	"`#` comment lines, which gnuplot skips:\n"
	"    rematsim profile LOG > p.tsv && gnuplot -c plots/profile.gp p.tsv p.png\n"
	"\n"
	"  --modules     per module call instead (a log with ANNOTATE ENTER/EXIT, as\n"
	"                rematsim_torch records with model=): each call's module, class,\n"
	"                depth, forward ops, the activations they made, and whether a\n"
	"                checkpoint wrapper can take it (else why not)\n"
	"  --json        one JSON object: log, forward_ops, total, ops[], largest[]\n"
	"                (--modules: log, forward_ops, total, modules[])\n"
	"  --from-start  profile from the top of the log, not from its START\n"
	"\n"
	"Exit status: 0 ok, 64 usage, 65 malformed log or no forward ops,\n"
	"66 missing input.\n";

#define TOP 5

/* The indices of the (up to) TOP largest activations, largest first, ties
 * to the earlier op. */
static size_t largest(const struct profile *p, size_t *top)
{
	size_t n = 0;
	for (size_t i = 0; i < p->n; i++) {
		size_t at;
		if (n < TOP)
			at = n++;
		else if (p->bytes[i] > p->bytes[top[TOP - 1]])
			at = TOP - 1;
		else
			continue;
		while (at > 0 && p->bytes[top[at - 1]] < p->bytes[i]) {
			top[at] = top[at - 1];
			at--;
		}
		top[at] = i;
	}
	return n;
}

/* --modules: one row per module call. */
static int print_modules(const struct schedule *s, const struct profile *p, bool json)
{
	struct module_calls m;
	struct rs_error err;
	if (modules_build(s, p, &m, &err)) {
		rs_error_print(&err);
		return err.status;
	}
	size_t ok = 0;
	for (size_t i = 0; i < m.n; i++)
		ok += m.c[i].veto == MODULE_OK;
	if (json) {
		json_t *o = json_object(), *mods = json_array();
		json_object_set_new(o, "log", json_string(s->source));
		json_object_set_new(o, "forward_ops", json_integer((json_int_t)p->n));
		json_object_set_new(o, "total", json_integer((json_int_t)p->total));
		for (size_t i = 0; i < m.n; i++) {
			const struct module_call *c = &m.c[i];
			json_t *r = json_pack("{s:I, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:b}",
				"call", (json_int_t)i, "module", schedule_str(s, c->name),
				"type", schedule_str(s, c->type), "depth", (json_int_t)c->depth,
				"parent", (json_int_t)c->parent, "line", (json_int_t)c->line,
				"first", (json_int_t)c->first, "ops", (json_int_t)(c->end - c->first),
				"bytes", (json_int_t)c->bytes, "calls", (json_int_t)c->calls,
				"checkpointable", c->veto == MODULE_OK);
			if (c->veto != MODULE_OK)
				json_object_set_new(r, "why_not", json_string(module_veto_text(c->veto)));
			json_array_append_new(mods, r);
		}
		json_object_set_new(o, "modules", mods);
		char *line = json_dumps(o, JSON_COMPACT);
		puts(line);
		free(line);
		json_decref(o);
	} else {
		printf("# module calls of %s in the forward pass: %zu, %zu of them can be\n"
		       "# checkpointed; bytes: the activations their forward ops made (as in\n"
		       "# `rematsim profile`), nested calls counted in each call around them\n",
		       rs_text_safe(s->source), m.n, ok);
		printf("# call\tmodule\ttype\tdepth\tfirst\tops\tbytes\tcheckpoint\n");
		for (size_t i = 0; i < m.n; i++) {
			const struct module_call *c = &m.c[i];
			printf("%zu\t%s\t%s\t%u\t%zu\t%zu\t%" PRIu64 "\t", i,
			       rs_text_safe(schedule_str(s, c->name)),
			       *schedule_str(s, c->type) ? rs_text_safe(schedule_str(s, c->type)) : "-",
			       c->depth, c->first, c->end - c->first, c->bytes);
			if (c->veto == MODULE_OK)
				printf("yes\n");
			else if (c->veto == MODULE_WRITES_INPUT)
				printf("no: %s (line %u)\n", module_veto_text(c->veto), c->veto_line);
			else
				printf("no: %s\n", module_veto_text(c->veto));
		}
		uint64_t top = 0;
		for (size_t i = 0; i < m.n; i++)
			if (m.c[i].parent < 0)
				top += m.c[i].bytes;
		printf("# total: %" PRIu64 " bytes of activations over %zu forward ops, %" PRIu64
		       " of them in module calls\n", p->total, p->n, top);
	}
	modules_free(&m);
	return 0;
}

int cmd_profile(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},
		{"from-start", no_argument, NULL, 's'},
		{"modules", no_argument, NULL, 'm'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool json = false, modules = false;
	struct read_options ropt = {0};
	/* an option with a value given twice is refused (cmd_opts.h) */
	if (opt_refuse_repeats("profile", argc, argv, "h", longopts, NULL))
		return EXIT_USAGE;
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 's': ropt.from_start = true; break;
		case 'm': modules = true; break;
		case 'h':
			fputs(profile_help, stdout);
			return 0;
		default:
			return usage_error("profile", profile_help, "bad option \'%s\'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return usage_error("profile", profile_help, "give exactly one LOG");
	struct rs_error err;
	struct schedule *s;
	if (schedule_read(argv[optind], &ropt, &s, &err) < 0) {
		rs_error_print(&err);
		return err.status;
	}
	struct profile p;
	if (profile_build(s, &p, &err)) {
		rs_error_print(&err);
		schedule_free(s);
		return err.status;
	}
	if (modules) {
		int rc = print_modules(s, &p, json);
		profile_free(&p);
		schedule_free(s);
		return rc;
	}
	size_t top[TOP];
	size_t nt = largest(&p, top);
	if (json) {
		json_t *o = json_object(), *ops = json_array(), *big = json_array();
		json_object_set_new(o, "log", cmd_json_str(s->source));
		json_object_set_new(o, "forward_ops", json_integer((json_int_t)p.n));
		json_object_set_new(o, "total", json_integer((json_int_t)p.total));
		uint64_t cum = 0;
		for (size_t i = 0; i < p.n; i++) {
			const struct sched_op *op = &s->ops[p.op[i]];
			cum += p.bytes[i];
			json_array_append_new(ops, json_pack("{s:I, s:s, s:I, s:I, s:I}",
				"index", (json_int_t)i, "op", schedule_str(s, op->name),
				"line", (json_int_t)op->line, "bytes", (json_int_t)p.bytes[i],
				"cumulative", (json_int_t)cum));
		}
		for (size_t k = 0; k < nt; k++) {
			const struct sched_op *op = &s->ops[p.op[top[k]]];
			json_array_append_new(big, json_pack("{s:I, s:s, s:I, s:I}",
				"index", (json_int_t)top[k], "op", schedule_str(s, op->name),
				"line", (json_int_t)op->line, "bytes", (json_int_t)p.bytes[top[k]]));
		}
		json_object_set_new(o, "ops", ops);
		json_object_set_new(o, "largest", big);
		char *line = json_dumps(o, JSON_COMPACT);
		puts(line);
		free(line);
		json_decref(o);
	} else {
		printf("# activation profile of %s: %zu forward ops (non-constant, before the\n"
		       "# first backward op); bytes: storages each made that are alive when the\n"
		       "# backward pass starts; cumulative: their running sum\n",
		       rs_text_safe(s->source), p.n);
		printf("# index\top\tline\tbytes\tcumulative\n");
		uint64_t cum = 0;
		for (size_t i = 0; i < p.n; i++) {
			const struct sched_op *op = &s->ops[p.op[i]];
			cum += p.bytes[i];
			printf("%zu\t%s\t%u\t%" PRIu64 "\t%" PRIu64 "\n", i, rs_text_safe(schedule_str(s, op->name)),
			       op->line, p.bytes[i], cum);
		}
		printf("# largest producers:\n");
		for (size_t k = 0; k < nt; k++) {
			const struct sched_op *op = &s->ops[p.op[top[k]]];
			printf("#   %zu. index %zu, %s (line %u): %" PRIu64 " bytes (%.1f%%)\n", k + 1,
			       top[k], rs_text_safe(schedule_str(s, op->name)), op->line, p.bytes[top[k]],
			       p.total ? 100.0 * (double)p.bytes[top[k]] / (double)p.total : 0.0);
		}
		printf("# total: %" PRIu64 " bytes of activations over %zu forward ops\n", p.total,
		       p.n);
	}
	profile_free(&p);
	schedule_free(s);
	return 0;
}
