/* SPDX-License-Identifier: MIT */
/* The fault method: pinned workers fault in surplus pages of hugetlb mappings bound to their
 * node, in parallel; the pool then takes them in as persistent pages. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "fill/fill_sysfs.h"
#include "fill/iter.h"
#include "fill/ramp.h"

struct fault_pool;

/* One node's mapping and the work iterator its workers share. */
struct fault_node {
        struct fault_pool *pool;
        size_t plan_idx;      /* into pool->plan->nodes */
        void *addr;
        uint64_t pages;       /* length of the mapping, in pages */
        unsigned workers;     /* threads started for the node (the most the ramp may admit) */
        struct ramp ramp;
        bool ramp_ready;
        struct work_iter it;
        atomic_bool out;      /* the node gave no more pages */
        _Atomic uint64_t faulted; /* pages faulted in by whole chunks */
        _Atomic int error;    /* first unexpected error, negative errno */
};

struct fault_pool {
        struct fill_shared *shared;
        const struct plan_pool *plan;
        struct fault_node *nodes; /* one per GROW node of the plan */
        size_t n_nodes;
        uint64_t overcommit_found;
        uint64_t overcommit_set;  /* what we raised it to */
        uint64_t surplus_found; /* surplus pages of the size before the workers ran */
        uint64_t promote;       /* of those, the ones the plan makes persistent */
        bool overcommit_raised;
        int error;
        char error_what[192];
        uint64_t fault_ns;    /* time of the fault phase */
};

/* A worker: which node it faults for, and which node's CPUs it runs on. */
struct fault_worker {
        struct fault_node *node;
        size_t cpu_node_idx;
        unsigned index;       /* among the node's workers: the ramp admits them in order */
};

/* Raises nr_overcommit_hugepages by the pages that must be new (plan_node_new_pages()) and maps
 * a bound region per node that needs some and has no free pages now: the kernel would hand a
 * fault those first, so a node that has some is left to the sysfs top-up, and the fault method
 * makes only new pages. Nothing is faulted yet. On failure everything it did is undone. */
int fault_pool_prepare(struct fault_pool *fp, struct fill_shared *shared, const struct plan_pool *plan);
/* For a reservation: maps consecutive ranges of the hugetlbfs file @fd (already sized), one per
 * GROW node of @plan, shared and bound to the node. Pages come from the pool's free pages; the
 * overcommit is left alone. After the workers, fault_pool_release() unmaps: the pages stay in
 * the file. */
int fault_pool_prepare_file(struct fault_pool *fp, struct fill_shared *shared, const struct plan_pool *plan, int fd);
/* The workers of @fp, to run on an executor; *ret_n of them. */
int fault_pool_workers(struct fault_pool *fp, struct fault_worker **ret, size_t *ret_n);
void fault_worker_run(void *arg);
/* Takes the faulted surplus pages, and the surplus pages in use the plan promotes, into the
 * pool as persistent pages (one global write of nr_hugepages that adjusts the surplus, no
 * allocation). Call after the workers, then
 * fault_pool_release(); the rest of each node's shortfall is the sysfs method's after that,
 * once no surplus is left to confuse per-node writes. */
int fault_pool_adopt(struct fault_pool *fp);
/* Unmaps and puts nr_overcommit_hugepages back. Safe on every path, and twice. */
void fault_pool_release(struct fault_pool *fp);
/* The most workers that ran at once on any node of the pool. */
unsigned fault_pool_threads_used(struct fault_pool *fp);
/* Releases, then frees what prepare allocated. */
void fault_pool_done(struct fault_pool *fp);
