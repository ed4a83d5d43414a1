/* SPDX-License-Identifier: MIT */
/* What a fill checks before its first write, against the pools as they are: nothing changes
 * until all pass (job.c runs them once a run, after the plan: a fill's under the host lock). */
#pragma once

#include <stdbool.h>

#include "fill/reserve.h"
#include "kernel/pool.h"
#include "kernel/topology.h"
#include "plan/plan.h"
#include "service/job_run.h"

/* The counters of every (size, node) pool of @t, sizes major; logs why not. */
int job_read_counts(int rootfd, const struct topology *t, struct pool_counts **ret);
/* Whether the pools moved since @before was read: another fill may have come and gone between
 * the plan and the lock without making us wait. */
bool job_counts_changed(int rootfd, const struct topology *t, const struct pool_counts *before);
/* The reservations' mounts and pages (@reserves located), the nodes this process may allocate
 * on, every file the fill will write: EXIT_OK, or the status the run ends with (said in the log). */
int job_check(struct job *j, const struct topology *t, const struct pool_counts *counts, const struct plan *p,
              struct reserve_run *reserves);
