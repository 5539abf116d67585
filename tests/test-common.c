/* test-common.c: see test-common.h. */
#include "test-common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime.h"

struct schedule *parse_text(const char *text, const struct read_options *opt,
			    struct rs_error *err)
{
	struct schedule *s = NULL;
	struct rs_error local;
	if (schedule_parse("t.log", text, strlen(text), opt, &s, err ? err : &local) < 0)
		return NULL;
	return s;
}

static void collect(void *ctx, const struct rs_error *e)
{
	struct problems *p = ctx;
	if (p->n < (int)(sizeof p->e / sizeof p->e[0]))
		p->e[p->n] = *e;
	p->n++;
}

int check_text(const char *text, struct problems *p)
{
	memset(p, 0, sizeof *p);
	return schedule_check("t.log", text, strlen(text), NULL, 100, collect, p);
}

bool has_problem(const struct problems *p, long line, const char *needle)
{
	for (int i = 0; i < p->n && i < 32; i++)
		if (p->e[i].line == line && strstr(p->e[i].msg, needle))
			return true;
	return false;
}

#define SAME_ARRAY(f, n)                                                                    \
	ck_assert_msg((a->n == 0 && b->n == 0) || !memcmp(a->f, b->f, a->n * sizeof *a->f),      \
		      "%s: %s differ", what, #f)

bool same_run(const struct runtime_result *x, const struct runtime_result *y)
{
	return x->outcome == y->outcome && x->clock == y->clock && x->remat_compute == y->remat_compute &&
	       x->peak_memory == y->peak_memory && x->evictions == y->evictions && x->remats == y->remats &&
	       x->heuristic_evals == y->heuristic_evals && x->heuristic_accesses == y->heuristic_accesses &&
	       x->stopped_at == y->stopped_at;
}

void assert_same_schedule(const struct schedule *a, const struct schedule *b, const char *what)
{
	ck_assert_str_eq(a->source, b->source);
	ck_assert_msg(a->n_cmds == b->n_cmds && a->n_ops == b->n_ops && a->n_tensors == b->n_tensors &&
			      a->n_storages == b->n_storages && a->n_op_args == b->n_op_args &&
			      a->strings_len == b->strings_len,
		      "%s: counts differ (%zu/%zu commands, %zu/%zu ops, %zu/%zu tensors)", what,
		      a->n_cmds, b->n_cmds, a->n_ops, b->n_ops, a->n_tensors, b->n_tensors);
	/* field by field: the structs' padding is not compared */
	for (size_t i = 0; i < a->n_cmds; i++)
		ck_assert_msg(a->cmds[i].kind == b->cmds[i].kind && a->cmds[i].id == b->cmds[i].id,
			      "%s: command %zu differs", what, i);
	for (size_t i = 0; i < a->n_ops; i++) {
		const struct sched_op *x = &a->ops[i], *y = &b->ops[i];
		ck_assert_msg(x->cost == y->cost && x->total_size == y->total_size &&
				      x->args == y->args && x->n_args == y->n_args && x->outs == y->outs &&
				      x->n_outs == y->n_outs && x->backward == y->backward &&
				      x->constant == y->constant && x->mutate == y->mutate &&
				      x->name == y->name && x->line == y->line,
			      "%s: op %zu differs", what, i);
	}
	for (size_t i = 0; i < a->n_tensors; i++) {
		const struct sched_tensor *x = &a->tensors[i], *y = &b->tensors[i];
		ck_assert_msg(x->op == y->op && x->alias == y->alias && x->storage == y->storage &&
				      x->name == y->name,
			      "%s: tensor %zu differs", what, i);
	}
	for (size_t i = 0; i < a->n_storages; i++)
		ck_assert_msg(a->storages[i].size == b->storages[i].size &&
				      a->storages[i].tensors == b->storages[i].tensors &&
				      a->storages[i].n_tensors == b->storages[i].n_tensors,
			      "%s: storage %zu differs", what, i);
	SAME_ARRAY(op_args, n_op_args);
	SAME_ARRAY(storage_tensors, n_tensors);
	SAME_ARRAY(strings, strings_len);
	SAME_ARRAY(tensor_storage, n_tensors);
	SAME_ARRAY(arg_storage, n_op_args);
	SAME_ARRAY(storage_fwd_off, n_storages + 1);
	SAME_ARRAY(storage_rev_off, n_storages + 1);
	ck_assert_msg(!memcmp(a->storage_fwd, b->storage_fwd,
			      a->storage_fwd_off[a->n_storages] * sizeof *a->storage_fwd) &&
			      !memcmp(a->storage_rev, b->storage_rev,
				      a->storage_rev_off[a->n_storages] * sizeof *a->storage_rev),
		      "%s: storage edges differ", what);
	ck_assert_msg(a->n_marks == b->n_marks && a->n_writes == b->n_writes,
		      "%s: %zu/%zu module marks, %zu/%zu written arguments", what, a->n_marks,
		      b->n_marks, a->n_writes, b->n_writes);
	for (size_t i = 0; i < a->n_marks; i++) {
		const struct sched_mark *x = &a->marks[i], *y = &b->marks[i];
		ck_assert_msg(x->op == y->op && x->name == y->name && x->type == y->type &&
				      x->line == y->line && x->enter == y->enter,
			      "%s: module mark %zu differs", what, i);
	}
	SAME_ARRAY(writes, n_writes);
	ck_assert_msg(!memcmp(a->records, b->records, sizeof a->records), "%s: record counts differ", what);
	ck_assert_msg(a->lines == b->lines && a->skipped_lines == b->skipped_lines &&
			      a->has_start == b->has_start && a->from_start == b->from_start &&
			      a->preallocate == b->preallocate && a->output_ram == b->output_ram,
		      "%s: lines or options differ (%llu/%llu lines)", what,
		      (unsigned long long)a->lines, (unsigned long long)b->lines);
	ck_assert_msg(a->n_forward_ops == b->n_forward_ops && a->n_backward_ops == b->n_backward_ops &&
			      a->n_constants == b->n_constants && a->n_aliases == b->n_aliases &&
			      a->n_handles == b->n_handles && a->n_pins_final == b->n_pins_final &&
			      a->total_compute == b->total_compute && a->const_memory == b->const_memory &&
			      a->max_output_size == b->max_output_size,
		      "%s: totals differ", what);
	ck_assert_msg(!memcmp(a->sha256, b->sha256, sizeof a->sha256), "%s: digests differ", what);
}

const char *shared_dir(void)
{
	static char buf[4096];
	const char *env = getenv("REMATSIM_SHARED");
	struct stat st;
	if (env && stat(env, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(buf, sizeof buf, "%s", env);
		return buf;
	}
	return NULL;
}

char *shared_path(char *buf, size_t cap, const char *rel)
{
	snprintf(buf, cap, "%s/%s", shared_dir(), rel);
	return buf;
}

int run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

FILE *open_test_data(const char *name)
{
	const char *src = getenv("REMATSIM_SOURCE");
	ck_assert_msg(src != NULL, "REMATSIM_SOURCE is not set");
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/data/%s", src, name);
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	return f;
}

/* ---------------------------------------------------------------- logs built record by record */

void logb_put(struct logb *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	b->len += (size_t)vsnprintf(b->buf + b->len, sizeof b->buf - b->len, fmt, ap);
	va_end(ap);
	ck_assert_uint_lt(b->len, sizeof b->buf);
}

void logb_const(struct logb *b, const char *name, unsigned bytes)
{
	logb_put(b, "{\"INSTRUCTION\":\"CONSTANT\",\"NAME\":\"%s\"}\n", name);
	logb_put(b, "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"%u\",\"NAME\":\"%s\"}\n", bytes, name);
}

void logb_call(struct logb *b, const char *out, const char *args, unsigned bytes, unsigned time)
{
	logb_put(b, "{\"ARGS\":[%s],\"INSTRUCTION\":\"CALL\",\"NAME\":\"op_%s\",\"RESULT\":[\"%s\"],\"TIME\":\"%u\"}\n",
		 args, out, out, time);
	logb_put(b, "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"%u\",\"NAME\":\"%s\"}\n", bytes, out);
	logb_put(b, "{\"ALIAS\":\"-1\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"%s\"}\n", out);
}

void logb_release(struct logb *b, const char *name)
{
	logb_put(b, "{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"%s\"}\n", name);
}

struct schedule *logb_build(const struct logb *b)
{
	struct rs_error err;
	struct read_options opt = {0};
	struct schedule *s = parse_text(b->buf, &opt, &err);
	if (!s)
		ck_abort_msg("log did not parse: %s", err.msg);
	return s;
}

struct schedule *logb_chain(void)
{
	struct logb b = {0};
	logb_const(&b, "w", 10);
	logb_call(&b, "a", "\"w\"", 100, 1);
	logb_call(&b, "b", "\"a\"", 100, 2);
	logb_call(&b, "c", "\"b\"", 100, 4);
	logb_call(&b, "d", "\"c\"", 100, 8);
	logb_call(&b, "e", "\"a\",\"d\"", 100, 16);
	const char *names[] = {"w", "a", "b", "c", "d", "e"};
	for (int i = 0; i < 6; i++)
		logb_release(&b, names[i]);
	return logb_build(&b);
}
