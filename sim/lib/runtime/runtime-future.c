/*
 * runtime-future.c: every storage's future uses (struct rt_future,
 * runtime-state.h), kept for the offline Belady heuristic only
 * (NEEDS_FUTURE). Built once from the commands: O(commands + arguments)
 * time and memory.
 */
#include "runtime-future.h"
#include "runtime-state.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The storages command i reads: counted into count, or (count NULL)
 * written as i at out[fill[st]++]. */
static void uses_of(const struct schedule *s, size_t i, uint32_t *count, uint32_t *out,
		    uint32_t *fill)
{
	const struct sched_cmd *c = &s->cmds[i];
	if (c->kind == CMD_COMPUTE) {
		const struct sched_op *op = &s->ops[c->id];
		for (uint32_t a = 0; a < op->n_args; a++) {
			uint32_t st = s->arg_storage[op->args + a];
			if (count)
				count[st]++;
			else
				out[fill[st]++] = (uint32_t)i;
		}
	} else if (c->kind == CMD_GET || c->kind == CMD_PIN) {
		uint32_t st = s->tensor_storage[c->id];
		if (count)
			count[st]++;
		else
			out[fill[st]++] = (uint32_t)i;
	}
}

void rt_future_init(struct runtime_state *rt)
{
	const struct schedule *s = rt->s;
	struct rt_future *f = &rt->fut;
	f->on = true;
	f->use_off = xcalloc(s->n_storages + 2, sizeof *f->use_off);
	for (size_t i = 0; i < s->n_cmds; i++)
		uses_of(s, i, f->use_off + 1, NULL, NULL);
	for (size_t st = 0; st < s->n_storages; st++)
		f->use_off[st + 1] += f->use_off[st];
	f->use = xmalloc(((size_t)f->use_off[s->n_storages] + 1) * sizeof *f->use);
	uint32_t *fill = xmemdup(f->use_off, (s->n_storages + 1) * sizeof *fill);
	for (size_t i = 0; i < s->n_cmds; i++)
		uses_of(s, i, NULL, f->use, fill);
	free(fill);
	f->cur = xmemdup(f->use_off, (s->n_storages + 1) * sizeof *f->cur);
}

void rt_future_free(struct runtime_state *rt)
{
	struct rt_future *f = &rt->fut;
	free(f->use);
	free(f->use_off);
	free(f->cur);
	memset(f, 0, sizeof *f);
}
