/* SPDX-License-Identifier: MIT */
/* Runs a plan whose Mode=auto pools are measured on the running kernel (measure.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fill/fill_auto.h"
#include "fill/measure.h"
#include "kernel/pool.h"
#include "util/clock.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"

struct real {
        struct fill_shared *shared;
        struct pool_run *final; /* the pool's run in the caller's array: progress, the result */
        const struct plan_pool *pp;
        uint64_t *free_found;   /* per node: free pages when the measured fill began */
        uint64_t *own_free;     /* per node: free pages a fault step may take, the fill's own */
};

/* No page is held to steer the kernel (a held free page is one a workload's mmap() cannot
 * get). A fault takes free pages before it makes surplus ones (dequeue_hugetlb_folio_vma()
 * first), so a node is faulted only while every free page it has is one this fill added: it
 * had none when the fill began, and has no more now than the fill added. A fault segment may
 * take the fill's own pages back for a moment (the sysfs top-up after it makes them again),
 * never one the pool had; a probe gives them back first (real_clear_for_fault()). Any other
 * node is the sysfs top-up's. */
static uint64_t own_free_pages(const struct real *real, size_t i, uint64_t now) {
        const struct plan_node *n = &real->pp->nodes[i];

        return real->free_found[i] == 0 && now > n->now ? now - n->now : 0;
}

/* measure_ops.clear_for_fault: a probe measures new pages, so the node must have no free
 * page: the fill's own are given back first (writing the count less them frees free pages
 * only, set_max_huge_pages()), to be made again; others' are never touched. */
static bool real_clear_for_fault(void *userdata, size_t i, uint64_t *now) {
        const struct real *real = userdata;
        struct fill_shared *s = real->shared;
        unsigned node = real->pp->nodes[i].node;
        uint64_t ps = real->pp->page_size;
        uint64_t own = own_free_pages(real, i, *now), takeable;
        struct pool_counts c;

        /* only the free pages a fault would take count (others' mappings' reserved ones do not) */
        if (pool_read_takeable(s->rootfd, s->t, node, ps, &takeable) < 0 || takeable > own)
                return false;
        if (takeable == 0)
                return true;
        if (pool_read_counts(s->rootfd, s->t, node, ps, &c) < 0 ||
            s->writer->write_nr(s->writer->data, ps, (int) node, pool_counts_persistent(&c) - MIN(own, c.free)) < 0 ||
            pool_read_counts(s->rootfd, s->t, node, ps, &c) < 0 || pool_read_takeable(s->rootfd, s->t, node, ps, &takeable) < 0)
                return false;
        *now = pool_counts_persistent(&c);
        return takeable == 0;
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
        const uint64_t *own_free = s->fault_own_free;
        uint64_t t0;
        int r;

        if (stop_requested(s->stop)) {
                res->interrupted = true;
                return 0;
        }
        for (size_t i = 0; i < seg->n_nodes; i++)
                real->own_free[i] = own_free_pages(real, i, seg->nodes[i].now);
        s->fault_own_free = real->own_free;
        real->final->segment = &run;
        t0 = now_ns();
        r = fill_execute(s, &one, &run);
        res->elapsed_ns = now_ns() - t0;
        s->fault_own_free = own_free;
        read_after(s, seg, &run, res->after);
        for (size_t i = 0; i < seg->n_nodes; i++)
                if (seg->nodes[i].action == PLAN_GROW)
                        log_debug("auto: node%u: %s %" PRIu64 " -> %" PRIu64 " of %" PRIu64 " in %.3f ms", seg->nodes[i].node,
                                  fill_mode_to_string(m), seg->nodes[i].now, res->after[i], seg->nodes[i].target,
                                  (double) res->elapsed_ns / 1e6);
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

/* HVO for measurement @nth: the first takes it as the run read it before its plan; one after a
 * collapse reads it again (it may have been turned on mid-fill: choose.h). */
static int real_hvo(void *userdata, unsigned nth) {
        const struct real *real = userdata;

        return nth == 0 && real->shared->hvo ? *real->shared->hvo : kernel_read_hvo(real->shared->rootfd);
}

/* Measures and fills pool @pp into @run (set up for it already). */
static int fill_measured(struct fill_shared *shared, const struct plan_pool *pp, struct pool_run *run) {
        _cleanup_(freep) uint64_t *free_found = calloc(pp->n_nodes + 1, sizeof(*free_found));
        _cleanup_(freep) uint64_t *own_free = calloc(pp->n_nodes + 1, sizeof(*own_free));
        struct real real = { shared, run, pp, free_found, own_free };
        struct measure_ops ops = { real_run, real_hvo, &real, shared->step_bytes, real_clear_for_fault };
        struct measure_outcome out = { .after = run->sysfs.after };
        uint64_t t0 = now_ns();
        int r;

        if (!free_found || !own_free)
                return -ENOMEM;
        for (size_t i = 0; i < pp->n_nodes; i++) {
                struct pool_counts c;

                /* unreadable: as if it had free pages (faulting it could take them) */
                free_found[i] = pool_read_counts(shared->rootfd, shared->t, pp->nodes[i].node, pp->page_size, &c) < 0
                                        ? UINT64_MAX
                                        : c.free;
        }
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
        bool any = false, all = true;
        int r = 0;

        for (size_t i = 0; i < p->n_pools; i++) {
                any |= p->pools[i].measured;
                all &= p->pools[i].measured;
        }
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
        /* none left with a method of its own (the usual plan: one pool, auto): nothing to run */
        if (!all)
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
