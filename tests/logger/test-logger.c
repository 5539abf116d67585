/*
 * test-logger.c: the op logger's tests. Suites:
 * - oplog: the writer's records and its peak count on a hand-made log;
 * - format: every demo's log (recorded by rematsim-record) is well-formed
 *   and replays to the peak its meta file reports;
 * - gradcheck: every demo's gradients against finite differences (CPU);
 * - cli: bad command lines, sizes, devices and paths give their statuses.
 *
 * Environment (set by meson): RECORD, the rematsim-record program;
 * TEST_DIR, a folder for the logs it writes.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "logcheck.h"
#include "logger_config.h"
#include "models.h"
#include "oplog.h"

static const char *record_exe(void)
{
	const char *p = getenv("RECORD");
	return p ? p : "./rematsim-record";
}

static const char *test_dir(void)
{
	const char *p = getenv("TEST_DIR");
	return p ? p : ".";
}

/* Run a shell command; its exit status (or -1). */
static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	int st = system(cmd);
	return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *path)
{
	static char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		fclose(f);
	return buf;
}

/* ---- oplog ---- */

START_TEST(oplog_records_and_peak)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/unit.log", test_dir());
	struct rs_error err = {0};
	struct oplog *log = oplog_open(path, &err);
	ck_assert_ptr_nonnull(log);
	/* Before START: ignored by the count. */
	ck_assert_int_eq(oplog_constant(log, "old", 1000), 0);
	ck_assert_int_eq(oplog_annotate(log, OPLOG_START), 0);
	ck_assert_uint_eq(oplog_peak_live_bytes(log), 0);
	ck_assert_int_eq(oplog_constant(log, "w", 100), 0);             /* 100 */
	const char *a1[] = {"w"}, *r1[] = {"y", "v"};
	ck_assert_int_eq(oplog_call(log, "f", 1, a1, 2, r1, (uint64_t[]){40, 100},
				    (int[]){-1, 0}, 7), 0);                  /* 140 */
	ck_assert_int_eq(oplog_copy(log, "y2", "y"), 0);
	ck_assert_int_eq(oplog_release(log, "y"), 0);                      /* y2 holds it */
	ck_assert_uint_eq(oplog_live_bytes(log), 140);
	const char *a2[] = {"y2", "w"};
	ck_assert_int_eq(oplog_mutate(log, "add_", 2, a2, 1, (int[]){0}, 3), 0); /* +40 -40 */
	ck_assert_uint_eq(oplog_peak_live_bytes(log), 180);
	ck_assert_uint_eq(oplog_live_bytes(log), 140);
	ck_assert_int_eq(oplog_release(log, "y2"), 0);
	ck_assert_uint_eq(oplog_live_bytes(log), 100);
	ck_assert_int_eq(oplog_release(log, "w"), 0); /* a constant: pinned */
	ck_assert_uint_eq(oplog_live_bytes(log), 100);
	/* Misuse is refused with a message. */
	const char *bad[] = {"ghost"};
	ck_assert_int_eq(oplog_call(log, "g", 1, bad, 1, r1, (uint64_t[]){1}, (int[]){-1}, 1), -1);
	ck_assert_ptr_nonnull(strstr(oplog_error(log)->msg, "ghost"));
	ck_assert_int_eq(oplog_call(log, "g", 1, a1, 1, r1, (uint64_t[]){1}, (int[]){1}, 1), -1);
	/* An op with no outputs: the simulator cannot replay it. */
	ck_assert_int_eq(oplog_call(log, "noop", 0, NULL, 0, NULL, NULL, NULL, 1), -1);
	ck_assert_ptr_nonnull(strstr(oplog_error(log)->msg, "no results"));
	ck_assert_int_eq(oplog_mutate(log, "nop_", 1, a1, 0, NULL, 1), -1);
	ck_assert_ptr_nonnull(strstr(oplog_error(log)->msg, "changes no argument"));
	ck_assert_int_eq(oplog_close(log, &err), 0);

	struct logcheck c;
	ck_assert_msg(logcheck_file(path, &c) == 0, "%s", c.error);
	ck_assert_uint_eq(c.peak_bytes, 180);
	ck_assert_int_eq(logcheck_meta_peak(path), 180);
	ck_assert_int_eq(c.records, 15);
	char *text = slurp(path);
	const char *head = "{\"INSTRUCTION\":\"CONSTANT\",\"NAME\":\"old\"}\n"
			   "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"1000\",\"NAME\":\"old\"}\n"
			   "{\"ANNOTATION\":\"START\",\"INSTRUCTION\":\"ANNOTATE\"}\n";
	ck_assert(!strncmp(text, head, strlen(head)));
	ck_assert_ptr_nonnull(strstr(text, "{\"ARGS\":[\"w\"],\"INSTRUCTION\":\"CALL\",\"NAME\":\"f\","
					   "\"RESULT\":[\"y\",\"v\"],\"TIME\":\"7\"}\n"
					   "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"40\",\"NAME\":\"y\"}\n"
					   "{\"ALIAS\":\"-1\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"y\"}\n"));
	ck_assert_ptr_nonnull(strstr(text, "{\"ALIAS\":\"0\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"v\"}"));
	ck_assert_ptr_nonnull(strstr(text, "\"MUTATE\":[0],\"NAME\":\"add_\",\"TIME\":\"3\"}"));
}
END_TEST

START_TEST(oplog_gzip_and_meta_name)
{
	char *m = oplog_meta_path("a/mlp-cpu.log.gz");
	ck_assert_str_eq(m, "a/mlp-cpu.meta.json");
	free(m);
	m = oplog_meta_path("x.json");
	ck_assert_str_eq(m, "x.json.meta.json");
	free(m);
	char path[1024];
	snprintf(path, sizeof path, "%s/unit.log.gz", test_dir());
	struct rs_error err = {0};
	struct oplog *log = oplog_open(path, &err);
	ck_assert_ptr_nonnull(log);
	oplog_annotate(log, OPLOG_START);
	oplog_constant(log, "a", 12);
	ck_assert_int_eq(oplog_close(log, &err), 0);
	FILE *f = fopen(path, "rb");
	unsigned char magic[2] = {0};
	ck_assert_int_eq(fread(magic, 1, 2, f), 2);
	fclose(f);
	ck_assert(magic[0] == 0x1f && magic[1] == 0x8b);
	struct logcheck c;
	ck_assert_msg(logcheck_file(path, &c) == 0, "%s", c.error);
	ck_assert_uint_eq(c.peak_bytes, 12);
}
END_TEST

/* ---- format: the demos' logs ---- */

static const char *const model_args[] = {
	"--model mlp --batch 16 --width 32 --depth 3",
	"--model cnn --batch 4 --width 4 --depth 3 --image 8",
	"--model transformer --batch 2 --width 16 --depth 2 --seq 8 --heads 4",
	"--model lstm --batch 4 --width 8 --depth 2 --seq 5",
};
static const char *const model_names[] = {"mlp", "cnn", "transformer", "lstm"};

START_TEST(demo_log_is_well_formed)
{
	char path[1024], errp[1024];
	snprintf(path, sizeof path, "%s/demo-%s.log%s", test_dir(), model_names[_i],
		 _i % 2 ? "" : ".gz");
	snprintf(errp, sizeof errp, "%s/demo-%s.err", test_dir(), model_names[_i]);
	int st = run("%s %s --seed 3 --out %s 2>%s", record_exe(), model_args[_i], path, errp);
	ck_assert_msg(st == 0, "rematsim-record exited %d: %s", st, slurp(errp));
	struct logcheck c;
	ck_assert_msg(logcheck_file(path, &c) == 0, "%s: %s", path, c.error);
	ck_assert_int_eq(c.starts, 1);
	ck_assert_int_eq(c.backwards, 2); /* warm-up and measured iterations */
	ck_assert_int_gt(c.mutates, 0);
	ck_assert_int_gt(c.calls, 10);
	/* The split: the loss ends the forward pass, its gradient opens the backward. */
	ck_assert_str_eq(c.last_forward_op, "cross_entropy");
	ck_assert_str_eq(c.first_backward_op, "cross_entropy_backward");
	ck_assert_int_gt(c.backward_ops, c.forward_ops);
	if (_i != 0)
		ck_assert_int_gt(c.views, 0);
	if (!strcmp(model_names[_i], "lstm"))
		ck_assert_int_gt(c.copies, 0);
	long long meta = logcheck_meta_peak(path);
	ck_assert_msg(meta >= 0 && (uint64_t)meta == c.peak_bytes,
		      "%s: meta peak %lld, replayed peak %llu", path, meta,
		      (unsigned long long)c.peak_bytes);
	/* The stderr summary line says the same. */
	char want[64];
	snprintf(want, sizeof want, "peak_live_bytes %llu ", (unsigned long long)c.peak_bytes);
	ck_assert_ptr_nonnull(strstr(slurp(errp), want));
}
END_TEST

/* ---- gradient checks ---- */

static float loss_at(struct model *m)
{
	return model_iteration(m, MODEL_FORWARD);
}

START_TEST(gradients_match_finite_differences)
{
	const struct model_desc *d = model_find(model_names[_i]);
	ck_assert_ptr_nonnull(d);
	struct backend_info info = {0};
	char msg[256];
	ck_assert_int_eq(backend_cpu.init(&info, msg, sizeof msg), 0);
	struct rt *rt = rt_new(&backend_cpu, &info, NULL, false);
	struct model *m = model_new(d, rt, &d->tiny, 11);
	float loss0 = model_iteration(m, MODEL_GRADS);
	size_t np = m->nparams;
	float **grads = calloc(np, sizeof *grads);
	for (size_t p = 0; p < np; p++) {
		ck_assert_ptr_nonnull(m->grads[p]);
		ck_assert_int_eq(m->grads[p]->numel, m->params[p]->numel);
		grads[p] = malloc((size_t)m->params[p]->numel * sizeof(float));
		rt_read(m->grads[p], grads[p]);
	}
	model_drop_grads(m);

	/*
	 * Central differences at two steps: where they disagree, a ReLU or
	 * max-pool kink lies within a step of the point, so the point is
	 * skipped (a few at most); elsewhere the gradient must match.
	 */
	int checked = 0, kinks = 0;
	double ulp = nextafterf(fabsf(loss0), INFINITY) - fabsf(loss0);
	for (size_t p = 0; p < np; p++) {
		int64_t n = m->params[p]->numel;
		float *w = malloc((size_t)n * sizeof *w);
		rt_read(m->params[p], w);
		for (int64_t i = 0; i < n; i++) { /* tiny models: every element */
			float keep = w[i];
			double fd[2];
			/* ReLU and max-pool kinks want small steps; the smooth LSTM, large ones. */
			bool smooth = !strcmp(d->name, "lstm");
			const float steps[2] = {smooth ? 1e-2f : 1e-3f, smooth ? 3e-3f : 2.5e-4f};
			for (int e = 0; e < 2; e++) {
				w[i] = keep + steps[e];
				rt_write(m->params[p], w);
				double up = loss_at(m);
				w[i] = keep - steps[e];
				rt_write(m->params[p], w);
				double down = loss_at(m);
				fd[e] = (up - down) / (2.0 * steps[e]);
			}
			w[i] = keep;
			rt_write(m->params[p], w);
			double g = grads[p][i];
			/* The loss is a float: differences resolve ulp / step. */
			double res0 = 3 * ulp / steps[0], res1 = 3 * ulp / steps[1];
			if (fabs(fd[0] - fd[1]) > res1 + 5e-2 * fabs(fd[0])) {
				kinks++;
				continue;
			}
			ck_assert_msg(fabs(fd[0] - g) <= res0 + 1e-5 + 3e-2 * fabs(fd[0]),
				      "%s: parameter %zu element %lld: gradient %g, finite "
				      "difference %g",
				      d->name, p, (long long)i, g, fd[0]);
			checked++;
		}
		free(w);
		free(grads[p]);
	}
	ck_assert_msg(kinks * 5 <= checked, "%s: %d points near kinks, %d checked", d->name, kinks,
		      checked);
	free(grads);
	ck_assert_int_ge(checked, 20);
	/* A real training step: the loss goes down. */
	float before = loss_at(m);
	m->lr = 0.1f;
	model_iteration(m, MODEL_STEP);
	ck_assert_float_lt(loss_at(m), before);
	model_free(m);
	rt_free(rt);
}
END_TEST

/* ---- cli ---- */

static int record_status(const char *args, const char *expect_in_stderr)
{
	char errp[1024];
	snprintf(errp, sizeof errp, "%s/cli.err", test_dir());
	int st = run("%s %s 2>%s >/dev/null", record_exe(), args, errp);
	if (expect_in_stderr)
		ck_assert_msg(strstr(slurp(errp), expect_in_stderr), "'%s': stderr lacks '%s': %s",
			      args, expect_in_stderr, slurp(errp));
	return st;
}

START_TEST(cli_usage_errors)
{
	ck_assert_int_eq(record_status("--help", NULL), 0);
	ck_assert_int_eq(record_status("--model resnet --out x.log", "unknown model 'resnet'"), 64);
	ck_assert_int_eq(record_status("--model mlp --device tpu --out x.log",
				       "unknown device 'tpu'"), 64);
	ck_assert_int_eq(record_status("--model mlp", "--out"), 64);
	ck_assert_int_eq(record_status("--model mlp --batch 0 --out x.log", "--batch"), 64);
	ck_assert_int_eq(record_status("--model mlp --width ten --out x.log", "--width"), 64);
	ck_assert_int_eq(record_status("--model transformer --width 10 --heads 3 --out x.log",
				       "divisible"), 64);
	ck_assert_int_eq(record_status("--model cnn --image 7 --out x.log", "even"), 64);
	ck_assert_int_eq(record_status("--bogus", NULL), 64);
}
END_TEST

START_TEST(cli_too_large_fails_before_allocating)
{
	char args[2048], out[1024];
	snprintf(out, sizeof out, "%s/huge.log", test_dir());
	unlink(out);
	snprintf(args, sizeof args, "--model mlp --batch 2000000000 --width 2000000 --out %s", out);
	ck_assert_int_eq(record_status(args, "use smaller sizes"), 69);
	struct stat sb;
	ck_assert_int_ne(stat(out, &sb), 0); /* no half-written log */
	snprintf(args, sizeof args, "--model lstm --batch 1000000 --width 100000 --out %s", out);
	ck_assert_int_eq(record_status(args, "needs"), 69);
	ck_assert_int_ne(stat(out, &sb), 0);
	snprintf(args, sizeof args,
		 "--model transformer --batch 2147483648 --seq 2147483648 --width 2147483648 "
		 "--heads 1 --out %s",
		 out);
	ck_assert_int_eq(record_status(args, "use smaller sizes"), 69);
}
END_TEST

START_TEST(cli_unwritable_output)
{
	ck_assert_int_eq(record_status("--model mlp --batch 2 --width 2 --depth 1 "
				       "--out /nonexistent-dir/x.log",
				       "cannot create"),
			 73);
}
END_TEST

START_TEST(cli_cuda_unavailable)
{
	/*
	 * Ask the program itself (CUDA is not opened in this process: the
	 * valgrind setup would blame the driver's loader on us). With a
	 * device it records (the CUDA tests check that); without one it
	 * must refuse with 69 and say why.
	 */
	char out[1024], args[2048], errp[1024];
	snprintf(out, sizeof out, "%s/cuda.log", test_dir());
	snprintf(errp, sizeof errp, "%s/cli.err", test_dir());
	snprintf(args, sizeof args, "--model mlp --batch 2 --width 2 --depth 1 --device cuda --out %s",
		 out);
	int st = record_status(args, NULL);
	if (st == 0)
		return;
	ck_assert_int_eq(st, 69);
	const char *why = slurp(errp);
	ck_assert_msg(strstr(why, HAVE_CUDA ? "no usable CUDA device" : "no CUDA backend"),
		      "%s", why);
}
END_TEST

static Suite *logger_suite(void)
{
	Suite *s = suite_create("logger");
	TCase *t = tcase_create("oplog");
	tcase_add_test(t, oplog_records_and_peak);
	tcase_add_test(t, oplog_gzip_and_meta_name);
	suite_add_tcase(s, t);
	t = tcase_create("format");
	tcase_set_timeout(t, 120);
	tcase_add_loop_test(t, demo_log_is_well_formed, 0, 4);
	suite_add_tcase(s, t);
	t = tcase_create("gradcheck");
	tcase_set_timeout(t, 120);
	tcase_add_loop_test(t, gradients_match_finite_differences, 0, 4);
	suite_add_tcase(s, t);
	t = tcase_create("cli");
	tcase_set_timeout(t, 60);
	tcase_add_test(t, cli_usage_errors);
	tcase_add_test(t, cli_too_large_fails_before_allocating);
	tcase_add_test(t, cli_unwritable_output);
	tcase_add_test(t, cli_cuda_unavailable);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	mkdir(test_dir(), 0777);
	SRunner *sr = srunner_create(logger_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
