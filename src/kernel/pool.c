/* SPDX-License-Identifier: MIT */
/* One (page size, node) hugetlb pool as sysfs exposes it: its counters and its knobs. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/beneath.h"
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

static const char *const counter_files[TOPOLOGY_COUNTERS] = { "nr_hugepages", "free_hugepages", "surplus_hugepages" };

/* The index of @page_size in t->page_sizes, or -1. */
static ssize_t size_index(const struct topology *t, uint64_t page_size) {
        for (size_t s = 0; s < t->n_page_sizes; s++)
                if (t->page_sizes[s] == page_size)
                        return (ssize_t) s;
        return -1;
}

/* Where t->counter_fds keeps @file of the pool, or NULL: not a kept counter, or none kept. */
static _Atomic int *counter_slot(int rootfd, const struct topology *t, unsigned node, uint64_t page_size,
                                 const char *file) {
        ssize_t s = size_index(t, page_size);
        size_t c = 0;
        int k;

        if (!t->counter_fds || rootfd != t->counters_rootfd || s < 0)
                return NULL;
        while (c < TOPOLOGY_COUNTERS && strcmp(counter_files[c], file) != 0)
                c++;
        k = t->numa ? topology_node_index(t, node) : node == 0 ? 0 : -ENOENT;
        if (c == TOPOLOGY_COUNTERS || k < 0)
                return NULL;
        return &t->counter_fds[((size_t) s * t->n_nodes + (size_t) k) * TOPOLOGY_COUNTERS + c];
}

/* Where t->counter_fds keeps resv_hugepages of the whole pool of @page_size: after every node's
 * counters, one a page size; NULL as counter_slot(). */
static _Atomic int *resv_slot(int rootfd, const struct topology *t, uint64_t page_size) {
        ssize_t s = size_index(t, page_size);

        if (!t->counter_fds || rootfd != t->counters_rootfd || s < 0)
                return NULL;
        return &t->counter_fds[t->n_page_sizes * t->n_nodes * TOPOLOGY_COUNTERS + (size_t) s];
}

/* A counter's file: a node's pool's (pool_path()), or the whole pool's (@global) */
struct counter_path {
        const struct topology *t;
        unsigned node;
        uint64_t page_size;
        const char *file;
        bool global;
};

static int counter_path_format(char *buf, size_t size, const struct counter_path *c) {
        return c->global ? pool_global_path(buf, size, c->page_size, c->file)
                         : pool_path(buf, size, c->t, c->node, c->page_size, c->file);
}

/* @c's number, from the fd kept in @slot (opened on the first read) or, without one, read as
 * read_u64_at() does. Its path is made only where it is opened: a fill reads its counters again
 * at every step, and each path made is a snprintf(), a tenth of an --once's own instructions. */
static int read_kept(int rootfd, _Atomic int *slot, const struct counter_path *c, uint64_t *ret) {
        char path[160];
        struct stat st;
        int r, fd, kept = slot ? atomic_load(slot) : -1;

        if (kept >= 0)
                return read_u64_fd_again(kept, ret);
        r = counter_path_format(path, sizeof(path), c);
        if (r < 0)
                return r;
        if (!slot)
                return read_u64_at(rootfd, path, ret);
        /* as read_u64_at() opens it; another thread's, where it came first */
        fd = open_beneath(rootfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0, 0);
        if (fd < 0)
                return fd;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                /* not an attribute (a FIFO put there): read once as before, never kept */
                r = read_u64_fd(fd, ret);
                (void) close(fd);
                return r;
        }
        if (atomic_compare_exchange_strong(slot, &kept, fd))
                kept = fd;
        else
                (void) close(fd);
        return read_u64_fd_again(kept, ret);
}

static int read_counter(int rootfd, const struct topology *t, unsigned node, uint64_t page_size, const char *file,
                        uint64_t *ret) {
        const struct counter_path c = { .t = t, .node = node, .page_size = page_size, .file = file };

        return read_kept(rootfd, counter_slot(rootfd, t, node, page_size, file), &c, ret);
}

int pool_read_resv(int rootfd, const struct topology *t, uint64_t page_size, uint64_t *ret) {
        const struct counter_path c = { .page_size = page_size, .file = "resv_hugepages", .global = true };

        return read_kept(rootfd, resv_slot(rootfd, t, page_size), &c, ret);
}

int pool_read_counts(int rootfd, const struct topology *t, unsigned node, uint64_t page_size, struct pool_counts *ret) {
        struct pool_counts c = {};
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
        uint64_t again;
        int r;

        r = read_counter(rootfd, t, node, page_size, "nr_hugepages", &again);
        for (unsigned tries = 0; r >= 0 && tries < 16; tries++) {
                *nr = again;
                r = read_counter(rootfd, t, node, page_size, "surplus_hugepages", surplus);
                if (r >= 0)
                        r = read_counter(rootfd, t, node, page_size, "nr_hugepages", &again);
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

int pool_read_takeable(int rootfd, const struct topology *t, unsigned node, uint64_t page_size, uint64_t *ret) {
        uint64_t free_all, resv = 0;
        struct pool_counts c;
        int r;

        r = pool_read_counts(rootfd, t, node, page_size, &c);
        if (r >= 0)
                r = pool_read_global(rootfd, page_size, "free_hugepages", &free_all);
        if (r >= 0 && pool_read_resv(rootfd, t, page_size, &resv) == -ENOENT)
                resv = 0; /* a tree without the file: none reserved */
        if (r < 0)
                return r;
        *ret = MIN(c.free, free_all > resv ? free_all - resv : 0);
        return 0;
}
