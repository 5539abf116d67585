/*
 * pool.c: see pool.h. Workers take the next index under a mutex and signal
 * the caller after each task; the caller waits with a timeout so that it can
 * report progress even when tasks are long.
 */
#include "pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "outfile.h"
#include "util.h"

struct pool {
	pthread_mutex_t lock;
	pthread_cond_t done_cond;
	size_t next, done, n;
	pool_task_fn fn;
	void *ctx;
};

static void *worker(void *arg)
{
	struct pool *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->lock);
		size_t i = p->next < p->n ? p->next++ : p->n;
		pthread_mutex_unlock(&p->lock);
		if (i >= p->n)
			return NULL;
		p->fn(p->ctx, i);
		pthread_mutex_lock(&p->lock);
		p->done++;
		pthread_cond_signal(&p->done_cond);
		pthread_mutex_unlock(&p->lock);
	}
}

void pool_run(unsigned jobs, size_t n, pool_task_fn fn, void *ctx,
	      pool_tick_fn tick, double tick_s)
{
	if (jobs < 1)
		jobs = 1;
	if (jobs > n)
		jobs = n ? (unsigned)n : 1;
	if (tick_s <= 0)
		tick_s = 1;
	if (jobs == 1) {
		double last = now_seconds();
		for (size_t i = 0; i < n; i++) {
			fn(ctx, i);
			if (tick && now_seconds() - last >= tick_s) {
				tick(ctx, i + 1, n);
				last = now_seconds();
			}
		}
		if (tick)
			tick(ctx, n, n);
		return;
	}

	struct pool p = {.n = n, .fn = fn, .ctx = ctx};
	pthread_mutex_init(&p.lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p.done_cond, &ca);
	pthread_condattr_destroy(&ca);

	/* The workers may run a solver that takes over SIGINT (see
	 * outfile.h): they and this thread leave the fatal signals to a
	 * watcher until the last one is done. */
	struct outfile_watch watch;
	outfile_signals_watch(&watch);
	pthread_t *threads = xcalloc(jobs, sizeof *threads);
	for (unsigned t = 0; t < jobs; t++) {
		int e = pthread_create(&threads[t], NULL, worker, &p);
		if (e == EAGAIN || e == ENOMEM) {
			/* Out of a resource, not a bug: a thread's stack counts
			 * against the memory limit (RLIMIT_DATA). */
			pthread_attr_t a;
			size_t stack = 0;
			if (!pthread_attr_init(&a)) {
				pthread_attr_getstacksize(&a, &stack);
				pthread_attr_destroy(&a);
			}
			rs_cannot_start(t + 1, jobs, stack, e);
		} else if (e) {
			rs_bug("cannot start a worker thread: %s", strerror(e));
		}
	}

	struct timespec deadline;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	pthread_mutex_lock(&p.lock);
	while (p.done < n) {
		/* A fixed schedule of ticks, not "tick_s after the last task". */
		long ns = (long)((tick_s - (double)(long)tick_s) * 1e9);
		deadline.tv_sec += (time_t)tick_s;
		deadline.tv_nsec += ns;
		if (deadline.tv_nsec >= 1000000000L) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000L;
		}
		int rc = 0;
		while (p.done < n && rc != ETIMEDOUT)
			rc = pthread_cond_timedwait(&p.done_cond, &p.lock, &deadline);
		if (rc == ETIMEDOUT && tick) {
			size_t done = p.done;
			pthread_mutex_unlock(&p.lock);
			tick(ctx, done, n);
			pthread_mutex_lock(&p.lock);
		}
	}
	pthread_mutex_unlock(&p.lock);
	for (unsigned t = 0; t < jobs; t++)
		pthread_join(threads[t], NULL);
	free(threads);
	outfile_signals_unwatch(&watch);
	if (tick)
		tick(ctx, n, n);
	pthread_cond_destroy(&p.done_cond);
	pthread_mutex_destroy(&p.lock);
}

unsigned pool_default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}
