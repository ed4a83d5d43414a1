/* SPDX-License-Identifier: MIT */
/* The thread-count ramp: admit one more worker while throughput still rises, stop at the knee. */
#include "fill/ramp.h"

enum ramp_decision ramp_decide(double best, double rate, unsigned active, unsigned max) {
        if (active >= max)
                return RAMP_SETTLE;
        if (best <= 0)
                return RAMP_UP;
        return rate * 100 >= best * (100 + RAMP_GAIN_PERCENT) ? RAMP_UP : RAMP_SETTLE;
}

void ramp_init(struct ramp *r, unsigned max, bool ramping, uint64_t (*clock)(void)) {
        *r = (struct ramp) {
                .active = ramping ? 1 : max,
                .max = max,
                .settled = !ramping || max <= 1,
                .clock = clock,
                .window_ns = RAMP_WINDOW_NS,
                .window_start_ns = clock(),
        };
        (void) pthread_mutex_init(&r->lock, NULL);
        (void) pthread_cond_init(&r->cond, NULL);
}

void ramp_destroy(struct ramp *r) {
        (void) pthread_mutex_destroy(&r->lock);
        (void) pthread_cond_destroy(&r->cond);
}

bool ramp_admit(struct ramp *r, unsigned k) {
        bool admitted;

        (void) pthread_mutex_lock(&r->lock);
        while (k >= r->active && !r->done)
                (void) pthread_cond_wait(&r->cond, &r->lock);
        admitted = k < r->active && !r->done;
        (void) pthread_mutex_unlock(&r->lock);
        return admitted;
}

void ramp_progress(struct ramp *r, const _Atomic uint64_t *pages_done) {
        uint64_t now, pages;
        double rate;

        /* Workers that find the ramp busy skip it: the next chunk will do. */
        if (pthread_mutex_trylock(&r->lock) != 0)
                return;
        /* The clock and the count under the lock, after the window's start was: read before it,
         * a call that waited while another closed the window would be older than its start, and
         * both differences would wrap round (a rate of about 1e9 pages/s). */
        now = r->clock();
        pages = atomic_load_explicit(pages_done, memory_order_relaxed);
        r->window_chunks++;
        if (r->settled || now - r->window_start_ns < r->window_ns || r->window_chunks < r->active)
                goto out;
        rate = (double) (pages - r->window_start_pages) * 1e9 / (double) (now - r->window_start_ns);
        if (ramp_decide(r->best, rate, r->active, r->max) == RAMP_UP) {
                r->best = rate > r->best ? rate : r->best;
                r->active++;
                (void) pthread_cond_broadcast(&r->cond);
        } else
                r->settled = true;
        r->window_start_ns = now;
        r->window_start_pages = pages;
        r->window_chunks = 0;
out:
        (void) pthread_mutex_unlock(&r->lock);
}

void ramp_finish(struct ramp *r) {
        (void) pthread_mutex_lock(&r->lock);
        r->done = true;
        (void) pthread_cond_broadcast(&r->cond);
        (void) pthread_mutex_unlock(&r->lock);
}

unsigned ramp_active(struct ramp *r) {
        unsigned n;

        (void) pthread_mutex_lock(&r->lock);
        n = r->active;
        (void) pthread_mutex_unlock(&r->lock);
        return n;
}
