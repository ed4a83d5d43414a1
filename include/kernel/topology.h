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
        uint64_t mem_total; /* bytes, from nodeN/meminfo */
        unsigned *cpus;
        size_t n_cpus;
        unsigned *distance; /* to each node, by index into topology.nodes; NULL if unknown */
};

struct topology {
        bool numa; /* false: no node directory, the global pool files stand for node 0 */
        struct topo_node *nodes; /* online nodes, by id */
        size_t n_nodes;
        uint64_t *page_sizes; /* bytes, ascending */
        size_t n_page_sizes;
        uint64_t min_free_kbytes; /* vm.min_free_kbytes; 0 if unknown */
};

int topology_read(int rootfd, struct topology *ret, struct error *e);
void topology_done(struct topology *t);

/* Index of node @id in t->nodes, or -ENOENT. */
int topology_node_index(const struct topology *t, unsigned id);
bool topology_has_page_size(const struct topology *t, uint64_t page_size);
size_t topology_memory_nodes(const struct topology *t);
/* The node whose CPUs should run work for node @idx: itself if it has CPUs, else the nearest
 * node with CPUs by distance (lowest id on ties). -ENOENT if no node has CPUs. */
int topology_cpu_node_for(const struct topology *t, size_t idx);
