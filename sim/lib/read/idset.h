/*
 * idset.h: an open-addressing hash set of 64-bit ids, for V1's evicted
 * dependents (storage, tensor) pairs. It grows and never shrinks, so a
 * replay allocates only while the set reaches its largest size.
 */
#ifndef REMATSIM_IDSET_H
#define REMATSIM_IDSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Keys below UINT64_MAX - 1. Zero-initialized = empty. */
struct u64set {
	uint64_t *slot;
	size_t cap, count, used;
};
bool u64set_has(const struct u64set *set, uint64_t key);
bool u64set_add(struct u64set *set, uint64_t key);
bool u64set_remove(struct u64set *set, uint64_t key);
void u64set_free(struct u64set *set);

#endif
