/* SPDX-License-Identifier: MIT */
/* A command's time with the pools: the topology read, the state open under the host lock and
 * settled (what a command that died left, put right and said). Every command that changes a
 * pool runs inside one. */
#pragma once

#include "kernel/topology.h"
#include "state/store.h"

struct session {
        int rootfd;
        bool host;
        struct topology t;
        struct state_store st;
        bool open;
        bool discard; /* the changes to the state since it was last saved are dropped at the close (a plan refused) */
};

/* Reads the topology, opens the store (state_store_open()) and says what settling it found. A
 * negative errno, said. */
int session_open(struct session *s, int rootfd, bool host, const struct state_open_options *o);
/* The free pages of owners given back (a claim whose pages were in use when it was unclaimed,
 * bench's) leave, whichever pool they are in: by every command that goes on to change the
 * pools (one that refuses to, changes nothing). */
void session_give_back_gone(struct session *s);
/* The state saved (tidied; not with @discard), the lock let go, the topology dropped. */
int session_close(struct session *s);
/* Which owners a give-back takes pages from */
typedef bool (*session_pick_fn)(const struct state_owner *o, const void *data);

/* What a give-back did to one pool */
struct session_given {
        uint64_t page_size;
        unsigned node;
        uint64_t held;          /* what the owners picked held there before */
        uint64_t before, after; /* the pool's persistent pages */
        uint64_t given;         /* pages given back, counted off the owners */
        int error;              /* the write or a read failed: negative errno */
};
typedef void (*session_given_fn)(const struct session_given *g, void *userdata);

/* Gives back, pool by pool, the free pages the owners @pick picks hold (the gone and bench's
 * first, then one-off runs', the configuration's, the claims' newest first), never a page in use
 * or reserved by a mapping, never more than they hold; @said (NULL: nothing) is told of each
 * pool they hold pages of. 0, or the last error (each one told). */
int session_give_back(struct session *s, session_pick_fn pick, const void *data, session_given_fn said,
                      void *userdata);
/* Records the daemon (this process) as running, or (@running false) as stopped. */
void session_mark_daemon(struct session *s, bool running);
