/* SPDX-License-Identifier: MIT */
/* What the running kernel does that decides the fill method: init_on_alloc, MADV_POPULATE_WRITE. */
#pragma once

#include <stdbool.h>

struct kernel_caps {
        bool init_on_alloc;       /* every page allocation is zeroed, inside the serial sysfs path */
        const char *init_on_alloc_source;
        bool populate_write;      /* madvise(MADV_POPULATE_WRITE), Linux 5.14+ */
};

/* The value of init_on_alloc= on @cmdline (the last one wins): 1, 0, or -1 when absent. */
int cmdline_init_on_alloc(const char *cmdline);
/* Reads proc/cmdline and boot/config-RELEASE below @rootfd; probes MADV_POPULATE_WRITE when @host. */
void kernel_caps_read(int rootfd, bool host, struct kernel_caps *ret);
