/* SPDX-License-Identifier: MIT */
/* One fill per host: an flock() on /run/hpfilld/host.lock, held from before the first write to a
 * pool until the fill has put everything back. The holder's pid, start time and task are in
 * the file, for the message of whoever waits. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fill/stop.h"

#define HOSTLOCK_FILE "host.lock"
/* The daemon's mark: RUNDIR/daemon.lock, flock()ed (shared) by every running daemon for its
 * whole life, so that a command that must not run beside one can tell (hpfilld give-back) */
#define DAEMON_MARK_FILE "daemon.lock"
/* One `hpfilld claim` or `unclaim` at a time, from its look at the claim's file to its answer */
#define CLAIMLOCK_FILE "claim.lock"
/* How long a second fill waits for the first, by default (--lock-timeout) */
#define HOSTLOCK_TIMEOUT_S 60u
/* While it waits it looks at the lock, and at signals, this often */
#define HOSTLOCK_STEP_MS 50

/* Called at every step of a wait (NULL: nothing to call): the daemon feeds systemd's watchdog,
 * which would otherwise see nothing for as long as --lock-timeout. */
struct hostlock_wait {
        void (*step)(void *userdata);
        void *userdata;
};

struct hostlock_holder {
        pid_t pid;
        uint64_t start_time; /* of the process, as /proc/PID/stat says */
        int64_t since;       /* CLOCK_REALTIME seconds when it took the lock */
        char what[128];      /* what it is doing: "hpfilld --once", "hpfilld daemon, reload" */
};

/* Takes the lock for @what, waiting up to @timeout_s seconds while another process holds it
 * (saying who; *@ret_waited tells; @wait's step called meanwhile). Returns the lock's fd (close
 * it to let go), or -ETIMEDOUT after the wait, -ECANCELED when a stop signal came while
 * waiting, or another negative errno; each said in the log. */
int hostlock_take(int rootfd, const char *what, unsigned timeout_s, struct stop *stop, const struct hostlock_wait *wait,
                  bool *ret_waited);
/* The same for CLAIMLOCK_FILE: one claim command at a time, so that none sees (through the
 * daemon's reload) the file of another that is about to be refused and put back. */
int hostlock_take_claims(int rootfd, const char *what, unsigned timeout_s, struct stop *stop);
/* The pid that holds the flock() of @fd (the lock file), as the kernel's /proc/locks says:
 * -ENOENT when none. */
int hostlock_holder_pid(int rootfd, int fd, pid_t *ret);
/* Who holds the lock of @fd, in words: the kernel's holder, with what it says it does where
 * the file's line is its own. */
void hostlock_describe_holder(int rootfd, int fd, char *buf, size_t size);
/* Parses the holder line of the lock file. */
int hostlock_parse(const char *s, struct hostlock_holder *ret);
/* The daemon's mark taken: the fd to keep open for the daemon's life, or a negative errno. Held
 * exclusive (a give-back's probe), it is waited for, up to @timeout_s (-ETIMEDOUT), or until a
 * stop signal (-ECANCELED). */
int daemon_mark_take(int rootfd, unsigned timeout_s, struct stop *stop);
/* Whether the daemon runs, the one test of it (give-back, claim): whether a daemon holds its
 * mark. The kernel lets go of an flock() when its holder ends, so a daemon that crashed holds
 * none (its control socket, left behind, says nothing). 1 with its pid in *@ret_pid (0 where
 * it cannot be told); 0 when none does, the mark then held (exclusive) on *@ret_fd, so that no
 * daemon starts meanwhile without saying so, or let go at once where @ret_fd is NULL; or a
 * negative errno. */
int daemon_mark_probe(int rootfd, int *ret_fd, pid_t *ret_pid);
