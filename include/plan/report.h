/* SPDX-License-Identifier: MIT */
/* What hpfilld prints: the plan table of --dry-run and the report after a fill. */
#pragma once

#include <stdio.h>

#include "plan/plan.h"

struct pool_outcome {
        const uint64_t *after; /* per plan node, read back after the fill: persistent pages */
        const uint64_t *surplus_after; /* per plan node, surplus pages then; NULL: not known */
        uint64_t elapsed_ns;
        unsigned threads; /* that ran: writers, or workers per node */
        unsigned rounds;
        bool after_drop; /* some rounds came after dropping the caches */
        uint64_t by_sysfs; /* fault pools: the pages the sysfs top-up added */
        bool interrupted;
        int error;
        const char *error_path;
        /* what was measured and the method filled with, by Mode=auto or by a forced --mode fault
         * under HVO checked against sysfs (the text says "auto: ..." for Mode=auto only); NULL
         * where nothing was */
        const struct choice *choice;
};

void report_plan(FILE *f, const struct plan *p);
/* "2M pool: 512/512 pages on 1 node in 64 ms (sysfs, 1 writer)", cut to @size. */
void report_pool_line(char *buf, size_t size, const struct plan_pool *p, const struct pool_outcome *o);
/* That line and a line per node. */
void report_pool(FILE *f, const struct plan_pool *p, const struct pool_outcome *o);
