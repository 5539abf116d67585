/*
 * lagrange.c: see lagrange.h. Stage t (0 .. T) ends with node t; node i
 * lives in stages i+1 .. reach(i) (the last stage a path from it reaches,
 * T where the log pins what it feeds), as in ilp.c: R[t,i] and S[t,i]
 * exist there. Memory rows are scaled by the budget so that their
 * multipliers move at the pace of the input rows'.
 */
#include "lagrange.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define NONE UINT32_MAX
/* The step's scale at the last iteration (it starts at 1). A step that
 * halved after 15 iterations without a gain (until 1e-4) stopped RL250's
 * bound at 90 % at 580 ns in 788 iterations; this schedule gives 674 in
 * 2,000 and 736 in 10,000 (the LP's optimum 751.5): docs/solvers.md. */
#define THETA_END 0.03
/* Nanoseconds per live pair or input row and iteration, for
 * lagrange_iterations: measured 2.8 on RL250 and RL500, 5 on RL1000
 * (caches), with the fixing. */
#define NS_PER_ITEM 5.0

struct lg {
	const struct profile_graph *g;
	size_t T, n_pairs, n_mu;
	uint32_t *reach;   /* [T] */
	uint32_t *poff;    /* [T + 1]: node i's pairs (stages i+1 .. reach) from poff[i] */
	double *a;         /* [pairs]: S's coefficient in the row of stage t-1 (scaled) */
	uint8_t *demand;   /* [pairs]: there in stage t (node t reads it, or pinned at T) */
	double *cap;       /* [T]: the row's right-hand side (scaled) */
	double *lambda;    /* [T] */
	uint32_t *muoff;   /* [pairs + 1]: the input rows of R[t,k], k's inputs in order */
	double *mu;        /* [n_mu] */
	int8_t *gmu;       /* [n_mu]: their subgradient at this iterate (-2 to 1) */
	double *cR, *cS;   /* [pairs] */
	uint8_t *sel;      /* [pairs]: bit 0 S, bit 1 R */
	uint8_t *bp;       /* [pairs]: back pointers of the shortest path */
	double *gs;        /* [T] */
	/* reduced-cost fixing (upper >= 0): a node's forward costs, the
	 * pairs fixed so far (a bit each) */
	double *fw0, *fw1; /* [largest pair count of a node] */
	uint64_t *fx;      /* [pairs / 64 + 1] */
};

static size_t pair_of(const struct lg *L, uint32_t i, size_t t)
{
	return L->poff[i] + (t - i - 1);
}

/* The memory rows: for stage s < T, node s's single-op need; the values
 * kept into s+1 other than node s and its inputs' storages count. */
static void rows_init(struct lg *L, uint64_t budget)
{
	const struct profile_graph *g = L->g;
	const size_t T = L->T;
	const double scale = budget ? (double)budget : 1;
	uint32_t *stamp = xmalloc((T + 1) * sizeof *stamp);
	for (size_t i = 0; i <= T; i++)
		stamp[i] = NONE;
	for (size_t s = 0; s < T; s++) {
		uint64_t need = profile_graph_op_need(g, s, stamp);
		L->cap[s] = budget >= need ? (double)(budget - need) / scale : -1;
	}
	/* a[p] for (t, j): j OWN, not node t-1, not a storage node t-1 reads */
	for (size_t j = 0; j < T; j++) {
		if (g->kind[j] != PGRAPH_OWN || !g->bytes[j])
			continue;
		for (size_t t = j + 1; t <= L->reach[j]; t++)
			L->a[pair_of(L, (uint32_t)j, t)] = (double)g->bytes[j] / scale;
	}
	for (size_t s = 0; s < T; s++) {
		/* node s itself lives in s+1 only if it has a reader: its pair */
		if (L->reach[s] > s)
			L->a[pair_of(L, (uint32_t)s, s + 1)] = 0;
		for (uint32_t e = g->pred_off[s]; e < g->pred_off[s + 1]; e++) {
			uint32_t b = g->base[g->pred[e]];
			if (g->kind[b] != PGRAPH_FIXED && L->reach[b] >= s + 1 && b < s + 1)
				L->a[pair_of(L, b, s + 1)] = 0;
		}
	}
	free(stamp);
}

/* Node i's reach: the last stage a path from it reaches ([T + 1]). */
static uint32_t *reach_of(const struct profile_graph *g)
{
	const size_t T = g->n;
	uint32_t *reach = xmalloc((T + 1) * sizeof *reach);
	for (size_t i = T; i-- > 0;) {
		uint32_t r = g->keep[i] ? (uint32_t)T : (uint32_t)i;
		for (uint32_t e = g->succ_off[i]; e < g->succ_off[i + 1]; e++)
			if (reach[g->succ[e]] > r)
				r = reach[g->succ[e]];
		reach[i] = g->kind[i] == PGRAPH_FIXED ? (uint32_t)i : r;
	}
	return reach;
}

/* The live pairs, and the input rows over them: 0 past 2^26, where
 * they are left out (the recomputations' input rows only while they stay
 * affordable). */
static void counts(const struct profile_graph *g, const uint32_t *reach, size_t *pairs,
		   size_t *nmu)
{
	size_t n = 0, q = 0;
	for (size_t i = 0; i < g->n; i++) {
		n += reach[i] - i;
		q += (size_t)(reach[i] - i) * (g->pred_off[i + 1] - g->pred_off[i]);
	}
	*pairs = n;
	*nmu = q > (size_t)1 << 26 ? 0 : q;
}

static bool lg_init(struct lg *L, const struct profile_graph *g, uint64_t budget)
{
	memset(L, 0, sizeof *L);
	const size_t T = g->n;
	L->g = g;
	L->T = T;
	L->reach = reach_of(g);
	size_t n, nmu;
	counts(g, L->reach, &n, &nmu);
	if (n > (size_t)1 << 28)
		return false;
	L->poff = xmalloc((T + 1) * sizeof *L->poff);
	for (size_t i = 0, at = 0; i < T; i++) {
		L->poff[i] = (uint32_t)at;
		at += L->reach[i] - i;
	}
	L->poff[T] = (uint32_t)n;
	L->n_pairs = n;
	L->n_mu = nmu;
	L->a = xcalloc(n + 1, sizeof *L->a);
	L->demand = xcalloc(n + 1, 1);
	L->cap = xcalloc(T + 1, sizeof *L->cap);
	L->lambda = xcalloc(T + 1, sizeof *L->lambda);
	L->gs = xcalloc(T + 1, sizeof *L->gs);
	L->cR = xmalloc((n + 1) * sizeof *L->cR);
	L->cS = xmalloc((n + 1) * sizeof *L->cS);
	L->sel = xcalloc(n + 1, 1);
	L->bp = xcalloc(n + 1, 1);
	L->muoff = xcalloc(n + 2, sizeof *L->muoff);
	L->mu = xcalloc(nmu + 1, sizeof *L->mu);
	L->gmu = xcalloc(nmu + 1, sizeof *L->gmu);
	if (nmu)
		for (size_t k = 0, q = 0; k < T; k++)
			for (size_t t = k + 1; t <= L->reach[k]; t++) {
				size_t p = pair_of(L, (uint32_t)k, t);
				L->muoff[p] = (uint32_t)q;
				q += g->pred_off[k + 1] - g->pred_off[k];
				L->muoff[p + 1] = (uint32_t)q;
			}
	for (size_t t = 0; t < T; t++)
		for (uint32_t e = g->pred_off[t]; e < g->pred_off[t + 1]; e++) {
			uint32_t u = g->pred[e];
			if (L->reach[u] >= t && u < t)
				L->demand[pair_of(L, u, t)] = 1;
		}
	for (size_t i = 0; i < T; i++)
		if (g->keep[i] && L->reach[i] == T && i < T)
			L->demand[pair_of(L, (uint32_t)i, T)] = 1;
	rows_init(L, budget);
	return true;
}

/* The scratch of the reduced-cost fixing. */
static void fix_init(struct lg *L)
{
	size_t most = 1;
	for (size_t i = 0; i < L->T; i++)
		if (L->poff[i + 1] - L->poff[i] > most)
			most = L->poff[i + 1] - L->poff[i];
	L->fw0 = xmalloc(most * sizeof *L->fw0);
	L->fw1 = xmalloc(most * sizeof *L->fw1);
	L->fx = xcalloc(L->n_pairs / 64 + 1, sizeof *L->fx);
}

static void lg_free(struct lg *L)
{
	free(L->reach);
	free(L->poff);
	free(L->a);
	free(L->demand);
	free(L->cap);
	free(L->lambda);
	free(L->gs);
	free(L->cR);
	free(L->cS);
	free(L->sel);
	free(L->bp);
	free(L->muoff);
	free(L->mu);
	free(L->gmu);
	free(L->fw0);
	free(L->fw1);
	free(L->fx);
}

void lagrange_result_free(struct lagrange_result *r)
{
	free(r->fixed);
	r->fixed = NULL;
	r->n_fixed = 0;
}

/*
 * Reduced-cost fixing at this iterate (val, its bound): node i's cheapest
 * life with R chosen at pair p costs `forced`; the iterate with that
 * recomputation imposed bounds every schedule that makes it by val -
 * path + forced (the other nodes' paths unchanged). Where that reaches
 * cut, the pair is marked in fx.
 */
static void node_fix(struct lg *L, uint32_t i, double val, double cut)
{
	size_t p0 = L->poff[i], p1 = L->poff[i + 1];
	if (p0 == p1)
		return;
	double f0 = INFINITY, f1 = 0;
	for (size_t p = p0; p < p1; p++) {
		double cs = L->cS[p], cr = L->cR[p];
		double c1 = fmin(cs, fmin(cr, cs + cr));
		double n1 = fmin(f1 + c1, f0 + cr);
		double n0 = L->demand[p] ? INFINITY : fmin(f0, f1);
		L->fw0[p - p0] = f0;
		L->fw1[p - p0] = f1;
		f0 = n0;
		f1 = n1;
	}
	double path = fmin(f0, f1), b0 = 0, b1 = 0;
	for (size_t p = p1; p-- > p0;) {
		double cs = L->cS[p], cr = L->cR[p];
		if (isfinite(cr)) {
			double arrive = fmin(L->fw1[p - p0] + cr + fmin(0, cs), L->fw0[p - p0] + cr);
			if (val - path + arrive + b1 >= cut)
				L->fx[p / 64] |= (uint64_t)1 << (p % 64);
		}
		double c1 = fmin(cs, fmin(cr, cs + cr));
		double nb1 = c1 + b1, nb0 = cr + b1;
		if (!L->demand[p]) {
			nb1 = fmin(nb1, b0);
			nb0 = fmin(nb0, b0);
		}
		b0 = nb0;
		b1 = nb1;
	}
}

/* Node i's cheapest life under the costs: a two-state path over its
 * stages (state: there in the stage). Sets sel; returns its cost. */
static double node_path(struct lg *L, uint32_t i)
{
	size_t p0 = L->poff[i], p1 = L->poff[i + 1];
	if (p0 == p1)
		return 0;
	double f0 = INFINITY, f1 = 0; /* stage i: node i computed, there */
	for (size_t p = p0; p < p1; p++) {
		double cs = L->cS[p], cr = L->cR[p];
		/* there, from there: S, R or both (what costs least) */
		uint8_t ch = 1;
		double c = cs;
		if (cr < c) {
			c = cr;
			ch = 2;
		}
		if (cs + cr < c) {
			c = cs + cr;
			ch = 3;
		}
		double n1 = f1 + c, n0;
		uint8_t b = ch; /* bits 0-1: the choice into state 1; bit 2: from state 0 */
		if (f0 + cr < n1) {
			n1 = f0 + cr;
			b = 2 | 4;
		}
		/* not there: from either state, nothing chosen */
		if (L->demand[p]) {
			n0 = INFINITY;
		} else if (f0 <= f1) {
			n0 = f0;
			b |= 8; /* bit 3: state 0 from state 0 */
		} else {
			n0 = f1;
		}
		L->bp[p] = b;
		f0 = n0;
		f1 = n1;
	}
	/* back */
	int state = f1 <= f0 ? 1 : 0;
	double best = state ? f1 : f0;
	for (size_t p = p1; p-- > p0;) {
		uint8_t b = L->bp[p];
		if (state) {
			L->sel[p] = b & 3;
			/* S chosen: its memory in the row of stage t - 1 */
			if ((b & 1) && L->a[p])
				L->gs[i + (p - p0)] += L->a[p];
			state = (b & 4) ? 0 : 1;
		} else {
			L->sel[p] = 0;
			state = (b & 8) ? 0 : 1;
		}
	}
	return best;
}

/* A node that alone costs more than the schedule known (upper) is not
 * recomputed in any cheaper one: its recomputations are left out (ilp.c's
 * fix_by_cost), which keeps the bound one on the optimum. */
static bool fixed(const struct profile_graph *g, double upper, size_t i)
{
	return upper >= 0 && (double)g->cost[i] > upper;
}

void lagrange_bound(const struct profile_graph *g, uint64_t budget, double upper,
		    unsigned max_iter, double end, struct lagrange_result *r)
{
	double t0 = now_seconds();
	memset(r, 0, sizeof *r);
	struct lg L;
	if (!lg_init(&L, g, budget)) {
		lg_free(&L);
		r->seconds = now_seconds() - t0;
		return;
	}
	const size_t T = L.T;
	r->multipliers = T + L.n_mu;
	/* Fixing: a bound on the schedules that make a recomputation above
	 * upper less the costs' divisor (whole ns; less a margin for the
	 * sums' rounding) means each of them costs upper or more. */
	double cut = INFINITY;
	if (upper >= 0) {
		uint64_t d = 0;
		for (size_t i = 0; i < T; i++)
			if (g->cost[i] > 0)
				d = gcd_u64(d, (uint64_t)g->cost[i]);
		cut = upper - (double)d + 1e-6 * (1 + fabs(upper));
		fix_init(&L);
	}
	double best = 0, mean_cost = 0;
	for (size_t i = 0; i < T; i++)
		mean_cost += (double)g->cost[i];
	mean_cost = T ? mean_cost / (double)T : 1;
	unsigned it = 0;
	/* the last iteration's step, for the input rows' update (0 at the
	 * first, with gmu all 0: the multipliers as they are) */
	double step = 0;
	for (; it < max_iter; it++) {
		if (deadline_past(end))
			break;
		/* the step's scale: from 1 down to THETA_END, geometrically over
		 * the iterations given */
		double theta = pow(THETA_END, (double)it / max_iter);
		/* The costs under the multipliers, in one pass with the input
		 * rows' update from the last iteration's subgradient (its own
		 * pass before): node k's pairs get their plain costs first, and
		 * the rows' terms come in the same order as in two passes (a
		 * node's inputs come before it), so the sums are the same to
		 * the bit. */
		for (size_t k = 0; k < T; k++) {
			double cr = fixed(g, upper, k) ? INFINITY : (double)g->cost[k];
			for (size_t t = k + 1; t <= L.reach[k]; t++) {
				size_t p = pair_of(&L, (uint32_t)k, t);
				L.cR[p] = cr;
				L.cS[p] = L.a[p] ? L.lambda[t - 1] * L.a[p] : 0;
			}
			if (!L.n_mu)
				continue;
			for (size_t t = k + 1; t <= L.reach[k]; t++) {
				size_t p = pair_of(&L, (uint32_t)k, t);
				uint32_t q = L.muoff[p];
				for (uint32_t e = g->pred_off[k]; e < g->pred_off[k + 1]; e++, q++) {
					double m = fmax(0, L.mu[q] + step * L.gmu[q]);
					L.mu[q] = m;
					if (m == 0)
						continue;
					size_t pu = pair_of(&L, g->pred[e], t);
					L.cR[p] += m;
					L.cR[pu] -= m;
					L.cS[pu] -= m;
				}
			}
		}
		/* the paths, and the memory rows' subgradient from their choices
		 * (each node adds to a row at most once, nodes in order: the
		 * same sums as a pass of their own) */
		double val = 0;
		memset(L.gs, 0, T * sizeof *L.gs);
		for (size_t i = 0; i < T; i++)
			val += node_path(&L, (uint32_t)i);
		for (size_t s = 0; s < T; s++)
			val -= L.lambda[s] * L.cap[s];
		if (val > best + 1e-9 * (1 + fabs(best))) {
			best = val;
			if (upper >= 0)
				for (size_t i = 0; i < T; i++)
					node_fix(&L, (uint32_t)i, val, cut);
		}
		if (upper >= 0 && best > upper - 0.5)
			break; /* the costs are whole ns: nothing between */
		/* subgradients (projected: a multiplier at 0 with a negative
		 * component stays) */
		double norm = 0;
		for (size_t s = 0; s < T; s++) {
			L.gs[s] -= L.cap[s];
			if (L.lambda[s] > 0 || L.gs[s] > 0)
				norm += L.gs[s] * L.gs[s];
		}
		if (L.n_mu)
			for (size_t k = 0; k < T; k++)
				for (size_t t = k + 1; t <= L.reach[k]; t++) {
					size_t p = pair_of(&L, (uint32_t)k, t);
					uint32_t q = L.muoff[p];
					for (uint32_t e = g->pred_off[k]; e < g->pred_off[k + 1]; e++, q++) {
						size_t pu = pair_of(&L, g->pred[e], t);
						int d = (L.sel[p] >> 1) - (L.sel[pu] >> 1) - (L.sel[pu] & 1);
						L.gmu[q] = (int8_t)d;
						if (L.mu[q] > 0 || d > 0)
							norm += d * d;
					}
				}
		if (norm <= 0)
			break; /* a point of the relaxation that satisfies every row: optimal there */
		double target = upper >= 0 ? upper : best + fmax(0.05 * fabs(best), mean_cost);
		step = theta * fmax(target - val, 1e-9 * (1 + fabs(target))) / norm;
		for (size_t s = 0; s < T; s++)
			L.lambda[s] = fmax(0, L.lambda[s] + step * L.gs[s]);
		/* the input rows' multipliers: at the next iteration's costs */
	}
	/* whole ns, less a margin for the sums' rounding */
	double b = ceil(best - 1e-9 * (1 + fabs(best)));
	r->bound = b > 0 ? b : 0;
	r->iterations = it;
	if (L.fx) {
		size_t n = 0;
		for (size_t q = 0; q <= L.n_pairs / 64; q++)
			n += (size_t)__builtin_popcountll(L.fx[q]);
		r->fixed = xmalloc((n + 1) * sizeof *r->fixed);
		for (size_t i = 0; i < T; i++)
			for (size_t p = L.poff[i]; p < L.poff[i + 1]; p++)
				if (L.fx[p / 64] >> (p % 64) & 1)
					r->fixed[r->n_fixed++] = (struct lagrange_pair){
						(uint32_t)i, (uint32_t)(i + 1 + (p - L.poff[i]))};
	}
	r->seconds = now_seconds() - t0;
	lg_free(&L);
}

unsigned lagrange_iterations(const struct profile_graph *g, double seconds)
{
	uint32_t *reach = reach_of(g);
	size_t pairs, nmu;
	counts(g, reach, &pairs, &nmu);
	free(reach);
	double work = (double)(pairs + nmu + g->n) + 1;
	double n = seconds / (NS_PER_ITEM * 1e-9 * work);
	double most = 0.5 * (double)(g->n + nmu); /* half the multipliers */
	if (n > most)
		n = most;
	if (n > LAGRANGE_MAX_ITERATIONS)
		n = LAGRANGE_MAX_ITERATIONS;
	return n < LAGRANGE_MIN_ITERATIONS ? LAGRANGE_MIN_ITERATIONS : (unsigned)n;
}
