/*
 * outfile.h: writing an output file whole or not at all, safely.
 *
 * A regular file (or a new one) is written under a unique temporary name
 * in the same folder, created exclusively (O_EXCL|O_NOFOLLOW: a planted
 * name or symlink is never followed nor reused), and renamed over PATH
 * only once every byte is written and the file closed without error; so a
 * kill, a full disk or a concurrent writer leaves the old file or the new
 * one, never half of one, and two writers never swap data. An output that
 * exists and is not a regular file (a FIFO, a terminal, /dev/stdout, a
 * device node, or a symbolic link to one) is written in place: it is never
 * replaced by a file. A symbolic link to a file is refused: renaming would
 * replace the link, and writing through it would follow a link that anyone
 * who can write in the folder may have planted. A temporary name keeps as
 * much of PATH's file name as NAME_MAX allows; one still there when the
 * process gets SIGINT, SIGTERM or SIGHUP is removed first.
 */
#ifndef REMATSIM_OUTFILE_H
#define REMATSIM_OUTFILE_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "util.h"

/* Temporary names are PATH + OUTFILE_TMP_MARK + a unique suffix. */
#define OUTFILE_TMP_MARK ".tmp."

struct outfile {
	FILE *f;     /* write here */
	char *path;  /* the output */
	char *tmp;   /* the temporary name, or NULL when written in place */
};

/**
 * What path may be as an output (see above): 0 a new or regular file
 * (temporary and rename), 1 one to write in place (only when in_place:
 * else refused), or -1 with err (EXIT_CANTCREAT: a folder, a symbolic
 * link to a file or to nothing).
 */
int outfile_check(const char *path, bool in_place, struct rs_error *err);

/** Open path for writing (see above). -1 with err (EXIT_CANTCREAT). */
int outfile_open(struct outfile *o, const char *path, struct rs_error *err);
/**
 * Flush, check every write, (durable: fsync,) close and rename into place.
 * On failure the temporary file is removed and the old output kept: -1
 * with err (EXIT_IOERR). Always releases o.
 */
int outfile_commit(struct outfile *o, bool durable, struct rs_error *err);
/** Give up: close and remove the temporary file (the old output stays). */
void outfile_abort(struct outfile *o);

/**
 * Create a fresh temporary file PATH.tmp.XXXXXXXX exclusively (O_EXCL,
 * O_NOFOLLOW, mode 0666 less the umask); gives its name in *tmp and
 * returns its descriptor, or -1 with errno. It is removed if a fatal
 * signal comes before outfile_tmp_done(*tmp) is called (after the rename
 * or the unlink).
 */
int outfile_create_tmp(const char *path, char **tmp);
/** The temporary tmp was renamed or removed: no signal removes it now. */
void outfile_tmp_done(const char *tmp);

/** Remove tmp (a temporary made otherwise: the figures gnuplot writes)
 * if a fatal signal comes before outfile_tmp_done(tmp). */
void outfile_tmp_track(const char *tmp);

/**
 * Claim the name tmp for a temporary that another program will write (a
 * file or link of that name is removed first, never followed): it is
 * created empty (O_EXCL) and tracked as outfile_tmp_track does, with the
 * fatal signals waiting in between, so that none leaves it behind. 0, or
 * -1 with errno.
 */
int outfile_tmp_claim(const char *tmp);

/**
 * Start a program (posix_spawnp: file, argv, our environment) that writes
 * temporaries of ours: a fatal signal (see above) kills it (SIGKILL) and
 * waits for it before removing them, so it neither outlives us nor writes
 * a name we removed. 0, or an errno value. Pair with outfile_wait.
 */
int outfile_spawnp(pid_t *pid, const char *file, char *const argv[]);
/** Wait for a program of outfile_spawnp to end (retrying on EINTR): its
 * status as waitpid gives it; 0, or -1 with errno. */
int outfile_wait(pid_t pid, int *status);

/**
 * A watch over SIGINT, SIGTERM and SIGHUP (those not ignored) that no
 * library can take over: from outfile_signals_watch to
 * outfile_signals_unwatch, the calling thread (and every thread it starts
 * meanwhile) blocks them and one watcher thread takes each as it comes,
 * removes the temporaries and ends the process by that signal; at the end
 * of the outermost watch their actions are put back as they were. Around
 * calls into a solver that installs its own handlers (CBC and CLP take
 * SIGINT and put the old handler back with signal()), and around the
 * threads that may run one. Watches nest, on any thread; each
 * outfile_signals_watch is paired with an unwatch on the same thread with
 * the same record. The threads it covers start other programs only
 * through outfile_spawnp (others would inherit the blocked signals).
 */
struct outfile_watch {
	sigset_t old_mask; /* the calling thread's, put back at the end */
};
void outfile_signals_watch(struct outfile_watch *w);
void outfile_signals_unwatch(struct outfile_watch *w);

/** Whether name (a file name, no folder) is a temporary of outfile_open for `base`. */
bool outfile_is_tmp_of(const char *name, const char *base);

/**
 * Write `len` bytes to dir/name through a unique temporary file and rename
 * (outfile_open: so a kill leaves the old file or the new one, never half of
 * one; a non-regular dir/name is written in place). durable:
 * also fsync before the rename, so that a power loss does too (results;
 * not the regenerable figure data). Returns 0, or -1 with err
 * (EXIT_CANTCREAT / EXIT_IOERR).
 */
int write_file_atomic(const char *dir, const char *name, const char *data,
		      size_t len, bool durable, struct rs_error *err);

#endif
