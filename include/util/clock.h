/* SPDX-License-Identifier: MIT */
/* The monotonic clock, in nanoseconds, for fill timings. */
#pragma once

#include <stdint.h>
#include <time.h>

static inline uint64_t now_ns(void) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * UINT64_C(1000000000) + (uint64_t) ts.tv_nsec;
}
