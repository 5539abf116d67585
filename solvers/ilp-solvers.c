/*
 * ilp-solvers.c: the ILP's backends, one table row each: CBC through its C
 * interface (Cbc_C_Interface.h, Debian's coinor-libcbc-dev) and GLPK
 * (libglpk-dev). Each is optional at build time (HAVE_CBC, HAVE_GLPK: its
 * header was found); one missing is reported by name (EXIT_UNAVAILABLE)
 * with its package. Both run on one thread, silent, with no gap
 * tolerance: "optimal" means proven optimal.
 *
 * The libraries are loaded when first used (dlopen), not linked: CBC and
 * the COIN-OR libraries under it cost every rematsim process 15 million
 * instructions of start-up (C++ static initialization) otherwise, 60
 * times a bare `rematsim --version`. Their functions are called through
 * tables typed from the headers, so the compiler still checks each call.
 */
#include "ilp-private.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "outfile.h"

#include <dlfcn.h>
#include <fcntl.h>

#if HAVE_CBC
#include <Cbc_C_Interface.h>
#include <Clp_C_Interface.h>
#endif
#if HAVE_GLPK
#include <glpk.h>
#endif

/* Open the first of names that loads, and look up each symbol into the
 * table fns (n pointers): 0, or -1 with err naming the library. */
static int load_library(const char *what, const char *package, const char *const *names,
			const char *const *syms, void **fns, size_t n, struct rs_error *err)
{
	void *h = NULL;
	const char *why = "not found";
	for (size_t i = 0; names[i] && !h; i++) {
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
		if (!h)
			why = dlerror();
	}
	if (!h)
		return rs_error_set(err, EXIT_UNAVAILABLE, NULL, 0,
				    "%s cannot be loaded (%s): install %s", what, why, package);
	for (size_t i = 0; i < n; i++)
		if (!(fns[i] = dlsym(h, syms[i])))
			return rs_error_set(err, EXIT_UNAVAILABLE, NULL, 0,
					    "%s lacks %s: install %s", what, syms[i], package);
	return 0;
}

double ilp_dual_bound(const struct ilp_model *m, const double *y)
{
	/* d = obj - A'y, over the rows (CSR), in long double: the bound is
	 * a sum of many terms of both signs */
	long double *d = xmalloc((m->n_cols + 1) * sizeof *d);
	for (size_t j = 0; j < m->n_cols; j++)
		d[j] = m->obj[j];
	long double b = 0;
	for (size_t r = 0; r < m->n_rows; r++) {
		double p = y[r];
		if (!isfinite(p) || (m->sense[r] == 'G' && p < 0) || (m->sense[r] == 'L' && p > 0))
			p = 0;
		if (p == 0)
			continue;
		b += (long double)p * m->rhs[r];
		for (uint32_t k = m->row_off[r]; k < m->row_off[r + 1]; k++)
			d[m->col[k]] -= (long double)p * m->val[k];
	}
	for (size_t j = 0; j < m->n_cols && isfinite((double)b); j++) {
		if (d[j] > 0)
			b += isfinite(m->lb[j]) ? d[j] * m->lb[j] : -INFINITY;
		else if (d[j] < 0)
			b += isfinite(m->ub[j]) ? d[j] * m->ub[j] : -INFINITY;
	}
	free(d);
	return (double)b;
}

#if HAVE_CBC
#define CBC_FUNCTIONS(X) X(Cbc_newModel) X(Cbc_setLogLevel) X(Cbc_loadProblem) \
	X(Cbc_setInteger) X(Cbc_setParameter) X(Cbc_setAllowableGap) \
	X(Cbc_setAllowableFractionGap) X(Cbc_setMaximumSeconds) X(Cbc_solve) \
	X(Cbc_isProvenInfeasible) X(Cbc_isSecondsLimitReached) X(Cbc_bestSolution) \
	X(Cbc_isProvenOptimal) X(Cbc_getObjValue) X(Cbc_getBestPossibleObjValue) \
	X(Cbc_getColSolution) X(Cbc_deleteModel) X(Cbc_setMIPStartI) \
	X(Cbc_setInitialSolution) X(Cbc_registerCallBack)
static struct {
#define X(f) __typeof__(f) *f;
	CBC_FUNCTIONS(X)
#undef X
} cbc;
static bool cbc_loaded;

static int cbc_load(struct rs_error *err)
{
	if (cbc_loaded)
		return 0;
	static const char *const names[] = {"libCbcSolver.so.3", "libCbcSolver.so", NULL};
	static const char *const syms[] = {
#define X(f) #f,
		CBC_FUNCTIONS(X)
#undef X
	};
	if (load_library("CBC", "coinor-libcbc3", names, syms, (void **)&cbc,
			 sizeof syms / sizeof syms[0], err))
		return -1;
	cbc_loaded = true;
	return 0;
}

/* LP relaxations go to CLP, CBC's own LP solver, directly: Cbc_solve on a
 * model without integers ignores the time limit. */
#define CLP_FUNCTIONS(X) X(Clp_newModel) X(Clp_deleteModel) X(Clp_loadProblem) \
	X(Clp_setMaximumSeconds) X(Clp_setLogLevel) X(Clp_initialSolve) X(Clp_status) \
	X(Clp_isProvenOptimal) X(Clp_isProvenPrimalInfeasible) X(Clp_objectiveValue) \
	X(Clp_getColSolution) X(Clp_getRowPrice) X(Clp_registerCallBack) \
	X(Clp_setMaximumIterations)
static struct {
#define X(f) __typeof__(f) *f;
	CLP_FUNCTIONS(X)
#undef X
} clp;
static bool clp_loaded;

static int clp_load(struct rs_error *err)
{
	if (clp_loaded)
		return 0;
	static const char *const names[] = {"libClp.so.1", "libClp.so", NULL};
	static const char *const syms[] = {
#define X(f) #f,
		CLP_FUNCTIONS(X)
#undef X
	};
	if (load_library("CLP", "coinor-libclp1", names, syms, (void **)&clp,
			 sizeof syms / sizeof syms[0], err))
		return -1;
	clp_loaded = true;
	return 0;
}

/* Clp's messages, seen when only a bound is wanted (ilp_model.bound_only).
 * CoinUtils' message 512 (its number plus a million: not Clp's own) says
 * that the presolved LP is optimal and the whole model needs cleaning up
 * after postsolve: the row prices are already the optimum's, and the
 * cleanup can take longer than the solve. On ResNet50's training graph at
 * 90 % (285,334 columns, 478,944 rows), the presolved LP was optimal after
 * 12 s and postsolve left 41 rows off by at most 0.003; the cleanup
 * (dual simplex) then ran past Clp's limit, 150 s, without an end. Here
 * it stops at once (its iteration limit set to 0), and the prices give
 * the bound, 396.8495 ns, the LP's optimum. */
static void clp_watch(Clp_Simplex *lp, int msgno, int ndouble, const double *dvec, int nint,
		      const int *ivec, int nchar, char **cvec)
{
	(void)ndouble, (void)dvec, (void)nint, (void)ivec, (void)nchar, (void)cvec;
	if (msgno == 1000000 + 512)
		clp.Clp_setMaximumIterations(lp, 0);
}

/* CBC's messages, where its bounds may have to outlive a kill: 13, the
 * root's objective after its cuts (doubles: before, after), and 10, the
 * node log's (best solution, best possible, seconds). Each is a lower
 * bound on any schedule cheaper than the incumbent (the answer is never
 * above the incumbent: ilp.c caps the bound there). On RL250 at 90 %,
 * CBC's root ends after about 200 s with 812 ns; with --time-limit 600
 * its search then ran past its own limit and was killed at the deadline,
 * and the bound fell back to the LP's 752 (docs/solvers.md). */
static void cbc_watch(Cbc_Model *cm, int msgno, int ndouble, const double *dvec, int nint,
		      const int *ivec, int nchar, char **cvec)
{
	(void)cm, (void)nint, (void)ivec, (void)nchar, (void)cvec;
	if ((msgno == 13 || msgno == 10) && ndouble >= 2)
		ilp_progress_note(dvec[1]);
}

/* Binaries past which a start is CBC's incumbent, not its MIP start
 * (solve_cbc): between MobileNet's training graph (58,883, proven optimal
 * either way, a little faster as a MIP start) and RL250's (157,834). */
#define CBC_LARGE_MODEL 100000

static int solve_cbc(const struct ilp_model *m, bool integer, double time_limit,
		     struct ilp_answer *a, struct rs_error *err)
{
	if (integer ? cbc_load(err) : clp_load(err))
		return -1;
	/* Columns first (CSC for Cbc_loadProblem), from the rows. */
	int *start = xcalloc(m->n_cols + 2, sizeof *start);
	for (size_t k = 0; k < m->n_nz; k++)
		start[m->col[k] + 1]++;
	for (size_t j = 0; j < m->n_cols; j++)
		start[j + 1] += start[j];
	int *fill = xmemdup(start, (m->n_cols + 1) * sizeof *start);
	int *index = xmalloc((m->n_nz + 1) * sizeof *index);
	double *value = xmalloc((m->n_nz + 1) * sizeof *value);
	for (size_t r = 0; r < m->n_rows; r++)
		for (uint32_t k = m->row_off[r]; k < m->row_off[r + 1]; k++) {
			int at = fill[m->col[k]]++;
			index[at] = (int)r;
			value[at] = m->val[k];
		}
	double *rlo = xmalloc((m->n_rows + 1) * sizeof *rlo);
	double *rhi = xmalloc((m->n_rows + 1) * sizeof *rhi);
	for (size_t r = 0; r < m->n_rows; r++) {
		rlo[r] = m->sense[r] == 'L' ? -INFINITY : m->rhs[r];
		rhi[r] = m->sense[r] == 'G' ? INFINITY : m->rhs[r];
	}
	if (!integer) {
		Clp_Simplex *lp = clp.Clp_newModel();
		clp.Clp_setLogLevel(lp, 0);
		clp.Clp_loadProblem(lp, (int)m->n_cols, (int)m->n_rows, start, index, value, m->lb,
				    m->ub, m->obj, rlo, rhi);
		free(start);
		free(fill);
		free(index);
		free(value);
		free(rlo);
		free(rhi);
		if (time_limit > 0)
			clp.Clp_setMaximumSeconds(lp, time_limit);
		/* Clp's messages reach a callback only when printed: so only
		 * in a child, whose output goes to /dev/null
		 * (ilp_backend_solve). */
		if (m->bound_only && ilp_progress) {
			clp.Clp_registerCallBack(lp, clp_watch);
			clp.Clp_setLogLevel(lp, 1);
		}
		double t0 = now_seconds();
		clp.Clp_initialSolve(lp);
		a->seconds = now_seconds() - t0;
		if (clp.Clp_isProvenPrimalInfeasible(lp)) {
			a->status = ILP_INFEASIBLE;
		} else if (!clp.Clp_isProvenOptimal(lp)) {
			/* stopped at the limit, or by clp_watch: no solution,
			 * but the row prices give a bound (the dual simplex's
			 * are feasible for the dual at every step) */
			a->status = ILP_UNKNOWN;
			double b = ilp_dual_bound(m, clp.Clp_getRowPrice(lp));
			a->bound = isfinite(b) && b > 0 ? b : 0;
		} else {
			a->status = ILP_OPTIMAL;
			a->obj = a->bound = clp.Clp_objectiveValue(lp);
			a->x = xmalloc((m->n_cols + 1) * sizeof *a->x);
			memcpy(a->x, clp.Clp_getColSolution(lp), m->n_cols * sizeof *a->x);
		}
		clp.Clp_deleteModel(lp);
		return 0;
	}
	Cbc_Model *cm = cbc.Cbc_newModel();
	cbc.Cbc_setLogLevel(cm, 0);
	cbc.Cbc_setParameter(cm, "timeMode", "elapsed");
	cbc.Cbc_loadProblem(cm, (int)m->n_cols, (int)m->n_rows, start, index, value, m->lb, m->ub,
			m->obj, rlo, rhi);
	free(start);
	free(fill);
	free(index);
	free(value);
	free(rlo);
	free(rhi);
	size_t n_int = 0; /* the integer columns, set as such in a MIP */
	for (size_t j = 0; j < m->n_cols; j++)
		if (m->integer[j]) {
			n_int++;
			if (integer)
				cbc.Cbc_setInteger(cm, (int)j);
		}
	cbc.Cbc_setParameter(cm, "threads", "0");
	cbc.Cbc_setAllowableGap(cm, 0);
	cbc.Cbc_setAllowableFractionGap(cm, 0);
	if (time_limit > 0)
		cbc.Cbc_setMaximumSeconds(cm, time_limit);
	if (integer && m->start && n_int > CBC_LARGE_MODEL) {
		/* A large model's start goes in whole, as the incumbent, and
		 * CBC's preprocessing and heuristics are off. Handed as a MIP
		 * start (below), CBC 2.10 completes it by fixing only its
		 * nonzero columns and searching the rest, and with preprocessing
		 * it then re-solves the preprocessed root for minutes: on RL250
		 * at 90 % (157,834 binaries) its root had not ended after 555 s
		 * and it never returned. This way the root, its cuts and the
		 * search start at once from the start's cost: the same instance
		 * ends at its limit with CBC's own bound, 809 ns after 300 s (the
		 * gap 31 % where it was 36 % after 600 s), and at 80 % 55 %
		 * where it was 65 %. The start was checked against every row
		 * (model_satisfies), as Cbc_setInitialSolution does not. With
		 * preprocessing on, CBC 2.10.8 crashed on such an incumbent at
		 * its limit (SIGSEGV), so it stays off. Zero-half cuts too: on
		 * RL250 at 90 % that generator ran 101 s of CBC's 204 for no
		 * cut, and without it ResNet50's training graph at 90 % was
		 * proven in 40 s of CBC where it took 90 s. */
		cbc.Cbc_setInitialSolution(cm, m->start);
		cbc.Cbc_setParameter(cm, "preprocess", "off");
		cbc.Cbc_setParameter(cm, "heuristics", "off");
		cbc.Cbc_setParameter(cm, "zeroHalfCuts", "off");
		a->start_accepted = true;
	} else if (integer && m->start) {
		/* the MIP start: its nonzero integer columns (CBC computes the
		 * continuous ones) */
		int *idx = xmalloc((m->n_cols + 1) * sizeof *idx);
		double *val = xmalloc((m->n_cols + 1) * sizeof *val);
		int n = 0;
		for (size_t j = 0; j < m->n_cols; j++)
			if (m->integer[j] && m->start[j] > 0.5) {
				idx[n] = (int)j;
				val[n++] = 1;
			}
		cbc.Cbc_setMIPStartI(cm, n, idx, val);
		a->start_accepted = true;
		free(idx);
		free(val);
	}
	/* In a child that may be killed at its deadline, the bounds CBC
	 * announces reach the parent as they come (cbc_watch; the messages
	 * themselves go to /dev/null, ilp_backend_solve). */
	if (integer && n_int && ilp_progress) {
		cbc.Cbc_registerCallBack(cm, cbc_watch);
		cbc.Cbc_setLogLevel(cm, 1);
	}
	double t0 = now_seconds();
	int rc = cbc.Cbc_solve(cm);
	a->seconds = now_seconds() - t0;
	if (rc != 0 && !cbc.Cbc_isProvenInfeasible(cm) && !cbc.Cbc_isSecondsLimitReached(cm)) {
		cbc.Cbc_deleteModel(cm);
		return rs_error_set(err, EXIT_SOFTWARE, NULL, 0, "CBC failed (status %d)", rc);
	}
	/* A model without integer columns (a graph with no links: nothing to
	 * decide) is solved as an LP: no "best solution", the LP's own. */
	if (!n_int)
		integer = false;
	bool have = integer ? cbc.Cbc_bestSolution(cm) != NULL
			    : cbc.Cbc_isProvenOptimal(cm) && !cbc.Cbc_isProvenInfeasible(cm);
	if (cbc.Cbc_isProvenInfeasible(cm)) {
		a->status = ILP_INFEASIBLE;
	} else if (!have) {
		a->status = ILP_UNKNOWN;
	} else {
		a->status = cbc.Cbc_isProvenOptimal(cm) ? ILP_OPTIMAL : ILP_FEASIBLE;
		a->obj = cbc.Cbc_getObjValue(cm);
		a->bound = integer ? cbc.Cbc_getBestPossibleObjValue(cm) : a->obj;
		if (a->status == ILP_OPTIMAL || a->bound > a->obj)
			a->bound = a->obj;
		const double *x = integer ? cbc.Cbc_bestSolution(cm) : cbc.Cbc_getColSolution(cm);
		a->x = xmalloc((m->n_cols + 1) * sizeof *a->x);
		memcpy(a->x, x, m->n_cols * sizeof *x);
	}
	cbc.Cbc_deleteModel(cm);
	return 0;
}
#endif

#if HAVE_GLPK
#define GLPK_FUNCTIONS(X) X(glp_term_out) X(glp_create_prob) X(glp_set_obj_dir) \
	X(glp_add_cols) X(glp_set_col_kind) X(glp_set_col_bnds) X(glp_set_obj_coef) \
	X(glp_add_rows) X(glp_set_row_bnds) X(glp_load_matrix) X(glp_init_iocp) \
	X(glp_intopt) X(glp_mip_status) X(glp_init_smcp) X(glp_simplex) X(glp_get_status) \
	X(glp_mip_obj_val) X(glp_get_obj_val) X(glp_mip_col_val) X(glp_get_col_prim) \
	X(glp_delete_prob) X(glp_ios_best_node) X(glp_ios_node_bound)
static struct {
#define X(f) __typeof__(f) *f;
	GLPK_FUNCTIONS(X)
#undef X
} glpk;
static bool glpk_loaded;

static int glpk_load(struct rs_error *err)
{
	if (glpk_loaded)
		return 0;
	static const char *const names[] = {"libglpk.so.40", "libglpk.so", NULL};
	static const char *const syms[] = {
#define X(f) #f,
		GLPK_FUNCTIONS(X)
#undef X
	};
	if (load_library("GLPK", "libglpk40", names, syms, (void **)&glpk,
			 sizeof syms / sizeof syms[0], err))
		return -1;
	glpk_loaded = true;
	return 0;
}

struct glpk_watch {
	double bound;
	bool have_bound;
};

static void glpk_callback(glp_tree *tree, void *info)
{
	struct glpk_watch *w = info;
	int best = glpk.glp_ios_best_node(tree);
	if (best) {
		w->bound = glpk.glp_ios_node_bound(tree, best);
		w->have_bound = true;
	}
}

static int solve_glpk(const struct ilp_model *m, bool integer, double time_limit,
		      struct ilp_answer *a, struct rs_error *err)
{
	if (glpk_load(err))
		return -1;
	glpk.glp_term_out(GLP_OFF);
	glp_prob *lp = glpk.glp_create_prob();
	glpk.glp_set_obj_dir(lp, GLP_MIN);
	glpk.glp_add_cols(lp, (int)m->n_cols);
	for (size_t j = 0; j < m->n_cols; j++) {
		int c = (int)j + 1;
		bool bin = integer && m->integer[j] && m->lb[j] == 0 && m->ub[j] == 1;
		if (bin)
			glpk.glp_set_col_kind(lp, c, GLP_BV);
		else if (m->lb[j] == m->ub[j])
			glpk.glp_set_col_bnds(lp, c, GLP_FX, m->lb[j], m->ub[j]);
		else if (isinf(m->ub[j]))
			glpk.glp_set_col_bnds(lp, c, GLP_LO, m->lb[j], 0);
		else
			glpk.glp_set_col_bnds(lp, c, GLP_DB, m->lb[j], m->ub[j]);
		if (integer && m->integer[j] && !bin)
			glpk.glp_set_col_kind(lp, c, GLP_IV);
		glpk.glp_set_obj_coef(lp, c, m->obj[j]);
	}
	if (m->n_rows) {
		glpk.glp_add_rows(lp, (int)m->n_rows);
		for (size_t r = 0; r < m->n_rows; r++)
			glpk.glp_set_row_bnds(lp, (int)r + 1,
					 m->sense[r] == 'L' ? GLP_UP : m->sense[r] == 'G' ? GLP_LO : GLP_FX,
					 m->rhs[r], m->rhs[r]);
		int *ia = xmalloc((m->n_nz + 1) * sizeof *ia);
		int *ja = xmalloc((m->n_nz + 1) * sizeof *ja);
		double *ar = xmalloc((m->n_nz + 1) * sizeof *ar);
		for (size_t r = 0; r < m->n_rows; r++)
			for (uint32_t k = m->row_off[r]; k < m->row_off[r + 1]; k++) {
				ia[k + 1] = (int)r + 1;
				ja[k + 1] = (int)m->col[k] + 1;
				ar[k + 1] = m->val[k];
			}
		glpk.glp_load_matrix(lp, (int)m->n_nz, ia, ja, ar);
		free(ia);
		free(ja);
		free(ar);
	}
	int tm = time_limit > 0 ? (time_limit * 1e3 < 2e9 ? (int)(time_limit * 1e3) : 2000000000)
				: 0x7fffffff;
	double t0 = now_seconds();
	int rc, st;
	struct glpk_watch w = {0};
	if (integer) {
		glp_iocp p;
		glpk.glp_init_iocp(&p);
		p.msg_lev = GLP_MSG_OFF;
		p.presolve = GLP_ON;
		p.tm_lim = tm;
		p.mip_gap = 0;
		p.cb_func = glpk_callback;
		p.cb_info = &w;
		rc = glpk.glp_intopt(lp, &p);
		st = glpk.glp_mip_status(lp);
	} else {
		glp_smcp p;
		glpk.glp_init_smcp(&p);
		p.msg_lev = GLP_MSG_OFF;
		p.presolve = GLP_ON;
		p.tm_lim = tm;
		rc = glpk.glp_simplex(lp, &p);
		st = glpk.glp_get_status(lp);
	}
	a->seconds = now_seconds() - t0;
	if (rc == GLP_ENOPFS || st == GLP_NOFEAS) {
		a->status = ILP_INFEASIBLE;
	} else if (rc && rc != GLP_ETMLIM) {
		glpk.glp_delete_prob(lp);
		return rs_error_set(err, EXIT_SOFTWARE, NULL, 0, "GLPK failed (code %d)", rc);
	} else if (st == GLP_OPT || st == GLP_FEAS) {
		a->status = st == GLP_OPT && rc == 0 ? ILP_OPTIMAL : ILP_FEASIBLE;
		a->obj = integer ? glpk.glp_mip_obj_val(lp) : glpk.glp_get_obj_val(lp);
		a->bound = a->status == ILP_OPTIMAL || !w.have_bound || w.bound > a->obj ? a->obj
											    : w.bound;
		if (a->status == ILP_FEASIBLE && !w.have_bound)
			a->bound = -INFINITY;
		a->x = xmalloc((m->n_cols + 1) * sizeof *a->x);
		for (size_t j = 0; j < m->n_cols; j++)
			a->x[j] = integer ? glpk.glp_mip_col_val(lp, (int)j + 1)
					  : glpk.glp_get_col_prim(lp, (int)j + 1);
	} else {
		a->status = ILP_UNKNOWN;
	}
	glpk.glp_delete_prob(lp);
	return 0;
}
#endif

#if !HAVE_CBC
#define solve_cbc NULL
#endif
#if !HAVE_GLPK
#define solve_glpk NULL
#endif

static const struct ilp_solver solvers[] = {
	{"cbc", "coinor-libcbc-dev", HAVE_CBC, solve_cbc},
	{"glpk", "libglpk-dev", HAVE_GLPK, solve_glpk},
};

const struct ilp_solver *ilp_solver_list(size_t *n)
{
	*n = sizeof solvers / sizeof solvers[0];
	return solvers;
}

const struct ilp_solver *ilp_solver_find(const char *name)
{
	for (size_t i = 0; i < sizeof solvers / sizeof solvers[0]; i++)
		if (!strcasecmp(solvers[i].name, name))
			return &solvers[i];
	return NULL;
}

pthread_mutex_t ilp_solve_lock = PTHREAD_MUTEX_INITIALIZER; /* ilp-private.h */

int ilp_backend_solve(const struct ilp_solver *s, const struct ilp_model *m, bool integer,
		      double time_limit, struct ilp_answer *a, struct rs_error *err)
{
	memset(a, 0, sizeof *a);
	if (!s->available)
		return rs_error_set(err, EXIT_UNAVAILABLE, NULL, 0,
				    "rematsim was built without %s (install %s and rebuild: "
				    "./scripts/setup)", s->name, s->package);
	pthread_mutex_lock(&ilp_solve_lock);
	/* CBC and CLP take SIGINT for their own Ctrl-C handler, which only
	 * asks a search to stop (or nothing, outside one), then put ours back
	 * with signal(): a watch keeps Ctrl-C and SIGTERM ending the process,
	 * temporaries removed, whatever they install. */
	struct outfile_watch watch;
	outfile_signals_watch(&watch);
	/* Whatever the solver prints (CBC's cut generators print to stdout at
	 * log level 0: "2mir_test: why does constraint not exist ?") goes to
	 * stderr: stdout holds our output alone (`--json`). In the child of
	 * ilp_backend_solve_by (ilp_progress set: one thread), stdout and
	 * stderr both go to /dev/null: there the solvers run at log level 1
	 * for their message callbacks (solve_cbc), and the answer goes
	 * through the pipe. */
	fflush(NULL);
	int to = ilp_progress ? open("/dev/null", O_WRONLY) : -1;
	if (to < 0)
		to = STDERR_FILENO;
	int saved[2] = {dup(STDOUT_FILENO), to == STDERR_FILENO ? -1 : dup(STDERR_FILENO)};
	for (int i = 0; i < 2; i++)
		if (saved[i] >= 0)
			dup2(to, i ? STDERR_FILENO : STDOUT_FILENO);
	if (to != STDERR_FILENO)
		close(to);
	struct timespec c0, c1;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	int rc = s->solve(m, integer, time_limit, a, err);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	fflush(NULL);
	for (int i = 0; i < 2; i++)
		if (saved[i] >= 0) {
			dup2(saved[i], i ? STDERR_FILENO : STDOUT_FILENO);
			close(saved[i]);
		}
	outfile_signals_unwatch(&watch);
	pthread_mutex_unlock(&ilp_solve_lock);
	a->cpu_seconds = (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);
	return rc;
}
