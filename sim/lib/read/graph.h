/*
 * graph.h: computation graphs in networkx's node-link JSON, read as
 * schedules (docs/graphs.md): Checkmate's training and inference graphs
 * (nodes with cost_cpu, cost_ram, backward) and Moccasin's random layered
 * graphs (nodes with duration, out_cost, param_cost, and a fixed order).
 * Every command that reads a log reads these too: schedule_read tells them
 * apart by content (graph_detect) and builds through schedule_builder.h.
 *
 * The schedule is the reference simulator's (simrd's from_dfgraph): one
 * op per node, its output as large as the node's bytes, its cost the
 * node's, in a topological order (the file's graph.order when it has one,
 * else from_dfgraph's depth-first order, Python's set order included);
 * after each op, the tensors whose last use it was are released, in the
 * order simrd releases them. Nothing is pinned at the end.
 *
 * Invariants: a graph that imports is a DAG whose every link names two
 * nodes, with whole non-negative costs within the reader's bounds; any
 * other input is refused with a message naming the node or link
 * (EXIT_DATAERR), never half-built.
 */
#ifndef REMATSIM_GRAPH_H
#define REMATSIM_GRAPH_H

#include <stdbool.h>
#include <stddef.h>

#include "schedule.h"
#include "util.h"

/**
 * Whether text (at least its first bytes) is a node-link graph: after
 * blanks, "{" and a first key that networkx writes first ("directed") or
 * holds ("multigraph", "graph", "nodes", "links", "edges"). An op log's
 * records never start so (their keys are upper case).
 */
bool graph_detect(const char *text, size_t len);

/**
 * Build the schedule of the graph in text[0..len) (named name: problems
 * say FILE: node ...). opt: preallocate as for logs (nothing is pinned,
 * so it changes nothing); from_start is moot. Problems as schedule_check
 * reports them (max_problems, report, ctx; the first in *err). Returns 0
 * with *out given, or the number of problems with *out NULL.
 */
int graph_import(const char *name, const char *text, size_t len, const struct read_options *opt,
		 int max_problems, void (*report)(void *ctx, const struct rs_error *e), void *ctx,
		 struct schedule **out, struct rs_error *err);

/** The reader's row for node-link graphs (schedule.h's struct
 * input_format): graph_detect, graph_import, and `info`'s "graph" line and
 * object (docs/graphs.md). */
extern const struct input_format graph_format;

#endif
