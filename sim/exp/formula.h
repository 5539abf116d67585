/*
 * formula.h: budgets written as formulas of n (experiment files:
 * `budgets: ["2*sqrt(n)", "log2(n)", 64]`), as the DTR paper's asymptotic
 * study gives them. A formula is compiled once into postfix form and then
 * evaluated per model without recursion or allocation.
 *
 * Grammar (blanks allowed between tokens):
 *     expr   = term   { (+|-) term }
 *     term   = power  { (*|/) power }
 *     power  = unary  [ ^ power ]          (right-associative)
 *     unary  = [-] atom
 *     atom   = NUMBER | n | FUNC ( expr ) | ( expr )
 *     FUNC   = sqrt | log2 | log (natural) | exp | ceil | floor
 * NUMBER is decimal (`2`, `0.5`, `1e3`).
 */
#ifndef REMATSIM_FORMULA_H
#define REMATSIM_FORMULA_H

#include <stdbool.h>
#include <stdint.h>

#define FORMULA_MAX_OPS 64

struct formula {
	char text[128];                 /* as written */
	unsigned n_ops;
	unsigned char op[FORMULA_MAX_OPS];
	double num[FORMULA_MAX_OPS];
	bool uses_n;                    /* false: a constant expression */
};

/**
 * Compile text. Returns 0, or -1 with *why a static reason and *at the
 * 0-based offset of the problem in text.
 */
int formula_parse(const char *text, struct formula *f, const char **why, int *at);

/** The value at n (may be NaN or infinite for log2(0) and the like). */
double formula_eval(const struct formula *f, double n);

/**
 * The budget in bytes at n: ceil of the value, as simrd's bounds round.
 * Returns 0 and *bytes, or -1 when the value is 0 or negative (budgets are
 * positive, as literal ones must be), not finite or past 2^63 (*why says
 * which).
 */
int formula_budget(const struct formula *f, double n, uint64_t *bytes, const char **why);

#endif
