/* SPDX-License-Identifier: MIT */
/* What the running kernel does that decides the fill method: init_on_alloc, MADV_POPULATE_WRITE. */
#pragma once

#include <stdbool.h>

struct kernel_caps {
        bool init_on_alloc;       /* every page allocation is zeroed, inside the serial sysfs path */
        const char *init_on_alloc_source;
        bool populate_write;      /* madvise(MADV_POPULATE_WRITE), Linux 5.14+ */
        unsigned boot_alloc_threads; /* hugepage_alloc_threads= worth advising (Linux 6.15+): CPUs; else 0 */
};

/* Whether kernel release @release ("6.18.4-...") is at least @major.@minor. */
bool kernel_release_at_least(const char *release, unsigned major, unsigned minor);
/* The value of init_on_alloc= on @cmdline (the last one wins): 1, 0, or -1 when absent. */
int cmdline_init_on_alloc(const char *cmdline);
/* Reads proc/cmdline and boot/config-RELEASE below @rootfd; probes MADV_POPULATE_WRITE when @host. */
void kernel_caps_read(int rootfd, bool host, struct kernel_caps *ret);
