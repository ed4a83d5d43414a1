/* SPDX-License-Identifier: MIT */
/* Runs jobs on threads while the calling thread takes SIGINT/SIGTERM and ticks progress. */
#pragma once

#include <stddef.h>

#include "stop.h"

struct job {
        void (*fn)(void *arg);
        void *arg;
};

/* Blocks SIGINT and SIGTERM in every thread (call before any other thread exists: the mask
 * is inherited). Returns the old mask's restoration value through executor_signals_restore(). */
int executor_block_signals(void);

/* Starts one thread per job, then waits. A SIGINT or SIGTERM requests @stop; the jobs are
 * expected to notice and return. @tick (may be NULL) runs about every @tick_ms while jobs run.
 * Returns once every job has returned. */
int executor_run(const struct job *jobs, size_t n_jobs, struct stop *stop, unsigned tick_ms,
                 void (*tick)(void *userdata), void *userdata);
