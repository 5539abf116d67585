/*
 * text.c: numbers and names as text (util.h): the shortest exact text of a
 * double (JSON, TSV, figure data), the nearest name of a list for "did
 * you mean" hints (heuristics, runtimes), UTF-8 checks (names from a
 * command line or a file system are bytes; JSON and figures need UTF-8),
 * and words quoted for a shell.
 */
#include "util.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *nearest_name(const char *name, const char *const *names, size_t n)
{
	enum { MAXLEN = 64 };
	size_t la = strlen(name);
	/* A name that begins another (in any case, three characters at
	 * least): the shortest such, before any spelling distance ("DTReq":
	 * DTREqClass, not DTR; "DenseNet-121": "DenseNet-121 (84)"). */
	const char *prefix = NULL;
	for (size_t k = 0; k < n; k++) /* the name itself, in another case */
		if (!strcasecmp(names[k], name))
			return names[k];
	for (size_t k = 0; la >= 3 && k < n; k++)
		if (strlen(names[k]) > la && !strncasecmp(names[k], name, la) &&
		    (!prefix || strlen(names[k]) < strlen(prefix)))
			prefix = names[k];
	if (prefix)
		return prefix;
	if (la >= MAXLEN)
		return NULL;
	const char *best = NULL;
	size_t best_d = SIZE_MAX;
	for (size_t k = 0; k < n; k++) {
		size_t lb = strlen(names[k]);
		if (lb >= MAXLEN)
			continue;
		/* Levenshtein distance, one row at a time */
		size_t row[MAXLEN + 1];
		for (size_t j = 0; j <= lb; j++)
			row[j] = j;
		for (size_t i = 1; i <= la; i++) {
			size_t diag = row[0];
			row[0] = i;
			for (size_t j = 1; j <= lb; j++) {
				size_t up = row[j];
				bool same = tolower((unsigned char)name[i - 1]) ==
					    tolower((unsigned char)names[k][j - 1]);
				size_t v = diag + !same;
				if (up + 1 < v)
					v = up + 1;
				if (row[j - 1] + 1 < v)
					v = row[j - 1] + 1;
				row[j] = v;
				diag = up;
			}
		}
		if (row[lb] < best_d) {
			best_d = row[lb];
			best = names[k];
		}
	}
	size_t limit = la / 3 > 2 ? la / 3 : 2;
	return best_d <= limit ? best : NULL;
}

/* Whether x printed with p significant digits reads back as x. */
static bool reads_back(char buf[FMT_DOUBLE_LEN], double x, int p)
{
	if (p < 1 || p > 17)
		rs_bug("reads_back: %d digits", p); /* (and the text fits FMT_DOUBLE_LEN) */
	snprintf(buf, FMT_DOUBLE_LEN, "%.*g", p, x);
	return strtod(buf, NULL) == x;
}

/* The definition: the first p from 1 that reads back (17 always does). */
char *fmt_double_linear(char buf[FMT_DOUBLE_LEN], double x)
{
	for (int p = 1; p <= 17; p++)
		if (reads_back(buf, x, p) || !isfinite(x))
			break;
	return buf;
}

char *fmt_double(char buf[FMT_DOUBLE_LEN], double x)
{
	/* whole numbers as such: 10, not 1e+01 */
	if (x == floor(x) && fabs(x) < 1e15) {
		snprintf(buf, FMT_DOUBLE_LEN, "%.0f", x);
		return buf;
	}
	int e;
	if (!isfinite(x) || fabs(frexp(x, &e)) == 0.5)
		return fmt_double_linear(buf, x);
	/*
	 * The same p found by bisection (4 or 5 printf/strtod pairs, not up
	 * to 17): when p digits read back, so do p + 1. The p + 1 digit
	 * rounding is at least as close to x as the p digit one (which is
	 * also a p + 1 digit decimal), and the decimals that read back as x
	 * are an interval centred on x, except when x is a power of two (the
	 * gap below it is half the gap above), which takes the linear search.
	 */
	int lo = 0, hi = 17; /* lo: does not read back (0: none); hi: does */
	while (hi - lo > 1) {
		int mid = (lo + hi) / 2;
		if (reads_back(buf, x, mid))
			hi = mid;
		else
			lo = mid;
	}
	reads_back(buf, x, hi);
	return buf;
}

size_t rs_utf8_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	if (p[0] < 0x80)
		return 1;
	size_t n;
	uint32_t cp, min;
	if ((p[0] & 0xe0) == 0xc0) {
		n = 2, cp = p[0] & 0x1f, min = 0x80;
	} else if ((p[0] & 0xf0) == 0xe0) {
		n = 3, cp = p[0] & 0x0f, min = 0x800;
	} else if ((p[0] & 0xf8) == 0xf0) {
		n = 4, cp = p[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80) /* (also stops at the NUL) */
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

char *rs_utf8_clean(const char *s)
{
	char *out = xmalloc(strlen(s) * 3 + 1), *w = out;
	while (*s) {
		size_t n = rs_utf8_len(s);
		if (n) {
			memcpy(w, s, n);
			w += n;
			s += n;
		} else {
			memcpy(w, "\xef\xbf\xbd", 3); /* U+FFFD REPLACEMENT CHARACTER */
			w += 3;
			s++;
		}
	}
	*w = 0;
	return out;
}

char *rs_meta_path(const char *path)
{
	size_t n = strlen(path);
	char *p = xmalloc(n + sizeof ".meta.json");
	memcpy(p, path, n + 1);
	if (n >= 3 && !strcmp(p + n - 3, ".gz"))
		p[n -= 3] = '\0';
	if (n >= 4 && !strcmp(p + n - 4, ".log"))
		p[n -= 4] = '\0';
	strcpy(p + n, ".meta.json");
	return p;
}

/* ---- control characters in text output (issue 40, H14) ---- */

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* The escape of control character c into out (5 bytes at most): \t, \n,
 * \r or \xHH; its length. */
static int control_escape(unsigned char c, char out[5])
{
	if (c == '\t' || c == '\n' || c == '\r') {
		out[0] = '\\';
		out[1] = c == '\t' ? 't' : c == '\n' ? 'n' : 'r';
		return 2;
	}
	snprintf(out, 5, "\\x%02x", c);
	return 4;
}

#define SAFE_SLOTS 8
#define SAFE_LEN 4104 /* an rs_error message (1 KiB), each byte escaped */

static const char *text_safe(const char *s, bool keep_newlines)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p && !(is_control(*p) && !(keep_newlines && *p == '\n')))
		p++;
	if (!*p)
		return s; /* the usual case: as it is, no copy */
	static _Thread_local char buf[SAFE_SLOTS][SAFE_LEN];
	static _Thread_local unsigned next;
	char *out = buf[next++ % SAFE_SLOTS];
	size_t n = 0;
	for (p = (const unsigned char *)s; *p; p++) {
		char esc[5];
		int k = is_control(*p) && !(keep_newlines && *p == '\n') ? control_escape(*p, esc) : (esc[0] = (char)*p, 1);
		if (n + (size_t)k > SAFE_LEN - 4) {
			memcpy(out + n, "...", 3); /* (cut: a name this long is no name) */
			n += 3;
			break;
		}
		memcpy(out + n, esc, (size_t)k);
		n += (size_t)k;
	}
	out[n] = 0;
	return out;
}

const char *rs_text_safe(const char *s)
{
	return text_safe(s, false);
}

const char *rs_text_safe_lines(const char *s)
{
	return text_safe(s, true);
}

void shell_quote(FILE *f, const char *s)
{
	if (*s && !s[strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				"0123456789/._-+=:,@%")]) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	fputc('\'', f);
}
