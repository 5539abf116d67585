/*
 * revolve.c: see revolve.h. The split point: with t the repetition number
 * of (l, s), p(x, s) is the convex piecewise-linear function that equals
 * t x - C(s + t, s + 1) on (C(s + t - 1, s), C(s + t, s)], and Pascal's
 * rule gives p(l, s) = m + p(l - m, s - 1) + p(m, s) for every m with
 * l - m in [C(s + t - 2, s - 1), C(s + t - 1, s - 1)] (repetition number t
 * for s - 1 snapshots) and m in [C(s + t - 2, s), C(s + t - 1, s)]
 * (repetition number t - 1 for s). We take the largest such m.
 */
#include "revolve.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
#define HUGE_N UINT64_MAX

/* C(a + b, a), saturating at HUGE_N; b may be -1 (0). */
static uint64_t beta(uint64_t a, int64_t b)
{
	if (b < 0)
		return 0;
	unsigned __int128 c = 1;
	for (uint64_t i = 1; i <= (uint64_t)b; i++) {
		/* C(a+i, i) = C(a+i-1, i-1) (a+i) / i, exact; a + i in 128 bits:
		 * a may be near 2^64 (--snapshots 2^64-1, issue 40, H12) */
		c = c * ((unsigned __int128)a + i) / i;
		if (c > HUGE_N)
			return HUGE_N;
	}
	return (uint64_t)c;
}

/* The repetition number: the smallest t with l <= C(s + t, s). */
static uint64_t reps(uint64_t l, uint64_t s)
{
	uint64_t t = 0;
	unsigned __int128 c = 1; /* C(s + t, s) */
	while (c < l) { /* s + t in 128 bits: s may be near 2^64 (it wrapped to 0 and spun) */
		t++;
		c = c * ((unsigned __int128)s + t) / t;
	}
	return t;
}

uint64_t revolve_closed_form(uint64_t n, uint64_t s)
{
	uint64_t t = reps(n, s);
	unsigned __int128 c = 1; /* C(s + t, s + 1) = C(s + t, s) t / (s + 1) */
	c = beta(s, (int64_t)t);
	c = c * t / (s + 1);
	unsigned __int128 p = (unsigned __int128)t * n - c;
	return p > HUGE_N ? HUGE_N : (uint64_t)p;
}

/* The split point of l steps with s >= 2 snapshots (l >= 2). */
static uint64_t split(uint64_t l, uint64_t s)
{
	int64_t t = (int64_t)reps(l, s);
	uint64_t lo = beta(s, t - 2), hi = beta(s, t - 1);
	uint64_t b1 = beta(s - 1, t), b0 = beta(s - 1, t - 1);
	if (l > b1 && l - b1 > lo)
		lo = l - b1;
	if (l - b0 < hi)
		hi = l - b0;
	if (lo < 1)
		lo = 1;
	if (hi > l - 1)
		hi = l - 1;
	if (lo > hi)
		rs_bug("revolve: no split point for %llu steps and %llu snapshots",
		       (unsigned long long)l, (unsigned long long)s);
	return hi;
}

struct frame {
	uint64_t a, l, s, m;
	bool child_done;
};

uint64_t revolve_run(uint64_t n, uint64_t s, void (*emit)(void *ctx, const struct revolve_action *a),
		     void *ctx)
{
	uint64_t steps = 0;
	if (!n || !s)
		return 0;
	size_t cap = (size_t)(s < 64 ? s : 64) + 2, len = 0;
	struct frame *st = xmalloc(cap * sizeof *st);
	st[len++] = (struct frame){0, n, s, 0, false};
#define EMIT(K, F, T) do { struct revolve_action act_ = {(K), (F), (T)}; emit(ctx, &act_); } while (0)
	while (len) {
		struct frame *f = &st[len - 1];
		if (f->child_done) {
			/* x_{a+m} .. x_{a+l} reversed: back to x_a for the first m */
			EMIT(REVOLVE_RESTORE, f->a, f->a);
			*f = (struct frame){f->a, f->m, f->s, 0, false};
			continue;
		}
		if (f->l == 1) {
			EMIT(REVOLVE_TURN, f->a, f->a + 1);
			len--;
			if (len)
				st[len - 1].child_done = true;
			continue;
		}
		if (f->s == 1) {
			/* one snapshot (x_a): walk up to x_{a+l-1}, turn, start over */
			EMIT(REVOLVE_ADVANCE, f->a, f->a + f->l - 1);
			steps += f->l - 1;
			EMIT(REVOLVE_TURN, f->a + f->l - 1, f->a + f->l);
			EMIT(REVOLVE_RESTORE, f->a, f->a);
			f->l--;
			continue;
		}
		uint64_t m = split(f->l, f->s);
		EMIT(REVOLVE_ADVANCE, f->a, f->a + m);
		steps += m;
		EMIT(REVOLVE_TAKESHOT, f->a + m, f->a + m);
		f->m = m;
		struct frame child = {f->a + m, f->l - m, f->s - 1, 0, false};
		XGROW(st, cap, len + 1);
		st[len++] = child;
	}
#undef EMIT
	free(st);
	return steps;
}

/* ------------------------------------------------------------------ */
/* On a log.                                                            */

/* The snapshots seen while the schedule runs: per position, the stage it
 * was taken in and the last stage that read it. */
struct rv {
	uint64_t n;
	uint64_t stage;   /* the stage the actions run in */
	uint64_t *taken;  /* [n + 1] per position: NONE or the stage */
	uint64_t *last;   /* [n + 1] */
	uint64_t cur;     /* the position of the current state */
	/* (stage, node) pairs of what stays in memory */
	uint32_t (*pairs)[2];
	size_t n_pairs, cap_pairs;
	bool broken;
};

static void add_pair(struct rv *r, uint64_t stage, uint64_t node)
{
	XGROW(r->pairs, r->cap_pairs, r->n_pairs + 1);
	r->pairs[r->n_pairs][0] = (uint32_t)stage;
	r->pairs[r->n_pairs][1] = (uint32_t)node;
	r->n_pairs++;
}

/* A snapshot of x_c (node c - 1) ends: kept into stages taken+1 .. last. */
static void close_snapshot(struct rv *r, uint64_t c)
{
	if (r->taken[c] == NONE)
		return;
	for (uint64_t t = r->taken[c] + 1; t <= r->last[c]; t++)
		add_pair(r, t, c - 1);
	r->taken[c] = NONE;
}

static void on_action(void *ctx, const struct revolve_action *a)
{
	struct rv *r = ctx;
	switch (a->kind) {
	case REVOLVE_ADVANCE:
		r->broken |= r->cur != a->from;
		r->cur = a->to;
		break;
	case REVOLVE_TAKESHOT:
		if (a->to) {
			close_snapshot(r, a->to); /* a position snapshotted again */
			/* made in the forward pass in node to-1's stage, later in this one */
			r->taken[a->to] = r->stage == NONE ? a->to - 1 : r->stage;
			r->last[a->to] = r->taken[a->to];
		}
		break;
	case REVOLVE_RESTORE:
		r->cur = a->to;
		if (r->taken[a->to] != NONE)
			r->last[a->to] = r->stage;
		break;
	case REVOLVE_TURN:
		/* step i is reversed by backward op n - i, in stage 2n - i */
		r->broken |= r->cur != a->to - 1;
		r->stage = 2 * r->n - a->to;
		if (a->to > 1 && r->taken[a->to - 1] != NONE)
			r->last[a->to - 1] = r->stage;
		r->cur = NONE;
		/* the next actions run before the next turn, in its stage */
		r->stage = a->to > 1 ? 2 * r->n - (a->to - 1) : r->stage;
		break;
	}
}

static int by_pair(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;
	if (x[0] != y[0])
		return (x[0] > y[0]) - (x[0] < y[0]);
	return (x[1] > y[1]) - (x[1] < y[1]);
}

int revolve_plan(const struct profile *p, uint64_t s, struct steps_kept *k, uint64_t *fwd_steps,
		 struct rs_error *err)
{
	memset(k, 0, sizeof *k);
	const struct profile_graph *g = p->graph;
	const struct schedule *sc = p->s;
	if (!s)
		return rs_error_set(err, EXIT_USAGE, NULL, 0,
				    "revolve needs at least one snapshot (the one holding the input)");
	const size_t n = p->n, T = g->n;
	/* The shape: forward nodes 0 .. n-1 in a chain, n backward nodes, the
	 * r-th reading of the chain at most x_{n-r-1} (node n-r-2). */
	const char *why = NULL;
	uint32_t bad = 0;
	if (T != 2 * n)
		return rs_error_set(err, EXIT_DATAERR, sc->source, 0,
				    "revolve plans uniform chains (as `rematsim gen linear` writes "
				    "them): this log has %zu forward ops and %zu others, not as many",
				    n, T - n);
	for (uint32_t j = 0; j < n && !why; j++) {
		uint32_t np = g->pred_off[j + 1] - g->pred_off[j];
		bad = j;
		if (g->kind[j] != PGRAPH_OWN || p->op[j] != g->op[j])
			why = "is not an op of the chain (a view, or not a forward op)";
		else if (j ? np != 1 || g->pred[g->pred_off[j]] != j - 1 : np != 0)
			why = j ? "does not read exactly the previous forward op"
				: "reads another op (the chain's first op reads only constants)";
	}
	for (uint32_t r = 0; r < n && !why; r++) {
		uint32_t b = (uint32_t)n + r;
		bad = b;
		for (uint32_t e = g->pred_off[b]; e < g->pred_off[b + 1] && !why; e++) {
			uint32_t u = g->pred[e];
			if (u < n && (n < r + 2 || u != n - r - 2))
				why = "reads a forward op other than the input of the step it reverses";
		}
		if (g->kind[b] != PGRAPH_OWN)
			why = "is a view";
	}
	if (why) {
		const struct sched_op *op = T ? &sc->ops[g->op[bad]] : NULL;
		return rs_error_set(err, EXIT_DATAERR, sc->source, op ? op->line : 0,
				    "revolve plans uniform chains (as `rematsim gen linear` writes "
				    "them): op %s %s", op ? schedule_str(sc, op->name) : "?", why);
	}

	struct rv r = {.n = n, .stage = NONE, .cur = 0};
	r.taken = xmalloc((n + 1) * sizeof *r.taken);
	r.last = xmalloc((n + 1) * sizeof *r.last);
	for (size_t i = 0; i <= n; i++)
		r.taken[i] = r.last[i] = NONE;
	*fwd_steps = revolve_run(n, s, on_action, &r);
	for (uint64_t c = 1; c <= n; c++)
		close_snapshot(&r, c);
	if (r.broken) {
		free(r.taken);
		free(r.last);
		free(r.pairs);
		return rs_error_set(err, EXIT_SOFTWARE, NULL, 0,
				    "revolve: an advance or turn from the wrong state");
	}
	/* Besides the snapshots: each forward value into the next forward
	 * op's stage, every other value until its last reader (or the end). */
	for (uint32_t j = 0; j + 1 < n; j++)
		add_pair(&r, j + 1, j);
	for (uint32_t i = (uint32_t)n; i < T; i++) {
		uint32_t last = g->keep[i] ? (uint32_t)T : i; /* T: the last stage */
		for (uint32_t e = g->succ_off[i]; e < g->succ_off[i + 1]; e++)
			if (g->succ[e] > last)
				last = g->succ[e];
		for (uint32_t t = i + 1; t <= last; t++)
			add_pair(&r, t, i);
	}
	if (r.n_pairs)
		qsort(r.pairs, r.n_pairs, sizeof *r.pairs, by_pair);
	k->T = T;
	k->off = xcalloc(T + 2, sizeof *k->off);
	k->node = xmalloc((r.n_pairs + 1) * sizeof *k->node);
	size_t w = 0;
	for (size_t q = 0; q < r.n_pairs; q++) {
		if (q && r.pairs[q][0] == r.pairs[q - 1][0] && r.pairs[q][1] == r.pairs[q - 1][1])
			continue;
		if (r.pairs[q][0] > T)
			continue;
		k->node[w++] = r.pairs[q][1];
		k->off[r.pairs[q][0] + 1] = (uint32_t)w;
	}
	for (size_t t = 1; t <= T + 1; t++)
		if (k->off[t] < k->off[t - 1])
			k->off[t] = k->off[t - 1];
	free(r.pairs);
	free(r.taken);
	free(r.last);
	return 0;
}
