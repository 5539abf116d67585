/*
 * idset.c: see idset.h. Linear probing; removal leaves a tombstone, and a
 * table whose members plus tombstones pass 3/4 is rebuilt (doubled only
 * when the members alone need it).
 */
#include "idset.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

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
