/* SPDX-License-Identifier: MIT */
/* Fuzz target: the sysfs readers fed garbage: the input, split at the first NUL, becomes a node's
 * cpulist, meminfo, distance and nr_hugepages files of a fake tree, then the topology and the
 * counters are read. */
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "util/idlist.h"
#include "kernel/pool.h"
#include "kernel/topology.h"

static int root = -1;
static char root_path[] = "/tmp/hpfilld-fuzz-XXXXXX";

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        (void) st;
        (void) flag;
        (void) ftw;
        return remove(path) < 0 ? -1 : 0;
}

/* The fake tree goes when the process ends: replays run in every build of the test suite. */
static void remove_tree(void) {
        (void) nftw(root_path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void put(const char *path, const void *data, size_t size) {
        int fd = openat(root, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

        if (fd < 0)
                abort();
        if (size && write(fd, data, size) != (ssize_t) size)
                abort();
        (void) close(fd);
}

static void setup(void) {
        static const char *const dirs[] = {
                "sys", "sys/devices", "sys/devices/system", "sys/devices/system/node",
                "sys/devices/system/node/node0", "sys/devices/system/node/node0/hugepages",
                "sys/devices/system/node/node0/hugepages/hugepages-2048kB", "sys/kernel", "sys/kernel/mm",
                "sys/kernel/mm/hugepages", "sys/kernel/mm/hugepages/hugepages-2048kB",
        };
        if (!mkdtemp(root_path))
                abort();
        (void) atexit(remove_tree);
        root = open(root_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (root < 0)
                abort();
        for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
                (void) mkdirat(root, dirs[i], 0755);
        put("sys/devices/system/node/online", "0\n", 2);
        put("sys/devices/system/node/has_memory", "0\n", 2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        const uint8_t *nul = memchr(data, 0, size);
        size_t a = nul ? (size_t) (nul - data) : size, b = nul ? size - a - 1 : 0;
        const uint8_t *rest = nul ? nul + 1 : data + size;
        struct topology t = {};
        struct error e = {};
        char *s;

        if (root < 0)
                setup();
        /* the first part: an id list and a counter; the second: meminfo and distances */
        s = fuzz_string(data, a);
        if (s) {
                unsigned *ids = NULL;
                size_t n = 0;

                if (idlist_parse(s, &ids, &n) >= 0)
                        free(ids);
                free(s);
        }
        put("sys/devices/system/node/node0/cpulist", data, a);
        put("sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages", data, a);
        put("sys/devices/system/node/node0/meminfo", rest, b);
        put("sys/devices/system/node/node0/distance", rest, b);
        if (topology_read(root, &t, &e) >= 0) {
                struct pool_counts c;

                (void) pool_read_counts(root, &t, 0, 2 << 20, &c);
                topology_done(&t);
        }
        return 0;
}
