/* SPDX-License-Identifier: MIT */
/* Whose pages are whose: for each pool (page size, node) the persistent pages hpfilld added, by
 * owner, and what each owner wants there; the changes of the pools under way (intents), the host
 * settings raised for a fill, the reservations hpfilld made, the daemon that runs. Pure: no I/O
 * (store.h keeps it in RUNDIR/state, change.h moves the pools with it). The rules are in
 * doc/internals.md ("Whose pages are whose"). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "state/record.h"

/* "claim:" and a claim's name (1-63 characters) */
#define STATE_OWNER_MAX 72
#define STATE_CLAIM_PREFIX "claim:"
#define STATE_SPEC_MAX 512
/* At most this many owners, claims (given back or not) included: a pool line names each at most once */
#define STATE_CLAIMS_MAX 1000
#define STATE_PATH_MAX 160

enum owner_kind {
        OWNER_CONFIG, /* "config": the configuration's [Pool]s and [Claim]s (the daemon, --once, the initramfs) */
        OWNER_ONCE,   /* "once": one-off runs whose plan is their command line (--pool, --reserve) */
        OWNER_BENCH,  /* "bench": hpfilld bench's pages, given back when it is done */
        OWNER_CLAIM,  /* "claim:NAME": hpfilld claim NAME */
};

struct state_owner {
        char name[STATE_OWNER_MAX];
        enum owner_kind kind;
        uint64_t seq;              /* the order owners were made in: claims lose pages newest first */
        bool gone;                 /* given back: its pages leave as they come free, and count for no target */
        char spec[STATE_SPEC_MAX]; /* a claim's pools as asked, "2M:1G 1G:node0=2"; "" for the others */
};

/* What one owner has of one pool */
struct state_share {
        size_t pool, owner; /* indices */
        uint64_t held;      /* persistent pages it added that nobody took since */
        uint64_t want;      /* the pages it asks of the pool now (its target there) */
        /* an active claim's: the node's pages in use (nr - free) when its pages were last added,
         * less those of its pages that may have been in use then; of its pages, at most those
         * that went into use since (the node's pages in use now beyond the mark) are in use */
        uint64_t mark;
};

struct state_pool {
        uint64_t page_size;
        unsigned node;
        uint64_t last; /* persistent pages (nr_hugepages - surplus_hugepages) when last seen */
};

/* A change of a pool under way: written before the first kernel write, settled against the
 * kernel's count after the last (by this process, or by the next one if this one died). */
struct state_part {
        size_t owner;
        uint64_t pages; /* grow: what it gets at most; shrink: what it gives at most */
};

struct state_intent {
        size_t pool;
        uint64_t from, to; /* persistent pages before, and asked for */
        struct state_part *parts;
        size_t n_parts;
};

/* A host setting raised for the length of a fill (nr_overcommit_hugepages): put back by the
 * fill, or by the next command where the fill died. */
struct state_setting {
        char path[STATE_PATH_MAX]; /* relative to the root */
        uint64_t found, set;
};

/* A reservation file hpfilld made: give-back removes these, no other file. */
struct state_reserve {
        char name[64];
        uint64_t page_size;
        uint64_t pages;
        uint64_t dev, ino; /* of the file made; 0, 0 while it is being made */
};

struct state {
        char boot[40]; /* the boot it counts (proc/sys/kernel/random/boot_id); "" where unknown */
        uint64_t next_seq;
        bool legacy;               /* the files of hpfilld 0.x it holds may still be there, to remove */
        pid_t daemon_pid;          /* the daemon that runs (0: none), as it said when it started */
        uint64_t daemon_start;     /* its start time (/proc/PID/stat), against a reused pid */
        struct state_owner *owners;
        size_t n_owners;
        struct state_pool *pools;
        size_t n_pools;
        struct state_share *shares;
        size_t n_shares;
        struct state_intent *intents;
        size_t n_intents;
        struct state_setting *settings;
        size_t n_settings;
        struct state_reserve *reserves;
        size_t n_reserves;
        struct fill_record record; /* the last fill's (its lines are the "last-" ones) */
};

void state_done(struct state *s);

/* Owners */
/* The index of owner @name, or -ENOENT. */
int state_owner_find(const struct state *s, const char *name);
/* The index of owner @name, made (active, the next seq) where missing; -EINVAL for a name that
 * is no owner's, -ENOMEM. */
int state_owner_get(struct state *s, const char *name);
/* "claim:" @claim into @buf, which has STATE_OWNER_MAX bytes */
const char *state_claim_owner(char *buf, const char *claim);
/* The kind a name says, or -EINVAL: "config", "once", "bench", "claim:NAME" (NAME as
 * check_name() allows it). */
int state_owner_kind(const char *name);
/* Drops the owners that hold and want nothing and are no claim still asked for (a gone claim
 * whose pages all left, a one-off run given back). */
void state_owners_tidy(struct state *s);

/* Pools and shares */
/* A page size is a power of two of at least 4 KiB, a node below 65536 */
static inline bool state_pool_key_valid(uint64_t page_size, uint64_t node) {
        return page_size >= 4096 && !(page_size & (page_size - 1)) && node <= 65535;
}
/* The index of the pool, made (last = @persistent) where missing; -ENOMEM. */
int state_pool_get(struct state *s, uint64_t page_size, unsigned node, uint64_t persistent);
int state_pool_find(const struct state *s, uint64_t page_size, unsigned node);
/* The share of @owner in @pool, made (0, 0) where missing with @add; NULL where missing, or out
 * of memory with @add. */
struct state_share *state_share(struct state *s, size_t pool, size_t owner, bool add);
uint64_t state_held(const struct state *s, size_t pool, size_t owner);
uint64_t state_want(const struct state *s, size_t pool, size_t owner);
/* Pages of the pool held by all owners */
uint64_t state_held_total(const struct state *s, size_t pool);
/* Free pages are anyone's: of those the active claims (but the @n_except owners @except) hold,
 * how many are surely free, each claim's held pages less those that may have gone into use since
 * its mark (@in_use: the node's pages in use now, nr - free). */
uint64_t state_claims_free(const struct state *s, size_t pool, uint64_t in_use, const size_t *except, size_t n_except);
/* What a give-back may take of @pool's @free pages (the node has @nr): the free pages no mapping
 * holds reserved (@resv) and that are not surely an active claim's (but @except's). */
uint64_t state_givable(const struct state *s, size_t pool, uint64_t nr, uint64_t free, uint64_t resv,
                       const size_t *except, size_t n_except);
/* Claim @owner is about to get pages of @pool, whose node has @in_use pages in use: its mark
 * moves so that the pages it holds that may be in use stay counted as such. */
int state_claim_mark(struct state *s, size_t pool, size_t owner, uint64_t in_use);
/* What `hpfilld status` and the metrics call the pool's target: the configuration's, or a
 * one-off run's where more (each counts every page no claim holds), and the claims' on top. */
uint64_t state_pool_target(const struct state *s, size_t pool);

/* Seeing the kernel */
/* The pool holds @persistent pages now. Fewer than when last seen: somebody took pages, and
 * they are taken from hpfilld's owners (never more than they hold), in this order: the gone
 * and bench's, the one-off runs', the configuration's, then the claims', newest first. So
 * whatever hpfilld gives back later is never more than it holds, and never another's. More
 * than when last seen: somebody else's. Returns the pages taken from owners. */
uint64_t state_see(struct state *s, size_t pool, uint64_t persistent);

/* Intents */
/* Adds an intent (its parts copied). -ENOMEM. */
int state_intent_add(struct state *s, const struct state_intent *in);
/* Settles intent @i against @persistent, the pool's count now: what came (at most from..to)
 * goes to the parts in order, each up to its pages; what left likewise leaves them. The pool is
 * seen at @persistent, the intent dropped. Returns the pages moved (added or given back). */
uint64_t state_intent_settle(struct state *s, size_t i, uint64_t persistent);
/* The intent of @pool, or -ENOENT. */
int state_intent_find(const struct state *s, size_t pool);

/* What a change asks of a pool */
enum state_fill {
        STATE_FILL_CONFIG, /* the configuration: its target over the pages no claim holds, every claim on top */
        STATE_FILL_ONCE,   /* a one-off run: its target over the pages no claim holds */
        STATE_FILL_CLAIM,  /* one claim: its own pages, on top of whatever the pool holds */
};

struct state_fill_node {
        uint64_t now;        /* persistent pages */
        uint64_t givable;    /* free pages no mapping holds reserved: what may leave */
        bool shrink;         /* --shrink: the fill's own pages beyond its target may leave too */
};

/* The intent a fill of kind @kind (@owner: its owner; a claim's for STATE_FILL_CLAIM) makes of
 * @pool, with the wants as set: grow by what its owners lack; else give back what the gone
 * owners hold and (@n->shrink) the fill's own pages beyond its target, free pages only. 0 with
 * the intent in @ret (from == to: nothing to do), -ENOMEM. The caller frees ret->parts. */
int state_fill_intent(const struct state *s, size_t pool, enum state_fill kind, size_t owner,
                      const struct state_fill_node *n, struct state_intent *ret);
/* The intent of giving back, from @pool, the pages of the owners @owners (@n of them, in the
 * order their pages leave) hold, free pages only (@givable of them). */
int state_give_back_intent(const struct state *s, size_t pool, const size_t *owners, size_t n, uint64_t givable,
                           struct state_intent *ret);
void state_intent_done(struct state_intent *in);

/* Settings */
int state_setting_add(struct state *s, const char *path, uint64_t found, uint64_t set);
void state_setting_remove(struct state *s, size_t i);
int state_setting_find(const struct state *s, const char *path);

/* Reservations */
int state_reserve_add(struct state *s, const struct state_reserve *r);
int state_reserve_find(const struct state *s, const char *name, uint64_t page_size);
void state_reserve_remove(struct state *s, size_t i);
