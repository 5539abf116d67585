/*
 * test-logs.c: the three paper logs in ../shared/dtr-logs, read from their
 * .log.gz and from dev-logs.zip (by member path and by model name), must
 * give the record counts of the files and the totals the reference
 * simulator reports (baseline compute = sum of op times, constant memory).
 * Skipped (77) when ../shared is absent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"
#include "test-common.h"

struct expect {
	const char *gz, *member, *model;
	uint64_t records[REC_KIND_COUNT]; /* ANNOTATE CONSTANT MEMORY ALIAS CALL MUTATE COPY COPY_FROM RELEASE */
	size_t ops, forward, backward, constants, tensors, storages;
	int64_t total_compute;
	uint64_t const_memory, max_output;
	uint64_t baseline_memory, bottleneck; /* simrd's, from ../shared/reference */
};

static const struct expect logs[] = {
	{"dtr-logs/resnet32-56-9000000000.0-2020-10-1-13-3-30-default.log.gz",
	 "logs/resnet32-56-9000000000.0-2020-10-1-13-3-30-default.log", "ResNet-32 (56)",
	 {2, 223, 696, 473, 286, 0, 842, 0, 1255}, 509, 155, 131, 223, 696, 680,
	 291905487, 35584920, 179849216, 10061179152u, 539510784},
	{"dtr-logs/transformer-10-8000000000.0-2020-10-1-10-56-5-default.log.gz",
	 "logs/transformer-10-8000000000.0-2020-10-1-10-56-5-default.log", "Transformer (10)",
	 {2, 333, 3367, 3034, 2731, 90, 3113, 0, 5968}, 3154, 1157, 1664, 333, 3457, 1904,
	 276259118, 263197248, 209715200, 9864405000u, 671088640},
	{"dtr-logs/unet-6-8000000000.0-2020-10-1-10-57-18-default.log.gz",
	 "logs/unet-6-8000000000.0-2020-10-1-10-57-18-default.log", "U-Net (6)",
	 {2, 152, 475, 323, 210, 37, 578, 0, 851}, 399, 12, 235, 152, 512, 466,
	 435278292, 93386276, 777289728, 8415764640u, 1943076864},
};

static void check_one(const struct expect *e, const char *spec, const uint8_t *digest)
{
	struct schedule *s;
	struct rs_error err;
	struct read_options opt = {.digest = true};
	ck_assert_msg(schedule_read(spec, &opt, &s, &err) == 0, "%s: %s", spec, err.msg);
	for (int k = 0; k < REC_KIND_COUNT; k++)
		ck_assert_msg(s->records[k] == e->records[k], "%s: %s count %llu, want %llu", spec,
			      record_kind_name((enum record_kind)k), (unsigned long long)s->records[k],
			      (unsigned long long)e->records[k]);
	ck_assert(s->has_start && !s->from_start);
	ck_assert_uint_eq(s->n_ops, e->ops);
	ck_assert_uint_eq(s->n_forward_ops, e->forward);
	ck_assert_uint_eq(s->n_backward_ops, e->backward);
	ck_assert_uint_eq(s->n_constants, e->constants);
	ck_assert_uint_eq(s->n_tensors, e->tensors);
	ck_assert_uint_eq(s->n_storages, e->storages);
	ck_assert_int_eq(s->total_compute, e->total_compute);
	ck_assert_uint_eq(s->const_memory, e->const_memory);
	ck_assert_uint_eq(s->max_output_size, e->max_output);
	/* ops = CALL + MUTATE + CONSTANT records after START */
	ck_assert_uint_eq(s->n_ops, e->records[REC_CALL] + e->records[REC_MUTATE] + e->records[REC_CONSTANT]);
	if (digest)
		ck_assert_mem_eq(s->sha256, digest, 32);
	struct baseline b;
	baseline_run(s, &b);
	ck_assert_uint_eq(b.memory, e->baseline_memory);
	ck_assert_int_eq(b.compute, e->total_compute);
	ck_assert_uint_eq(b.const_memory, e->const_memory);
	ck_assert_uint_eq(b.bottleneck_memory, e->bottleneck);
	schedule_free(s);
}

START_TEST(paper_logs)
{
	const struct expect *e = &logs[_i];
	char gz[4096], zip[4096], spec[8192];
	shared_path(gz, sizeof gz, e->gz);
	check_one(e, gz, NULL);
	struct schedule *s;
	struct rs_error err;
	struct read_options opt = {.digest = true};
	ck_assert_int_eq(schedule_read(gz, &opt, &s, &err), 0);
	uint8_t digest[32];
	memcpy(digest, s->sha256, 32);
	schedule_free(s);
	shared_path(zip, sizeof zip, "dtr-logs/dev-logs.zip");
	snprintf(spec, sizeof spec, "%s:%s", zip, e->member);
	check_one(e, spec, digest);
	snprintf(spec, sizeof spec, "%s:%s", zip, e->model);
	check_one(e, spec, digest);
}
END_TEST

START_TEST(from_start_replays_everything)
{
	char gz[4096];
	shared_path(gz, sizeof gz, logs[2].gz);
	struct schedule *s;
	struct rs_error err;
	struct read_options opt = {.from_start = true};
	ck_assert_int_eq(schedule_read(gz, &opt, &s, &err), 0);
	ck_assert(s->from_start);
	ck_assert_uint_eq(s->skipped_lines, 0);
	ck_assert_uint_eq(s->n_ops, logs[2].ops); /* START is the first line */
	schedule_free(s);
}
END_TEST

int main(void)
{
	if (!shared_dir()) {
		fprintf(stderr, "no ../shared data: skipped\n");
		return EXIT_SKIP;
	}
	Suite *s = suite_create("logs");
	TCase *tc = tcase_create("paper");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, paper_logs, 0, 3);
	tcase_add_test(tc, from_start_replays_everything);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
