/*
 * test-logger-cuda.c: the CUDA backend on a real device. Exits 77 (skipped)
 * when the build has no CUDA backend or no device can be opened.
 * Every demo records on the device a well-formed log that replays to its
 * meta peak. (Gradients against the CPU's: cuda-check.c.)
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
