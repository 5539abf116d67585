/*
 * idset.c: see idset.h. Linear probing; removal leaves a tombstone, and a
 * table whose members plus tombstones pass 3/4 is rebuilt (doubled only
 * when the members alone need it).
 */
#include "idset.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static inline uint32_t hash32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

static void idset_rehash(struct idset *set, uint32_t cap)
{
	uint32_t *old = set->slot;
	uint32_t old_cap = set->cap;
	set->slot = xmalloc((size_t)cap * sizeof *set->slot);
	memset(set->slot, 0xff, (size_t)cap * sizeof *set->slot);
	set->cap = cap;
	set->used = set->count;
	for (uint32_t i = 0; i < old_cap; i++) {
		uint32_t v = old[i];
		if (!idset_live(v))
			continue;
		uint32_t j = hash32(v) & (cap - 1);
		while (set->slot[j] != IDSET_EMPTY)
			j = (j + 1) & (cap - 1);
		set->slot[j] = v;
	}
	free(old);
}

bool idset_has(const struct idset *set, uint32_t id)
{
	if (!set->count)
		return false;
	uint32_t m = set->cap - 1;
	for (uint32_t j = hash32(id) & m;; j = (j + 1) & m) {
		uint32_t v = set->slot[j];
		if (v == id)
			return true;
		if (v == IDSET_EMPTY)
			return false;
	}
}

bool idset_add(struct idset *set, uint32_t id)
{
	if ((set->used + 1) * 4 > set->cap * 3) {
		uint32_t cap = set->cap ? set->cap : 8;
		while ((set->count + 1) * 2 > cap)
			cap *= 2;
		idset_rehash(set, cap);
	}
	uint32_t m = set->cap - 1, tomb = IDSET_EMPTY;
	for (uint32_t j = hash32(id) & m;; j = (j + 1) & m) {
		uint32_t v = set->slot[j];
		if (v == id)
			return false;
		if (v == IDSET_TOMB && tomb == IDSET_EMPTY)
			tomb = j;
		if (v == IDSET_EMPTY) {
			if (tomb != IDSET_EMPTY) {
				j = tomb;
			} else {
				set->used++;
			}
			set->slot[j] = id;
			set->count++;
			return true;
		}
	}
}

bool idset_remove(struct idset *set, uint32_t id)
{
	if (!set->count)
		return false;
	uint32_t m = set->cap - 1;
	for (uint32_t j = hash32(id) & m;; j = (j + 1) & m) {
		uint32_t v = set->slot[j];
		if (v == id) {
			set->slot[j] = IDSET_TOMB;
			set->count--;
			return true;
		}
		if (v == IDSET_EMPTY)
			return false;
	}
}

void idset_clear(struct idset *set)
{
	if (set->used)
		memset(set->slot, 0xff, (size_t)set->cap * sizeof *set->slot);
	set->count = 0;
	set->used = 0;
}

void idset_free(struct idset *set)
{
	free(set->slot);
	memset(set, 0, sizeof *set);
}

#define U64_EMPTY UINT64_MAX
#define U64_TOMB (UINT64_MAX - 1)

static inline size_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return (size_t)x;
}

static void u64set_rehash(struct u64set *set, size_t cap)
{
	uint64_t *old = set->slot;
	size_t old_cap = set->cap;
	set->slot = xmalloc(cap * sizeof *set->slot);
	memset(set->slot, 0xff, cap * sizeof *set->slot);
	set->cap = cap;
	set->used = set->count;
	for (size_t i = 0; i < old_cap; i++) {
		uint64_t v = old[i];
		if (v >= U64_TOMB)
			continue;
		size_t j = hash64(v) & (cap - 1);
		while (set->slot[j] != U64_EMPTY)
			j = (j + 1) & (cap - 1);
		set->slot[j] = v;
	}
	free(old);
}

bool u64set_has(const struct u64set *set, uint64_t key)
{
	if (!set->count)
		return false;
	size_t m = set->cap - 1;
	for (size_t j = hash64(key) & m;; j = (j + 1) & m) {
		if (set->slot[j] == key)
			return true;
		if (set->slot[j] == U64_EMPTY)
			return false;
	}
}

bool u64set_add(struct u64set *set, uint64_t key)
{
	if ((set->used + 1) * 4 > set->cap * 3) {
		size_t cap = set->cap ? set->cap : 64;
		while ((set->count + 1) * 2 > cap)
			cap *= 2;
		u64set_rehash(set, cap);
	}
	size_t m = set->cap - 1, tomb = SIZE_MAX;
	for (size_t j = hash64(key) & m;; j = (j + 1) & m) {
		uint64_t v = set->slot[j];
		if (v == key)
			return false;
		if (v == U64_TOMB && tomb == SIZE_MAX)
			tomb = j;
		if (v == U64_EMPTY) {
			if (tomb != SIZE_MAX)
				j = tomb;
			else
				set->used++;
			set->slot[j] = key;
			set->count++;
			return true;
		}
	}
}

bool u64set_remove(struct u64set *set, uint64_t key)
{
	if (!set->count)
		return false;
	size_t m = set->cap - 1;
	for (size_t j = hash64(key) & m;; j = (j + 1) & m) {
		if (set->slot[j] == key) {
			set->slot[j] = U64_TOMB;
			set->count--;
			return true;
		}
		if (set->slot[j] == U64_EMPTY)
			return false;
	}
}

void u64set_free(struct u64set *set)
{
	free(set->slot);
	memset(set, 0, sizeof *set);
}
