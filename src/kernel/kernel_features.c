/* SPDX-License-Identifier: MIT */
/* What the running kernel does that decides the fill method: init_on_alloc, MADV_POPULATE_WRITE. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "util/cmdline_words.h"
#include "util/fileio.h"
#include "kernel/kernel_features.h"
#include "util/macro.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

int cmdline_init_on_alloc(const char *cmdline) {
        _cleanup_(freep) char *word = malloc(strlen(cmdline) + 1);
        int value = -1;

        if (!word)
                return -1;
        /* the kernel's words: a quoted value is one, and what follows "--" is init's */
        for (const char *w = cmdline; (w = cmdline_next_word(w, word)) && strcmp(word, "--") != 0;) {
                const char *p = word;

                if (strncmp(p, "init_on_alloc=", strlen("init_on_alloc=")) != 0)
                        continue;
                p += strlen("init_on_alloc=");
                /* kstrtobool: 1/y/Y/on mean on, 0/n/N/off off */
                if (*p == '1' || *p == 'y' || *p == 'Y' || strncmp(p, "on", 2) == 0)
                        value = 1;
                else if (*p == '0' || *p == 'n' || *p == 'N' || strncmp(p, "off", 3) == 0)
                        value = 0;
        }
        return value;
}

bool kernel_release_at_least(const char *release, unsigned major, unsigned minor) {
        unsigned a = 0, b = 0;

        if (sscanf(release, "%u.%u", &a, &b) != 2)
                return false;
        return a > major || (a == major && b >= minor);
}

const char *caps_source_to_string(enum caps_source s) {
        return s == CAPS_SOURCE_CMDLINE ? "kernel command line" : s == CAPS_SOURCE_CONFIG ? "/boot/config" : "unknown";
}

void kernel_features_describe(char *buf, size_t size, const struct kernel_features *c) {
        (void) snprintf(buf, size, "Linux %s: HVO %s, init_on_alloc %s (from: %s)", *c->release ? c->release : "?",
                        /* no knob: a kernel without HVO, which is as off as one with it off */
                        c->hvo == 1 ? "on" : c->hvo == 0 ? "off" : "off (not in this kernel)",
                        c->init_on_alloc ? "on" : "off",
                        caps_source_to_string(c->init_on_alloc_from));
}

int kernel_read_hvo(int rootfd) {
        uint64_t v;

        return read_u64_at(rootfd, "proc/sys/vm/hugetlb_optimize_vmemmap", &v) < 0 ? -1 : v != 0;
}

/* 1: CONFIG_INIT_ON_ALLOC_DEFAULT_ON=y, 0: the config says it is not set (or, a kernel before
 * the option, says nothing of it), -1: no config to read. Read from its end back to that line
 * only (the security options come after the drivers and file systems, in the last fifth): a
 * distribution's config is 100-300 KiB, read at every run where the command line does not say
 * (Debian's), and a whole copy of it cost more than the rest of the plan. */
static int config_default_on(int rootfd, const char *release) {
        static const char *const lines[] = { "CONFIG_INIT_ON_ALLOC_DEFAULT_ON=y",
                                             "# CONFIG_INIT_ON_ALLOC_DEFAULT_ON is not set" };
        char path[128];
        int r;

        if (!release)
                return -1;
        (void) snprintf(path, sizeof(path), "boot/config-%s", release);
        r = find_last_line_at(rootfd, path, "CONFIG_INIT_ON_ALLOC_DEFAULT_ON", lines, ELEMENTSOF(lines), 4 * 1024 * 1024);
        return r == 0 ? 1 : r == 1 || r == -ENOMSG ? 0 : -1;
}

void kernel_features_read(int rootfd, bool host, int cmdline_ioa, struct kernel_features *ret) {
        _cleanup_(freep) char *cmdline = NULL;
        int v = cmdline_ioa;
        struct utsname u;
        bool named = uname(&u) >= 0; /* the running kernel's release: its config, and the report's */

        if (v == KERNEL_FEATURES_CMDLINE_UNREAD) {
                v = -1;
                if (read_text_line_at(rootfd, "proc/cmdline", FILEIO_LINE_MAX, &cmdline) >= 0)
                        v = cmdline_init_on_alloc(cmdline);
        }
        ret->init_on_alloc_from = CAPS_SOURCE_CMDLINE;
        if (v >= 0) {
                ret->init_on_alloc = v;
                ret->init_on_alloc_source = v ? "init_on_alloc=1 on the kernel command line"
                                              : "init_on_alloc=0 on the kernel command line";
        } else if ((v = config_default_on(rootfd, named ? u.release : NULL)) >= 0) {
                ret->init_on_alloc = v;
                ret->init_on_alloc_from = CAPS_SOURCE_CONFIG;
                ret->init_on_alloc_source = v ? "CONFIG_INIT_ON_ALLOC_DEFAULT_ON=y"
                                              : "CONFIG_INIT_ON_ALLOC_DEFAULT_ON not set";
        } else {
                /* Most initramfs images and containers have no /boot/config-*: say so. */
                ret->init_on_alloc = false;
                ret->init_on_alloc_from = CAPS_SOURCE_UNKNOWN;
                ret->init_on_alloc_source = "init_on_alloc unknown (no init_on_alloc=, no /boot/config), taken as off";
        }
        ret->hvo = kernel_read_hvo(rootfd);
        ret->release[0] = 0;
        /* Kernels before 5.14 reject the advice itself, before looking at the (empty) range. */
        ret->populate_write = host && madvise(NULL, 0, MADV_POPULATE_WRITE) == 0;
        if (host && named)
                (void) snprintf(ret->release, sizeof(ret->release), "%s", u.release);
}

unsigned kernel_boot_alloc_threads(const struct kernel_features *c) {
        long cpus;

        if (!*c->release || !kernel_release_at_least(c->release, 6, 15))
                return 0;
        /* asked only where there is advice to give: glibc reads /sys for it */
        cpus = sysconf(_SC_NPROCESSORS_ONLN);
        return cpus > 0 ? (unsigned) cpus : 0;
}
