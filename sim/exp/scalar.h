/*
 * scalar.h: the project's rules for numbers written as text (YAML values,
 * command-line options), so that `1e9`, `2GiB`, `0.25` and `inf` mean the
 * same thing everywhere.
 *
 * Grammar (whole string, no surrounding blanks):
 *     [+|-] DIGITS [. DIGITS] [(e|E) [+|-] DIGITS] [SUFFIX]    or    [+]inf | .inf
 * A leading "." (".5") or trailing "." ("5.") is accepted, as strtod does.
 * SUFFIX multiplies: KiB 2^10, MiB 2^20, GiB 2^30, TiB 2^40,
 *                    KB 10^3,  MB 10^6,  GB 10^9,  TB 10^12 (case as written).
 * Not accepted: hex, nan, "1,000", "1_000", blanks, an empty string.
 *
 * Integers (scalar_parse_u64) must be non-negative, finite and whole after
 * the suffix is applied; a plain integer with no fraction or exponent is
 * converted exactly (all 64 bits), otherwise through a double (exact up to
 * 2^53).
 */
#ifndef REMATSIM_SCALAR_H
#define REMATSIM_SCALAR_H

#include <stdint.h>

/**
 * Parse text as a real number. Returns 0 and sets *out, or -1 and sets *why
 * (a static message such as "not a number") when text breaks the rules.
 */
int scalar_parse_double(const char *text, double *out, const char **why);

/** Parse text as a non-negative whole number (see above). */
int scalar_parse_u64(const char *text, uint64_t *out, const char **why);

/**
 * Parse a transfer rate in bytes per second: a number as above with an
 * optional "/s" ("25GB/s", "1.5e10", "inf"), above 0; or "none" (any
 * case), which gives 0: no link.
 */
int scalar_parse_rate(const char *text, double *out, const char **why);

/**
 * Parse a time: a number as above (no byte suffix) in seconds, or with a
 * unit ns, us, ms or s ("10us", "2e-6"); from 0 to 2^61 ns, rounded to
 * whole ns.
 */
int scalar_parse_seconds(const char *text, int64_t *ns, const char **why);

/** Parse a YAML-style boolean: true/false, yes/no, on/off (any case). */
int scalar_parse_bool(const char *text, int *out, const char **why);

#endif
