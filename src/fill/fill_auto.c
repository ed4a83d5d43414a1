/* SPDX-License-Identifier: MIT */
/* Runs a plan whose Mode=auto pools are measured on the running kernel (measure.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "fill/fill_auto.h"
#include "fill/measure.h"
#include "kernel/pool.h"
#include "util/clock.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif

struct real {
        struct fill_shared *shared;
        struct pool_run *final; /* the pool's run in the caller's array: progress, the result */
};

/* Reserves the pool's free pages with an untouched mapping (no MAP_NORESERVE), so that faults
 * allocate new surplus pages instead of taking free ones (and zeroing them again): a fault takes
 * a free page only while free_huge_pages > resv_huge_pages (dequeue_hugetlb_folio_vma(), called
 * first by alloc_hugetlb_folio()). A failure holds nothing: the fault then takes them, as it
 * would anyway. Returns the mapping's length; process exit drops the reservation too. */
static size_t hold_free_pages(const struct fill_shared *s, uint64_t page_size, void **ret) {
        uint64_t free_pages, resv;
        size_t len;
        void *p;

        if (pool_read_global(s->rootfd, page_size, "free_hugepages", &free_pages) < 0 ||
            pool_read_global(s->rootfd, page_size, "resv_hugepages", &resv) < 0 || free_pages <= resv)
                return 0;
        len = (size_t) ((free_pages - resv) * page_size);
        p = mmap(NULL, len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | (__builtin_ctzll(page_size) << MAP_HUGE_SHIFT), -1, 0);
        if (p == MAP_FAILED)
                return 0;
        *ret = p;
        return len;
}

static void read_after(struct fill_shared *s, const struct plan_pool *seg, const struct pool_run *run, uint64_t *after) {
        for (size_t i = 0; i < seg->n_nodes; i++) {
                if (pool_read_persistent(s->rootfd, s->t, seg->nodes[i].node, seg->page_size, &after[i]) < 0)
                        after[i] = run->sysfs.after[i];
        }
}

/* measure_ops.run on the real kernel: the segment as a one-pool plan through fill_execute(). */
static int real_run(void *userdata, enum fill_mode m, const struct plan_pool *seg, struct measure_result *res) {
        struct real *real = userdata;
        struct fill_shared *s = real->shared;
        struct plan one = { .pools = (struct plan_pool *) seg, .n_pools = 1, .drop_caches = s->drop_caches };
        struct pool_run run = {};
        void *held = NULL;
        size_t held_len = 0;
        uint64_t t0;
        int r;

        if (stop_requested(s->stop)) {
                res->interrupted = true;
                return 0;
        }
        bool fault_free_nodes = s->fault_free_nodes;

        if (m == FILL_MODE_FAULT) {
                held_len = hold_free_pages(s, seg->page_size, &held);
                /* the free pages are held (or none is unreserved): faulting a node that has some
                 * makes new pages all the same, so the probe faults every node it measures */
                s->fault_free_nodes = true;
        }
        real->final->segment = &run;
        t0 = now_ns();
        r = fill_execute(s, &one, &run);
        res->elapsed_ns = now_ns() - t0;
        s->fault_free_nodes = fault_free_nodes;
        if (held_len)
                (void) munmap(held, held_len);
        read_after(s, seg, &run, res->after);
        for (size_t i = 0; i < seg->n_nodes; i++)
                if (seg->nodes[i].action == PLAN_GROW)
                        log_debug("auto: node%u: %s %" PRIu64 " -> %" PRIu64 " of %" PRIu64 " in %.3f ms%s", seg->nodes[i].node,
                                  fill_mode_to_string(m), seg->nodes[i].now, res->after[i], seg->nodes[i].target,
                                  (double) res->elapsed_ns / 1e6, held_len ? ", free pages held" : "");
        real->final->segment_base += pool_run_progress(&run);
        real->final->segment = NULL;
        res->threads = run.threads;
        res->rounds = run.sysfs.rounds;
        res->after_drop = run.sysfs.after_drop;
        res->interrupted = run.interrupted;
        res->error = run.error;
        if (run.error)
                (void) snprintf(res->error_what, sizeof(res->error_what), "%s", run.error_what ? run.error_what : "?");
        fill_runs_done(&run, 1);
        return r;
}

static int real_hvo(void *userdata) {
        const struct real *real = userdata;

        return kernel_read_hvo(real->shared->rootfd);
}

/* Measures and fills pool @pp into @run (set up for it already). */
static int fill_measured(struct fill_shared *shared, const struct plan_pool *pp, struct pool_run *run) {
        struct real real = { shared, run };
        struct measure_ops ops = { real_run, real_hvo, &real, shared->step_bytes };
        struct measure_outcome out = { .after = run->sysfs.after };
        uint64_t t0 = now_ns();
        int r;

        run->choice.measured = true;
        r = measure_fill(&ops, pp, &out);
        run->choice = out.choice;
        run->elapsed_ns = now_ns() - t0;
        run->threads = out.threads;
        run->faulting = false;
        run->sysfs.rounds = out.rounds;
        run->sysfs.after_drop = out.after_drop;
        run->interrupted = out.interrupted || stop_requested(shared->stop);
        if (out.error && !run->error) {
                run->error = out.error;
                memcpy(run->what, out.error_what, sizeof(run->what));
                run->error_what = run->what;
        }
        return r;
}

/* @run anew for @pp, its nodes as planned; the error of the run before (the executor's) kept. */
static int renew_run(struct fill_shared *shared, const struct plan_pool *pp, struct pool_run *run) {
        int error = run->error;
        char what[sizeof(run->what)];

        (void) snprintf(what, sizeof(what), "%s", run->error_what ?: "");
        fill_runs_done(run, 1);
        *run = (struct pool_run) { .plan = pp, .error = error };
        if (error) {
                memcpy(run->what, what, sizeof(run->what));
                run->error_what = run->what;
        }
        return sysfs_fill_init(&run->sysfs, shared, pp);
}

int fill_execute_plan(struct fill_shared *shared, const struct plan *p, struct pool_run *runs) {
        _cleanup_(freep) struct plan_pool *rest = NULL;
        struct plan others = *p;
        bool any = false;
        int r;

        for (size_t i = 0; i < p->n_pools; i++)
                any |= p->pools[i].measured;
        if (!any)
                return fill_execute(shared, p, runs);

        /* The pools with one method first, together (gigantic pages before small ones fragment
         * memory); the measured ones are left empty there and filled after, one by one. */
        rest = calloc(p->n_pools, sizeof(*rest));
        if (!rest)
                return -ENOMEM;
        for (size_t i = 0; i < p->n_pools; i++) {
                rest[i] = p->pools[i];
                if (rest[i].measured) {
                        rest[i].method = FILL_MODE_SYSFS;
                        rest[i].n_nodes = 0;
                }
        }
        others.pools = rest;
        r = fill_execute(shared, &others, runs);
        for (size_t i = 0; i < p->n_pools; i++) {
                int k;

                /* the same pool, the caller's copy */
                runs[i].plan = runs[i].sysfs.pool = runs[i].fault.plan = &p->pools[i];
                if (!p->pools[i].measured)
                        continue;
                /* A run of its own for the whole pool, even one an earlier failure leaves unfilled:
                 * the run of the copy above knows none of its nodes. */
                k = renew_run(shared, &p->pools[i], &runs[i]);
                r = r < 0 ? r : k;
                if (r >= 0)
                        r = fill_measured(shared, &p->pools[i], &runs[i]);
        }
        return r < 0 ? r : 0;
}
