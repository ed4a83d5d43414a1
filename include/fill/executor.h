/* SPDX-License-Identifier: MIT */
/* Runs tasks on threads while the calling thread takes the stop signals and ticks progress. */
#pragma once

#include <pthread.h>
#include <stddef.h>

#include "fill/stop.h"

struct task {
        void (*fn)(void *arg);
        void *arg;
};

/* stop_block_signals(): blocks the stop signals in every thread (call before any other thread
 * exists: the mask is inherited) and ignores SIGPIPE. */
int executor_block_signals(void);

/* Starts one thread per task, then waits. A signal of stop->signals requests @stop; the tasks are
 * expected to notice and return. @tick (may be NULL) runs about every @tick_ms while tasks run.
 * A lone task without @tick runs on the calling thread instead, and sees the signals in its
 * stop_requested() checks. Returns once every task has returned: 0, or a negative errno when
 * it could not run them all (a thread that could not be started: EAGAIN under TasksMax= or
 * pids.max); then the tasks it did start were asked to wind down (stop_requested() is true
 * for them, stop_signalled() is not) and have returned. */
int executor_run(const struct task *tasks, size_t n_tasks, struct stop *stop, unsigned tick_ms,
                 void (*tick)(void *userdata), void *userdata);
