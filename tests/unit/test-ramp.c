/* SPDX-License-Identifier: MIT */
/* The thread-count ramp: decisions, windows on a synthetic clock, admission across threads. */
#include <pthread.h>
#include <stdatomic.h>

#include "util/macro.h"
#include "fill/ramp.h"
#include "test.h"

#define MS (UINT64_C(1000000))

/* The ramp's clock in these tests: what the test sets. */
static uint64_t fake_now;

static uint64_t fake_clock(void) {
        return fake_now;
}

/* @r of @max workers (ramping up where @ramp, else all at once) on the tests' clock, at 0 */
static void ramp_start(struct ramp *r, unsigned max, bool ramp) {
        fake_now = 0;
        ramp_init(r, max, ramp, fake_clock);
}

TEST(test_decide) {
        CHECK_EQ(ramp_decide(0, 50, 1, 4), RAMP_UP);       /* first window */
        CHECK_EQ(ramp_decide(100, 111, 2, 4), RAMP_UP);    /* +11% */
        CHECK_EQ(ramp_decide(100, 110, 2, 4), RAMP_UP);    /* +10% exactly */
        CHECK_EQ(ramp_decide(100, 109, 2, 4), RAMP_SETTLE);
        CHECK_EQ(ramp_decide(100, 80, 2, 4), RAMP_SETTLE);
        CHECK_EQ(ramp_decide(100, 500, 4, 4), RAMP_SETTLE); /* nobody left */
        CHECK_EQ(ramp_decide(0, 500, 1, 1), RAMP_SETTLE);
}

/* A chunk of @n pages done at @at ns. */
static void chunk(struct ramp *r, _Atomic uint64_t *pages, uint64_t n, uint64_t at) {
        atomic_fetch_add(pages, n);
        fake_now = at;
        ramp_progress(r, pages);
}

/* Feeds windows of @ms milliseconds at @rate pages per ms, one chunk per admitted worker. */
static void window(struct ramp *r, _Atomic uint64_t *pages, uint64_t ms, uint64_t rate) {
        unsigned active = r->active;

        for (unsigned k = 0; k < active; k++)
                chunk(r, pages, rate * ms / active, fake_now + ms * MS / active);
}

TEST(test_knee) {
        struct ramp r;
        _Atomic uint64_t pages = 0;

        ramp_start(&r, 8, true);
        CHECK_EQ(ramp_active(&r), 1);
        window(&r, &pages, 20, 100); /* 1 worker: 100/ms */
        CHECK_EQ(ramp_active(&r), 2);
        window(&r, &pages, 20, 190); /* 2: +90% */
        CHECK_EQ(ramp_active(&r), 3);
        window(&r, &pages, 20, 260); /* 3: +37% */
        CHECK_EQ(ramp_active(&r), 4);
        window(&r, &pages, 20, 270); /* 4: +4%: the knee */
        CHECK_EQ(ramp_active(&r), 4);
        CHECK(r.settled);
        window(&r, &pages, 20, 900); /* settled: no more */
        CHECK_EQ(ramp_active(&r), 4);
        ramp_destroy(&r);
}

TEST(test_short_windows_wait) {
        struct ramp r;
        _Atomic uint64_t pages = 0;

        ramp_start(&r, 4, true);
        chunk(&r, &pages, 10, 5 * MS); /* 5 ms: too short to judge */
        CHECK_EQ(ramp_active(&r), 1);
        chunk(&r, &pages, 20, 11 * MS);
        CHECK_EQ(ramp_active(&r), 2);
        /* two workers admitted: a window needs a chunk from each */
        chunk(&r, &pages, 70, 40 * MS);
        CHECK_EQ(ramp_active(&r), 2);
        ramp_destroy(&r);
}

/* A worker's call that waits while others close a window and start the next one (here: its
 * clock is read, and the others report, in between) is judged on the clock and the count as
 * they are once it holds the ramp, not on older ones: before the window's start, both
 * differences wrapped round, a rate of about 1e9 pages/s that admitted one more worker and
 * stood as the best window for good (or with the count read late, a rate of about 0 that
 * settled the ramp at the first window). */
static struct ramp *late_ramp;
static _Atomic uint64_t late_pages;
static bool late_others_done;

static uint64_t clock_with_others(void) {
        uint64_t now = fake_now;

        if (!late_others_done) {
                late_others_done = true;
                /* two other workers: one closes the window (2 workers from now on), one starts
                 * the next; later than this call's own time */
                chunk(late_ramp, &late_pages, 300, 40 * MS);
                chunk(late_ramp, &late_pages, 10, 41 * MS);
                fake_now = now;
        }
        return now;
}

TEST(test_late_call) {
        struct ramp r;

        late_ramp = &r;
        ramp_start(&r, 4, true);
        r.clock = clock_with_others;
        atomic_store(&late_pages, 100);
        fake_now = 20 * MS;
        ramp_progress(&r, &late_pages);
        /* 100 pages (or all 410) in 20 ms: at most 20500 pages/s, whoever judged the window */
        CHECK(r.best > 0 && r.best <= 410 * 1e9 / (20 * MS));
        CHECK_EQ(ramp_active(&r), 2);
        CHECK(!r.settled); /* a time before the start wrapped round too: a rate of about 0 */
        ramp_destroy(&r);
}

TEST(test_fixed) {
        struct ramp r;
        _Atomic uint64_t pages = 0;

        ramp_start(&r, 3, false);
        CHECK_EQ(ramp_active(&r), 3);
        CHECK(ramp_admit(&r, 2));
        chunk(&r, &pages, 1000, 100 * MS);
        CHECK_EQ(ramp_active(&r), 3);
        ramp_destroy(&r);
}

struct gated {
        struct ramp *r;
        unsigned k;
        atomic_int result; /* -1 running, 0 left, 1 admitted */
};

static void *gate(void *arg) {
        struct gated *g = arg;

        atomic_store(&g->result, ramp_admit(g->r, g->k) ? 1 : 0);
        return NULL;
}

TEST(test_admission_threads) {
        struct ramp r;
        struct gated g[3];
        pthread_t th[3];

        _Atomic uint64_t pages = 0;

        ramp_start(&r, 4, true);
        for (unsigned i = 0; i < 3; i++) {
                g[i] = (struct gated) { &r, i + 1, -1 };
                CHECK_EQ(pthread_create(&th[i], NULL, gate, &g[i]), 0);
        }
        /* a window admits worker 1, and only it; a report that finds the ramp locked by a
         * waking worker is skipped by design (trylock), so report until it lands */
        while (ramp_active(&r) < 2)
                chunk(&r, &pages, 100, 20 * MS);
        CHECK_EQ(pthread_join(th[0], NULL), 0);
        CHECK_EQ(g[0].result, 1);
        /* the work ends: workers 2 and 3 leave without running */
        ramp_finish(&r);
        CHECK_EQ(pthread_join(th[1], NULL), 0);
        CHECK_EQ(pthread_join(th[2], NULL), 0);
        CHECK_EQ(g[1].result, 0);
        CHECK_EQ(g[2].result, 0);
        CHECK(!ramp_admit(&r, 0)); /* after the end nobody is admitted */
        ramp_destroy(&r);
}

int main(void) {
        RUN(test_decide);
        RUN(test_knee);
        RUN(test_short_windows_wait);
        RUN(test_late_call);
        RUN(test_fixed);
        RUN(test_admission_threads);
        return 0;
}
