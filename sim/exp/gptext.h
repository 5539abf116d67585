/*
 * gptext.h: text written into the gnuplot scripts of the figures
 * (figure.gp), passed so that gnuplot never interprets it.
 *
 * Names, titles and descriptions come from the user's files (a manifest's
 * `desc`, a hand-edited models.tsv, a series name in YAML), and gnuplot
 * runs commands from its input: backquotes are substituted inside
 * double-quoted strings, `@name` expands a macro outside quotes, a raw
 * newline ends a command (the next line may be `system "..."` or `!cmd`),
 * and a comment ending in a backslash swallows the next line.
 *
 * Invariant of everything written here: single-quoted strings only (no
 * substitution of any kind happens in them; a quote is doubled), control
 * characters only as octal escapes in short double-quoted pieces that hold
 * nothing else ("\012"; also a quote that would open a single-quoted
 * string, which gnuplot misreads: ''' is '' and '), pieces joined with
 * gnuplot's `.`; no raw byte
 * below 0x20 or 0x7f ever reaches the script. tests/fuzz/fuzz-gptext.c
 * decodes what these functions write and checks both.
 */
#ifndef REMATSIM_GPTEXT_H
#define REMATSIM_GPTEXT_H

#include <stddef.h>
#include <stdio.h>

/**
 * Write a gnuplot string expression whose value is exactly the bytes of s
 * (any bytes but NUL): 'it''s' for "it's", 'a'."\011".'b' for a tab.
 */
void gptext_string(FILE *f, const char *s);

/**
 * s as enhanced-mode text (the cairo and SVG terminals' `enhanced`) that
 * shows s literally, as a gnuplot string expression: the markup characters
 * ^ _ @ ~ { } \ escaped with a backslash, & as the octal escape \046 (the
 * SVG terminal writes an escaped & raw, which is not XML), and an empty
 * group "{}" first when there is an escape (the cairo terminals read a
 * line as enhanced text only if it holds one of {}^_@&~); control
 * characters (no glyph: a tab, a newline) shown as a space, and a byte
 * that is not part of valid UTF-8 as U+FFFD, so that the terminals get
 * text they can draw.
 */
void gptext_enhanced(FILE *f, const char *s);

/**
 * As gptext_enhanced, wrapped at spaces into lines of at most width
 * characters (UTF-8 characters, not bytes; 0: one line) joined by
 * newlines. Returns the number of lines.
 */
int gptext_wrapped(FILE *f, const char *s, size_t width);

/**
 * s inside a `#` comment: control characters shown as '?', and a space
 * after a trailing backslash (which would continue the comment onto the
 * next line). The caller writes the '#' and the end of the line.
 */
void gptext_comment(FILE *f, const char *s);

#endif
