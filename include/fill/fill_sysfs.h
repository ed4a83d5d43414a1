/* SPDX-License-Identifier: MIT */
/* The sysfs method: grow a pool by writing per-node nr_hugepages in steps, reading every count back. */
#pragma once

#include "fill/pool_writer.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "plan/plan.h"
#include "fill/stop.h"
#include "kernel/topology.h"

/* The first write of a node asks for at most SYSFS_STEP_BYTES of memory (one page for gigantic
 * pages; half as much again where that is the rest, choose_write_pages()); later writes are
 * sized from the rate and the fixed cost a write the kernel showed (choose_write_pages()). Under
 * HVO each write costs an RCU grace period, so a fill of up to 12 GiB a node is one write, as
 * echo makes it. A stop waits for the write in progress: a fraction of a second for 8 GiB at a
 * first-touch rate, about a second where the kernel zeroes each page it allocates
 * (init_on_alloc); bench/fill-bench.py measures both on a machine. */
#define SYSFS_STEP_BYTES (UINT64_C(8) << 30)
#define SYSFS_GIGANTIC (UINT64_C(1) << 30)

/* Retry rounds for nodes that came back short; a round that gains nothing ends them sooner.
 * Dropping the caches (when asked) allows as many again. */
#define SYSFS_MAX_ROUNDS 8

/* State shared by every writer of one fill. */
struct fill_shared {
        int rootfd;
        const struct topology *t;
        /* every write of a pool's nr_hugepages and nr_overcommit_hugepages (pool_writer.h) */
        const struct pool_writer *writer;
        bool pin;           /* move writers to the CPUs of the node they fill */
        bool global_writes; /* the host has one node with memory: write the global file */
        struct stop *stop;
        uint64_t step_bytes; /* the first write of a node (sysfs_first_step()) */
        uint64_t step_ns;    /* how long a write should take; 0: CHOOSE_WRITE_NS (tests) */
        /* HVO as the run read it before its plan (kernel_features.hvo: 1, 0, -1 without the
         * knob), which the first measurement of a Mode=auto pool weighs (one after a collapse
         * reads it again); NULL: read at every measurement (`hpfilld bench`: its runs are apart
         * in time, each read when it measures) */
        const int *hvo;
        /* --drop-caches: once compaction rounds stop gaining, drop the caches (once per fill, by
         * whichever writer gets there first) and go on with more rounds */
        bool drop_caches;
        /* the fault method faults nodes that have free pages too (the bench, which times
         * faulting; fills leave those nodes to the sysfs top-up) */
        bool fault_free_nodes;
        /* else, when set (Mode=auto's measured fill), per node of the plan pool being faulted:
         * how many free pages there are the fill's own (it added them, the node had none when it
         * began); a node with more free pages than that is the sysfs top-up's. NULL: none. */
        const uint64_t *fault_own_free;
        atomic_bool caches_dropped;
        _Atomic uint64_t steps; /* sysfs writes and faulted chunks so far (fill_count_step()) */
        /* Called on the executor's thread about once a second while pools fill. */
        void (*tick)(void *tick_data);
        void *tick_data;
        unsigned tick_ms;   /* 0: 1000 */
};

/* One pool's writer: input, progress and result. */
struct sysfs_fill {
        struct fill_shared *shared;
        const struct plan_pool *pool;
        _Atomic uint64_t done;   /* pages added so far (progress) */
        uint64_t *after;         /* per plan node: persistent pages at the end */
        bool *short_node;        /* per plan node: the kernel gave fewer than asked */
        unsigned rounds;         /* retry rounds used */
        bool after_drop;         /* rounds went on after the caches were dropped */
        bool interrupted;
        int error;               /* first error, negative errno */
        char error_path[160];    /* what it was about */
        uint64_t elapsed_ns;
};

/* The steps of a fill (fill/step.c): every write of a pool and every faulted chunk ends in
 * fill_count_step(), which returns the steps so far; a node's first write is sized by
 * sysfs_first_step(), every write by choose_write_pages() (choose.h). (The root tests' hooked
 * binary wraps these at link time: tests/hooks/hooks.c.) */
uint64_t fill_count_step(struct fill_shared *s);
/* Pages of the first write of a node. */
uint64_t sysfs_first_step(uint64_t page_size, uint64_t step_bytes);

int sysfs_fill_init(struct sysfs_fill *f, struct fill_shared *shared, const struct plan_pool *pool);
void sysfs_fill_done(struct sysfs_fill *f);
/* Runs the whole fill of one pool in the calling thread; results land in @f. */
void sysfs_fill_run(void *f);
