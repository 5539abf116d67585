/*
 * plan.c: see plan.h. The plan becomes, before the run, a list of storages
 * to evict after each command (CSR by command index), which the runtime's
 * evict_after hook hands over; rematerialized temporaries are added to it
 * as the run goes, from the runtime's EV_REMAT events and a reference count
 * kept here from the commands (the runtime's own count of handles).
 */
#include "plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define NONE UINT32_MAX

size_t plan_forward_ops(const struct schedule *s, uint32_t **ops)
{
	size_t n = 0;
	*ops = NULL;
	for (size_t i = 0; i < s->n_ops; i++)
		n += !s->ops[i].constant && !s->ops[i].backward;
	if (!n)
		return 0;
	*ops = xmalloc(n * sizeof **ops);
	n = 0;
	for (size_t i = 0; i < s->n_ops; i++)
		if (!s->ops[i].constant && !s->ops[i].backward)
			(*ops)[n++] = (uint32_t)i;
	return n;
}

struct plan_run {
	const struct schedule *s;
	void (*observe)(void *ctx, const struct runtime_event *ev); /* the caller's */
	void *observe_ctx;
	/* plan_replay_wraps: the segments whose recomputation command i
	 * starts (CSR by command), and each segment's evicted storages */
	uint32_t *trig, *trig_off, *gst, *gst_off;
	struct runtime_action *want;         /* what remat_before hands over */
	size_t cap_want;
	const uint32_t *forced, *forced_off; /* CSR by command */
	int64_t *refs;                       /* handles per storage */
	uint32_t *remat;                     /* storages rematerialized this command */
	size_t n_remat, cap_remat;
	uint32_t *fresh;                     /* the latest remat's storages */
	size_t n_fresh, cap_fresh;
	uint32_t *list;                      /* what evict_after hands over */
	size_t cap_list;
};

static void on_event(void *ctx, const struct runtime_event *ev)
{
	struct plan_run *pr = ctx;
	if (pr->observe)
		pr->observe(pr->observe_ctx, ev);
	if (ev->kind != EV_REMAT)
		return;
	const struct sched_op *op = &pr->s->ops[ev->op];
	pr->n_fresh = 0;
	for (uint32_t k = 0; k < op->n_outs; k++) {
		/* views too: the caller locks the storage of what it asked for */
		uint32_t st = pr->s->tensor_storage[op->outs + k];
		XGROW(pr->remat, pr->cap_remat, pr->n_remat + 1);
		pr->remat[pr->n_remat++] = st;
		XGROW(pr->fresh, pr->cap_fresh, pr->n_fresh + 1);
		pr->fresh[pr->n_fresh++] = st;
	}
}

static size_t evict_after(void *ctx, size_t i, bool done, const uint32_t **list)
{
	struct plan_run *pr = ctx;
	const struct schedule *s = pr->s;
	size_t n = 0, nf = 0;
	if (done) {
		schedule_count_handles(s, &s->cmds[i], pr->refs);
		nf = pr->forced_off[i + 1] - pr->forced_off[i];
	}
	XGROW(pr->list, pr->cap_list, nf + pr->n_remat + 1);
	memcpy(pr->list, pr->forced + pr->forced_off[i], nf * sizeof *pr->list);
	n = nf;
	/* Mid-command, the storages of the rematerialization just done are
	 * not offered yet: its caller locks them as soon as it returns. */
	size_t keep = 0;
	for (size_t k = 0; k < pr->n_remat; k++) {
		uint32_t st = pr->remat[k];
		if (pr->refs[st])
			continue;
		bool fresh = false;
		for (size_t q = 0; q < pr->n_fresh && !done && !fresh; q++)
			fresh = pr->fresh[q] == st;
		if (!fresh)
			pr->list[n++] = st;
		pr->remat[keep++] = st; /* offered again until the command ends */
	}
	pr->n_remat = done ? 0 : keep;
	if (done)
		pr->n_fresh = 0;
	*list = pr->list;
	return n;
}

/* plan_replay_wraps's recomputations: before command i, the tensors of
 * the storages of the segments it triggers that handles hold. */
static size_t remat_before(void *ctx, size_t i, const struct runtime_action **list)
{
	struct plan_run *pr = ctx;
	const struct schedule *s = pr->s;
	size_t n = 0;
	for (uint32_t g = pr->trig_off[i]; g < pr->trig_off[i + 1]; g++) {
		uint32_t seg = pr->trig[g];
		for (uint32_t k = pr->gst_off[seg]; k < pr->gst_off[seg + 1]; k++) {
			uint32_t st = pr->gst[k];
			if (!pr->refs[st])
				continue;
			const struct sched_storage *ss = &s->storages[st];
			XGROW(pr->want, pr->cap_want, n + ss->n_tensors);
			for (uint32_t q = 0; q < ss->n_tensors; q++)
				pr->want[n++] = (struct runtime_action){
					RUNTIME_ACT_REMAT, s->storage_tensors[ss->tensors + q]};
		}
	}
	*list = pr->want;
	return n;
}

static int replay(const struct schedule *s, const struct baseline *b, const size_t *splits,
		  size_t n_splits, const bool *as_usual, const bool *recompute, bool whole,
		  bool check, void (*observe)(void *ctx, const struct runtime_event *ev),
		  void *ctx, struct plan_result *out, struct rs_error *err);

/* For plan_replay_wraps: s's commands with each wrapped segment's inputs
 * held, as a checkpoint keeps the arguments of the function it wraps
 * until the last tensor it saved is freed: a GET of each tensor that the
 * segment's ops read and that an op before it made (no constant) before
 * the segment's first command, and its RELEASE after the last backward op
 * that reads a storage the segment made (what autograd saved: the wrap's
 * backward then ends), or at the segment's end when none does. */
static struct sched_cmd *held_inputs(const struct schedule *s, const uint32_t *fwd, size_t n,
				     const uint32_t *seg, size_t n_splits, const bool *as_usual,
				     size_t *n_out)
{
	size_t ng = n_splits;
	uint32_t *first_cmd = xmalloc((ng + 1) * sizeof *first_cmd);
	uint32_t *end_cmd = xmalloc((ng + 1) * sizeof *end_cmd);
	uint32_t *rel_at = xmalloc((ng + 1) * sizeof *rel_at);
	uint32_t *first_op = xmalloc((ng + 1) * sizeof *first_op);
	for (size_t g = 0; g <= ng; g++)
		first_cmd[g] = end_cmd[g] = rel_at[g] = first_op[g] = NONE;
	uint32_t *cmd_of = xmalloc((s->n_ops + 1) * sizeof *cmd_of);
	for (size_t i = 0; i < s->n_cmds; i++)
		if (s->cmds[i].kind == CMD_COMPUTE)
			cmd_of[s->cmds[i].id] = (uint32_t)i;
	for (size_t i = 0; i < n; i++) {
		uint32_t g = seg[fwd[i]];
		if (g >= ng || (as_usual && as_usual[g]))
			continue;
		if (first_op[g] == NONE) {
			first_op[g] = fwd[i];
			first_cmd[g] = cmd_of[fwd[i]];
		}
		/* the segment ends at the next op's command */
		end_cmd[g] = fwd[i] + 1 < s->n_ops ? cmd_of[fwd[i] + 1] : (uint32_t)s->n_cmds;
	}
	/* the inputs, one tensor per storage, by segment (CSR: the forward ops
	 * come segment after segment) */
	uint32_t *in_off = xcalloc(ng + 2, sizeof *in_off), *in = NULL;
	size_t n_in = 0, cap_in = 0;
	uint32_t *stamp = xcalloc(s->n_storages + 1, sizeof *stamp);
	for (size_t i = 0; i < n; i++) {
		uint32_t g = seg[fwd[i]];
		if (g >= ng || first_op[g] == NONE)
			continue;
		const struct sched_op *op = &s->ops[fwd[i]];
		for (uint32_t a = 0; a < op->n_args; a++) {
			uint32_t t = s->op_args[op->args + a], st = s->arg_storage[op->args + a];
			uint32_t root = s->tensors[schedule_storage_root(s, st)].op;
			if (root >= first_op[g] || s->ops[root].constant || stamp[st] == g + 1)
				continue;
			stamp[st] = g + 1;
			XGROW(in, cap_in, n_in + 1);
			in[n_in++] = t;
			in_off[g + 1]++;
		}
	}
	for (size_t g = 0; g < ng; g++)
		in_off[g + 1] += in_off[g];
	free(stamp);
	/* where each segment's backward ends: the last backward op that reads
	 * a storage the segment made (what autograd saved of it) */
	bool bwd = false;
	for (size_t i = 0; i < s->n_cmds; i++) {
		const struct sched_cmd *c = &s->cmds[i];
		if (c->kind != CMD_COMPUTE)
			continue;
		const struct sched_op *op = &s->ops[c->id];
		bwd = bwd || op->backward;
		if (!bwd)
			continue;
		for (uint32_t a = 0; a < op->n_args; a++) {
			uint32_t g = seg[s->tensors[schedule_storage_root(s, s->arg_storage[op->args + a])].op];
			if (g < ng && first_op[g] != NONE)
				rel_at[g] = (uint32_t)i;
		}
	}
	/* the commands, with the GETs before each segment's first and the
	 * RELEASEs after their point (or before its end): per command, linked
	 * lists of segments */
	uint32_t *h_get = xmalloc((s->n_cmds + 1) * sizeof *h_get);
	uint32_t *h_end = xmalloc((s->n_cmds + 1) * sizeof *h_end);
	uint32_t *h_rel = xmalloc((s->n_cmds + 1) * sizeof *h_rel);
	uint32_t *nx_get = xmalloc((ng + 1) * sizeof *nx_get);
	uint32_t *nx_end = xmalloc((ng + 1) * sizeof *nx_end);
	uint32_t *nx_rel = xmalloc((ng + 1) * sizeof *nx_rel);
	for (size_t i = 0; i <= s->n_cmds; i++)
		h_get[i] = h_end[i] = h_rel[i] = NONE;
	for (size_t g = ng; g-- > 0;) {
		if (first_op[g] == NONE || in_off[g] == in_off[g + 1])
			continue;
		nx_get[g] = h_get[first_cmd[g]];
		h_get[first_cmd[g]] = (uint32_t)g;
		if (rel_at[g] == NONE) {
			nx_end[g] = h_end[end_cmd[g]];
			h_end[end_cmd[g]] = (uint32_t)g;
		} else {
			nx_rel[g] = h_rel[rel_at[g]];
			h_rel[rel_at[g]] = (uint32_t)g;
		}
	}
	struct sched_cmd *out = xmalloc((s->n_cmds + 2 * n_in + 1) * sizeof *out);
	size_t k = 0;
	for (size_t i = 0; i <= s->n_cmds; i++) {
		for (uint32_t g = h_get[i]; g != NONE; g = nx_get[g])
			for (uint32_t q = in_off[g]; q < in_off[g + 1]; q++)
				out[k++] = (struct sched_cmd){.kind = CMD_GET, .id = in[q]};
		for (uint32_t g = h_end[i]; g != NONE; g = nx_end[g])
			for (uint32_t q = in_off[g]; q < in_off[g + 1]; q++)
				out[k++] = (struct sched_cmd){.kind = CMD_RELEASE, .id = in[q]};
		if (i == s->n_cmds)
			break;
		out[k++] = s->cmds[i];
		for (uint32_t g = h_rel[i]; g != NONE; g = nx_rel[g])
			for (uint32_t q = in_off[g]; q < in_off[g + 1]; q++)
				out[k++] = (struct sched_cmd){.kind = CMD_RELEASE, .id = in[q]};
	}
	free(h_get);
	free(h_end);
	free(h_rel);
	free(nx_get);
	free(nx_end);
	free(nx_rel);
	free(first_cmd);
	free(end_cmd);
	free(rel_at);
	free(first_op);
	free(cmd_of);
	free(in_off);
	free(in);
	*n_out = k;
	return out;
}

/* For plan_replay_wraps: each segment's storages the plan evicts (when[st]
 * set; seg: the segment of each op), and the command that first needs one
 * of them back, a backward op reading one, where the segment is recomputed. */
static void whole_segments(const struct schedule *s, const uint32_t *seg, const uint32_t *when,
			   size_t n_splits, struct plan_run *pr)
{
	pr->gst_off = xcalloc(n_splits + 2, sizeof *pr->gst_off);
	for (size_t st = 0; st < s->n_storages; st++)
		if (when[st] != NONE)
			pr->gst_off[seg[s->tensors[schedule_storage_root(s, (uint32_t)st)].op] + 1]++;
	for (size_t g = 0; g < n_splits; g++)
		pr->gst_off[g + 1] += pr->gst_off[g];
	pr->gst = xmalloc((pr->gst_off[n_splits] + 1) * sizeof *pr->gst);
	uint32_t *fill = xmemdup(pr->gst_off, (n_splits + 1) * sizeof *fill);
	for (size_t st = 0; st < s->n_storages; st++)
		if (when[st] != NONE)
			pr->gst[fill[seg[s->tensors[schedule_storage_root(s, (uint32_t)st)].op]]++] =
				(uint32_t)st;
	free(fill);
	bool *done = xcalloc(n_splits + 1, sizeof *done);
	pr->trig_off = xcalloc(s->n_cmds + 2, sizeof *pr->trig_off);
	pr->trig = xmalloc((n_splits + 1) * sizeof *pr->trig);
	uint32_t nt = 0;
	for (size_t i = 0; i < s->n_cmds; i++) {
		pr->trig_off[i] = nt;
		const struct sched_cmd *c = &s->cmds[i];
		if (c->kind != CMD_COMPUTE || !s->ops[c->id].backward)
			continue;
		const struct sched_op *op = &s->ops[c->id];
		for (uint32_t a = 0; a < op->n_args; a++) {
			uint32_t st = s->arg_storage[op->args + a];
			if (when[st] == NONE)
				continue;
			uint32_t g = seg[s->tensors[schedule_storage_root(s, st)].op];
			if (!done[g]) {
				done[g] = true;
				pr->trig[nt++] = g;
			}
		}
	}
	pr->trig_off[s->n_cmds] = nt;
	free(done);
}

int plan_replay(const struct schedule *s, const struct baseline *b, const size_t *splits,
		size_t n_splits, bool check, struct plan_result *out, struct rs_error *err)
{
	return replay(s, b, splits, n_splits, NULL, NULL, false, check, NULL, NULL, out, err);
}

int plan_replay_observed(const struct schedule *s, const struct baseline *b, const size_t *splits,
			 size_t n_splits, bool check,
			 void (*observe)(void *ctx, const struct runtime_event *ev), void *ctx,
			 struct plan_result *out, struct rs_error *err)
{
	return replay(s, b, splits, n_splits, NULL, NULL, false, check, observe, ctx, out, err);
}

int plan_replay_wraps(const struct schedule *s, const struct baseline *b, const size_t *splits,
		      size_t n_splits, const bool *as_usual, bool check, struct plan_result *out,
		      struct rs_error *err)
{
	return replay(s, b, splits, n_splits, as_usual, NULL, true, check, NULL, NULL, out, err);
}

int plan_replay_recompute(const struct schedule *s, const struct baseline *b,
			  const bool *recompute, bool check, struct plan_result *out,
			  struct rs_error *err)
{
	return replay(s, b, NULL, 0, NULL, recompute, false, check, NULL, NULL, out, err);
}

static int replay(const struct schedule *s, const struct baseline *b, const size_t *splits,
		  size_t n_splits, const bool *as_usual, const bool *recompute, bool whole,
		  bool check, void (*observe)(void *ctx, const struct runtime_event *ev),
		  void *ctx, struct plan_result *out, struct rs_error *err)
{
	memset(out, 0, sizeof *out);
	uint32_t *fwd;
	size_t n = plan_forward_ops(s, &fwd);
	for (size_t k = 0; k < n_splits; k++)
		if (splits[k] > n || (k && splits[k] <= splits[k - 1])) {
			free(fwd);
			return rs_error_set(err, EXIT_USAGE, s->source, 0,
					    "split point %zu (%zu) is %s", k + 1, splits[k],
					    splits[k] > n ? "past the last forward op"
							  : "not above the one before it");
		}
	double t0 = now_seconds();

	/* Per op: its segment (NONE: not a forward op) and command. */
	uint32_t *seg = xmalloc((s->n_ops + 1) * sizeof *seg);
	uint32_t *cmd_of = xmalloc((s->n_ops + 1) * sizeof *cmd_of);
	for (size_t i = 0; i < s->n_ops; i++)
		seg[i] = NONE;
	for (size_t i = 0, k = 0; i < n; i++) {
		while (k < n_splits && splits[k] <= i)
			k++;
		seg[fwd[i]] = recompute ? (uint32_t)i : (uint32_t)k;
	}
	/* plan_replay_wraps: the same schedule but for its commands, which
	 * hold each wrap's inputs */
	struct schedule held;
	struct sched_cmd *held_cmds = NULL;
	if (whole) {
		held = *s;
		held.cmds = held_cmds = held_inputs(s, fwd, n, seg, n_splits, as_usual, &held.n_cmds);
		s = &held;
	}
	for (size_t i = 0; i < s->n_cmds; i++)
		if (s->cmds[i].kind == CMD_COMPUTE)
			cmd_of[s->cmds[i].id] = (uint32_t)i;

	/* Per storage: the last forward op that uses it, and the latest
	 * segment of such a use. */
	uint32_t *last = xmalloc((s->n_storages + 1) * sizeof *last);
	uint32_t *last_seg = xmalloc((s->n_storages + 1) * sizeof *last_seg);
	for (size_t st = 0; st < s->n_storages; st++)
		last[st] = last_seg[st] = NONE;
	for (size_t i = 0; i < n; i++) {
		const struct sched_op *op = &s->ops[fwd[i]];
		for (uint32_t a = 0; a < op->n_args; a++) {
			uint32_t st = s->arg_storage[op->args + a];
			last[st] = fwd[i];
			if (last_seg[st] == NONE || seg[fwd[i]] > last_seg[st])
				last_seg[st] = seg[fwd[i]];
		}
	}
	/* The evictions the plan asks for, by command. */
	uint32_t *off = xcalloc(s->n_cmds + 2, sizeof *off);
	uint32_t *when = xmalloc((s->n_storages + 1) * sizeof *when);
	for (size_t st = 0; st < s->n_storages; st++) {
		when[st] = NONE;
		uint32_t o = s->tensors[schedule_storage_root(s, st)].op;
		uint32_t c = seg[o];
		if (recompute) {
			if (c == NONE || !recompute[c])
				continue; /* not a forward op's, or saved */
		} else {
			if (c == NONE || c >= n_splits || (as_usual && as_usual[c]))
				continue; /* not made by a checkpointed segment */
			if (last_seg[st] != NONE && last_seg[st] > c)
				continue; /* a later segment's input: a checkpoint */
		}
		uint32_t at = last[st] != NONE && last[st] > o ? last[st] : o;
		when[st] = cmd_of[at];
		off[when[st] + 1]++;
	}
	for (size_t i = 0; i < s->n_cmds; i++)
		off[i + 1] += off[i];
	uint32_t *forced = xmalloc((off[s->n_cmds] + 1) * sizeof *forced);
	uint32_t *fill = xmemdup(off, (s->n_cmds + 1) * sizeof *off);
	for (size_t st = 0; st < s->n_storages; st++)
		if (when[st] != NONE)
			forced[fill[when[st]]++] = (uint32_t)st;
	free(fill);
	struct plan_run pr = {.s = s};
	if (whole)
		whole_segments(s, seg, when, n_splits, &pr);
	free(when);
	free(last);
	free(last_seg);
	free(seg);
	free(cmd_of);
	free(fwd);

	pr.observe = observe;
	pr.observe_ctx = ctx;
	pr.forced = forced;
	pr.forced_off = off;
	pr.refs = xcalloc(s->n_storages + 1, sizeof *pr.refs);
	struct runtime_config cfg = {
		.runtime = RUNTIME_V2_EAGER,
		.heuristic = NULL,
		.budget = UINT64_MAX / 2,
		.remat_limit = INFINITY,
		.check = check,
		.on_event = on_event,
		.evict_after = evict_after,
		.before = whole ? remat_before : NULL,
		.ctx = &pr,
	};
	int rc = runtime_run(s, &cfg, &out->run, err);
	free(held_cmds);
	free(pr.trig);
	free(pr.trig_off);
	free(pr.gst);
	free(pr.gst_off);
	free(pr.want);
	free(pr.refs);
	free(pr.remat);
	free(pr.fresh);
	free(pr.list);
	free(forced);
	free(off);
	if (rc)
		return -1;
	out->runtime = cfg.runtime;
	out->overhead = b->compute > 0 ? (double)out->run.clock / (double)b->compute : INFINITY;
	out->ratio = b->memory > 0 ? (double)out->run.peak_memory / (double)b->memory : INFINITY;
	out->wall_ms = (now_seconds() - t0) * 1e3;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Explicit schedules.                                                  */

void plan_steps_free(struct plan_steps *ps)
{
	free(ps->node_op);
	free(ps->steps);
	free(ps->frees);
	memset(ps, 0, sizeof *ps);
}

/* Per command, what the explicit plan runs before it (actions) and evicts
 * right after it (storages), both CSR by command index. */
struct steps_run {
	const struct runtime_action *act;
	const uint32_t *act_off;
	const uint32_t *after;
	const uint32_t *after_off;
	void (*observe)(void *ctx, const struct runtime_event *ev); /* NULL: none */
	void *observe_ctx;
};

static void steps_event(void *ctx, const struct runtime_event *ev)
{
	const struct steps_run *sr = ctx;
	sr->observe(sr->observe_ctx, ev);
}

static size_t steps_before(void *ctx, size_t i, const struct runtime_action **list)
{
	const struct steps_run *sr = ctx;
	*list = sr->act + sr->act_off[i];
	return sr->act_off[i + 1] - sr->act_off[i];
}

static size_t steps_after(void *ctx, size_t i, bool done, const uint32_t **list)
{
	const struct steps_run *sr = ctx;
	*list = sr->after + sr->after_off[i];
	return done ? sr->after_off[i + 1] - sr->after_off[i] : 0;
}

/* The storages a node owns (its outputs that are not views). */
static uint32_t owned(const struct schedule *s, uint32_t op, uint32_t *out)
{
	const struct sched_op *o = &s->ops[op];
	uint32_t n = 0;
	for (uint32_t k = 0; k < o->n_outs; k++)
		if (s->tensors[o->outs + k].alias < 0) {
			if (out)
				out[n] = s->tensor_storage[o->outs + k];
			n++;
		}
	return n;
}

int plan_replay_steps(const struct schedule *s, const struct baseline *b,
		      const struct plan_steps *ps, bool check, struct plan_result *out,
		      struct rs_error *err)
{
	return plan_replay_steps_observed(s, b, ps, check, NULL, NULL, out, err);
}

int plan_replay_steps_observed(const struct schedule *s, const struct baseline *b,
			       const struct plan_steps *ps, bool check,
			       void (*observe)(void *ctx, const struct runtime_event *ev), void *ctx,
			       struct plan_result *out, struct rs_error *err)
{
	memset(out, 0, sizeof *out);
	const size_t T = ps->n_nodes;
	for (size_t t = 0; t < T; t++)
		if (ps->node_op[t] >= s->n_ops || s->ops[ps->node_op[t]].constant ||
		    (t && ps->node_op[t] <= ps->node_op[t - 1]))
			return rs_error_set(err, EXIT_SOFTWARE, s->source, 0,
					    "explicit plan: node %zu is not a non-constant op in "
					    "log order", t);
	/* The shape: stages in order, recomputations below their stage, frees
	 * of nodes that own storage, and a count of actions and evictions per
	 * command. A last stage, after every node's, runs before the command
	 * after the last COMPUTE (the log's final pins). */
	uint32_t *cmd_of = xmalloc((s->n_ops + 1) * sizeof *cmd_of);
	uint32_t end = (uint32_t)s->n_cmds;
	for (size_t i = 0; i < s->n_cmds; i++)
		if (s->cmds[i].kind == CMD_COMPUTE) {
			cmd_of[s->cmds[i].id] = (uint32_t)i;
			end = (uint32_t)i + 1;
		}
	uint32_t *act_off = xcalloc(s->n_cmds + 2, sizeof *act_off);
	uint32_t *after_off = xcalloc(s->n_cmds + 2, sizeof *after_off);
	const char *why = NULL;
	size_t t = 0, f = 0, bad = 0;
	for (size_t k = 0; k < ps->n_steps && !why; k++) {
		const struct plan_step *st = &ps->steps[k];
		uint32_t c = t < T ? cmd_of[ps->node_op[t]] : end;
		if (st->node >= T || st->node > t) {
			why = "a step past its stage";
		} else if (t == T && end >= s->n_cmds) {
			why = "a last stage with no command after it";
		} else if (st->n_free > ps->n_frees - f) {
			why = "more frees than listed";
		} else if (st->node < t && !s->ops[ps->node_op[st->node]].n_outs) {
			why = "a recomputation of a node without outputs";
		} else {
			uint32_t nf = 0;
			for (uint32_t j = 0; j < st->n_free && !why; j++) {
				uint32_t v = ps->frees[f + j];
				uint32_t n = v < T ? owned(s, ps->node_op[v], NULL) : 0;
				if (v > t || !n)
					why = "a free of a node that owns no storage yet";
				nf += n;
			}
			if (st->node < t)
				act_off[c + 1] += 1 + nf;
			else
				after_off[c + 1] += nf;
			f += st->n_free;
			t += st->node == t;
		}
		bad = k;
	}
	if (!why && (t != T || f != ps->n_frees))
		why = t != T ? "fewer stages than nodes" : "frees left over";
	if (why) {
		free(cmd_of);
		free(act_off);
		free(after_off);
		return rs_error_set(err, EXIT_SOFTWARE, s->source, 0,
				    "explicit plan: %s (step %zu)", why, bad);
	}
	for (size_t i = 0; i < s->n_cmds; i++) {
		act_off[i + 1] += act_off[i];
		after_off[i + 1] += after_off[i];
	}
	struct runtime_action *act = xmalloc((act_off[s->n_cmds] + 1) * sizeof *act);
	uint32_t *after = xmalloc((after_off[s->n_cmds] + 1) * sizeof *after);
	uint32_t *afill = xmemdup(act_off, (s->n_cmds + 1) * sizeof *act_off);
	uint32_t *efill = xmemdup(after_off, (s->n_cmds + 1) * sizeof *after_off);
	uint32_t *tmp = xmalloc((s->n_storages + 1) * sizeof *tmp);
	t = 0;
	f = 0;
	for (size_t k = 0; k < ps->n_steps; k++) {
		const struct plan_step *st = &ps->steps[k];
		uint32_t c = t < T ? cmd_of[ps->node_op[t]] : end;
		if (st->node < t)
			act[afill[c]++] = (struct runtime_action){
				RUNTIME_ACT_REMAT, s->ops[ps->node_op[st->node]].outs};
		for (uint32_t j = 0; j < st->n_free; j++) {
			uint32_t n = owned(s, ps->node_op[ps->frees[f + j]], tmp);
			for (uint32_t q = 0; q < n; q++) {
				if (st->node < t)
					act[afill[c]++] = (struct runtime_action){RUNTIME_ACT_EVICT, tmp[q]};
				else
					after[efill[c]++] = tmp[q];
			}
		}
		f += st->n_free;
		t += st->node == t;
	}
	free(tmp);
	free(afill);
	free(efill);
	free(cmd_of);

	double t0 = now_seconds();
	struct steps_run sr = {act, act_off, after, after_off, observe, ctx};
	struct runtime_config cfg = {
		.runtime = RUNTIME_V2,
		.heuristic = NULL,
		.budget = UINT64_MAX / 2,
		.remat_limit = INFINITY,
		.check = check,
		.on_event = observe ? steps_event : NULL,
		.before = steps_before,
		.evict_after = steps_after,
		.ctx = &sr,
	};
	int rc = runtime_run(s, &cfg, &out->run, err);
	free(act);
	free(act_off);
	free(after);
	free(after_off);
	if (rc)
		return -1;
	out->runtime = cfg.runtime;
	out->overhead = b->compute > 0 ? (double)out->run.clock / (double)b->compute : INFINITY;
	out->ratio = b->memory > 0 ? (double)out->run.peak_memory / (double)b->memory : INFINITY;
	out->wall_ms = (now_seconds() - t0) * 1e3;
	return 0;
}
