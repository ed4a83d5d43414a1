/* SPDX-License-Identifier: MIT */
/* Runs a plan: every pool by its method, concurrently, on the executor; results per pool. */
#include <stdlib.h>

#include "fill/executor.h"
#include "util/clock.h"
#include "fill/fill.h"
#include "util/macro.h"

uint64_t pool_run_progress(const struct pool_run *r) {
        uint64_t n = atomic_load(&r->sysfs.done);

        if (r->choice.measured)
                return r->segment_base + (r->segment ? pool_run_progress(r->segment) : 0);
        if (r->faulting)
                for (size_t i = 0; i < r->fault.n_nodes; i++)
                        n += atomic_load(&r->fault.nodes[i].faulted);
        return n;
}

uint64_t pool_run_node_after(const struct pool_run *r, size_t k) {
        /* a run its fill could not set up has no counts of its own: the plan's */
        return r->sysfs.after ? r->sysfs.after[k] : r->plan->nodes[k].now;
}

/* The first error wins, as error_keep_first(); @what is a string the run owns (a path, a call):
 * kept, not copied. */
static void note_error(struct pool_run *r, int error, const char *what) {
        if (!r->error && error) {
                r->error = error;
                r->error_what = what;
        }
}

/* The executor could not start the threads of a phase (EAGAIN: TasksMax=, pids.max): every
 * pool with tasks in it failed with that error. @top_up: the phase of the fault pools' top-up. */
static void note_executor_error(struct pool_run *runs, size_t n, int error, bool top_up) {
        for (size_t i = 0; i < n; i++)
                if (!top_up || runs[i].faulting)
                        note_error(&runs[i], error, "pthread_create");
}

/* Memory for the fill itself not had (-ENOMEM) before anything was written: every pool failed
 * with that error, none attempted. */
static int note_setup_error(struct pool_run *runs, size_t n, int error) {
        for (size_t i = 0; i < n; i++)
                note_error(&runs[i], error, "calloc");
        return error;
}

/* Prepare: each pool's sysfs writer, and the mappings and workers of the fault pools. A fault
 * pool that cannot be prepared is that pool's error; a writer that cannot be made is every
 * pool's (note_setup_error()). Returns the tasks phase 1 will need. */
static int prepare(struct fill_shared *shared, const struct plan *p, struct pool_run *runs,
                   struct fault_worker **workers, size_t *ret_max_tasks) {
        size_t max_tasks = p->n_pools;
        int r;

        for (size_t i = 0; i < p->n_pools; i++) {
                size_t n_workers = 0;

                r = sysfs_fill_init(&runs[i].sysfs, shared, &p->pools[i]);
                if (r < 0)
                        return note_setup_error(runs, p->n_pools, r);
                if (p->pools[i].method != FILL_MODE_FAULT)
                        continue;
                runs[i].faulting = true;
                r = fault_pool_prepare(&runs[i].fault, shared, &p->pools[i]);
                if (r >= 0)
                        r = fault_pool_workers(&runs[i].fault, &workers[i], &n_workers);
                if (r < 0) {
                        note_error(&runs[i], r, runs[i].fault.error_what);
                        fault_pool_release(&runs[i].fault);
                        runs[i].faulting = false;
                        continue;
                }
                max_tasks += n_workers;
        }
        *ret_max_tasks = max_tasks;
        return 0;
}

/* Phase 1: fault workers of the fault pools and the writers of the sysfs pools, all at once
 * (page sizes are independent in the kernel). */
static int fault_and_write(struct fill_shared *shared, const struct plan *p, struct pool_run *runs,
                           struct fault_worker **workers, struct task *jobs) {
        size_t n_tasks = 0;
        int r;

        for (size_t i = 0; i < p->n_pools; i++) {
                if (runs[i].faulting) {
                        size_t k = 0;
                        for (size_t j = 0; j < runs[i].fault.n_nodes; j++)
                                for (unsigned w = 0; w < runs[i].fault.nodes[j].workers; w++, k++)
                                        jobs[n_tasks++] = (struct task) { fault_worker_run, &workers[i][k] };
                } else if (!runs[i].error)
                        jobs[n_tasks++] = (struct task) { sysfs_fill_run, &runs[i].sysfs };
        }
        r = executor_run(jobs, n_tasks, shared->stop, shared->tick_ms ?: 1000, shared->tick, shared->tick_data);
        if (r < 0)
                note_executor_error(runs, p->n_pools, r, false);
        return r;
}

/* Phase 2: the fault pools adopt their pages, then the sysfs method tops up what faulting could
 * not get, with its retries. */
static int adopt_and_top_up(struct fill_shared *shared, const struct plan *p, struct pool_run *runs,
                            struct task *jobs, uint64_t t0) {
        size_t n_tasks = 0;
        int r;

        for (size_t i = 0; i < p->n_pools; i++) {
                if (!runs[i].faulting)
                        continue;
                runs[i].fault.fault_ns = now_ns() - t0;
                runs[i].threads = fault_pool_threads_used(&runs[i].fault);
                for (size_t j = 0; j < runs[i].fault.n_nodes; j++)
                        note_error(&runs[i], atomic_load(&runs[i].fault.nodes[j].error), "MADV_POPULATE_WRITE");
                /* Pages faulted so far are adopted on every path, as the sysfs method keeps the
                 * pages it got when stopped; then the mappings go (the adopted pages stay in
                 * the pool, free) and the overcommit value is put back, before any per-node
                 * write of the top-up. */
                r = fault_pool_adopt(&runs[i].fault);
                fault_pool_release(&runs[i].fault);
                if (r < 0 || runs[i].fault.error)
                        note_error(&runs[i], runs[i].fault.error, runs[i].fault.error_what);
                else if (!runs[i].error)
                        jobs[n_tasks++] = (struct task) { sysfs_fill_run, &runs[i].sysfs };
        }
        if (n_tasks == 0)
                return 0;
        r = executor_run(jobs, n_tasks, shared->stop, shared->tick_ms ?: 1000, shared->tick, shared->tick_data);
        if (r < 0)
                note_executor_error(runs, p->n_pools, r, true);
        return r;
}

/* Every pool's outcome: what was released, how long it took, whether it was stopped. */
static void finish(struct fill_shared *shared, const struct plan *p, struct pool_run *runs,
                   struct fault_worker **workers, uint64_t t0) {
        for (size_t i = 0; i < p->n_pools; i++) {
                if (runs[i].faulting) {
                        fault_pool_release(&runs[i].fault);
                        note_error(&runs[i], runs[i].fault.error, runs[i].fault.error_what);
                        runs[i].elapsed_ns = now_ns() - t0;
                        runs[i].interrupted = stop_signalled(shared->stop);
                } else {
                        runs[i].elapsed_ns = runs[i].sysfs.elapsed_ns;
                        runs[i].interrupted = runs[i].sysfs.interrupted;
                }
                note_error(&runs[i], runs[i].sysfs.error, runs[i].sysfs.error_path);
                free(workers[i]);
        }
}

int fill_execute(struct fill_shared *shared, const struct plan *p, struct pool_run *runs) {
        _cleanup_(freep) struct fault_worker **workers = NULL;
        _cleanup_(freep) struct task *jobs = NULL;
        uint64_t t0 = now_ns();
        size_t max_tasks = 0;
        int r;

        /* first: the caller reports every pool by its plan, however far the fill got */
        for (size_t i = 0; i < p->n_pools; i++) {
                runs[i].plan = &p->pools[i];
                runs[i].threads = p->pools[i].threads;
        }
        workers = calloc(p->n_pools ? p->n_pools : 1, sizeof(*workers));
        if (!workers)
                return note_setup_error(runs, p->n_pools, -ENOMEM);
        r = prepare(shared, p, runs, workers, &max_tasks);
        if (r >= 0) {
                jobs = calloc(max_tasks ? max_tasks : 1, sizeof(*jobs));
                r = jobs ? 0 : note_setup_error(runs, p->n_pools, -ENOMEM);
        }
        if (r >= 0)
                r = fault_and_write(shared, p, runs, workers, jobs);
        if (r >= 0)
                r = adopt_and_top_up(shared, p, runs, jobs, t0);
        finish(shared, p, runs, workers, t0);
        return r < 0 ? r : 0;
}

void fill_runs_done(struct pool_run *runs, size_t n) {
        for (size_t i = 0; i < n; i++) {
                sysfs_fill_done(&runs[i].sysfs);
                fault_pool_done(&runs[i].fault);
        }
}
