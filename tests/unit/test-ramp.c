/* SPDX-License-Identifier: MIT */
/* The thread-count ramp: decisions, windows on a synthetic clock, admission across threads. */
#include <pthread.h>
#include <stdatomic.h>

#include "util/macro.h"
#include "fill/ramp.h"
#include "test.h"

#define MS (UINT64_C(1000000))

TEST(test_decide) {
        CHECK_EQ(ramp_decide(0, 50, 1, 4), RAMP_UP);       /* first window */
        CHECK_EQ(ramp_decide(100, 111, 2, 4), RAMP_UP);    /* +11% */
        CHECK_EQ(ramp_decide(100, 110, 2, 4), RAMP_UP);    /* +10% exactly */
        CHECK_EQ(ramp_decide(100, 109, 2, 4), RAMP_SETTLE);
        CHECK_EQ(ramp_decide(100, 80, 2, 4), RAMP_SETTLE);
        CHECK_EQ(ramp_decide(100, 500, 4, 4), RAMP_SETTLE); /* nobody left */
        CHECK_EQ(ramp_decide(0, 500, 1, 1), RAMP_SETTLE);
}

/* Feeds windows of @ms milliseconds at @rate pages per ms, one chunk per admitted worker. */
static void window(struct ramp *r, uint64_t *pages, uint64_t *now, uint64_t ms, uint64_t rate) {
        unsigned active = r->active;

        for (unsigned k = 0; k < active; k++) {
                *now += ms * MS / active;
                *pages += rate * ms / active;
                ramp_progress(r, *pages, *now);
        }
}

TEST(test_knee) {
        struct ramp r;
        uint64_t pages = 0, now = 0;

        ramp_init(&r, 8, true, now);
        CHECK_EQ(ramp_active(&r), 1);
        window(&r, &pages, &now, 20, 100); /* 1 worker: 100/ms */
        CHECK_EQ(ramp_active(&r), 2);
        window(&r, &pages, &now, 20, 190); /* 2: +90% */
        CHECK_EQ(ramp_active(&r), 3);
        window(&r, &pages, &now, 20, 260); /* 3: +37% */
        CHECK_EQ(ramp_active(&r), 4);
        window(&r, &pages, &now, 20, 270); /* 4: +4%: the knee */
        CHECK_EQ(ramp_active(&r), 4);
        CHECK(r.settled);
        window(&r, &pages, &now, 20, 900); /* settled: no more */
        CHECK_EQ(ramp_active(&r), 4);
        ramp_destroy(&r);
}

TEST(test_short_windows_wait) {
        struct ramp r;

        ramp_init(&r, 4, true, 0);
        ramp_progress(&r, 10, 5 * MS); /* 5 ms: too short to judge */
        CHECK_EQ(ramp_active(&r), 1);
        ramp_progress(&r, 30, 11 * MS);
        CHECK_EQ(ramp_active(&r), 2);
        /* two workers admitted: a window needs a chunk from each */
        ramp_progress(&r, 100, 40 * MS);
        CHECK_EQ(ramp_active(&r), 2);
        ramp_destroy(&r);
}

TEST(test_fixed) {
        struct ramp r;

        ramp_init(&r, 3, false, 0);
        CHECK_EQ(ramp_active(&r), 3);
        CHECK(ramp_admit(&r, 2));
        ramp_progress(&r, 1000, 100 * MS);
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

        ramp_init(&r, 4, true, 0);
        for (unsigned i = 0; i < 3; i++) {
                g[i] = (struct gated) { &r, i + 1, -1 };
                CHECK_EQ(pthread_create(&th[i], NULL, gate, &g[i]), 0);
        }
        /* a window admits worker 1, and only it; a report that finds the ramp locked by a
         * waking worker is skipped by design (trylock), so report until it lands */
        while (ramp_active(&r) < 2)
                ramp_progress(&r, 100, 20 * MS);
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
        RUN(test_fixed);
        RUN(test_admission_threads);
        return 0;
}
