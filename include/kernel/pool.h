/* SPDX-License-Identifier: MIT */
/* One (page size, node) hugetlb pool as sysfs exposes it: its counters and its knobs. */
#pragma once

#include <stdint.h>

#include "kernel/topology.h"

struct pool_counts {
        uint64_t nr;      /* nr_hugepages: persistent + surplus pages of this node */
        uint64_t free;    /* free_hugepages */
        uint64_t surplus; /* surplus_hugepages */
        /* resv_hugepages of the whole pool (the kernel keeps no count of it per node): free pages
         * that mappings hold reserved. Read by job_read_counts() only; 0 from pool_read_counts(). */
        uint64_t resv;
};

/* Path, relative to the root, of @file of the whole pool of @page_size (all nodes). */
int pool_global_path(char *buf, size_t size, uint64_t page_size, const char *file);
/* A counter of the whole pool: nr_hugepages, free_hugepages, resv_hugepages, ... */
int pool_read_global(int rootfd, uint64_t page_size, const char *file, uint64_t *ret);
/* The same, 0 where it cannot be read: for what only shows it. */
uint64_t pool_global_counter(int rootfd, uint64_t page_size, const char *file);
/* resv_hugepages of the whole pool of @page_size, read again from the fd @t keeps for it */
int pool_read_resv(int rootfd, const struct topology *t, uint64_t page_size, uint64_t *ret);
/* Path, relative to the root, of @file of the pool of @page_size on @node. */
int pool_path(char *buf, size_t size, const struct topology *t, unsigned node, uint64_t page_size, const char *file);

int pool_read_counts(int rootfd, const struct topology *t, unsigned node, uint64_t page_size, struct pool_counts *ret);
/* The free pages of node @node a fault may take: a fault takes a free page only while the pool
 * holds one no mapping has reserved (dequeue_hugetlb_folio_vma(): free less resv_hugepages, which
 * the kernel counts for the whole pool), so at most the node's free pages, and at most the
 * pool's unreserved ones. */
int pool_read_takeable(int rootfd, const struct topology *t, unsigned node, uint64_t page_size, uint64_t *ret);
int pool_read_nr(int rootfd, const struct topology *t, unsigned node, uint64_t page_size, uint64_t *ret);
/* Persistent pages of the pool: nr_hugepages less surplus_hugepages. Surplus pages leave the
 * pool when freed; only a write of nr_hugepages makes them persistent. */
uint64_t pool_counts_persistent(const struct pool_counts *c);
int pool_read_persistent(int rootfd, const struct topology *t, unsigned node, uint64_t page_size, uint64_t *ret);
/* Node @node's nr_hugepages and surplus_hugepages, read until nr_hugepages reads the same before
 * and after surplus_hugepages: a surplus page freed in between (both counters fall by one) would
 * otherwise make the persistent count one off. -EAGAIN when it never settles (16 tries). */
int pool_read_stable(int rootfd, const struct topology *t, unsigned node, uint64_t page_size, uint64_t *nr,
                     uint64_t *surplus);
/* Asks the kernel for @count persistent pages on @node, the same on kernels with and without
 * the fix of per-node writes for other nodes' surplus pages (pool_write.c). The kernel may give
 * fewer: read the count back. */
int pool_write_nr(int rootfd, const struct topology *t, unsigned node, uint64_t page_size, uint64_t count);
/* Asks the kernel to compact @node's memory (or all memory without NUMA). */
int pool_compact_node(int rootfd, const struct topology *t, unsigned node);
/* Drops clean page cache and reclaimable slab objects (vm.drop_caches=3), host wide. Dirty pages
 * are not written back first: that could take long and hold the fill. */
int pool_drop_caches(int rootfd);
