/* SPDX-License-Identifier: MIT */
/* A shared work iterator: threads take chunks of [start, end) by atomic fetch-add, as padata does. */
#include "fill/iter.h"

void work_iter_init(struct work_iter *it, uint64_t start, uint64_t end, uint64_t chunk) {
        atomic_init(&it->next, start);
        it->end = end;
        it->chunk = chunk ? chunk : 1;
}

bool work_iter_next(struct work_iter *it, uint64_t *ret_start, uint64_t *ret_len) {
        uint64_t start;

        /* Relaxed is enough: the chunk itself is the only thing handed over, and each value of
         * the counter goes to exactly one caller. Overshoot past end is bounded by
         * threads * chunk, far from wrapping for any real range. */
        start = atomic_fetch_add_explicit(&it->next, it->chunk, memory_order_relaxed);
        if (start >= it->end)
                return false;
        *ret_start = start;
        *ret_len = it->end - start < it->chunk ? it->end - start : it->chunk;
        return true;
}
