/*
 * pyset.c: see pyset.h. Keys are stored as key + 1 so that zeroed slots
 * are unused; no key is ever removed, so there are no dummy slots.
 */
#include "pyset.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

#define MINSIZE 8
#define LINEAR_PROBES 9
#define PERTURB_SHIFT 5

/* The slot an insertion of key would take in table (mask), as both
 * set_add_entry and set_insert_clean probe for a key that is absent. */
static size_t probe(const uint32_t *table, size_t mask, uint32_t key, int *found)
{
	size_t perturb = key, i = key & mask;
	*found = 0;
	for (;;) {
		size_t probes = i + LINEAR_PROBES <= mask ? LINEAR_PROBES : 0;
		for (size_t j = 0; j <= probes; j++) {
			if (table[i + j] == 0)
				return i + j;
			if (table[i + j] == key + 1) {
				*found = 1;
				return i + j;
			}
		}
		perturb >>= PERTURB_SHIFT;
		i = (i * 5 + 1 + perturb) & mask;
	}
}

static void ensure(struct pyset *s, size_t slots)
{
	if (s->cap < slots) {
		free(s->slot);
		s->slot = xcalloc(slots, sizeof *s->slot);
		s->cap = slots;
	} else {
		memset(s->slot, 0, slots * sizeof *s->slot);
	}
	s->mask = slots - 1;
}

void pyset_clear(struct pyset *s)
{
	ensure(s, MINSIZE);
	s->fill = 0;
}

/* set_table_resize(so, minused): the smallest power of two above minused
 * (at least 8), the members re-inserted in slot order. */
static void resize(struct pyset *s, size_t minused)
{
	size_t size = MINSIZE;
	while (size <= minused)
		size <<= 1;
	size_t old_slots = s->mask + 1;
	XGROW(s->spare, s->spare_cap, old_slots);
	memcpy(s->spare, s->slot, old_slots * sizeof *s->slot);
	ensure(s, size);
	for (size_t i = 0; i < old_slots; i++)
		if (s->spare[i]) {
			int found;
			s->slot[probe(s->slot, s->mask, s->spare[i] - 1, &found)] = s->spare[i];
		}
}

void pyset_add(struct pyset *s, uint32_t key)
{
	if (!s->mask)
		pyset_clear(s);
	int found;
	size_t i = probe(s->slot, s->mask, key, &found);
	if (found)
		return;
	s->slot[i] = key + 1;
	s->fill++;
	if (s->fill * 5 >= s->mask * 3)
		resize(s, s->fill > 50000 ? s->fill * 2 : s->fill * 4);
}

size_t pyset_order(const struct pyset *s, uint32_t *out)
{
	size_t n = 0;
	for (size_t i = 0; s->mask && i <= s->mask; i++)
		if (s->slot[i])
			out[n++] = s->slot[i] - 1;
	return n;
}

void pyset_free(struct pyset *s)
{
	free(s->slot);
	free(s->spare);
	memset(s, 0, sizeof *s);
}
