/* SPDX-License-Identifier: MIT */
/* Mode=auto at fill time: each candidate measured on the first pages of every node, the faster
 * carrying on in segments, measured again when a segment's rate collapses. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "plan/choose.h"
#include "plan/plan.h"

/* The first sysfs step of a node while measuring: at most this many pages (and an eighth of the
 * node's shortfall), enough for a rate above the cost of one write (0.2 ms). */
#define MEASURE_SYSFS_PAGES 64
/* The slowest the sysfs method is expected to be, bytes per second: zeroing on one CPU under
 * init_on_alloc (about 8 GB/s here; 2 GB/s leaves room for slow memory). A pool that would fill
 * within CHOOSE_PROBE_WORTH_NS even at that rate is not worth probing fault for: its sysfs
 * measurement is the fill's own first write, with nothing added. */
#define MEASURE_SYSFS_WORST_BPS (UINT64_C(2) << 30)

/* What one run of a method on a segment gave. */
struct measure_result {
        uint64_t *after;    /* per node of the segment, nr_hugepages after it (the caller's array) */
        uint64_t elapsed_ns;
        unsigned threads;   /* fault: workers per node that ran; sysfs: writers */
        unsigned rounds;    /* sysfs retry rounds */
        bool after_drop;
        bool interrupted;
        int error;          /* negative errno */
        char error_what[192];
};

/* How a segment reaches the kernel: the real fill (fill_execute() on a one-pool plan), or in
 * unit tests a simulated kernel whose rates the test sets. */
struct measure_ops {
        /* Runs @seg (per node: now, target and action) by @m. Returns 0 or a negative errno;
         * what the pool got goes to @res. */
        int (*run)(void *userdata, enum fill_mode m, const struct plan_pool *seg, struct measure_result *res);
        /* vm.hugetlb_optimize_vmemmap for the pool's measurement number @nth (0: its first, which
         * may take HVO as the run read it before its plan): 1, 0, -1 (absent); one after a
         * collapse reads it again, as HVO may have been turned on mid-fill */
        int (*hvo)(void *userdata, unsigned nth);
        void *userdata;
        uint64_t sysfs_step_bytes; /* the method's own first write (fill_shared.step_bytes); 0: SYSFS_STEP_BYTES */
        /* Before a fault probe of node @i, now at *@now pages: makes the node ready to measure
         * new pages (a fault takes free ones first): gives back the free pages the fill added
         * there (*@now then the count after), and says whether the node has none left; a node
         * with free pages that are not the fill's is never faulted to measure. NULL: all are. */
        bool (*clear_for_fault)(void *userdata, size_t i, uint64_t *now);
};

/* The outcome of a measured pool, summed over its measurements and segments. */
struct measure_outcome {
        struct choice choice;
        uint64_t *after;     /* per node of @pp: the count at the end (the caller's array) */
        uint64_t elapsed_ns; /* sum of the runs */
        unsigned threads, rounds;
        bool after_drop, interrupted;
        int error;
        char error_what[192];
};

/* Fills @pp (method FILL_MODE_AUTO, rule pp->rule) by measuring and carrying on. Returns 0 or
 * the first negative errno of a run; out->after must have pp->n_nodes entries. */
int measure_fill(const struct measure_ops *ops, const struct plan_pool *pp, struct measure_outcome *out);
