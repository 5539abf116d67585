/*
 * baselines.h: Checkmate's baseline schedules (Jain et al., MLSys 2020,
 * checkmate/core/solvers/strategy_*.py), as explicit schedules of every
 * op (steps.h) over a log's or graph's nodes, which the DTR paper's
 * Figure 2 compares with DTR and the ILP:
 *
 *  - checkpoint-all: every value kept from where it is made to its last
 *    reader, nothing recomputed (the unbounded schedule, in stages);
 *  - Chen et al.'s sqrt(n): every floor(sqrt(|C|))-th candidate checkpointed;
 *  - Chen's greedy (segment budget B): a checkpoint at a candidate where
 *    the running sum of forward bytes passes B, the sum then restarting;
 *
 *  - Griewank's log n (`griewank-logn`): revolve's binomial schedule
 *    (revolve.h) on the linearised graph, the chain of segments that end
 *    at the forward graph's articulation points;
 *
 * Chen's with candidates C the forward graph's articulation points
 * (Checkmate's default, `chen-sqrtn`, `chen-greedy`) or every forward node
 * (`-noap`). A set of checkpoints becomes what each stage keeps as
 * Checkmate's gen_s_matrix_fixed_checkpoints makes its S matrix, in our
 * words and generalised from its numbering (forward nodes first, each
 * gradient at the mirror position) to any node order (docs/solvers.md,
 * "Checkmate's baselines"); steps_build then takes the fewest
 * recomputations that allows (Checkmate's solve_r_opt).
 */
#ifndef REMATSIM_BASELINES_H
#define REMATSIM_BASELINES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"
#include "steps.h"
#include "util.h"

/* Nodes past which the baselines refuse a graph: their stage-by-node table
 * of what is kept is quadratic (bits), 32 MiB at this size. */
#define BASELINES_MAX_NODES 16384

/**
 * The articulation points of g's forward graph (nodes whose op is not
 * backward, with the links into them), as Checkmate's DFGraph finds them:
 * the links taken undirected, a virtual input linked to the first forward
 * node and a virtual output to the last, and a forward node is one when
 * removing it leaves more than one connected component. fwd[v]: node v is
 * forward. Sets ap[v]; returns their number. O(V (V + E)) time, linear
 * memory.
 */
size_t baselines_articulation_points(const struct profile_graph *g, const uint8_t *fwd, bool *ap);

/**
 * What each stage keeps, given checkpoints (is_cp[v] on forward nodes):
 * gen_s_matrix_fixed_checkpoints in our stages. Gives *k (steps_kept_free).
 */
void baselines_kept(const struct profile_graph *g, const uint8_t *fwd, const bool *is_cp,
		    struct steps_kept *k);

/** checkpoint-all: each value kept until its last reader (or the end, if pinned). */
void baselines_keep_all(const struct profile_graph *g, struct steps_kept *k);

/** The checkpoints of Chen's sqrt(n) (use_ap: among articulation points). */
size_t baselines_chen_sqrtn(const struct profile_graph *g, const uint8_t *fwd, bool use_ap,
			    bool *is_cp);
/** The checkpoints of Chen's greedy with segment budget B bytes. */
size_t baselines_chen_greedy(const struct profile_graph *g, const uint8_t *fwd, bool use_ap,
			     uint64_t segment_bytes, bool *is_cp);

/**
 * Griewank's log n: the forward nodes in order cut after each
 * articulation point into n segments, step j of a chain making x_j (the
 * last node of segment j) from x_{j-1}; revolve_run's schedule of that
 * chain with `snapshots` snapshots (the input's included; 0: ceil(log2 n),
 * at least 1) becomes what each stage keeps: each snapshot from where it
 * is made (its forward stage, or the backward stage that recomputes it)
 * to the last stage that restores from it or reads it; the state a turn
 * reads, from where it is made to the turn; reversing step j is the range
 * of backward stages that read x_{j-1} or segment j's other nodes, which
 * are kept across it; the forward sweep keeps each segment to the next
 * one's first stage; plus what every baseline keeps (baselines_kept).
 * Gives *k (steps_kept_free), the chain's forward steps (revolve_run's
 * count) and the snapshots used; returns n.
 */
size_t baselines_griewank(const struct profile_graph *g, const uint8_t *fwd, uint64_t snapshots,
			  struct steps_kept *k, uint64_t *fwd_steps, uint64_t *used);

/** fwd[v] for each node of p's graph (op not backward); free it. */
uint8_t *baselines_forward(const struct profile *p);

#endif
