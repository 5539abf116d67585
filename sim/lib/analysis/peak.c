/*
 * peak.c: the live set at a replay's peak memory (peak.h), followed from
 * the runtime's events.
 *
 * Which storages are material follows from the events alone: an op's
 * computation (model or rematerialization) leaves every output's storage
 * material (the runtime materializes the undefined ones; a defined one is
 * material already), and an eviction (also an eager or banishing one)
 * makes its storage not. No other change of memory happens between events.
 *
 * The runtime counts a peak when it adds an op's output bytes, before it
 * takes back the bytes of outputs that were already defined (a
 * rematerialization whose sibling output is still resident): so the
 * moment's bytes are memory before the op + the op's total output size,
 * which is the followed set's bytes + those duplicate bytes (dup_bytes,
 * zero in an unbounded replay, which never rematerializes).
 *
 * With offload (runtime_config.offload): a storage queued to the host
 * (EV_OFFLOAD) keeps its bytes until its copy ends (EV_OFFLOADED: not
 * material); one brought back (EV_FETCH, a prefetch too) is material and
 * counted from then on, and that moment may be the peak (no op then: the
 * command in progress is the moment's); a copy out cancelled before it
 * ended changed nothing.
 *
 * A run that stops (OOM, thrash) leaves the follower at its last event:
 * the set it holds then is the set at the stop, as the runtime's last
 * event left it (the evictions it made trying to make room included).
 */
#include <stdlib.h>
#include <string.h>

#include "peak.h"

const char *storage_kind_name(enum storage_kind k)
{
	static const char *const names[SK_COUNT] = {"constant", "forward", "backward", "temporary"};
	return (unsigned)k < SK_COUNT ? names[k] : "?";
}

struct follower {
	const struct schedule *s;
	uint8_t *material;    /* per storage */
	uint64_t memory;      /* bytes of the material storages */
	uint64_t want;        /* the peak to catch */
	bool broken;          /* memory disagreed with the runtime's */
	bool caught;
	uint64_t dup;
	size_t cmd;
	uint32_t op;
	bool remat;
	int64_t clock;
	uint8_t *snapshot;    /* material at the moment */
};

static void follow(void *ctx, const struct runtime_event *ev)
{
	struct follower *f = ctx;
	const struct schedule *s = f->s;
	if (ev->kind == EV_EVICT || ev->kind == EV_OFFLOADED) {
		if (!f->material[ev->storage])
			f->broken = true;
		f->material[ev->storage] = 0;
		f->memory -= s->storages[ev->storage].size;
	} else if (ev->kind == EV_OFFLOAD) {
		if (!f->material[ev->storage])
			f->broken = true;
	} else if (ev->kind == EV_FETCH) {
		if (f->material[ev->storage])
			f->broken = true;
		f->material[ev->storage] = 1;
		f->memory += s->storages[ev->storage].size;
		if (!f->caught && f->memory == f->want && f->memory == ev->memory) {
			const struct sched_cmd *c = &s->cmds[ev->cmd];
			f->caught = true;
			f->dup = 0;
			f->cmd = ev->cmd;
			f->op = c->kind == CMD_COMPUTE ? c->id : s->tensors[c->id].op;
			f->remat = false;
			f->clock = ev->clock;
			memcpy(f->snapshot, f->material, s->n_storages);
		}
	} else {
		const struct sched_op *op = &s->ops[ev->op];
		uint64_t moment = f->memory + op->total_size;
		for (uint32_t k = 0; k < op->n_outs; k++) {
			uint32_t st = s->tensors[op->outs + k].storage;
			if (!f->material[st]) {
				f->material[st] = 1;
				f->memory += s->storages[st].size;
			}
		}
		if (!f->caught && moment == f->want && f->memory == ev->memory) {
			f->caught = true;
			f->dup = moment - f->memory;
			f->cmd = ev->cmd;
			f->op = ev->op;
			f->remat = ev->kind == EV_REMAT;
			f->clock = ev->clock;
			memcpy(f->snapshot, f->material, s->n_storages);
		}
	}
	if (f->memory != ev->memory)
		f->broken = true;
}

void peak_classify(const struct schedule *s, size_t cmd, uint8_t *kind, uint8_t *pinned)
{
	/* Per storage, 1 + the last command that reads it (0: none; SIZE_MAX:
	 * kept, that is still referenced by the model after the last command),
	 * and the first command that pins it. */
	size_t *last = xcalloc(s->n_storages ? s->n_storages : 1, sizeof *last);
	size_t *pin = xmalloc((s->n_storages ? s->n_storages : 1) * sizeof *pin);
	int64_t *refs = xcalloc(s->n_storages ? s->n_storages : 1, sizeof *refs);
	for (size_t i = 0; i < s->n_storages; i++)
		pin[i] = SIZE_MAX;
	for (size_t i = 0; i < s->n_cmds; i++) {
		const struct sched_cmd *c = &s->cmds[i];
		schedule_count_handles(s, c, refs);
		if (c->kind == CMD_COMPUTE) {
			const struct sched_op *op = &s->ops[c->id];
			for (uint32_t a = 0; a < op->n_args; a++)
				last[s->arg_storage[op->args + a]] = i + 1;
		} else if (c->kind == CMD_PIN) {
			uint32_t st = s->tensors[c->id].storage;
			if (pin[st] == SIZE_MAX)
				pin[st] = i;
		}
	}
	for (size_t st = 0; st < s->n_storages; st++)
		if (refs[st] > 0)
			last[st] = SIZE_MAX;
	free(refs);
	for (size_t st = 0; st < s->n_storages; st++) {
		const struct sched_op *op = &s->ops[storage_op(s, (uint32_t)st)];
		if (kind) {
			enum storage_kind k;
			if (op->constant)
				k = SK_CONSTANT;
			else if (last[st] != SIZE_MAX && last[st] <= cmd)
				k = SK_TEMPORARY;
			else
				k = op->backward ? SK_BACKWARD : SK_FORWARD;
			kind[st] = (uint8_t)k;
		}
		if (pinned)
			pinned[st] = pin[st] < cmd;
	}
	free(last);
	free(pin);
}

static int by_bytes(const void *a, const void *b)
{
	const struct peak_entry *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return x->storage < y->storage ? -1 : x->storage > y->storage;
}

static int group_order(const void *a, const void *b)
{
	const struct peak_group *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int by_name(const void *a, const void *b)
{
	const struct peak_group *x = a, *y = b;
	return strcmp(x->name, y->name);
}

int peak_find(const struct schedule *s, const struct runtime_config *cfg,
	      struct peak_report *out, struct rs_error *err)
{
	memset(out, 0, sizeof *out);
	if (cfg->on_event)
		rs_bug("peak_find: the configuration already has an event hook");
	if (runtime_run(s, cfg, &out->run, err))
		return -1;
	out->stopped = out->run.outcome != OUTCOME_PASS;

	struct follower f = {
		.s = s,
		.material = xcalloc(s->n_storages ? s->n_storages : 1, 1),
		.snapshot = xcalloc(s->n_storages ? s->n_storages : 1, 1),
		/* a stopped run: no moment to catch on the way, the set at the end */
		.want = out->stopped ? UINT64_MAX : out->run.peak_memory,
	};
	struct runtime_config c2 = *cfg;
	c2.on_event = follow;
	c2.ctx = &f;
	struct runtime_result again;
	int rc = runtime_run(s, &c2, &again, err);
	if (!rc && (f.broken || (!out->stopped && !f.caught) ||
		    again.peak_memory != out->run.peak_memory || again.outcome != out->run.outcome ||
		    (out->stopped && again.stopped_at != out->run.stopped_at)))
		rc = rs_error_set(err, EXIT_SOFTWARE, NULL, 0,
				  "peak: the followed memory disagrees with the replay's "
				  "(%s; peak %llu, caught %d): please report this",
				  f.broken ? "at some event" : "at the end",
				  (unsigned long long)out->run.peak_memory, f.caught);
	if (rc) {
		free(f.material);
		free(f.snapshot);
		return -1;
	}
	if (out->stopped) {
		/* the moment it stopped: the command in progress, the set then */
		memcpy(f.snapshot, f.material, s->n_storages);
		f.cmd = out->run.stopped_at < s->n_cmds ? out->run.stopped_at : s->n_cmds - 1;
		f.op = s->cmds[f.cmd].kind == CMD_COMPUTE ? s->cmds[f.cmd].id
							   : s->tensors[s->cmds[f.cmd].id].op;
		f.clock = out->run.clock;
	}
	free(f.material);

	out->peak_bytes = out->run.peak_memory;
	out->dup_bytes = f.dup;
	out->cmd = f.cmd;
	out->op = f.op;
	out->remat = f.remat;
	out->clock = f.clock;
	out->model_op = s->cmds[f.cmd].kind == CMD_COMPUTE ? s->cmds[f.cmd].id : RT_NONE_OP;
	/* the op in progress when a run stopped: its arguments are kept */
	uint8_t *input = xcalloc(s->n_storages ? s->n_storages : 1, 1);
	if (out->stopped && out->model_op != RT_NONE_OP) {
		const struct sched_op *mop = &s->ops[out->model_op];
		for (uint32_t a = 0; a < mop->n_args; a++)
			input[s->arg_storage[mop->args + a]] = 1;
	}

	uint8_t *kind = xmalloc(s->n_storages ? s->n_storages : 1);
	uint8_t *pinned = xmalloc(s->n_storages ? s->n_storages : 1);
	peak_classify(s, f.cmd, kind, pinned);
	size_t n = 0;
	for (size_t st = 0; st < s->n_storages; st++)
		n += f.snapshot[st];
	out->entries = xcalloc(n ? n : 1, sizeof *out->entries);
	for (size_t st = 0; st < s->n_storages; st++) {
		if (!f.snapshot[st])
			continue;
		struct peak_entry *e = &out->entries[out->n_entries++];
		e->storage = (uint32_t)st;
		e->bytes = s->storages[st].size;
		e->kind = (enum storage_kind)kind[st];
		e->pinned = pinned[st];
		e->input = input[st];
		out->live_bytes += e->bytes;
		out->by_kind[e->kind].bytes += e->bytes;
		out->by_kind[e->kind].count++;
	}
	for (int k = 0; k < SK_COUNT; k++)
		out->by_kind[k].name = storage_kind_name((enum storage_kind)k);
	free(kind);
	free(pinned);
	free(input);
	free(f.snapshot);
	qsort(out->entries, out->n_entries, sizeof *out->entries, by_bytes);

	/* Group by op name: sort a copy by name, fold equal names. */
	struct peak_group *g = xcalloc(n ? n : 1, sizeof *g);
	for (size_t i = 0; i < n; i++) {
		g[i].name = schedule_str(s, s->ops[storage_op(s, out->entries[i].storage)].name);
		g[i].bytes = out->entries[i].bytes;
		g[i].count = 1;
	}
	qsort(g, n, sizeof *g, by_name);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && !strcmp(g[m - 1].name, g[i].name)) {
			g[m - 1].bytes += g[i].bytes;
			g[m - 1].count++;
		} else {
			g[m++] = g[i];
		}
	}
	qsort(g, m, sizeof *g, group_order);
	out->by_op = g;
	out->n_by_op = m;
	return 0;
}

void peak_report_free(struct peak_report *r)
{
	free(r->entries);
	free(r->by_op);
	memset(r, 0, sizeof *r);
}

uint32_t *peak_op_modules(const struct schedule *s)
{
	if (!s->n_marks)
		return NULL;
	uint32_t *op_mod = xmalloc((s->n_ops ? s->n_ops : 1) * sizeof *op_mod);
	uint32_t *stack = xmalloc(s->n_marks * sizeof *stack);
	size_t depth = 0, j = 0;
	for (size_t op = 0; op < s->n_ops; op++) {
		for (; j < s->n_marks && s->marks[j].op <= op; j++) {
			if (s->marks[j].enter)
				stack[depth++] = s->marks[j].name;
			else if (depth) /* (the reader checks that they nest) */
				depth--;
		}
		op_mod[op] = depth ? stack[depth - 1] : PEAK_NO_MODULE;
	}
	free(stack);
	return op_mod;
}
