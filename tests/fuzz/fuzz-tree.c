/* SPDX-License-Identifier: MIT */
/* A fake root for the fuzz targets that read files: node0 with 2 MiB pages, removed at exit. */
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz-tree.h"

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

void fuzz_put(const char *path, const void *data, size_t size) {
        int fd = openat(fuzz_tree(), path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

        if (fd < 0)
                abort();
        if (size && write(fd, data, size) != (ssize_t) size)
                abort();
        (void) close(fd);
}

int fuzz_tree(void) {
        static const char *const dirs[] = {
                "sys", "sys/devices", "sys/devices/system", "sys/devices/system/node",
                "sys/devices/system/node/node0", "sys/devices/system/node/node0/hugepages",
                "sys/devices/system/node/node0/hugepages/hugepages-2048kB", "sys/kernel", "sys/kernel/mm",
                "sys/kernel/mm/hugepages", "sys/kernel/mm/hugepages/hugepages-2048kB", "proc", "proc/self",
                "run", "run/hpfilld",
        };

        if (root >= 0)
                return root;
        if (!mkdtemp(root_path))
                abort();
        (void) atexit(remove_tree);
        root = open(root_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (root < 0)
                abort();
        for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
                (void) mkdirat(root, dirs[i], 0755);
        fuzz_put("sys/devices/system/node/online", "0\n", 2);
        fuzz_put("sys/devices/system/node/has_memory", "0\n", 2);
        fuzz_put("sys/devices/system/node/node0/cpulist", "0\n", 2);
        fuzz_put("sys/devices/system/node/node0/meminfo", "Node 0 MemTotal: 1048576 kB\n", 28);
        fuzz_put("sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages", "0\n", 2);
        fuzz_put("sys/devices/system/node/node0/hugepages/hugepages-2048kB/free_hugepages", "0\n", 2);
        fuzz_put("sys/devices/system/node/node0/hugepages/hugepages-2048kB/surplus_hugepages", "0\n", 2);
        return root;
}

const char *fuzz_tree_path(void) {
        (void) fuzz_tree();
        return root_path;
}
