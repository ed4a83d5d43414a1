/* SPDX-License-Identifier: MIT */
/* One (page size, node) hugetlb pool as sysfs exposes it: its counters and its knobs. */
#include <inttypes.h>
#include <stdio.h>

#include "util/fileio.h"
#include "kernel/pool.h"

int pool_global_path(char *buf, size_t size, uint64_t page_size, const char *file) {
        int n = snprintf(buf, size, "sys/kernel/mm/hugepages/hugepages-%" PRIu64 "kB/%s", page_size / 1024, file);

        return n < 0 || (size_t) n >= size ? -ENAMETOOLONG : 0;
}

int pool_read_global(int rootfd, uint64_t page_size, const char *file, uint64_t *ret) {
        char path[160];
        int r = pool_global_path(path, sizeof(path), page_size, file);

        return r < 0 ? r : read_u64_at(rootfd, path, ret);
}

uint64_t pool_global_counter(int rootfd, uint64_t page_size, const char *file) {
        uint64_t v = 0;

        (void) pool_read_global(rootfd, page_size, file, &v);
        return v;
}

int pool_path(char *buf, size_t size, const struct topology *t, unsigned node, uint64_t page_size, const char *file) {
        int n;

        if (!t->numa)
                return pool_global_path(buf, size, page_size, file);
        n = snprintf(buf, size, "sys/devices/system/node/node%u/hugepages/hugepages-%" PRIu64 "kB/%s", node,
                     page_size / 1024, file);
        return n < 0 || (size_t) n >= size ? -ENAMETOOLONG : 0;
}

static int read_counter(int rootfd, const struct topology *t, unsigned node, uint64_t page_size, const char *file,
                        uint64_t *ret) {
        char path[160];
        int r;

        r = pool_path(path, sizeof(path), t, node, page_size, file);
        if (r < 0)
                return r;
        return read_u64_at(rootfd, path, ret);
}

int pool_read_counts(int rootfd, const struct topology *t, unsigned node, uint64_t page_size, struct pool_counts *ret) {
        struct pool_counts c;
        int r;

        r = read_counter(rootfd, t, node, page_size, "nr_hugepages", &c.nr);
        if (r >= 0)
                r = read_counter(rootfd, t, node, page_size, "free_hugepages", &c.free);
        if (r >= 0)
                r = read_counter(rootfd, t, node, page_size, "surplus_hugepages", &c.surplus);
        if (r < 0)
                return r;
        *ret = c;
        return 0;
}

int pool_read_nr(int rootfd, const struct topology *t, unsigned node, uint64_t page_size, uint64_t *ret) {
        return read_counter(rootfd, t, node, page_size, "nr_hugepages", ret);
}

uint64_t pool_counts_persistent(const struct pool_counts *c) {
        /* two reads, not one snapshot: see pool_read_persistent() */
        return c->nr > c->surplus ? c->nr - c->surplus : 0;
}

int pool_read_stable(int rootfd, const struct topology *t, unsigned node, uint64_t page_size, uint64_t *nr,
                     uint64_t *surplus) {
        char nr_path[160], surplus_path[160];
        uint64_t again;
        int r;

        r = pool_path(nr_path, sizeof(nr_path), t, node, page_size, "nr_hugepages");
        if (r >= 0)
                r = pool_path(surplus_path, sizeof(surplus_path), t, node, page_size, "surplus_hugepages");
        if (r >= 0)
                r = read_u64_at(rootfd, nr_path, &again);
        for (unsigned tries = 0; r >= 0 && tries < 16; tries++) {
                *nr = again;
                r = read_u64_at(rootfd, surplus_path, surplus);
                if (r >= 0)
                        r = read_u64_at(rootfd, nr_path, &again);
                if (r >= 0 && again == *nr)
                        return 0;
        }
        return r < 0 ? r : -EAGAIN;
}

int pool_read_persistent(int rootfd, const struct topology *t, unsigned node, uint64_t page_size, uint64_t *ret) {
        struct pool_counts c = {};
        int r;

        /* free_hugepages is not needed: read between every step of a fill, one file fewer. Read
         * until nr_hugepages holds still across surplus_hugepages: a surplus page freed in between
         * (a workload's, at exit) or one allocated (a fault) would make the count one off. */
        r = pool_read_stable(rootfd, t, node, page_size, &c.nr, &c.surplus);
        if (r < 0)
                return r;
        *ret = pool_counts_persistent(&c);
        return 0;
}

int pool_compact_node(int rootfd, const struct topology *t, unsigned node) {
        char path[96];

        if (!t->numa)
                return write_string_at(rootfd, "proc/sys/vm/compact_memory", "1\n");
        (void) snprintf(path, sizeof(path), "sys/devices/system/node/node%u/compact", node);
        return write_string_at(rootfd, path, "1\n");
}

int pool_drop_caches(int rootfd) {
        return write_string_at(rootfd, "proc/sys/vm/drop_caches", "3\n");
}
