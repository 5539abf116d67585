/*
 * fuzz-gptext.c: the text `rematsim plot` writes into gnuplot scripts
 * (sim/exp/gptext.c) must never be interpreted by gnuplot, whatever the
 * name, title or description. For any bytes, each function's output is
 * parsed here by gnuplot's own rules, independently of gptext.c:
 *
 * - one line, made only of single-quoted strings ('' is a quote; nothing
 *   is substituted in them; none starts with '', which gnuplot reads as an
 *   empty string) and double-quoted pieces holding a single octal escape
 *   ("\012", "\047"), joined by '.': so no backquote, macro (@),
 *   comment or command can start outside a single-quoted string, and no
 *   raw control character reaches the script;
 * - its value is the input exactly (gptext_string), or enhanced-mode
 *   markup in which every markup character is escaped, every line with an
 *   escape opens with "{}" (else cairo would not read it), and which shows the
 *   input with control characters as spaces and bad UTF-8 as U+FFFD
 *   (gptext_enhanced), wrapped at spaces into lines no wider than asked
 *   unless one word is (gptext_wrapped);
 * - a comment holds no control character and does not end in a backslash.
 *
 * The first byte picks the function and the width; the rest is the text.
 * libFuzzer entry point LLVMFuzzerTestOneInput; FUZZ_STANDALONE adds
 * fuzz-main.h's driver.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gptext.h"

static void fail(const char *what, const char *out)
{
	fprintf(stderr, "fuzz-gptext: %s in: %s\n", what, out);
	abort();
}

/* Parse a gnuplot string expression as gptext writes it; gives its value
 * (*len bytes, NUL-terminated) or aborts. */
static char *parse_expr(const char *out, size_t *len)
{
	size_t n = strlen(out);
	char *v = malloc(n + 1);
	size_t k = 0;
	const char *p = out;
	for (bool first = true; *p; first = false) {
		if (!first) {
			if (*p != '.')
				fail("pieces not joined by '.'", out);
			p++;
		}
		if (*p == '\'') {
			/* gnuplot reads '''x' as '' then 'x' */
			if (p[1] == '\'' && p[2] == '\'')
				fail("a single-quoted string that starts with a quote", out);
			for (p++;; p++) {
				if (!*p)
					fail("an unterminated single-quoted string", out);
				if ((unsigned char)*p < 0x20 || *p == 0x7f)
					fail("a raw control character", out);
				if (*p == '\'') {
					if (p[1] != '\'')
						break;
					p++;
				}
				v[k++] = *p;
			}
			p++;
		} else if (*p == '"') {
			/* exactly "\ooo", of a control character */
			if (p[1] != '\\' || p[5] != '"')
				fail("a double-quoted piece that is not one octal escape", out);
			unsigned c = 0;
			for (int i = 2; i < 5; i++) {
				if (p[i] < '0' || p[i] > '7')
					fail("a bad octal escape", out);
				c = c * 8 + (unsigned)(p[i] - '0');
			}
			if (!(c < 0x20 || c == 0x7f || c == '\'') || c == 0)
				fail("an escape of a printable character", out);
			v[k++] = (char)c;
			p += 6;
		} else {
			fail("text outside quotes", out);
		}
	}
	if (p == out)
		fail("no string at all", out);
	v[k] = 0;
	*len = k;
	return v;
}

/* Undo enhanced-mode escapes; aborts on markup gnuplot would interpret.
 * A line holding an escape must open with an empty group "{}" (the cairo
 * terminals leave a line without "{}^_@&~" as it is: "a\\b" would show
 * two backslashes); no other line may. */
static char *unmarkup(const char *m, const char *out)
{
	char *v = malloc(strlen(m) + 1);
	size_t k = 0;
	for (const char *p = m; *p; p++) {
		if (p == m || p[-1] == '\n') {
			size_t n = strcspn(p, "\n");
			bool group = !strncmp(p, "{}", 2);
			if (group != (memchr(p, '\\', n) != NULL))
				fail(group ? "an empty group on a line without escapes"
					   : "escapes on a line that cairo draws as it is", out);
			if (group)
				p += 2;
			if (!*p)
				break;
		}
		if (*p == '\\') {
			if (!strncmp(p, "\\046", 4)) {
				v[k++] = '&';
				p += 3;
			} else if (p[1] && strchr("^_@~{}\\", p[1])) {
				v[k++] = *++p;
			} else {
				fail("a backslash that escapes nothing", out);
			}
		} else if (strchr("^_@&~{}", *p)) {
			fail("unescaped enhanced-text markup", out);
		} else {
			v[k++] = *p;
		}
	}
	v[k] = 0;
	return v;
}

/* What enhanced text should show for s: control characters as spaces,
 * bytes outside valid UTF-8 as U+FFFD (an independent decoder). */
static char *shown(const unsigned char *s)
{
	char *v = malloc(strlen((const char *)s) * 3 + 1);
	size_t k = 0;
	while (*s) {
		unsigned c = *s;
		size_t n = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3
			 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
		bool ok = n > 0;
		for (size_t i = 1; ok && i < n; i++)
			ok = (s[i] & 0xc0) == 0x80;
		if (ok && n == 3) {
			/* no overlong forms (E0 80..9F), no surrogates (ED A0..BF) */
			ok = !(c == 0xe0 && s[1] < 0xa0) && !(c == 0xed && s[1] >= 0xa0);
		} else if (ok && n == 4) {
			ok = !(c == 0xf0 && s[1] < 0x90) && !(c == 0xf4 && s[1] >= 0x90);
		}
		if (!ok) {
			memcpy(v + k, "\xef\xbf\xbd", 3);
			k += 3;
			s++;
		} else if (n == 1 && (c < 0x20 || c == 0x7f)) {
			v[k++] = ' ';
			s++;
		} else {
			memcpy(v + k, s, n);
			k += n;
			s += n;
		}
	}
	v[k] = 0;
	return v;
}

static size_t chars(const char *s, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

/* s with runs of spaces made one and the ends trimmed */
static void squeeze(char *s)
{
	size_t k = 0;
	for (size_t i = 0; s[i]; i++)
		if (s[i] != ' ' || (k > 0 && s[k - 1] != ' '))
			s[k++] = s[i];
	while (k > 0 && s[k - 1] == ' ')
		k--;
	s[k] = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned mode = data[0] % 4;
	size_t width = data[0] / 4 % 40; /* 0: unwrapped */
	char *text = malloc(size);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = 0; /* (stops at the first NUL: C strings) */

	char *out = NULL;
	size_t out_len = 0;
	FILE *f = open_memstream(&out, &out_len);
	int lines = 0;
	switch (mode) {
	case 0: gptext_string(f, text); break;
	case 1: gptext_enhanced(f, text); break;
	case 2: lines = gptext_wrapped(f, text, width); break;
	case 3: gptext_comment(f, text); break;
	}
	fclose(f);
	if (strlen(out) != out_len)
		fail("a NUL written", out);

	if (mode == 3) {
		for (size_t i = 0; i < out_len; i++)
			if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
				fail("a control character in a comment", out);
		if (out_len && out[out_len - 1] == '\\')
			fail("a comment that ends in a backslash", out);
	} else {
		size_t vlen;
		char *value = parse_expr(out, &vlen);
		if (mode == 0) {
			if (strcmp(value, text))
				fail("a value that is not the input", out);
		} else {
			char *plain = unmarkup(value, out);
			char *want = shown((const unsigned char *)text);
			if (mode == 1) {
				if (strcmp(plain, want))
					fail("enhanced text that does not show the input", out);
			} else {
				/* lines: none empty, none wider than asked unless one word */
				int n = 1;
				for (char *l = plain;; n++) {
					char *nl = strchr(l, '\n');
					size_t ll = nl ? (size_t)(nl - l) : strlen(l);
					if (width && chars(l, ll) > width && memchr(l, ' ', ll))
						fail("a wrapped line wider than asked", out);
					if (nl && ll == 0)
						fail("an empty wrapped line", out);
					if (!nl)
						break;
					*nl = ' ';
					l = nl + 1;
				}
				if (n != lines)
					fail("a line count that is not the lines written", out);
				if (!width && lines != 1)
					fail("a wrap without a width", out);
				squeeze(want);
				if (strcmp(plain, want))
					fail("wrapped text that does not show the input", out);
			}
			free(plain);
			free(want);
		}
		free(value);
	}
	free(out);
	free(text);
	return 0;
}

#ifdef FUZZ_STANDALONE
#define FUZZ_DICT "'\"`$()@\\\n\r\t{}_^&~ .#!;\x7f\xc3\xa9\xe2\x82\xac\xed\xa0\x80\xff"
#include "fuzz-main.h"
#endif
