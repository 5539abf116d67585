/*
 * gap.c: see gap.h. One pass gathers the rows (model, method, ratio,
 * budget, outcome, overhead, plan text) in point order; then, per model
 * and budget, each method's value, the optimum and their difference.
 * Methods and models keep their order of first appearance (the canonical
 * point order: models as listed, heuristics before planners).
 */
#include "gap.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "heuristics.h"

struct grow {
	size_t model, method;
	double ratio, overhead;
	unsigned long long budget; /* heuristics: the budget; planners: the replayed peak */
	const char *outcome;
	const char *plan; /* the heuristic column: "dp:k=4" for a planner */
	const char *status; /* an ILP row's solver_status, else NULL */
	const char *lower_bound;
};

struct gmethod {
	const char *name;
	bool heuristic;
};

static size_t index_of(const char ***names, size_t *n, size_t *cap, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*names)[i], name))
			return i;
	XGROW(*names, *cap, *n + 1);
	(*names)[*n] = name;
	return (*n)++;
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* A method's value at (model, ratio, budget): 1 with *overhead (and the
 * plan text for a planner), 0 with *outcome when it fails there, -1 when
 * it has no row for it. */
static int value_at(const struct grow *rows, const size_t *idx, size_t n, size_t method,
		    bool heuristic, double ratio, unsigned long long budget, double *overhead,
		    const char **outcome, const char **plan)
{
	double sum = 0, best = INFINITY;
	size_t trials = 0, passed = 0;
	*outcome = heuristic ? NULL : "none";
	*plan = "-";
	for (size_t i = 0; i < n; i++) {
		const struct grow *r = &rows[idx[i]];
		if (r->method != method)
			continue;
		if (heuristic) {
			if (r->ratio != ratio)
				continue;
			trials++;
			if (strcmp(r->outcome, "pass")) {
				if (!*outcome)
					*outcome = r->outcome;
				continue;
			}
			passed++;
			sum += r->overhead;
		} else if (!strcmp(r->outcome, "pass") && r->budget <= budget && r->overhead < best) {
			best = r->overhead;
			*plan = r->plan;
			passed = 1;
		}
	}
	if (heuristic) {
		if (!trials)
			return -1;
		if (passed < trials)
			return 0;
		*overhead = sum / (double)trials;
		*outcome = "pass";
		return 1;
	}
	if (!passed)
		return 0;
	*overhead = best;
	*outcome = "pass";
	return 1;
}

/* The optimum planner's row solved for this budget (an ILP's: it has a
 * solver_status), named by the ratio or the budget it was asked
 * ("ilp:ratio=0.8", "ilp:budget=N"), or NULL. */
static const struct grow *solved_at(const struct grow *rows, const size_t *idx, size_t n,
				    size_t method, const char *name, double ratio,
				    unsigned long long budget)
{
	char r[FMT_DOUBLE_LEN], by_ratio[256], by_budget[256];
	snprintf(by_ratio, sizeof by_ratio, "%s:ratio=%s", name, fmt_double(r, ratio));
	snprintf(by_budget, sizeof by_budget, "%s:budget=%llu", name, budget);
	for (size_t i = 0; i < n; i++) {
		const struct grow *g = &rows[idx[i]];
		if (g->method == method && g->status &&
		    (!strcmp(g->plan, by_ratio) || !strcmp(g->plan, by_budget)))
			return g;
	}
	return NULL;
}

void gap_write(FILE *f, const struct points_table *t, const char *optimum)
{
	size_t n_rows = 0, n_models = 0, cap_models = 0, n_names = 0, cap_names = 0;
	const char **models = NULL, **names = NULL;
	struct grow *rows = xcalloc(t->total + 1, sizeof *rows);
	char **copies = xcalloc(t->total + 1, sizeof *copies);
	for (size_t i = 0; i < t->total; i++) {
		if (!t->rows[i])
			continue;
		char *line = copies[i] = xstrdup(t->rows[i]);
		char *c[PC_MAX_COLUMNS + 1];
		size_t max = PC_MAX_COLUMNS + 1;
		if (tsv_split(line, c, max) != points_columns(t))
			continue;
		struct grow *r = &rows[n_rows++];
		r->model = index_of(&models, &n_models, &cap_models, c[PC_MODEL]);
		r->method = index_of(&names, &n_names, &cap_names, c[PC_SERIES]);
		r->ratio = strtod(c[PC_RATIO], NULL);
		r->budget = strtoull(c[PC_BUDGET], NULL, 10);
		r->outcome = c[PC_OUTCOME];
		r->overhead = strtod(c[PC_OVERHEAD], NULL);
		r->plan = c[PC_HEURISTIC];
		size_t ic = points_ilp_col(t);
		if (t->ilp_columns && strcmp(c[ic + PIC_STATUS], "-")) {
			r->status = c[ic + PIC_STATUS];
			r->lower_bound = c[ic + PIC_LOWER_BOUND];
		}
	}
	/* A method is a heuristic when its rows name one (a planner's name
	 * their plans: "dp:k=4"). */
	bool *heur = xcalloc(n_names + 1, sizeof *heur);
	for (size_t i = 0; i < n_rows; i++)
		if (heuristic_find(rows[i].plan))
			heur[rows[i].method] = true;
	size_t opt = n_names;
	for (size_t k = 0; k < n_names; k++)
		if (!heur[k] && !strcmp(names[k], optimum))
			opt = k;

	fprintf(f, "# gap.tsv: each method's compute overhead minus the optimum's, per model and budget "
		   "(docs/graphs.md)\n");
	if (strcmp(optimum, "best"))
		fprintf(f, "# optimum: planner %s's, where it solved the budget to optimality "
			   "(optimum_status optimal); elsewhere the least overhead any method reached "
			   "(optimum_from best:METHOD), not a proven optimum\n",
			optimum);
	else
		fprintf(f, "# optimum: the least overhead any method reached at the budget "
			   "(optimum_from best:METHOD), not a proven optimum\n");
	fputs(GAP_COLUMNS "\n", f);

	double *ratios = xcalloc(n_rows + 1, sizeof *ratios);
	double *value = xcalloc(n_names + 1, sizeof *value);
	const char **outcome = xcalloc(n_names + 1, sizeof *outcome), **plan = xcalloc(n_names + 1, sizeof *plan);
	int *has = xcalloc(n_names + 1, sizeof *has);
	char b1[FMT_DOUBLE_LEN], b2[FMT_DOUBLE_LEN], b3[FMT_DOUBLE_LEN];
	/* the rows of each model (CSR), so that a model's table reads its own */
	size_t *off = xcalloc(n_models + 2, sizeof *off), *idx = xcalloc(n_rows + 1, sizeof *idx);
	for (size_t i = 0; i < n_rows; i++)
		off[rows[i].model + 1]++;
	for (size_t m = 0; m < n_models; m++)
		off[m + 1] += off[m];
	size_t *at = xmemdup(off, (n_models + 1) * sizeof *at);
	for (size_t i = 0; i < n_rows; i++)
		idx[at[rows[i].model]++] = i;
	free(at);
	for (size_t m = 0; m < n_models; m++) {
		const size_t *mi = idx + off[m], mn = off[m + 1] - off[m];
		/* the model's budgets: its heuristic rows' ratios */
		size_t nr = 0;
		for (size_t i = 0; i < mn; i++)
			if (heur[rows[mi[i]].method])
				ratios[nr++] = rows[mi[i]].ratio;
		qsort(ratios, nr, sizeof *ratios, by_double);
		size_t u = 0;
		for (size_t i = 0; i < nr; i++)
			if (!u || ratios[u - 1] != ratios[i])
				ratios[u++] = ratios[i];
		for (size_t k = 0; k < u; k++) {
			double ratio = ratios[k];
			unsigned long long budget = 0;
			for (size_t i = 0; i < mn; i++)
				if (heur[rows[mi[i]].method] && rows[mi[i]].ratio == ratio)
					budget = rows[mi[i]].budget;
			/* the optimum planner's answer at this budget, if it was asked */
			const struct grow *sol =
				opt < n_names ? solved_at(rows, mi, mn, opt, names[opt], ratio, budget)
					      : NULL;
			/* every method's value (the optimum planner's: its answer
			 * here, where it has one), then the optimum */
			double best = INFINITY;
			size_t best_at = n_names;
			for (size_t j = 0; j < n_names; j++) {
				has[j] = value_at(rows, mi, mn, j, heur[j], ratio, budget, &value[j],
						  &outcome[j], &plan[j]);
				if (j == opt && sol) {
					has[j] = !strcmp(sol->outcome, "pass") ? 1 : 0;
					value[j] = sol->overhead;
					outcome[j] = sol->outcome;
					plan[j] = sol->plan;
				}
				if (has[j] == 1 && value[j] < best) {
					best = value[j];
					best_at = j;
				}
			}
			double optv = NAN;
			char from[256] = "-";
			const char *status = sol ? sol->status : "best";
			if (sol && !strcmp(sol->status, "optimal") && !strcmp(sol->outcome, "pass")) {
				optv = sol->overhead;
				snprintf(from, sizeof from, "%s", sol->plan);
			} else if (sol && !strcmp(sol->status, "infeasible")) {
				/* no schedule fits: nothing to measure from */
			} else if (best_at < n_names) {
				optv = best;
				snprintf(from, sizeof from, "best:%s", names[best_at]);
			}
			for (size_t j = 0; j < n_names; j++) {
				if (has[j] < 0)
					continue;
				rs_tsv_field(f, models[m]);
				fprintf(f, "\t%s\t%llu\t", fmt_double(b1, ratio), budget);
				rs_tsv_field(f, names[j]);
				fprintf(f, "\t%s\t%s\t",
					j == opt && sol ? "optimum" : heur[j] ? "heuristic" : "planner",
					outcome[j]);
				fputs(has[j] == 1 ? fmt_double(b1, value[j]) : "-", f);
				fputc('\t', f);
				rs_tsv_field(f, plan[j]);
				fprintf(f, "\t%s\t", isnan(optv) ? "-" : fmt_double(b2, optv));
				rs_tsv_field(f, from);
				fprintf(f, "\t%s\t%s\t%s\n", status,
					sol && sol->lower_bound ? sol->lower_bound : "-",
					has[j] == 1 && !isnan(optv) ? fmt_double(b3, value[j] - optv)
								    : "-");
			}
		}
	}
	free(off);
	free(idx);
	free(ratios);
	free(value);
	free(outcome);
	free(plan);
	free(has);
	free(heur);
	free(models);
	free(names);
	free(rows);
	for (size_t i = 0; i < t->total; i++)
		free(copies[i]);
	free(copies);
}
