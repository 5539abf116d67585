/*
 * profile.c: see profile.h. No replay is needed: in an unbounded replay a
 * storage is freed only when its handles drop to none, so walking the
 * commands up to the first backward op and counting handles
 * (schedule_count_handles) says which storages are alive.
 */
#include "profile.h"

#include <stdlib.h>
#include <string.h>

#include "plan.h"

int profile_build(const struct schedule *s, struct profile *p, struct rs_error *err)
{
	memset(p, 0, sizeof *p);
	p->n = plan_forward_ops(s, &p->op);
	if (!p->n)
		return rs_error_set(err, EXIT_DATAERR, s->source, 0,
				    "the log has no forward ops (non-constant ops before the "
				    "first backward op): no activations to profile or split");
	int64_t *refs = xcalloc(s->n_storages + 1, sizeof *refs);
	for (size_t i = 0; i < s->n_cmds; i++) {
		const struct sched_cmd *c = &s->cmds[i];
		if (c->kind == CMD_COMPUTE && s->ops[c->id].backward)
			break;
		schedule_count_handles(s, c, refs);
	}
	/* op id -> forward index, through the ascending op list */
	p->bytes = xcalloc(p->n, sizeof *p->bytes);
	for (size_t st = 0; st < s->n_storages; st++) {
		if (!refs[st])
			continue;
		uint32_t o = s->tensors[schedule_storage_root(s, st)].op;
		size_t lo = 0, hi = p->n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (p->op[mid] < o)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < p->n && p->op[lo] == o)
			p->bytes[lo] += s->storages[st].size;
	}
	free(refs);
	for (size_t i = 0; i < p->n; i++)
		p->total += p->bytes[i];
	return 0;
}

void profile_free(struct profile *p)
{
	free(p->op);
	free(p->bytes);
	memset(p, 0, sizeof *p);
}
