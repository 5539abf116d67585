/*
 * test-reader.c: the log reader and schedule builder, record by record
 * (LOG-FORMAT.md, SIMULATION.md section 1), and every malformed input the
 * reader must refuse with FILE:LINE and status 65.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zip.h>

#include "source.h"
#include "test-common.h"

#define CONST(n, m) "{\"INSTRUCTION\":\"CONSTANT\",\"NAME\":\"" n "\"}\n" \
	"{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"" m "\",\"NAME\":\"" n "\"}\n"
#define MEM(n, m) "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"" m "\",\"NAME\":\"" n "\"}\n"
#define ALIAS(n, a) "{\"INSTRUCTION\":\"ALIAS\",\"ALIAS\":\"" a "\",\"NAME\":\"" n "\"}\n"
#define REL(n) "{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"" n "\"}\n"
#define COPY(d, s) "{\"INSTRUCTION\":\"COPY\",\"DST\":\"" d "\",\"SRC\":\"" s "\"}\n"

static const struct read_options defaults;

static void expect_cmd(const struct schedule *s, size_t i, enum sched_cmd_kind k, uint32_t id)
{
	ck_assert_uint_lt(i, s->n_cmds);
	ck_assert_int_eq(s->cmds[i].kind, k);
	ck_assert_uint_eq(s->cmds[i].id, id);
}

START_TEST(constant_is_pinned_op)
{
	struct schedule *s = parse_text(CONST("w", "1728"), &defaults, NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->n_ops, 1);
	ck_assert(s->ops[0].constant);
	ck_assert_int_eq(s->ops[0].cost, 0);
	ck_assert_str_eq(schedule_str(s, s->ops[0].name), "constant");
	ck_assert_uint_eq(s->n_tensors, 1);
	ck_assert_uint_eq(s->storages[0].size, 1728);
	ck_assert_uint_eq(s->const_memory, 1728);
	ck_assert_uint_eq(s->n_constants, 1);
	/* Compute, Pin, then the final pin of the still-held handle. */
	ck_assert_uint_eq(s->n_cmds, 3);
	expect_cmd(s, 0, CMD_COMPUTE, 0);
	expect_cmd(s, 1, CMD_PIN, 0);
	expect_cmd(s, 2, CMD_PIN, 0);
	schedule_free(s);
}
END_TEST

START_TEST(call_with_view_shares_storage)
{
	const char *log = CONST("a", "16")
		"{\"INSTRUCTION\":\"CALL\",\"NAME\":\"f\",\"ARGS\":[\"a\",\"a\"],\"RESULT\":[\"b\",\"c\"],\"TIME\":\"5\"}\n"
		MEM("b", "8") ALIAS("b", "-1") MEM("c", "99") ALIAS("c", "1")
		REL("a") REL("b") REL("c");
	struct schedule *s = parse_text(log, &defaults, NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->n_ops, 2);
	const struct sched_op *op = &s->ops[1];
	ck_assert_int_eq(op->cost, 5);
	ck_assert_uint_eq(op->n_args, 2);
	ck_assert_uint_eq(op->n_outs, 2);
	ck_assert_uint_eq(op->total_size, 8); /* the view owns nothing */
	ck_assert_uint_eq(s->n_storages, 2);
	ck_assert_uint_eq(s->tensors[2].storage, s->tensors[0].storage);
	ck_assert_int_eq(s->tensors[2].alias, 1);
	ck_assert_uint_eq(s->n_aliases, 1);
	/* storage-level edges: one per argument slot and output, so a's
	 * storage (c's too) meets b's and its own twice each */
	ck_assert_uint_eq(s->storage_fwd_off[1] - s->storage_fwd_off[0], 4);
	ck_assert_uint_eq(s->storage_fwd[s->storage_fwd_off[0] + 0], 1);
	ck_assert_uint_eq(s->storage_fwd[s->storage_fwd_off[0] + 1], 0);
	ck_assert_uint_eq(s->storage_fwd[s->storage_fwd_off[0] + 2], 1);
	ck_assert_uint_eq(s->storage_fwd[s->storage_fwd_off[0] + 3], 0);
	ck_assert_uint_eq(s->storage_rev_off[2] - s->storage_rev_off[1], 2);
	/* storage tensors: root first */
	const struct sched_storage *st = &s->storages[0];
	ck_assert_uint_eq(st->n_tensors, 2);
	ck_assert_uint_eq(s->storage_tensors[st->tensors], 0);
	ck_assert_uint_eq(s->storage_tensors[st->tensors + 1], 2);
	/* every handle released: no final pin */
	ck_assert_uint_eq(s->n_pins_final, 0);
	schedule_free(s);
}
END_TEST

START_TEST(copy_get_release_and_unknown_release)
{
	const char *log = CONST("a", "4") COPY("a2", "a") REL("ghost") REL("a") REL("a2");
	struct schedule *s = parse_text(log, &defaults, NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->n_cmds, 5);
	expect_cmd(s, 2, CMD_GET, 0);
	expect_cmd(s, 3, CMD_RELEASE, 0);
	expect_cmd(s, 4, CMD_RELEASE, 0);
	ck_assert_uint_eq(s->records[REC_RELEASE], 3);
	schedule_free(s);
}
END_TEST

START_TEST(final_pins_in_first_mapped_order)
{
	const char *log = CONST("a", "4") CONST("b", "4") COPY("c", "a")
		"{\"INSTRUCTION\":\"CALL\",\"NAME\":\"f\",\"ARGS\":[\"b\"],\"RESULT\":[\"d\"],\"TIME\":\"1\"}\n"
		MEM("d", "2") ALIAS("d", "-1") REL("b");
	struct schedule *s = parse_text(log, &defaults, NULL);
	ck_assert_ptr_nonnull(s);
	/* live: a (count 2 through a and c), d. Pins: a (name a), a (name c), d. */
	ck_assert_uint_eq(s->n_pins_final, 3);
	expect_cmd(s, s->n_cmds - 3, CMD_PIN, 0);
	expect_cmd(s, s->n_cmds - 2, CMD_PIN, 0);
	expect_cmd(s, s->n_cmds - 1, CMD_PIN, 2);
	schedule_free(s);

	struct read_options pre = {.preallocate = true};
	s = parse_text(log, &pre, NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->n_pins_final, 0);
	ck_assert_uint_eq(s->output_ram, 4 + 2); /* a once, d once */
	schedule_free(s);
}
END_TEST

START_TEST(mutate_makes_new_tensor_and_releases_old)
{
	const char *log = CONST("a", "4")
		"{\"INSTRUCTION\":\"CALL\",\"NAME\":\"v\",\"ARGS\":[\"a\"],\"RESULT\":[\"av\"],\"TIME\":\"1\"}\n"
		MEM("av", "0") ALIAS("av", "0")
		"{\"INSTRUCTION\":\"MUTATE\",\"NAME\":\"add_\",\"ARGS\":[\"av\",\"a\"],\"MUTATE\":[0],\"TIME\":\"7\"}\n";
	struct schedule *s = parse_text(log, &defaults, NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->n_ops, 3);
	const struct sched_op *op = &s->ops[2];
	ck_assert(op->mutate);
	ck_assert_int_eq(op->cost, 7);
	ck_assert_uint_eq(op->n_outs, 1);
	/* a new storage as large as the view's storage */
	ck_assert_int_eq(s->tensors[op->outs].alias, -1);
	ck_assert_uint_eq(schedule_tensor_bytes(s, op->outs), 4);
	ck_assert_uint_ne(s->tensors[op->outs].storage, s->tensors[0].storage);
	/* Compute(mutate) then Release(old view) */
	size_t i;
	for (i = 0; i < s->n_cmds; i++)
		if (s->cmds[i].kind == CMD_COMPUTE && s->cmds[i].id == 2)
			break;
	expect_cmd(s, i + 1, CMD_RELEASE, 1);
	/* av now names the new tensor: it and a are pinned at the end */
	expect_cmd(s, s->n_cmds - 1, CMD_PIN, op->outs);
	schedule_free(s);
}
END_TEST

START_TEST(copy_from_releases_then_gets)
{
	const char *log = CONST("a", "4") CONST("b", "8")
		"{\"INSTRUCTION\":\"COPY_FROM\",\"DST\":\"a\",\"SRC\":\"b\"}\n";
	struct schedule *s = parse_text(log, &defaults, NULL);
	ck_assert_ptr_nonnull(s);
	expect_cmd(s, 4, CMD_RELEASE, 0);
	expect_cmd(s, 5, CMD_GET, 1);
	/* a's count fell to 0: only b is pinned, once per name mapping to it */
	ck_assert_uint_eq(s->n_pins_final, 2);
	expect_cmd(s, 6, CMD_PIN, 1);
	expect_cmd(s, 7, CMD_PIN, 1);
	schedule_free(s);
}
END_TEST

START_TEST(start_skips_warmup)
{
	const char *log = CONST("warm", "100")
		"{\"ANNOTATION\":\"START\",\"INSTRUCTION\":\"ANNOTATE\"}\n" CONST("a", "4");
	struct schedule *s = parse_text(log, &defaults, NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert(s->has_start);
	ck_assert(!s->from_start);
	ck_assert_uint_eq(s->n_ops, 1);
	ck_assert_uint_eq(s->skipped_lines, 3);
	ck_assert_uint_eq(s->records[REC_CONSTANT], 2); /* counts cover the file */
	schedule_free(s);
	struct read_options all = {.from_start = true};
	s = parse_text(log, &all, NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->n_ops, 2);
	schedule_free(s);
}
END_TEST

START_TEST(backward_marks)
{
	const char *log = CONST("a", "4")
		"{\"INSTRUCTION\":\"CALL\",\"NAME\":\"f\",\"ARGS\":[\"a\"],\"RESULT\":[\"b\"],\"TIME\":\"1\"}\n"
		MEM("b", "4") ALIAS("b", "-1")
		"{\"INSTRUCTION\":\"CALL\",\"NAME\":\"relu_backward\",\"ARGS\":[\"b\"],\"RESULT\":[\"c\"],\"TIME\":\"1\"}\n"
		MEM("c", "4") ALIAS("c", "-1")
		"{\"INSTRUCTION\":\"CALL\",\"NAME\":\"g\",\"ARGS\":[\"c\"],\"RESULT\":[\"d\"],\"TIME\":\"1\"}\n"
		MEM("d", "4") ALIAS("d", "-1");
	struct schedule *s = parse_text(log, &defaults, NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert(!s->ops[1].backward);
	ck_assert(s->ops[2].backward);
	ck_assert(s->ops[3].backward); /* and every op after */
	ck_assert_uint_eq(s->n_forward_ops, 1);
	ck_assert_uint_eq(s->n_backward_ops, 2);
	schedule_free(s);

	const char *ann = CONST("a", "4") "{\"ANNOTATION\":\"BACKWARD\",\"INSTRUCTION\":\"ANNOTATE\"}\n"
		"{\"INSTRUCTION\":\"CALL\",\"NAME\":\"f\",\"ARGS\":[\"a\"],\"RESULT\":[\"b\"],\"TIME\":\"1\"}\n"
		MEM("b", "4") ALIAS("b", "-1");
	s = parse_text(ann, &defaults, NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert(s->ops[1].backward);
	schedule_free(s);
}
END_TEST

#define ENTER(m, t) "{\"ANNOTATION\":\"ENTER\",\"INSTRUCTION\":\"ANNOTATE\",\"MODULE\":\"" m "\",\"TYPE\":\"" t "\"}\n"
#define EXIT(m) "{\"ANNOTATION\":\"EXIT\",\"INSTRUCTION\":\"ANNOTATE\",\"MODULE\":\"" m "\"}\n"

/* Module calls are kept as marks (the ops made before each) and change
 * nothing of the schedule: the same log without them gives the same
 * commands, ops and tensors. */
START_TEST(module_marks_nest_and_change_nothing)
{
	const char *plain = CONST("a", "4")
		"{\"INSTRUCTION\":\"CALL\",\"NAME\":\"f\",\"ARGS\":[\"a\"],\"RESULT\":[\"b\"],\"TIME\":\"1\"}\n"
		MEM("b", "4") ALIAS("b", "-1")
		"{\"INSTRUCTION\":\"CALL\",\"NAME\":\"g\",\"ARGS\":[\"b\"],\"RESULT\":[\"c\"],\"TIME\":\"1\"}\n"
		MEM("c", "4") ALIAS("c", "-1") REL("b");
	const char *marked = CONST("a", "4") ENTER("block", "Sequential") ENTER("block.0", "Linear")
		"{\"INSTRUCTION\":\"CALL\",\"NAME\":\"f\",\"ARGS\":[\"a\"],\"RESULT\":[\"b\"],\"TIME\":\"1\"}\n"
		MEM("b", "4") ALIAS("b", "-1") EXIT("block.0")
		"{\"ANNOTATION\":\"ENTER\",\"INSTRUCTION\":\"ANNOTATE\",\"MODULE\":\"block.1\"}\n"
		"{\"INSTRUCTION\":\"CALL\",\"NAME\":\"g\",\"ARGS\":[\"b\"],\"RESULT\":[\"c\"],\"TIME\":\"1\"}\n"
		MEM("c", "4") ALIAS("c", "-1") EXIT("block.1") EXIT("block") REL("b");
	struct schedule *p = parse_text(plain, &defaults, NULL);
	struct schedule *s = parse_text(marked, &defaults, NULL);
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(p->n_marks, 0);
	ck_assert_uint_eq(s->n_cmds, p->n_cmds);
	ck_assert_mem_eq(s->cmds, p->cmds, p->n_cmds * sizeof *p->cmds);
	ck_assert_uint_eq(s->n_ops, p->n_ops);
	ck_assert_uint_eq(s->n_tensors, p->n_tensors);
	ck_assert_uint_eq(s->records[REC_ANNOTATE], 6);
	ck_assert_uint_eq(s->n_marks, 6);
	static const struct {
		const char *name, *type;
		uint32_t op;
		bool enter;
	} want[] = {
		{"block", "Sequential", 1, true}, {"block.0", "Linear", 1, true},
		{"block.0", "", 2, false},       {"block.1", "", 2, true},
		{"block.1", "", 3, false},       {"block", "", 3, false},
	};
	for (size_t i = 0; i < 6; i++) {
		ck_assert_str_eq(schedule_str(s, s->marks[i].name), want[i].name);
		ck_assert_str_eq(schedule_str(s, s->marks[i].type), want[i].type);
		ck_assert_uint_eq(s->marks[i].op, want[i].op);
		ck_assert_int_eq(s->marks[i].enter, want[i].enter);
	}
	ck_assert_uint_eq(s->marks[0].line, 3);
	schedule_free(p);
	schedule_free(s);
}
END_TEST

/* WRITES: kept as op_args indices, ascending; nothing else changes. */
START_TEST(writes_are_listed)
{
	const char *log = CONST("a", "4") CONST("g", "4")
		"{\"INSTRUCTION\":\"CALL\",\"NAME\":\"add_\",\"ARGS\":[\"a\",\"g\"],\"RESULT\":[\"t\"],\"TIME\":\"0\"}\n"
		MEM("t", "0") ALIAS("t", "-1")
		"{\"INSTRUCTION\":\"CALL\",\"NAME\":\"add_\",\"ARGS\":[\"a\"],\"RESULT\":[\"a2\"],\"TIME\":\"7\",\"WRITES\":[0]}\n"
		MEM("a2", "4") ALIAS("a2", "0") REL("a") REL("t")
		"{\"INSTRUCTION\":\"CALL\",\"NAME\":\"swap_\",\"ARGS\":[\"g\",\"a2\"],\"RESULT\":[\"u\"],\"TIME\":\"0\",\"WRITES\":[1,0]}\n"
		MEM("u", "0") ALIAS("u", "-1");
	struct schedule *s = parse_text(log, &defaults, NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->n_writes, 3);
	ck_assert_uint_eq(s->writes[0], s->ops[3].args);
	ck_assert_uint_eq(s->writes[1], s->ops[4].args);
	ck_assert_uint_eq(s->writes[2], s->ops[4].args + 1);
	ck_assert_uint_eq(s->tensors[s->ops[3].outs].storage, s->tensors[s->ops[0].outs].storage);
	schedule_free(s);
}
END_TEST

/* The floor: constants' storages and the final pins' (V1: final pins
 * only), each storage once. */
START_TEST(floor_is_what_stays_pinned)
{
	const char *log = CONST("w", "100") CONST("x", "10")
		"{\"INSTRUCTION\":\"CALL\",\"NAME\":\"f\",\"ARGS\":[\"w\",\"x\"],\"RESULT\":[\"h\"],\"TIME\":\"1\"}\n"
		MEM("h", "1000") ALIAS("h", "-1")
		"{\"INSTRUCTION\":\"CALL\",\"NAME\":\"g\",\"ARGS\":[\"h\"],\"RESULT\":[\"gw\",\"v\"],\"TIME\":\"1\"}\n"
		MEM("gw", "100") ALIAS("gw", "-1") MEM("v", "0") ALIAS("v", "0")
		COPY("gw2", "gw") REL("h") REL("x");
	struct schedule *s = parse_text(log, &defaults, NULL);
	ck_assert_ptr_nonnull(s);
	/* w, x (released but pinned for good), h's storage (released, but its
	 * view v is held), gw once though two handles hold it */
	ck_assert_uint_eq(schedule_floor(s, false), 1210);
	/* V1 banishes the released x */
	ck_assert_uint_eq(schedule_floor(s, true), 1200);
	schedule_free(s);
	struct read_options pre = {.preallocate = true};
	s = parse_text(log, &pre, NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(schedule_floor(s, false), 110); /* no final pins */
	schedule_free(s);
}
END_TEST

START_TEST(numbers_as_numbers)
{
	const char *log = "{\"INSTRUCTION\":\"CONSTANT\",\"NAME\":\"a\"}\n"
		"{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":16,\"NAME\":\"a\"}\n"
		"{\"INSTRUCTION\":\"CALL\",\"NAME\":\"f\",\"ARGS\":[\"a\"],\"RESULT\":[\"b\"],\"TIME\":12}\n"
		"{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":0,\"NAME\":\"b\"}\n"
		"{\"INSTRUCTION\":\"ALIAS\",\"ALIAS\":0,\"NAME\":\"b\"}\n";
	struct schedule *s = parse_text(log, &defaults, NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->storages[0].size, 16);
	ck_assert_int_eq(s->ops[1].cost, 12);
	ck_assert_int_eq(s->tensors[1].alias, 0);
	schedule_free(s);
}
END_TEST

/* One malformed input: read mode fails with 65 at `line` with `needle`. */
static void expect_bad(const char *log, long line, const char *needle)
{
	struct rs_error err;
	memset(&err, 0, sizeof err);
	struct schedule *s = parse_text(log, &defaults, &err);
	ck_assert_msg(s == NULL, "accepted a bad log expecting '%s'", needle);
	ck_assert_int_eq(err.status, 65);
	ck_assert_str_eq(err.file, "t.log");
	ck_assert_msg(err.line == line && strstr(err.msg, needle),
		      "got line %ld '%s', wanted line %ld '%s'", err.line, err.msg, line, needle);
}

#define CALL1(n, a, r, t) "{\"INSTRUCTION\":\"CALL\",\"NAME\":\"" n "\",\"ARGS\":[" a "],\"RESULT\":[\"" r "\"],\"TIME\":" t "}\n"

START_TEST(bad_inputs)
{
	expect_bad("{\"INSTRUCTION\":\"CONSTANT\",\n", 1, "invalid JSON");
	expect_bad("[1,2]\n", 1, "JSON object");
	expect_bad("{\"NAME\":\"a\"}\n", 1, "INSTRUCTION");
	expect_bad(CONST("a", "4") "{\"INSTRUCTION\":\"JUMP\"}\n", 3, "unknown instruction \"JUMP\"");
	expect_bad("", 0, "empty log");
	expect_bad("\n\n", 0, "replays no op");
	/* missing and wrongly typed fields */
	expect_bad(CONST("a", "4") "{\"INSTRUCTION\":\"CALL\",\"NAME\":\"f\",\"ARGS\":[\"a\"],\"RESULT\":[\"b\"]}\n"
		   MEM("b", "4") ALIAS("b", "-1"), 3, "TIME");
	expect_bad(CONST("a", "4") "{\"INSTRUCTION\":\"CALL\",\"NAME\":\"f\",\"ARGS\":\"a\",\"RESULT\":[\"b\"],\"TIME\":\"1\"}\n"
		   MEM("b", "4") ALIAS("b", "-1"), 3, "ARGS");
	expect_bad("{\"INSTRUCTION\":\"CONSTANT\",\"NAME\":7}\n" MEM("a", "4"), 1, "NAME");
	expect_bad(CONST("a", "4") "{\"INSTRUCTION\":\"RELEASE\"}\n", 3, "NAME");
	/* MEMORY/ALIAS records missing, out of order, or naming others */
	expect_bad(CONST("a", "4") CALL1("f", "\"a\"", "b", "\"1\""), 3, "not followed by its MEMORY");
	expect_bad(CONST("a", "4") CALL1("f", "\"a\"", "b", "\"1\"") ALIAS("b", "-1") MEM("b", "4"), 4,
		   "expected the MEMORY record");
	expect_bad(CONST("a", "4") CALL1("f", "\"a\"", "b", "\"1\"") MEM("zz", "4") ALIAS("zz", "-1"), 4,
		   "names \"zz\"");
	expect_bad(CONST("a", "4") CALL1("f", "\"a\"", "b", "\"1\"") MEM("b", "4") REL("a"), 5,
		   "expected the ALIAS record");
	expect_bad("{\"INSTRUCTION\":\"CONSTANT\",\"NAME\":\"a\"}\n" REL("a"), 2, "expected the MEMORY");
	expect_bad(CONST("a", "4") MEM("a", "4"), 3, "stray MEMORY");
	/* names never defined */
	expect_bad(CONST("a", "4") CALL1("f", "\"nope\"", "b", "\"1\"") MEM("b", "4") ALIAS("b", "-1"), 3,
		   "\"nope\", which was never defined");
	expect_bad(COPY("x", "nope"), 1, "never defined");
	/* ops with no outputs: neither counted nor replayed (the reference rejects them) */
	expect_bad(CONST("a", "4") "{\"INSTRUCTION\":\"CALL\",\"NAME\":\"noop\",\"ARGS\":[],\"RESULT\":[],\"TIME\":\"5\"}\n",
		   3, "empty RESULT list");
	expect_bad(CONST("a", "4") "{\"INSTRUCTION\":\"MUTATE\",\"NAME\":\"m_\",\"ARGS\":[\"a\"],\"MUTATE\":[],\"TIME\":\"1\"}\n",
		   3, "empty MUTATE list");
	expect_bad(CONST("a", "4") COPY("a", "a"), 3, "already defined");
	/* indices out of range */
	expect_bad(CONST("a", "4") CALL1("f", "\"a\"", "b", "\"1\"") MEM("b", "0") ALIAS("b", "1"), 5,
		   "ALIAS 1 of \"b\" is out of range");
	expect_bad(CONST("a", "4") CALL1("f", "\"a\"", "b", "\"1\"") MEM("b", "0") ALIAS("b", "-2"), 5,
		   "out of range");
	expect_bad(CONST("a", "4") "{\"INSTRUCTION\":\"MUTATE\",\"NAME\":\"m_\",\"ARGS\":[\"a\"],\"MUTATE\":[1],\"TIME\":\"1\"}\n",
		   3, "MUTATE[0] (1) is out of range");
	/* negative or non-numeric sizes and times */
	expect_bad(CONST("a", "-4"), 2, "negative");
	expect_bad(CONST("a", "4") CALL1("f", "\"a\"", "b", "\"12ms\"") MEM("b", "4") ALIAS("b", "-1"), 3,
		   "TIME must be a non-negative integer");
	expect_bad(CONST("a", "4") CALL1("f", "\"a\"", "b", "-3") MEM("b", "4") ALIAS("b", "-1"), 3, "negative");
	expect_bad(CONST("a", "4.5"), 2, "MEMORY must be");
	expect_bad(CONST("a", "99999999999999999999999"), 2, "too large");
	/* module calls and writes */
	expect_bad(CONST("a", "4") "{\"ANNOTATION\":\"ENTRE\",\"INSTRUCTION\":\"ANNOTATE\"}\n", 3,
		   "unknown ANNOTATION \"ENTRE\": START, BACKWARD, ENTER or EXIT");
	expect_bad(CONST("a", "4") "{\"ANNOTATION\":\"ENTER\",\"INSTRUCTION\":\"ANNOTATE\"}\n", 3,
		   "lacks the field \"MODULE\"");
	expect_bad(CONST("a", "4") "{\"ANNOTATION\":\"EXIT\",\"INSTRUCTION\":\"ANNOTATE\",\"MODULE\":\"\"}\n",
		   3, "empty MODULE");
	expect_bad(CONST("a", "4") "{\"ANNOTATION\":\"ENTER\",\"INSTRUCTION\":\"ANNOTATE\",\"MODULE\":\"m\",\"TYPE\":1}\n",
		   3, "non-string field \"TYPE\"");
	expect_bad(CONST("a", "4") EXIT("m"), 3, "EXIT of module \"m\", but no module call is open");
	expect_bad(CONST("a", "4") ENTER("m", "M") ENTER("m.0", "L") EXIT("m"), 5,
		   "innermost open call is of \"m.0\" (ENTER on line 4)");
	expect_bad(CONST("a", "4") ENTER("m", "M") ENTER("m.0", "L") EXIT("m.0"), 3,
		   "module \"m\" is entered here and never exited");
	expect_bad(CONST("a", "4") "{\"INSTRUCTION\":\"CALL\",\"NAME\":\"f_\",\"ARGS\":[\"a\"],\"RESULT\":[\"b\"],\"TIME\":\"1\",\"WRITES\":[1]}\n"
		   MEM("b", "4") ALIAS("b", "0"), 3, "WRITES[0] (1) is out of range: the op has 1 argument");
	expect_bad(CONST("a", "4") "{\"INSTRUCTION\":\"CALL\",\"NAME\":\"f_\",\"ARGS\":[\"a\"],\"RESULT\":[\"b\"],\"TIME\":\"1\",\"WRITES\":[0,0]}\n"
		   MEM("b", "4") ALIAS("b", "0"), 3, "WRITES lists argument 0 twice");
	expect_bad(CONST("a", "4") "{\"INSTRUCTION\":\"CALL\",\"NAME\":\"f_\",\"ARGS\":[\"a\"],\"RESULT\":[\"b\"],\"TIME\":\"1\",\"WRITES\":0}\n"
		   MEM("b", "4") ALIAS("b", "0"), 3, "malformed \"WRITES\" list");
}
END_TEST

START_TEST(check_reports_every_problem_without_cascade)
{
	const char *log = CONST("a", "4")
		CALL1("f", "\"a\"", "b", "\"x\"") MEM("b", "4") ALIAS("b", "-1") /* bad time: b poisoned */
		CALL1("g", "\"b\"", "c", "\"1\"") MEM("c", "4") ALIAS("c", "-1") /* uses b: no new report */
		"{oops\n"
		CALL1("h", "\"missing\"", "d", "\"1\"") MEM("d", "4") ALIAS("d", "-1");
	struct problems p;
	int n = check_text(log, &p);
	ck_assert_int_eq(n, 3);
	ck_assert(has_problem(&p, 3, "TIME"));
	ck_assert(has_problem(&p, 9, "invalid JSON"));
	ck_assert(has_problem(&p, 10, "\"missing\""));
	ck_assert_int_eq(check_text(CONST("a", "4"), &p), 0);
}
END_TEST

/* ---- containers ---- */

static char tmpdir[256];

static void make_tmpdir(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/rematsim-test-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static const char small_log[] = CONST("a", "4")
	"{\"INSTRUCTION\":\"CALL\",\"NAME\":\"f\",\"ARGS\":[\"a\"],\"RESULT\":[\"b\"],\"TIME\":\"3\"}\n"
	MEM("b", "8") ALIAS("b", "-1");

START_TEST(gzip_and_truncated_gzip)
{
	make_tmpdir();
	char path[512];
	snprintf(path, sizeof path, "%s/s.log.gz", tmpdir);
	gzFile gz = gzopen(path, "wb");
	ck_assert_ptr_nonnull(gz);
	gzwrite(gz, small_log, (unsigned)strlen(small_log));
	gzclose(gz);
	struct schedule *s;
	struct rs_error err;
	ck_assert_int_eq(schedule_read(path, NULL, &s, &err), 0);
	ck_assert_uint_eq(s->n_ops, 2);
	ck_assert_int_eq(s->total_compute, 3);
	schedule_free(s);
	/* cut the file short */
	FILE *f = fopen(path, "rb");
	char buf[4096];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	f = fopen(path, "wb");
	fwrite(buf, 1, n - 12, f);
	fclose(f);
	ck_assert_int_eq(schedule_read(path, NULL, &s, &err), -1);
	ck_assert_int_eq(err.status, 65);
	ck_assert_ptr_nonnull(strstr(err.msg, "truncated gzip"));
	unlink(path);
	ck_assert_int_eq(schedule_read(path, NULL, &s, &err), -1);
	ck_assert_int_eq(err.status, 66);
	rmdir(tmpdir);
}
END_TEST

static void zip_add(zipFile zf, const char *name, const char *text)
{
	zip_fileinfo zi;
	memset(&zi, 0, sizeof zi);
	ck_assert_int_eq(zipOpenNewFileInZip(zf, name, &zi, NULL, 0, NULL, 0, NULL, Z_DEFLATED, 6), ZIP_OK);
	zipWriteInFileInZip(zf, text, (unsigned)strlen(text));
	zipCloseFileInZip(zf);
}

START_TEST(zip_members_by_path_and_model_name)
{
	make_tmpdir();
	char path[512], spec[600];
	snprintf(path, sizeof path, "%s/l.zip", tmpdir);
	zipFile zf = zipOpen(path, APPEND_STATUS_CREATE);
	ck_assert_ptr_nonnull(zf);
	zip_add(zf, "logs/m.log", small_log);
	zip_add(zf, "logs/manifest.json",
		"{\"models\":[{\"name\":\"My Net (1)\",\"title\":\"My Net\",\"desc\":\"d\","
		"\"log\":\"logs/m.log\",\"has_start\":false}]}");
	zipClose(zf, NULL);

	struct schedule *s;
	struct rs_error err;
	snprintf(spec, sizeof spec, "%s:logs/m.log", path);
	ck_assert_int_eq(schedule_read(spec, NULL, &s, &err), 0);
	ck_assert_uint_eq(s->n_ops, 2);
	schedule_free(s);
	snprintf(spec, sizeof spec, "%s:My Net (1)", path);
	ck_assert_int_eq(schedule_read(spec, NULL, &s, &err), 0);
	ck_assert_str_eq(s->source, spec);
	schedule_free(s);
	snprintf(spec, sizeof spec, "%s:nothing", path);
	ck_assert_int_eq(schedule_read(spec, NULL, &s, &err), -1);
	ck_assert_int_eq(err.status, 66);
	ck_assert_ptr_nonnull(strstr(err.msg, "no member or model named 'nothing'"));

	struct manifest *m;
	ck_assert_int_eq(manifest_read(path, &m, &err), 0);
	ck_assert_uint_eq(m->n_models, 1);
	ck_assert_str_eq(m->models[0].title, "My Net");
	ck_assert(!m->models[0].has_start);
	snprintf(spec, sizeof spec, "%s:logs/m.log", path);
	ck_assert_str_eq(m->models[0].spec, spec);
	manifest_free(m);
	unlink(path);
	rmdir(tmpdir);
}
END_TEST

/* A member written raw: deflate_bytes as they are, the header's size and
 * CRC as given. */
static void zip_add_raw(zipFile zf, const char *name, const void *raw, size_t n, uLong size,
			uLong crc)
{
	zip_fileinfo zi;
	memset(&zi, 0, sizeof zi);
	ck_assert_int_eq(zipOpenNewFileInZip2(zf, name, &zi, NULL, 0, NULL, 0, NULL, Z_DEFLATED, 6, 1),
			 ZIP_OK);
	zipWriteInFileInZip(zf, raw, (unsigned)n);
	zipCloseFileInZipRaw(zf, size, crc);
}

/* text as a raw deflate stream (give *n bytes; free it) */
static unsigned char *deflate_raw(const char *text, size_t len, size_t *n)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	ck_assert_int_eq(deflateInit2(&z, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
	size_t cap = deflateBound(&z, len);
	unsigned char *out = malloc(cap);
	z.next_in = (unsigned char *)text;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	*n = z.total_out;
	deflateEnd(&z);
	return out;
}

/* What reading spec gives: status (0: read), message and line, and the
 * schedule's counts and digest. */
struct outcome {
	int rc, status;
	long line;
	char msg[1100];
	size_t ops, cmds;
	uint64_t lines;
	uint8_t sha[32];
};

static void read_outcome(const char *spec, struct outcome *o)
{
	struct read_options opt = {.digest = true};
	struct schedule *s;
	struct rs_error err;
	memset(o, 0, sizeof *o);
	memset(&err, 0, sizeof err);
	o->rc = schedule_read(spec, &opt, &s, &err);
	if (o->rc) {
		o->status = err.status;
		o->line = err.line;
		snprintf(o->msg, sizeof o->msg, "%s", err.msg);
		return;
	}
	o->ops = s->n_ops;
	o->cmds = s->n_cmds;
	o->lines = s->lines;
	memcpy(o->sha, s->sha256, 32);
	schedule_free(s);
}

/*
 * Zip members decoded whole by libdeflate read as minizip reads them:
 * good ones the same schedule and digest, and every bad one (a CRC that
 * fails, corrupt data, a stream shorter or longer than its header says,
 * a gzip inside, a line or a text over the limits) the same error, from
 * the fallback to minizip; each member read both ways.
 */
START_TEST(zip_members_whole_as_streamed)
{
	make_tmpdir();
	char path[512], spec[700];
	snprintf(path, sizeof path, "%s/w.zip", tmpdir);
	zipFile zf = zipOpen(path, APPEND_STATUS_CREATE);
	ck_assert_ptr_nonnull(zf);
	size_t len = strlen(small_log), n;
	uLong crc = crc32(0, (const unsigned char *)small_log, (uInt)len);
	unsigned char *raw = deflate_raw(small_log, len, &n);
	zip_add(zf, "ok.log", small_log);
	zip_add_raw(zf, "crc.log", raw, n, len, crc ^ 1);
	zip_add_raw(zf, "short.log", raw, n, len + 100, crc);
	zip_add_raw(zf, "long.log", raw, n, len - 10, crc);
	zip_add_raw(zf, "cut.log", raw, n / 2, len, crc);
	unsigned char junk[300];
	for (size_t i = 0; i < sizeof junk; i++)
		junk[i] = (unsigned char)(i * 131 + 7);
	zip_add_raw(zf, "junk.log", junk, sizeof junk, 2000, 12345);
	free(raw);
	/* a gzip stream as a member's text */
	char gzpath[600];
	snprintf(gzpath, sizeof gzpath, "%s/g.gz", tmpdir);
	gzFile gz = gzopen(gzpath, "wb");
	gzwrite(gz, small_log, (unsigned)len);
	gzclose(gz);
	static char gzbytes[4096];
	FILE *f = fopen(gzpath, "rb");
	size_t gzn = fread(gzbytes, 1, sizeof gzbytes, f);
	fclose(f);
	unlink(gzpath);
	raw = deflate_raw(gzbytes, gzn, &n);
	zip_add_raw(zf, "gz.log", raw, n, gzn, crc32(0, (unsigned char *)gzbytes, (uInt)gzn));
	free(raw);
	/* several 64 KiB pieces: a long line in the third, a bad record at the end */
	size_t big_cap = 300000, bn = 0;
	char *big = malloc(big_cap);
	for (int i = 0; bn < 200000; i++)
		bn += (size_t)snprintf(big + bn, big_cap - bn, CONST("c%d", "8"), i, i);
	memset(big + bn, ' ', 3000);
	bn += 3000;
	bn += (size_t)snprintf(big + bn, big_cap - bn, "\n%s{\"INSTRUCTION\":\"NOPE\"}\n", small_log);
	zip_add(zf, "big.log", big);
	zipClose(zf, NULL);

	const char *members[] = {"ok.log", "crc.log", "short.log", "long.log", "cut.log",
				 "junk.log", "gz.log", "big.log"};
	/* no limit, a line limit the big member passes, then a size limit */
	const char *limits[][2] = {{NULL, NULL}, {RS_MAX_LINE_ENV, "2000"}, {RS_MAX_INPUT_ENV, "150000"}};
	unsigned long whole_before = source_test_whole_reads;
	for (size_t l = 0; l < 3; l++) {
		if (limits[l][0])
			setenv(limits[l][0], limits[l][1], 1);
		for (size_t i = 0; i < sizeof members / sizeof members[0]; i++) {
			snprintf(spec, sizeof spec, "%s:%s", path, members[i]);
			struct outcome whole, streamed;
			read_outcome(spec, &whole);
			source_test_no_whole = true;
			read_outcome(spec, &streamed);
			source_test_no_whole = false;
			ck_assert_msg(whole.rc == streamed.rc && whole.status == streamed.status &&
				      whole.line == streamed.line && !strcmp(whole.msg, streamed.msg),
				      "%s, limit %zu: %d %d %ld '%s' against %d %d %ld '%s'", members[i], l,
				      whole.rc, whole.status, whole.line, whole.msg, streamed.rc,
				      streamed.status, streamed.line, streamed.msg);
			ck_assert_msg(whole.ops == streamed.ops && whole.cmds == streamed.cmds &&
				      whole.lines == streamed.lines && !memcmp(whole.sha, streamed.sha, 32),
				      "%s: another schedule", members[i]);
			if (l == 0 && !strcmp(members[i], "ok.log"))
				ck_assert_int_eq(whole.rc, 0);
			if (l == 0 && !strcmp(members[i], "crc.log"))
				ck_assert_ptr_nonnull(strstr(whole.msg, "fails its CRC check"));
			if (l == 0 && !strcmp(members[i], "junk.log"))
				ck_assert_ptr_nonnull(strstr(whole.msg, "corrupt zip member"));
			if (l == 1 && !strcmp(members[i], "big.log"))
				ck_assert_ptr_nonnull(strstr(whole.msg, "line longer than"));
			if (l == 2 && !strcmp(members[i], "big.log"))
				ck_assert_ptr_nonnull(strstr(whole.msg, "over the input size limit"));
			if (l == 0 && !strcmp(members[i], "big.log"))
				ck_assert_ptr_nonnull(strstr(whole.msg, "unknown instruction \"NOPE\""));
		}
		if (limits[l][0])
			unsetenv(limits[l][0]);
	}
	/* ok, big (with and without the line limit) and short.log's header
	 * aside, the good members were decoded whole: ok.log and big.log */
	ck_assert_uint_ge(source_test_whole_reads - whole_before, 4);
	free(big);
	unlink(path);
	rmdir(tmpdir);
}
END_TEST

/*
 * A log larger than what is read whole (8 MiB) and several times the
 * streaming window (1 MiB): a chain with a warm-up,
 * START in the middle, a record longer than the window, blank and CRLF
 * lines. Gives the text (free it) and its number of lines in *lines.
 */
static char *big_log(size_t n_ops, size_t start_at, size_t *len, long *lines)
{
	size_t cap = 4096 + n_ops * 256 + (3u << 20);
	char *t = malloc(cap);
	ck_assert_ptr_nonnull(t);
	size_t n = 0;
	long line = 0;
#define PUT(...) (n += (size_t)snprintf(t + n, cap - n, __VA_ARGS__), line++)
	for (size_t i = 0; i < n_ops; i++) {
		if (i == 0 || i == start_at) {
			if (i)
				PUT("{\"INSTRUCTION\":\"ANNOTATE\",\"ANNOTATION\":\"START\"}\r\n");
			PUT("{\"INSTRUCTION\":\"CONSTANT\",\"NAME\":\"x%zu\"}\n", i);
			PUT("{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"%zu\",\"NAME\":\"x%zu\"}\n",
			    i % 7 + 1, i);
			continue;
		}
		if (i == n_ops / 2) {
			PUT("{\"INSTRUCTION\":\"ANNOTATE\",\"ANNOTATION\":\"BACKWARD\"}\n\n");
			line++;
		}
		if (i == start_at + 100) { /* an op name of 1.5 MiB */
			n += (size_t)snprintf(t + n, cap - n, "{\"INSTRUCTION\":\"CALL\",\"NAME\":\"");
			memset(t + n, 'g', 3u << 19);
			n += 3u << 19;
			t[n++] = '"';
		} else {
			n += (size_t)snprintf(t + n, cap - n, "{\"INSTRUCTION\":\"CALL\",\"NAME\":\"f%zu\"",
					      i % 13);
		}
		PUT(",\"ARGS\":[\"x%zu\"],\"RESULT\":[\"x%zu\"],\"TIME\":\"%zu\"}\n", i - 1, i, i % 11 + 1);
		PUT("{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"%zu\",\"NAME\":\"x%zu\"}\n", i % 5 + 1, i);
		PUT("{\"INSTRUCTION\":\"ALIAS\",\"ALIAS\":\"-1\",\"NAME\":\"x%zu\"}\n", i);
		if (i % 3 == 0)
			PUT("{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"x%zu\"}\n", i - 1);
	}
#undef PUT
	ck_assert_uint_lt(n, cap);
	*len = n;
	*lines = line;
	return t;
}

static void write_file(const char *path, const char *text, size_t len, bool gzip)
{
	if (gzip) {
		gzFile gz = gzopen(path, "wb");
		ck_assert_ptr_nonnull(gz);
		ck_assert_int_eq(gzwrite(gz, text, (unsigned)len), (int)len);
		ck_assert_int_eq(gzclose(gz), Z_OK);
	} else {
		FILE *f = fopen(path, "wb");
		ck_assert_ptr_nonnull(f);
		ck_assert_uint_eq(fwrite(text, 1, len, f), len);
		ck_assert_int_eq(fclose(f), 0);
	}
}

static void expect_same(const struct schedule *a, const struct schedule *b)
{
	ck_assert_uint_eq(a->lines, b->lines);
	ck_assert_uint_eq(a->skipped_lines, b->skipped_lines);
	ck_assert_int_eq(a->has_start, b->has_start);
	ck_assert_int_eq(a->from_start, b->from_start);
	ck_assert_mem_eq(a->records, b->records, sizeof a->records);
	ck_assert_mem_eq(a->sha256, b->sha256, 32);
	ck_assert_uint_eq(a->n_ops, b->n_ops);
	ck_assert_uint_eq(a->n_tensors, b->n_tensors);
	ck_assert_uint_eq(a->n_storages, b->n_storages);
	ck_assert_uint_eq(a->n_cmds, b->n_cmds);
	ck_assert_int_eq(a->total_compute, b->total_compute);
	ck_assert_mem_eq(a->cmds, b->cmds, a->n_cmds * sizeof *a->cmds);
	for (size_t i = 0; i < a->n_ops; i++) {
		ck_assert_str_eq(schedule_str(a, a->ops[i].name), schedule_str(b, b->ops[i].name));
		ck_assert_uint_eq(a->ops[i].line, b->ops[i].line);
		ck_assert_int_eq(a->ops[i].cost, b->ops[i].cost);
		ck_assert_int_eq(a->ops[i].backward, b->ops[i].backward);
	}
}

/* The streamed read (plain, gzip) builds what the parse in memory builds,
 * with START past the first 8 MiB, and says the same of a late bad line. */
START_TEST(stream_equals_memory)
{
	make_tmpdir();
	size_t len;
	long lines;
	char *text = big_log(70000, 30000, &len, &lines);
	ck_assert_uint_gt(len, 9u << 20); /* over SMALL_LOG (schedule.c): streamed */
	char path[512];
	for (int gz = 0; gz < 2; gz++) {
		snprintf(path, sizeof path, "%s/big.log%s", tmpdir, gz ? ".gz" : "");
		write_file(path, text, len, gz);
		for (int from_start = 0; from_start < 2; from_start++) {
			struct read_options o = {.digest = true, .from_start = from_start};
			struct schedule *mem, *str;
			struct rs_error err;
			ck_assert_msg(schedule_parse(path, text, len, &o, &mem, &err) == 0, "%s", err.msg);
			ck_assert_msg(schedule_read(path, &o, &str, &err) == 0, "%s", err.msg);
			ck_assert_uint_eq(str->lines, (uint64_t)lines);
			ck_assert(str->has_start);
			if (from_start)
				ck_assert_uint_eq(str->skipped_lines, 0);
			else
				ck_assert_uint_gt(str->skipped_lines, 90000);
			expect_same(mem, str);
			schedule_free(mem);
			schedule_free(str);
		}
	}
	/* a bad record on the last line, and one in the warm-up past the window */
	static const char bad_end[] = "{\"INSTRUCTION\":\"RELEASE\",\"NAME\":17}\n";
	char *bad = malloc(len + sizeof bad_end);
	memcpy(bad, text, len);
	memcpy(bad + len, bad_end, sizeof bad_end);
	for (int warm = 0; warm < 2; warm++) {
		if (warm) { /* line 20001 (in the warm-up) becomes broken JSON */
			char *p = bad;
			/* (memchr: strchr checks the whole rest of the text under
			 * ASan's strict_string_checks, 20,000 times 10 MB) */
			for (int i = 0; i < 20000; i++)
				p = (char *)memchr(p, '\n', (size_t)(bad + len - p)) + 1;
			p[1] = '[';
		}
		for (int gz = 0; gz < 2; gz++) {
			snprintf(path, sizeof path, "%s/bad.log%s", tmpdir, gz ? ".gz" : "");
			write_file(path, bad, len + sizeof bad_end - 1, gz);
			struct schedule *s;
			struct rs_error want, got;
			ck_assert_int_eq(schedule_parse(path, bad, len + sizeof bad_end - 1, NULL, &s, &want), -1);
			ck_assert_int_eq(schedule_read(path, NULL, &s, &got), -1);
			ck_assert_int_eq(got.status, 65);
			ck_assert_int_eq(got.line, warm ? 20001 : lines + 1);
			ck_assert_int_eq(want.line, got.line);
			ck_assert_str_eq(want.msg, got.msg);
			ck_assert_str_eq(want.file, got.file);
			if (gz) { /* cut short: the container's error comes first */
				struct stat st;
				ck_assert_int_eq(stat(path, &st), 0);
				ck_assert_int_eq(truncate(path, st.st_size - 1000), 0);
				ck_assert_int_eq(schedule_read(path, NULL, &s, &got), -1);
				ck_assert_int_eq(got.status, 65);
				ck_assert_msg(strstr(got.msg, "truncated gzip stream"), "%s", got.msg);
			}
			unlink(path);
		}
	}
	free(bad);
	snprintf(path, sizeof path, "%s/big.log", tmpdir);
	unlink(path);
	snprintf(path, sizeof path, "%s/big.log.gz", tmpdir);
	unlink(path);
	rmdir(tmpdir);
	free(text);
}
END_TEST

/*
 * A log replaced or rewritten between the two passes of a streamed read
 * (issue 27, N3): each way is refused with status 74, never read as one
 * version's records under another's size or digest. The test hook
 * (schedule_test_between_passes) changes the log between the passes.
 */
enum change { CHANGE_NONE, CHANGE_IN_PLACE, CHANGE_SAME_COPY, CHANGE_OTHER_COPY, CHANGE_LONGER };
static enum change change_how;
static const char *change_text; /* the log's text, change_len bytes */
static size_t change_len;
static bool change_gz;
static char change_path[600];

static void change_log(const char *spec)
{
	(void)spec;
	char *t = malloc(change_len + 64);
	ck_assert_ptr_nonnull(t);
	memcpy(t, change_text, change_len);
	t[change_len] = 0; /* (strstr below) */
	size_t len = change_len;
	/* an op's time "TIME":"3" becomes "TIME":"4": as many bytes */
	char *p = strstr(t + change_len / 2, "\"TIME\":\"");
	ck_assert_ptr_nonnull(p);
	p += 8;
	if (change_how == CHANGE_IN_PLACE || change_how == CHANGE_OTHER_COPY)
		*p = *p == '9' ? '8' : (char)(*p + 1);
	if (change_how == CHANGE_LONGER) {
		memcpy(t + len, "\n", 1);
		len++;
	}
	if (change_how == CHANGE_IN_PLACE && !change_gz) {
		/* the same file, written over (same inode) */
		FILE *f = fopen(change_path, "r+b");
		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(fseek(f, (long)(p - t), SEEK_SET), 0);
		ck_assert_int_eq(fputc(*p, f), *p);
		ck_assert_int_eq(fclose(f), 0);
	} else if (change_how == CHANGE_IN_PLACE || change_how == CHANGE_LONGER) {
		/* truncated and written again: the same inode */
		write_file(change_path, t, len, change_gz);
	} else if (change_how != CHANGE_NONE) {
		/* another file renamed over it (`mv`), identical or not */
		char tmp[700];
		snprintf(tmp, sizeof tmp, "%s.new", change_path);
		write_file(tmp, t, len, change_gz);
		ck_assert_int_eq(rename(tmp, change_path), 0);
	}
	free(t);
}

static char zip_path[512];

static void zip_replace(const char *spec)
{
	(void)spec;
	char from[600];
	snprintf(from, sizeof from, "%s.new", zip_path);
	ck_assert_int_eq(rename(from, zip_path), 0);
}

START_TEST(log_changed_between_passes)
{
	make_tmpdir();
	size_t len;
	long lines;
	char *text = big_log(70000, 30000, &len, &lines);
	ck_assert_uint_gt(len, 9u << 20); /* over SMALL_LOG (schedule.c): streamed */
	change_text = text;
	change_len = len;
	schedule_test_between_passes = change_log;
	static const char *const names[] = {"unchanged", "rewritten in place",
					    "replaced by an identical copy", "replaced by another",
					    "rewritten longer"};
	for (int gz = 0; gz < 2; gz++) {
		change_gz = gz;
		snprintf(change_path, sizeof change_path, "%s/big.log%s", tmpdir, gz ? ".gz" : "");
		for (int how = CHANGE_NONE; how <= CHANGE_LONGER; how++) {
			change_how = (enum change)how;
			write_file(change_path, text, len, gz);
			/* (with and without the SHA-256 the results files carry) */
			for (int digest = 0; digest < (how == CHANGE_IN_PLACE ? 2 : 1); digest++) {
				if (digest) /* the read starts from the log again */
					write_file(change_path, text, len, gz);
				struct read_options o = {.digest = digest};
				struct schedule *s = NULL;
				struct rs_error err = {0};
				int rc = schedule_read(change_path, &o, &s, &err);
				if (how == CHANGE_NONE) {
					ck_assert_msg(rc == 0, "%s", err.msg);
					schedule_free(s);
				} else {
					ck_assert_msg(rc == -1 && err.status == 74 &&
							      strstr(err.msg, "changed while it was read"),
						      "%s%s, digest %d: status %d: %s", gz ? "gzip, " : "",
						      names[how], digest, rc ? err.status : 0, err.msg);
				}
			}
		}
		unlink(change_path);
	}
	/* a zip archive replaced by an identical copy */
	char spec[600];
	snprintf(zip_path, sizeof zip_path, "%s/l.zip", tmpdir);
	for (int pass = 0; pass < 2; pass++) {
		snprintf(change_path, sizeof change_path, "%s%s", zip_path, pass ? ".new" : "");
		zipFile zf = zipOpen(change_path, APPEND_STATUS_CREATE);
		ck_assert_ptr_nonnull(zf);
		char *member = malloc(len + 1);
		memcpy(member, text, len);
		member[len] = 0;
		zip_add(zf, "logs/big.log", member);
		free(member);
		zipClose(zf, NULL);
	}
	snprintf(spec, sizeof spec, "%s:logs/big.log", zip_path);
	change_how = CHANGE_NONE;
	schedule_test_between_passes = NULL;
	struct schedule *s;
	struct rs_error err;
	ck_assert_msg(schedule_read(spec, NULL, &s, &err) == 0, "%s", err.msg);
	schedule_free(s);
	schedule_test_between_passes = zip_replace;
	ck_assert_int_eq(schedule_read(spec, NULL, &s, &err), -1);
	ck_assert_int_eq(err.status, 74);
	ck_assert_msg(strstr(err.msg, "replaced by another file"), "%s", err.msg);
	schedule_test_between_passes = NULL;
	unlink(zip_path);
	rmdir(tmpdir);
	free(text);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("reader");
	TCase *tc = tcase_create("records");
	tcase_add_test(tc, constant_is_pinned_op);
	tcase_add_test(tc, call_with_view_shares_storage);
	tcase_add_test(tc, copy_get_release_and_unknown_release);
	tcase_add_test(tc, final_pins_in_first_mapped_order);
	tcase_add_test(tc, mutate_makes_new_tensor_and_releases_old);
	tcase_add_test(tc, copy_from_releases_then_gets);
	tcase_add_test(tc, start_skips_warmup);
	tcase_add_test(tc, backward_marks);
	tcase_add_test(tc, module_marks_nest_and_change_nothing);
	tcase_add_test(tc, writes_are_listed);
	tcase_add_test(tc, floor_is_what_stays_pinned);
	tcase_add_test(tc, numbers_as_numbers);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_add_test(tc, bad_inputs);
	tcase_add_test(tc, check_reports_every_problem_without_cascade);
	suite_add_tcase(s, tc);
	tc = tcase_create("containers");
	tcase_add_test(tc, gzip_and_truncated_gzip);
	tcase_add_test(tc, zip_members_by_path_and_model_name);
	tcase_add_test(tc, zip_members_whole_as_streamed);
	tcase_add_test(tc, stream_equals_memory);
	tcase_add_test(tc, log_changed_between_passes);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
