/*
 * ilp.c: see ilp.h. The model is built once into plain arrays
 * (ilp-private.h) and handed to a backend; only the variables a schedule
 * can use exist. A node i can matter in stage t only if some path from it
 * reaches a node computed in stage t or later (or the log pins it: reach T,
 * the last stage's, after every op): its "reach" is at least t. Stage t's
 * live nodes L_t = {i < t : reach(i) >= t, not a view of a constant}
 * (t = 0 .. T) carry R[t,i] and (t >= 1) S[t,i]; setting
 * every other variable to 0 loses no schedule (what a dead node feeds is
 * dead too). Memory is counted in units of the gcd of all sizes, so every
 * coefficient is a small whole number and the budget's bound is exact.
 */
#include "ilp-private.h"
#include "hash.h"
#include "lagrange.h"
#include "repair.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

const char *ilp_status_name(enum ilp_status s)
{
	switch (s) {
	case ILP_OPTIMAL: return "optimal";
	case ILP_FEASIBLE: return "feasible (stopped at the time limit)";
	case ILP_INFEASIBLE: return "infeasible";
	case ILP_UNKNOWN: return "unknown (stopped at the time limit with no schedule)";
	case ILP_LP_ROUNDED: return "LP relaxation rounded";
	case ILP_NO_ROUNDING: return "no rounding of the LP relaxation fits";
	}
	return "?";
}

void ilp_result_free(struct ilp_result *r)
{
	steps_kept_free(&r->kept);
	memset(r, 0, sizeof *r);
}

/* Binaries past which the LP relaxation is not tried before the search:
 * Clp did not solve RL500's (795,900 binaries, at 90 %) in 590 s, its
 * dual simplex stalled at a zero objective, while ResNet50's training
 * graph's (222,853) takes 100-180 s. The Lagrangian takes its time
 * there (docs/solvers.md). */
#define LP_MAX_BINARIES 500000

/* ------------------------------------------------------------------ */
/* The model's arrays.                                                  */

static uint32_t col_new(struct ilp_model *m, double lb, double ub, double obj, bool integer)
{
	if (m->n_cols == m->cap_cols) {
		size_t c = m->cap_cols ? 2 * m->cap_cols : 1024;
		m->lb = xrealloc(m->lb, c * sizeof *m->lb);
		m->ub = xrealloc(m->ub, c * sizeof *m->ub);
		m->obj = xrealloc(m->obj, c * sizeof *m->obj);
		m->integer = xrealloc(m->integer, c);
		m->cap_cols = c;
	}
	m->lb[m->n_cols] = lb;
	m->ub[m->n_cols] = ub;
	m->obj[m->n_cols] = obj;
	m->integer[m->n_cols] = integer;
	return (uint32_t)m->n_cols++;
}

static void row_add(struct ilp_model *m, uint32_t col, double val)
{
	if (m->n_nz == m->cap_nz) {
		size_t c = m->cap_nz ? 2 * m->cap_nz : 4096;
		m->col = xrealloc(m->col, c * sizeof *m->col);
		m->val = xrealloc(m->val, c * sizeof *m->val);
		m->cap_nz = c;
	}
	m->col[m->n_nz] = col;
	m->val[m->n_nz++] = val;
}

/* Close the row whose entries were added since the last one. */
static void row_end(struct ilp_model *m, char sense, double rhs)
{
	if (m->n_rows + 1 >= m->cap_rows) {
		size_t c = m->cap_rows ? 2 * m->cap_rows : 1024;
		m->row_off = xrealloc(m->row_off, (c + 1) * sizeof *m->row_off);
		m->sense = xrealloc(m->sense, c);
		m->rhs = xrealloc(m->rhs, c * sizeof *m->rhs);
		m->cap_rows = c;
		if (!m->n_rows)
			m->row_off[0] = 0;
	}
	m->sense[m->n_rows] = sense;
	m->rhs[m->n_rows] = rhs;
	m->row_off[++m->n_rows] = (uint32_t)m->n_nz;
}

static void model_free(struct ilp_model *m)
{
	free(m->lb);
	free(m->ub);
	free(m->obj);
	free(m->integer);
	free(m->row_off);
	free(m->sense);
	free(m->rhs);
	free(m->col);
	free(m->val);
	memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------------ */
/* Which variables exist.                                               */

struct vars {
	const struct profile_graph *g;
	size_t T;
	uint32_t *reach;             /* [T] */
	uint32_t *loff, *lnode;      /* L_t, CSR by stage, ascending */
	uint32_t *users_off, *users; /* per node (OWN): the nodes reading its storage */
	uint64_t unit;               /* bytes per memory unit */
	/* columns, per stage: R[t, L_t], S[t, L_t] (t >= 1), U[t, points] */
	uint32_t *r0, *s0, *u0;
	/* free variables, per stage (CSR), each {storage, after, column} */
	uint32_t *f_off;
	struct fvar { uint32_t b, k, col; } *f;
	size_t n_f;
};

/* The rank of i in L_t, or NONE. */
static uint32_t rank_of(const struct vars *v, size_t t, uint32_t i)
{
	uint32_t lo = v->loff[t], hi = v->loff[t + 1];
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (v->lnode[mid] < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < v->loff[t + 1] && v->lnode[lo] == i ? lo - v->loff[t] : NONE;
}

static bool user_of(const struct vars *v, uint32_t b, uint32_t j)
{
	uint32_t lo = v->users_off[b], hi = v->users_off[b + 1];
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (v->users[mid] < j)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < v->users_off[b + 1] && v->users[lo] == j;
}

/* Should F[t,b,k] exist? (k recomputed in stage t, and freeing b after it
 * not ruled out by a constant: node t reading b later, or the log pinning
 * b when the last stage ends.) */
static bool f_exists(const struct vars *v, size_t t, uint32_t b, uint32_t k)
{
	if (k >= t || rank_of(v, t, k) == NONE)
		return false; /* after node t, only the next stage's S matters */
	if (t < v->T && user_of(v, b, (uint32_t)t))
		return false;
	if (t == v->T && v->g->keep[b])
		return false;
	return true;
}

static int by_k(const void *a, const void *b)
{
	const struct fvar *x = a, *y = b;
	if (x->k != y->k)
		return (x->k > y->k) - (x->k < y->k);
	return (x->b > y->b) - (x->b < y->b);
}

static int by_b(const void *a, const void *b)
{
	const struct fvar *x = a, *y = b;
	if (x->b != y->b)
		return (x->b > y->b) - (x->b < y->b);
	return (x->k > y->k) - (x->k < y->k);
}

static void vars_free(struct vars *v)
{
	free(v->reach);
	free(v->loff);
	free(v->lnode);
	free(v->users_off);
	free(v->users);
	free(v->r0);
	free(v->s0);
	free(v->u0);
	free(v->f_off);
	free(v->f);
	memset(v, 0, sizeof *v);
}

/* reach, L_t, the storage users, the memory unit, the free variables; the
 * model's binary variables into *binaries. Past ILP_MAX_BINARIES R and S
 * variables, stops after counting them (false), before any table of the
 * model's size is made; past deadline (now_seconds()'s clock; 0: none),
 * stops too (false, *late set). */
static bool vars_init(struct vars *v, const struct profile_graph *g, double deadline,
		      size_t *binaries, bool *late)
{
	*late = false;
	memset(v, 0, sizeof *v);
	v->g = g;
	const size_t T = g->n;
	v->T = T;
	v->reach = xmalloc((T + 1) * sizeof *v->reach);
	for (size_t i = T; i-- > 0;) {
		uint32_t r = g->keep[i] ? (uint32_t)T : (uint32_t)i;
		for (uint32_t e = g->succ_off[i]; e < g->succ_off[i + 1]; e++)
			if (v->reach[g->succ[e]] > r)
				r = v->reach[g->succ[e]];
		v->reach[i] = r;
	}
	size_t live = 0;
	for (size_t i = 0; i < T; i++)
		if (g->kind[i] != PGRAPH_FIXED)
			live += v->reach[i] - i;
	if (live > ILP_MAX_BINARIES / 2) {
		*binaries = 2 * live;
		return false;
	}
	/* L_t: node i is live in stages i+1 .. reach (T: the last stage). */
	v->loff = xcalloc(T + 3, sizeof *v->loff);
	for (size_t i = 0; i < T; i++) {
		if (g->kind[i] == PGRAPH_FIXED)
			continue;
		for (size_t t = i + 1; t <= v->reach[i]; t++)
			v->loff[t + 1]++;
	}
	for (size_t t = 0; t <= T; t++)
		v->loff[t + 1] += v->loff[t];
	v->lnode = xmalloc(((size_t)v->loff[T + 1] + 1) * sizeof *v->lnode);
	uint32_t *fill = xmemdup(v->loff, (T + 2) * sizeof *fill);
	for (size_t i = 0; i < T; i++) { /* ascending i: each L_t comes out ascending */
		if (g->kind[i] == PGRAPH_FIXED)
			continue;
		for (size_t t = i + 1; t <= v->reach[i]; t++)
			v->lnode[fill[t]++] = (uint32_t)i;
	}
	free(fill);
	/* Storage users: node k reads the storage of base(u) for each input u. */
	uint32_t *stamp = xmalloc((T + 1) * sizeof *stamp);
	for (size_t i = 0; i <= T; i++)
		stamp[i] = NONE;
	v->users_off = xcalloc(T + 2, sizeof *v->users_off);
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i <= T; i++)
			stamp[i] = NONE;
		for (size_t k = 0; k < T; k++)
			for (uint32_t e = g->pred_off[k]; e < g->pred_off[k + 1]; e++) {
				uint32_t b = g->base[g->pred[e]];
				if (stamp[b] == k)
					continue;
				stamp[b] = (uint32_t)k;
				if (pass == 0)
					v->users_off[b + 1]++;
				else
					v->users[fill[b]++] = (uint32_t)k;
			}
		if (pass == 0) {
			for (size_t i = 0; i < T; i++)
				v->users_off[i + 1] += v->users_off[i];
			v->users = xmalloc(((size_t)v->users_off[T] + 1) * sizeof *v->users);
			fill = xmemdup(v->users_off, (T + 1) * sizeof *fill);
		}
	}
	free(fill);
	free(stamp);
	/* The memory unit. */
	uint64_t u = 0;
	for (size_t i = 0; i < T; i++)
		u = gcd_u64(u, g->bytes[i]);
	for (size_t t = 0; t <= T; t++)
		u = gcd_u64(u, g->static_bytes[t]);
	v->unit = u ? u : 1;
	/* Free variables. */
	v->f_off = xcalloc(T + 3, sizeof *v->f_off);
	size_t cap = 0;
	for (size_t t = 0; t <= T; t++) {
		if (deadline_past(deadline)) {
			*late = true;
			return false;
		}
		for (uint32_t q = v->loff[t]; q < v->loff[t + 1]; q++) {
			uint32_t b = v->lnode[q];
			if (g->kind[b] != PGRAPH_OWN)
				continue;
			for (uint32_t e = v->users_off[b]; e < v->users_off[b + 1]; e++) {
				uint32_t k = v->users[e];
				if (k > t)
					break;
				if (!f_exists(v, t, b, k))
					continue;
				XGROW(v->f, cap, v->n_f + 1);
				v->f[v->n_f++] = (struct fvar){b, k, 0};
			}
		}
		v->f_off[t + 1] = (uint32_t)v->n_f;
		/* by the point they follow (the memory rows walk them so) */
		if (v->n_f > v->f_off[t])
			qsort(v->f + v->f_off[t], v->n_f - v->f_off[t], sizeof *v->f, by_k);
	}
	size_t nl = v->loff[T + 1], nl1 = nl - (v->loff[1] - v->loff[0]);
	*binaries = nl + nl1 + v->n_f;
	return true;
}

/* ------------------------------------------------------------------ */
/* Building.                                                            */

static inline uint32_t R(const struct vars *v, size_t t, uint32_t i)
{
	uint32_t r = rank_of(v, t, i);
	return r == NONE ? NONE : v->r0[t] + r;
}

static inline uint32_t S(const struct vars *v, size_t t, uint32_t i)
{
	if (t == 0 || t > v->T)
		return NONE;
	uint32_t r = rank_of(v, t, i);
	return r == NONE ? NONE : v->s0[t] + r;
}

/* Units of memory of node i. */
static inline double M(const struct vars *v, uint32_t i)
{
	return (double)(v->g->bytes[i] / v->unit);
}

/*
 * The model. min_peak: instead of the budget and the cost, a column P
 * bounds every memory level and is minimised (the smallest budget any
 * schedule fits in); its column is the last. False, the model half made,
 * where deadline (now_seconds()'s clock; 0: none) passes first.
 */
static bool build(struct vars *v, struct ilp_model *m, double cap, bool min_peak, double peak_lb,
		  double deadline)
{
	const struct profile_graph *g = v->g;
	const size_t T = v->T;
	v->r0 = xrealloc(v->r0, (T + 2) * sizeof *v->r0);
	v->s0 = xrealloc(v->s0, (T + 2) * sizeof *v->s0);
	v->u0 = xrealloc(v->u0, (T + 2) * sizeof *v->u0);
	double ucap = min_peak ? INFINITY : cap;
	for (size_t t = 0; t <= T; t++) {
		if (deadline_past(deadline))
			return false;
		v->r0[t] = (uint32_t)m->n_cols;
		for (uint32_t q = v->loff[t]; q < v->loff[t + 1]; q++)
			col_new(m, 0, 1, min_peak ? 0 : (double)g->cost[v->lnode[q]], true);
		v->s0[t] = (uint32_t)m->n_cols;
		if (t)
			for (uint32_t q = v->loff[t]; q < v->loff[t + 1]; q++)
				col_new(m, 0, 1, 0, true);
		v->u0[t] = (uint32_t)m->n_cols;
		/* a point per computation: L_t, then node t (none in stage T) */
		for (uint32_t q = v->loff[t]; q < v->loff[t + 1] + (t < T); q++)
			col_new(m, 0, ucap, 0, false);
	}
	for (size_t q = 0; q < v->n_f; q++)
		v->f[q].col = col_new(m, 0, 1, 0, true);
	uint32_t P = min_peak ? col_new(m, peak_lb, INFINITY, 1, false) : NONE;
	/* A stage's free variables by the value they free (the keeping rows
	 * below add them), in one scratch array the size of the largest
	 * stage's. */
	uint32_t fmax = 0;
	for (size_t t = 0; t <= T; t++)
		if (v->f_off[t + 1] - v->f_off[t] > fmax)
			fmax = v->f_off[t + 1] - v->f_off[t];
	struct fvar *fb = xmalloc(((size_t)fmax + 1) * sizeof *fb);

	for (size_t t = 0; t <= T; t++) {
		if (deadline_past(deadline)) {
			free(fb);
			return false;
		}
		const uint32_t *L = v->lnode + v->loff[t];
		const uint32_t nL = v->loff[t + 1] - v->loff[t];
		const uint32_t np = nL + (t < T); /* computation points */
		double stat = (double)(g->static_bytes[t] / v->unit);
		/* Inputs: a node computed in stage t finds each input computed
		 * in it or kept into it. */
		for (uint32_t q = 0; q < np; q++) {
			uint32_t k = q < nL ? L[q] : (uint32_t)t;
			for (uint32_t e = g->pred_off[k]; e < g->pred_off[k + 1]; e++) {
				uint32_t u = g->pred[e];
				uint32_t ru = R(v, t, u), su = S(v, t, u);
				if (ru != NONE)
					row_add(m, ru, 1);
				if (su != NONE)
					row_add(m, su, 1);
				if (k < t) {
					row_add(m, v->r0[t] + q, -1);
					row_end(m, 'G', 0);
				} else {
					row_end(m, 'G', 1);
				}
			}
		}
		/* Keeping: what stage t+1 keeps, stage t had or computed, and
		 * did not free: S[t+1,i] + sum_k F[t,i,k] <= S[t,i] + R[t,i].
		 * Checkmate's row has no F; with them it holds for every
		 * schedule all the same (a value is freed at most once in a
		 * stage, only if there, and then not kept: the hazard rows
		 * below), and it cuts off the relaxation's points that free
		 * more of a value than is there, or free it and keep it too
		 * (on RL100 at 80 %, the LP relaxation's bound rose from 506
		 * to 579 ns, and CBC proves the optimum, 1,097 ns, in 20 s
		 * where it had a gap of 49 % after 600 s). A value
		 * with no next stage gets the row without S[t+1,i]. */
		uint32_t nfb = v->f_off[t + 1] - v->f_off[t];
		if (nfb) { /* v->f is NULL where no stage frees anything */
			memcpy(fb, v->f + v->f_off[t], nfb * sizeof *fb);
			qsort(fb, nfb, sizeof *fb, by_b);
		}
		uint32_t p = 0;
		if (t < T) {
			for (uint32_t q = v->loff[t + 1]; q < v->loff[t + 2]; q++) {
				uint32_t i = v->lnode[q];
				if (i == t)
					continue;
				row_add(m, v->s0[t + 1] + (q - v->loff[t + 1]), 1);
				row_add(m, R(v, t, i), -1);
				if (t)
					row_add(m, S(v, t, i), -1);
				while (p < nfb && fb[p].b < i)
					p++;
				for (; p < nfb && fb[p].b == i; p++)
					row_add(m, fb[p].col, 1);
				row_end(m, 'L', 0);
			}
		}
		for (p = 0; p < nfb;) {
			uint32_t b = fb[p].b, e = p;
			while (e < nfb && fb[e].b == b)
				e++;
			if (t == T || rank_of(v, t + 1, b) == NONE) {
				for (; p < e; p++)
					row_add(m, fb[p].col, 1);
				row_add(m, R(v, t, b), -1);
				if (t)
					row_add(m, S(v, t, b), -1);
				row_end(m, 'L', 0);
			}
			p = e;
		}
		if (t == T) {
			for (uint32_t q = 0; q < nL; q++)
				if (g->keep[L[q]]) {
					row_add(m, v->r0[t] + q, 1);
					if (t)
						row_add(m, v->s0[t] + q, 1);
					row_end(m, 'G', 1);
				}
		}
		/* A view is kept only with its storage. */
		if (t)
			for (uint32_t q = 0; q < nL; q++)
				if (g->kind[L[q]] == PGRAPH_VIEW) {
					row_add(m, v->s0[t] + q, 1);
					row_add(m, S(v, t, g->base[L[q]]), -1);
					row_end(m, 'L', 0);
				}
		/* Memory: U after each computation point, from what was kept,
		 * plus what is computed, less what is freed. */
		uint32_t fq = v->f_off[t];
		for (uint32_t q = 0; q < np; q++) {
			uint32_t k = q < nL ? L[q] : (uint32_t)t;
			double rhs = 0;
			row_add(m, v->u0[t] + q, 1);
			if (q == 0) {
				rhs = stat;
				if (t)
					for (uint32_t j = 0; j < nL; j++)
						if (M(v, L[j]))
							row_add(m, v->s0[t] + j, -M(v, L[j]));
			} else {
				row_add(m, v->u0[t] + q - 1, -1);
				/* frees after the previous point */
				uint32_t prev = L[q - 1];
				for (; fq < v->f_off[t + 1] && v->f[fq].k <= prev; fq++)
					if (v->f[fq].k == prev && M(v, v->f[fq].b))
						row_add(m, v->f[fq].col, M(v, v->f[fq].b));
			}
			if (k < t) {
				if (M(v, k))
					row_add(m, v->r0[t] + q, -M(v, k));
			} else {
				rhs += M(v, k);
			}
			row_end(m, 'E', rhs);
			if (min_peak) {
				row_add(m, v->u0[t] + q, 1);
				row_add(m, P, -1);
				row_end(m, 'L', 0);
			}
		}
		/* Constants made between stages t-1 and t: what is kept then
		 * and all constants so far fit. This row is implied by the
		 * stage's first memory row (U[t,0] = stat + what is kept + a
		 * non-negative computation, and U[t,0] <= cap, or <= P when the
		 * peak is minimised), in the LP relaxation too: deleting it
		 * changes no feasible set, so no test can tell it is gone (the
		 * mutation that survives, issue 39 item 8). It is kept because
		 * it states the rule where the rule is, and removing it would
		 * change the matrix the solvers see, and with it which of
		 * several equally cheap schedules they return. */
		if (t && g->static_bytes[t] > g->static_bytes[t - 1]) {
			for (uint32_t j = 0; j < nL; j++)
				if (M(v, L[j]))
					row_add(m, v->s0[t] + j, M(v, L[j]));
			if (min_peak) {
				row_add(m, P, -1);
				row_end(m, 'L', -stat);
			} else {
				row_end(m, 'L', cap - stat);
			}
		}
	}
	/* Frees: F[t,b,k] = 1 only if k is computed in stage t, b is not kept
	 * into t+1, and no later computation of the stage reads b. */
	for (size_t t = 0; t <= T; t++) {
		if (deadline_past(deadline)) {
			free(fb);
			return false;
		}
		for (uint32_t q = v->f_off[t]; q < v->f_off[t + 1]; q++) {
			const struct fvar *f = &v->f[q];
			row_add(m, f->col, 1);
			row_add(m, R(v, t, f->k), -1);
			row_end(m, 'L', 0);
			uint32_t sb = t < T ? S(v, t + 1, f->b) : NONE;
			if (sb != NONE) {
				row_add(m, f->col, 1);
				row_add(m, sb, 1);
				row_end(m, 'L', 1);
			}
			for (uint32_t h = v->users_off[f->b]; h < v->users_off[f->b + 1]; h++) {
				uint32_t j = v->users[h];
				if (j <= f->k)
					continue;
				if (j >= t)
					break;
				uint32_t rj = R(v, t, j);
				if (rj != NONE) {
					row_add(m, f->col, 1);
					row_add(m, rj, 1);
					row_end(m, 'L', 1);
				}
			}
		}
	}
	free(fb);
	return true;
}

/* ------------------------------------------------------------------ */
/* Answers to schedules.                                                */

/* What the solution keeps between stages (OWN nodes whose S is set). */
static void kept_from(const struct vars *v, const double *x, double threshold, uint64_t *rng,
		      struct steps_kept *k)
{
	const struct profile_graph *g = v->g;
	const size_t T = v->T;
	k->T = T;
	k->off = xcalloc(T + 2, sizeof *k->off);
	k->node = xmalloc(((size_t)v->loff[T + 1] + 1) * sizeof *k->node);
	size_t n = 0;
	for (size_t t = 1; t <= T; t++) {
		for (uint32_t q = v->loff[t]; q < v->loff[t + 1]; q++) {
			uint32_t i = v->lnode[q];
			if (g->kind[i] != PGRAPH_OWN)
				continue;
			double s = x[v->s0[t] + (q - v->loff[t])];
			bool keep;
			if (rng) {
				/* splitmix64, then 53 bits as a uniform in [0, 1) */
				uint64_t z = (*rng += 0x9e3779b97f4a7c15ULL);
				z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
				z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
				z ^= z >> 31;
				keep = (double)(z >> 11) * 0x1p-53 < s;
			} else {
				keep = s >= threshold;
			}
			if (keep)
				k->node[n++] = i;
		}
		k->off[t + 1] = (uint32_t)n;
	}
}

/* Build and evaluate what k keeps: 0 with *c, -1 on a bug. */
static int kept_cost(const struct profile_graph *g, const struct steps_kept *k,
		     struct steps_cost *c, struct rs_error *err)
{
	struct plan_steps ps;
	if (steps_build(g, k, true, &ps, err))
		return -1;
	int rc = steps_eval(g, &ps, c, err);
	plan_steps_free(&ps);
	return rc;
}

/*
 * The model's columns for the schedule that keeps k (its steps, as
 * steps_build makes them): S from what is in memory between stages, R
 * from each stage's recomputations, F from the frees after them, U from
 * the memory rows. Into x[n_cols] (zeroed first). A free the model cannot
 * say leaves U higher; the solver then refuses the start, which costs
 * nothing but the start.
 */
static int start_point(struct vars *v, const struct ilp_model *m, const struct steps_kept *k,
		       double *x, struct rs_error *err)
{
	const struct profile_graph *g = v->g;
	const size_t T = v->T;
	struct plan_steps ps;
	if (steps_build(g, k, true, &ps, err))
		return -1;
	memset(x, 0, m->n_cols * sizeof *x);
	uint8_t *in = xcalloc(T + 1, 1);
	size_t si = 0, fi = 0;
	for (size_t t = 0; t <= T; t++) {
		const uint32_t *L = v->lnode + v->loff[t];
		const uint32_t nL = v->loff[t + 1] - v->loff[t];
		/* S: what is in memory as the stage starts (a view with its storage) */
		if (t)
			for (uint32_t q = 0; q < nL; q++) {
				uint32_t i = L[q];
				x[v->s0[t] + q] = g->kind[i] == PGRAPH_VIEW ? in[g->base[i]] : in[i];
			}
		/* the stage's steps: recomputations (node < t), then node t */
		for (; si < ps.n_steps; si++) {
			const struct plan_step *st = &ps.steps[si];
			if (t < T && st->node > t)
				break;
			uint32_t kn = st->node;
			if (g->kind[kn] == PGRAPH_OWN)
				in[kn] = 1;
			if (kn < t) {
				uint32_t r = R(v, t, kn);
				if (r != NONE)
					x[r] = 1;
			}
			for (uint32_t j = 0; j < st->n_free; j++) {
				uint32_t b = ps.frees[fi + j];
				in[b] = 0;
				if (kn >= t)
					continue;
				for (uint32_t q = v->f_off[t]; q < v->f_off[t + 1]; q++)
					if (v->f[q].b == b && v->f[q].k == kn)
						x[v->f[q].col] = 1;
			}
			fi += st->n_free;
			if (t < T && kn == t) {
				si++;
				break;
			}
		}
		/* U: the memory rows, point by point */
		const uint32_t np = nL + (t < T);
		double u = (double)(g->static_bytes[t] / v->unit);
		if (t)
			for (uint32_t q = 0; q < nL; q++)
				u += M(v, L[q]) * x[v->s0[t] + q];
		uint32_t fq = v->f_off[t];
		for (uint32_t q = 0; q < np; q++) {
			uint32_t kn = q < nL ? L[q] : (uint32_t)t;
			if (q) {
				uint32_t prev = L[q - 1];
				for (; fq < v->f_off[t + 1] && v->f[fq].k <= prev; fq++)
					if (v->f[fq].k == prev)
						u -= M(v, v->f[fq].b) * x[v->f[fq].col];
			}
			u += kn < t ? M(v, kn) * x[v->r0[t] + q] : M(v, kn);
			x[v->u0[t] + q] = u;
		}
	}
	free(in);
	plan_steps_free(&ps);
	return 0;
}

/*
 * Large-neighbourhood search from the schedule x (kept k, recomputation
 * *cost), until `end`: windows of LNS_WINDOW stages, sliding by half a
 * window; outside the window every S is fixed to x's, inside the solver
 * is free (from x as its MIP start); a cheaper schedule that fits is
 * taken (x, *k and *cost replaced). Returns whether it found one, or -1.
 */
#define LNS_WINDOW 16
static int backend(const struct ilp_solver *sv, const struct ilp_model *m, bool integer,
		   double limit, double deadline, struct ilp_answer *a, struct rs_error *err);
static int lns(struct vars *v, struct ilp_model *m, const struct ilp_solver *sv, double *x,
	       struct steps_kept *k, int64_t *cost, uint64_t budget, double end,
	       struct rs_error *err)
{
	const size_t T = v->T;
	double *lb0 = m->lb, *ub0 = m->ub;
	double *lb = xmemdup(lb0, (m->n_cols + 1) * sizeof *lb);
	double *ub = xmemdup(ub0, (m->n_cols + 1) * sizeof *ub);
	m->lb = lb;
	m->ub = ub;
	int found = 0;
	size_t step = LNS_WINDOW / 2, n_win = T / step + 1, w = 0;
	for (size_t a = 1; a <= T && found >= 0; a += step, w++) {
		double now = now_seconds();
		if (now >= end)
			break;
		for (size_t t = 1; t <= T; t++) {
			bool in = t >= a && t < a + LNS_WINDOW;
			for (uint32_t q = 0; q < v->loff[t + 1] - v->loff[t]; q++) {
				uint32_t c = v->s0[t] + q;
				lb[c] = in ? lb0[c] : x[c];
				ub[c] = in ? ub0[c] : x[c];
			}
		}
		m->start = x;
		double slice = (end - now) / (double)(n_win > w ? n_win - w : 1);
		struct ilp_answer an;
		if (backend(sv, m, true, slice, now + slice, &an, err)) {
			found = -1;
			break;
		}
		if ((an.status == ILP_OPTIMAL || an.status == ILP_FEASIBLE) && an.x &&
		    an.obj < (double)*cost - 1e-9) {
			struct steps_kept nk;
			struct steps_cost c;
			kept_from(v, an.x, 0.5, NULL, &nk);
			if (kept_cost(v->g, &nk, &c, err)) {
				steps_kept_free(&nk);
				free(an.x);
				found = -1;
				break;
			}
			if (c.peak <= budget && c.remat_compute < *cost) {
				m->lb = lb0;
				m->ub = ub0;
				if (start_point(v, m, &nk, x, err)) {
					steps_kept_free(&nk);
					free(an.x);
					found = -1;
					break;
				}
				m->lb = lb;
				m->ub = ub;
				steps_kept_free(k);
				*k = nk;
				*cost = c.remat_compute;
				found = 1;
			} else {
				steps_kept_free(&nk);
			}
		}
		free(an.x);
	}
	m->lb = lb0;
	m->ub = ub0;
	free(lb);
	free(ub);
	return found;
}

/*
 * Ruin and repair from the schedule k (recomputation *cost): each round
 * keeps every live value through a random window of stages (up to 30 %
 * of them), which passes the budget there, and lets a randomized repair
 * (repair.h, start_repair_from; exponent going round as the start's
 * draws, scores drawn up to 4 times) reach the budget again; the result
 * is taken where it costs no more (the repair's own numbers: a plateau
 * may be crossed). Rounds end at `end` or after RUIN_ROUNDS (the
 * cheaper schedules come at no round in particular: on RL500 at 80 %,
 * four seeds found theirs at rounds 4, 61, 173 and 285). What it ends
 * with replaces k and *cost only where steps_build and steps_eval find
 * it within the budget and cheaper. Returns whether it did, or -1 (err).
 * The repair's rounds are O(stages x live values) each, no recursion.
 */
static void kept_copy(struct steps_kept *dst, const struct steps_kept *src);
#define RUIN_MIN_BINARIES 100000
#define RUIN_SHARE 0.1
#define RUIN_ROUNDS 2000
static int ruin_and_repair(const struct profile_graph *g, uint64_t budget, uint64_t seed,
			   double end, struct steps_kept *k, int64_t *cost, unsigned *rounds,
			   struct rs_error *err)
{
	static const double ra[] = {0.5, 0.75, 1, 1.5, 2, 3, 4};
	const size_t T = g->n, na = sizeof ra / sizeof ra[0];
	struct steps_kept cur;
	kept_copy(&cur, k);
	int64_t cur_cost = *cost;
	uint64_t rng = seed;
	unsigned i = 0;
	for (; i < RUIN_ROUNDS && !deadline_past(end); i++) {
		size_t len = 1 + (size_t)((double)(splitmix64_next(&rng) >> 11) * 0x1.0p-53 * 0.3 *
					  (double)T);
		size_t wa = 1 + (size_t)(splitmix64_next(&rng) % T);
		struct steps_kept nk;
		struct repair_stats rs;
		if (start_repair_from(g, budget, ra[i % na], 3, splitmix64_next(&rng), end, &cur, wa,
				      wa + len, &nk, &rs))
			continue;
		if (rs.peak <= budget && rs.remat_compute <= cur_cost) {
			cur_cost = rs.remat_compute;
			steps_kept_free(&cur);
			cur = nk;
		} else {
			steps_kept_free(&nk);
		}
	}
	*rounds = i;
	if (cur_cost < *cost) {
		struct steps_cost c;
		if (kept_cost(g, &cur, &c, err)) {
			steps_kept_free(&cur);
			return -1;
		}
		if (c.peak <= budget && c.remat_compute < *cost) {
			steps_kept_free(k);
			*k = cur;
			*cost = c.remat_compute;
			return 1;
		}
	}
	steps_kept_free(&cur);
	return 0;
}

/*
 * Fixes to 0 every recomputation R[t,i] of a node whose own cost is more
 * than `cost` (a schedule's, whole ns): a schedule that recomputes it
 * costs more than that schedule, so no schedule cheaper than it is lost,
 * and where that schedule is a point of the model, the model's optimum
 * (and so every lower bound on it) is unchanged. Returns how many
 * columns it fixed.
 */
static size_t fix_by_cost(const struct vars *v, struct ilp_model *m, double cost)
{
	size_t fixed = 0;
	for (size_t t = 0; t <= v->T; t++)
		for (uint32_t q = v->loff[t]; q < v->loff[t + 1]; q++) {
			uint32_t c = v->r0[t] + (q - v->loff[t]);
			if ((double)v->g->cost[v->lnode[q]] > cost && m->ub[c] > 0) {
				m->ub[c] = 0;
				fixed++;
			}
		}
	return fixed;
}

/* Whether x satisfies every row and bound of m (to 1e-6 of a unit). */
static bool model_satisfies(const struct ilp_model *m, const double *x)
{
	for (size_t j = 0; j < m->n_cols; j++)
		if (x[j] < m->lb[j] - 1e-6 || x[j] > m->ub[j] + 1e-6)
			return false;
	for (size_t r = 0; r < m->n_rows; r++) {
		double act = 0;
		for (uint32_t e = m->row_off[r]; e < m->row_off[r + 1]; e++)
			act += m->val[e] * x[m->col[e]];
		double tol = 1e-6 * (1 + fabs(m->rhs[r]));
		if ((m->sense[r] == 'L' && act > m->rhs[r] + tol) ||
		    (m->sense[r] == 'G' && act < m->rhs[r] - tol) ||
		    (m->sense[r] == 'E' && fabs(act - m->rhs[r]) > tol))
			return false;
	}
	return true;
}

/* The largest need of a single op: its inputs, outputs and the constants
 * before it; or the constants and the pinned outputs at the end. */
static uint64_t single_need(const struct profile_graph *g, uint32_t *who)
{
	const size_t T = g->n;
	uint64_t need = g->static_bytes[T];
	*who = NONE;
	for (size_t i = 0; i < T; i++)
		if (g->keep[i])
			need += g->bytes[i];
	uint32_t *stamp = xmalloc((T + 1) * sizeof *stamp);
	for (size_t i = 0; i <= T; i++)
		stamp[i] = NONE;
	for (size_t t = 0; t < T; t++) {
		uint64_t n = profile_graph_op_need(g, t, stamp);
		if (n > need) {
			need = n;
			*who = (uint32_t)t;
		}
	}
	free(stamp);
	return need;
}

static const struct ilp_solver *pick_solver(const struct ilp_options *o, struct rs_error *err)
{
	if (o->solver)
		return o->solver;
	size_t n;
	const struct ilp_solver *list = ilp_solver_list(&n);
	for (size_t i = 0; i < n; i++)
		if (list[i].available)
			return &list[i];
	rs_error_set(err, EXIT_UNAVAILABLE, NULL, 0,
		     "rematsim was built without an ILP solver: install coinor-libcbc-dev or "
		     "libglpk-dev and rebuild (./scripts/setup)");
	return NULL;
}

/* Stage-to-stage sets of a solution, built and costed: its peak, or -1. */
static int answer_peak(struct vars *v, const double *x, uint64_t *peak, struct rs_error *err)
{
	struct steps_kept k;
	kept_from(v, x, 0.5, NULL, &k);
	struct steps_cost c;
	int rc = kept_cost(v->g, &k, &c, err);
	steps_kept_free(&k);
	*peak = c.peak;
	return rc;
}

/*
 * The smallest budget a schedule fits in, where it can be known: first
 * the largest single op's need (a lower bound: if a schedule fits in it,
 * that is the answer), then the min_peak model, each within the time
 * limit (10 s without one: the answer to a refusal should come quickly).
 * A schedule found but not proven smallest is reported as such.
 */
#define MIN_BUDGET_DEFAULT_SECONDS 10
/* ilp_backend_solve, in a child killed at deadline when one is set. */
static int backend(const struct ilp_solver *sv, const struct ilp_model *m, bool integer,
		   double limit, double deadline, struct ilp_answer *a, struct rs_error *err)
{
	if (deadline > 0 || limit > 0)
		return ilp_backend_solve_by(sv, m, integer, limit, deadline, a, err);
	return ilp_backend_solve(sv, m, integer, limit, a, err);
}

double ilp_bound_lift(const int64_t *cost, size_t n, double b)
{
	uint64_t d = 0;
	for (size_t i = 0; i < n; i++)
		if (cost[i] > 0)
			d = gcd_u64(d, (uint64_t)cost[i]);
	if (!d || !(b > 0) || !isfinite(b))
		return b;
	double tol = 1e-6 * (b > 1 ? b : 1);
	double q = ceil((b - tol) / (double)d);
	double up = q * (double)d;
	return up > b ? up : b;
}

/* dst: a copy of src. */
static void kept_copy(struct steps_kept *dst, const struct steps_kept *src)
{
	dst->T = src->T;
	dst->off = xmemdup(src->off, (src->T + 2) * sizeof *dst->off);
	dst->node = xmemdup(src->node, ((size_t)src->off[src->T + 1] + 1) * sizeof *dst->node);
}

/* The deadline came before the model was built: the start, if there is
 * one within the budget, is the answer (no bound: the gap is 100 %);
 * else nothing was found in time. */
static int answer_unbuilt(const struct profile_graph *g, const struct ilp_options *o,
			  struct ilp_result *r, struct rs_error *err)
{
	r->unbuilt = true;
	r->lagrange_bound = NAN;
	r->lp_objective = NAN;
	r->status = ILP_UNKNOWN;
	if (!o->start || o->relax)
		return 0;
	struct steps_cost c;
	if (kept_cost(g, o->start, &c, err))
		return -1;
	if (c.peak > o->budget)
		return 0;
	r->start_given = r->start_answer = true;
	r->start_objective = r->objective = (double)c.remat_compute;
	snprintf(r->start_from, sizeof r->start_from, "%s",
		 o->start_from ? o->start_from : "a schedule given");
	r->bound = 0;
	r->status = r->objective > 0 ? ILP_FEASIBLE : ILP_OPTIMAL;
	r->gap = r->objective > 0 ? 1 : 0;
	kept_copy(&r->kept, o->start);
	return 0;
}

static int solve_min_budget(struct vars *v, const struct ilp_solver *sv, double time_limit,
			    double deadline, uint64_t need, struct ilp_result *r,
			    struct rs_error *err)
{
	double limit = time_limit > 0 ? time_limit : MIN_BUDGET_DEFAULT_SECONDS;
	struct ilp_model m = {0};
	struct ilp_answer a;
	if (!build(v, &m, (double)(need / v->unit), false, 0, deadline)) {
		model_free(&m);
		return 0; /* no time left to look: not known */
	}
	int rc = backend(sv, &m, true, limit, deadline, &a, err);
	model_free(&m);
	if (!rc && (a.status == ILP_OPTIMAL || a.status == ILP_FEASIBLE)) {
		rc = answer_peak(v, a.x, &r->min_budget, err);
		r->min_budget_known = !rc;
		free(a.x);
		return rc;
	}
	free(a.x);
	if (rc)
		return rc;
	if (!build(v, &m, 0, true, (double)(need / v->unit), deadline)) {
		model_free(&m);
		return 0;
	}
	rc = backend(sv, &m, true, limit, deadline, &a, err);
	model_free(&m);
	if (!rc && (a.status == ILP_OPTIMAL || a.status == ILP_FEASIBLE)) {
		rc = answer_peak(v, a.x, &r->min_budget, err);
		r->min_budget_known = !rc && a.status == ILP_OPTIMAL;
		r->min_budget_found = !rc && a.status == ILP_FEASIBLE;
	}
	free(a.x);
	return rc;
}

int ilp_solve(const struct profile *p, const struct ilp_options *o, struct ilp_result *r,
	      struct rs_error *err)
{
	memset(r, 0, sizeof *r);
	const struct profile_graph *g = p->graph;
	const struct schedule *s = p->s;
	if (g->unsupported_op != NONE) {
		const struct sched_op *op = &s->ops[g->unsupported_op];
		return rs_error_set(err, EXIT_DATAERR, s->source, op->line,
				    "op %s %s: the ILP models ops whose outputs all own their "
				    "storage or are all views into one storage",
				    schedule_str(s, op->name), g->unsupported_why);
	}
	const struct ilp_solver *sv = pick_solver(o, err);
	if (!sv)
		return -1;
	if (!sv->available)
		return rs_error_set(err, EXIT_UNAVAILABLE, NULL, 0,
				    "rematsim was built without %s: install %s and rebuild "
				    "(./scripts/setup), or try --solver %s", sv->name, sv->package,
				    strcmp(sv->name, "cbc") ? "cbc" : "glpk");
	r->solver = sv->name;
	/* the wall-clock deadline: the caller's, else (0) each solve's time
	 * limit from when it starts */
	double deadline = o->deadline;
	struct vars v;
	size_t bins;
	bool late;
	bool built = vars_init(&v, g, deadline, &bins, &late);
	int rc = 0;
	if (late) {
		rc = answer_unbuilt(g, o, r, err);
		goto out;
	}
	r->n_binaries = bins;
	r->mem_unit = v.unit;
	if (!built || bins > ILP_MAX_BINARIES) {
		rc = rs_error_set(err, EXIT_DATAERR, s->source, 0,
				  "the ILP of this log would have %s%zu binary variables (%zu ops), "
				  "past the %d this tool builds (--planner ilp-lp is no smaller; "
				  "dp and DTR's heuristics scale)", built ? "" : "at least ", bins,
				  g->n, ILP_MAX_BINARIES);
		goto out;
	}
	if (!(o->time_limit > 0) && bins > ILP_MAX_UNTIMED_BINARIES) {
		rc = rs_error_set(err, EXIT_DATAERR, s->source, 0,
				  "the ILP of this log has %zu binary variables (%zu ops): proving "
				  "it optimal may take hours; give --time-limit SECONDS for the "
				  "best schedule found by then (without one, up to %d)",
				  bins, g->n, ILP_MAX_UNTIMED_BINARIES);
		goto out;
	}
	uint32_t who;
	uint64_t need = single_need(g, &who);
	double cap = (double)(o->budget / v.unit);
	if (o->budget < need) {
		r->status = ILP_INFEASIBLE;
		r->need_bytes = need;
		r->need_node = who;
		if (o->min_budget && need / v.unit <= ILP_MAX_MEMORY_UNITS)
			rc = solve_min_budget(&v, sv, o->time_limit, deadline, need, r, err);
		goto out;
	}
	if (o->budget / v.unit > ILP_MAX_MEMORY_UNITS) {
		rc = rs_error_set(err, EXIT_DATAERR, s->source, 0,
				  "the budget is %" PRIu64 " memory units of %" PRIu64 " byte%s (the "
				  "sizes' greatest common divisor), past the 2^32 the ILP's solvers "
				  "tell apart one by one in double precision (beyond, they answer "
				  "\"infeasible\" where schedules exist, or give schedules over the "
				  "budget): plan with dp or DTR's heuristics, or give sizes with a "
				  "larger common divisor", o->budget / v.unit, v.unit,
				  v.unit == 1 ? "" : "s");
		goto out;
	}
	struct ilp_model m = {0};
	if (deadline_past(deadline) || !build(&v, &m, cap, false, 0, deadline)) {
		/* no time left for the model: the start is the answer */
		model_free(&m);
		rc = answer_unbuilt(g, o, r, err);
		goto out;
	}
	r->n_continuous = m.n_cols - bins;
	r->n_rows = m.n_rows;
	r->n_nonzeros = m.n_nz;
	/* the start: its columns, and its cost by the graph */
	double *x0 = NULL, mip_limit_lns = 0;
	bool x0_used = false;
	struct steps_cost c0 = {0};
	if (o->start && !o->relax) {
		/* past the deadline, the start is not made a point of the model
		 * (model_satisfies walks every row: 0.2 s on RL1000): no solver
		 * runs then, and the start is the answer all the same */
		bool late = deadline_past(deadline);
		x0 = xmalloc((m.n_cols + 1) * sizeof *x0);
		if ((rc = kept_cost(g, o->start, &c0, err)) ||
		    (!late && (rc = start_point(&v, &m, o->start, x0, err)))) {
			free(x0);
			model_free(&m);
			goto out;
		}
		if (c0.peak <= o->budget) {
			if (!late && model_satisfies(&m, x0))
				m.start = x0;
			x0_used = m.start != NULL;
			r->start_given = true;
			r->start_objective = (double)c0.remat_compute;
			snprintf(r->start_from, sizeof r->start_from, "%s",
				 o->start_from ? o->start_from : "a schedule given");
		}
	}
	/* Asked for (--lns), a share of the time goes to large-neighbourhood
	 * search from the start (lns above). */
	struct steps_kept lk = {0};
	bool lk_have = false;
	/* On a large model (where CBC's root takes minutes), with a time
	 * limit, a tenth of the time goes first to ruin and repair from the
	 * start (above); a cheaper schedule it finds becomes the start. */
	if (m.start && bins > RUIN_MIN_BINARIES && (o->time_limit > 0 || deadline > 0)) {
		double now = now_seconds();
		double end = now + RUIN_SHARE * (deadline > 0 ? deadline - now : o->time_limit);
		kept_copy(&lk, o->start);
		int64_t cost = (int64_t)r->start_objective;
		int got = ruin_and_repair(g, o->budget, o->seed, end, &lk, &cost, &r->ruin_rounds, err);
		if (got > 0 && (start_point(&v, &m, &lk, x0, err) || !model_satisfies(&m, x0))) {
			/* not a point of the model after all (a bug): the start as it was */
			got = start_point(&v, &m, o->start, x0, err) ? -1 : 0;
		}
		if (got < 0)
			goto fail_lk;
		if (got > 0) {
			lk_have = true;
			r->start_objective = (double)cost;
			size_t len = strlen(r->start_from);
			snprintf(r->start_from + len, sizeof r->start_from - len,
				 " + ruin and repair (%u rounds)", r->ruin_rounds);
		} else {
			steps_kept_free(&lk);
		}
		if (o->time_limit > 0 && !(deadline > 0))
			mip_limit_lns = now_seconds() - now;
	}
	/* A schedule cheaper than the start recomputes no node that alone
	 * costs more than the start: those recomputations are fixed to 0
	 * (fix_by_cost), in the search's windows too, and again after them
	 * for a cheaper start they found. The start stays a point, and the
	 * optimum, every bound and the search's answer are the full model's. */
	if (m.start)
		r->fixed_by_cost = fix_by_cost(&v, &m, r->start_objective);
	if (m.start && o->lns > 0 && (o->time_limit > 0 || deadline > 0)) {
		double now = now_seconds();
		double end = now + 0.35 * (deadline > 0 ? deadline - now : o->time_limit);
		if (!lk_have)
			kept_copy(&lk, o->start);
		int64_t cost = (int64_t)r->start_objective;
		int got = lns(&v, &m, sv, x0, &lk, &cost, o->budget, end, err);
		if (got < 0)
			goto fail_lk;
		m.start = x0;
		if (got > 0) {
			lk_have = true;
			r->start_objective = (double)cost;
			size_t len = strlen(r->start_from);
			snprintf(r->start_from + len, sizeof r->start_from - len, " + LNS");
		} else if (!lk_have) {
			steps_kept_free(&lk);
		}
		if (o->time_limit > 0 && !(deadline > 0))
			mip_limit_lns += now_seconds() - now;
	}
	if (lk_have)
		r->fixed_by_cost += fix_by_cost(&v, &m, r->start_objective);
	double lp_bound = 0, mip_limit = o->time_limit - mip_limit_lns, mip_deadline = deadline;
	if (mip_limit_lns > 0 && mip_limit < 0.01)
		mip_limit = 0.01;
	/* The Lagrangian bound (lagrange.h): no LP. It comes first: its
	 * fixings make the LP relaxation's model and the search's smaller.
	 * Its share: a tenth of the time limit, at most 60 s (2 s without
	 * one); past LP_MAX_BINARIES, seven tenths: there the LP is not
	 * tried (below), the search's root LP does not end either, and the
	 * Lagrangian is the bound. Its iterations are reckoned from that
	 * share and the model's size, so the same inputs and limit give the
	 * same bound; the share's end, with half again as slack (and before
	 * the deadline), only stops a machine slower than reckoned. */
	bool huge = bins > LP_MAX_BINARIES;
	bool try_lp = m.start && (o->time_limit > 0 || deadline > 0) && !huge;
	double lg_bound = 0;
	r->lagrange_bound = NAN;
	if (!o->relax) {
		struct lagrange_result lr;
		double now = now_seconds(), limit = o->time_limit > 0 ? o->time_limit : 0;
		if (!(limit > 0) && deadline > 0)
			limit = deadline - now;
		double share = huge ? 0.7 : 0.1, most = huge ? INFINITY : 60;
		double slice = limit > 0 ? share * limit : 2;
		if (slice > most)
			slice = most;
		double end = now + 1.5 * slice;
		if (deadline > 0 && end > now + (share + 0.05) * (deadline - now))
			end = now + (share + 0.05) * (deadline - now);
		lagrange_bound(g, o->budget, r->start_given ? r->start_objective : -1,
			       lagrange_iterations(g, slice), end, &lr);
		lg_bound = lr.bound;
		/* its reduced costs' fixings, where the start is a point (and
		 * not one of them: the start stays a point) */
		if (m.start)
			for (size_t q = 0; q < lr.n_fixed; q++) {
				uint32_t c = R(&v, lr.fixed[q].stage, lr.fixed[q].node);
				if (c != NONE && m.ub[c] > 0 && x0[c] < 0.5) {
					m.ub[c] = 0;
					r->fixed_by_bound++;
				}
			}
		lagrange_result_free(&lr);
		r->lagrange_bound = lr.bound;
		r->lagrange_iterations = lr.iterations;
		r->lagrange_seconds = lr.seconds;
		if (o->time_limit > 0 && !(deadline > 0))
			mip_limit = mip_limit - lr.seconds > 0.01 ? mip_limit - lr.seconds : 0.01;
	}
	/* A lower bound that holds whatever the search reaches: with a start
	 * and a time limit, the LP relaxation first, in a quarter of the time
	 * (killed at its end if unsolved: then no bound from it); not past
	 * LP_MAX_BINARIES. */
	if (try_lp) {
		struct ilp_answer la;
		double now = now_seconds();
		double lp_deadline = deadline > 0 ? now + 0.25 * (deadline - now) : 0;
		double lp_limit = o->time_limit > 0 ? 0.25 * o->time_limit : 0;
		/* try_lp: a limit or a deadline, so backend() solves in a
		 * child, where a bound alone may be asked for */
		m.bound_only = true;
		rc = backend(sv, &m, false, lp_limit, lp_deadline, &la, err);
		m.bound_only = false;
		if (rc) {
			model_free(&m);
			free(x0);
			goto out;
		}
		/* solved, or stopped with its row prices' bound (ilp_dual_bound) */
		if (la.status == ILP_OPTIMAL)
			lp_bound = la.obj;
		else if (la.status == ILP_UNKNOWN && la.bound > 0)
			lp_bound = la.bound;
		r->lp_objective = lp_bound > 0 ? lp_bound : NAN;
		r->lp_stopped = la.status != ILP_OPTIMAL && lp_bound > 0;
		free(la.x);
		if (o->time_limit > 0 && !(deadline > 0))
			mip_limit = mip_limit - la.seconds > 0.01 ? mip_limit - la.seconds : 0.01;
	}
	if (lg_bound > lp_bound)
		lp_bound = lg_bound; /* from here: the best bound that needs no search */
	struct ilp_answer a;
	rc = backend(sv, &m, !o->relax, mip_limit, mip_deadline, &a, err);
	model_free(&m);
	free(x0);
	if (rc)
		goto out;
	if ((a.status == ILP_FEASIBLE || a.status == ILP_UNKNOWN) && lp_bound > a.bound)
		a.bound = lp_bound;
	r->start_accepted = r->start_given && x0_used;
	/* never worse than the start: where the solver found nothing, or
	 * nothing cheaper, the start is the answer (its bound the solver's,
	 * where it has one: else 0) */
	if (r->start_given && (a.status == ILP_UNKNOWN ||
			       ((a.status == ILP_FEASIBLE || a.status == ILP_OPTIMAL) &&
				a.obj > r->start_objective))) {
		/* the best of the solver's (one it announced before it was
		 * killed, too) and lp_bound */
		double bound = a.bound;
		free(a.x);
		a.x = NULL;
		a.status = ILP_FEASIBLE;
		a.obj = r->start_objective;
		a.bound = bound > a.obj ? a.obj : bound;
		if (a.obj <= 0) /* no recomputation: nothing is cheaper (costs are >= 0) */
			a.status = ILP_OPTIMAL;
		r->start_answer = true;
	}
	r->seconds = a.seconds;
	r->cpu_seconds = a.cpu_seconds;
	r->status = a.status;
	if (a.status == ILP_INFEASIBLE) {
		r->need_bytes = need;
		r->need_node = who;
		if (o->min_budget)
			rc = solve_min_budget(&v, sv, o->time_limit, deadline, need, r, err);
	} else if (a.status == ILP_UNKNOWN) {
		/* nothing found in time */
	} else if (!o->relax) {
		r->objective = a.obj == 0 ? 0 : a.obj; /* not -0 */
		a.bound = ilp_bound_lift(g->cost, g->n, a.bound);
		if (a.bound > a.obj)
			a.bound = a.obj;
		r->bound = a.bound;
		r->gap = a.obj > 0 ? (a.obj - a.bound) / a.obj : 0;
		/* a bound that reaches the schedule's cost proves it optimal */
		if (a.status == ILP_FEASIBLE && a.bound >= a.obj)
			r->status = a.status = ILP_OPTIMAL;
		if (a.status == ILP_OPTIMAL)
			r->gap = 0;
		if (r->start_answer && lk_have) {
			r->kept = lk;
			lk_have = false;
		} else if (r->start_answer) {
			kept_copy(&r->kept, o->start);
		} else {
			kept_from(&v, a.x, 0.5, NULL, &r->kept);
		}
	} else {
		/* Round: Checkmate's nine thresholds, then seeded random roundings;
		 * keep the cheapest that fits (the first on a tie). */
		r->lp_objective = a.obj;
		r->bound = a.obj;
		r->status = ILP_NO_ROUNDING;
		int64_t best = INT64_MAX;
		uint64_t rng = o->seed;
		for (unsigned q = 0; q < 9 + o->rounds && !rc; q++) {
			struct steps_kept k;
			double th = q < 9 ? 0.1 * (q + 1) : 0;
			kept_from(&v, a.x, th, q < 9 ? NULL : &rng, &k);
			struct steps_cost c;
			if ((rc = kept_cost(g, &k, &c, err))) {
				steps_kept_free(&k);
				break;
			}
			if (c.peak <= o->budget) {
				r->roundings_fit++;
				if (c.remat_compute < best) {
					best = c.remat_compute;
					steps_kept_free(&r->kept);
					r->kept = k;
					r->status = ILP_LP_ROUNDED;
					r->threshold = th;
					r->round = q < 9 ? 0 : q - 8;
					r->objective = (double)c.remat_compute;
					continue;
				}
			}
			steps_kept_free(&k);
		}
		if (r->status == ILP_LP_ROUNDED)
			r->gap = r->objective > 0 ? (r->objective - a.obj) / r->objective : 0;
	}
	free(a.x);
	if (lk_have)
		steps_kept_free(&lk);
out:
	vars_free(&v);
	return rc;
fail_lk: /* the start's improvement failed (err set) */
	steps_kept_free(&lk);
	model_free(&m);
	free(x0);
	rc = -1;
	goto out;
}
