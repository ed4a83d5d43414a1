/* SPDX-License-Identifier: MIT */
/* The steps of a fill: the size of a node's first sysfs write, and the count of steps taken (fill_sysfs.h). */
#include "fill/fill_sysfs.h"
#include "util/macro.h"

uint64_t sysfs_first_step(uint64_t page_size, uint64_t step_bytes) {
        /* Gigantic pages come from alloc_contig_range(), one slow search each: one per write. */
        if (page_size >= SYSFS_GIGANTIC)
                return 1;
        return MAX(UINT64_C(1), step_bytes / page_size);
}

uint64_t fill_count_step(struct fill_shared *s) {
        return atomic_fetch_add(&s->steps, 1) + 1;
}
