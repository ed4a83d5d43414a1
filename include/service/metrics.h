/* SPDX-License-Identifier: MIT */
/* The pools and the last fill as Prometheus metrics (text exposition format 0.0.4): the model,
 * what a fill records for it, and the formatter. */
#pragma once


#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "state/record.h"

/* One (page size, node) pool as the kernel shows it, and its target in the last plan. */
struct metrics_pool {
        uint64_t page_size;
        unsigned node;
        uint64_t total, free, surplus;
        bool has_target;
        uint64_t target;
};

struct metrics {
        const char *version;
        struct metrics_pool *pools;
        size_t n_pools;
        struct metrics_size *sizes;
        size_t n_sizes;
        const struct fill_record *fill; /* NULL or !valid: no fill recorded */
        const struct metrics_reserve *reserves;
        size_t n_reserves;
};

/* Writes @m in the exposition format; -errno on a write error. Pure. */
int metrics_format(FILE *f, const struct metrics *m);
/* A setting a command that ended left raised (RUNDIR/state), as it is now */
struct status_setting {
        char path[160];
        uint64_t found, set, now;
        /* "stale": what that command set (the next command puts it back); "changed": changed
         * since (left as it is); "raised": the command that holds the host lock raised it (it
         * runs); "failed": it cannot be read */
        const char *result;
        int error;
};

/* One hpfilld_journal_entry per setting; -errno on a write error. Pure. */
int metrics_format_journal(FILE *f, const struct status_setting *set, size_t n);

