/*
 * gap.h: gap.tsv, each method's compute overhead minus the optimum's, per
 * model and budget (docs/graphs.md, "The gap to the optimum"). A sweep
 * writes it beside points.tsv when its experiment asks (`gap:`; the
 * points.tsv header `gap`), and so does a merge; `rematsim plot` draws it.
 *
 * The budgets are those of the heuristic rows (each model's ratios).
 * At budget B a heuristic's overhead is the mean over its trials where all
 * pass; a planner's is its best plan whose replayed peak fits B; the named
 * planner's (the ILP's), where it was asked B (its row says so, with the
 * solver's status: results.h), that row's. The optimum is that row's
 * overhead where the solver proved it optimal; where it proved B
 * infeasible, none; elsewhere (not proven, nothing found in time, not
 * asked, or `best`) the least overhead any method reached at B, not a
 * proven optimum: optimum_status says which, lower_bound gives the
 * solver's bound where it has one.
 */
#ifndef REMATSIM_GAP_H
#define REMATSIM_GAP_H

#include <stdio.h>

#include "results.h"

#define GAP_COLUMNS                                                                        \
	"model\tratio\tbudget\tmethod\tkind\toutcome\toverhead\tplan\toptimum\toptimum_from\t"    \
	"optimum_status\tlower_bound\tgap"
enum gap_col {
	GC_MODEL, GC_RATIO, GC_BUDGET, GC_METHOD, GC_KIND, GC_OUTCOME, GC_OVERHEAD, GC_PLAN,
	GC_OPTIMUM, GC_OPTIMUM_FROM, GC_OPTIMUM_STATUS, GC_LOWER_BOUND, GC_GAP, GC_COUNT
};

/**
 * Write gap.tsv's content for the rows of t (a points table) to f, the
 * optimum being planner `optimum`'s plans, or the best reached ("best").
 */
void gap_write(FILE *f, const struct points_table *t, const char *optimum);

#endif
