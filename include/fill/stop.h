/* SPDX-License-Identifier: MIT */
/* A stop request shared by the main thread (which takes signals) and the workers. */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

struct stop {
        atomic_bool requested;
        atomic_int signo;
        /* The executor's own request that the tasks it started wind down (it could not start
         * them all): not a stop of the run, and cleared once they have returned. */
        atomic_bool wind_down;
        /* A signalfd for SIGINT/SIGTERM while a lone task runs on the thread that takes the
         * signals (the executor's inline case): stop_requested() reads it. -1 otherwise; only
         * changed while no other thread runs. */
        int signal_fd;
        pthread_mutex_t lock;
        pthread_cond_t cond;
};

void stop_init(struct stop *s);
void stop_done(struct stop *s);
void stop_request(struct stop *s, int signo);
/* The executor's wind-down: set while the tasks it started return early, cleared after. */
void stop_wind_down(struct stop *s, bool on);
/* A signal waiting on the signalfd @fd becomes a stop request. @block: wait for one. */
void stop_take_signal(struct stop *s, int fd, bool block);
static inline bool stop_requested(struct stop *s) {
        if (s->signal_fd >= 0)
                stop_take_signal(s, s->signal_fd, false);
        return atomic_load_explicit(&s->requested, memory_order_acquire) ||
               atomic_load_explicit(&s->wind_down, memory_order_acquire);
}
/* A stop asked for by a signal: the run is interrupted. */
static inline bool stop_signalled(struct stop *s) {
        return atomic_load_explicit(&s->requested, memory_order_acquire);
}
/* Blocks until a stop is requested. */
void stop_wait(struct stop *s);
