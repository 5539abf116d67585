/*
 * gptext.c: see gptext.h. Every string goes out as single-quoted runs;
 * a control byte, or a quote that would open a run, breaks the run and
 * goes out alone as a double-quoted octal escape, the one thing double
 * quotes ever hold here.
 */
#include "gptext.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

void gptext_string(FILE *f, const char *s)
{
	bool open = false; /* inside a single-quoted run */
	bool any = false;  /* a piece was written (a '.' goes before the next) */
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		/* (gnuplot reads ''' as an empty string and a quote: a run
		 * never starts with a quote) */
		if (is_control(*p) || (*p == '\'' && !open)) {
			if (open)
				fputc('\'', f);
			open = false;
			fprintf(f, "%s\"\\%03o\"", any ? "." : "", *p);
			any = true;
			continue;
		}
		if (!open) {
			if (any)
				fputc('.', f);
			fputc('\'', f);
			open = any = true;
		}
		if (*p == '\'')
			fputc('\'', f);
		fputc(*p, f);
	}
	if (open)
		fputc('\'', f);
	else if (!any)
		fputs("''", f);
}

static size_t utf8_len(const unsigned char *p)
{
	return rs_utf8_len((const char *)p);
}

/* Write to m the markup that shows the one character at *pp, and step
 * past it. */
static void put_markup_char(FILE *m, const unsigned char **pp)
{
	const unsigned char *p = *pp;
	size_t n = utf8_len(p);
	if (n == 0) {
		fputs("\xef\xbf\xbd", m); /* U+FFFD REPLACEMENT CHARACTER */
		*pp = p + 1;
		return;
	}
	if (n == 1 && is_control(*p))
		fputc(' ', m);
	else if (*p == '&')
		fputs("\\046", m); /* (the SVG terminal copies "\&" raw: no XML) */
	else if (n == 1 && strchr("^_@~{}\\", *p))
		fprintf(m, "\\%c", *p);
	else
		fwrite(p, 1, n, m);
	*pp = p + n;
}

/*
 * Write markup (lines joined by '\n') as a string, each line that holds an
 * escape opened with an empty group "{}": the cairo terminals draw a line
 * as enhanced text only when it holds a character of "{}^_@&~", so that
 * "a\\b" alone would be drawn with both backslashes ("\\046" as is).
 */
static void put_markup(FILE *f, const char *markup)
{
	char *text = NULL;
	size_t len = 0;
	FILE *t = open_memstream(&text, &len);
	if (!t)
		rs_out_of_memory(0);
	for (const char *line = markup;;) {
		size_t n = strcspn(line, "\n");
		if (memchr(line, '\\', n))
			fputs("{}", t);
		fwrite(line, 1, n, t);
		if (!line[n])
			break;
		fputc('\n', t);
		line += n + 1;
	}
	fclose(t);
	gptext_string(f, text);
	free(text);
}

void gptext_enhanced(FILE *f, const char *s)
{
	char *markup = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&markup, &len);
	if (!m)
		rs_out_of_memory(0);
	for (const unsigned char *p = (const unsigned char *)s; *p;)
		put_markup_char(m, &p);
	fclose(m);
	put_markup(f, markup);
	free(markup);
}

static bool is_space(unsigned char c)
{
	return c == ' ' || (c && is_control(c)); /* a control character is shown as one */
}

int gptext_wrapped(FILE *f, const char *s, size_t width)
{
	char *markup = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&markup, &len);
	if (!m)
		rs_out_of_memory(0);
	int lines = 1;
	size_t col = 0; /* characters on this line */
	const unsigned char *p = (const unsigned char *)s;
	while (is_space(*p))
		p++;
	while (*p) {
		/* the next word: its bytes and its characters */
		size_t wbytes = 0, wchars = 0;
		while (p[wbytes] && !is_space(p[wbytes])) {
			size_t n = utf8_len(p + wbytes);
			wbytes += n ? n : 1;
			wchars++;
		}
		if (width && col > 0 && col + 1 + wchars > width) {
			fputc('\n', m);
			lines++;
			col = 0;
		} else if (col > 0) {
			fputc(' ', m);
			col++;
		}
		for (const unsigned char *end = p + wbytes; p < end;)
			put_markup_char(m, &p);
		col += wchars;
		while (is_space(*p))
			p++;
	}
	fclose(m);
	put_markup(f, markup);
	free(markup);
	return lines;
}

void gptext_comment(FILE *f, const char *s)
{
	size_t n = strlen(s);
	for (size_t i = 0; i < n; i++)
		fputc(is_control((unsigned char)s[i]) ? '?' : s[i], f);
	if (n && s[n - 1] == '\\')
		fputc(' ', f);
}
