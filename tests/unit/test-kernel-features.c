/* SPDX-License-Identifier: MIT */
/* init_on_alloc from the kernel command line and the kernel's config, in fake trees. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "fake-root.h"
#include "kernel/kernel_features.h"
#include "test.h"

TEST(test_cmdline) {
        CHECK_EQ(cmdline_init_on_alloc("quiet init_on_alloc=1"), 1);
        CHECK_EQ(cmdline_init_on_alloc("init_on_alloc=0 quiet"), 0);
        CHECK_EQ(cmdline_init_on_alloc("init_on_alloc=1 init_on_alloc=0"), 0);
        CHECK_EQ(cmdline_init_on_alloc("init_on_alloc=on"), 1);
        CHECK_EQ(cmdline_init_on_alloc("init_on_alloc=off"), 0);
        CHECK_EQ(cmdline_init_on_alloc("init_on_alloc=y"), 1);
        CHECK_EQ(cmdline_init_on_alloc("xinit_on_alloc=1"), -1);
        CHECK_EQ(cmdline_init_on_alloc("init_on_free=1"), -1);
        CHECK_EQ(cmdline_init_on_alloc(""), -1);
        /* the kernel's words: inside another's quoted value, or after "--" (init's), it is not one */
        CHECK_EQ(cmdline_init_on_alloc("dyndbg=\"x init_on_alloc=1\" quiet"), -1);
        CHECK_EQ(cmdline_init_on_alloc("quiet -- init_on_alloc=1"), -1);
        CHECK_EQ(cmdline_init_on_alloc("\"init_on_alloc=1\""), 1);
        CHECK_EQ(cmdline_init_on_alloc("quiet\tinit_on_alloc=0"), 0);
}

TEST(test_sources) {
        struct fake_root r;
        struct kernel_features c = {};
        struct utsname u;
        char path[128];

        CHECK(uname(&u) == 0);
        snprintf(path, sizeof(path), "boot/config-%s", u.release);

        fake_root_new(&r);
        kernel_features_read(r.fd, false, KERNEL_FEATURES_CMDLINE_UNREAD, &c);
        CHECK(!c.init_on_alloc);
        CHECK(!c.populate_write); /* not the host: no probe */

        fake_write(&r, path, "CONFIG_A=y\nCONFIG_INIT_ON_ALLOC_DEFAULT_ON=y\nCONFIG_B=y\n");
        kernel_features_read(r.fd, false, KERNEL_FEATURES_CMDLINE_UNREAD, &c);
        CHECK(c.init_on_alloc);
        CHECK_STR_CONTAINS(c.init_on_alloc_source, "CONFIG_INIT_ON_ALLOC_DEFAULT_ON");

        /* the command line overrides the config */
        fake_write(&r, "proc/cmdline", "root=/dev/vda init_on_alloc=0\n");
        kernel_features_read(r.fd, false, KERNEL_FEATURES_CMDLINE_UNREAD, &c);
        CHECK(!c.init_on_alloc);
        CHECK_STR_CONTAINS(c.init_on_alloc_source, "command line");

        fake_write(&r, "proc/cmdline", "root=/dev/vda init_on_alloc=1\n");
        fake_write(&r, path, "# CONFIG_INIT_ON_ALLOC_DEFAULT_ON is not set\n");
        kernel_features_read(r.fd, false, KERNEL_FEATURES_CMDLINE_UNREAD, &c);
        CHECK(c.init_on_alloc);

        /* what the configuration's reading of the command line said wins: the file is not read */
        kernel_features_read(r.fd, false, 0, &c);
        CHECK(!c.init_on_alloc);
        CHECK_STR_CONTAINS(c.init_on_alloc_source, "command line");
        kernel_features_read(r.fd, false, -1, &c); /* none there: the config decides */
        CHECK(!c.init_on_alloc);
        CHECK_STR_CONTAINS(c.init_on_alloc_source, "CONFIG_INIT_ON_ALLOC_DEFAULT_ON not set");

        /* a distribution's config: hundreds of KiB, the line deep in it (Debian's is at 84 %) */
        for (int on = 0; on <= 1; on++) {
                size_t n = 270 * 1024;
                char *text = malloc(n + 128);

                CHECK(text != NULL);
                for (size_t i = 0; i < n; i++)
                        text[i] = i % 40 == 39 ? '\n' : 'A';
                (void) snprintf(text + n, 128, "%s\nCONFIG_Z=y\n",
                                on ? "CONFIG_INIT_ON_ALLOC_DEFAULT_ON=y" : "# CONFIG_INIT_ON_ALLOC_DEFAULT_ON is not set");
                fake_write(&r, path, text);
                free(text);
                kernel_features_read(r.fd, false, -1, &c);
                CHECK_EQ(c.init_on_alloc, on);
                CHECK_EQ(c.init_on_alloc_from, CAPS_SOURCE_CONFIG);
        }
        /* read from the end back no further than the line: what comes before it, however long
         * (here more than the 4 MiB a config is read to at most), is never read */
        for (int near_end = 0; near_end <= 1; near_end++) {
                size_t n = 5 * 1024 * 1024, at = near_end ? n - 1000 : 1000;
                const char *line = "\nCONFIG_INIT_ON_ALLOC_DEFAULT_ON=y\n";
                char *text = malloc(n + 1);

                CHECK(text != NULL);
                memset(text, 'A', n);
                text[n] = 0;
                memcpy(text + at, line, strlen(line));
                fake_write(&r, path, text);
                free(text);
                kernel_features_read(r.fd, false, -1, &c);
                /* near the start: past the 4 MiB, a config too large to be one, unknown */
                CHECK_EQ(c.init_on_alloc, near_end);
                CHECK_EQ(c.init_on_alloc_from, near_end ? CAPS_SOURCE_CONFIG : CAPS_SOURCE_UNKNOWN);
        }
        /* a kernel from before the option: its config says nothing of it, and it is off */
        fake_write(&r, path, "CONFIG_A=y\n");
        kernel_features_read(r.fd, false, -1, &c);
        CHECK(!c.init_on_alloc);
        CHECK_EQ(c.init_on_alloc_from, CAPS_SOURCE_CONFIG);
        /* no config: unknown */
        CHECK_EQ(unlinkat(r.fd, path, 0), 0);
        kernel_features_read(r.fd, false, -1, &c);
        CHECK_EQ(c.init_on_alloc_from, CAPS_SOURCE_UNKNOWN);
        fake_root_free(&r);
}

/* HVO as the knob says, one wording: a kernel without the knob is "off", and says why. */
TEST(test_describe_hvo) {
        struct fake_root r;
        struct kernel_features c = {};
        char line[192];

        fake_root_new(&r);
        kernel_features_read(r.fd, false, KERNEL_FEATURES_CMDLINE_UNREAD, &c);
        CHECK_EQ(c.hvo, -1);
        kernel_features_describe(line, sizeof(line), &c);
        CHECK_STR_CONTAINS(line, ": HVO off (not in this kernel), init_on_alloc off");
        CHECK(!strstr(line, "absent"));
        fake_write(&r, "proc/sys/vm/hugetlb_optimize_vmemmap", "0\n");
        kernel_features_read(r.fd, false, KERNEL_FEATURES_CMDLINE_UNREAD, &c);
        kernel_features_describe(line, sizeof(line), &c);
        CHECK_STR_CONTAINS(line, ": HVO off, init_on_alloc off");
        fake_write(&r, "proc/sys/vm/hugetlb_optimize_vmemmap", "1\n");
        kernel_features_read(r.fd, false, KERNEL_FEATURES_CMDLINE_UNREAD, &c);
        kernel_features_describe(line, sizeof(line), &c);
        CHECK_STR_CONTAINS(line, ": HVO on, init_on_alloc off");
        fake_root_free(&r);
}

/* hugepage_alloc_threads= is advised on the host's Linux 6.15 or later only: the CPUs then */
TEST(test_boot_alloc_threads) {
        struct kernel_features c = {};

        CHECK_EQ(kernel_boot_alloc_threads(&c), 0); /* not the host: no release */
        (void) snprintf(c.release, sizeof(c.release), "6.14.11-amd64");
        CHECK_EQ(kernel_boot_alloc_threads(&c), 0);
        (void) snprintf(c.release, sizeof(c.release), "6.15.0");
        CHECK(kernel_boot_alloc_threads(&c) > 0);
}

int main(void) {
        RUN(test_boot_alloc_threads);
        RUN(test_cmdline);
        RUN(test_sources);
        RUN(test_describe_hvo);
        return 0;
}
