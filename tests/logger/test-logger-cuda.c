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

/* --measure-link's measurement (docs/offload.md): eight sizes each way, a
 * link of at least 1 GB/s (any PCIe or NVLink one) and times that grow
 * with the size from 1 MiB on. */
START_TEST(cuda_link)
{
	struct link_measure m;
	char msg[512];
	ck_assert_msg(cuda->measure_link && cuda->measure_link(&m, msg, sizeof msg) == 0, "%s", msg);
	ck_assert_int_eq(m.n, LINK_SIZES);
	ck_assert(m.h2d_bytes_per_s > 1e9 && m.d2h_bytes_per_s > 1e9);
	ck_assert(isfinite(m.h2d_bytes_per_s) && isfinite(m.d2h_bytes_per_s));
	ck_assert(m.h2d_latency_ns >= 0 && m.d2h_latency_ns >= 0);
	for (int i = 5; i < m.n; i++)
		ck_assert(m.h2d_ns[i] > m.h2d_ns[i - 1] && m.d2h_ns[i] > m.d2h_ns[i - 1]);
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
	tcase_add_test(t, cuda_link);
	suite_add_tcase(s, t);
	SRunner *sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	cuda->shutdown();
	return failed ? 1 : 0;
}
