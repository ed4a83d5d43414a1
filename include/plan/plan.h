/* SPDX-License-Identifier: MIT */
/* The planner: configuration + topology + pool counters in, per-(size, node) work out. Pure. */
#pragma once

#include "settings/conf.h"
#include "kernel/kernel_features.h"
#include "kernel/pool.h"
#include "kernel/topology.h"
#include "plan/choose.h"

enum plan_action {
        PLAN_GROW,   /* below target: add pages */
        PLAN_SHRINK, /* above target and asked to shrink: free free pages */
        PLAN_KEEP,   /* at target */
        PLAN_LARGER, /* above target, left alone */
};

struct plan_node {
        unsigned node;
        size_t node_idx;     /* into topology.nodes */
        size_t cpu_node_idx; /* node whose CPUs do the work (a memory-only node borrows the nearest) */
        uint64_t now, target; /* now: persistent pages (nr_hugepages - surplus_hugepages) */
        uint64_t surplus;     /* surplus pages found on the node: they leave the pool when freed */
        uint64_t promote;     /* of those, made persistent by the fill (GROW only) */
        uint64_t kept;        /* SHRINK: of the target, pages above the one asked that stay (in use,
                               * or not the run's to give back) */
        enum plan_action action;
};

/* Pages of a GROW node that must be new: the growth less the surplus pages it promotes. */
static inline uint64_t plan_node_new_pages(const struct plan_node *n) {
        return n->action == PLAN_GROW && n->target > n->now + n->promote ? n->target - n->now - n->promote : 0;
}

struct plan_pool {
        uint64_t page_size;
        char origin[160];
        enum fill_mode method;     /* FILL_MODE_AUTO: measured at the start of the fill, from rule */
        const char *method_reason; /* why this method, for the plan and -v */
        struct choose_rule rule;   /* the candidates and the preference of Mode=auto */
        bool measured;             /* the fill measures the candidates first (auto, or fault to warn) */
        unsigned threads; /* sysfs: writers of the pool; fault: workers per node */
        bool threads_auto; /* fault: chosen by hpfilld, capped by each node's CPUs */
        struct plan_node *nodes;
        size_t n_nodes;
        uint64_t target_total;
};

/* Workers per node when ThreadsPerNode=auto: the CPUs of the node, at most this many (QEMU's
 * prealloc-threads stops at 16 too; zeroing is memory-bound long before). */
#define PLAN_AUTO_THREADS_MAX 16u
/* Fault workers per node under HVO with ThreadsPerNode=auto, at least: they sleep in RCU grace
 * periods, not on CPUs (plan.c). */
#define PLAN_HVO_FAULT_WORKERS 8u
/* Pages at least this large are gigantic: never surplus, so never faulted in from nothing. */
#define PLAN_GIGANTIC (UINT64_C(1) << 30)

/* A reservation: its pages per node (targets, from nothing), faulted by the fault workers. */
struct plan_reserve {
        char name[64];
        char owner[64], group[64]; /* names or ids, resolved when the reservation is made */
        unsigned mode;
        char mount[256]; /* Mount=, or empty: the mount table's first for the page size */
        struct plan_pool pool;
};

struct plan {
        struct plan_pool *pools;
        size_t n_pools;
        struct plan_reserve *reserves;
        size_t n_reserves;
        unsigned min_percent;
        bool drop_caches;
        /* the memory budget passed only with memory no node's meminfo counts yet (their counts
         * lag the machine's): the plan says so before it is carried out */
        bool needs_uncounted;
};

/* @counts holds the pool counters of every page size of @t (outer, in t->page_sizes order) and
 * node (inner, in t->nodes order). Every rejection names the pool's origin. */
int plan_build(const struct topology *t, const struct pool_counts *counts, const struct config *c,
               const struct kernel_features *caps, struct plan *ret, struct error *e);
void plan_done(struct plan *p);
/* Pure: the pages claim @cl adds on each node of @t (@ret_pages, by index into t->nodes, added
 * to), marking in @ret_named the nodes it names: as plan_build() counts it. */
int plan_claim_pages(const struct topology *t, const struct claim_spec *cl, uint64_t *ret_pages, bool *ret_named,
                     struct error *e);

/* Pages of the pool that count towards its target: per node, at most the node's target. */
uint64_t plan_pool_obtained(const struct plan_pool *p, const uint64_t *after);
/* Whether @obtained pages meet @min_percent of the pool's target. */
bool plan_pool_met(const struct plan_pool *p, uint64_t obtained, unsigned min_percent);
bool plan_has_work(const struct plan *p);

const char *plan_action_to_string(enum plan_action a);
