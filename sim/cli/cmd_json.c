/*
 * cmd_json.c: unsigned 64-bit values in the commands' JSON. jansson's
 * integers are signed (json_int_t), so a budget of 2^64 - 1 came out as
 * -1. cmd_json_u64 gives such a value as a marked string that no C string
 * of a user's can produce (it starts with a NUL, which jansson writes as
 * \u0000), and cmd_json_text turns each mark in dumped text back into the
 * number, so that the rest of each command's JSON is written as before.
 * Also put_json_line, the one-object-per-line writer that replay, measured
 * and snapshot share (a helper of the commands, not a command's own code:
 * commands do not call each other, tests/cli-calls.sh).
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "util.h"

#define MARK "\"\\u0000u64:" /* as json_dumps writes the mark */

json_t *cmd_json_u64(uint64_t v)
{
	if (v <= (uint64_t)INT64_MAX)
		return json_integer((json_int_t)v);
	char b[32];
	b[0] = 0;
	int n = snprintf(b + 1, sizeof b - 1, "u64:%" PRIu64, v);
	return json_stringn(b, (size_t)n + 1);
}

json_t *cmd_json_str(const char *s)
{
	json_t *j = json_string(s);
	if (j)
		return j;
	char *clean = rs_utf8_clean(s); /* a name that is bytes, not UTF-8 */
	j = json_string(clean);
	free(clean);
	return j;
}

json_t *cmd_json_finite(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

char *cmd_json_text(char *text)
{
	if (!text)
		return NULL;
	char *w = text;
	for (const char *r = text; *r;) {
		if (!strncmp(r, MARK, strlen(MARK))) {
			const char *d = r + strlen(MARK);
			size_t n = strspn(d, "0123456789");
			if (n && d[n] == '"') {
				memmove(w, d, n);
				w += n;
				r = d + n + 1;
				continue;
			}
		}
		*w++ = *r++;
	}
	*w = 0;
	return text;
}

/* Whether json_dumps writes s (n bytes) as itself in quotes: printable
 * ASCII without a quote or backslash (jansson escapes those and control
 * bytes; a u64 mark starts with a NUL). */
static bool plain_json_text(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e || s[i] == '"' || s[i] == '\\')
			return false;
	return true;
}

static void put_quoted(const char *s, size_t n)
{
	putchar('"');
	fwrite(s, 1, n, stdout);
	putchar('"');
}

/* One JSON object as a line, its reals in the shortest text that reads
 * back exactly ("0.7", not "0.69999999999999996"), keys in order (also
 * `rematsim measured`'s, cmd.h). Plain keys, strings, integers and
 * literals are written here as json_dumps writes them; anything else
 * (escapes, nesting) goes through json_dumps. */
void put_json_line(json_t *o)
{
	const char *key;
	json_t *v;
	char b[FMT_DOUBLE_LEN + 2];
	fputc('{', stdout);
	bool first = true;
	json_object_foreach(o, key, v) {
		if (!first)
			putchar(',');
		first = false;
		size_t kn = strlen(key);
		if (plain_json_text(key, kn)) {
			put_quoted(key, kn);
		} else {
			json_t *k = json_string(key);
			char *kt = json_dumps(k, JSON_ENCODE_ANY);
			fputs(kt, stdout);
			free(kt);
			json_decref(k);
		}
		putchar(':');
		switch (json_typeof(v)) {
		case JSON_REAL:
			fmt_double(b, json_real_value(v));
			if (!strpbrk(b, ".eni")) /* a real stays one when read back */
				strcat(b, ".0");
			fputs(b, stdout);
			continue;
		case JSON_INTEGER:
			printf("%" JSON_INTEGER_FORMAT, json_integer_value(v));
			continue;
		case JSON_TRUE:
			fputs("true", stdout);
			continue;
		case JSON_FALSE:
			fputs("false", stdout);
			continue;
		case JSON_NULL:
			fputs("null", stdout);
			continue;
		case JSON_STRING:
			if (plain_json_text(json_string_value(v), json_string_length(v))) {
				put_quoted(json_string_value(v), json_string_length(v));
				continue;
			}
			break;
		default:
			break;
		}
		char *vt = cmd_json_text(json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT));
		if (vt)
			fputs(vt, stdout);
		free(vt);
	}
	fputs("}\n", stdout);
}
