/* test-common.c: see test-common.h. */
#include "test-common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
