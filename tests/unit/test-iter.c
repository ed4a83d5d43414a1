/* SPDX-License-Identifier: MIT */
/* The work iterator: N threads take every chunk exactly once. */
#include <pthread.h>
#include <stdatomic.h>

#include "fill/iter.h"
#include "util/macro.h"
#include "test.h"

#define RANGE 100003u /* prime: the last chunk is short */

struct shared {
        struct work_iter it;
        _Atomic unsigned char taken[RANGE];
        _Atomic uint64_t chunks;
};

static void *worker(void *arg) {
        struct shared *s = arg;
        uint64_t start, len;

        while (work_iter_next(&s->it, &start, &len)) {
                atomic_fetch_add(&s->chunks, 1);
                for (uint64_t i = start; i < start + len; i++)
                        atomic_fetch_add(&s->taken[i], 1);
        }
        return NULL;
}

static void run_threads(unsigned n_threads, uint64_t chunk) {
        static struct shared s;
        pthread_t th[16];

        memset(&s, 0, sizeof(s));
        work_iter_init(&s.it, 0, RANGE, chunk);
        for (unsigned i = 0; i < n_threads; i++)
                CHECK_EQ(pthread_create(&th[i], NULL, worker, &s), 0);
        for (unsigned i = 0; i < n_threads; i++)
                CHECK_EQ(pthread_join(th[i], NULL), 0);
        for (unsigned i = 0; i < RANGE; i++)
                CHECK_EQ(s.taken[i], 1);
        CHECK_EQ(s.chunks, DIV_ROUND_UP(RANGE, chunk));
}

TEST(test_threads) {
        static const unsigned threads[] = { 1, 2, 4, 16 };
        static const uint64_t chunks[] = { 1, 7, 64, 4096, RANGE, RANGE * 2 };

        for (size_t i = 0; i < ELEMENTSOF(threads); i++)
                for (size_t j = 0; j < ELEMENTSOF(chunks); j++)
                        run_threads(threads[i], chunks[j]);
}

TEST(test_edges) {
        struct work_iter it;
        uint64_t start, len;

        work_iter_init(&it, 5, 5, 3);
        CHECK(!work_iter_next(&it, &start, &len));

        work_iter_init(&it, 10, 15, 0); /* chunk 0 means 1 */
        for (unsigned i = 0; i < 5; i++) {
                CHECK(work_iter_next(&it, &start, &len));
                CHECK_EQ(start, 10 + i);
                CHECK_EQ(len, 1);
        }
        CHECK(!work_iter_next(&it, &start, &len));
        CHECK(!work_iter_next(&it, &start, &len));
}

int main(void) {
        RUN(test_threads);
        RUN(test_edges);
        return 0;
}
