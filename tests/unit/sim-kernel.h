/* SPDX-License-Identifier: MIT */
/* A simulated kernel under the sysfs writer, for shortfalls and retries a fake tree cannot show.
 * Test-only, linked with -Wl,--wrap= of the pool functions the writer calls (tests/meson.build):
 * while sim_kernel is set they reach it instead of the files below rootfd. */
#pragma once

#include <stdint.h>

/* Each node holds at most cap[node] pages; each compaction of a node raises its cap by
 * release[node], until max_compactions; dropping the caches raises each cap by
 * drop_release[node] and allows drop_compactions more compactions. */
struct sim {
        uint64_t nr[2], cap[2], release[2], drop_release[2];
        unsigned compactions[2], max_compactions, drop_compactions;
        unsigned writes, drops;
};

/* NULL: the real functions, on the fake tree */
extern struct sim *sim_kernel;
