/*
 * modules.c: see modules.h. Everything here is a walk over the schedule's
 * marks, ops and writes, or a binary search over the calls sorted by
 * their first op: no step is quadratic in the log.
 */
#include "modules.h"

#include <stdlib.h>
#include <string.h>

const char *module_veto_text(enum module_veto v)
{
	switch (v) {
	case MODULE_OK:
		return "";
	case MODULE_EMPTY:
		return "it has no forward op";
	case MODULE_CALLED_AGAIN:
		return "its module is called more than once in the forward pass";
	case MODULE_WRITES_INPUT:
		return "it writes in place a tensor it did not make (its input)";
	case MODULE_OFF_LEVEL:
		return "not at the level the plan is made at (--depth, --within)";
	}
	return "?";
}

static void make_bounds(struct module_calls *m);

/* Forward ops with an op id below op: the forward index of a boundary. */
static size_t fwd_index(const struct profile *p, uint32_t op)
{
	size_t lo = 0, hi = p->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->op[mid] < op)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const struct module_calls *sort_ctx;

static int by_name(const void *a, const void *b)
{
	const struct module_call *x = &sort_ctx->c[*(const size_t *)a];
	const struct module_call *y = &sort_ctx->c[*(const size_t *)b];
	return x->name < y->name ? -1 : x->name > y->name;
}

static int by_first(const void *a, const void *b)
{
	const struct module_call *x = &sort_ctx->c[*(const size_t *)a];
	const struct module_call *y = &sort_ctx->c[*(const size_t *)b];
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int by_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

/* The innermost call whose ops hold forward op i, or -1. */
static long holding(const struct module_calls *m, size_t i)
{
	/* the last call (by first) starting at or before i */
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->c[m->by_first[mid]].first <= i)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	/* among those starting at the same op, the deepest is last */
	long c = (long)m->by_first[lo - 1];
	while (c >= 0 && !(m->c[c].first <= i && i < m->c[c].end))
		c = m->c[c].parent;
	return c;
}

int modules_build(const struct schedule *s, const struct profile *p, struct module_calls *m,
		  struct rs_error *err)
{
	memset(m, 0, sizeof *m);
	m->s = s;
	m->p = p;
	/* the first backward op: marks after it are a recomputation's */
	uint32_t bwd = (uint32_t)s->n_ops;
	for (size_t i = 0; i < s->n_ops; i++)
		if (s->ops[i].backward) {
			bwd = (uint32_t)i;
			break;
		}
	uint32_t *enter_op = xcalloc(s->n_marks + 1, sizeof *enter_op);
	long *stack = xcalloc(s->n_marks + 1, sizeof *stack);
	size_t depth = 0;
	m->c = xcalloc(s->n_marks / 2 + 1, sizeof *m->c);
	for (size_t i = 0; i < s->n_marks; i++) {
		const struct sched_mark *k = &s->marks[i];
		if (k->enter) {
			long id = -1;
			if (k->op <= bwd) {
				long parent = -1;
				for (size_t d = depth; d-- > 0;)
					if (stack[d] >= 0) {
						parent = stack[d];
						break;
					}
				id = (long)m->n++;
				struct module_call *c = &m->c[id];
				c->name = k->name;
				c->type = k->type;
				c->line = k->line;
				c->parent = (int32_t)parent;
				c->depth = parent < 0 ? 0 : m->c[parent].depth + 1;
				c->first = fwd_index(p, k->op);
				c->end = c->first;
				enter_op[id] = k->op;
			}
			stack[depth++] = id;
		} else if (depth) {
			long id = stack[--depth];
			if (id >= 0)
				m->c[id].end = fwd_index(p, k->op < bwd ? k->op : bwd);
		}
	}
	free(stack);
	if (!m->n) {
		free(enter_op);
		modules_free(m);
		return rs_error_set(err, EXIT_DATAERR, s->source, 0,
				    "the log has no module calls in its forward pass (ANNOTATE ENTER/EXIT "
				    "records: record it with rematsim_torch and model=, docs/log-format.md)");
	}
	/* calls per module */
	size_t *idx = xmalloc(m->n * sizeof *idx);
	for (size_t i = 0; i < m->n; i++)
		idx[i] = i;
	sort_ctx = m;
	qsort(idx, m->n, sizeof *idx, by_name);
	for (size_t i = 0, j; i < m->n; i = j) {
		for (j = i; j < m->n && m->c[idx[j]].name == m->c[idx[i]].name; j++)
			;
		for (size_t q = i; q < j; q++)
			m->c[idx[q]].calls = (uint32_t)(j - i);
	}
	for (size_t i = 0; i < m->n; i++)
		idx[i] = i;
	qsort(idx, m->n, sizeof *idx, by_first);
	m->by_first = idx;
	for (size_t i = 0; i < m->n; i++) {
		struct module_call *c = &m->c[i];
		for (size_t f = c->first; f < c->end; f++)
			c->bytes += p->bytes[f];
		if (c->first == c->end)
			c->veto = MODULE_EMPTY;
		else if (c->calls > 1)
			c->veto = MODULE_CALLED_AGAIN;
	}
	/* Writes in place of a tensor made before a call (not a constant):
	 * that call and every call around it that began after the tensor was
	 * made. s->writes is ascending, and so are ops' arguments. */
	for (size_t w = 0, o = 0; w < s->n_writes; w++) {
		uint32_t at = s->writes[w];
		while (o < s->n_ops && s->ops[o].args + s->ops[o].n_args <= at)
			o++;
		if (o >= s->n_ops || o >= bwd)
			break;
		uint32_t root = s->tensors[schedule_storage_root(s, s->arg_storage[at])].op;
		if (s->ops[root].constant)
			continue;
		for (long c = holding(m, fwd_index(p, (uint32_t)o)); c >= 0; c = m->c[c].parent)
			if (root < enter_op[c] && m->c[c].veto == MODULE_OK) {
				m->c[c].veto = MODULE_WRITES_INPUT;
				m->c[c].veto_line = s->ops[o].line;
			}
	}
	free(enter_op);
	m->bound = xmalloc((2 * m->n + 1) * sizeof *m->bound);
	make_bounds(m);
	return 0;
}

size_t modules_restrict(struct module_calls *m, long depth, long parent)
{
	size_t ok = 0;
	for (size_t i = 0; i < m->n; i++) {
		struct module_call *c = &m->c[i];
		if (c->veto == MODULE_OK && ((depth >= 0 && c->depth != (uint32_t)depth) ||
					     (parent >= 0 && c->parent != parent)))
			c->veto = MODULE_OFF_LEVEL;
		ok += c->veto == MODULE_OK;
	}
	make_bounds(m);
	return ok;
}

/* The boundaries: the starts and ends of the calls that can be wrapped,
 * ascending, each once, in (0, n). */
static void make_bounds(struct module_calls *m)
{
	const struct profile *p = m->p;
	m->n_bound = 0;
	for (size_t i = 0; i < m->n; i++) {
		const struct module_call *c = &m->c[i];
		if (c->veto != MODULE_OK)
			continue;
		if (c->first > 0 && c->first < p->n)
			m->bound[m->n_bound++] = c->first;
		if (c->end > 0 && c->end < p->n)
			m->bound[m->n_bound++] = c->end;
	}
	qsort(m->bound, m->n_bound, sizeof *m->bound, by_size);
	size_t u = 0;
	for (size_t i = 0; i < m->n_bound; i++)
		if (!u || m->bound[u - 1] != m->bound[i])
			m->bound[u++] = m->bound[i];
	m->n_bound = u;
}

void modules_free(struct module_calls *m)
{
	free(m->c);
	free(m->bound);
	free(m->by_first);
	memset(m, 0, sizeof *m);
}

uint64_t *modules_units(const struct module_calls *m, size_t *n_units)
{
	*n_units = m->n_bound + 1;
	uint64_t *a = xcalloc(*n_units, sizeof *a);
	for (size_t j = 0, i = 0; j < *n_units; j++) {
		size_t to = j < m->n_bound ? m->bound[j] : m->p->n;
		for (; i < to; i++)
			a[j] += m->p->bytes[i];
	}
	return a;
}

size_t modules_unit_split(const struct module_calls *m, size_t u)
{
	return u >= 1 && u <= m->n_bound ? m->bound[u - 1] : m->p->n;
}

bool modules_is_bound(const struct module_calls *m, size_t at)
{
	size_t lo = 0, hi = m->n_bound;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->bound[mid] < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n_bound && m->bound[lo] == at;
}

/* The first position in by_first of a call starting at forward op at. */
static size_t first_at(const struct module_calls *m, size_t at)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->c[m->by_first[mid]].first < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

long modules_starting(const struct module_calls *m, size_t at)
{
	size_t i = first_at(m, at);
	/* skip calls with no ops: they start and end there */
	for (; i < m->n && m->c[m->by_first[i]].first == at; i++)
		if (m->c[m->by_first[i]].end > at)
			return (long)m->by_first[i];
	return -1;
}

long modules_ending(const struct module_calls *m, size_t at)
{
	long best = -1;
	for (size_t i = 0; i < m->n; i++)
		if (m->c[i].end == at && m->c[i].first < at &&
		    (best < 0 || m->c[i].depth > m->c[best].depth))
			best = (long)i;
	return best;
}

long modules_find(const struct module_calls *m, const char *name)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(schedule_str(m->s, m->c[i].name), name))
			return (long)i;
	return -1;
}

/* The outermost wrappable call starting at pos and ending by to, or -1. */
static long wrappable_at(const struct module_calls *m, size_t pos, size_t to)
{
	for (size_t i = first_at(m, pos); i < m->n && m->c[m->by_first[i]].first == pos; i++) {
		const struct module_call *c = &m->c[m->by_first[i]];
		if (c->veto == MODULE_OK && c->end <= to)
			return (long)m->by_first[i];
	}
	return -1;
}

/* The next call of the same nn.Sequential as call c, starting where c ends
 * and ending by to, wrappable; or -1. */
static long next_sibling(const struct module_calls *m, long c, size_t to)
{
	int32_t par = m->c[c].parent;
	if (par < 0 || strcmp(schedule_str(m->s, m->c[par].type), "Sequential"))
		return -1;
	size_t at = m->c[c].end;
	for (size_t i = first_at(m, at); i < m->n && m->c[m->by_first[i]].first == at; i++) {
		const struct module_call *d = &m->c[m->by_first[i]];
		if (d->parent == par)
			return d->veto == MODULE_OK && d->end <= to && d->end > d->first
				       ? (long)m->by_first[i] : -1;
	}
	return -1;
}

void modules_apply(const struct module_calls *m, const size_t *splits, size_t n_splits,
		   struct module_plan *mp)
{
	memset(mp, 0, sizeof *mp);
	size_t n = m->p->n;
	mp->off = xcalloc(n + 2, sizeof *mp->off);
	mp->calls = xmalloc((m->n + 1) * sizeof *mp->calls);
	mp->splits = xmalloc((2 * n + 2) * sizeof *mp->splits);
	mp->as_usual = xcalloc(2 * n + 2, sizeof *mp->as_usual);
	size_t nc = 0;
	for (size_t g = 0; g < n_splits; g++) {
		size_t from = g ? splits[g - 1] : 0, to = splits[g] < n ? splits[g] : n;
		for (size_t pos = from; pos < to;) {
			long c = wrappable_at(m, pos, to);
			if (c < 0) {
				mp->unwrapped_ops++;
				mp->unwrapped_bytes += m->p->bytes[pos];
				pos++;
				continue;
			}
			mp->off[mp->n_wraps] = nc;
			size_t first = m->c[c].first;
			for (; c >= 0; c = next_sibling(m, c, to)) {
				mp->calls[nc++] = (size_t)c;
				pos = m->c[c].end;
			}
			mp->n_wraps++;
			/* the ops since the last split (none, or ops in no wrap) run as
			 * usual; the wrap's are checkpointed */
			if (first > 0 && (!mp->n_splits || mp->splits[mp->n_splits - 1] != first)) {
				mp->as_usual[mp->n_splits] = true;
				mp->splits[mp->n_splits++] = first;
			}
			mp->splits[mp->n_splits++] = pos;
		}
	}
	mp->off[mp->n_wraps] = nc;
}

void module_plan_free(struct module_plan *mp)
{
	free(mp->off);
	free(mp->calls);
	free(mp->splits);
	free(mp->as_usual);
	memset(mp, 0, sizeof *mp);
}
