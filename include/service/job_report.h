/* SPDX-License-Identifier: MIT */
/* What a fill reports: its progress, each pool's outcome as the kernel tells it, the
 * reservations, the advice for the next boot, the record for the metrics. */
#pragma once

#include "fill/fill.h"
#include "fill/reserve.h"
#include "kernel/kernel_features.h"
#include "kernel/topology.h"
#include "plan/plan.h"
#include "service/job_run.h"

struct progress {
        const struct job_sink *to;
        const struct pool_run *runs;
        size_t n;
        uint64_t logged[ELEMENTSOF(((struct job_status *) NULL)->pools)]; /* pages added, as last logged */
};

/* What a run of the fill came to, over its pools. */
struct tally {
        bool failed, interrupted, short_;
        const struct plan_pool **shorts; /* short without being stopped or failing: for advice */
        size_t n_shorts;
};

/* The report's pool lines, joined: the daemon's last STATUS= and `hpfilld status`. */
void job_summary_add(struct job *j, const char *line);
/* For the metrics and `hpfilld status`: each [Claim] of the configuration @c (the
 * configuration's own pages, not hpfilld claim's, which the state holds), per node, as the plan
 * counted them. */
void job_record_claims(struct job *j, const struct topology *t, const struct config *c);
/* The fill's executor tick: progress to the job's callback, -v lines */
void job_tick_progress(void *userdata);
void job_report_reserves(struct job *j, const struct reserve_run *runs, size_t n, bool *failed, bool *short_);
/* For the pools that came back short: what gets them at the next boot. */
void job_advise(struct job *j, const struct plan_pool *const *shorts, size_t n, unsigned alloc_threads);
/* A closed stdout fails the report (exit 1), nothing else. */
void job_report_flush(struct job *j);
void job_report_measured(struct job *j, const struct plan *p, const struct pool_run *runs,
                         const struct kernel_features *caps);
/* One pool's outcome as the kernel tells it now: the lines, the record, the tally. */
void job_report_outcome(struct job *j, const struct topology *t, const struct pool_run *run, unsigned min_percent,
                        uint64_t *after, uint64_t *surplus_after, struct tally *tally);
