/*
 * runtimes.c: the runtime table (runtime.h, struct runtime_desc): the five
 * runtimes of the reference simulator as rows. runtime.c reads a row when
 * a replay starts (banishing, eager, what it maintains); names are parsed
 * and listed from here. Adding a runtime: a row here, an enum value in
 * runtime.h, and whatever new behaviour its flag turns on in runtime.c.
 */
#include "runtime.h"

#include <strings.h>

#include "heuristics.h"
#include "util.h"

#define KEPT (NEEDS_REGIONS | NEEDS_EQCLASS)
static const struct runtime_desc table[RUNTIME_KIND_COUNT] = {
	[RUNTIME_V1] = {
		.name = "V1",
		.banishing = true,
		.summary = "banishing: an evicted storage whose tensors nobody holds is gone for good",
	},
	[RUNTIME_V2] = {
		.name = "V2",
		.summary = "evicts only when over budget; no kept regions or classes",
	},
	[RUNTIME_V2_EAGER] = {
		.name = "V2Eager",
		.eager = true,
		.summary = "V2, and a storage only the pool holds is evicted at once",
	},
	[RUNTIME_V2_OPTIMIZED] = {
		.name = "V2Optimized",
		.maintains = KEPT,
		.summary = "V2 keeping evicted regions and union-find classes incrementally",
	},
	[RUNTIME_V2_EAGER_OPTIMIZED] = {
		.name = "V2EagerOptimized",
		.eager = true,
		.maintains = KEPT,
		.summary = "V2Eager and V2Optimized together (the default)",
	},
};
#undef KEPT

const struct runtime_desc *runtime_desc(enum runtime_kind k)
{
	return &table[(unsigned)k < RUNTIME_KIND_COUNT ? k : RUNTIME_V2];
}

const char *runtime_kind_name(enum runtime_kind k)
{
	return (unsigned)k < RUNTIME_KIND_COUNT ? table[k].name : "?";
}

int runtime_kind_parse(const char *name, enum runtime_kind *k)
{
	for (int i = 0; i < RUNTIME_KIND_COUNT; i++) {
		if (!strcasecmp(name, table[i].name)) {
			*k = (enum runtime_kind)i;
			return 0;
		}
	}
	return -1;
}

const char *runtime_suggest(const char *name)
{
	const char *names[RUNTIME_KIND_COUNT];
	for (int i = 0; i < RUNTIME_KIND_COUNT; i++)
		names[i] = table[i].name;
	return nearest_name(name, names, RUNTIME_KIND_COUNT);
}
