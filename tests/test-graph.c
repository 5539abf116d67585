/*
 * test-graph.c: node-link graphs read as schedules (sim/lib/read/graph.c) and
 * the Python set order they follow (sim/util/pyset.c).
 *
 *  - pyset: the iteration order of tests/data/pyset-orders.tsv's sets, as
 *    CPython printed them (table rebuilds, colliding keys);
 *  - detection by content: a graph's first key, never an op log's record;
 *  - a hand-made 4-node diamond (Checkmate's kind) and a 4-node random
 *    layered graph with its own order and a parameter: the ops in simrd's
 *    depth-first order (2 before 1: Python's set of 0's successors is
 *    {1, 2}, and the walk puts the last finished first), the releases
 *    after each last use, the backward flag, the peak worked out by hand;
 *  - bad graphs (a table: JSON, shape, ids, costs, links, cycles, orders):
 *    status 65 and a message naming the node or link, in read and check
 *    mode, nothing built;
 *  - `test-graph shipped`: the 18 graphs of ../shared/graphs/moccasin each
 *    import, with one op per node, the nodes' total cost, and an unbounded
 *    peak equal to the topological-order peak computed here from the JSON
 *    (Moccasin's definition, in graph.order or id order, independent of
 *    the importer's depth-first order).
 */
#include <check.h>
#include <dirent.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "pyset.h"
#include "runtime.h"
#include "test-common.h"

START_TEST(pyset_matches_python)
{
	FILE *f = open_test_data("pyset-orders.tsv");
	char line[1 << 15];
	int rows = 0;
	struct pyset s = {0};
	uint32_t *order = malloc(sizeof *order * 4096);
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '#')
			continue;
		char *tab = strchr(line, '\t');
		ck_assert_ptr_nonnull(tab);
		*tab = 0;
		pyset_clear(&s);
		for (char *p = line, *e;; p = e) {
			unsigned long k = strtoul(p, &e, 10);
			if (e == p)
				break;
			pyset_add(&s, (uint32_t)k);
		}
		size_t n = pyset_order(&s, order), i = 0;
		for (char *p = tab + 1, *e;; p = e, i++) {
			unsigned long k = strtoul(p, &e, 10);
			if (e == p)
				break;
			ck_assert_msg(i < n && order[i] == k, "row %d: member %zu is %u, Python's %lu", rows,
				      i, i < n ? order[i] : 0, k);
		}
		ck_assert_uint_eq(i, n);
		rows++;
	}
	ck_assert_int_gt(rows, 100);
	free(order);
	pyset_free(&s);
	fclose(f);
}
END_TEST

START_TEST(detection)
{
	static const char *const graphs[] = {
		"{\"directed\": true}", " \n{ \"nodes\": []}", "{\"links\":[]}", "{\"graph\":{}}",
		"{\"multigraph\": false}", "{\"edges\": []}", "\t{\n  \"directed\": true,\n",
	};
	static const char *const logs[] = {
		"{\"INSTRUCTION\":\"CALL\"}", "{\"ARGS\":[]}", "", "[", "{", "{\"nodesX\":1}",
		"{\"direct\":true}", "x{\"directed\":true}", "{ }",
	};
	for (size_t i = 0; i < sizeof graphs / sizeof graphs[0]; i++)
		ck_assert_msg(graph_detect(graphs[i], strlen(graphs[i])), "%s", graphs[i]);
	for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++)
		ck_assert_msg(!graph_detect(logs[i], strlen(logs[i])), "%s", logs[i]);
	/* a prefix cut inside the key is not a graph yet */
	ck_assert(!graph_detect("{\"nodes", 7));
}
END_TEST

/* The schedule of a graph given inline (read as a log would be). */
static struct schedule *import(const char *json, struct rs_error *err)
{
	struct schedule *s = NULL;
	struct read_options ro = {.digest = true};
	if (schedule_parse("g.json", json, strlen(json), &ro, &s, err))
		return NULL;
	return s;
}

/* "compute NAME" / "release xID" / "pin xID" / "get xID", space-separated. */
static void commands(const struct schedule *s, char *buf, size_t cap)
{
	size_t n = 0;
	buf[0] = 0;
	for (size_t i = 0; i < s->n_cmds && n < cap; i++) {
		const struct sched_cmd *c = &s->cmds[i];
		const char *name = c->kind == CMD_COMPUTE ? schedule_str(s, s->ops[c->id].name)
							   : schedule_str(s, s->tensors[c->id].name);
		static const char *const kinds[] = {"compute", "get", "pin", "release"};
		n += (size_t)snprintf(buf + n, cap - n, "%s%s %s", i ? ", " : "", kinds[c->kind], name);
	}
}

/* 0 -> {1, 2} -> 3, sizes 10, 20, 30, 40, costs 1, 2, 3, 4; node 3 is a
 * backward node. The depth-first walk from 0 takes 1 first (Python's set
 * {1, 2}), reaches 3, finishes 3 then 1, then 2: the order is 0, 2, 1, 3.
 * x0's last use is node 1 (step 2); x1, x2, x3's is node 3. */
static const char diamond[] =
	"{\"directed\": true, \"multigraph\": false, \"graph\": {\"name\": \"diamond\"},\n"
	" \"nodes\": [{\"id\": 0, \"name\": \"in\", \"backward\": false, \"cost_cpu\": 1, \"cost_ram\": 10},\n"
	"  {\"id\": 1, \"name\": \"left\", \"backward\": false, \"cost_cpu\": 2, \"cost_ram\": 20},\n"
	"  {\"id\": 2, \"name\": \"right\", \"backward\": false, \"cost_cpu\": 3, \"cost_ram\": 30},\n"
	"  {\"id\": 3, \"name\": \"join\", \"backward\": true, \"cost_cpu\": 4, \"cost_ram\": 40}],\n"
	" \"links\": [{\"source\": 0, \"target\": 1}, {\"source\": 0, \"target\": 2},\n"
	"  {\"source\": 1, \"target\": 3}, {\"source\": 2, \"target\": 3}]}\n";

START_TEST(four_nodes)
{
	struct rs_error err = {0};
	struct schedule *s = import(diamond, &err);
	ck_assert_msg(s, "%s", err.msg);
	char buf[1024];
	commands(s, buf, sizeof buf);
	ck_assert_str_eq(buf, "compute in, compute right, compute left, release x0, compute join, "
			      "release x1, release x2, release x3");
	ck_assert_int_eq(s->input, SCHED_GRAPH_CHECKMATE);
	ck_assert(!s->graph_file_order);
	ck_assert_uint_eq(s->graph_nodes, 4);
	ck_assert_uint_eq(s->graph_links, 4);
	ck_assert_uint_eq(s->lines, 7);
	ck_assert_uint_eq(s->n_ops, 4);
	ck_assert_uint_eq(s->n_forward_ops, 3);
	ck_assert_uint_eq(s->n_backward_ops, 1);
	ck_assert_uint_eq(s->n_pins_final, 0);
	ck_assert_int_eq(s->total_compute, 10);
	/* join reads left then right (its links' order); each op's line is its
	 * node's place in the nodes list */
	const struct sched_op *join = &s->ops[3];
	ck_assert_uint_eq(join->n_args, 2);
	ck_assert_str_eq(schedule_str(s, s->tensors[s->op_args[join->args]].name), "x1");
	ck_assert_str_eq(schedule_str(s, s->tensors[s->op_args[join->args + 1]].name), "x2");
	ck_assert_uint_eq(join->line, 4);
	ck_assert_uint_eq(s->ops[1].line, 3);
	ck_assert(join->backward && !s->ops[2].backward);
	/* peak: 10, 40, 60 (then 50), 90 */
	struct baseline b;
	baseline_run(s, &b);
	ck_assert_uint_eq(b.memory, 90);
	ck_assert_int_eq(b.compute, 10);
	schedule_free(s);
}
END_TEST

/* The random layered kind: ids in "name", links "0" -> "1", graph.order
 * runs 0, 1, 2, 3 (1 before 2, where the walk would run 2 first); node 2
 * holds 5 bytes of parameters, a constant made before the ops and, as a
 * log's weights, never released (so pinned again at the end). */
static const char layered[] =
	"{\"directed\": true, \"multigraph\": false,\n"
	" \"graph\": {\"name\": \"rl\", \"order\": [0, 1, 2, 3]},\n"
	" \"nodes\": [{\"out_cost\": 10, \"param_cost\": 0, \"duration\": 0, \"name\": 0},\n"
	"  {\"out_cost\": 20, \"param_cost\": 0, \"duration\": 2, \"name\": 1},\n"
	"  {\"out_cost\": 30, \"param_cost\": 5, \"duration\": 3, \"name\": 2},\n"
	"  {\"out_cost\": 40, \"param_cost\": 0, \"duration\": 4.0, \"name\": 3}],\n"
	" \"links\": [{\"0\": 0, \"1\": 1}, {\"0\": 0, \"1\": 2}, {\"0\": 2, \"1\": 3}, {\"0\": 1, \"1\": 3}]}";

START_TEST(layered_order)
{
	struct rs_error err = {0};
	struct schedule *s = import(layered, &err);
	ck_assert_msg(s, "%s", err.msg);
	char buf[1024];
	commands(s, buf, sizeof buf);
	ck_assert_str_eq(buf, "compute constant, pin p2, compute f0, compute f1, compute f2, "
			      "release x0, compute f3, release x1, release x2, release x3, pin p2");
	ck_assert_int_eq(s->input, SCHED_GRAPH_LAYERED);
	ck_assert(s->graph_file_order);
	ck_assert_uint_eq(s->n_constants, 1);
	ck_assert_uint_eq(s->const_memory, 5);
	/* f2 reads x0 and its parameters; f3 reads x2 then x1 (link order) */
	const struct sched_op *f2 = &s->ops[3], *f3 = &s->ops[4];
	ck_assert_uint_eq(f2->n_args, 2);
	ck_assert_str_eq(schedule_str(s, s->tensors[s->op_args[f2->args + 1]].name), "p2");
	ck_assert_str_eq(schedule_str(s, s->tensors[s->op_args[f3->args]].name), "x2");
	struct baseline b;
	baseline_run(s, &b);
	/* 5 + 10, + 20, + 30 (then x0 freed: 55), + 40 = 95 */
	ck_assert_uint_eq(b.memory, 95);
	ck_assert_int_eq(b.compute, 9);
	schedule_free(s);
}
END_TEST

struct collect {
	int n;
	char msgs[16][1024];
};

static void collect(void *ctx, const struct rs_error *e)
{
	struct collect *c = ctx;
	if (c->n < 16)
		snprintf(c->msgs[c->n], sizeof c->msgs[0], "%s", e->msg);
	c->n++;
}

#define NODE(id, cpu, ram) "{\"id\": " #id ", \"name\": \"n" #id "\", \"cost_cpu\": " #cpu ", \"cost_ram\": " #ram "}"
#define LINK(a, b) "{\"source\": " #a ", \"target\": " #b "}"
#define GRAPH(nodes, links) "{\"directed\": true, \"nodes\": [" nodes "], \"links\": [" links "]}"

START_TEST(bad_graphs)
{
	static const struct {
		const char *json, *msg;
	} cases[] = {
		{"{\"directed\": true, \"nodes\": [", "invalid JSON at column"},
		{"{\"directed\": true, \"nodes\": [], \"nodes\": []}", "duplicate object key"},
		{"{\"nodes\": 3, \"links\": []}", "needs a non-empty \"nodes\" list"},
		{"{\"nodes\": [], \"links\": []}", "needs a non-empty \"nodes\" list"},
		{"{\"nodes\": [" NODE(0, 1, 1) "]}", "needs a \"links\" (or \"edges\") list (none found)"},
		/* issue 40, H18: read as "links" alone without a word before */
		{"{\"nodes\": [" NODE(0, 1, 1) "], \"links\": [], \"edges\": []}",
		 "both \"links\" and \"edges\""},
		{"{\"directed\": false, \"nodes\": [" NODE(0, 1, 1) "], \"links\": []}",
		 "\"directed\" is false"},
		{"{\"graph\": [], \"nodes\": [" NODE(0, 1, 1) "], \"links\": []}",
		 "\"graph\" must be an object"},
		{GRAPH("1", ""), "the first node is an integer, not an object"},
		{GRAPH("{\"id\": 0, \"x\": 1}", ""), "neither \"cost_cpu\" and \"cost_ram\""},
		{GRAPH(NODE(0, 1, 1) ", 7", ""), "nodes[1] is an integer, not an object"},
		{GRAPH(NODE(0, 1, 1) ", {\"id\": -1, \"cost_cpu\": 1, \"cost_ram\": 1}", ""),
		 "nodes[1] has no \"id\" that is an integer from 0 to 2^31-1"},
		{GRAPH(NODE(0, 1, 1) ", {\"id\": \"a\", \"cost_cpu\": 1, \"cost_ram\": 1}", ""),
		 "nodes[1] has no \"id\""},
		{GRAPH(NODE(0, 1, 1) ", " NODE(0, 2, 2), ""),
		 "node id 0 is given twice (nodes[0] and nodes[1])"},
		{GRAPH("{\"id\": 4, \"name\": \"conv\", \"cost_ram\": 1}", ""),
		 "node 4 (\"conv\") lacks \"cost_cpu\""},
		{GRAPH(NODE(4, -3, 1), ""), "node 4 (\"n4\"): \"cost_cpu\" is negative (-3)"},
		{GRAPH(NODE(4, 1, -8), ""), "node 4 (\"n4\"): \"cost_ram\" is negative (-8)"},
		{GRAPH(NODE(4, 1.5, 1), ""), "node 4 (\"n4\"): \"cost_cpu\" must be a whole number"},
		{GRAPH(NODE(4, "\"9\"", 1), ""), "\"cost_cpu\" must be a non-negative whole number, not a string"},
		{GRAPH(NODE(4, 1, 4611686018427387905), ""), "\"cost_ram\" is too large"},
		{GRAPH(NODE(4, 1152921504606846976, 1) ", " NODE(5, 1, 1), LINK(4, 5)),
		 "node 5 (\"n5\"): the nodes' compute costs add up past 2^60"},
		{GRAPH("{\"id\": 4, \"cost_cpu\": 1, \"cost_ram\": 1, \"backward\": 1}", ""),
		 "node 4: \"backward\" must be true or false"},
		{"{\"nodes\": [{\"name\": 0, \"out_cost\": 1}], \"links\": []}",
		 "node 0 lacks \"duration\""},
		{GRAPH(NODE(0, 1, 1), LINK(0, 9)), "links[0] names node 9 as its target, and no node has that id"},
		{GRAPH(NODE(0, 1, 1), "{\"from\": 0, \"to\": 0}"), "links[0] has no \"0\" that is an integer"},
		{GRAPH(NODE(0, 1, 1), "3"), "links[0] is an integer, not an object"},
		{GRAPH(NODE(0, 1, 1), LINK(0, 0)), "links[0] leads from node 0 (\"n0\") to itself"},
		{GRAPH(NODE(0, 1, 1) ", " NODE(1, 1, 1), LINK(0, 1) ", " LINK(0, 1)),
		 "links[1] repeats links[0] (from node 0 (\"n0\") to node 1 (\"n1\"))"},
		{GRAPH(NODE(0, 1, 1) ", " NODE(1, 1, 1) ", " NODE(2, 1, 1),
		       LINK(0, 1) ", " LINK(1, 2) ", " LINK(2, 1)),
		 "the graph has a cycle: node 2 (\"n2\") leads back to node 1 (\"n1\")"},
		{"{\"graph\": {\"order\": [1, 0]}, \"nodes\": [" NODE(0, 1, 1) ", " NODE(1, 1, 1)
		 "], \"links\": [" LINK(0, 1) "]}",
		 "\"order\" runs node 1 (\"n1\") before node 0 (\"n0\"), which it uses (links[0])"},
		{"{\"graph\": {\"order\": [0]}, \"nodes\": [" NODE(0, 1, 1) ", " NODE(1, 1, 1)
		 "], \"links\": []}", "\"order\" lists 1 nodes, the graph has 2"},
		{"{\"graph\": {\"order\": [0, 0]}, \"nodes\": [" NODE(0, 1, 1) ", " NODE(1, 1, 1)
		 "], \"links\": []}", "\"order\" lists node 0 (\"n0\") twice"},
		{"{\"graph\": {\"order\": [0, 5]}, \"nodes\": [" NODE(0, 1, 1) ", " NODE(1, 1, 1)
		 "], \"links\": []}", "\"order\"[1] is not the id of a node"},
		{"{\"graph\": {\"order\": 1}, \"nodes\": [" NODE(0, 1, 1) "], \"links\": []}",
		 "\"order\" is an integer, not a list of node ids"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct rs_error err = {0};
		struct schedule *s = import(cases[i].json, &err);
		ck_assert_msg(!s, "case %zu was accepted: %s", i, cases[i].json);
		ck_assert_int_eq(err.status, EXIT_DATAERR);
		ck_assert_str_eq(err.file, "g.json");
		ck_assert_msg(strstr(err.msg, cases[i].msg), "case %zu: \"%s\", wanted \"%s\"", i,
			      err.msg, cases[i].msg);
		/* check mode finds it too */
		struct collect c = {0};
		struct read_options ro = {0};
		int n = schedule_check("g.json", cases[i].json, strlen(cases[i].json), &ro, 16, collect, &c);
		ck_assert_msg(n >= 1 && strstr(c.msgs[0], cases[i].msg), "check mode, case %zu: %s", i,
			      c.n ? c.msgs[0] : "nothing");
	}
	/* check mode lists every node's problem, not the first alone */
	const char *many = GRAPH(NODE(0, -1, 1) ", " NODE(1, 1, -1) ", {\"id\": 2, \"cost_ram\": 1}", "");
	struct collect c = {0};
	struct read_options ro = {0};
	ck_assert_int_eq(schedule_check("g.json", many, strlen(many), &ro, 16, collect, &c), 3);
	ck_assert(strstr(c.msgs[2], "node 2 lacks \"cost_cpu\""));
}
END_TEST

/* ---------------------------------------------------------------- shipped */

/*
 * The topological-order peak of a node-link graph, as Moccasin computes it
 * (util.get_mem_from_schedule): the nodes run in graph.order, else in id
 * order; at step j the memory is the node's output plus every earlier
 * output some node at step j or later uses. Written from the JSON with
 * nothing of graph.c.
 */
static uint64_t topological_peak(json_t *root, int64_t *total_cost, size_t *n_nodes)
{
	json_t *nodes = json_object_get(root, "nodes"), *links = json_object_get(root, "links");
	size_t n = json_array_size(nodes), m = json_array_size(links);
	int checkmate = json_object_get(json_array_get(nodes, 0), "cost_ram") != NULL;
	const char *idk = checkmate ? "id" : "name", *sk = checkmate ? "source" : "0",
		   *tk = checkmate ? "target" : "1";
	/* ids are 0 .. n-1 in these files */
	uint64_t *size = calloc(n, sizeof *size);
	int64_t *pos = calloc(n, sizeof *pos), *lastuse = calloc(n, sizeof *lastuse);
	*total_cost = 0;
	for (size_t i = 0; i < n; i++) {
		json_t *o = json_array_get(nodes, i);
		json_int_t id = json_integer_value(json_object_get(o, idk));
		ck_assert(id >= 0 && (size_t)id < n);
		size[id] = (uint64_t)json_integer_value(json_object_get(o, checkmate ? "cost_ram" : "out_cost"));
		*total_cost += json_integer_value(json_object_get(o, checkmate ? "cost_cpu" : "duration"));
	}
	json_t *order = json_object_get(json_object_get(root, "graph"), "order");
	for (size_t i = 0; i < n; i++) {
		size_t v = order ? (size_t)json_integer_value(json_array_get(order, i)) : i;
		pos[v] = (int64_t)i;
	}
	for (size_t v = 0; v < n; v++)
		lastuse[v] = pos[v];
	for (size_t i = 0; i < m; i++) {
		json_t *l = json_array_get(links, i);
		size_t u = (size_t)json_integer_value(json_object_get(l, sk));
		size_t w = (size_t)json_integer_value(json_object_get(l, tk));
		ck_assert_msg(pos[u] < pos[w], "the order is not topological");
		if (pos[w] > lastuse[u])
			lastuse[u] = pos[w];
	}
	/* live at step j: pos[u] <= j <= lastuse[u] */
	uint64_t peak = 0;
	for (size_t j = 0; j < n; j++) {
		uint64_t mem = 0;
		for (size_t u = 0; u < n; u++)
			if (pos[u] <= (int64_t)j && (int64_t)j <= lastuse[u])
				mem += size[u];
		if (mem > peak)
			peak = mem;
	}
	free(size);
	free(pos);
	free(lastuse);
	*n_nodes = n;
	return peak;
}

START_TEST(shipped_graphs)
{
	char dir[4096];
	shared_path(dir, sizeof dir, "graphs/moccasin");
	DIR *d = opendir(dir);
	ck_assert_msg(d, "%s", dir);
	int count = 0;
	for (struct dirent *e; (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len < 5 || strcmp(e->d_name + len - 5, ".json"))
			continue;
		char path[8192];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		struct schedule *s = NULL;
		struct rs_error err = {0};
		struct read_options ro = {0};
		ck_assert_msg(schedule_read(path, &ro, &s, &err) == 0, "%s: %s", e->d_name, err.msg);
		json_error_t jerr;
		json_t *root = json_load_file(path, 0, &jerr);
		ck_assert_ptr_nonnull(root);
		int64_t cost;
		size_t n;
		uint64_t peak = topological_peak(root, &cost, &n);
		json_decref(root);
		struct baseline b;
		baseline_run(s, &b);
		ck_assert_msg(b.memory == peak, "%s: baseline peak %" PRIu64 ", topological-order peak %" PRIu64,
			      e->d_name, b.memory, peak);
		ck_assert_uint_eq(s->n_ops, n);
		ck_assert_int_eq(s->total_compute, cost);
		ck_assert_int_eq(b.compute, cost);
		ck_assert(s->input == (strstr(e->d_name, "random_layered") ? SCHED_GRAPH_LAYERED
									   : SCHED_GRAPH_CHECKMATE));
		printf("%-60s %4zu nodes, peak %" PRIu64 "\n", e->d_name, n, peak);
		schedule_free(s);
		count++;
	}
	closedir(d);
	ck_assert_int_eq(count, 18);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("graph");
	TCase *tc = tcase_create("graph");
	if (argc > 1 && !strcmp(argv[1], "shipped")) {
		if (!shared_dir()) {
			fprintf(stderr, "no ../shared data: the shipped graphs are skipped\n");
			return EXIT_SKIP;
		}
		tcase_add_test(tc, shipped_graphs);
		tcase_set_timeout(tc, 300);
		suite_add_tcase(s, tc);
		return run_suite(s);
	}
	tcase_add_test(tc, pyset_matches_python);
	tcase_add_test(tc, detection);
	tcase_add_test(tc, four_nodes);
	tcase_add_test(tc, layered_order);
	tcase_add_test(tc, bad_graphs);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
