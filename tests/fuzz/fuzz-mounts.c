/* SPDX-License-Identifier: MIT */
/* Fuzz target: the /proc/self/mounts parser, fed any bytes: every hugetlbfs mount it reports
 * is an absolute path without control characters. */
#include <stdint.h>
#include <stdlib.h>

#include "kernel/mounts.h"
#include "fuzz.h"

static int check_one(const char *dir, uint64_t page_size, void *userdata) {
        (void) page_size;
        (void) userdata;
        if (dir[0] != '/')
                abort();
        for (const char *p = dir; *p; p++)
                if ((unsigned char) *p < 0x20 || *p == 0x7f)
                        abort();
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size), path[64];

        if (!s)
                return 0;
        (void) mounts_foreach_hugetlbfs(s, 2 << 20, check_one, NULL);
        (void) mounts_find_hugetlbfs(s, 2 << 20, 0, path, sizeof(path));
        free(s);
        return 0;
}
