/*
 * ilp-private.h: what ilp.c (the model) and ilp-solvers.c (the backends)
 * share: a mixed-integer program as plain arrays, rows in CSR, and what a
 * backend answers. Nothing here is seen outside solvers/.
 */
#ifndef REMATSIM_ILP_PRIVATE_H
#define REMATSIM_ILP_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>

#include "ilp.h"

struct ilp_model {
	size_t n_cols, cap_cols;
	double *lb, *ub, *obj;
	uint8_t *integer;
	size_t n_rows, cap_rows;
	uint32_t *row_off;     /* [n_rows + 1] into col, val */
	char *sense;           /* 'L' (<=), 'G' (>=), 'E' (=) */
	double *rhs;
	size_t n_nz, cap_nz;
	uint32_t *col;
	double *val;
	/* A feasible point to start from ([n_cols]; NULL: none), handed to CBC
	 * as its MIP start (the nonzero integer columns), or in a large model
	 * as its incumbent (solve_cbc); not owned. */
	const double *start;
	/* Only the LP relaxation's optimal value is wanted, as a lower bound
	 * (ilp.c's LP before the search), not its solution: the backend may
	 * stop early and answer ILP_UNKNOWN with the bound its row prices
	 * give (ilp_dual_bound; solve_cbc). */
	bool bound_only;
};

struct ilp_answer {
	enum ilp_status status; /* OPTIMAL, FEASIBLE, INFEASIBLE or UNKNOWN */
	bool start_accepted;    /* the solver took model.start as an incumbent */
	double obj, bound;
	double seconds;         /* wall */
	double cpu_seconds;     /* CPU time of the solving thread */
	double *x;              /* [n_cols] when there is a solution (free it) */
};

/**
 * Solve m with backend s (integer: as a MIP, else its LP relaxation),
 * stopping after time_limit seconds (0: none). 0 with *a, or -1 with err
 * (EXIT_UNAVAILABLE: not built in; EXIT_SOFTWARE: the solver failed).
 * Solves one at a time across threads (the libraries keep global state).
 */
int ilp_backend_solve(const struct ilp_solver *s, const struct ilp_model *m, bool integer,
		      double time_limit, struct ilp_answer *a, struct rs_error *err);
/**
 * A lower bound on the optimum of m's LP relaxation from any row prices y
 * ([n_rows]), by weak duality: sum_r y_r rhs_r + sum_j min over [lb_j,
 * ub_j] of d_j x_j, where d = obj - A'y; a price whose sign does not fit
 * its row's sense (>= rows take y >= 0, <= rows y <= 0) counts as 0.
 * -INFINITY where a column without a finite bound would make it so. It
 * holds whatever y is (the LP optimum's prices give the optimum), so a
 * solver stopped before its end still leaves a bound.
 */
double ilp_dual_bound(const struct ilp_model *m, const double *y);
/* In ilp_backend_solve_by's child (one thread, its output sent to
 * /dev/null by ilp_backend_solve), where the solver reports the best
 * lower bound it has announced so far (ilp_progress_note), in memory
 * shared with the parent, which keeps it if it has to kill the child at
 * the deadline: NULL elsewhere. */
struct ilp_progress;
extern struct ilp_progress *ilp_progress;
/* Raise the shared bound to b (a bound the solver has proved). */
void ilp_progress_note(double b);
/* ilp_backend_solve's lock (one solve at a time in a process). */
extern pthread_mutex_t ilp_solve_lock;
/**
 * ilp_backend_solve in a child process that is killed at deadline
 * (now_seconds()'s clock; 0: time_limit after this solve's turn comes):
 * then ILP_UNKNOWN, nothing found in time (ilp-deadline.c). The solver's
 * own limit is time_limit or, if sooner, nine tenths of the time left.
 */
int ilp_backend_solve_by(const struct ilp_solver *s, const struct ilp_model *m, bool integer,
			 double time_limit, double deadline, struct ilp_answer *a,
			 struct rs_error *err);

#endif
