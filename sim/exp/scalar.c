/*
 * scalar.c: see scalar.h. The number is split into sign, mantissa, exponent
 * and suffix by hand, so that the accepted set is exactly the documented
 * one (strtod alone would take hex, nan, "infinity", leading blanks).
 */
#include "scalar.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct suffix {
	const char *text;
	uint64_t mult;
};

static const struct suffix suffixes[] = {
	{"KiB", 1ull << 10}, {"MiB", 1ull << 20}, {"GiB", 1ull << 30}, {"TiB", 1ull << 40},
	{"KB", 1000ull}, {"MB", 1000000ull}, {"GB", 1000000000ull}, {"TB", 1000000000000ull},
};

/* What scanning found: the numeric part is text[0..num_len). */
struct scanned {
	size_t num_len;
	bool negative;
	bool plain_integer; /* no fraction, no exponent */
	bool infinite;
	uint64_t mult;
};

static int scan(const char *text, struct scanned *sc, const char **why)
{
	memset(sc, 0, sizeof *sc);
	sc->mult = 1;
	if (!text || !*text) {
		*why = "empty value where a number is expected";
		return -1;
	}
	const char *p = text;
	if (!strcmp(p, "inf") || !strcmp(p, "+inf") || !strcmp(p, ".inf") ||
	    !strcmp(p, "+.inf") || !strcmp(p, ".Inf") || !strcmp(p, ".INF")) {
		sc->infinite = true;
		return 0;
	}
	if (*p == '+' || *p == '-') {
		sc->negative = *p == '-';
		p++;
	}
	if (!strcmp(p, "inf") || !strcmp(p, ".inf")) {
		sc->infinite = true;
		return 0;
	}
	size_t int_digits = 0, frac_digits = 0;
	while (isdigit((unsigned char)*p)) {
		p++;
		int_digits++;
	}
	sc->plain_integer = true;
	if (*p == '.') {
		sc->plain_integer = false;
		p++;
		while (isdigit((unsigned char)*p)) {
			p++;
			frac_digits++;
		}
	}
	if (int_digits + frac_digits == 0) {
		*why = "not a number";
		return -1;
	}
	if (*p == 'e' || *p == 'E') {
		sc->plain_integer = false;
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit((unsigned char)*p)) {
			*why = "exponent without digits";
			return -1;
		}
		while (isdigit((unsigned char)*p))
			p++;
	}
	sc->num_len = (size_t)(p - text);
	if (!*p)
		return 0;
	/* in any case: 30mb is 30MB, 6gib 6GiB */
	for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++)
		if (!strcasecmp(p, suffixes[i].text)) {
			sc->mult = suffixes[i].mult;
			return 0;
		}
	if (p[1] == 0 && strchr("kKmMgGtT", *p)) {
		static const char *const alone[] = {
			"K alone could mean either: KB is 10^3 bytes, KiB 2^10",
			"M alone could mean either: MB is 10^6 bytes, MiB 2^20",
			"G alone could mean either: GB is 10^9 bytes, GiB 2^30",
			"T alone could mean either: TB is 10^12 bytes, TiB 2^40",
		};
		*why = alone[strchr("KMGT", toupper((unsigned char)*p)) - "KMGT"];
		return -1;
	}
	*why = "not a number (unknown suffix or trailing characters; "
	       "suffixes are KiB MiB GiB TiB KB MB GB TB, in any case)";
	return -1;
}

int scalar_parse_double(const char *text, double *out, const char **why)
{
	struct scanned sc;
	if (scan(text, &sc, why))
		return -1;
	if (sc.infinite) {
		*out = sc.negative ? -INFINITY : INFINITY;
		return 0;
	}
	char buf[128];
	if (sc.num_len >= sizeof buf) {
		*why = "number too long";
		return -1;
	}
	memcpy(buf, text, sc.num_len);
	buf[sc.num_len] = 0;
	errno = 0;
	double v = strtod(buf, NULL);
	if (errno == ERANGE && isinf(v)) {
		*why = "number out of range";
		return -1;
	}
	*out = v * (double)sc.mult;
	return 0;
}

int scalar_parse_u64(const char *text, uint64_t *out, const char **why)
{
	struct scanned sc;
	if (scan(text, &sc, why))
		return -1;
	if (sc.infinite) {
		*why = "a whole number is expected, not infinity";
		return -1;
	}
	if (sc.negative) {
		*why = "a non-negative number is expected";
		return -1;
	}
	if (sc.plain_integer) {
		const char *p = text + (text[0] == '+');
		uint64_t v = 0;
		for (; isdigit((unsigned char)*p); p++) {
			unsigned d = (unsigned)(*p - '0');
			if (v > (UINT64_MAX - d) / 10) {
				*why = "number out of range (above 2^64-1)";
				return -1;
			}
			v = v * 10 + d;
		}
		if (sc.mult > 1 && v > UINT64_MAX / sc.mult) {
			*why = "number out of range (above 2^64-1)";
			return -1;
		}
		*out = v * sc.mult;
		return 0;
	}
	double d;
	if (scalar_parse_double(text, &d, why))
		return -1;
	if (d != floor(d)) {
		*why = "a whole number is expected";
		return -1;
	}
	if (d >= 18446744073709551616.0) {
		*why = "number out of range (above 2^64-1)";
		return -1;
	}
	*out = (uint64_t)d;
	return 0;
}

int scalar_parse_bool(const char *text, int *out, const char **why)
{
	static const char *const yes[] = {"true", "yes", "on"};
	static const char *const no[] = {"false", "no", "off"};
	for (size_t i = 0; i < 3; i++) {
		if (!strcasecmp(text, yes[i])) {
			*out = 1;
			return 0;
		}
		if (!strcasecmp(text, no[i])) {
			*out = 0;
			return 0;
		}
	}
	*why = "a boolean (true or false) is expected";
	return -1;
}

int scalar_parse_rate(const char *text, double *out, const char **why)
{
	if (!strcasecmp(text, "none")) {
		*out = 0;
		return 0;
	}
	size_t n = strlen(text);
	char buf[128];
	if (n >= sizeof buf) {
		*why = "number too long";
		return -1;
	}
	memcpy(buf, text, n + 1);
	if (n > 2 && !strcmp(buf + n - 2, "/s"))
		buf[n - 2] = 0;
	if (scalar_parse_double(buf, out, why))
		return -1;
	if (!(*out > 0)) {
		*why = "a rate above 0 in bytes per second is expected (25GB/s, 1.5e10, inf; or none)";
		return -1;
	}
	return 0;
}

int scalar_parse_seconds(const char *text, int64_t *ns, const char **why)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
	size_t n = strlen(text);
	char buf[128];
	if (n >= sizeof buf) {
		*why = "number too long";
		return -1;
	}
	memcpy(buf, text, n + 1);
	double scale = 1e9;
	for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
		size_t k = strlen(units[i].unit);
		if (n > k && !strcmp(buf + n - k, units[i].unit) &&
		    (k == 2 || (buf[n - 2] >= '0' && buf[n - 2] <= '9') || buf[n - 2] == '.')) {
			buf[n - k] = 0;
			scale = units[i].ns;
			break;
		}
	}
	double v;
	if (scalar_parse_double(buf, &v, why))
		return -1;
	v = round(v * scale);
	if (!(v >= 0) || v > (double)(INT64_C(1) << 61)) {
		*why = "a time from 0 to 2^61 ns is expected (seconds, or with ns, us, ms, s)";
		return -1;
	}
	*ns = (int64_t)v;
	return 0;
}
