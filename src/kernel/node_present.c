/* SPDX-License-Identifier: MIT */
/* A node's present memory: its online memory blocks (nodeN/memoryM) times the block size.
 * Where memory is initialised lazily (deferred struct page init), nodeN/meminfo's MemTotal lags
 * for a while, but the blocks are there from boot (drivers/base/memory.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/topology.h"
#include "util/fileio.h"
#include "util/macro.h"

#define MEMORY_DIR "sys/devices/system/memory"

/* "memory" and decimal digits only */
static bool is_block_name(const char *name) {
        if (strncmp(name, "memory", 6) != 0 || !name[6])
                return false;
        for (const char *p = name + 6; *p; p++)
                if (*p < '0' || *p > '9')
                        return false;
        return true;
}

int node_present_memory(int rootfd, unsigned node, uint64_t *ret) {
        _cleanup_(closedirp) DIR *d = NULL;
        char path[64], line[32], *end;
        unsigned long long block;
        uint64_t blocks = 0;
        struct dirent *de;
        int fd, r;

        r = read_line_at(rootfd, MEMORY_DIR "/block_size_bytes", line, sizeof(line));
        if (r < 0)
                return r;
        errno = 0;
        block = strtoull(line, &end, 16); /* hex, without 0x */
        if (errno || end == line || *end || block == 0)
                return -EBADMSG;
        (void) snprintf(path, sizeof(path), "sys/devices/system/node/node%u", node);
        fd = openat(rootfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        d = fdopendir(fd);
        if (!d) {
                r = -errno;
                closep(&fd);
                return r;
        }
        while ((errno = 0, de = readdir(d))) {
                char state[16], rel[sizeof(de->d_name) + sizeof(MEMORY_DIR) + 8];

                if (!is_block_name(de->d_name))
                        continue;
                /* nodeN/memoryM is a link to memory/memoryM: read there, no link followed */
                (void) snprintf(rel, sizeof(rel), MEMORY_DIR "/%s/state", de->d_name);
                if (read_line_at(rootfd, rel, state, sizeof(state)) >= 0 && strcmp(state, "online") == 0)
                        blocks++;
        }
        if (errno)
                return -errno;
        if (blocks == 0)
                return -ENOENT;
        *ret = blocks * block;
        return 0;
}
