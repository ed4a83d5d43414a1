/* SPDX-License-Identifier: MIT */
/* Runs a plan: every pool by its method, concurrently, on the executor; results per pool. */
#pragma once

#include "fill/fill_fault.h"
#include "fill/fill_sysfs.h"

struct pool_run {
        const struct plan_pool *plan;
        struct sysfs_fill sysfs;  /* the sysfs method; for fault pools the top-up after faulting */
        struct fault_pool fault;
        bool faulting;
        uint64_t elapsed_ns;
        unsigned threads;         /* fault: the most workers per node that ran; sysfs: writers */
        bool interrupted;
        int error;                /* first error of the pool, negative errno */
        const char *error_what;   /* what it was about (a path, "mmap ...") */
        /* Mode=auto measured (fill_auto.c): what was measured and picked, the segment running now
         * and the pages of the segments before it, for progress */
        struct choice choice;
        const struct pool_run *segment;
        uint64_t segment_base;
        char what[192];
};

/* Fills every pool of @p; @runs has p->n_pools entries, filled in (each with its plan, whatever
 * fails). Returns 0, or a negative errno when the fill itself failed: the executor, or memory for
 * its setup (-ENOMEM, before anything is written: every pool's error); pool errors are in the
 * runs. */
int fill_execute(struct fill_shared *shared, const struct plan *p, struct pool_run *runs);
void fill_runs_done(struct pool_run *runs, size_t n);
/* Node @k's persistent pages as run @r last saw them (the plan's count where it saw none), for a
 * report that cannot read them back. */
uint64_t pool_run_node_after(const struct pool_run *r, size_t k);
/* Pages added so far to run @r: for progress reports, from any thread. */
uint64_t pool_run_progress(const struct pool_run *r);
