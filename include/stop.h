/* SPDX-License-Identifier: MIT */
/* A stop request shared by the main thread (which takes signals) and the workers. */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

struct stop {
        atomic_bool requested;
        atomic_int signo;
        pthread_mutex_t lock;
        pthread_cond_t cond;
};

void stop_init(struct stop *s);
void stop_done(struct stop *s);
void stop_request(struct stop *s, int signo);
static inline bool stop_requested(struct stop *s) {
        return atomic_load_explicit(&s->requested, memory_order_acquire);
}
/* Blocks until a stop is requested. */
void stop_wait(struct stop *s);
