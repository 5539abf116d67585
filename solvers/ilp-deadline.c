/*
 * ilp-deadline.c: a solve that ends by a wall-clock deadline whatever the
 * solver does. CBC and GLPK check their time limit between their own
 * steps, and on a large model the root LP alone can run past it (RL250:
 * 1,590 s for a 600 s limit, docs/solvers.md), so the solve runs in a
 * child process (fork) that writes its answer to a pipe; at the deadline
 * the parent kills it (SIGKILL) and answers ILP_UNKNOWN (nothing found in
 * time), and the caller falls back on its MIP start where it has one. The
 * solver is also given its own limit, a little before the deadline, so
 * that it normally stops by itself with its incumbent and bound.
 *
 * One such solve at a time in a process (the libraries keep global state;
 * the lock also keeps another thread from holding a lock the child would
 * inherit held).
 */
#include "ilp-private.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;

/* A page shared by the parent and its solving child (MAP_SHARED): the
 * solver's best announced lower bound, so that a child killed at the
 * deadline still leaves it. A lock-free atomic, so no lock is held
 * across the processes. */
struct ilp_progress {
	_Atomic double bound;
};
struct ilp_progress *ilp_progress;

void ilp_progress_note(double b)
{
	if (!ilp_progress || !isfinite(b) || b <= 0)
		return;
	double cur = atomic_load(&ilp_progress->bound);
	while (b > cur && !atomic_compare_exchange_weak(&ilp_progress->bound, &cur, b))
		;
}

/* Children killed at their deadline and not yet waited for (under
 * fork_lock). A killed child's exit takes as long as its address space
 * takes to go (a copy of the parent's: 0.13 s for RL1000's 16-million-row
 * model), time the parent need not wait: it reaps them at its next solve
 * (they have long ended by then), and a process that ends first leaves
 * them to init. */
static pid_t killed[16];
static size_t n_killed;

static void reap_killed(void)
{
	for (size_t i = 0; i < n_killed; i++) {
		int st;
		while (waitpid(killed[i], &st, 0) < 0 && errno == EINTR)
			;
	}
	n_killed = 0;
}

/* What the child writes, then x when has_x. */
struct wire {
	int rc, err_status;
	char err_msg[sizeof ((struct rs_error *)0)->msg];
	enum ilp_status status;
	bool start_accepted, has_x;
	double obj, bound, seconds, cpu_seconds;
};

static bool write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		c += w;
		n -= (size_t)w;
	}
	return true;
}

int ilp_backend_solve_by(const struct ilp_solver *s, const struct ilp_model *m, bool integer,
			 double time_limit, double deadline, struct ilp_answer *a,
			 struct rs_error *err)
{
	memset(a, 0, sizeof *a);
	pthread_mutex_lock(&fork_lock);
	reap_killed();
	double t0 = now_seconds();
	if (!(deadline > 0))
		deadline = t0 + time_limit; /* the limit from now: after the wait for the lock */
	double left = deadline - t0;
	if (!(left > 0)) {
		pthread_mutex_unlock(&fork_lock);
		a->status = ILP_UNKNOWN;
		return 0;
	}
	/* the solver's own limit: before the deadline, leaving it a tenth */
	double own = 0.9 * left;
	if (time_limit > 0 && time_limit < own)
		own = time_limit;
	pthread_mutex_lock(&ilp_solve_lock); /* no other thread in a solver at the fork */
	int fd[2];
	if (pipe(fd)) {
		pthread_mutex_unlock(&ilp_solve_lock);
		pthread_mutex_unlock(&fork_lock);
		return rs_error_set(err, EXIT_SOFTWARE, NULL, 0, "pipe: %s", strerror(errno));
	}
	struct ilp_progress *pg = mmap(NULL, sizeof *pg, PROT_READ | PROT_WRITE,
				       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (pg == MAP_FAILED)
		pg = NULL; /* then no bound survives a kill */
	else
		atomic_init(&pg->bound, 0.0);
	fflush(NULL);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		if (pg)
			munmap(pg, sizeof *pg);
		close(fd[0]);
		close(fd[1]);
		pthread_mutex_unlock(&ilp_solve_lock);
		pthread_mutex_unlock(&fork_lock);
		return rs_error_set(err, EXIT_SOFTWARE, NULL, 0, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		/* A parent ended by a signal (its handler or watch removes its
		 * temporaries and exits) must not leave this solve running. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
			_exit(1);
		/* the child's copy of the lock, held by this thread at the fork */
		pthread_mutex_unlock(&ilp_solve_lock);
		close(fd[0]);
		ilp_progress = pg;
		struct ilp_answer ca;
		struct rs_error ce = {0};
		struct wire w;
		memset(&w, 0, sizeof w);
		w.rc = ilp_backend_solve(s, m, integer, own, &ca, &ce);
		w.err_status = ce.status;
		memcpy(w.err_msg, ce.msg, sizeof w.err_msg);
		if (!w.rc) {
			w.status = ca.status;
			w.start_accepted = ca.start_accepted;
			w.has_x = ca.x != NULL;
			w.obj = ca.obj;
			w.bound = ca.bound;
			w.seconds = ca.seconds;
			w.cpu_seconds = ca.cpu_seconds;
		}
		bool ok = write_all(fd[1], &w, sizeof w) &&
			  (!w.has_x || write_all(fd[1], ca.x, m->n_cols * sizeof *ca.x));
		_exit(ok ? 0 : 1);
	}
	pthread_mutex_unlock(&ilp_solve_lock);
	close(fd[1]);
	size_t need = sizeof(struct wire), got = 0;
	struct wire w;
	char *buf = (char *)&w;
	double *x = NULL;
	bool done = false, dead = false;
	while (!done) {
		double rest = deadline - now_seconds();
		if (rest <= 0) {
			dead = true;
			break;
		}
		struct pollfd p = {.fd = fd[0], .events = POLLIN};
		int pr = poll(&p, 1, rest > 1e6 ? 1000000000 : (int)(rest * 1000) + 1);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			continue; /* the deadline is checked above */
		ssize_t r = read(fd[0], buf + got, need - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break; /* the child ended early: a crash */
		got += (size_t)r;
		if (got < need)
			continue;
		if (!x && w.rc == 0 && w.has_x) {
			x = xmalloc((m->n_cols + 1) * sizeof *x);
			buf = (char *)x;
			need = m->n_cols * sizeof *x;
			got = 0;
			if (need)
				continue;
		}
		done = true;
	}
	if (!done)
		kill(pid, SIGKILL);
	int st = 0;
	if (dead && n_killed < sizeof killed / sizeof killed[0])
		killed[n_killed++] = pid; /* waited for later (above) */
	else
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	close(fd[0]);
	pthread_mutex_unlock(&fork_lock);
	double announced = pg ? atomic_load(&pg->bound) : 0;
	if (pg)
		munmap(pg, sizeof *pg);
	if (dead) {
		free(x);
		a->status = ILP_UNKNOWN;
		a->bound = announced; /* what the solver proved before the kill */
		a->seconds = now_seconds() - t0;
		a->cpu_seconds = NAN; /* the child killed, not yet waited for */
		return 0;
	}
	if (!done) {
		free(x);
		return rs_error_set(err, EXIT_SOFTWARE, NULL, 0,
				    "the %s solver's process ended without an answer (status %d)",
				    s->name, st);
	}
	if (w.rc) {
		free(x);
		err->status = w.err_status;
		memcpy(err->msg, w.err_msg, sizeof err->msg);
		err->msg[sizeof err->msg - 1] = 0;
		return -1;
	}
	a->status = w.status;
	a->start_accepted = w.start_accepted;
	a->obj = w.obj;
	a->bound = w.bound;
	if (a->status == ILP_UNKNOWN && announced > a->bound)
		a->bound = announced; /* stopped by itself with nothing found */
	a->seconds = w.seconds;
	a->cpu_seconds = w.cpu_seconds;
	a->x = x;
	return 0;
}
