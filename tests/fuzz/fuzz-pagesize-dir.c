/* SPDX-License-Identifier: MIT */
/* Fuzz target: the names of the page-size directories (sys/kernel/mm/hugepages/hugepages-2048kB):
 * the input becomes one such name in a fake tree, then the topology is read; every size it
 * finds is a whole number of KiB, ascending. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/topology.h"
#include "fuzz.h"
#include "fuzz-tree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char path[320], name[256];
        struct topology t = {};
        struct error e = {};

        /* a file name: no '/', no NUL, not "." or "..", at most 255 bytes */
        if (size == 0 || size >= sizeof(name) || memchr(data, '/', size) || memchr(data, 0, size))
                return 0;
        memcpy(name, data, size);
        name[size] = 0;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strcmp(name, "hugepages-2048kB") == 0)
                return 0;
        (void) snprintf(path, sizeof(path), "sys/kernel/mm/hugepages/%s", name);
        if (mkdirat(fuzz_tree(), path, 0755) < 0)
                return 0;
        if (topology_read(fuzz_tree(), &t, &e) >= 0) {
                for (size_t i = 0; i < t.n_page_sizes; i++)
                        if (t.page_sizes[i] % 1024 || (i && t.page_sizes[i] <= t.page_sizes[i - 1]))
                                abort();
                topology_done(&t);
        }
        (void) unlinkat(fuzz_tree(), path, AT_REMOVEDIR);
        return 0;
}
