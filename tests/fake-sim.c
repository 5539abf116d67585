/*
 * fake-sim.c: a test-only stand-in for the simulator (runtime.c,
 * heuristics.c) and, until it lands, the reader, so that the experiment
 * layer's engine (threads, resume, shards, merge, outputs) can be tested on
 * its own. Results are made-up but deterministic functions of the point.
 * Never linked into the real rematsim.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heuristics.h"
#include "runtime.h"
#include "source.h"

static const struct heuristic fake_heuristics[] = {
	{"DTR", "h_DTR", NEEDS_REGIONS, false, 0},
	{"DTREqClass", "h_DTR^eq", NEEDS_EQCLASS, false, 1},
	{"DTRLocal", "h_DTR^local", 0, false, 2},
	{"MSPS", "h_MSPS", NEEDS_REGIONS, false, 3},
	{"LRU", "h_LRU", 0, false, 4},
	{"LargestStorage", "h_size", 0, false, 5},
	{"RandomStorage", "h_rand", 0, true, 6},
	{"DTRUnopt", "DTR-Full", NEEDS_UNOPT, false, 7},
	{"AbESizeStale", "e*,size,stale", NEEDS_REGIONS, false, 8},
	{"AbESize", "e*,size", NEEDS_REGIONS, false, 9},
	{"AbEStale", "e*,stale", NEEDS_REGIONS, false, 10},
	{"AbE", "e*", NEEDS_REGIONS, false, 11},
	{"AbEqSizeStale", "eq,size,stale", NEEDS_EQCLASS, false, 12},
	{"AbEqSize", "eq,size", NEEDS_EQCLASS, false, 13},
	{"AbEqStale", "eq,stale", NEEDS_EQCLASS, false, 14},
	{"AbEq", "eq", NEEDS_EQCLASS, false, 15},
	{"AbLocalSizeStale", "local,size,stale", 0, false, 16},
	{"AbLocalSize", "local,size", 0, false, 17},
	{"AbLocalStale", "local,stale", 0, false, 18},
	{"AbLocal", "local", 0, false, 19},
	{"AbSizeStale", "size,stale", 0, false, 20},
	{"AbSize", "size", 0, false, 21},
	{"AbStale", "stale", 0, false, 22},
	{"AbRandom", "random", 0, true, 23},
};
#define N_FAKE (sizeof fake_heuristics / sizeof fake_heuristics[0])

const struct heuristic *heuristic_find(const char *name)
{
	for (size_t i = 0; i < N_FAKE; i++)
		if (!strcmp(fake_heuristics[i].name, name))
			return &fake_heuristics[i];
	return NULL;
}

const struct heuristic *heuristic_list(size_t *n)
{
	*n = N_FAKE;
	return fake_heuristics;
}

static const char *const kinds[] = {"V1", "V2", "V2Eager", "V2Optimized", "V2EagerOptimized"};

const char *runtime_kind_name(enum runtime_kind k)
{
	return kinds[k];
}

int runtime_kind_parse(const char *name, enum runtime_kind *k)
{
	for (int i = 0; i < RUNTIME_KIND_COUNT; i++)
		if (!strcmp(kinds[i], name)) {
			*k = (enum runtime_kind)i;
			return 0;
		}
	return -1;
}

const char *outcome_name(enum outcome o)
{
	return o == OUTCOME_PASS ? "pass" : o == OUTCOME_OOM ? "oom" : "thrash";
}

void baseline_run(const struct schedule *s, struct baseline *b)
{
	b->memory = 1000 * (uint64_t)s->n_ops + 5000;
	b->compute = 10 * (int64_t)s->n_ops + 100;
	b->const_memory = 50 * (uint64_t)s->n_ops;
	b->bottleneck_memory = b->const_memory + 900;
}

int point_run(const struct schedule *s, const struct baseline *b,
	      const struct point_config *pc, struct point_result *pr,
	      struct rs_error *err)
{
	(void)err;
	memset(pr, 0, sizeof *pr);
	pr->budget = pc->budget ? pc->budget : (uint64_t)floor((double)b->memory * pc->ratio);
	double r = (double)pr->budget / (double)b->memory;
	double hk = 1 + pc->heuristic->kind * 0.05 + (pc->no_dealloc ? 0.3 : 0);
	double noise = pc->heuristic->random ? (double)(pc->seed % 1000) / 4000.0 : 0;
	double ov = 1 + hk * 0.02 / (r * r) + noise * (1 - r);
	struct runtime_result *run = &pr->run;
	if (r < 0.15 + 0.001 * (double)s->n_ops) {
		run->outcome = OUTCOME_OOM;
		ov = 1 + r;
	} else if (ov > pc->overhead_limit) {
		run->outcome = OUTCOME_THRASH;
	} else {
		run->outcome = OUTCOME_PASS;
	}
	pr->overhead = ov;
	run->model_compute = b->compute;
	run->remat_compute = (int64_t)((ov - 1) * (double)b->compute);
	run->clock = run->model_compute + run->remat_compute + 1;
	run->peak_memory = pr->budget < b->memory ? pr->budget : b->memory;
	run->evictions = (uint64_t)(100 * (1 - r));
	run->remats = run->evictions / 2;
	run->heuristic_evals = run->evictions * 7;
	run->heuristic_accesses = pc->heuristic->needs ? run->heuristic_evals * 13 : 0;
	pr->wall_ms = 0.001 + (double)(pc->seed % 7);
	return 0;
}

#if !FAKE_HAVE_READER
/*
 * The reader's stand-in: counts lines as ops and hashes the bytes. Only
 * what the experiment layer looks at is filled.
 */
#include "schedule.h"

int schedule_read(const char *spec, const struct read_options *opt,
		  struct schedule **out, struct rs_error *err)
{
	(void)opt;
	char *data;
	size_t len;
	*out = NULL;
	if (source_load(spec, &data, &len, err))
		return -1;
	struct schedule *s = calloc(1, sizeof *s);
	s->source = strdup(spec);
	for (size_t i = 0; i < len; i++)
		s->n_ops += data[i] == '\n';
	s->n_tensors = 2 * s->n_ops;
	if (!strstr(data, "INSTRUCTION")) {
		free(data);
		free(s->source);
		free(s);
		return rs_error_set(err, EXIT_DATAERR, spec, 1, "not an op log");
	}
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)data[i]) * 0x100000001b3ull;
	for (int i = 0; i < 32; i++)
		s->sha256[i] = (uint8_t)(h >> (8 * (i % 8))) ^ (uint8_t)i;
	free(data);
	*out = s;
	return 0;
}

void schedule_free(struct schedule *s)
{
	if (!s)
		return;
	free(s->source);
	free(s);
}

int source_load(const char *spec, char **data, size_t *len, struct rs_error *err)
{
	FILE *f = fopen(spec, "rb");
	if (!f)
		return rs_error_set(err, EXIT_NOINPUT, spec, 0, "cannot open");
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap + 1);
	size_t got;
	while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap)
			buf = realloc(buf, (cap *= 2) + 1);
	}
	fclose(f);
	buf[n] = 0;
	*data = buf;
	*len = n;
	return 0;
}

int manifest_read(const char *path, struct manifest **out, struct rs_error *err)
{
	(void)out;
	return rs_error_set(err, EXIT_NOINPUT, path, 0, "manifests need the real reader");
}

void manifest_free(struct manifest *m)
{
	(void)m;
}
#endif
