/*
 * repair.c: see repair.h. The kept sets are a bit matrix (a row per stage,
 * T + 2 rows of ceil((T + 1) / 64) words: the ILP's own S matrix, so no
 * larger than its model; START_MAX_NODES bounds T), with per stage its
 * peak, its recomputations' cost, and which storages it reads and which
 * nodes it computes (two more such matrices).
 */
#include "repair.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baselines.h"
#include "hash.h"
#include "util.h"

struct rp {
	const struct profile_graph *g;
	size_t T, W;
	uint64_t B;
	uint64_t *K;      /* row t (1 .. T): kept into stage t; row T + 1: the pins */
	uint64_t *RD;     /* row t (0 .. T): the storages stage t reads */
	uint64_t *CM;     /* row t: the nodes stage t computes */
	uint64_t *kbytes; /* [T + 2]: bytes of row t of K */
	uint64_t *peak;   /* [T + 1] */
	int64_t *rcost;   /* [T + 1]: the stage's recomputations' cost */
	/* scratch, stamped per evaluation */
	uint32_t *mark, *lu, *luat, *gone, *stack, *list;
	uint64_t *cset;   /* [W]: the stage's computations, zero between */
	int64_t *delta;   /* [T + 1]: a trial's memory moves, by stage */
	uint32_t *order;  /* [T + 1]: stages over the budget */
	/* the saved state of an exchange */
	uint64_t *sK, *sRD, *sCM, *skbytes, *speak;
	int64_t *srcost;
	uint32_t *dmark, *dlist, dstamp;
	uint32_t stamp;
	double alpha;
	double noise;     /* each score times a draw from [1, 1 + noise) */
	uint64_t rng;
	double deadline;  /* now_seconds() past which no more work (0: none) */
	struct repair_stats st;
};

static inline uint64_t *row(uint64_t *m, size_t W, size_t t)
{
	return m + t * W;
}

static inline bool bit(const uint64_t *r, uint32_t i)
{
	return (r[i >> 6] >> (i & 63)) & 1;
}

static inline void bset(uint64_t *r, uint32_t i)
{
	r[i >> 6] |= UINT64_C(1) << (i & 63);
}

static inline void bclr(uint64_t *r, uint32_t i)
{
	r[i >> 6] &= ~(UINT64_C(1) << (i & 63));
}

static inline uint64_t excess(const struct rp *r, uint64_t p)
{
	return p > r->B ? p - r->B : 0;
}

/* A uniform draw in [0, 1): splitmix64's next 53 bits. */
static double draw(struct rp *r)
{
	return (double)(splitmix64_next(&r->rng) >> 11) * 0x1.0p-53;
}

/* Stage t's peak and recomputations' cost from rows t and t + 1 of K (as
 * steps.c's builder and evaluator have them); write: also its rows of RD
 * and CM. */
static void stage_eval(struct rp *r, uint32_t t, bool write, uint64_t *peak_out,
		       int64_t *cost_out)
{
	const struct profile_graph *g = r->g;
	const size_t T = r->T, W = r->W;
	const uint64_t *Kt = row(r->K, W, t), *Kn = row(r->K, W, t + 1);
	const uint32_t st = ++r->stamp;
	r->st.trials++;
	size_t ns = 0, nc = 0;
	if (t < T) {
		r->mark[t] = st;
		r->stack[ns++] = t;
	}
	for (size_t w = 0; w < W; w++) {
		uint64_t b = Kn[w] & ~Kt[w];
		while (b) {
			uint32_t i = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(b));
			b &= b - 1;
			if (r->mark[i] != st) {
				r->mark[i] = st;
				r->stack[ns++] = i;
			}
		}
	}
	uint64_t *cset = r->cset;
	while (ns) {
		uint32_t v = r->stack[--ns];
		bset(cset, v);
		nc++;
		for (uint32_t e = g->pred_off[v]; e < g->pred_off[v + 1]; e++) {
			uint32_t u = g->pred[e], b = g->base[u];
			bool have = bit(Kt, b) && (g->kind[u] == PGRAPH_OWN || r->mark[b] != st);
			if (!have && r->mark[u] != st) {
				r->mark[u] = st;
				r->stack[ns++] = u;
			}
		}
	}
	/* ascending (a topological order), from the set's bits, cleared */
	for (size_t w = 0, n = 0; n < nc; w++) {
		uint64_t b = cset[w];
		cset[w] = 0;
		while (b) {
			r->list[n++] = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(b));
			b &= b - 1;
		}
	}
	uint64_t *rd = write ? row(r->RD, W, t) : NULL, *cm = write ? row(r->CM, W, t) : NULL;
	if (write) {
		memset(rd, 0, W * sizeof *rd);
		memset(cm, 0, W * sizeof *cm);
	}
	r->st.work += W + nc;
	for (size_t q = 0; q < nc; q++) {
		uint32_t v = r->list[q];
		r->st.work += g->pred_off[v + 1] - g->pred_off[v];
		if (write)
			bset(cm, v);
		for (uint32_t e = g->pred_off[v]; e < g->pred_off[v + 1]; e++) {
			uint32_t s = g->base[g->pred[e]];
			r->lu[s] = v;
			r->luat[s] = st;
			if (write)
				bset(rd, s);
		}
	}
	uint64_t stat = g->static_bytes[t], dyn = r->kbytes[t], peak = 0;
	uint64_t grew = stat - (t ? g->static_bytes[t - 1] : 0);
	if (grew && nc)
		peak = stat + dyn;
	int64_t cost = 0;
	for (size_t q = 0; q < nc; q++) {
		uint32_t v = r->list[q];
		dyn += g->bytes[v];
		if (stat + dyn > peak)
			peak = stat + dyn;
		if (v < t)
			cost += g->cost[v];
		/* an input was made in this stage (before v) where it is marked */
		for (uint32_t e = g->pred_off[v]; e < g->pred_off[v + 1]; e++) {
			uint32_t s = g->base[g->pred[e]];
			if (r->luat[s] == st && r->lu[s] == v && !bit(Kn, s) && r->gone[s] != st &&
			    (bit(Kt, s) || r->mark[s] == st)) {
				dyn -= g->bytes[s];
				r->gone[s] = st;
			}
		}
		if (g->kind[v] == PGRAPH_OWN && r->luat[v] != st && !bit(Kn, v)) {
			dyn -= g->bytes[v];
			r->gone[v] = st;
		}
	}
	if (t == T && grew && stat + dyn > peak)
		peak = stat + dyn;
	*peak_out = peak;
	*cost_out = cost;
}

/* Drop v from rows s .. e of K (add: put it back in). */
static void set_run(struct rp *r, uint32_t v, uint32_t s, uint32_t e, bool add)
{
	for (uint32_t x = s; x <= e; x++) {
		uint64_t *k = row(r->K, r->W, x);
		if (add) {
			bset(k, v);
			r->kbytes[x] += r->g->bytes[v];
		} else {
			bclr(k, v);
			r->kbytes[x] -= r->g->bytes[v];
		}
	}
}

struct trial {
	int64_t dc;     /* recomputation added */
	int64_t de;     /* excess removed */
	uint64_t worst; /* the largest peak among the stages it touches */
};

/* A change of the kept sets: v kept into stages from .. to (add), or no
 * longer (drop). The stage before from and stage to are where work
 * changes (from - 1 keeps v or frees it; to recomputes it or not); the
 * stages between neither read nor make v (the moves choose them so),
 * and their memory moves by v's bytes throughout. */
struct change {
	uint32_t v, from, to;
	bool add;
};

#define MAX_CHANGES 64

/* What making the n changes does: the stages where work changes
 * evaluated, the others moved by the bytes. write: made (peaks, costs,
 * and the evaluated stages' RD and CM rows kept); else K is as before. */
static void trial(struct rp *r, const struct change *ch, size_t n, bool write, struct trial *tr)
{
	const struct profile_graph *g = r->g;
	uint32_t ex[2 * MAX_CHANGES];
	size_t nx = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t at[2] = {ch[i].from - 1, ch[i].to};
		for (int j = 0; j < 2; j++) {
			size_t q = 0;
			while (q < nx && ex[q] != at[j])
				q++;
			if (q == nx)
				ex[nx++] = at[j];
		}
	}
	/* the stages between: their deltas, summed */
	const uint32_t st = ++r->dstamp;
	size_t nd = 0;
	for (size_t q = 0; q < nx; q++) {
		r->dmark[ex[q]] = st;
		r->delta[ex[q]] = INT64_MIN; /* evaluated, not moved */
	}
	for (size_t i = 0; i < n; i++) {
		int64_t b = (int64_t)g->bytes[ch[i].v];
		for (uint32_t x = ch[i].from; x < ch[i].to; x++) {
			if (r->dmark[x] != st) {
				r->dmark[x] = st;
				r->delta[x] = 0;
				r->dlist[nd++] = x;
			} else if (r->delta[x] == INT64_MIN) {
				continue;
			}
			r->delta[x] += ch[i].add ? b : -b;
		}
	}
	int64_t old_e = 0, new_e = 0, dc = 0;
	uint64_t worst = 0;
	for (size_t q = 0; q < nd; q++) {
		uint32_t x = r->dlist[q];
		uint64_t p = (uint64_t)((int64_t)r->peak[x] + r->delta[x]);
		old_e += (int64_t)excess(r, r->peak[x]);
		new_e += (int64_t)excess(r, p);
		worst = p > worst ? p : worst;
		if (write)
			r->peak[x] = p;
	}
	for (size_t i = 0; i < n; i++)
		set_run(r, ch[i].v, ch[i].from, ch[i].to, ch[i].add);
	for (size_t q = 0; q < nx; q++) {
		uint32_t x = ex[q];
		uint64_t p;
		int64_t c;
		stage_eval(r, x, write, &p, &c);
		old_e += (int64_t)excess(r, r->peak[x]);
		new_e += (int64_t)excess(r, p);
		worst = p > worst ? p : worst;
		dc += c - r->rcost[x];
		if (write) {
			r->peak[x] = p;
			r->rcost[x] = c;
		}
	}
	if (!write)
		for (size_t i = n; i-- > 0;)
			set_run(r, ch[i].v, ch[i].from, ch[i].to, !ch[i].add);
	tr->de = old_e - new_e;
	tr->dc = dc;
	tr->worst = worst;
}

static void apply_run(struct rp *r, uint32_t v, uint32_t s, uint32_t e, bool add)
{
	struct change c = {v, s, e, add};
	struct trial tr;
	trial(r, &c, 1, true, &tr);
}

/* Drop what a stage keeps but neither reads nor keeps further, back to
 * front (as steps_build's pruning does: such an entry only holds memory),
 * re-evaluating the stages it changes. */
static void prune(struct rp *r)
{
	const size_t W = r->W;
	for (uint32_t t = (uint32_t)r->T; t >= 1; t--) {
		bool any = false;
		uint64_t *kt = row(r->K, W, t);
		const uint64_t *kn = row(r->K, W, t + 1), *rd = row(r->RD, W, t);
		for (size_t w = 0; w < W; w++) {
			uint64_t m = kt[w] & ~rd[w] & ~kn[w];
			while (m) {
				uint32_t v = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(m));
				m &= m - 1;
				bclr(kt, v);
				r->kbytes[t] -= r->g->bytes[v];
				any = true;
			}
		}
		if (any) {
			stage_eval(r, t - 1, true, &r->peak[t - 1], &r->rcost[t - 1]);
			stage_eval(r, t, true, &r->peak[t], &r->rcost[t]);
		}
	}
}

/* The last stage before e that reads or makes v (v's own at the latest). */
static uint32_t last_touch(const struct rp *r, uint32_t v, uint32_t e)
{
	uint32_t x = e - 1;
	while (x > v && !bit(r->RD + (size_t)x * r->W, v) && !bit(r->CM + (size_t)x * r->W, v))
		x--;
	return x;
}

/* The best drop of a value kept into stage t, made: 1, or 0 if no drop
 * lowers the excess. For a value v kept into t, the run of stages around
 * t that neither reads nor makes it is [s, y]; dropping it from s .. e
 * (t <= e <= y) changes stage s - 1 the same way for every e (evaluated
 * once) and stage e by its recomputation (evaluated per e, unless the
 * most excess it could remove, for the least recomputation it must add,
 * cannot beat the best move found). The drop with v's inputs kept is
 * tried at the ends the plain drop's bound leaves: a heuristic's choice
 * (its own bound is lower, as its inputs are not recomputed), which keeps
 * the search to the ends near the best. */
static int drop_at(struct rp *r, uint32_t t, bool local)
{
	const size_t W = r->W, T = r->T;
	const struct profile_graph *g = r->g;
	const uint64_t *kt = row(r->K, W, t), *rdt = row(r->RD, W, t);
	double best = INFINITY;
	int64_t best_de = 0;
	struct change bch[MAX_CHANGES];
	size_t nbest = 0;
	/* the next reader's stage first, for every value (a good move to
	 * bound the others by), then every other end */
	for (int pass = 0; pass < 2; pass++)
	for (size_t w = 0; w < W; w++) {
		uint64_t m = kt[w] & ~rdt[w];
		while (m) {
			uint32_t v = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(m));
			m &= m - 1;
			const uint64_t b = g->bytes[v];
			if (!b)
				continue;
			uint32_t s = t, y = t;
			while (s - 1 >= 1 && bit(row(r->K, W, s - 1), v) &&
			       !bit(row(r->RD, W, s - 1), v))
				s--;
			while (y + 1 <= T && bit(row(r->K, W, y + 1), v) && !bit(row(r->RD, W, y), v))
				y++;
			/* stage s - 1 without v kept into s */
			uint64_t p0;
			int64_t c0;
			uint64_t *ks = row(r->K, W, s);
			bclr(ks, v);
			r->kbytes[s] -= b;
			stage_eval(r, s - 1, false, &p0, &c0);
			bset(ks, v);
			r->kbytes[s] += b;
			int64_t de0 = (int64_t)excess(r, r->peak[s - 1]) - (int64_t)excess(r, p0);
			int64_t dc0 = c0 - r->rcost[s - 1];
			/* the stages between, s .. e - 1, for e = y first */
			int64_t mid = 0;
			for (uint32_t x = s; x < y; x++)
				mid += (int64_t)(excess(r, r->peak[x]) - excess(r, r->peak[x] - b));
			r->st.work += 2 * (uint64_t)(y - s) + 1; /* the walks, the ends below */
			bool needed_at_y = bit(row(r->K, W, y + 1), v) || bit(row(r->RD, W, y), v);
			for (uint32_t e = y + 1; e-- > t;) {
				if (e < y)
					mid -= (int64_t)(excess(r, r->peak[e]) - excess(r, r->peak[e] - b));
				if (pass == 0 && e < y)
					break;
				if (pass == 1 && e == y)
					continue;
				int64_t de_ub = de0 + mid + (int64_t)excess(r, r->peak[e]);
				int64_t dc_lb = dc0;
				if (e < y || needed_at_y) {
					/* v, and its inputs neither kept into e nor made there */
					dc_lb += g->cost[v];
					const uint64_t *ke0 = row(r->K, W, e), *cme = row(r->CM, W, e);
					for (uint32_t q = g->pred_off[v]; q < g->pred_off[v + 1]; q++) {
						uint32_t u = g->pred[q];
						if (g->kind[u] == PGRAPH_OWN && !bit(ke0, u) && !bit(cme, u))
							dc_lb += g->cost[u];
					}
				}
				if (local) /* what t's own excess could fall by */
					de_ub = e > t ? (int64_t)(excess(r, r->peak[t]) - excess(r, r->peak[t] - b))
						      : (int64_t)excess(r, r->peak[t]);
				if (de_ub <= 0 ||
				    (dc_lb >= 0 && best < INFINITY && (double)dc_lb / pow((double)de_ub, r->alpha) > best))
					continue;
				uint64_t *ke = row(r->K, W, e), p1;
				int64_t c1;
				bclr(ke, v);
				r->kbytes[e] -= b;
				stage_eval(r, e, false, &p1, &c1);
				bset(ke, v);
				r->kbytes[e] += b;
				int64_t de = de0 + mid + (int64_t)excess(r, r->peak[e]) -
					     (int64_t)excess(r, p1);
				int64_t dc = dc0 + c1 - r->rcost[e];
				if (local)
					de = e > t ? de_ub
						   : (int64_t)(excess(r, r->peak[t]) - excess(r, p1));
				double score = (double)dc / pow((double)de, r->alpha);
				if (r->noise > 0 && score > 0)
					score *= 1 + r->noise * draw(r);
				if (de > 0 && (score < best || (score == best && de > best_de))) {
					best = score;
					best_de = de;
					nbest = 1;
					bch[0] = (struct change){v, s, e, false};
				}
				/* v's inputs kept into e instead of recomputed there, where
				 * they weigh less than v */
				if (local || !(e < y || needed_at_y))
					continue;
				struct change ch[MAX_CHANGES];
				size_t n = 0;
				uint64_t in_bytes = 0;
				const uint64_t *cme = row(r->CM, W, e);
				bool ok = true;
				ch[n++] = (struct change){v, s, e, false};
				for (uint32_t q = g->pred_off[v]; q < g->pred_off[v + 1] && ok; q++) {
					uint32_t u = g->base[g->pred[q]];
					if (g->kind[u] != PGRAPH_OWN || bit(ke, u) || bit(cme, u))
						continue;
					uint32_t p = last_touch(r, u, e);
					for (uint32_t x = p + 1; x <= e && ok; x++)
						ok = !bit(row(r->K, W, x), u);
					in_bytes += g->bytes[u];
					ok = ok && n < MAX_CHANGES && in_bytes < b;
					if (ok)
						ch[n++] = (struct change){u, p + 1, e, true};
				}
				if (!ok || n == 1)
					continue;
				dc_lb = dc0 + g->cost[v];
				if (dc_lb >= 0 && best < INFINITY && (double)dc_lb / pow((double)de_ub, r->alpha) > best)
					continue;
				struct trial tr;
				trial(r, ch, n, false, &tr);
				if (tr.de <= 0)
					continue;
				score = (double)tr.dc / pow((double)tr.de, r->alpha);
				if (r->noise > 0 && score > 0)
					score *= 1 + r->noise * draw(r);
				if (score < best || (score == best && tr.de > best_de)) {
					best = score;
					best_de = tr.de;
					nbest = n;
					memcpy(bch, ch, n * sizeof *ch);
				}
			}
		}
	}
	if (best_de <= 0)
		return 0;
	struct trial tr;
	trial(r, bch, nbest, true, &tr);
	prune(r);
	r->st.moves++;
	return 1;
}

/* Take back recomputations where everything stays within the budget and
 * the whole costs less; 1 if any was. */
static int undo_pass(struct rp *r)
{
	const size_t W = r->W, T = r->T;
	const struct profile_graph *g = r->g;
	int any = 0;
	for (uint32_t e = 1; e <= T; e++) {
		for (size_t w = 0; w < W; w++) {
			uint64_t m = row(r->CM, W, e)[w];
			while (m) {
				uint32_t v = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(m));
				m &= m - 1;
				if (v >= e || g->kind[v] != PGRAPH_OWN || !bit(row(r->CM, W, e), v))
					continue;
				uint32_t x = last_touch(r, v, e);
				struct trial tr;
				struct change c = {v, x + 1, e, true};
				trial(r, &c, 1, false, &tr);
				if (tr.dc < 0 && tr.worst <= r->B) {
					apply_run(r, v, x + 1, e, true);
					prune(r);
					any = 1;
				}
			}
		}
	}
	return any;
}

/* Bounds on the work, not the time (the same answer on any machine),
 * about 1.5 s at most on this project's 2-core machine: the random
 * layered graphs need at most 0.4 of either (RL1000 at 80 %: 56k stage
 * evaluations, 19M words and edges); a 3,888-op DenseNet at 80 % of its
 * peak ran 500k evaluations and 250M words without reaching the budget. */
static bool over_bounds(const struct rp *r)
{
	return r->st.moves >= 64 * (uint64_t)r->T + 4096 ||
	       r->st.trials >= 100 * (uint64_t)r->T + 100000 || r->st.work >= 50000000 ||
	       deadline_past(r->deadline);
}

/* Drops, at the worst stage first, then at the others over the budget,
 * worst first, until one lowers the excess, until every stage is within
 * the budget (0), or no drop helps or the bounds (or max_moves more
 * moves) are reached (-1). */
static int reach_budget(struct rp *r, uint64_t max_moves)
{
	const size_t T = r->T;
	const uint64_t budget = r->B, moves0 = r->st.moves;
	uint32_t *order = r->order;
	for (;;) {
		size_t n_over = 0;
		for (uint32_t t = 0; t <= T; t++)
			if (r->peak[t] > budget)
				order[n_over++] = t;
		if (!n_over)
			return 0;
		if (over_bounds(r)) {
			r->st.bounded = true;
			return -1;
		}
		if (r->st.moves - moves0 >= max_moves)
			return -1;
		/* the worst first (selection: usually one or two tried) */
		int made = 0;
		for (size_t q = 0; q < n_over && !made; q++) {
			size_t best = q;
			for (size_t j = q + 1; j < n_over; j++)
				if (r->peak[order[j]] > r->peak[order[best]])
					best = j;
			uint32_t t = order[best];
			order[best] = order[q];
			order[q] = t;
			made = t >= 1 && drop_at(r, t, false);
		}
		/* no drop lowers the whole excess: one that lowers the worst
		 * stage's, whatever it adds elsewhere */
		if (!made && r->peak[order[0]] > budget) {
			uint32_t t = 0;
			for (uint32_t x = 1; x <= T; x++)
				if (r->peak[x] > r->peak[t])
					t = x;
			made = t >= 1 && drop_at(r, t, true);
		}
		if (!made)
			return -1;
	}
}

static int64_t total_cost(const struct rp *r)
{
	int64_t c = 0;
	for (size_t t = 0; t <= r->T; t++)
		c += r->rcost[t];
	return c;
}

/* The state a trial exchange may have to go back to. */
static void save(struct rp *r, bool back)
{
	const size_t T = r->T, W = r->W;
	struct {
		void *live, *copy;
		size_t bytes;
	} parts[] = {
		{r->K, r->sK, (T + 2) * W * sizeof *r->K},
		{r->RD, r->sRD, (T + 1) * W * sizeof *r->RD},
		{r->CM, r->sCM, (T + 1) * W * sizeof *r->CM},
		{r->kbytes, r->skbytes, (T + 2) * sizeof *r->kbytes},
		{r->peak, r->speak, (T + 1) * sizeof *r->peak},
		{r->rcost, r->srcost, (T + 1) * sizeof *r->rcost},
	};
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
		if (back)
			memcpy(parts[i].live, parts[i].copy, parts[i].bytes);
		else
			memcpy(parts[i].copy, parts[i].live, parts[i].bytes);
}

/* Exchanges: each recomputation taken back even where that passes the
 * budget, the budget reached again by drops (at most 8), recomputations
 * taken back again where they fit; kept where the whole costs less, else
 * undone. Passes until none is kept (at most 4), within the bounds. */
static void exchange(struct rp *r)
{
	const size_t W = r->W, T = r->T;
	const struct profile_graph *g = r->g;
	r->sK = xmalloc((T + 2) * W * sizeof *r->sK);
	r->sRD = xmalloc((T + 1) * W * sizeof *r->sRD);
	r->sCM = xmalloc((T + 1) * W * sizeof *r->sCM);
	r->skbytes = xmalloc((T + 2) * sizeof *r->skbytes);
	r->speak = xmalloc((T + 1) * sizeof *r->speak);
	r->srcost = xmalloc((T + 1) * sizeof *r->srcost);
	bool kept = true;
	for (int pass = 0; pass < 4 && kept && !over_bounds(r); pass++) {
		kept = false;
		for (uint32_t e = 1; e <= T && !over_bounds(r); e++) {
			for (uint32_t v = 0; v < e && !over_bounds(r); v++) {
				if (!bit(row(r->CM, W, e), v) || g->kind[v] != PGRAPH_OWN)
					continue;
				int64_t before = total_cost(r);
				save(r, false);
				apply_run(r, v, last_touch(r, v, e) + 1, e, true);
				prune(r);
				bool ok = !reach_budget(r, 8);
				if (ok)
					for (int q = 0; q < 4 && undo_pass(r); q++)
						;
				if (ok && total_cost(r) < before)
					kept = true;
				else
					save(r, true);
			}
		}
	}
	free(r->sK);
	free(r->sRD);
	free(r->sCM);
	free(r->skbytes);
	free(r->speak);
	free(r->srcost);
}

int start_repair(const struct profile_graph *g, uint64_t budget, double a, double deadline,
		 struct steps_kept *k, struct repair_stats *stats)
{
	return start_repair_noisy(g, budget, a, 0, 0, deadline, k, stats);
}

int start_repair_noisy(const struct profile_graph *g, uint64_t budget, double a, double noise,
		       uint64_t seed, double deadline, struct steps_kept *k,
		       struct repair_stats *stats)
{
	return start_repair_from(g, budget, a, noise, seed, deadline, NULL, 0, 0, k, stats);
}

int start_repair_from(const struct profile_graph *g, uint64_t budget, double a, double noise,
		      uint64_t seed, double deadline, const struct steps_kept *init, size_t wa,
		      size_t wb, struct steps_kept *k, struct repair_stats *stats)
{
	const size_t T = g->n, W = (T + 64) / 64;
	struct rp r = {.g = g, .T = T, .W = W, .B = budget, .alpha = a, .deadline = deadline,
		       .noise = noise, .rng = seed};
	r.K = xcalloc((T + 2) * W, sizeof *r.K);
	r.RD = xcalloc((T + 1) * W, sizeof *r.RD);
	r.CM = xcalloc((T + 1) * W, sizeof *r.CM);
	r.kbytes = xcalloc(T + 2, sizeof *r.kbytes);
	r.peak = xcalloc(T + 1, sizeof *r.peak);
	r.rcost = xcalloc(T + 1, sizeof *r.rcost);
	r.cset = xcalloc(W, sizeof *r.cset);
	r.delta = xcalloc(T + 1, sizeof *r.delta);
	r.dmark = xcalloc(T + 1, sizeof *r.dmark);
	r.dlist = xcalloc(T + 1, sizeof *r.dlist);
	r.order = xcalloc(T + 1, sizeof *r.order);
	uint32_t **scratch[] = {&r.mark, &r.lu, &r.luat, &r.gone, &r.stack, &r.list};
	for (size_t i = 0; i < sizeof scratch / sizeof scratch[0]; i++)
		*scratch[i] = xcalloc(T + 1, sizeof **scratch[i]);

	struct steps_kept all;
	baselines_keep_all(g, &all);
	for (size_t t = 1; t <= T; t++) {
		if (init)
			for (uint32_t j = init->off[t]; j < init->off[t + 1]; j++)
				if (!bit(row(r.K, W, t), init->node[j])) {
					bset(row(r.K, W, t), init->node[j]);
					r.kbytes[t] += g->bytes[init->node[j]];
				}
		if (init && (t < wa || t > wb))
			continue;
		for (uint32_t j = all.off[t]; j < all.off[t + 1]; j++)
			if (!bit(row(r.K, W, t), all.node[j])) {
				bset(row(r.K, W, t), all.node[j]);
				r.kbytes[t] += g->bytes[all.node[j]];
			}
	}
	steps_kept_free(&all);
	for (uint32_t i = 0; i < T; i++)
		if (g->keep[i] && g->kind[g->base[i]] == PGRAPH_OWN)
			bset(row(r.K, W, T + 1), g->base[i]);
	for (uint32_t t = 0; t <= T; t++)
		stage_eval(&r, t, true, &r.peak[t], &r.rcost[t]);
	prune(&r);

	int rc = reach_budget(&r, UINT64_MAX);
	if (!rc) {
		for (int pass = 0; pass < 16 && undo_pass(&r); pass++)
			;
		exchange(&r);
		r.st.bounded = false; /* an answer all the same */
	}

	if (!rc)
		steps_kept_from_bits(r.K, T, W, k);
	for (uint32_t t = 0; t <= T; t++) {
		r.st.peak = r.peak[t] > r.st.peak ? r.peak[t] : r.st.peak;
		r.st.remat_compute += r.rcost[t];
	}
	if (stats)
		*stats = r.st;
	for (size_t i = 0; i < sizeof scratch / sizeof scratch[0]; i++)
		free(*scratch[i]);
	free(r.K);
	free(r.RD);
	free(r.CM);
	free(r.kbytes);
	free(r.peak);
	free(r.rcost);
	free(r.cset);
	free(r.delta);
	free(r.dmark);
	free(r.dlist);
	free(r.order);
	return rc;
}
