/* SPDX-License-Identifier: MIT */
/* How the fill changes a pool: every write of nr_hugepages and nr_overcommit_hugepages it makes
 * goes through these, which the state stage implements (state/change.h: each one inside a change
 * the state announced before it). The fill itself writes none. */
#pragma once

#include <stdint.h>

#define POOL_WRITER_GLOBAL (-1) /* the page size's global nr_hugepages, not a node's */

struct pool_writer {
        /* nr_hugepages of node @node (or POOL_WRITER_GLOBAL) set to @count: 0 or a negative errno */
        int (*write_nr)(void *data, uint64_t page_size, int node, uint64_t count);
        /* nr_overcommit_hugepages raised from @found to @set for the length of the fill, recorded
         * first, so that a later command puts it back if this one dies */
        int (*raise_overcommit)(void *data, uint64_t page_size, uint64_t found, uint64_t set);
        /* put back as found, unless someone changed it since (then theirs stays) */
        int (*restore_overcommit)(void *data, uint64_t page_size);
        void *data;
};
