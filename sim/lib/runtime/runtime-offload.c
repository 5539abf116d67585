/*
 * runtime-offload.c: the host link (runtime_config.offload, docs/offload.md).
 * Owns the off part of struct runtime_state: where each storage's bytes
 * are, the two copy channels, the bytes under way and on the host.
 *
 * The model: one device-to-host and one host-to-device channel, each
 * serial (a copy starts when the channel is free and the clock has come),
 * both overlapping compute. A victim the policy offloads is evicted at
 * once as far as the rest of the runtime knows (regions, classes, the
 * pool), but its bytes count until its copy ends; an op that needs room
 * only those copies can give waits for them (a stall). A tensor of an
 * offloaded storage that was defined when it left comes back by a copy to
 * the device, which the op that needs it waits for; a prefetch starts that
 * copy ahead, its bytes counted from its start.
 *
 * Invariants (check mode, runtime-check.c): memory == the material
 * storages' bytes + pending + incoming; host == the bytes of storages not
 * RT_DEVICE; a tensor is held only while its storage is not RT_DEVICE.
 * With offload off nothing here runs: every hook in runtime-commands.c
 * tests off.on first.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heuristics.h"
#include "runtime-commands.h"
#include "runtime-offload.h"
#include "runtime-regions.h"
#include "runtime-state.h"

const char *offload_policy_name(enum offload_policy p)
{
	switch (p) {
	case OFFLOAD_COST: return "cost";
	case OFFLOAD_LOCAL: return "local";
	case OFFLOAD_SWAP: return "swap";
	}
	return "?";
}

int offload_policy_parse(const char *name, enum offload_policy *p)
{
	if (!strcasecmp(name, "cost"))
		*p = OFFLOAD_COST;
	else if (!strcasecmp(name, "local"))
		*p = OFFLOAD_LOCAL;
	else if (!strcasecmp(name, "swap"))
		*p = OFFLOAD_SWAP;
	else
		return -1;
	return 0;
}

int64_t offload_copy_ns(const struct offload_config *c, uint64_t bytes, bool back)
{
	bool own = back && c->h2d_bandwidth > 0;
	double bw = own ? c->h2d_bandwidth : c->bandwidth;
	double ns = (double)(own ? c->h2d_latency_ns : c->latency_ns);
	if (!isinf(bw) && bytes)
		ns += ceil((double)bytes * 1e9 / bw);
	return ns >= (double)RT_REMAT_CAP ? RT_REMAT_CAP : (int64_t)ns;
}

void rt_offload_init(struct runtime_state *rt)
{
	struct rt_offload *o = &rt->off;
	o->on = true;
	o->c = rt->cfg->offload;
	o->where = xcalloc(rt->s->n_storages + 1, 1);
	o->held = xcalloc(rt->s->n_tensors + 1, 1);
	o->d2h.free_at = o->h2d.free_at = rt->clock;
}

void rt_offload_free(struct runtime_state *rt)
{
	struct rt_offload *o = &rt->off;
	free(o->where);
	free(o->held);
	free(o->d2h.s);
	free(o->d2h.end);
	free(o->h2d.s);
	free(o->h2d.end);
}

/* ---- channels ------------------------------------------------------------ */

/* Queue a copy of s taking dur ns: *start and the end it returns. */
static int64_t channel_push(struct runtime_state *rt, struct rt_channel *ch, uint32_t s, int64_t dur,
			    int64_t *start)
{
	if (ch->head == ch->len)
		ch->head = ch->len = 0;
	if (ch->len == ch->cap) {
		size_t c2 = ch->cap;
		XGROW(ch->s, ch->cap, ch->len + 1);
		XGROW(ch->end, c2, ch->cap);
	}
	*start = ch->free_at > rt->clock ? ch->free_at : rt->clock;
	int64_t end = *start + dur;
	ch->free_at = end;
	ch->s[ch->len] = s;
	ch->end[ch->len++] = end;
	return end;
}

/* Cancel s's queued copy (its channel time is spent all the same). */
static void channel_cancel(struct rt_channel *ch, uint32_t s)
{
	for (size_t i = ch->head; i < ch->len; i++)
		if (ch->s[i] == s) {
			ch->s[i] = RT_NONE;
			return;
		}
}

static void emit(struct runtime_state *rt, enum runtime_event_kind kind, uint32_t s, int64_t start,
		 int64_t end)
{
	if (!rt->cfg->on_event)
		return;
	struct runtime_event ev = {
		.kind = kind, .clock = rt->clock, .memory = rt->memory,
		.memory_high = rt->memory, .op = RT_NONE, .storage = s,
		.cmd = rt->cmd, .start = start, .end = end,
	};
	rt->cfg->on_event(rt->cfg->ctx, &ev);
}

static void host_add(struct runtime_state *rt, uint64_t bytes)
{
	rt->off.host += bytes;
	if (rt->off.host > rt->res->peak_host_memory)
		rt->res->peak_host_memory = rt->off.host;
}

/* s leaves the host link: its tensors' host copy is gone. */
static void forget(struct runtime_state *rt, uint32_t s)
{
	const struct schedule *sc = rt->s;
	for (uint32_t i = 0; i < rt->st[s].n_tensors; i++)
		rt->off.held[sc->storage_tensors[sc->storages[s].tensors + i]] = 0;
	rt->off.host -= rt->key[s].size;
	rt->off.where[s] = RT_DEVICE;
}

/* ---- retiring copies ------------------------------------------------------- */

void rt_offload_settle(struct runtime_state *rt)
{
	struct rt_offload *o = &rt->off;
	struct rt_channel *d = &o->d2h, *h = &o->h2d;
	while (d->head < d->len && d->end[d->head] <= rt->clock) {
		uint32_t s = d->s[d->head++];
		if (s == RT_NONE)
			continue;
		uint64_t size = rt->key[s].size;
		o->where[s] = RT_HOST;
		o->pending -= size;
		rt->memory -= size;
		emit(rt, EV_OFFLOADED, s, 0, 0);
	}
	while (h->head < h->len && h->end[h->head] <= rt->clock) {
		uint32_t s = h->s[h->head++];
		if (s == RT_NONE)
			continue;
		o->incoming -= rt->key[s].size;
		rt_restore(rt, s);
		forget(rt, s);
	}
}

/* The clock waits until `until` (a stall). */
static int stall(struct runtime_state *rt, int64_t until)
{
	if (until > rt->clock) {
		rt->res->stall_ns += until - rt->clock;
		rt->clock = until;
	}
	return rt_offload_over_limit(rt) ? OUTCOME_THRASH : 0;
}

bool rt_offload_over_limit(const struct runtime_state *rt)
{
	int64_t over = rt->res->remat_compute + rt->res->stall_ns;
	return (double)over > rt->cfg->remat_limit || over > RT_REMAT_CAP;
}

int rt_offload_wait(struct runtime_state *rt)
{
	struct rt_channel *d = &rt->off.d2h;
	while (d->head < d->len && d->s[d->head] == RT_NONE)
		d->head++;
	if (d->head == d->len)
		return OUTCOME_OOM;
	int rc = stall(rt, d->end[d->head]);
	rt_offload_settle(rt);
	return rc;
}

/* ---- choosing drop or offload ---------------------------------------------- */

/*
 * The cost rule. Dropping s costs its recomputation when it is next
 * needed: compute(s), and where the runtime keeps regions (the e*
 * heuristics) the compute of its evicted neighbourhood too, as DTR
 * reckons it (e*); the local rule counts compute(s) alone. Offloading
 * costs the wait it may cause now (the copies queued before it on the
 * channel out, then its own: the op that needs the room waits for them)
 * and the copy back, which the op that needs s waits for. The victim is
 * offloaded when that takes no longer (ties go to the copy: with an
 * infinite link nothing is ever recomputed) and the host has room. Swap
 * offloads every victim, and stops (OOM) when the host is full.
 */
int rt_offload_decide(struct runtime_state *rt, uint32_t s)
{
	const struct offload_config *c = rt->off.c;
	uint64_t size = rt->key[s].size;
	bool room = !c->host_memory || (rt->off.host <= c->host_memory && size <= c->host_memory - rt->off.host);
	if (c->policy == OFFLOAD_SWAP)
		return room ? 1 : -1;
	if (!room)
		return 0;
	int64_t recompute = rt->key[s].compute;
	if (rt->regions && c->policy == OFFLOAD_COST)
		recompute = rt_wadd(recompute, rt_wadd(rt_region_compute(rt, s, false), rt_region_compute(rt, s, true)));
	int64_t there_and_back = offload_copy_ns(c, size, false) + offload_copy_ns(c, size, true);
	const struct rt_channel *d = &rt->off.d2h;
	int64_t queued = d->free_at > rt->clock ? d->free_at - rt->clock : 0;
	return queued + there_and_back <= recompute;
}

void rt_offload_start(struct runtime_state *rt, uint32_t s)
{
	const struct schedule *sc = rt->s;
	struct rt_offload *o = &rt->off;
	uint64_t size = rt->key[s].size;
	for (uint32_t i = 0; i < rt->st[s].n_tensors; i++) {
		uint32_t t = sc->storage_tensors[sc->storages[s].tensors + i];
		o->held[t] = rt->defined[t];
	}
	rt_evict_keep_bytes(rt, s);
	o->where[s] = RT_OUT;
	o->pending += size;
	host_add(rt, size);
	int64_t dur = offload_copy_ns(o->c, size, false), start;
	int64_t end = channel_push(rt, &o->d2h, s, dur, &start);
	rt->res->offloads++;
	rt->res->bytes_offloaded += size;
	rt->res->d2h_busy_ns += dur;
	emit(rt, EV_OFFLOAD, s, start, end);
}

/* ---- bringing back ------------------------------------------------------------ */

int rt_offload_bring(struct runtime_state *rt, uint32_t s)
{
	struct rt_offload *o = &rt->off;
	uint64_t size = rt->key[s].size;
	int rc = 0;
	switch ((enum rt_where)o->where[s]) {
	case RT_OUT: /* its bytes are still here: the copy is cancelled */
		channel_cancel(&o->d2h, s);
		o->pending -= size;
		rt_restore(rt, s);
		forget(rt, s);
		return 0;
	case RT_IN: { /* a prefetch: wait for it */
		struct rt_channel *h = &o->h2d;
		int64_t end = rt->clock;
		for (size_t i = h->head; i < h->len; i++)
			if (h->s[i] == s)
				end = h->end[i];
		rc = stall(rt, end);
		rt_offload_settle(rt); /* brings s back, and what came before it */
		return rc;
	}
	case RT_HOST: {
		int64_t dur = offload_copy_ns(o->c, size, true), start;
		int64_t end = channel_push(rt, &o->h2d, RT_NONE, dur, &start);
		rt->res->fetches++;
		rt->res->bytes_fetched += size;
		rt->res->h2d_busy_ns += dur;
		rc = stall(rt, end);
		rt->memory += size;
		rt_peak_update(rt);
		rt_restore(rt, s);
		forget(rt, s);
		emit(rt, EV_FETCH, s, start, end);
		return rc;
	}
	case RT_DEVICE:
		break;
	}
	rt_bug_at(rt, "bringing back a storage with no host copy", s);
}

void rt_offload_recomputed(struct runtime_state *rt, uint32_t s)
{
	struct rt_offload *o = &rt->off;
	uint64_t size = rt->key[s].size;
	switch ((enum rt_where)o->where[s]) {
	case RT_DEVICE:
		return;
	case RT_OUT: /* its bytes were counted twice: once now */
		channel_cancel(&o->d2h, s);
		o->pending -= size;
		rt->memory -= size;
		break;
	case RT_IN:
		channel_cancel(&o->h2d, s);
		o->incoming -= size;
		rt->memory -= size;
		break;
	case RT_HOST:
		break;
	}
	forget(rt, s);
}

void rt_offload_released(struct runtime_state *rt, uint32_t s)
{
	if (rt->off.where[s] == RT_DEVICE)
		return;
	/* as for a recomputation, and what it held is gone too */
	rt_offload_recomputed(rt, s);
}

/* ---- prefetch ------------------------------------------------------------------- */

void rt_offload_prefetch(struct runtime_state *rt, size_t i)
{
	struct rt_offload *o = &rt->off;
	const struct schedule *sc = rt->s;
	uint32_t left = o->c->prefetch;
	if (!left)
		return;
	rt_offload_settle(rt); /* memory as of now */
	for (size_t k = i + 1; k < sc->n_cmds && left; k++) {
		if (sc->cmds[k].kind != CMD_COMPUTE)
			continue;
		left--;
		const struct sched_op *op = &sc->ops[sc->cmds[k].id];
		for (uint32_t a = 0; a < op->n_args; a++) {
			uint32_t t = sc->op_args[op->args + a];
			uint32_t s = rt_storage_of(rt, t);
			uint64_t size = rt->key[s].size;
			if (rt->defined[t] || !o->held[t] || o->where[s] != RT_HOST ||
			    rt_over(rt, rt->memory + size))
				continue;
			int64_t dur = offload_copy_ns(o->c, size, true), start;
			int64_t end = channel_push(rt, &o->h2d, s, dur, &start);
			o->where[s] = RT_IN;
			o->incoming += size;
			rt->memory += size;
			rt_peak_update(rt);
			rt->res->fetches++;
			rt->res->bytes_fetched += size;
			rt->res->h2d_busy_ns += dur;
			emit(rt, EV_FETCH, s, start, end);
		}
	}
}
