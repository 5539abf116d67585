/*
 * test-jsonl.c: the reader's line decoder. Its fast path (plain strings,
 * integers, arrays, one flat object) must give exactly the tree jansson
 * gives, and every other line must go through jansson, errors included.
 * Checked on hand-picked lines and on 200,000 seeded mutations of real
 * records (byte flips into quotes, digits, brackets, escapes, high bytes,
 * spaces; deletions; duplications).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonl.h"
#include "test-common.h"

/* Equal as the reader sees values: objects by what each key looks up to
 * (a repeated key: the last value, as jansson keeps it), arrays in order. */
static bool same(const struct jv *a, const struct jv *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case JV_INT:
		return a->u.i == b->u.i;
	case JV_REAL:
		return a->u.d == b->u.d;
	case JV_STRING:
		return !strcmp(a->u.s, b->u.s);
	case JV_ARRAY:
		if (a->n != b->n)
			return false;
		for (uint32_t i = 0; i < a->n; i++)
			if (!same(&a->u.items[i], &b->u.items[i]))
				return false;
		return true;
	case JV_OBJECT:
		for (int side = 0; side < 2; side++) {
			const struct jv *x = side ? b : a, *y = side ? a : b;
			for (uint32_t i = 0; i < x->n; i++) {
				const struct jv *vy = jv_get(y, x->u.items[i].key);
				if (!vy || !same(jv_get(x, x->u.items[i].key), vy))
					return false;
			}
		}
		return true;
	default:
		return true;
	}
}

/* Both decoders on one line: the same tree, or the same error. */
static void agree(const char *line, size_t len)
{
	struct jv_doc fast = {0}, slow = {0};
	int cf = -1, cs = -1;
	char mf[256] = "", ms[256] = "";
	int rf = jv_parse(&fast, line, len, &cf, mf, sizeof mf);
	int rs = jv_parse_jansson(&slow, line, len, &cs, ms, sizeof ms);
	ck_assert_msg(rf == rs, "'%.*s': fast %d, jansson %d (%s)", (int)len, line, rf, rs, rf ? mf : ms);
	if (rf)
		ck_assert_msg(cf == cs && !strcmp(mf, ms), "'%.*s': %d %s vs %d %s", (int)len, line, cf, mf, cs, ms);
	else
		ck_assert_msg(same(fast.root, slow.root), "'%.*s': trees differ", (int)len, line);
	jv_doc_free(&fast);
	jv_doc_free(&slow);
}

static const char *lines[] = {
	"{\"ARGS\":[\"x7973\",\"x7691\"],\"INSTRUCTION\":\"CALL\",\"NAME\":\"cudnn_convolution\",\"RESULT\":[\"x7977\"],\"TIME\":\"733881\"}",
	"{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"25690112\",\"NAME\":\"x7977\"}",
	"{\"ALIAS\":\"-1\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"x7977\"}",
	"{\"ARGS\":[\"x5471\",\"x5473\"],\"INSTRUCTION\":\"MUTATE\",\"MUTATE\":[0],\"NAME\":\"add_\",\"TIME\":\"2689120\"}",
	"{\"DST\":\"x7691\",\"INSTRUCTION\":\"COPY\",\"SRC\":\"x7690\"}",
	"{\"ANNOTATION\":\"START\",\"INSTRUCTION\":\"ANNOTATE\"}",
	"{}", "[]", "[1,2]", "\"s\"", "7", "-0", "{\"a\":[]}", " { \"a\" : [ 1 , -2 ] , \"b\" : \"c\" } ",
	"{\"a\":1,\"a\":2}", "{\"a\":\"\\u00e9\"}", "{\"a\":\"caf\xc3\xa9\"}", "{\"a\":1.5}", "{\"a\":1e3}",
	"{\"a\":true,\"b\":false,\"c\":null}", "{\"a\":{\"b\":1}}", "{\"a\":[[1]]}", "{\"a\":[{}]}",
	"{\"a\":123456789012345678}", "{\"a\":1234567890123456789}", "{\"a\":99999999999999999999}",
	"{\"a\":-123456789012345678}", "{\"a\":01}", "{\"a\":1}x", "{\"a\":1", "{\"a\" 1}", "{a:1}",
	"{\"a\":\"x\\\"y\"}", "{\"a\":\"\\u0000\"}", "{\"a\":\"\xff\"}", "{\"a\":\"tab\there\"}", "{,}",
	"{\"a\":1,}", "[1,]", "{\"a\":-}", "{\"a\":--1}", "{\"a\":+1}", "", " ", "{\"\":1}",
};

START_TEST(fixed)
{
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
		agree(lines[i], strlen(lines[i]));
}
END_TEST

START_TEST(fast_path_taken)
{
	/* Typical records must not need jansson: its output would still be
	 * right, but the reader would be slow again. */
	for (size_t i = 0; i < 6; i++) {
		struct jv_doc d = {0};
		int c;
		char m[64];
		ck_assert_int_eq(jv_parse(&d, lines[i], strlen(lines[i]), &c, m, sizeof m), 0);
		ck_assert_msg(d.fast, "line %zu took jansson's path: %s", i, lines[i]);
		ck_assert_str_eq(jv_str(jv_get(d.root, "INSTRUCTION")) ? "ok" : "no", "ok");
		jv_doc_free(&d);
	}
	/* ... and what it leaves to jansson goes there (an escape, a real). */
	static const char *const slow[] = {"{\"a\":\"x\\\"y\"}", "{\"a\":1.5}"};
	for (size_t i = 0; i < 2; i++) {
		struct jv_doc d = {0};
		int c;
		char m[64];
		ck_assert_int_eq(jv_parse(&d, slow[i], strlen(slow[i]), &c, m, sizeof m), 0);
		ck_assert_msg(!d.fast, "%s took the fast path", slow[i]);
		jv_doc_free(&d);
	}
}
END_TEST

static uint64_t rng = 0x2026113012345ULL;
static uint32_t rnd(uint32_t n)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)((rng >> 33) % n);
}

START_TEST(mutations)
{
	static const char pick[] = "\"\\[]{}:,0123456789-+.eE \t\xc3\xa9\xff" "axu";
	char buf[512];
	for (int k = 0; k < 200000; k++) {
		const char *src = lines[rnd(6)];
		size_t len = strlen(src);
		memcpy(buf, src, len);
		for (int m = 0, nm = 1 + (int)rnd(3); m < nm && len > 0; m++) {
			size_t at = rnd((uint32_t)len);
			switch (rnd(3)) {
			case 0:
				buf[at] = pick[rnd(sizeof pick - 1)];
				break;
			case 1:
				memmove(buf + at, buf + at + 1, len - at - 1);
				len--;
				break;
			default:
				if (len < sizeof buf - 1) {
					memmove(buf + at + 1, buf + at, len - at);
					buf[at] = pick[rnd(sizeof pick - 1)];
					len++;
				}
			}
		}
		agree(buf, len);
	}
}
END_TEST

int main(void)
{
	Suite *su = suite_create("jsonl");
	TCase *tc = tcase_create("jsonl");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, fixed);
	tcase_add_test(tc, fast_path_taken);
	tcase_add_test(tc, mutations);
	suite_add_tcase(su, tc);
	return run_suite(su);
}
