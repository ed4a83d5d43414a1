/* SPDX-License-Identifier: MIT */
/* The thread-count ramp: admit one more worker while throughput still rises, stop at the knee. */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* A step up must raise throughput by this much (percent) to count: below it, the knee. */
#define RAMP_GAIN_PERCENT 10
/* A measuring window lasts at least this long, and until every admitted worker finished a chunk. */
#define RAMP_WINDOW_NS (UINT64_C(10) * 1000 * 1000)

enum ramp_decision {
        RAMP_UP,     /* admit one more worker */
        RAMP_SETTLE, /* the last step did not pay, or there is no one left to admit */
};

/* Pure: the next step after a window measured @rate (pages per second), where the best window
 * so far measured @best (0: none yet). */
enum ramp_decision ramp_decide(double best, double rate, unsigned active, unsigned max);

struct ramp {
        pthread_mutex_t lock;
        pthread_cond_t cond;
        unsigned active;  /* workers 0..active-1 may run */
        unsigned max;
        bool settled;
        bool done;        /* no more work: gated workers leave */
        uint64_t (*clock)(void); /* now, in ns: now_ns(), or a test's clock */
        uint64_t window_ns, window_start_ns, window_start_pages;
        unsigned window_chunks;
        double best;      /* pages per second of the best window */
};

/* @ramping false: all @max workers run at once (a fixed thread count). The first window starts
 * at @clock()'s now. */
void ramp_init(struct ramp *r, unsigned max, bool ramping, uint64_t (*clock)(void));
void ramp_destroy(struct ramp *r);
/* Worker @k blocks until it is admitted (true) or the work is over (false). */
bool ramp_admit(struct ramp *r, unsigned k);
/* A worker finished a chunk, counted in @pages_done (the node's total so far), which this reads
 * with the clock once it holds the ramp. May admit one more worker. */
void ramp_progress(struct ramp *r, const _Atomic uint64_t *pages_done);
/* No more work: wakes every gated worker. */
void ramp_finish(struct ramp *r);
/* Workers admitted so far. */
unsigned ramp_active(struct ramp *r);
