/*
 * cmd_json.c: unsigned 64-bit values in the commands' JSON. jansson's
 * integers are signed (json_int_t), so a budget of 2^64 - 1 came out as
 * -1. cmd_json_u64 gives such a value as a marked string that no C string
 * of a user's can produce (it starts with a NUL, which jansson writes as
 * \u0000), and cmd_json_text turns each mark in dumped text back into the
 * number, so that the rest of each command's JSON is written as before.
 */
#include <inttypes.h>
#include <math.h>
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
