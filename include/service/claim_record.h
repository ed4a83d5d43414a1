/* SPDX-License-Identifier: MIT */
/* The claims' records: RUNDIR/claim.NAME, the pages the fills added to each pool (page size,
 * node) for claim NAME, in the ledger's form (ledger.h), so that a claim given back, or made
 * smaller, gives back what it got, never more: not an admin's pages beside a claim that fell
 * short. Written by the fills that count them (under the host lock). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "kernel/topology.h"
#include "service/ledger.h"
#include "settings/conf.h"

#define CLAIM_RECORD_PREFIX "claim."
/* RUNDIR/unclaim.NAME: claim NAME is given back and its give-back not done yet. Every fill that
 * counts the claims' records (job.claims) gives back what the record of a claim so marked that
 * the configuration no longer has holds, and removes the mark (and the record) once its writes
 * are done; until then each fill tries again. A mark whose claim the configuration has is left
 * alone (the record is that claim's while it has it): a fill's configuration may be older than
 * the files (a daemon's first fill, read before an unclaim removed the file); the fill of the
 * `hpfilld claim` that made the claim anew removes it (job.claim_made). */
#define CLAIM_PENDING_PREFIX "unclaim."

struct claim_record {
        char name[64];
        char file[80]; /* CLAIM_RECORD_PREFIX NAME, in RUNDIR */
        bool configured; /* a claim of the configuration; else one given back (CLAIM_PENDING_PREFIX) */
        struct ledger l;
        uint64_t *pages; /* what its claim has on each pool now (size-major, t->n_nodes a size) */
};

struct claim_records {
        struct claim_record *r;
        size_t n;
        uint64_t *pool_pages; /* the [Pool]s' targets, the same way */
};

/* Marks claim @name given back (RUNDIR/unclaim.NAME, replaced atomically, never through a link). */
int claim_pending_mark(int rootfd, const char *name);
/* The mark removed (a failure said). */
void claim_pending_clear(int rootfd, const char *name);
/* Marks given back each claim (by name) of @old that @new has not. */
int claim_pending_mark_gone(int rootfd, const struct config *old, const struct config *new);
/* Whether a give-back of claim @name is pending: 1, 0, or a negative errno. */
int claim_pending(int rootfd, const char *name);
/* The records of @c's claims and of the claims marked given back that @c has not, read from
 * RUNDIR; the pages each claim and [Pool] has on @t. A record that cannot be read is said and
 * counts none. */
int claim_records_load(int rootfd, const struct topology *t, const struct config *c, struct claim_records *ret);
/* For a fill: each record sees the pools as they are, pages that left one since it last looked
 * being its (as a ledger counts them): a give-back is planned on what is left. Not after
 * `hpfilld give-back`, which takes none of the claims' pages (claim_records_after_give_back()). */
int claim_records_see(int rootfd, const struct topology *t, struct claim_records *recs);
/* Reads each record again: under the host lock, as the fill that counts in them finds them. */
void claim_records_reread(int rootfd, struct claim_records *recs);
/* Before a fill's first write, under its host lock, with @before as ledger_read_pools() read
 * it: each record sees the pools at @before and is written so. A fill that dies after its writes,
 * before claim_records_count(), leaves records that the next fill sees the pools left since:
 * what it gave back is never given back again (from the [Pool]'s or an admin's pages). */
void claim_records_before(int rootfd, const struct topology *t, struct claim_records *recs, const uint64_t *before);
/* Pure. What the planner may give back (config.gone): each pool's pages of the claims given
 * back, and of a claim made smaller what its record holds beyond its pages now, as per-node
 * page amounts. */
int claim_records_gone(const struct topology *t, const struct claim_records *recs, struct claim_spec **ret,
                       size_t *ret_n);
/* Pure. A fill took the pool (@page_size, @node) from @before to @after persistent pages: what
 * left it leaves the claims given back first (then those made smaller, beyond their pages);
 * what came is the [Pool]'s up to its target (@pool_pages, less what the pool holds beyond the
 * claims' records), then each claim's up to its pages, in order. @pages[i] is what record i's
 * claim has on that pool (0 for one given back). */
void claim_records_filled(struct claim_records *recs, size_t k, uint64_t page_size, unsigned node, uint64_t before,
                          uint64_t after);
/* After a fill (@ran: its writes done, exit 0 or 3), with @before as ledger_read_pools() read it
 * under the same host lock: each record counts it and is written back; with @ran, a claim given
 * back is done (its record and its mark removed; what it had in use stays, nobody's claim) and
 * a smaller one keeps at most its pages. Without @ran, the give-backs stay pending. The mark of
 * claim @made (NULL: none), which the configuration has, is removed. */
void claim_records_count(int rootfd, const struct topology *t, struct claim_records *recs, const uint64_t *before,
                         bool ran, const char *made);
/* After `hpfilld give-back` (under its host lock), which gave back the pages of the claims @c
 * has not and kept those of its claims: the give-backs pending are done (marks and records
 * removed), and the other records see the pools as it left them. */
void claim_records_after_give_back(int rootfd, const struct topology *t, const struct config *c);
void claim_records_done(struct claim_records *recs);
