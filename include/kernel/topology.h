/* SPDX-License-Identifier: MIT */
/* The machine as sysfs shows it: NUMA nodes, their CPUs and memory, huge page sizes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

struct topo_node {
        unsigned id;
        bool has_memory;
        uint64_t mem_total; /* bytes, from nodeN/meminfo (may lag: topology_uncounted()) */
        uint64_t present;   /* bytes its zones have present (/proc/zoneinfo), read where the counts lag; 0: unknown */
        unsigned *cpus;
        size_t n_cpus;
        unsigned *distance; /* to each node, by index into topology.nodes; NULL if unknown */
};

/* per page size and node in topology.counter_fds: nr_hugepages, free_hugepages, surplus_hugepages;
 * then one per page size: its resv_hugepages */
#define TOPOLOGY_COUNTERS 3

struct topology {
        bool numa; /* false: no node directory, the global pool files stand for node 0 */
        struct topo_node *nodes; /* online nodes, by id */
        size_t n_nodes;
        uint64_t *page_sizes; /* bytes, ascending */
        size_t n_page_sizes;
        uint64_t min_free_kbytes; /* vm.min_free_kbytes; 0 if unknown */
        uint64_t machine_mem; /* bytes, /proc/meminfo's MemTotal beside the nodes' (NUMA); 0 if unknown */
        /* The pools' counters (nr_hugepages, free_hugepages, surplus_hugepages of each page size
         * and node, resv_hugepages of each size), each opened below counters_rootfd on its first read and read again from
         * offset 0 after (pool.c): an open and a close cost ten times a read of sysfs here (9 us
         * against 0.9), and a fill reads them some 30 times. -1 until opened; closed by
         * topology_done(). NULL (a topology made by hand): every read opens the file. */
        _Atomic int *counter_fds;
        int counters_rootfd;
};

int topology_read(int rootfd, struct topology *ret, struct error *e);
/* How many fds t->counter_fds holds: TOPOLOGY_COUNTERS per page size and node, and a page size's
 * resv_hugepages. */
size_t topology_counter_slots(const struct topology *t);
/* Sets up t->counter_fds for counters below @rootfd (none opened yet); -ENOMEM. */
int topology_counters_init(struct topology *t, int rootfd);
void topology_done(struct topology *t);

/* Index of node @id in t->nodes, or -ENOENT. */
int topology_node_index(const struct topology *t, unsigned id);
bool topology_has_page_size(const struct topology *t, uint64_t page_size);
size_t topology_memory_nodes(const struct topology *t);
/* The memory of the nodes with memory, by their meminfo counts. */
uint64_t topology_nodes_mem(const struct topology *t);
/* Bytes /proc/meminfo counts that no node's meminfo does yet, when the nodes' counts lag the
 * machine's by more than 1% (memory initialised lazily, as on some VMs: node0 says 6 GB where
 * the machine says 24 GB, and the kernel grants pages from all 24); 0 when they agree. */
uint64_t topology_uncounted(const struct topology *t);
/* Every node's present memory (node_present.c), from /proc/zoneinfo: the present pages of its
 * zones, into nodes[].present. -ENOENT where it names none of them, -EBADMSG, -errno. */
int topology_read_present(int rootfd, struct topology *t);
/* The memory of node @idx as the machine counts it: where the counts lag, its present memory
 * when zoneinfo says (never less than its count), else its own count and its share, by size, of
 * what no node counts yet. */
uint64_t topology_node_share(const struct topology *t, size_t idx);
/* The most node @idx can hold: where the counts lag, its present memory when zoneinfo says
 * (never less than its count), else its own count and all that no node counts yet (which may be
 * any node's). */
uint64_t topology_node_limit(const struct topology *t, size_t idx);
/* The node whose CPUs should run work for node @idx: itself if it has CPUs, else the nearest
 * node with CPUs by distance (lowest id on ties). -ENOENT if no node has CPUs. */
int topology_cpu_node_for(const struct topology *t, size_t idx);
