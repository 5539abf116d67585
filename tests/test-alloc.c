/*
 * test-alloc.c: the allocator model (sim/lib/alloc/alloc.c) rule by rule on
 * hand-made traces whose addresses are worked out here, the settings'
 * parser, a random trace against a plain model written here with linear
 * scans, and the three shared snapshots (`test-alloc shared`: every
 * allocation at its recorded address, every segment_alloc matched; exits
 * 77 without ../shared). `test-alloc bench [EVENTS]` times the model
 * (events a second; docs/allocator.md).
 */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "devmem.h"
#include "heuristics.h"
#include "runtime.h"
#include "snapshot.h"
#include "test-common.h"
#include "util.h"

#define MiB (UINT64_C(1) << 20)
#define SEG(k) ((uint64_t)(k + 1) << 32) /* the k-th segment the test device hands out */

/* A device that hands out SEG(0), SEG(1), ... and records each request. */
struct dev {
	uint64_t sizes[4096];
	int n;
	int frees;
};

static bool dev_alloc(void *ctx, uint64_t bytes, uint64_t stream, bool small, uint64_t *addr)
{
	struct dev *d = ctx;
	(void)stream;
	(void)small;
	ck_assert_int_lt(d->n, 4096);
	d->sizes[d->n] = bytes;
	*addr = SEG(d->n);
	d->n++;
	return true;
}

static void dev_event(void *ctx, char kind, uint64_t addr, uint64_t bytes)
{
	struct dev *d = ctx;
	(void)addr;
	(void)bytes;
	if (kind == 'f')
		d->frees++;
}

static struct alloc_model *model(const char *conf, struct dev *d)
{
	struct alloc_config c;
	alloc_config_default(&c);
	char why[256];
	if (conf && alloc_config_parse(&c, conf, why, sizeof why))
		ck_abort_msg("conf %s: %s", conf, why);
	memset(d, 0, sizeof *d);
	struct alloc_device dv = {dev_alloc, dev_event, d};
	return alloc_new(&c, &dv);
}

static uint64_t take(struct alloc_model *m, uint64_t bytes, uint64_t stream)
{
	uint64_t a;
	ck_assert_msg(!alloc_malloc(m, bytes, stream, 0, &a), "malloc %" PRIu64 " failed", bytes);
	const char *bad = alloc_check(m);
	ck_assert_msg(!bad, "after malloc %" PRIu64 ": %s", bytes, bad);
	return a;
}

static void give(struct alloc_model *m, uint64_t addr)
{
	ck_assert_int_eq(alloc_release(m, addr), 0);
	const char *bad = alloc_check(m);
	ck_assert_msg(!bad, "after free %#" PRIx64 ": %s", addr, bad);
}

START_TEST(rounding)
{
	struct alloc_config c;
	alloc_config_default(&c);
	ck_assert_uint_eq(alloc_round_size(&c, 1), 512);
	ck_assert_uint_eq(alloc_round_size(&c, 512), 512);
	ck_assert_uint_eq(alloc_round_size(&c, 513), 1024);
	ck_assert_uint_eq(alloc_round_size(&c, 1200), 1536);
	ck_assert_uint_eq(alloc_segment_size(512), 2 * MiB);
	ck_assert_uint_eq(alloc_segment_size(MiB), 2 * MiB);
	ck_assert_uint_eq(alloc_segment_size(MiB + 512), 20 * MiB);
	ck_assert_uint_eq(alloc_segment_size(10 * MiB - 512), 20 * MiB);
	ck_assert_uint_eq(alloc_segment_size(10 * MiB), 10 * MiB);
	ck_assert_uint_eq(alloc_segment_size(25 * MiB + 1), 26 * MiB);
	/* roundup_power2_divisions:4: 1.2 MiB lies between 1 and 2 MiB, in
	 * steps of 256 KiB: 1.25 MiB; a power of 2 stays; a size at most
	 * 512 * 4 bytes keeps 512-byte rounding */
	char why[128];
	ck_assert_int_eq(alloc_config_parse(&c, "roundup_power2_divisions:4", why, sizeof why), 0);
	ck_assert_uint_eq(alloc_round_size(&c, 1258291), 1310720);
	ck_assert_uint_eq(alloc_round_size(&c, 2 * MiB), 2 * MiB);
	ck_assert_uint_eq(alloc_round_size(&c, 1200), 1536);
	ck_assert_uint_eq(alloc_round_size(&c, 5000), 5120); /* 4096 + 1024 */
}
END_TEST

START_TEST(small_pool)
{
	struct dev d;
	struct alloc_model *m = model(NULL, &d);
	/* 700 KiB requests: a 2 MiB segment holds two (1433600 bytes), the
	 * third does not fit the 663552 left and gets a new segment */
	ck_assert_uint_eq(take(m, 716800, 0), SEG(0));
	ck_assert_uint_eq(take(m, 716800, 0), SEG(0) + 716800);
	ck_assert_uint_eq(take(m, 716800, 0), SEG(1));
	ck_assert_int_eq(d.n, 2);
	ck_assert_uint_eq(d.sizes[0], 2 * MiB);
	ck_assert_uint_eq(d.sizes[1], 2 * MiB);
	/* a small remainder of 512 bytes or more is split off: 1000 bytes
	 * (1024 rounded) from the 663552 left in segment 0 */
	ck_assert_uint_eq(take(m, 1000, 0), SEG(0) + 1433600);
	ck_assert_uint_eq(alloc_stats(m)->allocated, 3 * 716800 + 1024);
	ck_assert_uint_eq(alloc_stats(m)->reserved, 4 * MiB);
	alloc_free(m);
}
END_TEST

START_TEST(large_pool_and_split)
{
	struct dev d;
	struct alloc_model *m = model(NULL, &d);
	/* 2 MiB + 1 rounds to 2097664 and asks for a 20 MiB segment */
	ck_assert_uint_eq(take(m, 2 * MiB + 1, 0), SEG(0));
	ck_assert_uint_eq(d.sizes[0], 20 * MiB);
	/* 12 MiB fits the 18874368 bytes left, and leaves more than 1 MiB: split */
	ck_assert_uint_eq(take(m, 12 * MiB, 0), SEG(0) + 2097664);
	/* 25 MiB + 1: a segment of its own, rounded to 26 MiB */
	ck_assert_uint_eq(take(m, 25 * MiB + 1, 0), SEG(1));
	ck_assert_uint_eq(d.sizes[1], 26 * MiB);
	/* the rest of segment 0 is 20 MiB - 2097664 - 12 MiB = 6290944
	 * bytes: 5 MiB leaves 1048064, not over 1 MiB, so it takes the whole
	 * block (no split); its size is the block's */
	uint64_t a = take(m, 5 * MiB, 0);
	ck_assert_uint_eq(a, SEG(0) + 2097664 + 12 * MiB);
	uint64_t size;
	ck_assert(alloc_lookup(m, a, &size, NULL));
	ck_assert_uint_eq(size, 6290944);
	ck_assert_int_eq(d.n, 2);
	alloc_free(m);
	/* a remainder of exactly 1 MiB is not split (it must be over 1 MiB) ... */
	m = model(NULL, &d);
	ck_assert_uint_eq(take(m, 19 * MiB, 0), SEG(0));
	ck_assert(alloc_lookup(m, SEG(0), &size, NULL));
	ck_assert_uint_eq(size, 20 * MiB);
	alloc_free(m);
	/* ... while leaving 1 MiB + 512 splits */
	m = model(NULL, &d);
	ck_assert_uint_eq(take(m, 19 * MiB - 512, 0), SEG(0));
	ck_assert_uint_eq(take(m, 2 * MiB, 0), SEG(1)); /* 1 MiB + 512 is too small for it */
	ck_assert_uint_eq(take(m, MiB + 512, 0), SEG(0) + 19 * MiB - 512);
	ck_assert(alloc_lookup(m, SEG(0), &size, NULL));
	ck_assert_uint_eq(size, 19 * MiB - 512);
	alloc_free(m);
}
END_TEST

START_TEST(merge_on_free)
{
	struct dev d;
	struct alloc_model *m = model(NULL, &d);
	uint64_t a = take(m, 4096, 0), b = take(m, 8192, 0), c = take(m, 4096, 0);
	ck_assert_uint_eq(a, SEG(0));
	ck_assert_uint_eq(b, SEG(0) + 4096);
	ck_assert_uint_eq(c, SEG(0) + 12288);
	give(m, b);
	give(m, a); /* merges with b's block: 12288 bytes at SEG(0) */
	/* 12288 bytes fit exactly at SEG(0), not in the larger tail after c */
	ck_assert_uint_eq(take(m, 12288, 0), SEG(0));
	give(m, c);
	give(m, SEG(0));
	/* everything merged back into one free 2 MiB block */
	ck_assert_uint_eq(take(m, 2 * MiB - 1024 + 1, 0), SEG(1)); /* a large request: other pool */
	ck_assert_uint_eq(take(m, MiB, 0), SEG(0));
	ck_assert_uint_eq(take(m, MiB, 0), SEG(0) + MiB);
	ck_assert_int_eq(d.n, 2);
	alloc_free(m);
}
END_TEST

START_TEST(best_fit_and_streams)
{
	struct dev d;
	struct alloc_model *m = model(NULL, &d);
	/* free blocks of 3072 at SEG(0), 1024 at SEG(0)+4096 and 1024 at
	 * SEG(0)+6144, with allocated blocks between */
	uint64_t a = take(m, 3072, 0);
	take(m, 1024, 0);
	uint64_t c = take(m, 1024, 0);
	take(m, 1024, 0);
	uint64_t e = take(m, 1024, 0);
	take(m, 1024, 0);
	give(m, a);
	give(m, c);
	give(m, e);
	/* 1000 bytes: the smallest block that fits (1024), the lower address first */
	ck_assert_uint_eq(take(m, 1000, 0), SEG(0) + 4096);
	ck_assert_uint_eq(take(m, 1000, 0), SEG(0) + 6144);
	/* 2000 bytes: the 3072 block, split */
	ck_assert_uint_eq(take(m, 2000, 0), SEG(0));
	/* another stream never takes stream 0's blocks: a segment of its own */
	ck_assert_uint_eq(take(m, 512, 7), SEG(1));
	ck_assert_uint_eq(take(m, 512, 0), SEG(0) + 2048);
	ck_assert_int_eq(d.n, 2);
	alloc_free(m);
}
END_TEST

START_TEST(retry_after_freeing_the_cache)
{
	struct dev d;
	struct alloc_model *m = model(NULL, &d);
	alloc_set_limit(m, 40 * MiB);
	give(m, take(m, 2 * MiB + 1, 0)); /* a cached 20 MiB segment */
	ck_assert_uint_eq(alloc_stats(m)->reserved, 20 * MiB);
	/* 25 MiB needs a 26 MiB segment: 46 MiB is past the limit, so the
	 * cached segment is freed and the allocation retried */
	ck_assert_uint_eq(take(m, 25 * MiB, 0), SEG(1));
	ck_assert_int_eq(d.frees, 1);
	ck_assert_uint_eq(alloc_stats(m)->retries, 1);
	ck_assert_uint_eq(alloc_stats(m)->reserved, 26 * MiB);
	/* 16 MiB more cannot be had: out of memory, nothing changed */
	uint64_t a;
	ck_assert_int_eq(alloc_malloc(m, 16 * MiB, 0, 0, &a), -1);
	ck_assert_uint_eq(alloc_stats(m)->ooms, 1);
	ck_assert_uint_eq(alloc_stats(m)->reserved, 26 * MiB);
	ck_assert_ptr_null(alloc_check(m));
	alloc_free(m);
}
END_TEST

START_TEST(max_split_size)
{
	struct dev d;
	struct alloc_model *m = model("max_split_size_mb:40", &d);
	give(m, take(m, 70 * MiB, 0)); /* a cached 70 MiB block: oversize */
	/* a 10 MiB request never takes an oversize block */
	ck_assert_uint_eq(take(m, 10 * MiB, 0), SEG(1));
	/* 55 MiB may: within 20 MiB of it; oversize blocks are never split */
	uint64_t a = take(m, 55 * MiB, 0), size;
	ck_assert_uint_eq(a, SEG(0));
	ck_assert(alloc_lookup(m, a, &size, NULL));
	ck_assert_uint_eq(size, 70 * MiB);
	give(m, a);
	/* 50 MiB may not (70 >= 50 + 20 wastes too much): a segment of its own */
	ck_assert_uint_eq(take(m, 50 * MiB, 0), SEG(2));
	/* nor 45 MiB: a segment of 46 MiB */
	ck_assert_uint_eq(take(m, 45 * MiB, 0), SEG(3));
	ck_assert_uint_eq(d.sizes[3], 46 * MiB);
	alloc_free(m);
	/* short of memory, oversize cached blocks are freed first, and only
	 * as many as needed (release_available_cached_blocks) */
	m = model("max_split_size_mb:40", &d);
	alloc_set_limit(m, 130 * MiB);
	uint64_t x = take(m, 50 * MiB, 0), y = take(m, 60 * MiB, 0);
	give(m, x);
	give(m, y);
	ck_assert_uint_eq(take(m, 30 * MiB, 0), SEG(2)); /* 110 + 30 > 130: the 50 MiB goes */
	ck_assert_int_eq(d.frees, 1);
	ck_assert_uint_eq(alloc_stats(m)->reserved, 90 * MiB);
	ck_assert_uint_eq(alloc_stats(m)->retries, 0);
	alloc_free(m);
}
END_TEST

START_TEST(garbage_collection)
{
	struct dev d;
	/* without the threshold: both cached 30 MiB segments stay */
	struct alloc_model *m = model(NULL, &d);
	alloc_set_limit(m, 100 * MiB);
	uint64_t a = take(m, 30 * MiB, 0), b = take(m, 30 * MiB, 0);
	give(m, a);
	give(m, b);
	ck_assert_uint_eq(take(m, 40 * MiB, 0), SEG(2));
	ck_assert_int_eq(d.frees, 0);
	ck_assert_uint_eq(alloc_stats(m)->reserved, 100 * MiB);
	alloc_free(m);
	/* with 0.5: 60 MiB reserved is past 50 MiB, so before asking the
	 * device the blocks at least as old as the average are freed */
	m = model("garbage_collection_threshold:0.5", &d);
	alloc_set_limit(m, 100 * MiB);
	a = take(m, 30 * MiB, 0);
	b = take(m, 30 * MiB, 0);
	give(m, a);
	give(m, b);
	ck_assert_uint_eq(take(m, 40 * MiB, 0), SEG(2));
	ck_assert_int_eq(d.frees, 2);
	ck_assert_uint_eq(alloc_stats(m)->reserved, 40 * MiB);
	alloc_free(m);
	/* with 0.7: 60 MiB reserved is not past 70 MiB: nothing is collected */
	m = model("garbage_collection_threshold:0.7", &d);
	alloc_set_limit(m, 100 * MiB);
	a = take(m, 30 * MiB, 0);
	b = take(m, 30 * MiB, 0);
	give(m, a);
	give(m, b);
	ck_assert_uint_eq(take(m, 40 * MiB, 0), SEG(2));
	ck_assert_int_eq(d.frees, 0);
	alloc_free(m);
}
END_TEST

START_TEST(expandable_segments)
{
	struct dev d;
	struct alloc_model *m = model("expandable_segments:True", &d);
	/* a small request maps one 2 MiB page of the small pool's segment */
	uint64_t s0 = take(m, 1000, 0);
	ck_assert_uint_eq(alloc_stats(m)->reserved, 2 * MiB);
	/* a 5 MiB request maps one 20 MiB page of the large pool's segment */
	uint64_t l0 = take(m, 5 * MiB, 0);
	ck_assert_uint_eq(alloc_stats(m)->reserved, 22 * MiB);
	/* the next fits in the mapped page, right after */
	ck_assert_uint_eq(take(m, 5 * MiB, 0), l0 + 5 * MiB);
	/* 30 MiB: the 10 MiB free at the end of the page grows by one more
	 * page (the segment expands) and the block starts there */
	uint64_t big = take(m, 30 * MiB, 0);
	ck_assert_uint_eq(big, l0 + 10 * MiB);
	ck_assert_uint_eq(alloc_stats(m)->reserved, 42 * MiB);
	/* blocks split at 512 bytes in both pools (no 1 MiB rule) */
	give(m, big);
	uint64_t c = take(m, 2 * MiB, 0), size;
	ck_assert_uint_eq(c, l0 + 10 * MiB);
	ck_assert(alloc_lookup(m, c, &size, NULL));
	ck_assert_uint_eq(size, 2 * MiB);
	/* a request past the whole address space (1 TiB without a limit) is out of memory */
	uint64_t huge;
	ck_assert_int_eq(alloc_malloc(m, UINT64_C(1) << 41, 0, 0, &huge), -1);
	ck_assert_ptr_null(alloc_check(m));
	/* the device was never asked for a cudaMalloc segment */
	ck_assert_int_eq(d.n, 0);
	/* emptying the cache unmaps every wholly free page */
	give(m, c);
	give(m, l0);
	give(m, l0 + 5 * MiB);
	give(m, s0);
	alloc_empty_cache(m);
	ck_assert_uint_eq(alloc_stats(m)->reserved, 0);
	ck_assert_uint_eq(alloc_stats(m)->segments, 0);
	ck_assert_ptr_null(alloc_check(m));
	alloc_free(m);
}
END_TEST

START_TEST(empty_cache_and_start_state)
{
	struct dev d;
	struct alloc_model *m = model(NULL, &d);
	/* a segment held from before: 20 MiB at 0x1000000 with one block
	 * allocated at +4 MiB (3 MiB); the gaps are free */
	struct alloc_block_spec b = {0x1000000 + 4 * MiB, 3 * MiB, 3 * MiB, 0, true};
	char why[256];
	ck_assert_int_eq(alloc_add_segment(m, 0x1000000, 20 * MiB, 0, false, &b, 1, why, sizeof why), 0);
	ck_assert_ptr_null(alloc_check(m));
	/* 4 MiB fits the first gap exactly (best fit: 4 MiB < 13 MiB) */
	ck_assert_uint_eq(take(m, 4 * MiB, 0), 0x1000000);
	/* a block outside its segment is refused */
	struct alloc_block_spec out = {0x9000000, MiB, MiB, 0, true};
	ck_assert_int_eq(alloc_add_segment(m, 0x8000000, 2 * MiB, 0, true, &out, 1, why, sizeof why), -1);
	ck_assert_ptr_nonnull(strstr(why, "does not fit"));
	/* frees of addresses nothing allocated */
	ck_assert_int_eq(alloc_release(m, 0x1000000 + 1), -1);
	give(m, 0x1000000);
	give(m, 0x1000000 + 4 * MiB);
	alloc_empty_cache(m);
	ck_assert_uint_eq(alloc_stats(m)->reserved, 0);
	ck_assert_int_eq(d.frees, 1);
	alloc_free(m);
}
END_TEST

START_TEST(settings)
{
	struct alloc_config c;
	char why[256];
	alloc_config_default(&c);
	ck_assert_int_eq(alloc_config_parse(&c, "max_split_size_mb:128, garbage_collection_threshold:0.6,"
					    "expandable_segments:True", why, sizeof why), 0);
	ck_assert_uint_eq(c.max_split_size, 128 * MiB);
	ck_assert(c.gc_threshold == 0.6);
	ck_assert(c.expandable_segments);
	alloc_config_default(&c);
	ck_assert_int_eq(alloc_config_parse(&c, "roundup_power2_divisions:[256:1,512:2,>:8]", why, sizeof why), 0);
	/* sizes below the first class take its value; '>' fills from the last class on */
	ck_assert_uint_eq(c.divisions[0], 1);
	ck_assert_uint_eq(c.divisions[8], 1);
	ck_assert_uint_eq(c.divisions[9], 8);
	ck_assert_uint_eq(c.divisions[15], 8);
	const char *bad[][2] = {
		{"max_split_sise_mb:100", "unknown setting 'max_split_sise_mb' (did you mean 'max_split_size_mb'?)"},
		{"max_split_size_mb:10", "at least 20"},
		{"garbage_collection_threshold:1.5", "(0, 1)"},
		{"expandable_segments:yes", "True or False"},
		{"roundup_power2_divisions:3", "power of 2"},
		{"backend:cudaMallocAsync", "not modelled"},
		{"expandable_segments", "wants ':'"},
		{"expandable_segments:True;x", "True or False"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		alloc_config_default(&c);
		ck_assert_msg(alloc_config_parse(&c, bad[i][0], why, sizeof why) == -1, "accepted %s", bad[i][0]);
		ck_assert_msg(strstr(why, bad[i][1]), "%s: message '%s' lacks '%s'", bad[i][0], why, bad[i][1]);
	}
	/* the text form reads back */
	alloc_config_default(&c);
	ck_assert_int_eq(alloc_config_parse(&c, "max_split_size_mb:64,roundup_power2_divisions:4", why, sizeof why), 0);
	char text[512];
	struct alloc_config c2;
	alloc_config_default(&c2);
	ck_assert_int_eq(alloc_config_parse(&c2, alloc_config_text(&c, text, sizeof text), why, sizeof why), 0);
	ck_assert_int_eq(memcmp(&c, &c2, sizeof c), 0);
}
END_TEST

/* ------------------------------------------------------------------ */
/* A plain model with linear scans (default settings), for the random test. */

struct pblock {
	uint64_t addr, size, stream;
	int seg;
	bool small, allocated;
};
struct plain {
	struct pblock *b;
	size_t n, cap;
	int segs;
};

static uint64_t plain_malloc(struct plain *p, uint64_t bytes, uint64_t stream)
{
	struct alloc_config c;
	alloc_config_default(&c);
	uint64_t size = alloc_round_size(&c, bytes);
	bool small = size <= ALLOC_SMALL_SIZE;
	size_t best = SIZE_MAX;
	for (size_t i = 0; i < p->n; i++) {
		struct pblock *b = &p->b[i];
		if (b->allocated || b->small != small || b->stream != stream || b->size < size)
			continue;
		if (best == SIZE_MAX || b->size < p->b[best].size ||
		    (b->size == p->b[best].size && b->addr < p->b[best].addr))
			best = i;
	}
	if (best == SIZE_MAX) {
		XGROW(p->b, p->cap, p->n + 1);
		p->b[p->n] = (struct pblock){SEG(p->segs), alloc_segment_size(size), stream, p->segs, small, false};
		p->segs++;
		best = p->n++;
	}
	struct pblock *b = &p->b[best];
	uint64_t rest = b->size - size;
	if (small ? rest >= 512 : rest > ALLOC_SMALL_SIZE) {
		XGROW(p->b, p->cap, p->n + 1);
		b = &p->b[best];
		p->b[p->n++] = (struct pblock){b->addr + size, rest, stream, b->seg, small, false};
		b->size = size;
	}
	b->allocated = true;
	return b->addr;
}

static void plain_free(struct plain *p, uint64_t addr)
{
	size_t i = 0;
	while (p->b[i].addr != addr || !p->b[i].allocated)
		i++;
	p->b[i].allocated = false;
	/* merge with the free neighbours of the same segment */
	for (bool again = true; again;) {
		again = false;
		for (size_t k = 0; k < p->n; k++) {
			struct pblock *x = &p->b[i], *y = &p->b[k];
			if (k == i || y->allocated || y->seg != x->seg)
				continue;
			if (y->addr + y->size == x->addr || x->addr + x->size == y->addr) {
				if (y->addr < x->addr)
					x->addr = y->addr;
				x->size += y->size;
				p->b[k] = p->b[--p->n];
				if (i == p->n)
					i = k;
				again = true;
				break;
			}
		}
	}
}

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static uint64_t random_size(void)
{
	switch (rnd() % 4) {
	case 0: return 1 + rnd() % 4096;
	case 1: return 1 + rnd() % MiB;
	case 2: return MiB + 1 + rnd() % (9 * MiB);
	default: return 1 + rnd() % (64 * MiB);
	}
}

START_TEST(random_against_plain)
{
	struct dev d;
	struct alloc_model *m = model(NULL, &d);
	struct plain p = {0};
	uint64_t live[200];
	size_t nlive = 0;
	for (int step = 0; step < 3000; step++) {
		if (nlive < 200 && (nlive == 0 || rnd() % 5 < 3)) {
			uint64_t bytes = random_size(), stream = rnd() % 3;
			uint64_t want = plain_malloc(&p, bytes, stream);
			uint64_t got;
			ck_assert_int_eq(alloc_malloc(m, bytes, stream, 0, &got), 0);
			ck_assert_msg(got == want, "step %d: malloc %" PRIu64 " on stream %" PRIu64 ": model %#" PRIx64
				      ", plain %#" PRIx64, step, bytes, stream, got, want);
			live[nlive++] = got;
		} else {
			size_t k = rnd() % nlive;
			plain_free(&p, live[k]);
			ck_assert_int_eq(alloc_release(m, live[k]), 0);
			live[k] = live[--nlive];
		}
		if (step % 64 == 0) {
			const char *bad = alloc_check(m);
			ck_assert_msg(!bad, "step %d: %s", step, bad);
		}
	}
	free(p.b);
	alloc_free(m);
}
END_TEST

/* ------------------------------------------------------------------ */
/* A replay followed through the model (devmem.c, replay --allocator). */

/* w (1000 bytes) -> a (2 MiB + 1) -> b (3000) -> c (2 MiB + 1), released at the end. */
static struct schedule *four_ops(void)
{
	struct logb b = {0};
	logb_const(&b, "w", 1000);
	logb_call(&b, "a", "\"w\"", 2 * 1024 * 1024 + 1, 1);
	logb_call(&b, "b", "\"a\"", 3000, 1);
	logb_call(&b, "c", "\"b\"", 2 * 1024 * 1024 + 1, 1);
	const char *names[] = {"w", "a", "b", "c"};
	for (int i = 0; i < 4; i++)
		logb_release(&b, names[i]);
	return logb_build(&b);
}

static struct devmem_result follow(const struct schedule *s, const char *h, uint64_t budget, uint64_t device,
				   struct runtime_result *res)
{
	struct alloc_config c;
	alloc_config_default(&c);
	struct devmem *d = devmem_new(s, &c, device);
	struct runtime_config cfg = {
		.runtime = RUNTIME_V2, .heuristic = h ? heuristic_find(h) : NULL, .budget = budget,
		.remat_limit = INFINITY, .check = true, .on_event = devmem_on_event, .ctx = d,
	};
	struct rs_error err;
	ck_assert_int_eq(runtime_run(s, &cfg, res, &err), 0);
	struct devmem_result r;
	devmem_result(d, &r);
	devmem_free(d);
	ck_assert_msg(!r.broken, "the follower lost the replay's memory");
	return r;
}

START_TEST(replay_through_the_model)
{
	struct schedule *s = four_ops();
	struct runtime_result res;
	/* w: 1024 in a small segment; a: 2097664 in a 20 MiB segment; b:
	 * 3072 after w; c: 2097664 after a in the same large segment */
	struct devmem_result r = follow(s, NULL, UINT64_MAX, UINT64_MAX, &res);
	ck_assert_uint_eq(r.allocated_peak, 1024 + 2097664 + 3072 + 2097664);
	ck_assert_uint_eq(r.reserved_peak, 22 * MiB);
	ck_assert_uint_eq(r.fragmentation_at_reserved_peak, 22 * MiB - 1024 - 2097664);
	ck_assert_uint_eq(r.segments_peak, 2);
	ck_assert_uint_eq(r.device_allocs, 2);
	ck_assert(!r.oom);
	/* a device of 21 MiB holds the small segment but not the large one:
	 * a's allocation fails, and the verdict names its command */
	r = follow(s, NULL, UINT64_MAX, 21 * MiB, &res);
	ck_assert(r.oom);
	ck_assert_uint_eq(r.oom_bytes, 2 * MiB + 1);
	ck_assert_int_eq(s->cmds[r.oom_cmd].kind, CMD_COMPUTE);
	ck_assert_uint_eq(s->ops[s->cmds[r.oom_cmd].id].total_size, 2 * MiB + 1);
	schedule_free(s);
	/* evictions and rematerializations under a budget: every one through the model */
	s = logb_chain();
	r = follow(s, "LRU", 310, UINT64_MAX, &res);
	ck_assert_uint_gt(res.evictions, 0);
	ck_assert_uint_gt(res.remats, 0);
	ck_assert_uint_eq(r.reserved_peak, 2 * MiB);
	ck_assert_uint_le(r.allocated_peak, 512 * 4); /* at most 4 of the 512-byte blocks at once (310 bytes) */
	schedule_free(s);
}
END_TEST

static int shared_snapshots(void)
{
	const char *names[] = {"magma27-assignment2.pickle", "cranberrii-ftcourse.pickle",
			       "kkaitlyn111-ctx128-fullstep.pickle"};
	/* allocs, segment_allocs (../shared/snapshots/README.md) */
	const size_t want[][2] = {{1721, 0}, {3505, 152}, {6771, 783}};
	if (!shared_dir()) {
		fprintf(stderr, "no ../shared: the snapshots are skipped\n");
		return EXIT_SKIP;
	}
	int bad = 0;
	for (int i = 0; i < 3; i++) {
		char path[4096], rel[256];
		snprintf(rel, sizeof rel, "snapshots/%s", names[i]);
		shared_path(path, sizeof path, rel);
		struct snapshot *s;
		struct rs_error err;
		if (snapshot_read(path, &s, &err)) {
			rs_error_print(&err);
			return 1;
		}
		struct snap_result r;
		if (snapshot_replay(s, 0, &s->settings, &r, &err, path)) {
			rs_error_print(&err);
			return 1;
		}
		printf("%s: %zu of %zu allocations at the recorded address, %zu of %zu segment_allocs matched "
		       "(model asked %zu)\n", names[i], r.addresses_matched, r.allocs, r.segment_allocs_matched,
		       r.segment_allocs, r.model_segment_allocs);
		if (r.allocs != want[i][0] || r.segment_allocs != want[i][1] || r.addresses_matched != r.allocs ||
		    r.segment_allocs_matched != r.segment_allocs || r.model_segment_allocs != r.segment_allocs ||
		    r.first_bad != SIZE_MAX) {
			fprintf(stderr, "%s: disagreement: %s\n", names[i], r.first_bad_text);
			bad = 1;
		}
		snapshot_result_done(&r);
		snapshot_free(s);
	}
	return bad;
}

/* Random events through the model: events a second. */
static int bench(long events)
{
	struct alloc_config c;
	alloc_config_default(&c);
	struct alloc_model *m = alloc_new(&c, NULL);
	size_t cap = 4096, nlive = 0;
	uint64_t *live = xmalloc(cap * sizeof *live);
	double t0 = now_seconds();
	for (long i = 0; i < events; i++) {
		if (nlive < cap && (nlive < 64 || rnd() % 2)) {
			uint64_t a;
			if (alloc_malloc(m, random_size(), rnd() % 2, 0, &a))
				return 1;
			live[nlive++] = a;
		} else {
			size_t k = rnd() % nlive;
			alloc_release(m, live[k]);
			live[k] = live[--nlive];
		}
	}
	double dt = now_seconds() - t0;
	printf("%ld events (mallocs and frees, up to %zu live, 4 size classes, 2 streams) in %.3f s: "
	       "%.2f million events/s; %" PRIu64 " segments, %" PRIu64 " bytes reserved\n", events, cap, dt,
	       (double)events / dt / 1e6, alloc_stats(m)->segments, alloc_stats(m)->reserved);
	free(live);
	alloc_free(m);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "shared"))
		return shared_snapshots();
	if (argc > 1 && !strcmp(argv[1], "bench"))
		return bench(argc > 2 ? atol(argv[2]) : 5000000);
	Suite *s = suite_create("alloc");
	TCase *tc = tcase_create("alloc");
	tcase_add_test(tc, rounding);
	tcase_add_test(tc, small_pool);
	tcase_add_test(tc, large_pool_and_split);
	tcase_add_test(tc, merge_on_free);
	tcase_add_test(tc, best_fit_and_streams);
	tcase_add_test(tc, retry_after_freeing_the_cache);
	tcase_add_test(tc, max_split_size);
	tcase_add_test(tc, garbage_collection);
	tcase_add_test(tc, expandable_segments);
	tcase_add_test(tc, empty_cache_and_start_state);
	tcase_add_test(tc, settings);
	tcase_add_test(tc, random_against_plain);
	tcase_add_test(tc, replay_through_the_model);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
