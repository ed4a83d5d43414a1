/* SPDX-License-Identifier: MIT */
/* The state of this boot, kept in RUNDIR/state under the host lock: every command that changes
 * a pool opens the store (the lock taken, the state read, what a command that died left
 * unfinished settled against the kernel, every pool seen as it is now), changes the pools only
 * through change.h, and closes it. The only code that reads or writes RUNDIR/state. */
#pragma once

#include <pthread.h>
#include <stdbool.h>

#include "fill/stop.h"
#include "kernel/topology.h"
#include "state/lock.h"
#include "state/model.h"
#include "util/error.h"

#define STATE_FILE "state"

struct state_store {
        int rootfd;
        const struct topology *t;
        int dirfd;   /* RUNDIR */
        int lock_fd; /* HOSTLOCK_FILE, held while the store is open */
        struct state s;
        /* the fill's threads (one per page size) raise and put back settings at once */
        pthread_mutex_t mutex;
        bool dirty; /* settling changed it: saved before anything else */
        char *saved; /* the text last read or written: a save that would write it again does not */
        /* what opening it found and did, a line each, for the caller to say */
        char notes[2048];
};

/* Takes the host lock and reads the state (a state of another boot is none; the files an older
 * hpfilld kept are read once, converted and removed), then settles it: each setting a command
 * that died left raised put back, each of its intents settled against the pool's count, every
 * pool of the state seen as it is (state_see()). Errors are said in the log; -EBADMSG for a
 * state that cannot be parsed (nothing changed: the file and the line said). */
int state_store_open(int rootfd, const struct topology *t, const struct state_open_options *o, struct state_store *ret);
/* Drops what changed in memory since the state was last read or saved (a plan refused). */
int state_store_revert(struct state_store *st);
/* Writes the state (a temp file swapped with RUNDIR/state, not synced): before each kernel write
 * that it announces, and after; not where the file says that already. */
int state_store_save(struct state_store *st);
/* Tidies the state (owners with nothing left) and saves it (@save; else what changed since the
 * last save is dropped: a plan refused changes nothing), lets go of the lock. */
int state_store_close(struct state_store *st, bool save);
/* The state as it is on disk, for a reader (hpfilld status, any user): no lock, nothing changed,
 * nothing settled. No state: an empty one. */
int state_store_read(int rootfd, struct state *ret, struct error *e);

/* A line added to st->notes (nothing where they are full). */
void state_store_note(struct state_store *st, const char *fmt, ...) _printf_(2, 3);
/* Whether @s is of this boot (or either boot is not known): a state of another holds no page of
 * the pools now. */
bool state_of_this_boot(int rootfd, const struct state *s);
/* A pool's persistent pages now: 0, or a negative errno. */
int state_store_read_pool(struct state_store *st, uint64_t page_size, unsigned node, uint64_t *ret);
/* Whether the daemon recorded in the state still runs. */
bool state_daemon_runs(const struct state_store *st);
