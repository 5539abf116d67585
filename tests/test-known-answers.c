/*
 * test-known-answers.c: rule-named tables of worked answers for code that
 * only a slow oracle or a command-line script used to check, each row
 * chosen so that a one-line change to the rule it names changes its
 * answer, and a failure names the rule (as tests/data/replay-cases.tsv
 * does for the runtime):
 *
 *  - tests/data/known-answers-budget.tsv: a point's budget (point_budget,
 *    sim/lib/runtime/runtime.h), floor(baseline memory * ratio) in double, and
 *    point_runtime_config giving it to the runtime;
 *  - tests/data/known-answers-graph.tsv: a node-link graph's ops in simrd's
 *    depth-first order (sim/lib/read/graph.c), roots in ascending id order
 *    whatever order the nodes are listed in;
 *  - the util layer's shell quoting (shell_quote): worked answers, and
 *    every word read back whole by /bin/sh; read_whole_file_limit at and
 *    past its limit; intern's first-sight order.
 *
 * Each table is read whole; every row that fails is reported, not only
 * the first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime.h"
#include "test-common.h"

/* Splits a table line in place into at most max tab-separated fields;
 * returns how many. */
static int fields(char *line, char **f, int max)
{
	int n = 0;
	line[strcspn(line, "\n")] = 0;
	for (char *p = line, *tab; n < max; p = tab + 1) {
		f[n++] = p;
		if (!(tab = strchr(p, '\t')))
			break;
		*tab = 0;
	}
	return n;
}

/* Appends "\nTABLE line N: breaks the rule "RULE": WHAT" to fails. */
static void failed(char *fails, size_t cap, const char *table, int line, const char *rule,
		   const char *what)
{
	size_t at = strlen(fails);
	snprintf(fails + at, cap - at, "\n%s line %d: breaks the rule \"%.400s\": %.2400s", table, line, rule, what);
}

START_TEST(budget_table)
{
	static char fails[8192];
	fails[0] = 0;
	FILE *f = open_test_data("known-answers-budget.tsv");
	char buf[1024];
	int line = 0, rows = 0;
	while (fgets(buf, sizeof buf, f)) {
		line++;
		if (buf[0] == '#' || buf[0] == '\n')
			continue;
		char *fld[5];
		ck_assert_msg(fields(buf, fld, 5) == 5, "known-answers-budget.tsv line %d: want 5 fields", line);
		struct baseline b = {.memory = strtoull(fld[1], NULL, 10), .compute = 100};
		struct point_config pc = {
			.ratio = strtod(fld[2], NULL),
			.budget = strtoull(fld[3], NULL, 10),
			.overhead_limit = 2,
		};
		uint64_t want = strtoull(fld[4], NULL, 10), got = point_budget(&b, &pc);
		uint64_t given = point_runtime_config(&b, &pc).budget;
		char what[256];
		if (got != want || given != want) {
			snprintf(what, sizeof what, "point_budget %llu, point_runtime_config %llu, want %llu",
				 (unsigned long long)got, (unsigned long long)given, (unsigned long long)want);
			failed(fails, sizeof fails, "known-answers-budget.tsv", line, fld[0], what);
		}
		rows++;
	}
	fclose(f);
	ck_assert_msg(!fails[0], "%s", fails);
	ck_assert_int_ge(rows, 8);
}
END_TEST

START_TEST(graph_table)
{
	static char fails[8192];
	fails[0] = 0;
	FILE *f = open_test_data("known-answers-graph.tsv");
	static char buf[1 << 14];
	int line = 0, rows = 0;
	while (fgets(buf, sizeof buf, f)) {
		line++;
		if (buf[0] == '#' || buf[0] == '\n')
			continue;
		char *fld[3];
		ck_assert_msg(fields(buf, fld, 3) == 3, "known-answers-graph.tsv line %d: want 3 fields", line);
		struct schedule *s = NULL;
		struct read_options ro = {0};
		struct rs_error err = {0};
		if (schedule_parse("known.json", fld[1], strlen(fld[1]), &ro, &s, &err)) {
			failed(fails, sizeof fails, "known-answers-graph.tsv", line, fld[0], err.msg);
			continue;
		}
		char got[1024] = "";
		size_t n = 0;
		for (size_t i = 0; i < s->n_cmds && n < sizeof got; i++)
			if (s->cmds[i].kind == CMD_COMPUTE)
				n += (size_t)snprintf(got + n, sizeof got - n, "%s%s", n ? " " : "",
						      schedule_str(s, s->ops[s->cmds[i].id].name));
		if (strcmp(got, fld[2])) {
			char what[2300];
			snprintf(what, sizeof what, "the ops run %s, want %s", got, fld[2]);
			failed(fails, sizeof fails, "known-answers-graph.tsv", line, fld[0], what);
		}
		schedule_free(s);
		rows++;
	}
	fclose(f);
	ck_assert_msg(!fails[0], "%s", fails);
	ck_assert_int_ge(rows, 3);
}
END_TEST

/* Each row: a word, and how shell_quote writes it (rule-named). */
START_TEST(shell_quote_table)
{
	static const struct {
		const char *rule, *word, *want;
	} rows[] = {
		{"a word of allowed bytes stays bare", "out/run-1_a.b+c=d:e,f@g%h", "out/run-1_a.b+c=d:e,f@g%h"},
		{"an empty word is ''", "", "''"},
		{"a space is quoted", "a b", "'a b'"},
		{"$ and ` are quoted (no expansion, no command)", "$(rm -rf x)`id`", "'$(rm -rf x)`id`'"},
		{"a quote closes, is escaped, reopens", "it's", "'it'\\''s'"},
		{"~ is quoted (no home-folder expansion): an allow-list, not a deny-list", "~root", "'~root'"},
		{"! is quoted (no history expansion)", "a!b", "'a!b'"},
		{"a glob is quoted", "*.yaml", "'*.yaml'"},
		{"a newline is quoted", "a\nb", "'a\nb'"},
		{"a byte past ASCII is quoted", "caf\xc3\xa9", "'caf\xc3\xa9'"},
		{"; & | < > are quoted", "a;b&c|d<e>f", "'a;b&c|d<e>f'"},
	};
	static char fails[8192];
	fails[0] = 0;
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		char *got = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&got, &len);
		shell_quote(f, rows[i].word);
		fclose(f);
		size_t at = strlen(fails);
		if (strcmp(got, rows[i].want))
			snprintf(fails + at, sizeof fails - at, "\nbreaks the rule \"%s\": %s, want %s", rows[i].rule,
				 got, rows[i].want);
		/* and the shell reads the word back whole, expanding nothing */
		char cmd[1024];
		snprintf(cmd, sizeof cmd, "printf '%%s' %s", got);
		FILE *p = popen(cmd, "r");
		ck_assert_ptr_nonnull(p);
		char back[1024];
		size_t n = fread(back, 1, sizeof back - 1, p);
		back[n] = 0;
		ck_assert_int_eq(pclose(p), 0);
		at = strlen(fails);
		if (strcmp(back, rows[i].word))
			snprintf(fails + at, sizeof fails - at, "\nbreaks the rule \"%s\": the shell read %s back as %s",
				 rows[i].rule, got, back);
		free(got);
	}
	ck_assert_msg(!fails[0], "%s", fails);
}
END_TEST

/* read_whole_file_limit: a file of exactly the limit reads; one byte
 * more is refused (65, naming the limit); no limit reads it all. */
START_TEST(read_limit)
{
	char path[] = "/tmp/rematsim-known-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "0123456789", 10), 10);
	close(fd);
	char *data;
	size_t len;
	struct rs_error err = {0};
	ck_assert_int_eq(read_whole_file_limit(path, 10, &data, &len, &err), 0);
	ck_assert_uint_eq(len, 10);
	ck_assert_str_eq(data, "0123456789");
	free(data);
	ck_assert_int_eq(read_whole_file_limit(path, 9, &data, &len, &err), -1);
	ck_assert_int_eq(err.status, EXIT_DATAERR);
	ck_assert_ptr_nonnull(strstr(err.msg, "more than 9 bytes"));
	ck_assert_ptr_null(data);
	ck_assert_int_eq(read_whole_file(path, &data, &len, &err), 0);
	ck_assert_uint_eq(len, 10);
	free(data);
	unlink(path);
	ck_assert_int_eq(read_whole_file_limit(path, 10, &data, &len, &err), -1);
	ck_assert_int_eq(err.status, EXIT_NOINPUT);
}
END_TEST

/* intern: names in order of first sight, each once. */
START_TEST(intern_order)
{
	char **names = NULL;
	size_t n = 0, cap = 0;
	const char *seq[] = {"b", "a", "b", "c", "a"};
	const size_t want[] = {0, 1, 0, 2, 1};
	for (size_t i = 0; i < 5; i++)
		ck_assert_uint_eq(intern(&names, &n, &cap, seq[i]), want[i]);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(names[0], "b");
	ck_assert_str_eq(names[2], "c");
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("known-answers");
	TCase *tc = tcase_create("tables");
	tcase_add_test(tc, budget_table);
	tcase_add_test(tc, graph_table);
	tcase_add_test(tc, shell_quote_table);
	tcase_add_test(tc, read_limit);
	tcase_add_test(tc, intern_order);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
