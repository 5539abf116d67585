/*
 * cache.c: replay results kept in a folder across sweeps (cache.h). One
 * file per replay, DIR/<sha256 of the key>.replay:
 *
 *   rematsim replay cache 1
 *   <the key, one line>
 *   <one line per field of struct point_result, name and value; doubles
 *    in C's hexadecimal notation, so they read back to the bit>
 *
 * The fields are a table (fields[]), read and written in its order; an
 * entry read back must match it line for line, so a change of the table
 * (or of the program: its digest is in the key) makes older entries
 * misses, never wrong results.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "hash.h"
#include "heuristics.h"
#include "outfile.h"
#include "sha256.h"

#define HEADER "rematsim replay cache 1"

struct pcache {
	char *dir;
	char bin[65];          /* the executable's SHA-256, hex */
	pthread_mutex_t lock;  /* guards what follows */
	bool read_only;        /* after a failed write */
	bool said_damaged;     /* a damaged entry was said on stderr */
	uint64_t hits, stored;
};

/* ---- the fields of a result -------------------------------------------- */

enum field_type { F_U64, F_I64, F_DOUBLE, F_OUTCOME, F_SIZE };
struct field {
	const char *name;
	size_t offset;
	enum field_type type;
};
#define PR(f, t) {#f, offsetof(struct point_result, f), t}
#define RUN(f, t) {#f, offsetof(struct point_result, run) + offsetof(struct runtime_result, f), t}
static const struct field fields[] = {
	PR(budget, F_U64), PR(overhead, F_DOUBLE), PR(wall_ms, F_DOUBLE),
	RUN(outcome, F_OUTCOME), RUN(clock, F_I64), RUN(model_compute, F_I64),
	RUN(remat_compute, F_I64), RUN(peak_memory, F_U64), RUN(const_memory, F_U64),
	RUN(evictions, F_U64), RUN(remats, F_U64), RUN(heuristic_evals, F_U64),
	RUN(heuristic_accesses, F_U64), RUN(bottleneck_memory, F_U64), RUN(stopped_at, F_SIZE),
	RUN(offloads, F_U64), RUN(bytes_offloaded, F_U64), RUN(fetches, F_U64),
	RUN(bytes_fetched, F_U64), RUN(stall_ns, F_I64), RUN(d2h_busy_ns, F_I64),
	RUN(h2d_busy_ns, F_I64), RUN(peak_host_memory, F_U64),
};
#undef PR
#undef RUN
#define N_FIELDS (sizeof fields / sizeof fields[0])

static void put_field(FILE *f, const struct field *d, const struct point_result *pr)
{
	const char *p = (const char *)pr + d->offset;
	switch (d->type) {
	case F_U64: fprintf(f, "%s %" PRIu64 "\n", d->name, *(const uint64_t *)p); break;
	case F_I64: fprintf(f, "%s %" PRId64 "\n", d->name, *(const int64_t *)p); break;
	case F_DOUBLE: fprintf(f, "%s %a\n", d->name, *(const double *)p); break;
	case F_OUTCOME: fprintf(f, "%s %d\n", d->name, (int)*(const enum outcome *)p); break;
	case F_SIZE: fprintf(f, "%s %zu\n", d->name, *(const size_t *)p); break;
	}
}

/* One line "name value" of field d into pr: whether it was that, whole. */
static bool get_field(const char *line, const struct field *d, struct point_result *pr)
{
	size_t n = strlen(d->name);
	if (strncmp(line, d->name, n) || line[n] != ' ')
		return false;
	const char *v = line + n + 1;
	char *end;
	char *p = (char *)pr + d->offset;
	errno = 0;
	switch (d->type) {
	case F_U64: *(uint64_t *)p = strtoull(v, &end, 10); break;
	case F_I64: *(int64_t *)p = strtoll(v, &end, 10); break;
	case F_DOUBLE: *(double *)p = strtod(v, &end); break;
	case F_OUTCOME: {
		long o = strtol(v, &end, 10);
		if (o < OUTCOME_PASS || o > OUTCOME_THRASH)
			return false;
		*(enum outcome *)p = (enum outcome)o;
		break;
	}
	case F_SIZE: *(size_t *)p = (size_t)strtoull(v, &end, 10); break;
	}
	return !errno && end != v && *end == '\n';
}

/* ---- open ---------------------------------------------------------------- */

/* The SHA-256 of this program's executable into hex: 0, or -1 (errno). */
static int self_digest(char hex[65])
{
	FILE *f = fopen("/proc/self/exe", "rb");
	if (!f)
		return -1;
	struct sha256_ctx c;
	sha256_init(&c);
	char buf[1 << 16];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sha256_update(&c, buf, n);
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		errno = EIO;
		return -1;
	}
	uint8_t d[32];
	sha256_final(&c, d);
	sha256_hex(d, hex);
	return 0;
}

struct pcache *pcache_open(const char *dir, struct rs_error *err)
{
	struct stat st;
	if (mkdir(dir, 0777) && errno != EEXIST) {
		rs_error_set(err, EXIT_CANTCREAT, dir, 0, "cannot create the cache folder: %s",
			     strerror(errno));
		return NULL;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		rs_error_set(err, EXIT_CANTCREAT, dir, 0, "the cache is not a folder");
		return NULL;
	}
	struct pcache *c = xcalloc(1, sizeof *c);
	if (self_digest(c->bin)) {
		rs_error_set(err, EXIT_UNAVAILABLE, "/proc/self/exe", 0,
			     "cannot read this program to key its cache: %s", strerror(errno));
		free(c);
		return NULL;
	}
	c->dir = xstrdup(dir);
	pthread_mutex_init(&c->lock, NULL);
	return c;
}

void pcache_free(struct pcache *c)
{
	if (!c)
		return;
	pthread_mutex_destroy(&c->lock);
	free(c->dir);
	free(c);
}

/* ---- keys ---------------------------------------------------------------- */

/* The name of the first heuristic of the registry that computes what h
 * does (the same cost, scan key, choice and needs): one replay for both. */
static const char *computation_name(const struct heuristic *h)
{
	size_t n;
	const struct heuristic *all = heuristic_list(&n);
	for (size_t i = 0; i < n; i++)
		if (all[i].score == h->score && all[i].key == h->key && all[i].choose == h->choose &&
		    all[i].needs == h->needs && all[i].random == h->random)
			return all[i].name;
	return h->name;
}

bool pcache_key(const struct pcache *c, const uint8_t log_sha256[32],
		const struct point_config *pc, uint64_t budget, char *key)
{
	static const uint8_t zero[32];
	const struct heuristic *h = pc->rt.heuristic;
	/* what the key does not cover runs as before */
	if (!h || !memcmp(log_sha256, zero, 32) || pc->rt.on_event || pc->rt.proto || pc->rt.check || pc->rt.test)
		return false;
	char log[65], seed[32] = "-", off[256] = "-";
	hex_encode(log_sha256, 32, log);
	if (h->random || (h->needs & NEEDS_PROTO))
		snprintf(seed, sizeof seed, "%" PRIu64, pc->rt.seed);
	const struct offload_config *o = pc->rt.offload;
	if (o)
		snprintf(off, sizeof off, "%a,%" PRId64 ",%a,%" PRId64 ",%" PRIu64 ",%u,%s", o->bandwidth,
			 o->latency_ns, o->h2d_bandwidth, o->h2d_latency_ns, o->host_memory, o->prefetch,
			 offload_policy_name(o->policy));
	int n = snprintf(key, PCACHE_KEY_MAX,
			 "program=%s log=%s heuristic=%s runtime=%s budget=%" PRIu64
			 " overhead_limit=%a seed=%s no_dealloc=%d offload=%s",
			 c->bin, log, computation_name(h), runtime_kind_name(pc->rt.runtime), budget,
			 pc->overhead_limit, seed, pc->rt.no_dealloc, off);
	return n > 0 && n < PCACHE_KEY_MAX;
}

/* DIR/<sha256 of key>.replay (free it). */
static char *entry_path(const struct pcache *c, const char *key)
{
	uint8_t d[32];
	char hex[65];
	sha256(key, strlen(key), d);
	sha256_hex(d, hex);
	size_t n = strlen(c->dir) + 1 + 64 + sizeof ".replay";
	char *p = xmalloc(n);
	snprintf(p, n, "%s/%s.replay", c->dir, hex);
	return p;
}

/* ---- get and put ----------------------------------------------------------- */

/* Why a result read back is not one this replay can give, or NULL (see
 * pcache_get). */
static const char *entry_problem(const struct point_result *pr, const struct baseline *b,
				 uint64_t budget, char *why, size_t size)
{
	const struct runtime_result *r = &pr->run;
	if (pr->budget != budget)
		snprintf(why, size, "budget %" PRIu64 " where the key asks %" PRIu64, pr->budget, budget);
	else if (r->clock < 0 || r->model_compute < 0 || r->remat_compute < 0 || r->stall_ns < 0 ||
		 r->d2h_busy_ns < 0 || r->h2d_busy_ns < 0)
		snprintf(why, size, "a negative clock, compute or time");
	else if (!isfinite(pr->wall_ms) || pr->wall_ms < 0)
		snprintf(why, size, "wall_ms %g", pr->wall_ms);
	else if (memcmp(&(double){point_overhead(b, r->clock)}, &pr->overhead, sizeof(double)))
		snprintf(why, size, "overhead %g where its clock gives %g", pr->overhead,
			 point_overhead(b, r->clock));
	else
		return NULL;
	return why;
}

/* Said once a cache (a sweep) meets a damaged entry. */
static void damaged(struct pcache *c, const char *path, const char *why)
{
	pthread_mutex_lock(&c->lock);
	if (!c->said_damaged) {
		c->said_damaged = true;
		fprintf(stderr, "rematsim: %s: a damaged cache entry (%s): not used, the replay runs "
				"again (other damaged entries are not said)\n", path, why);
	}
	pthread_mutex_unlock(&c->lock);
}

/* An entry is a few hundred bytes: more is not one. */
#define ENTRY_MAX (PCACHE_KEY_MAX + 64 * 40)

bool pcache_get(struct pcache *c, const char *key, const struct baseline *b, uint64_t budget,
		struct point_result *pr)
{
	char *path = entry_path(c, key);
	/* never opened through a link, never waited on (a FIFO), only read
	 * when it is a regular file */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd < 0) {
		if (errno == ELOOP)
			damaged(c, path, "a symbolic link");
		free(path);
		return false;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > ENTRY_MAX) {
		bool reg = !fstat(fd, &st) && S_ISREG(st.st_mode);
		close(fd);
		damaged(c, path, reg ? "too large" : "not a regular file");
		free(path);
		return false;
	}
	FILE *f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		free(path);
		return false;
	}
	struct point_result got;
	memset(&got, 0, sizeof got);
	char line[PCACHE_KEY_MAX + 2];
	size_t klen = strlen(key);
	bool ok = fgets(line, sizeof line, f) && !strcmp(line, HEADER "\n") &&
		  fgets(line, sizeof line, f) && !strncmp(line, key, klen) && line[klen] == '\n' &&
		  line[klen + 1] == '\0';
	bool keyed = ok; /* (a torn entry or another key's is an ordinary miss) */
	for (size_t i = 0; ok && i < N_FIELDS; i++)
		ok = fgets(line, sizeof line, f) && get_field(line, &fields[i], &got);
	ok = ok && fgetc(f) == EOF && !ferror(f);
	fclose(f);
	char why[160];
	const char *bad = ok ? entry_problem(&got, b, budget, why, sizeof why) : NULL;
	if (bad || (keyed && !ok))
		damaged(c, path, bad ? bad : "a field that does not read back");
	free(path);
	if (!ok || bad)
		return false;
	*pr = got;
	pthread_mutex_lock(&c->lock);
	c->hits++;
	pthread_mutex_unlock(&c->lock);
	return true;
}

void pcache_put(struct pcache *c, const char *key, const struct point_result *pr)
{
	pthread_mutex_lock(&c->lock);
	bool skip = c->read_only;
	pthread_mutex_unlock(&c->lock);
	if (skip)
		return;
	char *path = entry_path(c, key);
	struct outfile o;
	struct rs_error err;
	/* not written into a FIFO or device there (outfile would) */
	int rc = outfile_check(path, false, &err) < 0 ? -1 : outfile_open(&o, path, &err);
	if (!rc) {
		fprintf(o.f, HEADER "\n%s\n", key);
		for (size_t i = 0; i < N_FIELDS; i++)
			put_field(o.f, &fields[i], pr);
		rc = outfile_commit(&o, false, &err);
	}
	free(path);
	pthread_mutex_lock(&c->lock);
	if (rc && !c->read_only) {
		c->read_only = true;
		fprintf(stderr, "rematsim: %s: %s; the cache is read only from now on\n", err.file,
			err.msg);
	} else if (!rc) {
		c->stored++;
	}
	pthread_mutex_unlock(&c->lock);
}

void pcache_counts(const struct pcache *c, uint64_t *hits, uint64_t *stored)
{
	pthread_mutex_t *lock = (pthread_mutex_t *)&c->lock;
	pthread_mutex_lock(lock);
	*hits = c->hits;
	*stored = c->stored;
	pthread_mutex_unlock(lock);
}
