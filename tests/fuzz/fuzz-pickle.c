/*
 * fuzz-pickle.c: the value-only pickle reader (sim/lib/alloc/pickle.c) and the
 * snapshot replay on top of it (sim/lib/alloc/snapshot.c), for any bytes: no
 * crash, no hang, no leak; a parse either fails with a message naming a
 * byte offset or gives values whose nesting is within PICKLE_MAX_DEPTH
 * and agrees with the depths the reader recorded (so no value contains
 * itself); a snapshot it accepts replays through the allocator model
 * (with the recorded settings and with expandable segments) with the
 * model's invariants holding. libFuzzer entry point LLVMFuzzerTestOneInput;
 * FUZZ_STANDALONE adds fuzz-main.h's driver.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pickle.h"
#include "snapshot.h"
#include "util.h"

/* The depth of v, worked out again without recursion, bounded by the limit. */
static uint32_t depth_of(const struct pickle_value *root)
{
	struct item {
		const struct pickle_value *v;
		uint32_t d;
	} *stack = NULL;
	size_t n = 0, cap = 0;
	uint32_t deepest = 0;
	XGROW(stack, cap, 1);
	stack[n++] = (struct item){root, 1};
	while (n) {
		struct item it = stack[--n];
		if (it.d > deepest)
			deepest = it.d;
		if (it.d > PICKLE_MAX_DEPTH) {
			fprintf(stderr, "fuzz-pickle: values nest past the limit\n");
			abort();
		}
		if (it.v->depth + it.d - 1 > PICKLE_MAX_DEPTH || it.v->depth < 1) {
			fprintf(stderr, "fuzz-pickle: a recorded depth breaks the limit\n");
			abort();
		}
		int t = it.v->type;
		if (t == PICKLE_LIST || t == PICKLE_TUPLE || t == PICKLE_DICT)
			for (size_t i = 0; i < it.v->u.c.n; i++) {
				if (it.v->u.c.items[i]->depth >= it.v->depth) {
					fprintf(stderr, "fuzz-pickle: an item is as deep as its container\n");
					abort();
				}
				XGROW(stack, cap, n + 1);
				stack[n++] = (struct item){it.v->u.c.items[i], it.d + 1};
			}
	}
	free(stack);
	return deepest;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pickle_doc *doc;
	struct rs_error err;
	if (!pickle_parse(data, size, "fuzz", &doc, &err)) {
		if (depth_of(pickle_root(doc)) != pickle_root(doc)->depth) {
			fprintf(stderr, "fuzz-pickle: the root's depth is wrong\n");
			abort();
		}
		pickle_doc_free(doc);
	} else if (!strstr(err.msg, "byte ")) {
		fprintf(stderr, "fuzz-pickle: a message without its byte offset: %s\n", err.msg);
		abort();
	}
	struct snapshot *s;
	if (snapshot_parse(xmemdup(data, size ? size : 1), size, "fuzz", &s, &err))
		return 0;
	for (size_t t = 0; t < s->ntraces; t++) {
		struct snap_result r;
		if (!snapshot_replay(s, t, &s->settings, &r, &err, "fuzz")) {
			struct snap_live *live;
			snapshot_live_at(s, t, &r, r.allocated_peak_at, &live);
			free(live);
			snapshot_result_done(&r);
		}
		struct alloc_config c;
		alloc_config_default(&c);
		c.expandable_segments = true;
		struct snap_whatif w;
		snapshot_whatif(s, t, &c, UINT64_C(1) << 34, &w, &err, "fuzz");
	}
	snapshot_free(s);
	return 0;
}

#ifdef FUZZ_STANDALONE
/* opcodes (value-building and refused ones), lengths, memo indices */
#define FUZZ_DICT "(.012}])tlduaesKJMNhjqrXBCGTUcRbio\x80\x85\x86\x87\x88\x89\x8a\x8b\x8c\x8d" \
	"\x8e\x8f\x90\x91\x93\x94\x95\xff\x01\x02\x04\x05\x7f"
#include "fuzz-main.h"
#endif
