/*
 * alloc.c: the caching allocator's rules (docs/allocator.md names, for
 * each, the function of c10/cuda/CUDACachingAllocator.cpp it follows).
 * Blocks live in treaps with parent links: a pool's free mapped blocks by
 * (stream, size, address) for best fit, an expandable segment's unmapped
 * ranges by (stream, address); allocated blocks in an address map. Block
 * records are recycled through a free list, so that a steady run of
 * events allocates nothing.
 */
#include "alloc.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* ------------------------------------------------------------------ */
/* The address map. */

static uint64_t map_hash(uint64_t x)
{
	x ^= x >> 31;
	x *= UINT64_C(0x7fb5d329728ea185);
	x ^= x >> 27;
	x *= UINT64_C(0x81dadef4bc2dd44d);
	x ^= x >> 33;
	return x;
}

void alloc_map_init(struct alloc_map *h)
{
	memset(h, 0, sizeof *h);
}

void alloc_map_done(struct alloc_map *h)
{
	free(h->keys);
	free(h->vals);
	free(h->used);
	memset(h, 0, sizeof *h);
}

static void map_grow(struct alloc_map *h)
{
	struct alloc_map old = *h;
	h->cap = old.cap ? old.cap * 2 : 64;
	h->keys = xmalloc(h->cap * sizeof *h->keys);
	h->vals = xmalloc(h->cap * sizeof *h->vals);
	h->used = xcalloc(h->cap, 1);
	h->n = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.used[i])
			alloc_map_put(h, old.keys[i], old.vals[i]);
	free(old.keys);
	free(old.vals);
	free(old.used);
}

void alloc_map_put(struct alloc_map *h, uint64_t key, uint64_t val)
{
	if ((h->n + 1) * 4 > h->cap * 3)
		map_grow(h);
	size_t mask = h->cap - 1, i = map_hash(key) & mask;
	while (h->used[i] && h->keys[i] != key)
		i = (i + 1) & mask;
	if (!h->used[i]) {
		h->used[i] = 1;
		h->keys[i] = key;
		h->n++;
	}
	h->vals[i] = val;
}

bool alloc_map_get(const struct alloc_map *h, uint64_t key, uint64_t *val)
{
	if (!h->cap)
		return false;
	size_t mask = h->cap - 1, i = map_hash(key) & mask;
	for (; h->used[i]; i = (i + 1) & mask)
		if (h->keys[i] == key) {
			*val = h->vals[i];
			return true;
		}
	return false;
}

bool alloc_map_del(struct alloc_map *h, uint64_t key)
{
	if (!h->cap)
		return false;
	size_t mask = h->cap - 1, i = map_hash(key) & mask;
	while (h->used[i] && h->keys[i] != key)
		i = (i + 1) & mask;
	if (!h->used[i])
		return false;
	/* Backward-shift deletion: no tombstones, probes stay short. */
	size_t j = i;
	for (;;) {
		h->used[i] = 0;
		for (;;) {
			j = (j + 1) & mask;
			if (!h->used[j])
				goto done;
			size_t k = map_hash(h->keys[j]) & mask;
			/* keep j where it is if its home k lies cyclically in (i, j] */
			if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
				continue;
			break;
		}
		h->keys[i] = h->keys[j];
		h->vals[i] = h->vals[j];
		h->used[i] = 1;
		i = j;
	}
done:
	h->n--;
	return true;
}

/* ------------------------------------------------------------------ */
/* Blocks and their trees. */

struct expseg;

struct block {
	uint64_t addr, size, requested, stream, tag;
	struct block *prev, *next; /* neighbours in the segment, address order */
	struct block *l, *r, *up;  /* tree links */
	struct expseg *es;         /* the expandable segment, or NULL */
	int64_t gc_base;           /* the pool's free-block searches when it was cached */
	uint32_t prio;
	bool small, allocated, mapped, in_tree;
};

/* An expandable segment: one range of address space per stream and pool,
 * mapped in pages of 2 MiB (small pool) or 20 MiB (large). */
struct expseg {
	uint64_t base, size, page;
	struct expseg *next_seg;
};

enum { BY_SIZE, BY_ADDR };

struct tree {
	struct block *root;
	int order;
};

static int key_cmp(int order, uint64_t s1, uint64_t z1, uint64_t a1, const struct block *b)
{
	if (s1 != b->stream)
		return s1 < b->stream ? -1 : 1;
	if (order == BY_SIZE && z1 != b->size)
		return z1 < b->size ? -1 : 1;
	if (a1 != b->addr)
		return a1 < b->addr ? -1 : 1;
	return 0;
}

static void rotate_up(struct tree *t, struct block *x)
{
	struct block *p = x->up, *g = p->up;
	if (p->l == x) {
		p->l = x->r;
		if (x->r)
			x->r->up = p;
		x->r = p;
	} else {
		p->r = x->l;
		if (x->l)
			x->l->up = p;
		x->l = p;
	}
	p->up = x;
	x->up = g;
	if (!g)
		t->root = x;
	else if (g->l == p)
		g->l = x;
	else
		g->r = x;
}

static void tree_insert(struct tree *t, struct block *b)
{
	b->l = b->r = b->up = NULL;
	b->in_tree = true;
	struct block **link = &t->root, *parent = NULL;
	while (*link) {
		parent = *link;
		int c = key_cmp(t->order, b->stream, b->size, b->addr, parent);
		if (c == 0)
			rs_bug("allocator model: block at %#llx inserted twice", (unsigned long long)b->addr);
		link = c < 0 ? &parent->l : &parent->r;
	}
	*link = b;
	b->up = parent;
	while (b->up && b->prio < b->up->prio)
		rotate_up(t, b);
}

static void tree_erase(struct tree *t, struct block *b)
{
	if (!b->in_tree)
		rs_bug("allocator model: block at %#llx is in no tree", (unsigned long long)b->addr);
	while (b->l && b->r)
		rotate_up(t, b->l->prio < b->r->prio ? b->l : b->r);
	struct block *c = b->l ? b->l : b->r, *p = b->up;
	if (c)
		c->up = p;
	if (!p)
		t->root = c;
	else if (p->l == b)
		p->l = c;
	else
		p->r = c;
	b->l = b->r = b->up = NULL;
	b->in_tree = false;
}

/* The first block not below (stream, size, addr). */
static struct block *tree_lower_bound(const struct tree *t, uint64_t stream, uint64_t size, uint64_t addr)
{
	struct block *n = t->root, *best = NULL;
	while (n) {
		if (key_cmp(t->order, stream, size, addr, n) <= 0) {
			best = n;
			n = n->l;
		} else {
			n = n->r;
		}
	}
	return best;
}

static struct block *tree_first(const struct tree *t)
{
	struct block *n = t->root;
	while (n && n->l)
		n = n->l;
	return n;
}

static struct block *tree_next(struct block *n)
{
	if (n->r) {
		n = n->r;
		while (n->l)
			n = n->l;
		return n;
	}
	while (n->up && n->up->r == n)
		n = n->up;
	return n->up;
}

static struct block *tree_prev(struct block *n)
{
	if (n->l) {
		n = n->l;
		while (n->r)
			n = n->r;
		return n;
	}
	while (n->up && n->up->l == n)
		n = n->up;
	return n->up;
}

/* ------------------------------------------------------------------ */
/* The model. */

struct pool {
	struct tree blocks;   /* free mapped blocks */
	struct tree unmapped; /* free unmapped ranges of expandable segments */
	int64_t searches;     /* get_free_blocks_call_count */
	bool small;
};

struct alloc_model {
	struct alloc_config cfg;
	struct alloc_device dev;
	struct pool pools[2]; /* [0] small, [1] large */
	struct alloc_map active; /* address -> struct block * of allocated blocks */
	struct alloc_stats st;
	uint64_t limit;          /* allowed_memory_maximum; UINT64_MAX: none */
	uint64_t next_addr;      /* the private address range's next segment */
	uint64_t address_space;  /* an expandable segment's range */
	uint32_t rng;
	struct block *spare;     /* recycled records, linked by next */
	struct expseg *expsegs;
	struct tree segs;        /* every segment's range (an expandable one's
				  * whole address space), by address: no two overlap */
};

/* The range [addr, addr + size) is free of segments (and does not wrap). */
static bool range_free(const struct alloc_model *m, uint64_t addr, uint64_t size)
{
	if (size == 0 || addr + size < addr || addr + size > ALLOC_MAX_ADDRESS)
		return false;
	struct block *n = tree_lower_bound(&m->segs, 0, 0, addr), *p;
	if (n && n->addr < addr + size)
		return false;
	if (n)
		p = tree_prev(n);
	else
		for (p = m->segs.root; p && p->r;)
			p = p->r;
	return !p || p->addr + p->size <= addr;
}

void alloc_config_default(struct alloc_config *c)
{
	memset(c, 0, sizeof *c);
	c->max_split_size = UINT64_MAX;
	c->max_non_split_rounding = ALLOC_LARGE_BUFFER;
}

static int floor_log2(uint64_t x)
{
	return 63 - __builtin_clzll(x);
}

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

/* roundup_power2_next_division */
static uint64_t next_division(uint64_t size, uint64_t divisions)
{
	if (is_pow2(size))
		return size;
	uint64_t floor2 = UINT64_C(1) << floor_log2(size);
	uint64_t step = floor2 >> floor_log2(divisions);
	if (step == 0)
		return floor2 << 1;
	uint64_t down = size & ~(step - 1);
	return down == size ? size : down + step;
}

uint64_t alloc_round_size(const struct alloc_config *c, uint64_t bytes)
{
	if (bytes < ALLOC_MIN_BLOCK)
		return ALLOC_MIN_BLOCK;
	int index = floor_log2(bytes) - 20;
	if (index < 0)
		index = 0;
	if (index > ALLOC_DIVISION_INTERVALS - 1)
		index = ALLOC_DIVISION_INTERVALS - 1;
	uint64_t div = c->divisions[index];
	if (div > 1 && bytes > ALLOC_MIN_BLOCK * div)
		return next_division(bytes, div);
	return (bytes + ALLOC_MIN_BLOCK - 1) / ALLOC_MIN_BLOCK * ALLOC_MIN_BLOCK;
}

uint64_t alloc_segment_size(uint64_t rounded)
{
	if (rounded <= ALLOC_SMALL_SIZE)
		return ALLOC_SMALL_BUFFER;
	if (rounded < ALLOC_MIN_LARGE_ALLOC)
		return ALLOC_LARGE_BUFFER;
	return (rounded + ALLOC_ROUND_LARGE - 1) / ALLOC_ROUND_LARGE * ALLOC_ROUND_LARGE;
}

struct alloc_model *alloc_new(const struct alloc_config *c, const struct alloc_device *d)
{
	struct alloc_model *m = xcalloc(1, sizeof *m);
	m->cfg = *c;
	if (d)
		m->dev = *d;
	m->pools[0].small = true;
	m->segs.order = BY_ADDR;
	for (int i = 0; i < 2; i++) {
		m->pools[i].blocks.order = BY_SIZE;
		m->pools[i].unmapped.order = BY_ADDR;
	}
	alloc_map_init(&m->active);
	m->limit = UINT64_MAX;
	m->next_addr = UINT64_C(0x7f0000000000);
	m->address_space = UINT64_C(1) << 40;
	m->rng = 0x9e3779b9u;
	return m;
}

/* Free every node of t bottom up, without recursion (its nodes are
 * owned by no other structure). */
static void tree_free_all(struct tree *t)
{
	struct block *n = t->root;
	while (n) {
		if (n->l) {
			n = n->l;
		} else if (n->r) {
			n = n->r;
		} else {
			struct block *up = n->up;
			if (up) {
				if (up->l == n)
					up->l = NULL;
				else
					up->r = NULL;
			}
			free(n);
			n = up;
		}
	}
	t->root = NULL;
}

void alloc_free(struct alloc_model *m)
{
	if (!m)
		return;
	/* Every block is in a tree or the address map; free through both. */
	for (size_t i = 0; i < m->active.cap; i++)
		if (m->active.used[i])
			free((struct block *)(uintptr_t)m->active.vals[i]);
	for (int p = 0; p < 2; p++) {
		tree_free_all(&m->pools[p].blocks);
		tree_free_all(&m->pools[p].unmapped);
	}
	tree_free_all(&m->segs);
	while (m->spare) {
		struct block *n = m->spare->next;
		free(m->spare);
		m->spare = n;
	}
	while (m->expsegs) {
		struct expseg *n = m->expsegs->next_seg;
		free(m->expsegs);
		m->expsegs = n;
	}
	alloc_map_done(&m->active);
	free(m);
}

void alloc_set_limit(struct alloc_model *m, uint64_t bytes)
{
	m->limit = bytes;
	if (bytes != UINT64_MAX)
		m->address_space = bytes + bytes / 8;
}

static struct block *block_new(struct alloc_model *m, uint64_t addr, uint64_t size, uint64_t stream, bool small);

static void seg_add(struct alloc_model *m, uint64_t addr, uint64_t size)
{
	tree_insert(&m->segs, block_new(m, addr, size, 0, false));
}

static void seg_remove(struct alloc_model *m, uint64_t addr);

static struct block *block_new(struct alloc_model *m, uint64_t addr, uint64_t size, uint64_t stream, bool small)
{
	struct block *b = m->spare;
	if (b)
		m->spare = b->next;
	else
		b = xmalloc(sizeof *b);
	memset(b, 0, sizeof *b);
	b->addr = addr;
	b->size = size;
	b->stream = stream;
	b->small = small;
	b->mapped = true;
	m->rng ^= m->rng << 13;
	m->rng ^= m->rng >> 17;
	m->rng ^= m->rng << 5;
	b->prio = m->rng;
	return b;
}

static void block_recycle(struct alloc_model *m, struct block *b)
{
	b->next = m->spare;
	m->spare = b;
}

static void seg_remove(struct alloc_model *m, uint64_t addr)
{
	struct block *n = tree_lower_bound(&m->segs, 0, 0, addr);
	if (!n || n->addr != addr)
		rs_bug("allocator model: no segment at %#llx", (unsigned long long)addr);
	tree_erase(&m->segs, n);
	block_recycle(m, n);
}

bool alloc_range_free(const struct alloc_model *m, uint64_t addr, uint64_t size)
{
	return range_free(m, addr, size);
}

static void event(struct alloc_model *m, char kind, uint64_t addr, uint64_t bytes)
{
	if (m->dev.segment_event)
		m->dev.segment_event(m->dev.ctx, kind, addr, bytes);
}

static void reserve(struct alloc_model *m, uint64_t bytes)
{
	m->st.reserved += bytes;
	if (m->st.reserved > m->st.reserved_peak)
		m->st.reserved_peak = m->st.reserved;
}

/* Insert a free block into its pool (insert_into_blocks: its age starts now). */
static void pool_insert(struct alloc_model *m, struct block *b)
{
	struct pool *p = &m->pools[b->small ? 0 : 1];
	b->gc_base = p->searches;
	tree_insert(&p->blocks, b);
}

static struct tree *tree_of(struct alloc_model *m, struct block *b)
{
	struct pool *p = &m->pools[b->small ? 0 : 1];
	return b->mapped ? &p->blocks : &p->unmapped;
}

/* try_merge_blocks: fold src, dst's free neighbour, into dst. */
static void try_merge(struct alloc_model *m, struct block *dst, struct block *src)
{
	if (!src || src->allocated || dst->mapped != src->mapped)
		return;
	if (dst->prev == src) {
		dst->addr = src->addr;
		dst->prev = src->prev;
		if (dst->prev)
			dst->prev->next = dst;
	} else {
		dst->next = src->next;
		if (dst->next)
			dst->next->prev = dst;
	}
	dst->size += src->size;
	tree_erase(tree_of(m, src), src);
	block_recycle(m, src);
}

/* get_free_block: best fit, or false. Takes the block out of the pool. */
static struct block *get_free_block(struct alloc_model *m, struct pool *p, uint64_t size, uint64_t stream)
{
	const struct alloc_config *c = &m->cfg;
	if (m->limit != UINT64_MAX && c->gc_threshold > 0)
		p->searches++;
	struct block *b = tree_lower_bound(&p->blocks, stream, size, 0);
	if (!b || b->stream != stream)
		return NULL;
	if (b->es) {
		if (c->expandable_segments) {
			/* An expandable block may grow into the unmapped range after it:
			 * best fit counts that room. */
			for (;;) {
				struct block *n = tree_next(b);
				if (!b->es || !n || n->stream != stream)
					break;
				uint64_t bz = b->size + (b->next && !b->next->mapped ? b->next->size : 0);
				uint64_t nz = n->size + (n->next && !n->next->mapped ? n->next->size : 0);
				if (nz >= bz)
					break;
				b = n;
			}
		} else {
			do
				b = tree_next(b);
			while (b && b->es && b->stream == stream);
			if (!b || b->stream != stream)
				return NULL;
		}
	}
	/* No oversize block for a small request; an oversize block only
	 * within max_non_split_rounding of a large one. */
	if (size < c->max_split_size && b->size >= c->max_split_size)
		return NULL;
	if (size >= c->max_split_size && b->size >= size + c->max_non_split_rounding)
		return NULL;
	tree_erase(&p->blocks, b);
	return b;
}

/* release_block: give a whole cached segment back to the device. */
static void release_block(struct alloc_model *m, struct block *b)
{
	event(m, 'f', b->addr, b->size);
	seg_remove(m, b->addr);
	m->st.reserved -= b->size;
	m->st.segments--;
	m->st.device_frees++;
	tree_erase(&m->pools[b->small ? 0 : 1].blocks, b);
	block_recycle(m, b);
}

/* unmap_block: unmap the whole pages of a free block of an expandable segment. */
static void unmap_block(struct alloc_model *m, struct block *b)
{
	struct expseg *es = b->es;
	uint64_t lo = b->addr - es->base, hi = lo + b->size;
	uint64_t begin = (lo + es->page - 1) / es->page * es->page, end = hi / es->page * es->page;
	if (begin >= end)
		return;
	struct tree *t = &m->pools[b->small ? 0 : 1].blocks;
	tree_erase(t, b);
	uint64_t before = es->base + begin - b->addr;
	if (before > 0) {
		struct block *f = block_new(m, b->addr, before, b->stream, b->small);
		f->es = es;
		f->prev = b->prev;
		f->next = b;
		if (b->prev)
			b->prev->next = f;
		b->prev = f;
		pool_insert(m, f);
	}
	uint64_t after = b->size - before - (end - begin);
	if (after > 0) {
		struct block *f = block_new(m, es->base + end, after, b->stream, b->small);
		f->es = es;
		f->prev = b;
		f->next = b->next;
		if (b->next)
			b->next->prev = f;
		b->next = f;
		pool_insert(m, f);
	}
	b->addr = es->base + begin;
	b->size = end - begin;
	b->mapped = false;
	try_merge(m, b, b->prev);
	try_merge(m, b, b->next);
	tree_insert(&m->pools[b->small ? 0 : 1].unmapped, b);
	m->st.reserved -= end - begin;
	m->st.device_frees++;
	event(m, 'u', es->base + begin, end - begin);
}

static void release_expandable(struct alloc_model *m, struct block *b)
{
	struct expseg **pp = &m->expsegs;
	while (*pp && *pp != b->es)
		pp = &(*pp)->next_seg;
	if (!*pp)
		rs_bug("allocator model: unknown expandable segment");
	*pp = b->es->next_seg;
	seg_remove(m, b->es->base);
	free(b->es);
	tree_erase(&m->pools[b->small ? 0 : 1].unmapped, b);
	block_recycle(m, b);
	m->st.segments--;
}

/* release_cached_blocks */
static bool release_cached(struct alloc_model *m)
{
	for (int i = 1; i >= 0; i--) { /* large pool first, then small */
		struct pool *p = &m->pools[i];
		/* Expandable blocks to unmap, gathered first in pool order. */
		size_t n = 0, cap = 0;
		struct block **todo = NULL;
		struct block *b = tree_first(&p->blocks);
		while (b) {
			struct block *nx = tree_next(b);
			if (b->es) {
				XGROW(todo, cap, n + 1);
				todo[n++] = b;
			} else if (!b->prev && !b->next) {
				release_block(m, b);
			}
			b = nx;
		}
		for (size_t k = 0; k < n; k++) {
			unmap_block(m, todo[k]);
			if (!todo[k]->prev && !todo[k]->next && !todo[k]->mapped)
				release_expandable(m, todo[k]);
		}
		free(todo);
	}
	return true;
}

/* release_available_cached_blocks: with max_split_size set, free oversize
 * cached blocks until the request would fit. */
static bool release_available(struct alloc_model *m, struct pool *p, uint64_t size, uint64_t stream)
{
	uint64_t mss = m->cfg.max_split_size;
	if (mss == UINT64_MAX)
		return false;
	uint64_t key = size < mss ? mss : size;
	struct block *b = tree_lower_bound(&p->blocks, stream, key, 0);
	if (!b || b->stream != stream) {
		/* No one block is enough: free the largest oversize ones of the stream. */
		struct block *it = b ? tree_prev(b) : NULL;
		if (!b) {
			it = p->blocks.root;
			while (it && it->r)
				it = it->r;
		}
		if (!it)
			return false;
		uint64_t released = 0;
		while (released < key && it->size >= mss && it->stream == stream) {
			struct block *cur = it;
			released += cur->size;
			it = tree_prev(cur);
			release_block(m, cur);
			if (!it)
				break;
		}
		return released >= key;
	}
	release_block(m, b);
	return true;
}

/* garbage_collect_cached_blocks: past the threshold of the limit, free
 * unsplit cached large blocks of at least the average age. */
static void garbage_collect(struct alloc_model *m)
{
	uint64_t threshold = (uint64_t)(m->cfg.gc_threshold * (double)m->limit);
	if (m->st.reserved <= threshold)
		return;
	uint64_t target = m->st.reserved - threshold, reclaimed = 0;
	struct pool *p = &m->pools[1];
	uint64_t total_age = 0;
	int64_t count = 0;
	for (struct block *b = tree_first(&p->blocks); b; b = tree_next(b))
		if (!b->prev && !b->next) {
			total_age += (uint64_t)(p->searches - b->gc_base);
			count++;
		}
	if (!count)
		return;
	bool freed = true;
	while (reclaimed < target && freed && count > 0) {
		double age_threshold = (double)total_age / (double)count;
		freed = false;
		for (struct block *b = tree_first(&p->blocks); b;) {
			struct block *n = tree_next(b);
			uint64_t age = (uint64_t)(p->searches - b->gc_base);
			if (!b->prev && !b->next && (double)age >= age_threshold) {
				freed = true;
				reclaimed += b->size;
				total_age -= age;
				count--;
				release_block(m, b);
			}
			b = n;
		}
	}
}

/* map_block: map pages at the start of the unmapped block b (size bytes,
 * rounded up to pages); returns the mapped free block, or NULL. */
static struct block *map_block(struct alloc_model *m, struct block *b, uint64_t size)
{
	struct expseg *es = b->es;
	uint64_t want = (size + es->page - 1) / es->page * es->page;
	if (want > b->size)
		want = b->size;
	if (m->limit != UINT64_MAX && m->st.reserved + want > m->limit)
		return NULL;
	struct pool *p = &m->pools[b->small ? 0 : 1];
	tree_erase(&p->unmapped, b);
	b->mapped = true;
	if (want < b->size) {
		struct block *rest = block_new(m, b->addr + want, b->size - want, b->stream, b->small);
		rest->mapped = false;
		rest->es = es;
		rest->prev = b;
		rest->next = b->next;
		if (b->next)
			b->next->prev = rest;
		b->next = rest;
		tree_insert(&p->unmapped, rest);
		b->size = want;
	}
	try_merge(m, b, b->prev);
	try_merge(m, b, b->next);
	pool_insert(m, b);
	reserve(m, want);
	m->st.device_allocs++;
	event(m, 'm', b->addr, want);
	return b;
}

/* try_allocate_expandable_block (and find_expandable_block). */
static struct block *alloc_expandable(struct alloc_model *m, struct pool *p, uint64_t size, uint64_t stream)
{
	struct block *cand = NULL;
	for (struct block *u = tree_lower_bound(&p->unmapped, stream, 0, 0); u && u->stream == stream;
	     u = tree_next(u)) {
		struct block *c = u;
		if (c->prev && !c->prev->allocated)
			c = c->prev;
		uint64_t bytes = 0;
		for (struct block *x = c; x && bytes < size && !x->allocated; x = x->next)
			bytes += x->size;
		if (bytes >= size) {
			cand = c;
			break;
		}
	}
	if (!cand) {
		uint64_t page = p->small ? ALLOC_SMALL_BUFFER : ALLOC_LARGE_BUFFER;
		uint64_t space = (m->address_space + page - 1) / page * page;
		if (size > space)
			return NULL; /* more than the device could map: out of memory */
		struct expseg *es = xcalloc(1, sizeof *es);
		es->page = page;
		es->size = space;
		/* address space only (cuMemAddressReserve): nothing is reserved
		 * until pages are mapped, so the device is not asked here */
		uint64_t addr = m->next_addr;
		if (!range_free(m, addr, space)) {
			free(es);
			return NULL; /* the private address range is used up */
		}
		m->next_addr += es->size + ALLOC_LARGE_BUFFER;
		seg_add(m, addr, space);
		es->base = addr;
		es->next_seg = m->expsegs;
		m->expsegs = es;
		m->st.segments++;
		cand = block_new(m, addr, es->size, stream, p->small);
		cand->mapped = false;
		cand->es = es;
		tree_insert(&p->unmapped, cand);
	}
	if (!cand->mapped) {
		cand = map_block(m, cand, cand->size < size ? cand->size : size);
		if (!cand)
			return NULL;
	}
	while (cand->size < size) {
		/* free -> unmapped: map more and merge (the mapped block survives) */
		struct block *n = cand->next;
		uint64_t rest = size - cand->size;
		if (!n || n->mapped || n->allocated)
			rs_bug("allocator model: an expandable candidate without the room it was chosen for");
		cand = map_block(m, n, rest < n->size ? rest : n->size);
		if (!cand)
			return NULL;
	}
	tree_erase(&p->blocks, cand);
	return cand;
}

/* alloc_block: a new segment from the device. */
static struct block *alloc_block(struct alloc_model *m, struct pool *p, uint64_t size, uint64_t alloc_size,
				 uint64_t stream, bool retry)
{
	if (retry)
		m->st.retries++;
	if (m->limit != UINT64_MAX && m->st.reserved + alloc_size > m->limit)
		return NULL;
	if (m->cfg.expandable_segments)
		return alloc_expandable(m, p, size, stream);
	uint64_t addr;
	if (m->dev.segment_alloc) {
		/* an address that overlaps a segment held is the device's failure */
		if (!m->dev.segment_alloc(m->dev.ctx, alloc_size, stream, p->small, &addr) ||
		    !range_free(m, addr, alloc_size))
			return NULL;
	} else {
		addr = m->next_addr;
		if (!range_free(m, addr, alloc_size))
			return NULL; /* the private address range is used up */
		m->next_addr += (alloc_size + ALLOC_ROUND_LARGE - 1) / ALLOC_ROUND_LARGE * ALLOC_ROUND_LARGE;
	}
	seg_add(m, addr, alloc_size);
	reserve(m, alloc_size);
	m->st.segments++;
	m->st.device_allocs++;
	event(m, 'a', addr, alloc_size);
	return block_new(m, addr, alloc_size, stream, p->small);
}

/* should_split */
static bool should_split(const struct alloc_model *m, const struct block *b, uint64_t size)
{
	uint64_t remaining = b->size - size;
	if (b->small || m->cfg.expandable_segments)
		return remaining >= ALLOC_MIN_BLOCK;
	return size < m->cfg.max_split_size && remaining > ALLOC_SMALL_SIZE;
}

int alloc_malloc(struct alloc_model *m, uint64_t bytes, uint64_t stream, uint64_t tag, uint64_t *addr)
{
	if (bytes > ALLOC_MAX_REQUEST) {
		m->st.ooms++; /* no device holds it (and the rounding would overflow) */
		return -1;
	}
	uint64_t size = alloc_round_size(&m->cfg, bytes);
	struct pool *p = &m->pools[size <= ALLOC_SMALL_SIZE ? 0 : 1];
	uint64_t alloc_size = alloc_segment_size(size);
	struct block *b = get_free_block(m, p, size, stream);
	if (!b) {
		if (m->limit != UINT64_MAX && m->cfg.gc_threshold > 0)
			garbage_collect(m);
		b = alloc_block(m, p, size, alloc_size, stream, false);
		if (!b && release_available(m, p, size, stream))
			b = alloc_block(m, p, size, alloc_size, stream, false);
		if (!b && release_cached(m))
			b = alloc_block(m, p, size, alloc_size, stream, true);
	}
	if (!b) {
		m->st.ooms++;
		return -1;
	}
	if (should_split(m, b, size)) {
		/* The allocation takes the block's start; the rest stays cached. */
		struct block *rest = block_new(m, b->addr + size, b->size - size, stream, b->small);
		rest->es = b->es;
		rest->prev = b;
		rest->next = b->next;
		if (b->next)
			b->next->prev = rest;
		b->next = rest;
		b->size = size;
		pool_insert(m, rest);
	}
	b->allocated = true;
	b->requested = bytes;
	b->tag = tag;
	alloc_map_put(&m->active, b->addr, (uint64_t)(uintptr_t)b);
	m->st.allocated += b->size;
	if (m->st.allocated > m->st.allocated_peak)
		m->st.allocated_peak = m->st.allocated;
	m->st.requested += bytes;
	m->st.allocs++;
	*addr = b->addr;
	return 0;
}

int alloc_release(struct alloc_model *m, uint64_t addr)
{
	uint64_t v;
	if (!alloc_map_get(&m->active, addr, &v))
		return -1;
	alloc_map_del(&m->active, addr);
	struct block *b = (struct block *)(uintptr_t)v;
	b->allocated = false;
	m->st.allocated -= b->size;
	m->st.requested -= b->requested;
	m->st.frees++;
	/* free_block: merge with the free neighbours, then cache. */
	try_merge(m, b, b->prev);
	try_merge(m, b, b->next);
	pool_insert(m, b);
	return 0;
}

void alloc_empty_cache(struct alloc_model *m)
{
	release_cached(m);
}

int alloc_release_segment(struct alloc_model *m, uint64_t addr, uint64_t size, uint64_t stream)
{
	for (int i = 0; i < 2; i++) {
		struct block *b = tree_lower_bound(&m->pools[i].blocks, stream, size, addr);
		if (b && b->addr == addr && b->size == size && b->stream == stream && !b->prev && !b->next &&
		    !b->es) {
			release_block(m, b);
			return 0;
		}
	}
	return -1;
}

int alloc_add_segment(struct alloc_model *m, uint64_t addr, uint64_t size, uint64_t stream, bool small,
		      const struct alloc_block_spec *blocks, size_t n, char *why, size_t why_size)
{
	uint64_t at = addr, end = addr + size;
	if (size == 0 || end < addr || size > ALLOC_MAX_REQUEST) {
		snprintf(why, why_size, "segment at %#llx has an impossible size %llu",
			 (unsigned long long)addr, (unsigned long long)size);
		return -1;
	}
	if (!range_free(m, addr, size)) {
		snprintf(why, why_size, "segment at %#llx (%llu bytes) overlaps another segment",
			 (unsigned long long)addr, (unsigned long long)size);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (blocks[i].addr < at || blocks[i].size == 0 || blocks[i].addr + blocks[i].size > end ||
		    blocks[i].addr + blocks[i].size < blocks[i].addr) {
			snprintf(why, why_size, "block at %#llx (%llu bytes) does not fit in segment %#llx "
				 "(%llu bytes) beside its neighbours", (unsigned long long)blocks[i].addr,
				 (unsigned long long)blocks[i].size, (unsigned long long)addr,
				 (unsigned long long)size);
			return -1;
		}
		at = blocks[i].addr + blocks[i].size;
	}
	struct block *head = NULL, *last = NULL;
	at = addr;
	for (size_t i = 0; i <= n; i++) {
		uint64_t upto = i < n ? blocks[i].addr : end;
		for (int k = 0; k < 2; k++) {
			/* k = 0: the gap before block i (free); k = 1: block i */
			if (k == 1 && i == n)
				break;
			bool allocated = k == 1 && blocks[i].allocated;
			uint64_t from = k == 0 ? at : blocks[i].addr;
			uint64_t bytes = k == 0 ? upto - at : blocks[i].size;
			if (bytes == 0)
				continue;
			if (!allocated && last && !last->allocated) {
				last->size += bytes; /* free pieces side by side are one block */
				continue;
			}
			struct block *b = block_new(m, from, bytes, stream, small);
			b->allocated = allocated;
			if (k == 1) {
				b->requested = blocks[i].requested;
				b->tag = blocks[i].tag;
			}
			b->prev = last;
			if (last)
				last->next = b;
			else
				head = b;
			last = b;
		}
		if (i < n)
			at = blocks[i].addr + blocks[i].size;
	}
	/* File each piece: free ones into the pool, allocated ones into the map. */
	for (struct block *b = head; b; b = b->next) {
		if (b->allocated) {
			alloc_map_put(&m->active, b->addr, (uint64_t)(uintptr_t)b);
			m->st.allocated += b->size;
			m->st.requested += b->requested;
		} else {
			pool_insert(m, b);
		}
	}
	if (m->st.allocated > m->st.allocated_peak)
		m->st.allocated_peak = m->st.allocated;
	seg_add(m, addr, size);
	reserve(m, size);
	m->st.segments++;
	if (m->next_addr < end)
		m->next_addr = (end + ALLOC_ROUND_LARGE - 1) / ALLOC_ROUND_LARGE * ALLOC_ROUND_LARGE;
	return 0;
}

bool alloc_lookup(const struct alloc_model *m, uint64_t addr, uint64_t *size, uint64_t *tag)
{
	uint64_t v;
	if (!alloc_map_get(&m->active, addr, &v))
		return false;
	const struct block *b = (const struct block *)(uintptr_t)v;
	if (size)
		*size = b->size;
	if (tag)
		*tag = b->tag;
	return true;
}

const struct alloc_stats *alloc_stats(const struct alloc_model *m)
{
	return &m->st;
}

const struct alloc_config *alloc_model_config(const struct alloc_model *m)
{
	return &m->cfg;
}

/* Check one segment chain from its head: blocks tile it, free neighbours
 * of equal mappedness never touch, each block is where it should be. */
static const char *check_chain(const struct alloc_model *m, const struct block *head, uint64_t *mapped)
{
	for (const struct block *b = head; b; b = b->next) {
		if (b->next && b->next->addr != b->addr + b->size)
			return "blocks of a segment do not tile it";
		if (b->next && b->next->prev != b)
			return "a segment's links disagree";
		if (b->next && !b->allocated && !b->next->allocated && b->mapped == b->next->mapped)
			return "two free neighbours were not merged";
		uint64_t v;
		if (b->allocated != alloc_map_get(&m->active, b->addr, &v))
			return "an allocated block is not in the address map (or a free one is)";
		if (!b->allocated && !b->in_tree)
			return "a free block is in no pool";
		if (b->mapped)
			*mapped += b->size;
	}
	return NULL;
}

const char *alloc_check(const struct alloc_model *m)
{
	uint64_t mapped = 0, allocated = 0;
	/* Heads of segments reachable from free blocks and allocated blocks;
	 * count each chain once by visiting it only from its head, found by
	 * walking back from every block (slow, tests only). */
	struct alloc_map seen;
	alloc_map_init(&seen);
	const char *bad = NULL;
	for (int i = 0; i < 2 && !bad; i++) {
		const struct tree *ts[2] = {&m->pools[i].blocks, &m->pools[i].unmapped};
		for (int k = 0; k < 2 && !bad; k++) {
			struct block *prev = NULL;
			for (struct block *b = tree_first(ts[k]); b && !bad; b = tree_next(b)) {
				if (prev && key_cmp(ts[k]->order, prev->stream, prev->size, prev->addr, b) >= 0)
					bad = "a pool's tree is out of order";
				if (b->up && b->prio < b->up->prio)
					bad = "a pool's tree breaks its heap order";
				if (b->mapped != (k == 0) || b->small != (i == 0))
					bad = "a block is in the wrong tree";
				prev = b;
				const struct block *h = b;
				while (h->prev)
					h = h->prev;
				uint64_t v;
				if (!alloc_map_get(&seen, h->addr, &v)) {
					alloc_map_put(&seen, h->addr, 1);
					if (!bad)
						bad = check_chain(m, h, &mapped);
				}
			}
		}
	}
	for (size_t i = 0; i < m->active.cap && !bad; i++) {
		if (!m->active.used[i])
			continue;
		const struct block *b = (const struct block *)(uintptr_t)m->active.vals[i];
		allocated += b->size;
		const struct block *h = b;
		while (h->prev)
			h = h->prev;
		uint64_t v;
		if (!alloc_map_get(&seen, h->addr, &v)) {
			alloc_map_put(&seen, h->addr, 1);
			bad = check_chain(m, h, &mapped);
		}
	}
	alloc_map_done(&seen);
	if (bad)
		return bad;
	if (allocated != m->st.allocated)
		return "allocated bytes disagree with the blocks";
	if (mapped != m->st.reserved)
		return "reserved bytes disagree with the segments";
	size_t nsegs = 0;
	for (struct block *b = tree_first(&m->segs), *prev = NULL; b; prev = b, b = tree_next(b)) {
		if (prev && prev->addr + prev->size > b->addr)
			return "two segments overlap";
		nsegs++;
	}
	if (nsegs != m->st.segments)
		return "the segment count disagrees with the segments";
	return NULL;
}

/* ------------------------------------------------------------------ */
/* PYTORCH_CUDA_ALLOC_CONF */

/* Tokens as the allocator's lexer splits them: each of , : [ ] alone,
 * other runs of characters with spaces dropped. */
struct tokens {
	char (*t)[64];
	size_t n, cap;
};

static int lex(const char *s, struct tokens *tk, char *why, size_t why_size)
{
	char buf[64];
	size_t len = 0;
	for (;; s++) {
		bool sep = *s == ',' || *s == ':' || *s == '[' || *s == ']';
		if (!*s || sep) {
			if (len) {
				XGROW(tk->t, tk->cap, tk->n + 1);
				memcpy(tk->t[tk->n], buf, len);
				tk->t[tk->n++][len] = 0;
				len = 0;
			}
			if (!*s)
				return 0;
			XGROW(tk->t, tk->cap, tk->n + 1);
			tk->t[tk->n][0] = *s;
			tk->t[tk->n++][1] = 0;
		} else if (*s != ' ') {
			if (len + 1 >= sizeof buf) {
				snprintf(why, why_size, "a word of more than %zu characters", sizeof buf - 1);
				return -1;
			}
			buf[len++] = *s;
		}
	}
}

static bool parse_uint(const char *s, uint64_t *v)
{
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	char *end;
	unsigned long long x = strtoull(s, &end, 10);
	if (*end || errno)
		return false;
	*v = x;
	return true;
}

static const char *const known_settings[] = {
	"max_split_size_mb", "max_non_split_rounding_mb", "garbage_collection_threshold",
	"roundup_power2_divisions", "expandable_segments", "backend", "release_lock_on_cudamalloc",
	"pinned_use_cuda_host_register", "pinned_num_register_threads", "pinned_use_background_threads",
	"pinned_reserve_segment_size_mb", "graph_capture_record_stream_reuse",
};

int alloc_spec_parse(struct alloc_config *c, const char *spec, char *why, size_t why_size)
{
	alloc_config_default(c);
	if (strncmp(spec, "pytorch", 7) || (spec[7] && spec[7] != ':')) {
		snprintf(why, why_size, "the allocator modelled is pytorch (pytorch or pytorch:CONF)");
		return -1;
	}
	return spec[7] ? alloc_config_parse(c, spec + 8, why, why_size) : 0;
}

int alloc_config_parse(struct alloc_config *c, const char *text, char *why, size_t why_size)
{
	struct tokens tk = {0};
	int rc = -1;
	if (lex(text, &tk, why, why_size))
		goto out;
	for (size_t i = 0; i < tk.n; i++) {
		const char *key = tk.t[i];
#define NEXT_IS(ch) (i + 1 < tk.n && tk.t[i + 1][0] == (ch) && !tk.t[i + 1][1])
#define VALUE() (i + 1 < tk.n ? tk.t[++i] : (++i, ""))
		if (!NEXT_IS(':')) {
			size_t nk = sizeof known_settings / sizeof *known_settings;
			bool known = false;
			for (size_t k = 0; k < nk; k++)
				known |= !strcmp(key, known_settings[k]);
			if (!known) {
				const char *near = nearest_name(key, known_settings, nk);
				snprintf(why, why_size, "unknown setting '%s'%s%s%s", key, near ? " (did you mean '" : "",
					 near ? near : "", near ? "'?)" : "");
			} else {
				snprintf(why, why_size, "setting '%s' wants ':' and a value", key);
			}
			goto out;
		}
		i++;
		if (!strcmp(key, "max_split_size_mb") || !strcmp(key, "max_non_split_rounding_mb")) {
			const char *v = VALUE();
			uint64_t mb;
			if (!parse_uint(v, &mb) || mb < ALLOC_LARGE_BUFFER >> 20) {
				snprintf(why, why_size, "%s wants a whole number of MiB of at least %llu, not '%s'", key,
					 (unsigned long long)(ALLOC_LARGE_BUFFER >> 20), v);
				goto out;
			}
			uint64_t bytes = mb > (UINT64_MAX >> 20) ? UINT64_MAX : mb << 20;
			if (key[4] == 's')
				c->max_split_size = bytes;
			else
				c->max_non_split_rounding = bytes;
		} else if (!strcmp(key, "garbage_collection_threshold")) {
			const char *v = VALUE();
			char *end;
			errno = 0;
			double x = strtod(v, &end);
			if (!*v || *end || errno || !(x > 0 && x < 1)) {
				snprintf(why, why_size, "garbage_collection_threshold wants a number in (0, 1), not '%s'", v);
				goto out;
			}
			c->gc_threshold = x;
		} else if (!strcmp(key, "roundup_power2_divisions")) {
			if (NEXT_IS('[')) {
				i++;
				size_t last = 0;
				bool first = true;
				for (;;) {
					if (i + 1 >= tk.n) {
						snprintf(why, why_size, "roundup_power2_divisions: a list without ']'");
						goto out;
					}
					const char *k1 = tk.t[++i];
					if (!strcmp(k1, "]"))
						break;
					if (!NEXT_IS(':')) {
						snprintf(why, why_size, "roundup_power2_divisions: '%s' wants ':' and divisions", k1);
						goto out;
					}
					i++;
					const char *v = VALUE();
					uint64_t d, mb;
					if (!parse_uint(v, &d) || (d && !is_pow2(d)) || d > UINT32_MAX) {
						snprintf(why, why_size, "roundup_power2_divisions: divisions must be a power "
							 "of 2 or 0, not '%s'", v);
						goto out;
					}
					if (!strcmp(k1, ">")) {
						for (size_t x = last; x < ALLOC_DIVISION_INTERVALS; x++)
							c->divisions[x] = (uint32_t)d;
					} else {
						if (!parse_uint(k1, &mb) || !is_pow2(mb)) {
							snprintf(why, why_size, "roundup_power2_divisions: a size "
								 "class must be a power of 2 MiB or '>', not '%s'", k1);
							goto out;
						}
						size_t idx = (size_t)floor_log2(mb);
						if (idx > ALLOC_DIVISION_INTERVALS - 1)
							idx = ALLOC_DIVISION_INTERVALS - 1;
						if (first) {
							for (size_t x = 0; x < idx; x++)
								c->divisions[x] = (uint32_t)d;
							first = false;
						}
						c->divisions[idx] = (uint32_t)d;
						last = idx;
					}
					if (NEXT_IS(','))
						i++;
					else if (!NEXT_IS(']')) {
						snprintf(why, why_size, "roundup_power2_divisions: expected ',' or ']' "
							 "after '%s'", v);
						goto out;
					}
				}
			} else {
				const char *v = VALUE();
				uint64_t d;
				if (!parse_uint(v, &d) || !is_pow2(d) || d > UINT32_MAX) {
					snprintf(why, why_size, "roundup_power2_divisions wants a power of 2 or a "
						 "list [SIZE_MB:DIVISIONS,...,>:DIVISIONS], not '%s'", v);
					goto out;
				}
				for (size_t x = 0; x < ALLOC_DIVISION_INTERVALS; x++)
					c->divisions[x] = (uint32_t)d;
			}
		} else if (!strcmp(key, "expandable_segments") || !strcmp(key, "release_lock_on_cudamalloc") ||
			   !strcmp(key, "pinned_use_cuda_host_register") ||
			   !strcmp(key, "pinned_use_background_threads") ||
			   !strcmp(key, "graph_capture_record_stream_reuse")) {
			const char *v = VALUE();
			if (strcmp(v, "True") && strcmp(v, "False")) {
				snprintf(why, why_size, "%s wants True or False, not '%s'", key, v);
				goto out;
			}
			if (key[0] == 'e')
				c->expandable_segments = !strcmp(v, "True");
			/* the others change locking or pinned host memory, not
			 * where device blocks go */
		} else if (!strcmp(key, "backend")) {
			const char *v = VALUE();
			if (strcmp(v, "native")) {
				snprintf(why, why_size, "backend:%s is not modelled (only backend:native, the "
					 "caching allocator)", v);
				goto out;
			}
		} else if (!strcmp(key, "pinned_num_register_threads") ||
			   !strcmp(key, "pinned_reserve_segment_size_mb")) {
			const char *v = VALUE();
			uint64_t x;
			if (!parse_uint(v, &x)) {
				snprintf(why, why_size, "%s wants a whole number, not '%s'", key, v);
				goto out;
			}
		} else {
			size_t nk = sizeof known_settings / sizeof *known_settings;
			const char *near = nearest_name(key, known_settings, nk);
			snprintf(why, why_size, "unknown setting '%s'%s%s%s", key, near ? " (did you mean '" : "",
				 near ? near : "", near ? "'?)" : "");
			goto out;
		}
		if (i + 1 < tk.n) {
			if (!NEXT_IS(',')) {
				snprintf(why, why_size, "expected ',' after the value of '%s', not '%s'", key, tk.t[i + 1]);
				goto out;
			}
			i++;
		}
#undef NEXT_IS
#undef VALUE
	}
	rc = 0;
out:
	free(tk.t);
	return rc;
}

const char *alloc_config_text(const struct alloc_config *c, char *buf, size_t size)
{
	size_t n = 0;
	buf[0] = 0;
#define ADD(...) \
	do { \
		if (n < size) \
			n += (size_t)snprintf(buf + n, size - n, "%s", n ? "," : ""); \
		if (n < size) \
			n += (size_t)snprintf(buf + n, size - n, __VA_ARGS__); \
	} while (0)
	if (c->max_split_size != UINT64_MAX)
		ADD("max_split_size_mb:%llu", (unsigned long long)(c->max_split_size >> 20));
	if (c->max_non_split_rounding != ALLOC_LARGE_BUFFER)
		ADD("max_non_split_rounding_mb:%llu", (unsigned long long)(c->max_non_split_rounding >> 20));
	if (c->gc_threshold > 0) {
		char d[FMT_DOUBLE_LEN];
		ADD("garbage_collection_threshold:%s", fmt_double(d, c->gc_threshold));
	}
	bool any = false;
	for (int i = 0; i < ALLOC_DIVISION_INTERVALS; i++)
		any |= c->divisions[i] != 0;
	if (any) {
		ADD("roundup_power2_divisions:[");
		for (int i = 0; i < ALLOC_DIVISION_INTERVALS && n < size; i++)
			n += (size_t)snprintf(buf + n, size - n, "%s%u:%u", i ? "," : "", 1u << i, c->divisions[i]);
		if (n < size)
			n += (size_t)snprintf(buf + n, size - n, "]");
	}
	if (c->expandable_segments)
		ADD("expandable_segments:True");
#undef ADD
	return buf;
}
