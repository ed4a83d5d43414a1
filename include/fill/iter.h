/* SPDX-License-Identifier: MIT */
/* A shared work iterator: threads take chunks of [start, end) by atomic fetch-add, as padata does. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct work_iter {
        _Atomic uint64_t next;
        uint64_t end;
        uint64_t chunk;
};

void work_iter_init(struct work_iter *it, uint64_t start, uint64_t end, uint64_t chunk);
/* Takes the next chunk; false when none is left. The last chunk may be short. */
bool work_iter_next(struct work_iter *it, uint64_t *ret_start, uint64_t *ret_len);
