/* SPDX-License-Identifier: MIT */
/* A stop request shared by the main thread (which takes signals) and the workers. */
#include "stop.h"

void stop_init(struct stop *s) {
        atomic_init(&s->requested, false);
        atomic_init(&s->signo, 0);
        (void) pthread_mutex_init(&s->lock, NULL);
        (void) pthread_cond_init(&s->cond, NULL);
}

void stop_done(struct stop *s) {
        (void) pthread_mutex_destroy(&s->lock);
        (void) pthread_cond_destroy(&s->cond);
}

void stop_request(struct stop *s, int signo) {
        (void) pthread_mutex_lock(&s->lock);
        atomic_store(&s->signo, signo);
        atomic_store_explicit(&s->requested, true, memory_order_release);
        (void) pthread_cond_broadcast(&s->cond);
        (void) pthread_mutex_unlock(&s->lock);
}

void stop_wait(struct stop *s) {
        (void) pthread_mutex_lock(&s->lock);
        while (!stop_requested(s))
                (void) pthread_cond_wait(&s->cond, &s->lock);
        (void) pthread_mutex_unlock(&s->lock);
}
