/*
 * start.c: see start.h.
 */
#include "start.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baselines.h"
#include "hash.h"
#include "plan.h"
#include "repair.h"

#define NONE UINT32_MAX

/* Per storage (an OWN node), the nodes that read it (through a view too),
 * ascending (CSR). */
static void storage_users(const struct profile_graph *g, uint32_t **off_out, uint32_t **users_out)
{
	size_t T = g->n;
	uint32_t *off = xcalloc(T + 2, sizeof *off);
	uint32_t *stamp = xmalloc((T + 1) * sizeof *stamp);
	uint32_t *users = NULL, *fill = NULL;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i <= T; i++)
			stamp[i] = NONE;
		for (uint32_t k = 0; k < T; k++)
			for (uint32_t e = g->pred_off[k]; e < g->pred_off[k + 1]; e++) {
				uint32_t u = g->pred[e];
				if (g->kind[u] == PGRAPH_FIXED)
					continue;
				uint32_t b = g->base[u];
				if (stamp[b] == k)
					continue;
				stamp[b] = k;
				if (pass == 0)
					off[b + 1]++;
				else
					users[fill[b]++] = k;
			}
		if (pass == 0) {
			for (size_t i = 0; i < T; i++)
				off[i + 1] += off[i];
			users = xmalloc(((size_t)off[T] + 1) * sizeof *users);
			fill = xmemdup(off, (T + 1) * sizeof *fill);
		}
	}
	free(fill);
	free(stamp);
	*off_out = off;
	*users_out = users;
}

struct bel {
	const struct profile_graph *g;
	uint32_t *uoff, *users, *cur; /* readers per storage, a cursor each */
	uint8_t *mem;                 /* OWN node in memory */
	uint32_t *lock;               /* = stamp: needed by the computation at hand */
	uint32_t *need;               /* = stage + 1: computed in this stage */
	uint64_t used;                /* bytes of OWN nodes in memory */
	double a;
	double *pb;                   /* bytes^a per node (the same pow, once) */
};

/* The first reader of storage b after stage t (T + 1 if pinned and none;
 * NONE if none). */
static uint32_t next_use(struct bel *s, uint32_t b, uint32_t t)
{
	uint32_t k = s->cur[b], end = s->uoff[b + 1];
	while (k < end && s->users[k] <= t)
		k++;
	s->cur[b] = k;
	if (k < end)
		return s->users[k];
	return s->g->keep[b] ? (uint32_t)s->g->n : NONE;
}

/* Evict the best victim (not locked): 0, or -1 if none can go. */
static int evict_one(struct bel *s, uint32_t t, uint32_t stamp)
{
	const struct profile_graph *g = s->g;
	double best = -1;
	uint32_t who = NONE;
	for (uint32_t i = 0; i < g->n; i++) {
		if (!s->mem[i] || s->lock[i] == stamp || !g->bytes[i])
			continue;
		uint32_t nu = next_use(s, i, t);
		double score;
		if (nu == NONE) {
			score = INFINITY;
		} else {
			double c = g->cost[i] > 0 ? (double)g->cost[i] : 0.5;
			score = s->pb[i] * (double)(nu - t) / c;
		}
		if (score > best) {
			best = score;
			who = i;
		}
	}
	if (who == NONE)
		return -1;
	s->mem[who] = 0;
	s->used -= g->bytes[who];
	return 0;
}

int start_belady(const struct profile_graph *g, uint64_t budget, double a, double deadline,
		 struct steps_kept *k)
{
	const size_t T = g->n;
	struct bel s = {.g = g, .a = a};
	storage_users(g, &s.uoff, &s.users);
	s.cur = xmemdup(s.uoff, (T + 1) * sizeof *s.cur);
	s.mem = xcalloc(T + 1, 1);
	s.lock = xcalloc(T + 1, sizeof *s.lock);
	s.need = xcalloc(T + 1, sizeof *s.need);
	s.pb = xmalloc((T + 1) * sizeof *s.pb);
	for (size_t i = 0; i < T; i++)
		s.pb[i] = pow((double)g->bytes[i], a);
	uint32_t *list = xmalloc((T + 1) * sizeof *list);
	uint32_t *stack = xmalloc((T + 1) * sizeof *stack);
	k->T = T;
	k->off = xcalloc(T + 2, sizeof *k->off);
	size_t cap = 0, nk = 0;
	k->node = NULL;
	int rc = 0;
	uint32_t stamp = 0;
	for (uint32_t t = 0; t <= T && !rc; t++) {
		if (deadline_past(deadline)) {
			rc = -1;
			break;
		}
		/* what the stage computes: node t (none in the last) and every
		 * missing ancestor it needs; in the last stage, the pinned */
		size_t nl = 0, sp = 0;
		if (t < T) {
			s.need[t] = t + 1;
			stack[sp++] = t;
		} else {
			for (uint32_t i = 0; i < T; i++)
				if (g->keep[i] && g->kind[i] == PGRAPH_OWN && !s.mem[i] &&
				    s.need[i] != t + 1) {
					s.need[i] = t + 1;
					stack[sp++] = i;
				}
		}
		while (sp) {
			uint32_t v = stack[--sp];
			list[nl++] = v;
			for (uint32_t e = g->pred_off[v]; e < g->pred_off[v + 1]; e++) {
				uint32_t u = g->pred[e];
				if (g->kind[u] == PGRAPH_FIXED)
					continue;
				uint32_t b = g->base[u];
				if (s.mem[b] || s.need[b] == t + 1)
					continue;
				s.need[b] = t + 1;
				stack[sp++] = b;
			}
		}
		/* ascending: a topological order */
		for (size_t x = 1; x < nl; x++) {
			uint32_t v = list[x];
			size_t y = x;
			for (; y > 0 && list[y - 1] > v; y--)
				list[y] = list[y - 1];
			list[y] = v;
		}
		/* before each computation, what it and the stage's later ones
		 * read is locked (a recomputation happens once per stage);
		 * after it, an input nothing reads again goes */
		for (size_t x = 0; x < nl && !rc; x++) {
			uint32_t v = list[x];
			stamp++;
			for (size_t y = x; y < nl; y++)
				for (uint32_t e = g->pred_off[list[y]]; e < g->pred_off[list[y] + 1]; e++)
					if (g->kind[g->pred[e]] != PGRAPH_FIXED)
						s.lock[g->base[g->pred[e]]] = stamp;
			if (g->kind[v] == PGRAPH_OWN && !s.mem[v]) {
				uint64_t stat = g->static_bytes[t < T ? t : T];
				while (stat + s.used + g->bytes[v] > budget && !rc)
					rc = evict_one(&s, t, stamp);
				s.mem[v] = 1;
				s.used += g->bytes[v];
			}
			stamp++;
			for (size_t y = x + 1; y < nl; y++)
				for (uint32_t e = g->pred_off[list[y]]; e < g->pred_off[list[y] + 1]; e++)
					if (g->kind[g->pred[e]] != PGRAPH_FIXED)
						s.lock[g->base[g->pred[e]]] = stamp;
			for (uint32_t e = g->pred_off[v]; e < g->pred_off[v + 1]; e++) {
				if (g->kind[g->pred[e]] == PGRAPH_FIXED)
					continue;
				uint32_t b = g->base[g->pred[e]];
				if (s.mem[b] && s.lock[b] != stamp && next_use(&s, b, t) == NONE) {
					s.mem[b] = 0;
					s.used -= g->bytes[b];
				}
			}
		}
		/* the stage's end: what nothing reads again goes */
		for (uint32_t i = 0; i < T; i++)
			if (s.mem[i] && next_use(&s, i, t) == NONE) {
				s.mem[i] = 0;
				s.used -= g->bytes[i];
			}
		if (t < T) {
			k->off[t + 1] = (uint32_t)nk;
			for (uint32_t i = 0; i <= t; i++)
				if (s.mem[i] && g->kind[i] == PGRAPH_OWN) {
					XGROW(k->node, cap, nk + 1);
					k->node[nk++] = i;
				}
		}
	}
	k->off[T + 1] = (uint32_t)nk;
	/* one slot past the last, as every steps_kept has (steps_build copies it) */
	XGROW(k->node, cap, nk + 1);
	free(stack);
	free(list);
	free(s.need);
	free(s.pb);
	free(s.lock);
	free(s.mem);
	free(s.cur);
	free(s.uoff);
	free(s.users);
	if (rc)
		steps_kept_free(k);
	return rc;
}

void start_answer_free(struct start_answer *ans)
{
	if (ans->found)
		steps_kept_free(&ans->kept);
	memset(ans, 0, sizeof *ans);
}

/* Cost k, the candidate of rank `rank` in start_best's order; keep it in
 * ans if it fits and is cheaper, or as cheap and of a lower rank (it is
 * consumed). */
static int consider(const struct profile_graph *g, uint64_t budget, struct steps_kept *k,
		    unsigned rank, const char *from, struct start_answer *ans, struct rs_error *err)
{
	struct plan_steps ps;
	struct steps_cost c;
	if (steps_build(g, k, true, &ps, err) || steps_eval(g, &ps, &c, err)) {
		plan_steps_free(&ps);
		steps_kept_free(k);
		return -1;
	}
	plan_steps_free(&ps);
	if (c.peak <= budget &&
	    (!ans->found || c.remat_compute < ans->cost.remat_compute ||
	     (c.remat_compute == ans->cost.remat_compute && rank < ans->rank))) {
		if (ans->found)
			steps_kept_free(&ans->kept);
		ans->found = true;
		ans->kept = *k;
		ans->cost = c;
		ans->rank = rank;
		snprintf(ans->from, sizeof ans->from, "%s", from);
		return 0;
	}
	steps_kept_free(k);
	return 0;
}

/* The randomized repairs (start_best): how many at most, their score's
 * noise, their summed work at most (repair_stats.work: a second or two
 * on the project's 2-core machine), and their share of the time left
 * before a deadline. */
#define RESTARTS 64
#define RESTART_NOISE 3.0
#define RESTART_WORK 400000000
#define RESTART_SHARE 0.1

/* Randomized repairs (repair.h, start_repair_noisy), each from its own
 * draw of the seed, kept where cheaper than ans (ranks from `rank`). */
static int restarts(const struct profile_graph *g, uint64_t budget, uint64_t seed,
		    double deadline, unsigned rank, struct start_answer *ans,
		    struct rs_error *err)
{
	static const double ra[] = {0.5, 0.75, 1, 1.5, 2, 3, 4};
	const size_t na = sizeof ra / sizeof ra[0];
	double now = now_seconds(), end = deadline > 0 ? now + RESTART_SHARE * (deadline - now) : 0;
	uint64_t work = 0;
	char from[96];
	for (unsigned i = 0; i < RESTARTS && work < RESTART_WORK && !deadline_past(end); i++) {
		struct steps_kept k;
		struct repair_stats rs;
		/* each draw's own stream: from the seed's i-th splitmix64 output */
		uint64_t z = splitmix64(seed + (uint64_t)i * 0x9e3779b97f4a7c15ULL);
		int rc = start_repair_noisy(g, budget, ra[i % na], RESTART_NOISE, z, end, &k, &rs);
		work += rs.work;
		if (rc)
			continue;
		snprintf(from, sizeof from, "randomized repair a=%g (seed %" PRIu64 ", draw %u)",
			 ra[i % na], seed, i + 1);
		if (consider(g, budget, &k, rank + i, from, ans, err))
			return -1;
	}
	return 0;
}

int start_best(const struct profile *p, uint64_t budget, uint64_t seed, double deadline,
	       struct start_answer *ans, struct rs_error *err)
{
	memset(ans, 0, sizeof *ans);
	const struct profile_graph *g = p->graph;
	/* The candidates' ranks, the order in which a tie goes to the first:
	 * Belady's (0-3), the repair's (4-6), checkpoint-all (7), Chen's
	 * (8 on). They are tried in another order, so that a short time
	 * limit still finds a schedule where one of the first two of a kind
	 * does: Belady a=1, the repair a=1, then the others of each kind. */
	static const double as[] = {1, 0.5, 1.5, 2}, ra[] = {1, 2, 3};
	static const struct { bool repair; unsigned q; } order[] = {
		{false, 0}, {true, 0}, {false, 1}, {false, 2}, {false, 3}, {true, 1}, {true, 2},
	};
	char from[96];
	struct steps_kept k;
	bool repair_bounded = false, repaired = false;
	for (size_t o = 0; o < sizeof order / sizeof order[0] && !deadline_past(deadline); o++) {
		unsigned q = order[o].q;
		if (!order[o].repair) {
			if (!start_belady(g, budget, as[q], deadline, &k)) {
				snprintf(from, sizeof from, "Belady a=%g", as[q]);
				if (consider(g, budget, &k, q, from, ans, err))
					return -1;
			}
			continue;
		}
		if (repair_bounded)
			continue; /* the others would spend as much */
		struct repair_stats rs;
		if (!start_repair(g, budget, ra[q], deadline, &k, &rs)) {
			repaired = true;
			snprintf(from, sizeof from, "repair a=%g", ra[q]);
			if (consider(g, budget, &k, 4 + q, from, ans, err))
				return -1;
		} else if (rs.bounded) {
			repair_bounded = true;
		}
	}
	if (deadline_past(deadline))
		return 0;
	baselines_keep_all(g, &k);
	if (consider(g, budget, &k, 7, "checkpoint-all", ans, err))
		return -1;
	uint8_t *fwd = baselines_forward(p);
	bool *cp = xcalloc(g->n + 1, sizeof *cp);
	uint64_t total = 0;
	for (size_t v = 0; v < g->n; v++)
		total += fwd[v] ? g->bytes[v] : 0;
	int rc = 0;
	unsigned rank = 8;
	for (int ap = 1; ap >= 0 && !rc && !deadline_past(deadline); ap--) {
		baselines_chen_sqrtn(g, fwd, ap, cp);
		baselines_kept(g, fwd, cp, &k);
		rc = consider(g, budget, &k, rank++, ap ? "chen-sqrtn" : "chen-sqrtn-noap", ans, err);
		for (int d = 1; d <= 64 && !rc && !deadline_past(deadline); d *= 2) {
			baselines_chen_greedy(g, fwd, ap, total / (uint64_t)d, cp);
			baselines_kept(g, fwd, cp, &k);
			snprintf(from, sizeof from, "%s B=total/%d", ap ? "chen-greedy" : "chen-greedy-noap",
				 d);
			rc = consider(g, budget, &k, rank++, from, ans, err);
		}
	}
	free(cp);
	free(fwd);
	if (!rc && repaired && !repair_bounded && !deadline_past(deadline))
		rc = restarts(g, budget, seed, deadline, rank, ans, err);
	return rc;
}
