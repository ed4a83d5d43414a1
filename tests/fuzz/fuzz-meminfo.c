/* SPDX-License-Identifier: MIT */
/* Fuzz target: /proc/meminfo and /proc/self/mounts as hugetlbfs_mount_for() reads them below a
 * fake root: the input, split at its first NUL, is meminfo, then the mount table. */
#include <stdint.h>
#include <string.h>

#include "kernel/mounts.h"
#include "fuzz.h"
#include "fuzz-tree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        const uint8_t *nul = memchr(data, 0, size);
        size_t a = nul ? (size_t) (nul - data) : size;
        char path[256];

        if (size > 64 * 1024)
                return 0;
        fuzz_put("proc/meminfo", data, a);
        fuzz_put("proc/self/mounts", nul ? nul + 1 : data + size, nul ? size - a - 1 : 0);
        (void) hugetlbfs_mount_for(fuzz_tree(), false, 2 << 20, path, sizeof(path));
        (void) hugetlbfs_mount_for(fuzz_tree(), false, 1 << 30, path, sizeof(path));
        return 0;
}
