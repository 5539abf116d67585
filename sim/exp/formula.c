/*
 * formula.c: see formula.h. A recursive-descent compiler (its depth is
 * bounded by the 128-byte text) emits postfix code; evaluation is a loop
 * over a fixed stack.
 */
#include "formula.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { OP_NUM, OP_N, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_POW, OP_NEG,
       OP_SQRT, OP_LOG2, OP_LOG, OP_EXP, OP_CEIL, OP_FLOOR };

static const struct {
	const char *name;
	unsigned char op;
} funcs[] = {
	{"sqrt", OP_SQRT}, {"log2", OP_LOG2}, {"log", OP_LOG},
	{"exp", OP_EXP}, {"ceil", OP_CEIL}, {"floor", OP_FLOOR},
};

struct parser {
	const char *s, *p;
	struct formula *f;
	const char *why;
	int depth;
};

static void skip(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t')
		ps->p++;
}

static int fail(struct parser *ps, const char *why)
{
	if (!ps->why)
		ps->why = why;
	return -1;
}

static int emit(struct parser *ps, unsigned char op, double num)
{
	if (ps->f->n_ops == FORMULA_MAX_OPS)
		return fail(ps, "too long a formula");
	ps->f->op[ps->f->n_ops] = op;
	ps->f->num[ps->f->n_ops++] = num;
	return 0;
}

static int expr(struct parser *ps);

static int atom(struct parser *ps)
{
	skip(ps);
	const char *c = ps->p;
	if (isdigit((unsigned char)*c) || *c == '.') {
		char *end;
		double v = strtod(c, &end);
		if (end == c || !isfinite(v))
			return fail(ps, "not a number");
		/* strtod also takes hex, inf and nan: only plain decimals here */
		for (const char *q = c; q < end; q++)
			if (!isdigit((unsigned char)*q) && *q != '.' && *q != 'e' && *q != 'E' &&
			    *q != '+' && *q != '-')
				return fail(ps, "not a plain decimal number");
		ps->p = end;
		return emit(ps, OP_NUM, v);
	}
	if (*c == '(') {
		ps->p++;
		if (expr(ps))
			return -1;
		skip(ps);
		if (*ps->p != ')')
			return fail(ps, "expected ')'");
		ps->p++;
		return 0;
	}
	if (isalpha((unsigned char)*c)) {
		const char *e = c;
		while (isalnum((unsigned char)*e))
			e++;
		size_t len = (size_t)(e - c);
		if (len == 1 && *c == 'n') {
			ps->p = e;
			ps->f->uses_n = true;
			return emit(ps, OP_N, 0);
		}
		for (size_t i = 0; i < sizeof funcs / sizeof funcs[0]; i++)
			if (strlen(funcs[i].name) == len && !strncmp(c, funcs[i].name, len)) {
				ps->p = e;
				skip(ps);
				if (*ps->p != '(')
					return fail(ps, "expected '(' after a function name");
				ps->p++;
				if (expr(ps))
					return -1;
				skip(ps);
				if (*ps->p != ')')
					return fail(ps, "expected ')'");
				ps->p++;
				return emit(ps, funcs[i].op, 0);
			}
		return fail(ps, "unknown name (known: n, sqrt, log2, log, exp, ceil, floor)");
	}
	return fail(ps, *c ? "expected a number, n, a function or '('" : "the formula ends too early");
}

static int unary(struct parser *ps)
{
	skip(ps);
	if (*ps->p == '-') {
		ps->p++;
		if (unary(ps))
			return -1;
		return emit(ps, OP_NEG, 0);
	}
	return atom(ps);
}

static int power(struct parser *ps)
{
	if (++ps->depth > 32)
		return fail(ps, "nested too deeply");
	if (unary(ps))
		return -1;
	skip(ps);
	if (*ps->p == '^') {
		ps->p++;
		if (power(ps) || emit(ps, OP_POW, 0))
			return -1;
	}
	ps->depth--;
	return 0;
}

static int term(struct parser *ps)
{
	if (power(ps))
		return -1;
	for (;;) {
		skip(ps);
		char c = *ps->p;
		if (c != '*' && c != '/')
			return 0;
		ps->p++;
		if (power(ps) || emit(ps, c == '*' ? OP_MUL : OP_DIV, 0))
			return -1;
	}
}

static int expr(struct parser *ps)
{
	if (++ps->depth > 32)
		return fail(ps, "nested too deeply");
	if (term(ps))
		return -1;
	for (;;) {
		skip(ps);
		char c = *ps->p;
		if (c != '+' && c != '-') {
			ps->depth--;
			return 0;
		}
		ps->p++;
		if (term(ps) || emit(ps, c == '+' ? OP_ADD : OP_SUB, 0))
			return -1;
	}
}

int formula_parse(const char *text, struct formula *f, const char **why, int *at)
{
	memset(f, 0, sizeof *f);
	if (strlen(text) >= sizeof f->text) {
		*why = "longer than 127 characters";
		*at = 0;
		return -1;
	}
	strcpy(f->text, text);
	struct parser ps = {.s = f->text, .p = f->text, .f = f};
	int rc = expr(&ps);
	if (!rc) {
		skip(&ps);
		if (*ps.p)
			rc = fail(&ps, "unexpected text after the formula");
	}
	if (rc) {
		*why = ps.why;
		*at = (int)(ps.p - ps.s);
	}
	return rc;
}

double formula_eval(const struct formula *f, double n)
{
	double st[FORMULA_MAX_OPS];
	unsigned sp = 0;
	for (unsigned i = 0; i < f->n_ops; i++) {
		double a, b;
		switch (f->op[i]) {
		case OP_NUM: st[sp++] = f->num[i]; break;
		case OP_N: st[sp++] = n; break;
		case OP_NEG: st[sp - 1] = -st[sp - 1]; break;
		case OP_SQRT: st[sp - 1] = sqrt(st[sp - 1]); break;
		case OP_LOG2: st[sp - 1] = log2(st[sp - 1]); break;
		case OP_LOG: st[sp - 1] = log(st[sp - 1]); break;
		case OP_EXP: st[sp - 1] = exp(st[sp - 1]); break;
		case OP_CEIL: st[sp - 1] = ceil(st[sp - 1]); break;
		case OP_FLOOR: st[sp - 1] = floor(st[sp - 1]); break;
		default:
			b = st[--sp];
			a = st[sp - 1];
			st[sp - 1] = f->op[i] == OP_ADD ? a + b : f->op[i] == OP_SUB ? a - b :
				     f->op[i] == OP_MUL ? a * b : f->op[i] == OP_DIV ? a / b :
				     pow(a, b);
			break;
		}
	}
	return sp ? st[0] : NAN;
}

int formula_budget(const struct formula *f, double n, uint64_t *bytes, const char **why)
{
	double v = ceil(formula_eval(f, n));
	if (isnan(v) || isinf(v)) {
		*why = "is not a finite number there";
		return -1;
	}
	if (v < 0) {
		*why = "is negative there";
		return -1;
	}
	if (v == 0) { /* as a literal budget of 0 is refused (also -0) */
		*why = "is 0 there (a budget must be positive)";
		return -1;
	}
	if (v >= 0x1p63) {
		*why = "passes 2^63 bytes there";
		return -1;
	}
	*bytes = (uint64_t)v;
	return 0;
}
