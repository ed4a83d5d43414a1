/* SPDX-License-Identifier: MIT */
/* ReleaseOnStop='s ledger: the pages the daemon's fills added to each pool (page size, node)
 * that nobody has taken since, kept in /run/hpfilld/ledger across reloads and restarts (until
 * the boot ends, as the pages do), and given back at a stop: never more than that. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "kernel/topology.h"

#define LEDGER_NAME "ledger"
#define LEDGER_FILE "run/hpfilld/" LEDGER_NAME
/* The one-off fills' (--once, the initramfs'): what `hpfilld give-back` gives back with the
 * daemon's, and ReleaseOnStop= leaves alone */
#define LEDGER_ONCE_NAME "ledger-once"

struct ledger_entry {
        uint64_t page_size;
        unsigned node;
        uint64_t ours; /* persistent pages the fills added, as far as nobody took them since */
        uint64_t last; /* the pool's persistent pages when last seen */
};

struct ledger {
        struct ledger_entry *entries;
        size_t n;
        const char *name; /* its file in RUNDIR; NULL: LEDGER_NAME */
        /* the boot it counts (proc/sys/kernel/random/boot_id), "" where not known: a /run that
         * is not tmpfs keeps the file across a reboot, whose pools hold none of those pages */
        char boot[40];
};

/* Pure. The entry of the pool (@page_size, @node), made (0 pages) with @add where missing; NULL
 * where missing (or out of memory). */
struct ledger_entry *ledger_entry(struct ledger *l, uint64_t page_size, unsigned node, bool add);
/* Pure. The pool was seen at @now persistent pages: if it holds fewer than when last seen,
 * somebody took pages, and they count as ours first (what is given back is then never more
 * than is ours); more are somebody else's (an admin's echo). */
int ledger_seen(struct ledger *l, uint64_t page_size, unsigned node, uint64_t now);
/* Pure. A fill took the pool from @before to @after persistent pages (both seen under the host
 * lock): what it added is ours; what a --shrink fill gave back leaves ours first. */
int ledger_filled(struct ledger *l, uint64_t page_size, unsigned node, uint64_t before, uint64_t after);
/* Pure. The text form, a line "boot BOOT_ID" first where the boot is known, then one line
 * "PAGE_SIZE NODE OURS LAST" per pool that has pages of ours, and back; -EBADMSG on anything
 * else. */
int ledger_format(FILE *f, const struct ledger *l);
int ledger_parse(const char *text, struct ledger *ret);

/* Reads LEDGER_FILE; a missing one is an empty ledger, and so is one of another boot (said). */
int ledger_load(int rootfd, struct ledger *ret);
/* Reads RUNDIR/@name (LEDGER_NAME, LEDGER_ONCE_NAME), which ledger_save() then writes. */
int ledger_load_named(int rootfd, const char *name, struct ledger *ret);
/* The one-off fills' ledger (LEDGER_ONCE_NAME), for a fill that is no daemon's (--once, hpfilld
 * claim without a daemon) to count what it adds in; one that cannot be read is said and starts
 * empty. */
void ledger_load_once(int rootfd, struct ledger *ret);
/* Pure. The persistent pages `hpfilld give-back` leaves in a pool of @persistent, of which @ours
 * (all the ledgers' together, each seen at @persistent) were added by hpfilld, @in_use (nr less
 * free) are held by processes and @resv promised to mappings (resv_hugepages): @ours fewer,
 * never fewer than are in use or reserved, never more than there are. */
uint64_t ledger_give_back_target(uint64_t persistent, uint64_t ours, uint64_t in_use, uint64_t resv);
int ledger_save(int rootfd, const struct ledger *l);
/* The persistent pages of every pool of @t (size-major), UINT64_MAX where unreadable. */
int ledger_read_pools(int rootfd, const struct topology *t, uint64_t **ret);
/* After a fill, with @before from ledger_read_pools() under the same host lock: each pool seen
 * at @before, then filled to what it holds now; the other ledger's file (the daemon's, the
 * one-offs') sees the pools at @before and now too. */
void ledger_count_fill(int rootfd, struct ledger *l, const struct topology *t, const uint64_t *before);
/* ReleaseOnStop=: every pool with pages of ours, configured now or not, gives them back: the
 * free ones leave now, ours in use become surplus and leave when freed; one line per pool in the
 * log. What could not be given back stays in the ledger (and its file). */
void ledger_release(int rootfd, struct ledger *l);
/* Pure. The pages of the pool (@page_size, @node) counted as ours. */
uint64_t ledger_ours(const struct ledger *l, uint64_t page_size, unsigned node);
/* Pure. A give-back took *@given pages out of the pool, which holds @now persistent pages since:
 * they were ours, taken from this ledger's count first; *@given is left with what it did not
 * count. */
void ledger_given_back(struct ledger *l, uint64_t page_size, unsigned node, uint64_t *given, uint64_t now);
void ledger_done(struct ledger *l);
