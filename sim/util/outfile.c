/*
 * outfile.c: see outfile.h.
 *
 * Temporaries alive are kept in a small table that a handler of SIGINT,
 * SIGTERM and SIGHUP (installed with the first one, where the signal's
 * action is the default) removes before the signal takes its default
 * course: a killed writer leaves no PATH.tmp.* behind. The table holds
 * copies of the names in fixed slots, so that the handler reads no memory
 * another thread may free.
 */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ---- temporaries removed on a fatal signal ---- */

static void fatal_set(sigset_t *set);

#define LIVE_SLOTS 64 /* more at once (threads) are only removed by their writers */
enum { SLOT_FREE, SLOT_BUSY, SLOT_READY };
static _Atomic int live_state[LIVE_SLOTS];
static char live_name[LIVE_SLOTS][PATH_MAX];
static pthread_once_t live_once = PTHREAD_ONCE_INIT;
static const int live_signals[] = {SIGINT, SIGTERM, SIGHUP};

/* Programs whose outputs are temporaries of ours (gnuplot's figures): a
 * fatal signal ends them (and waits for them) before it removes the
 * temporaries, so that none outlives us or writes a name we removed. */
#define CHILD_SLOTS 16
static _Atomic pid_t live_child[CHILD_SLOTS];

static void live_remove_all(void)
{
	for (int i = 0; i < CHILD_SLOTS; i++) {
		pid_t pid = atomic_load(&live_child[i]);
		if (pid > 0 && !kill(pid, SIGKILL)) /* (async-signal-safe, both) */
			while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
				;
	}
	for (int i = 0; i < LIVE_SLOTS; i++)
		if (atomic_load(&live_state[i]) == SLOT_READY)
			unlink(live_name[i]); /* (async-signal-safe) */
}

/* Remove the temporaries and end the process by sig, its default action.
 * Async-signal-safe. The default action is set here, not left to
 * SA_RESETHAND, and sig unblocked: a library that put this handler back
 * with signal() (CBC and CLP do, around their Ctrl-C handler) gives it
 * neither, and a raise() then only queued sig behind this very handler,
 * which ran again for ever. */
static _Noreturn void live_die(int sig)
{
	live_remove_all();
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, sig);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	raise(sig);
	_exit(128 + sig); /* not reached: sig's default action ends the process */
}

static void live_on_signal(int sig)
{
	live_die(sig);
}

static void live_install(void)
{
	for (size_t i = 0; i < sizeof live_signals / sizeof live_signals[0]; i++) {
		struct sigaction old;
		if (sigaction(live_signals[i], NULL, &old) || old.sa_handler != SIG_DFL)
			continue; /* ignored (nohup), or the program's own */
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = live_on_signal;
		sa.sa_flags = SA_RESETHAND;
		sigemptyset(&sa.sa_mask);
		sigaction(live_signals[i], &sa, NULL);
	}
}

static void live_add(const char *name)
{
	if (strlen(name) >= PATH_MAX)
		return;
	pthread_once(&live_once, live_install);
	for (int i = 0; i < LIVE_SLOTS; i++) {
		int free_state = SLOT_FREE;
		if (atomic_compare_exchange_strong(&live_state[i], &free_state, SLOT_BUSY)) {
			strcpy(live_name[i], name);
			atomic_store(&live_state[i], SLOT_READY);
			return;
		}
	}
}

void outfile_tmp_track(const char *tmp)
{
	live_add(tmp);
}

int outfile_tmp_claim(const char *tmp)
{
	pthread_once(&live_once, live_install);
	sigset_t fatal, old;
	fatal_set(&fatal);
	pthread_sigmask(SIG_BLOCK, &fatal, &old);
	unlink(tmp);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd >= 0) {
		live_add(tmp);
		close(fd);
	}
	int e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return fd >= 0 ? 0 : -1;
}

void outfile_tmp_done(const char *tmp)
{
	for (int i = 0; i < LIVE_SLOTS; i++) {
		if (atomic_load(&live_state[i]) != SLOT_READY || strcmp(live_name[i], tmp))
			continue;
		int ready = SLOT_READY;
		if (atomic_compare_exchange_strong(&live_state[i], &ready, SLOT_BUSY)) {
			live_name[i][0] = 0;
			atomic_store(&live_state[i], SLOT_FREE);
			return;
		}
	}
}

/* ---- programs started on our temporaries ---- */

static void fatal_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < sizeof live_signals / sizeof live_signals[0]; i++)
		sigaddset(set, live_signals[i]);
}

int outfile_spawnp(pid_t *pid, const char *file, char *const argv[])
{
	pthread_once(&live_once, live_install);
	sigset_t fatal, old;
	fatal_set(&fatal);
	/* the signals wait between the start and the entry in the table */
	pthread_sigmask(SIG_BLOCK, &fatal, &old);
	posix_spawnattr_t attr;
	posix_spawnattr_init(&attr);
	/* the child runs with the caller's mask, less the fatal signals (a
	 * watch blocks them in the caller): they take their course in it */
	sigset_t child = old;
	for (size_t i = 0; i < sizeof live_signals / sizeof live_signals[0]; i++)
		sigdelset(&child, live_signals[i]);
	posix_spawnattr_setsigmask(&attr, &child);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	int rc = posix_spawnp(pid, file, NULL, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	if (!rc)
		for (int i = 0; i < CHILD_SLOTS; i++) {
			pid_t none = 0;
			if (atomic_compare_exchange_strong(&live_child[i], &none, *pid))
				break;
		}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

int outfile_wait(pid_t pid, int *status)
{
	/* Wait for its end without reaping it: until it is out of the table,
	 * its pid must not be reused by another process that a signal kills. */
	siginfo_t si;
	while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0)
		if (errno != EINTR)
			break;
	sigset_t fatal, old;
	fatal_set(&fatal);
	pthread_sigmask(SIG_BLOCK, &fatal, &old);
	for (int i = 0; i < CHILD_SLOTS; i++) {
		pid_t mine = pid;
		if (atomic_compare_exchange_strong(&live_child[i], &mine, 0))
			break;
	}
	int rc;
	while ((rc = (int)waitpid(pid, status, 0)) < 0 && errno == EINTR)
		;
	int e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return rc < 0 ? -1 : 0;
}

/* ---- the fatal signals watched through a library's handlers ---- */

static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned watch_depth;        /* open watches, all threads */
static bool watch_running;          /* watch_thread started */
static pthread_t watch_thread;
static sigset_t watch_set;          /* the live signals not ignored */
static struct sigaction watch_saved[sizeof live_signals / sizeof live_signals[0]];
static _Atomic bool watch_stop;

/* Take each watched signal as it comes (every thread blocks them) and end
 * the process by it; the one outfile_signals_unwatch queues to this thread
 * alone (our pid, &watch_stop as its value), once watch_stop is set, ends
 * the watch instead. */
static void *watch_main(void *arg)
{
	(void)arg;
	for (;;) {
		siginfo_t si;
		int sig = sigwaitinfo(&watch_set, &si);
		if (sig < 0)
			continue; /* EINTR */
		if (atomic_load(&watch_stop) && si.si_code == SI_QUEUE && si.si_pid == getpid() &&
		    si.si_value.sival_ptr == &watch_stop)
			return NULL;
		live_die(sig);
	}
}

void outfile_signals_watch(struct outfile_watch *w)
{
	pthread_once(&live_once, live_install);
	pthread_mutex_lock(&watch_lock);
	if (watch_depth++ == 0) {
		sigemptyset(&watch_set);
		for (size_t i = 0; i < sizeof live_signals / sizeof live_signals[0]; i++)
			if (!sigaction(live_signals[i], NULL, &watch_saved[i]) &&
			    watch_saved[i].sa_handler != SIG_IGN)
				sigaddset(&watch_set, live_signals[i]);
	}
	pthread_sigmask(SIG_BLOCK, &watch_set, &w->old_mask);
	if (watch_depth == 1) {
		atomic_store(&watch_stop, false);
		/* Started with the signals blocked: it inherits the mask. Without
		 * a thread (none left) the signals stay blocked until the end of
		 * the watch, then take their course. */
		watch_running = !pthread_create(&watch_thread, NULL, watch_main, NULL);
	}
	pthread_mutex_unlock(&watch_lock);
}

void outfile_signals_unwatch(struct outfile_watch *w)
{
	pthread_mutex_lock(&watch_lock);
	if (--watch_depth == 0) {
		if (watch_running) {
			atomic_store(&watch_stop, true);
			for (int sig = 1; sig < NSIG; sig++)
				if (sigismember(&watch_set, sig) == 1) {
					pthread_sigqueue(watch_thread, sig,
							 (union sigval){.sival_ptr = &watch_stop});
					break;
				}
			pthread_join(watch_thread, NULL);
			watch_running = false;
		}
		/* A library that changed them with signal() put back our
		 * handler without its flags, if at all. */
		for (size_t i = 0; i < sizeof live_signals / sizeof live_signals[0]; i++)
			if (sigismember(&watch_set, live_signals[i]) == 1)
				sigaction(live_signals[i], &watch_saved[i], NULL);
	}
	pthread_sigmask(SIG_SETMASK, &w->old_mask, NULL);
	pthread_mutex_unlock(&watch_lock);
}

/* ---- names ---- */

/* How much of a file name (base, no folder) a temporary name keeps: all
 * of it, unless the name plus the mark and 8 hex digits would pass
 * NAME_MAX (a valid 250-byte name must still get a temporary). */
static size_t kept(size_t base)
{
	size_t room = NAME_MAX - (sizeof OUTFILE_TMP_MARK - 1) - 8;
	return base < room ? base : room;
}

int outfile_create_tmp(const char *path, char **tmp)
{
	static unsigned long counter;
	const char *slash = strrchr(path, '/');
	size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
	size_t keep = dir + kept(strlen(path) - dir);
	size_t n = keep + sizeof OUTFILE_TMP_MARK + 8 + 1;
	char *name = xmalloc(n);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t x = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull ^ (uint64_t)ts.tv_nsec ^
		     ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)(uintptr_t)name;
	/* The handlers are in place before the file exists, and the fatal
	 * signals wait while it is created and entered in the table: one
	 * arriving between the two would leave the temporary behind. */
	pthread_once(&live_once, live_install);
	sigset_t fatal, old;
	sigemptyset(&fatal);
	for (size_t i = 0; i < sizeof live_signals / sizeof live_signals[0]; i++)
		sigaddset(&fatal, live_signals[i]);
	for (int attempt = 0; attempt < 100; attempt++) {
		x += __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED) * 0xbf58476d1ce4e5b9ull;
		x ^= x >> 31;
		snprintf(name, n, "%.*s" OUTFILE_TMP_MARK "%08lx", (int)keep, path,
			 (unsigned long)(x & 0xffffffffu));
		pthread_sigmask(SIG_BLOCK, &fatal, &old);
		int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd >= 0)
			live_add(name);
		int e = errno;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (fd >= 0) {
			*tmp = name;
			return fd;
		}
		if (e != EEXIST) {
			errno = e;
			break;
		}
	}
	int e = errno;
	free(name);
	errno = e;
	return -1;
}

bool outfile_is_tmp_of(const char *name, const char *base)
{
	size_t n = kept(strlen(base)), m = sizeof OUTFILE_TMP_MARK - 1;
	if (strncmp(name, base, n) || strncmp(name + n, OUTFILE_TMP_MARK, m))
		return false;
	const char *s = name + n + m;
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return false;
	return true;
}

/* ---- what an output may be ---- */

int outfile_check(const char *path, bool in_place, struct rs_error *err)
{
	struct stat st, lst;
	if (lstat(path, &lst))
		return 0; /* a new file (or none we can see: creating it will say) */
	bool link = S_ISLNK(lst.st_mode);
	if (link && stat(path, &st))
		return rs_error_set(err, EXIT_CANTCREAT, path, 0,
				    "is a symbolic link to nothing: give the file's own name");
	if (!link)
		st = lst;
	if (S_ISDIR(st.st_mode))
		return rs_error_set(err, EXIT_CANTCREAT, path, 0, "cannot write: is a folder");
	if (S_ISREG(st.st_mode) && link)
		return rs_error_set(err, EXIT_CANTCREAT, path, 0,
				    "is a symbolic link: a file is written under a temporary "
				    "name and renamed into place, which would replace the link, "
				    "not its target; give the file's own name");
	if (S_ISREG(st.st_mode))
		return 0;
	if (!in_place)
		return rs_error_set(err, EXIT_CANTCREAT, path, 0,
				    "not a regular file: this output is written under a temporary "
				    "name and renamed into place, which would replace it");
	return 1;
}

int outfile_open(struct outfile *o, const char *path, struct rs_error *err)
{
	memset(o, 0, sizeof *o);
	int how = outfile_check(path, true, err);
	if (how < 0)
		return -1;
	int fd;
	if (how) {
		/* A FIFO, terminal or device: write through it, never replace it. */
		fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0)
			return rs_error_set(err, EXIT_CANTCREAT, path, 0, "cannot open for writing: %s",
					    strerror(errno));
		struct stat st;
		if (fstat(fd, &st) || S_ISREG(st.st_mode)) {
			/* swapped for a file since the check: never written in place */
			close(fd);
			return rs_error_set(err, EXIT_CANTCREAT, path, 0,
					    "changed while it was opened: try again");
		}
	} else {
		fd = outfile_create_tmp(path, &o->tmp);
		if (fd < 0)
			return rs_error_set(err, EXIT_CANTCREAT, path, 0, "cannot create: %s",
					    strerror(errno));
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		int e = errno;
		close(fd);
		if (o->tmp) {
			unlink(o->tmp);
			outfile_tmp_done(o->tmp);
		}
		free(o->tmp);
		o->tmp = NULL;
		return rs_error_set(err, EXIT_CANTCREAT, path, 0, "cannot open: %s", strerror(e));
	}
	o->path = xstrdup(path);
	return 0;
}

static void release(struct outfile *o)
{
	if (o->tmp)
		outfile_tmp_done(o->tmp);
	free(o->path);
	free(o->tmp);
	memset(o, 0, sizeof *o);
}

int outfile_commit(struct outfile *o, bool durable, struct rs_error *err)
{
	errno = 0;
	bool bad = fflush(o->f) != 0 || ferror(o->f);
	int e = errno;
	if (!bad && durable && o->tmp && fsync(fileno(o->f))) {
		bad = true;
		e = errno;
	}
	if (fclose(o->f) && !bad) {
		bad = true;
		e = errno;
	}
	o->f = NULL;
	if (bad) {
		rs_error_set(err, EXIT_IOERR, o->path, 0, "cannot write: %s",
			     e ? strerror(e) : "write error");
	} else if (o->tmp && rename(o->tmp, o->path)) {
		bad = true;
		rs_error_set(err, EXIT_IOERR, o->path, 0, "cannot rename into place: %s",
			     strerror(errno));
	}
	if (bad && o->tmp)
		unlink(o->tmp);
	release(o);
	return bad ? -1 : 0;
}

void outfile_abort(struct outfile *o)
{
	if (o->f)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	release(o);
}

int write_file_atomic(const char *dir, const char *name, const char *data,
		      size_t len, bool durable, struct rs_error *err)
{
	char *path = path_join(dir, name);
	struct outfile o;
	int rc = outfile_open(&o, path, err);
	free(path);
	if (rc)
		return -1;
	if (len && fwrite(data, 1, len, o.f) != len) {
		/* (commit reports the error and removes the temporary file) */
	}
	return outfile_commit(&o, durable, err);
}
