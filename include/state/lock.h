/* SPDX-License-Identifier: MIT */
/* One command that changes the pools at a time: an flock() on /run/hpfilld/host.lock, held from
 * before the state is read (state/store.h) until it is saved. The holder's pid, start time and
 * task are in the file, for the message of whoever waits. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fill/stop.h"

#define HOSTLOCK_FILE "host.lock"
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

struct state_open_options {
        const char *what;        /* for whoever waits for the lock: "hpfilld --once" */
        unsigned lock_timeout_s; /* hostlock_take()'s wait */
        struct stop *stop;
        const struct hostlock_wait *wait;
};

/* Takes the lock in @dirfd (RUNDIR) for o->what, waiting up to o->lock_timeout_s seconds while
 * another process holds it (saying who; o->wait's step called meanwhile). Returns the lock's fd
 * (close it to let go), or -ETIMEDOUT after the wait, -ECANCELED when a stop signal came while
 * waiting, or another negative errno; each said in the log. */
int hostlock_take(int rootfd, int dirfd, const struct state_open_options *o);
/* The pid that holds the flock() of @fd (the lock file), as the kernel's /proc/locks says:
 * -ENOENT when none. */
int hostlock_holder_pid(int rootfd, int fd, pid_t *ret);
/* Who holds the lock of @fd, in words: the kernel's holder, with what it says it does where
 * the file's line is its own. */
void hostlock_describe_holder(int rootfd, int fd, char *buf, size_t size);
