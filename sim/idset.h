/*
 * idset.h: small open-addressing hash sets of ids, for the runtime's
 * regions (sets of storage ids) and V1's evicted dependents (pairs).
 *
 * Sets grow and never shrink: clearing keeps the table, so a replay
 * allocates only while its sets reach their largest size.
 */
#ifndef REMATSIM_IDSET_H
#define REMATSIM_IDSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IDSET_EMPTY UINT32_MAX
#define IDSET_TOMB (UINT32_MAX - 1)

/* A set of uint32 ids below IDSET_TOMB. Zero-initialized = empty. */
struct idset {
	uint32_t *slot;
	uint32_t cap;   /* power of two, or 0 */
	uint32_t count; /* members */
	uint32_t used;  /* members + tombstones */
};

bool idset_has(const struct idset *set, uint32_t id);
/** Returns true when id was not there. */
bool idset_add(struct idset *set, uint32_t id);
/** Returns true when id was there. */
bool idset_remove(struct idset *set, uint32_t id);
void idset_clear(struct idset *set);
void idset_free(struct idset *set);

/* Iterate: for (i = 0; i < set->cap; i++) if (idset_live(set->slot[i])) ... */
static inline bool idset_live(uint32_t v)
{
	return v < IDSET_TOMB;
}

/* A set of uint64 keys below UINT64_MAX - 1 (same scheme). */
struct u64set {
	uint64_t *slot;
	size_t cap, count, used;
};
bool u64set_has(const struct u64set *set, uint64_t key);
bool u64set_add(struct u64set *set, uint64_t key);
bool u64set_remove(struct u64set *set, uint64_t key);
void u64set_free(struct u64set *set);

#endif
