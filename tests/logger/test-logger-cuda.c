/*
 * test-logger-cuda.c: the CUDA backend on a real device. Exits 77 (skipped)
 * when the build has no CUDA backend or no device can be opened.
 * - every demo records on the device a well-formed log that replays to its
 *   meta peak, with per-op times;
 * - every demo's gradients on the device match the CPU's (same seed).
 * Runs without fork: a CUDA context does not survive one.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "logcheck.h"
#include "models.h"

static const struct backend *cuda;
static struct backend_info cuda_info;

static const char *const names[] = {"mlp", "cnn", "transformer", "lstm"};
static const char *const args[] = {
	"--model mlp --batch 64 --width 256 --depth 4",
	"--model cnn --batch 8 --width 16 --depth 3 --image 16",
	"--model transformer --batch 4 --width 64 --depth 2 --seq 32 --heads 4",
	"--model lstm --batch 16 --width 64 --depth 2 --seq 8",
};

START_TEST(cuda_demo_log)
{
	const char *dir = getenv("TEST_DIR") ? getenv("TEST_DIR") : ".";
	const char *exe = getenv("RECORD") ? getenv("RECORD") : "./rematsim-record";
	char path[1024], cmd[4096];
	snprintf(path, sizeof path, "%s/cuda-%s.log.gz", dir, names[_i]);
	snprintf(cmd, sizeof cmd, "%s %s --device cuda --out %s", exe, args[_i], path);
	int st = system(cmd);
	ck_assert_msg(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s failed", cmd);
	struct logcheck c;
	ck_assert_msg(logcheck_file(path, &c) == 0, "%s: %s", path, c.error);
	ck_assert_int_eq(c.starts, 1);
	long long meta = logcheck_meta_peak(path);
	ck_assert_msg(meta >= 0 && (unsigned long long)meta == c.peak_bytes,
		      "meta peak %lld, replayed %llu", meta, (unsigned long long)c.peak_bytes);
}
END_TEST

static float *grads_of(const struct backend *be, const struct backend_info *info,
		       const struct model_desc *d, size_t *total)
{
	struct rt *rt = rt_new(be, info, NULL, false);
	struct model *m = model_new(d, rt, &d->tiny, 5);
	model_iteration(m, MODEL_GRADS);
	size_t n = 0;
	for (size_t p = 0; p < m->nparams; p++)
		n += (size_t)m->grads[p]->numel;
	float *g = malloc(n * sizeof *g), *at = g;
	for (size_t p = 0; p < m->nparams; p++) {
		rt_read(m->grads[p], at);
		at += m->grads[p]->numel;
	}
	model_free(m);
	rt_free(rt);
	*total = n;
	return g;
}

START_TEST(cuda_gradients_match_cpu)
{
	const struct model_desc *d = model_find(names[_i]);
	struct backend_info cpu_info = {0};
	char msg[256];
	backend_cpu.init(&cpu_info, msg, sizeof msg);
	size_t n1, n2;
	float *a = grads_of(&backend_cpu, &cpu_info, d, &n1);
	float *b = grads_of(cuda, &cuda_info, d, &n2);
	ck_assert_uint_eq(n1, n2);
	for (size_t i = 0; i < n1; i++)
		ck_assert_msg(fabsf(a[i] - b[i]) <= 1e-4f + 1e-3f * fabsf(a[i]),
			      "%s: gradient element %zu: cpu %g, cuda %g", d->name, i, a[i], b[i]);
	free(a);
	free(b);
}
END_TEST

int main(void)
{
	cuda = backend_cuda_get();
	if (!cuda) {
		printf("built without CUDA: skipped\n");
		return 77;
	}
	char msg[512];
	if (cuda->init(&cuda_info, msg, sizeof msg)) {
		printf("no CUDA device (%s): skipped\n", msg);
		return 77;
	}
	if (getenv("TEST_DIR"))
		mkdir(getenv("TEST_DIR"), 0777);
	Suite *s = suite_create("logger-cuda");
	TCase *t = tcase_create("cuda");
	tcase_set_timeout(t, 300);
	tcase_add_loop_test(t, cuda_gradients_match_cpu, 0, 4);
	tcase_add_loop_test(t, cuda_demo_log, 0, 4);
	suite_add_tcase(s, t);
	SRunner *sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	cuda->shutdown();
	return failed ? 1 : 0;
}
