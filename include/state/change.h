/* SPDX-License-Identifier: MIT */
/* The one way a pool changes: announced in the state (the owners it is for, from and to) and
 * saved before the first kernel write, the writes, then settled against the count read back (kept
 * by the command's next save). A command that dies anywhere in between leaves an intent that the next one
 * settles the same way (store.h). Nothing else writes nr_hugepages or nr_overcommit_hugepages. */
#pragma once

#include "fill/pool_writer.h"
#include "state/store.h"

/* Adds @n intents (their parts copied) and saves the state: only then may the pools be written.
 * A pool with an intent already (a bug) is -EBUSY; nothing is added on failure. */
int state_change_begin(struct state_store *st, const struct state_intent *in, size_t n);
/* Sets nr_hugepages of @node (POOL_WRITER_GLOBAL: the global file) of @page_size, inside an
 * intent of that pool (of any node of the size for the global file); -EPERM outside one. */
int state_change_write(struct state_store *st, uint64_t page_size, int node, uint64_t count);
/* Every intent settled against its pool's count now, in memory: the next save keeps it (a command
 * killed before leaves the intents for the next one to settle the same way). */
int state_change_settle(struct state_store *st);
/* The fill's writer: state_change_write() and the overcommit's two, on @st */
struct pool_writer state_change_writer(struct state_store *st);
/* Setting @i of the state (raised by a command that ended) put back where it still holds what
 * that command set, and dropped; said in the store's notes. */
void state_change_restore_setting(struct state_store *st, size_t i);
/* Gives back, from pool @page_size of node @node, up to @givable of the pages owners @owners (in
 * that order) hold: one intent, the write, the read-back. Returns the pages given back. */
int state_change_give_back(struct state_store *st, uint64_t page_size, unsigned node, const size_t *owners, size_t n,
                           uint64_t givable, uint64_t *ret_given);
