/*
 * trace.c: Chrome trace-event JSON from a replay's events (trace.h).
 *
 * Layout: one process (pid 1) named after the replay; threads 1 forward,
 * 2 backward, 3 rematerialization, 4 evictions (named by "M" metadata
 * events and kept in that order by thread_sort_index). Per runtime event
 * the file gets one "C" sample of the "memory" counter (arg bytes: memory
 * after the event, while it ran for a computation) and then one "X" slice
 * (a computation: ts = clock - cost, dur = cost) or one thread-scoped "i"
 * instant (an eviction); a computation that found some of its results in
 * memory already is followed by a sample and an instant ("drop") for
 * dropping those copies, as the timeline's `drop` row. A "budget" counter (arg bytes) has a sample at the first and
 * the last memory sample's time. Names come from the log: op names,
 * handles, log lines. A log with module calls (ANNOTATE ENTER/EXIT) also
 * gets a "modules" track (tid 7, sorted first): each call a slice ("B" at
 * the start of its first op, "E" at the start of the op after it), nested
 * as the calls are, named by module, as torch.profiler draws them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "peak.h"
#include "trace.h"

enum { TID_FORWARD = 1, TID_BACKWARD, TID_REMAT, TID_EVICT, TID_D2H, TID_H2D, TID_MODULES };

struct trace_writer {
	FILE *f;            /* out.f */
	struct outfile out; /* written whole or not at all (outfile.h) */
	const struct schedule *s;
	struct trace_options opt;
	uint64_t events;
	size_t cursor;      /* commands up to here seen ... */
	uint32_t line;      /* ... and the line of the last op among them */
	uint64_t counted;   /* memory samples written */
	int64_t last_clock; /* of the last one */
	size_t mark;        /* the module marks (ENTER/EXIT) passed */
	size_t depth;       /* calls open */
	bool *opened;       /* [depth]: its "B" was written (inside the window) */
};

/* A JSON string: quotes, backslashes and control characters escaped;
 * other bytes as they are (the reader took them from JSON text). */
static void put_str(FILE *f, const char *p)
{
	putc('"', f);
	for (; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			putc(c, f);
	}
	putc('"', f);
}

/* Nanoseconds as microseconds, exactly: "12.345". */
static void put_us(FILE *f, int64_t ns)
{
	if (ns < 0) {
		putc('-', f);
		ns = -ns;
	}
	fprintf(f, "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
}

static void sep(struct trace_writer *w)
{
	fputs(w->events++ ? ",\n" : "\n", w->f);
}

static void meta(struct trace_writer *w, const char *what, int tid, const char *key, const char *name, int sort)
{
	sep(w);
	fprintf(w->f, "{\"name\":\"%s\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"args\":{\"%s\":", what, tid, key);
	if (name)
		put_str(w->f, name);
	else
		fprintf(w->f, "%d", sort);
	fputs("}}", w->f);
}

/* A sample of a counter (its own track: a viewer stacks the series of one
 * counter, which would add the budget to the memory). */
static void counter(struct trace_writer *w, const char *name, int64_t clock, uint64_t bytes)
{
	sep(w);
	fprintf(w->f, "{\"name\":\"%s\",\"ph\":\"C\",\"pid\":1,\"tid\":0,\"ts\":", name);
	put_us(w->f, clock);
	fprintf(w->f, ",\"args\":{\"bytes\":%" PRIu64 "}}", bytes);
}

static void budget(struct trace_writer *w, int64_t clock)
{
	if (w->opt.budget != UINT64_MAX)
		counter(w, "budget", clock, w->opt.budget);
}

struct trace_writer *trace_open(const char *path, const struct schedule *s,
				const struct trace_options *opt, struct rs_error *err)
{
	struct trace_writer *w = xcalloc(1, sizeof *w);
	/* A unique temporary name renamed into place; a device or pipe
	 * (/dev/stdout) is written as it is (outfile.h). */
	if (outfile_open(&w->out, path, err)) {
		free(w);
		return NULL;
	}
	w->f = w->out.f;
	w->s = s;
	w->opt = *opt;
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"rematsim\",\"log\":", w->f);
	put_str(w->f, s->source);
	fputs(",\"time\":\"simulated clock\"},\"traceEvents\":[", w->f);
	meta(w, "process_name", 0, "name", opt->title ? opt->title : s->source, 0);
	static const char *const tracks[] = {"forward", "backward", "rematerialization", "evictions",
					     "offload (device to host)", "fetch (host to device)"};
	for (int i = 0; i < (opt->offload ? 6 : 4); i++) {
		meta(w, "thread_name", i + 1, "name", tracks[i], 0);
		meta(w, "thread_sort_index", i + 1, "sort_index", NULL, i + 1);
	}
	if (s->n_marks) {
		meta(w, "thread_name", TID_MODULES, "name", "modules", 0);
		meta(w, "thread_sort_index", TID_MODULES, "sort_index", NULL, 0);
		w->opened = xcalloc(s->n_marks + 1, sizeof *w->opened);
	}
	return w;
}

/* A module slice's end ("E") or start ("B", named) at ts. */
static void module_edge(struct trace_writer *w, const struct sched_mark *m, bool begin, int64_t ts)
{
	sep(w);
	fputs("{\"name\":", w->f);
	put_str(w->f, schedule_str(w->s, m->name));
	fprintf(w->f, ",\"cat\":\"module\",\"ph\":\"%s\",\"pid\":1,\"tid\":%d,\"ts\":",
		begin ? "B" : "E", TID_MODULES);
	put_us(w->f, ts);
	if (begin) {
		fputs(",\"args\":{\"type\":", w->f);
		put_str(w->f, schedule_str(w->s, m->type));
		fprintf(w->f, ",\"line\":%u}", m->line);
	}
	fputc('}', w->f);
}

/* The module marks up to model op `op`, which starts at ts: calls that
 * ended before it end there, calls that begin with it begin there. */
static void module_marks(struct trace_writer *w, uint32_t op, int64_t ts, bool inside)
{
	const struct schedule *s = w->s;
	for (; w->mark < s->n_marks && s->marks[w->mark].op <= op; w->mark++) {
		const struct sched_mark *m = &s->marks[w->mark];
		if (m->enter) {
			w->opened[w->depth++] = inside;
			if (inside)
				module_edge(w, m, true, ts);
		} else if (w->depth && w->opened[--w->depth]) {
			module_edge(w, m, false, ts);
		}
	}
}

/* The line of the model's op in progress at command cmd (commands come in
 * order, so a cursor walks them once in all). */
static uint32_t position(struct trace_writer *w, size_t cmd)
{
	const struct schedule *s = w->s;
	for (; w->cursor <= cmd && w->cursor < s->n_cmds; w->cursor++)
		if (s->cmds[w->cursor].kind == CMD_COMPUTE)
			w->line = s->ops[s->cmds[w->cursor].id].line;
	return w->line;
}

void trace_on_event(void *ctx, const struct runtime_event *ev)
{
	struct trace_writer *w = ctx;
	const struct schedule *s = w->s;
	uint32_t at = position(w, ev->cmd);
	bool inside = at >= w->opt.from_line && at <= w->opt.to_line;
	if (ev->kind == EV_COMPUTE && w->opened)
		module_marks(w, ev->op, ev->clock - s->ops[ev->op].cost, inside);
	if (!inside)
		return;
	FILE *f = w->f;

	if (!w->counted++)
		budget(w, ev->clock);
	w->last_clock = ev->clock;
	counter(w, "memory", ev->clock, ev->memory_high);
	if (ev->kind == EV_OFFLOADED) /* a copy out ended: the memory it freed */
		return;

	sep(w);
	if (ev->kind == EV_OFFLOAD || ev->kind == EV_FETCH) {
		/* a copy: a slice on its channel's track, from its start to its end */
		uint32_t op = storage_op(s, ev->storage);
		fputs("{\"name\":", f);
		put_str(f, schedule_str(s, s->ops[op].name));
		fprintf(f, ",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":",
			ev->kind == EV_OFFLOAD ? "offload" : "fetch", ev->kind == EV_OFFLOAD ? TID_D2H : TID_H2D);
		put_us(f, ev->start);
		fputs(",\"dur\":", f);
		put_us(f, ev->end - ev->start);
		fputs(",\"args\":{\"handle\":", f);
		put_str(f, storage_handle(s, ev->storage));
		fprintf(f, ",\"line\":%u,\"bytes\":%" PRIu64 ",\"memory\":%" PRIu64 "}}", s->ops[op].line,
			s->storages[ev->storage].size, ev->memory);
		return;
	}
	if (ev->kind == EV_EVICT) {
		uint32_t op = storage_op(s, ev->storage);
		fputs("{\"name\":", f);
		put_str(f, schedule_str(s, s->ops[op].name));
		fputs(",\"cat\":\"evict\",\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":4,\"ts\":", f);
		put_us(f, ev->clock);
		fputs(",\"args\":{\"handle\":", f);
		put_str(f, storage_handle(s, ev->storage));
		fprintf(f, ",\"line\":%u,\"bytes\":%" PRIu64 ",\"memory\":%" PRIu64 "}}", s->ops[op].line,
			s->storages[ev->storage].size, ev->memory);
		return;
	}
	const struct sched_op *op = &s->ops[ev->op];
	int tid = ev->kind == EV_REMAT ? TID_REMAT : op->backward ? TID_BACKWARD : TID_FORWARD;
	const char *cat = ev->kind == EV_REMAT ? "remat" : op->constant ? "constant" : op->backward ? "backward" : "forward";
	fputs("{\"name\":", f);
	put_str(f, schedule_str(s, op->name));
	fprintf(f, ",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":", cat, tid);
	put_us(f, ev->clock - op->cost);
	fputs(",\"dur\":", f);
	put_us(f, op->cost);
	fputs(",\"args\":{\"handle\":", f);
	put_str(f, op->n_outs ? schedule_str(s, s->tensors[op->outs].name) : "-");
	fprintf(f, ",\"line\":%u,\"bytes\":%" PRIu64 ",\"memory\":%" PRIu64 "}}", op->line, op->total_size,
		ev->memory_high);
	if (ev->memory_high == ev->memory)
		return;
	/* its outputs that were in memory already, dropped right after it:
	 * a sample and an instant, as the timeline's `drop` row */
	counter(w, "memory", ev->clock, ev->memory);
	sep(w);
	fputs("{\"name\":", f);
	put_str(f, schedule_str(s, op->name));
	fprintf(f, ",\"cat\":\"drop\",\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":%d,\"ts\":", tid);
	put_us(f, ev->clock);
	fputs(",\"args\":{\"handle\":", f);
	put_str(f, op->n_outs ? schedule_str(s, s->tensors[op->outs].name) : "-");
	fprintf(f, ",\"line\":%u,\"bytes\":%" PRIu64 ",\"memory\":%" PRIu64 "}}", op->line,
		ev->memory_high - ev->memory, ev->memory);
}

uint64_t trace_events(const struct trace_writer *w)
{
	return w->events;
}

uint64_t trace_kept(const struct trace_writer *w)
{
	return w->counted;
}

int trace_close(struct trace_writer *w, bool keep, struct rs_error *err)
{
	int rc = 0;
	if (keep) {
		/* calls still open (a log that ends inside one, a run that
		 * stopped): their ends at the last sample */
		while (w->opened && w->depth)
			if (w->opened[--w->depth]) {
				struct sched_mark end = {.name = 0};
				for (size_t i = w->s->n_marks; i-- > 0;) /* its ENTER: the name */
					if (w->s->marks[i].enter) {
						end = w->s->marks[i];
						break;
					}
				module_edge(w, &end, false, w->last_clock);
			}
		if (w->counted) /* the budget's line spans the memory's */
			budget(w, w->last_clock);
		fputs("\n]}\n", w->f);
		rc = outfile_commit(&w->out, false, err);
	} else {
		outfile_abort(&w->out);
	}
	free(w->opened);
	free(w);
	return rc;
}
