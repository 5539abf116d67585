/*
 * test-schedule-builder.c: the schedule builder's API (sim/lib/read/schedule_builder.h)
 * called directly, as an importer calls it, without log text.
 *
 *  - the same operations as a log and as calls give the same schedule
 *    (every array and total; the reader's own facts, its record and line
 *    counts, copied over), module marks and written arguments included;
 *  - the builder's handle counts are schedule_cmd_handles' (the one rule):
 *    counted again over the commands, every storage a final pin holds has
 *    a handle, and no count goes below zero;
 *  - its problems: an undefined argument, a result defined twice, module
 *    calls that do not nest or are never exited (reported by finish at the
 *    ENTER's line), a caller's problem with a WRITES list reported only
 *    once the call's names pass (so an undefined argument is the one
 *    problem of a call that has both), and check mode's count.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "schedule_builder.h"
#include "test-common.h"

/* The log the calls below make, line by line (line numbers are the calls'). */
static const char log_text[] =
	"{\"INSTRUCTION\":\"ANNOTATE\",\"ANNOTATION\":\"START\"}\n"                       /* 1 */
	"{\"INSTRUCTION\":\"CONSTANT\",\"NAME\":\"w\"}\n"                                   /* 2 */
	"{\"INSTRUCTION\":\"MEMORY\",\"NAME\":\"w\",\"MEMORY\":\"10\"}\n"                   /* 3 */
	"{\"INSTRUCTION\":\"ANNOTATE\",\"ANNOTATION\":\"ENTER\",\"MODULE\":\"m\",\"TYPE\":\"Seq\"}\n" /* 4 */
	"{\"INSTRUCTION\":\"CALL\",\"NAME\":\"f\",\"ARGS\":[\"w\"],\"RESULT\":[\"a\",\"v\"],\"TIME\":\"5\"}\n" /* 5 */
	"{\"INSTRUCTION\":\"MEMORY\",\"NAME\":\"a\",\"MEMORY\":\"100\"}\n"                  /* 6 */
	"{\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"a\",\"ALIAS\":\"-1\"}\n"                     /* 7 */
	"{\"INSTRUCTION\":\"MEMORY\",\"NAME\":\"v\",\"MEMORY\":\"0\"}\n"                    /* 8 */
	"{\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"v\",\"ALIAS\":\"0\"}\n"                      /* 9 */
	"{\"INSTRUCTION\":\"ANNOTATE\",\"ANNOTATION\":\"ENTER\",\"MODULE\":\"m.0\"}\n"      /* 10 */
	"{\"INSTRUCTION\":\"CALL\",\"NAME\":\"g_\",\"ARGS\":[\"w\",\"a\"],\"RESULT\":[\"b\"],\"TIME\":\"7\",\"WRITES\":[1,0]}\n" /* 11 */
	"{\"INSTRUCTION\":\"MEMORY\",\"NAME\":\"b\",\"MEMORY\":\"0\"}\n"                    /* 12 */
	"{\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"b\",\"ALIAS\":\"1\"}\n"                      /* 13 */
	"{\"INSTRUCTION\":\"ANNOTATE\",\"ANNOTATION\":\"EXIT\",\"MODULE\":\"m.0\"}\n"       /* 14 */
	"{\"INSTRUCTION\":\"ANNOTATE\",\"ANNOTATION\":\"EXIT\",\"MODULE\":\"m\"}\n"         /* 15 */
	"{\"INSTRUCTION\":\"COPY\",\"DST\":\"c\",\"SRC\":\"b\"}\n"                          /* 16 */
	"{\"INSTRUCTION\":\"ANNOTATE\",\"ANNOTATION\":\"BACKWARD\"}\n"                      /* 17 */
	"{\"INSTRUCTION\":\"MUTATE\",\"NAME\":\"h\",\"ARGS\":[\"a\",\"w\"],\"MUTATE\":[0],\"TIME\":\"3\"}\n" /* 18 */
	"{\"INSTRUCTION\":\"CALL\",\"NAME\":\"k\",\"ARGS\":[\"a\"],\"RESULT\":[\"d\"],\"TIME\":\"2\"}\n" /* 19 */
	"{\"INSTRUCTION\":\"MEMORY\",\"NAME\":\"d\",\"MEMORY\":\"40\"}\n"                   /* 20 */
	"{\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"d\",\"ALIAS\":\"-1\"}\n"                     /* 21 */
	"{\"INSTRUCTION\":\"COPY_FROM\",\"DST\":\"c\",\"SRC\":\"d\"}\n"                     /* 22 */
	"{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"v\"}\n"                                    /* 23 */
	"{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"d\"}\n";                                   /* 24 */

static struct schedule_builder *fresh(int max_problems, struct rs_error *err)
{
	memset(err, 0, sizeof *err);
	return schedule_builder_new("t.log", false, max_problems, err, NULL, NULL);
}

/* The operations of log_text as calls. */
static void make_calls(struct schedule_builder *b)
{
	ck_assert_int_eq(schedule_builder_constant(b, 2, 3, "w", 10), 0);
	ck_assert_int_eq(schedule_builder_module(b, 4, "m", "Seq", true), 0);
	const char *f_args[] = {"w"};
	struct schedule_result f_res[] = {{"a", 100, -1, 6}, {"v", 0, 0, 8}};
	ck_assert_int_eq(schedule_builder_call(b, 5, "f", 5, f_args, 1, f_res, 2), 0);
	ck_assert_int_eq(schedule_builder_module(b, 10, "m.0", NULL, true), 0);
	const char *g_args[] = {"w", "a"};
	struct schedule_result g_res[] = {{"b", 0, 1, 12}};
	const uint32_t writes[] = {1, 0};
	ck_assert_int_eq(schedule_builder_call_writes(b, 11, "g_", 7, g_args, 2, g_res, 1, writes, 2,
						      NULL),
			 0);
	ck_assert_int_eq(schedule_builder_module(b, 14, "m.0", NULL, false), 0);
	ck_assert_int_eq(schedule_builder_module(b, 15, "m", NULL, false), 0);
	ck_assert_int_eq(schedule_builder_copy(b, 16, "c", "b", false), 0);
	schedule_builder_backward(b);
	const char *h_args[] = {"a", "w"};
	const size_t mutated[] = {0};
	ck_assert_int_eq(schedule_builder_mutate(b, 18, "h", 3, h_args, 2, mutated, 1), 0);
	const char *k_args[] = {"a"};
	struct schedule_result k_res[] = {{"d", 40, -1, 20}};
	ck_assert_int_eq(schedule_builder_call(b, 19, "k", 2, k_args, 1, k_res, 1), 0);
	ck_assert_int_eq(schedule_builder_copy(b, 22, "c", "d", true), 0);
	ck_assert_int_eq(schedule_builder_release(b, 23, "v"), 0);
	ck_assert_int_eq(schedule_builder_release(b, 24, "d"), 0);
}

START_TEST(calls_are_the_log)
{
	struct rs_error err;
	struct schedule *read = parse_text(log_text, NULL, &err);
	ck_assert_msg(read != NULL, "%s", err.msg);
	struct schedule_builder *b = fresh(1, &err);
	make_calls(b);
	ck_assert(!schedule_builder_stopped(b));
	ck_assert_int_eq(schedule_builder_ops(b), 5);
	struct schedule *built = NULL;
	ck_assert_int_eq(schedule_builder_finish(b, &built), 0);
	ck_assert_ptr_nonnull(built);
	/* what the reader alone knows: its records and lines */
	memcpy(built->records, read->records, sizeof built->records);
	built->lines = read->lines;
	built->has_start = read->has_start;
	built->from_start = read->from_start;
	built->skipped_lines = read->skipped_lines;
	assert_same_schedule(read, built, "calls");

	/* the marks and writes themselves, not only their equality */
	ck_assert_int_eq(built->n_marks, 4);
	ck_assert(built->marks[0].enter && built->marks[0].op == 1 && built->marks[0].line == 4);
	ck_assert_str_eq(schedule_str(built, built->marks[0].type), "Seq");
	ck_assert_str_eq(schedule_str(built, built->marks[1].name), "m.0");
	ck_assert_str_eq(schedule_str(built, built->marks[1].type), "");
	ck_assert(!built->marks[3].enter && built->marks[3].op == 3);
	ck_assert_int_eq(built->n_writes, 2);
	const struct sched_op *g = &built->ops[2];
	ck_assert_int_eq(built->writes[0], g->args);     /* ascending, */
	ck_assert_int_eq(built->writes[1], g->args + 1); /* given as [1, 0] */
	ck_assert(built->ops[3].backward && built->ops[3].mutate && !built->ops[2].backward);
	schedule_free(read);
	schedule_free(built);
}
END_TEST

START_TEST(handles_by_the_rule)
{
	struct rs_error err;
	struct schedule_builder *b = fresh(1, &err);
	make_calls(b);
	struct schedule *s = NULL;
	ck_assert_int_eq(schedule_builder_finish(b, &s), 0);
	int64_t *refs = calloc(s->n_storages + 1, sizeof *refs);
	size_t pins = 0;
	for (size_t i = 0; i < s->n_cmds; i++) {
		schedule_count_handles(s, &s->cmds[i], refs);
		for (size_t k = 0; k < s->n_storages; k++)
			ck_assert_msg(refs[k] >= 0, "storage %zu below zero handles at command %zu", k, i);
		if (i >= s->n_cmds - s->n_pins_final) {
			ck_assert_int_eq(s->cmds[i].kind, CMD_PIN);
			ck_assert_int_gt(refs[s->tensors[s->cmds[i].id].storage], 0);
			pins++;
		}
	}
	/* w, a (mutated: its new version), b and c's storage ... every live
	 * handle is pinned once, none with its storage banished */
	ck_assert_int_eq(pins, s->n_pins_final);
	ck_assert_int_gt(pins, 0);
	free(refs);
	schedule_free(s);
}
END_TEST

struct collected {
	int n;
	struct rs_error e[8];
};

static void collect(void *ctx, const struct rs_error *e)
{
	struct collected *c = ctx;
	if (c->n < 8)
		c->e[c->n] = *e;
	c->n++;
}

START_TEST(problems)
{
	struct rs_error err;
	struct schedule *s = NULL;

	/* an undefined argument, read mode: the first problem stops it */
	struct schedule_builder *b = fresh(1, &err);
	const char *args[] = {"nope"};
	struct schedule_result r1 = {"x", 8, -1, 3};
	ck_assert_int_eq(schedule_builder_call(b, 3, "f", 1, args, 1, &r1, 1), -1);
	ck_assert(schedule_builder_stopped(b));
	ck_assert_int_eq(err.status, EXIT_DATAERR);
	ck_assert_int_eq(err.line, 3);
	ck_assert_str_eq(err.file, "t.log");
	ck_assert_ptr_nonnull(strstr(err.msg, "ARGS names tensor \"nope\", which was never defined"));
	ck_assert_int_eq(schedule_builder_finish(b, &s), 1);
	ck_assert_ptr_null(s);

	/* check mode: a WRITES problem waits for the names; with an undefined
	 * argument only that is reported, else it is, and the results are
	 * poisoned (a later use of them reports nothing more) */
	struct collected c = {0};
	b = schedule_builder_new("t.log", false, 100, &err, collect, &c);
	ck_assert_int_eq(schedule_builder_constant(b, 1, 2, "w", 4), 0);
	const char *bad[] = {"w", "nope"};
	ck_assert_int_eq(schedule_builder_call_writes(b, 5, "f", 1, bad, 2, &r1, 1, NULL, 0,
						      "WRITES lists argument 0 twice"),
			 -1);
	const char *good[] = {"w"};
	struct schedule_result r2 = {"y", 8, -1, 7};
	ck_assert_int_eq(schedule_builder_call_writes(b, 7, "f", 1, good, 1, &r2, 1, NULL, 0,
						      "WRITES lists argument 0 twice"),
			 -1);
	const char *uses_y[] = {"y"};
	struct schedule_result r3 = {"z", 8, -1, 9};
	ck_assert_int_eq(schedule_builder_call(b, 9, "g", 1, uses_y, 1, &r3, 1), -1);
	/* a result defined twice */
	struct schedule_result r4 = {"w", 8, -1, 11};
	ck_assert_int_eq(schedule_builder_call(b, 11, "h", 1, good, 1, &r4, 1), -1);
	/* module calls: an EXIT of none, an EXIT of the wrong one, one never exited */
	ck_assert_int_eq(schedule_builder_module(b, 12, "a", NULL, false), -1);
	ck_assert_int_eq(schedule_builder_module(b, 13, "a", "A", true), 0);
	ck_assert_int_eq(schedule_builder_module(b, 14, "b", NULL, false), -1);
	ck_assert_int_eq(schedule_builder_problems(b), 5);
	ck_assert_int_eq(schedule_builder_finish(b, &s), 6);
	ck_assert_ptr_null(s);
	ck_assert_int_eq(c.n, 6);
	ck_assert(c.e[0].line == 5 && strstr(c.e[0].msg, "\"nope\", which was never defined"));
	ck_assert(c.e[1].line == 7 && !strcmp(c.e[1].msg, "WRITES lists argument 0 twice"));
	ck_assert(c.e[2].line == 11 && strstr(c.e[2].msg, "RESULT \"w\" is already defined"));
	ck_assert(c.e[3].line == 12 && strstr(c.e[3].msg, "no module call is open"));
	ck_assert(c.e[4].line == 14 && strstr(c.e[4].msg, "innermost open call is of \"a\" (ENTER on line 13)"));
	ck_assert(c.e[5].line == 13 && strstr(c.e[5].msg, "module \"a\" is entered here and never exited"));
	ck_assert_int_eq(err.line, 5); /* the first problem fills err */

	/* schedule_builder_end reports once, whoever calls it first */
	memset(&c, 0, sizeof c);
	b = schedule_builder_new("t.log", false, 100, &err, collect, &c);
	ck_assert_int_eq(schedule_builder_module(b, 1, "a", NULL, true), 0);
	schedule_builder_end(b);
	ck_assert_int_eq(schedule_builder_problems(b), 1);
	ck_assert_int_eq(schedule_builder_finish(b, &s), 1);
	ck_assert_int_eq(c.n, 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("schedule-builder");
	TCase *tc = tcase_create("schedule-builder");
	tcase_add_test(tc, calls_are_the_log);
	tcase_add_test(tc, handles_by_the_rule);
	tcase_add_test(tc, problems);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
