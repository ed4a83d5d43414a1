/* SPDX-License-Identifier: MIT */
/* What the running kernel does that decides the fill method: init_on_alloc, MADV_POPULATE_WRITE. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Where init_on_alloc was learnt: a guess from nothing is said as one. */
enum caps_source {
        CAPS_SOURCE_UNKNOWN, /* no init_on_alloc= and no /boot/config-RELEASE (initramfs, containers) */
        CAPS_SOURCE_CMDLINE,
        CAPS_SOURCE_CONFIG,
};

struct kernel_features {
        bool init_on_alloc;       /* every page allocation is zeroed, inside the serial sysfs path */
        const char *init_on_alloc_source;
        enum caps_source init_on_alloc_from;
        int hvo;                  /* vm.hugetlb_optimize_vmemmap: 1, 0, -1 when the kernel has none */
        char release[65];         /* uname -r, "" when not the host */
        bool populate_write;      /* madvise(MADV_POPULATE_WRITE), Linux 5.14+ */
};

/* hugepage_alloc_threads= worth advising on the host's kernel @c (Linux 6.15+): its online CPUs;
 * else 0 */
unsigned kernel_boot_alloc_threads(const struct kernel_features *c);

/* Whether kernel release @release ("6.18.4-...") is at least @major.@minor. */
bool kernel_release_at_least(const char *release, unsigned major, unsigned minor);
/* The value of init_on_alloc= on @cmdline (the last one wins): 1, 0, or -1 when absent. */
int cmdline_init_on_alloc(const char *cmdline);
const char *caps_source_to_string(enum caps_source s);
/* vm.hugetlb_optimize_vmemmap below @rootfd: 1, 0, or -1 when absent (CONFIG_HUGETLB_PAGE_OPTIMIZE_VMEMMAP
 * off); it may change while hpfilld runs, so the measurement reads it again when it re-measures. */
int kernel_read_hvo(int rootfd);
/* "Linux 6.18.4: HVO on, init_on_alloc off (from: unknown)", what decides the method, for reports;
 * a kernel without the knob has "HVO off (not in this kernel)". */
void kernel_features_describe(char *buf, size_t size, const struct kernel_features *c);
/* Reads boot/config-RELEASE below @rootfd, and proc/cmdline unless @cmdline_ioa already says what
 * it holds (cmdline_init_on_alloc() of it; KERNEL_FEATURES_CMDLINE_UNREAD: not read yet); probes
 * MADV_POPULATE_WRITE when @host. */
#define KERNEL_FEATURES_CMDLINE_UNREAD (-2)
void kernel_features_read(int rootfd, bool host, int cmdline_ioa, struct kernel_features *ret);
