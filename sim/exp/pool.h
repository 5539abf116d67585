/*
 * pool.h: run n independent tasks on a fixed number of POSIX threads.
 *
 * Tasks are handed out in index order from one shared counter, so a task
 * never runs twice and the pool needs no queue. The caller's function must
 * only write state owned by its task index (or take its own lock).
 */
#ifndef REMATSIM_POOL_H
#define REMATSIM_POOL_H

#include <stddef.h>

/** Called once per task i on some worker thread; borrows ctx. */
typedef void (*pool_task_fn)(void *ctx, size_t i);

/**
 * Called on the calling thread about every `tick_s` seconds while tasks run
 * and once more when they are done, with the number of tasks finished.
 * May be NULL.
 */
typedef void (*pool_tick_fn)(void *ctx, size_t done, size_t n);

/**
 * Run fn(ctx, i) for i in 0..n-1 on `jobs` threads (1: on the calling
 * thread, no threads started) and return when all are done.
 */
void pool_run(unsigned jobs, size_t n, pool_task_fn fn, void *ctx,
	      pool_tick_fn tick, double tick_s);

/** The number of online processors (at least 1): the default for --jobs. */
unsigned pool_default_jobs(void);

#endif
