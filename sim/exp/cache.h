/*
 * cache.h: a folder of replay results shared by sweeps (sweep --cache DIR,
 * docs/experiments.md "A cache of replays"): a point whose replay was run
 * before by the same program takes that result instead of running again.
 *
 * The key is everything a replay's numbers depend on: the program itself
 * (the SHA-256 of its executable, so a rebuilt binary never reads an older
 * one's results), the log's content (its SHA-256), the heuristic's
 * computation (two names of one cost, DTR and AbESizeStale, are one
 * replay), the runtime, the budget in bytes, the overhead limit, the seed
 * where the heuristic draws from it, no_dealloc and the host link. An
 * entry is one file named by the key's digest holding the key itself and
 * the result; one that does not read back whole with its own key is a
 * miss. Entries are written through outfile (a temporary renamed into
 * place), so sweeps sharing a folder, on one machine or several, never see
 * a torn one.
 */
#ifndef REMATSIM_CACHE_H
#define REMATSIM_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime.h"
#include "util.h"

struct pcache;

/**
 * Open (creating it if needed, one level) the cache folder dir. Returns
 * the cache, or NULL with err: EXIT_CANTCREAT when dir is not a folder or
 * cannot be made, EXIT_UNAVAILABLE when the program's own executable
 * cannot be read (its digest is part of every key).
 */
struct pcache *pcache_open(const char *dir, struct rs_error *err);
void pcache_free(struct pcache *c);

/**
 * The key of the replay of pc (its heuristic, runtime, budget (bytes,
 * resolved), overhead limit, seed, no_dealloc, host link) on the log whose
 * content has digest log_sha256, into key (PCACHE_KEY_MAX bytes). False
 * when such a replay is not cached: an all-zero digest, or a configuration
 * the key does not cover (hooks, test switches, the prototype's rules).
 */
#define PCACHE_KEY_MAX 768
bool pcache_key(const struct pcache *c, const uint8_t log_sha256[32],
		const struct point_config *pc, uint64_t budget, char *key);

/**
 * The result stored under key into *pr: true, or false (a miss). An
 * entry is trusted no more than a shard merge trusts its rows (issue 40,
 * H6): only a regular file is read (opened O_NONBLOCK|O_NOFOLLOW, checked
 * with fstat: a FIFO, device or link is never opened for reading nor
 * waited on), and its result must be one this replay can give: the
 * budget asked (bytes), counts that are not negative, a finite wall time,
 * and the overhead that its clock gives over b's compute, to the bit
 * (point_overhead; `overhead nan` is not a passing row). A damaged entry
 * is a miss, said once on stderr; the replay then runs and rewrites it.
 */
bool pcache_get(struct pcache *c, const char *key, const struct baseline *b, uint64_t budget,
		struct point_result *pr);

/**
 * Store pr under key. A failure to write is not an error of the sweep (the
 * point has its result): the first one is said once on stderr, and the
 * cache is read only from then on. An entry's name that holds something
 * other than a regular file (a FIFO: outfile would write into it) is such
 * a failure.
 */
void pcache_put(struct pcache *c, const char *key, const struct point_result *pr);

/** Hits and entries written so far. */
void pcache_counts(const struct pcache *c, uint64_t *hits, uint64_t *stored);

#endif
