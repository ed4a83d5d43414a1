/* SPDX-License-Identifier: MIT */
/* One fill from a configuration, in its order: topology, plan, checks (job_checks.c), the host lock,
 * the fill itself, the report. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan/advise.h"
#include "util/clock.h"
#include "fill/fill.h"
#include "fill/fill_auto.h"
#include "service/claim_record.h"
#include "service/job.h"
#include "service/job_checks.h"
#include "kernel/kernel_features.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/sanitize.h"
#include "fill/pin.h"
#include "plan/plan.h"
#include "kernel/pool.h"
#include "plan/report.h"
#include "plan/report_json.h"
#include "util/json.h"
#include "fill/reserve.h"
#include "service/caps.h"
#include "service/hostlock.h"
#include "fill/journal.h"
#include "fill/rundir.h"
#include "kernel/topology.h"
#include "util/shown.h"

/* The report's pool lines, joined: the daemon's last STATUS= and `hpfilld status`. */
static void summary_add(struct job *j, const char *line) {
        size_t n = strlen(j->summary);

        if (n && n + 2 < sizeof(j->summary)) {
                memcpy(j->summary + n, "; ", 3);
                n += 2;
        }
        /* STATUS= and the record take it: one line, whatever a path in it holds */
        escape_controls(j->summary + n, sizeof(j->summary) - n, line);
}

struct progress {
        struct job *job;
        const struct pool_run *runs;
        size_t n;
        uint64_t logged[ELEMENTSOF(((struct job_status *) NULL)->pools)]; /* pages added, as last logged */
};

static void tick_progress(void *userdata) {
        struct progress *p = userdata;
        struct job_status st = { .n_pools = MIN(p->n, ELEMENTSOF(st.pools)) };

        for (size_t i = 0; i < st.n_pools; i++) {
                const struct plan_pool *pp = p->runs[i].plan;
                char name[32];

                st.pools[i].page_size = pp->page_size;
                st.pools[i].added = pool_run_progress(&p->runs[i]);
                for (size_t k = 0; k < pp->n_nodes; k++)
                        if (pp->nodes[k].action == PLAN_GROW)
                                st.pools[i].wanted += pp->nodes[k].target - pp->nodes[k].now;
                /* -v: a pool with pages to add, when it has added more since the last line */
                if (st.pools[i].wanted == 0 || st.pools[i].added == p->logged[i])
                        continue;
                p->logged[i] = st.pools[i].added;
                log_debug("%s pool: %" PRIu64 " of %" PRIu64 " page%s added so far", page_size_name(pp->page_size, name),
                          st.pools[i].added, st.pools[i].wanted, plural(st.pools[i].wanted));
        }
        if (p->job->progress)
                p->job->progress(&st, p->job->userdata);
}

/* For the metrics and `hpfilld status`: each claim's pages per node, as the plan counted them. */
static void record_claims(struct job *j, const struct topology *t, const struct config *c) {
        _cleanup_(freep) uint64_t *pages = calloc(t->n_nodes + 1, sizeof(*pages));
        _cleanup_(freep) bool *named = calloc(t->n_nodes + 1, sizeof(*named));
        int r = 0;

        if (!pages || !named)
                r = -ENOMEM;
        for (size_t i = 0; r >= 0 && i < c->n_claims; i++) {
                memset(pages, 0, t->n_nodes * sizeof(*pages));
                memset(named, 0, t->n_nodes * sizeof(*named));
                /* planned already: plan_build() said of any error */
                if (plan_claim_pages(t, &c->claims[i], pages, named, &(struct error) {}) < 0)
                        continue;
                for (size_t k = 0; r >= 0 && k < t->n_nodes; k++)
                        if (named[k])
                                r = fill_record_add_claim(j->record, c->claims[i].name, c->claims[i].page_size,
                                                          t->nodes[k].id, pages[k], c->claims[i].file);
        }
        if (r == -ENOMEM)
                log_warning("Out of memory: the claims are not in the record of this fill");
}

/* For the metrics: what the plan asked of each pool and how it went. */
static void record_pool(struct job *j, const struct plan_pool *pp, const struct pool_run *run, bool met) {
        int r = 0;

        if (!j->record)
                return;
        r = fill_record_add_size(j->record, pp->page_size, run->elapsed_ns, run->sysfs.rounds, met);
        for (size_t k = 0; r >= 0 && k < pp->n_nodes; k++)
                r = fill_record_add_target(j->record, pp->page_size, pp->nodes[k].node, pp->nodes[k].target);
        if (r < 0)
                log_warning_errno(r, "Cannot record the fill for the metrics: %m, ignoring");
}

static void record_reserve(struct job *j, const struct reserve_run *rr) {
        const struct plan_pool *pp = &rr->plan->pool;
        bool ready = !rr->error && (rr->kept || rr->faulted >= pp->target_total);
        char nodes[128] = "";
        int r;

        if (!j->record)
                return;
        /* the nodes its pages were asked on, for `hpfilld status` */
        for (size_t k = 0, n = 0; k < pp->n_nodes && n + 12 < sizeof(nodes); k++)
                if (pp->nodes[k].target > 0)
                        n += (size_t) snprintf(nodes + n, sizeof(nodes) - n, "%s%u", n ? "," : "", pp->nodes[k].node);
        r = fill_record_add_reserve(j->record, rr->plan->name, pp->page_size, ready ? pp->target_total : 0,
                                    pp->target_total, ready ? MR_READY : rr->error ? MR_FAILED : MR_SHORT, nodes,
                                    rr->path);
        if (r < 0)
                log_warning_errno(r, "Cannot record reservation '%s' for the metrics: %m, ignoring", rr->plan->name);
}

/* "ready", "kept", "short", "interrupted", "failed" */
static const char *reserve_state_json(const struct reserve_run *r) {
        if (r->error)
                return "failed";
        if (r->kept)
                return "kept";
        if (r->faulted < r->plan->pool.target_total)
                return r->interrupted ? "interrupted" : "short";
        return "ready";
}

static void reserve_json(struct json_writer *w, const struct reserve_run *r) {
        const char *state = reserve_state_json(r);
        bool there = strcmp(state, "ready") == 0 || strcmp(state, "kept") == 0;

        json_begin_object(w);
        json_key(w, "name"), json_string(w, r->plan->name);
        json_key(w, "page_size"), json_u64(w, r->plan->pool.page_size);
        json_key(w, "target"), json_u64(w, r->plan->pool.target_total);
        json_key(w, "pages"), json_u64(w, there ? r->plan->pool.target_total : r->faulted);
        json_key(w, "state"), json_string(w, state);
        json_key(w, "path"), json_string(w, there ? r->path : NULL);
        json_key(w, "elapsed_seconds"), json_double(w, (double) r->elapsed_ns / 1e9, 6);
        json_key(w, "threads"), json_u64(w, r->threads);
        json_key(w, "errno"), json_errno_or_null(w, r->error);
        json_end_object(w);
}

static void report_reserves(struct job *j, const struct reserve_run *runs, size_t n, bool *failed, bool *short_) {
        for (size_t i = 0; i < n; i++) {
                const struct reserve_run *r = &runs[i];
                const struct plan_pool *pp = &r->plan->pool;
                char name[32], line[PATH_MAX + 256];
                int k;

                k = snprintf(line, sizeof(line), "%s reservation: %" PRIu64 "/%" PRIu64 " %s page%s in %" PRIu64
                             " ms (fault, %u thread%s/node%s)",
                             r->plan->name, r->faulted, pp->target_total, page_size_name(pp->page_size, name),
                             plural(pp->target_total),
                             (r->elapsed_ns + 500000) / 1000000, r->threads, r->threads == 1 ? "" : "s",
                             pp->threads_auto ? ", auto" : "");
                if (k > 0 && (size_t) k < sizeof(line)) {
                        if (r->kept)
                                (void) snprintf(line + k, sizeof(line) - (size_t) k, ", kept as it was at %s (%s)", r->path,
                                                r->use == RESERVE_USE_IN_USE ? "in use"
                                                                             : "cannot tell whether it is in use");
                        else if (r->error && r->threads == 0 && r->faulted == 0)
                                /* never started (an owner unknown, a mount refused): no fault to tell of */
                                (void) snprintf(line, sizeof(line), "%s reservation: not made: %s%s%s", r->plan->name,
                                                r->error_what, r->error == -ESRCH ? "" : ": ",
                                                r->error == -ESRCH ? "" : strerror(-r->error));
                        else if (r->error)
                                (void) snprintf(line + k, sizeof(line) - (size_t) k, ", failed: %s: %s", r->error_what,
                                                strerror(-r->error));
                        else if (r->faulted < pp->target_total)
                                (void) snprintf(line + k, sizeof(line) - (size_t) k, ", %s, removed",
                                                r->interrupted ? "interrupted" : "short");
                        else
                                (void) snprintf(line + k, sizeof(line) - (size_t) k, " at %s", r->path);
                }
                summary_add(j, line);
                if (j->json)
                        reserve_json(j->json, r);
                else if (j->report && log_get_max_level() >= LOG_INFO) {
                        char shown[sizeof(line)];

                        escape_controls(shown, sizeof(shown), line);
                        fprintf(j->report, "%s\n", shown);
                }
                record_reserve(j, r);
                *failed |= r->error != 0;
                *short_ |= !r->error && !r->interrupted && r->faulted < pp->target_total;
        }
}

/* For the pools that came back short: what gets them at the next boot, said once in the
 * report; the kernel command line and the initramfs form are kept for `hpfilld status` too
 * (the CMA area for gigantic pages is said in the report only). */
static void advise(struct job *j, const struct plan_pool *const *shorts, size_t n, unsigned alloc_threads) {
        advise_boot(j->advice_cmdline, sizeof(j->advice_cmdline), j->advice_initramfs, sizeof(j->advice_initramfs),
                    shorts, n, alloc_threads);
        advise_cma(j->advice_cma, sizeof(j->advice_cma), shorts, n);
        if (n == 0)
                return;
        if (j->report && log_get_max_level() >= LOG_INFO) {
                fprintf(j->report,
                        "To have these pages at the next boot, add to the kernel command line:\n  %s\n"
                        "or let hpfilld fill them from the initramfs:\n  %s\n",
                        j->advice_cmdline, j->advice_initramfs);
                if (j->advice_cmdline[0] && j->advice_cma[0])
                        fprintf(j->report,
                                "or keep a CMA area for the gigantic pages, which hpfilld can then fill at any time\n"
                                "(movable allocations use it until then; see \"Gigantic pages\" in hpfilld(8)):\n  %s\n",
                                j->advice_cma);
        } else
                log_notice("Next boot: %s (or from the initramfs: %s%s%s)", j->advice_cmdline, j->advice_initramfs,
                           j->advice_cma[0] ? "; or a CMA area for gigantic pages: " : "", j->advice_cma);
}

/* SIGPIPE is ignored (stop_block_signals()): a closed stdout fails the report and makes the
 * run's exit status 1, and nothing else; the fill goes on and puts back what it changed. */
static void report_flush(struct job *j) {
        if (!j->report || j->report_error)
                return;
        errno = 0;
        if (fflush(j->report) != 0 || ferror(j->report))
                j->report_error = log_error_errno(errno ?: EIO, "Cannot write the report to standard output: %m");
}

/* Where a pool was measured: the kernel it was measured on (HVO as read at the last measurement),
 * in the report and the summary; a warning where fault was asked for and measured far slower. */
static void report_measured(struct job *j, const struct plan *p, const struct pool_run *runs,
                            const struct kernel_features *caps) {
        struct kernel_features seen = *caps;
        char kernel[192], name[32];
        bool any = false;

        for (size_t i = 0; i < p->n_pools; i++) {
                const struct choice *c = &runs[i].choice;

                if (!c->measured)
                        continue;
                any = true;
                seen.hvo = c->hvo;
                if (p->pools[i].rule.forced && c->fault_rate > 0 && c->sysfs_rate > 0 &&
                    c->fault_rate * CHOOSE_WARN_FACTOR < c->sysfs_rate)
                        log_warning("%s pool: --mode fault (Mode=fault) measured %.0f pages/s here, sysfs %.0f pages/s: "
                                    "%.0fx slower; Mode=auto would pick sysfs",
                                    page_size_name(p->pools[i].page_size, name), c->fault_rate, c->sysfs_rate,
                                    c->sysfs_rate / c->fault_rate);
        }
        if (!any)
                return;
        (void) snprintf(kernel, sizeof(kernel), "Measured on ");
        kernel_features_describe(kernel + strlen(kernel), sizeof(kernel) - strlen(kernel), &seen);
        summary_add(j, kernel);
        if (j->report && log_get_max_level() >= LOG_INFO)
                fprintf(j->report, "%s\n", kernel);
}

/* What a run of the fill came to, over its pools. */
struct tally {
        bool failed, interrupted, short_;
        const struct plan_pool **shorts; /* short without being stopped or failing: for advice */
        size_t n_shorts;
};

/* One pool's outcome as the kernel tells it now, not as we think we did: the report's lines,
 * the record, the tally. @after and @surplus_after hold a value per node. */
static void report_outcome(struct job *j, const struct topology *t, const struct pool_run *run, unsigned min_percent,
                           uint64_t *after, uint64_t *surplus_after, struct tally *tally) {
        const struct plan_pool *pp = run->plan;
        struct pool_outcome o = {
                .after = after,
                .surplus_after = surplus_after,
                .elapsed_ns = run->elapsed_ns,
                .threads = run->threads,
                .rounds = run->sysfs.rounds,
                .by_sysfs = atomic_load(&run->sysfs.done),
                .after_drop = run->sysfs.after_drop,
                .interrupted = run->interrupted,
                .error = run->error,
                .error_path = run->error_what,
                .choice = run->choice.measured ? &run->choice : NULL,
        };
        char name[32], line[1024];

        for (size_t k = 0; k < pp->n_nodes; k++) {
                struct pool_counts pc;

                if (pool_read_counts(j->rootfd, t, pp->nodes[k].node, pp->page_size, &pc) >= 0) {
                        after[k] = pool_counts_persistent(&pc);
                        surplus_after[k] = pc.surplus;
                } else {
                        after[k] = pool_run_node_after(run, k);
                        surplus_after[k] = pp->nodes[k].surplus;
                }
        }
        report_pool_line(line, sizeof(line), pp, &o);
        summary_add(j, line);
        if (j->json)
                report_pool_json(j->json, pp, &o, plan_pool_met(pp, plan_pool_obtained(pp, after), min_percent));
        else if (j->report && log_get_max_level() >= LOG_INFO)
                report_pool(j->report, pp, &o);
        tally->failed |= run->error != 0;
        tally->interrupted |= run->interrupted;
        if (plan_pool_obtained(pp, after) < pp->target_total && !run->interrupted && !run->error)
                tally->shorts[tally->n_shorts++] = pp;
        record_pool(j, pp, run, plan_pool_met(pp, plan_pool_obtained(pp, after), min_percent));
        if (!plan_pool_met(pp, plan_pool_obtained(pp, after), min_percent)) {
                tally->short_ = true;
                if (!run->interrupted && !run->error)
                        log_warning("%s pool: %" PRIu64 " of %" PRIu64 " page%s, below the minimum of %u%% (MinPercent=, --min)",
                                    page_size_name(pp->page_size, name), plan_pool_obtained(pp, after),
                                    pp->target_total, plural(pp->target_total), min_percent);
        }
}

static int run(struct job *j, struct topology *t, const struct plan *p, struct reserve_run *reserves,
               const struct kernel_features *caps) {
        _cleanup_(freep) struct pool_run *runs = NULL;
        _cleanup_(freep) uint64_t *after = NULL, *surplus_after = NULL;
        struct progress progress = {};
        struct fill_shared shared = {
                .rootfd = j->rootfd,
                .t = t,
                .pin = pin_is_useful(t),
                .global_writes = j->host && t->numa && topology_memory_nodes(t) == 1,
                .stop = j->stop,
                .step_bytes = SYSFS_STEP_BYTES,
                .hvo = &caps->hvo, /* read a moment ago, before the plan */
                .drop_caches = p->drop_caches,
                /* progress to report: the daemon's STATUS=, debug lines */
                .tick = j->progress || log_get_max_level() >= LOG_DEBUG ? tick_progress : NULL,
                .tick_ms = JOB_TICK_MS,
                .tick_data = &progress,
        };
        _cleanup_(freep) const struct plan_pool **shorts = NULL;
        struct tally tally = {};
        int r;

        runs = calloc(p->n_pools + 1, sizeof(*runs));
        shorts = calloc(p->n_pools + 1, sizeof(*shorts));
        after = calloc(t->n_nodes + 1, sizeof(*after));
        surplus_after = calloc(t->n_nodes + 1, sizeof(*surplus_after));
        if (!runs || !after || !surplus_after || !shorts)
                return log_error_errno(-ENOMEM, "Out of memory");
        tally.shorts = shorts;
        progress = (struct progress) { .job = j, .runs = runs, .n = p->n_pools };
        for (size_t i = 0; i < ELEMENTSOF(progress.logged); i++)
                progress.logged[i] = UINT64_MAX; /* the first tick of a pool says where it is */

        for (size_t i = 0; i < p->n_pools; i++) {
                char name[32];
                log_debug("%s pool: %s, %s", page_size_name(p->pools[i].page_size, name),
                          fill_mode_to_string(p->pools[i].method), p->pools[i].method_reason);
        }
        r = fill_execute_plan(&shared, p, runs);
        if (j->progress_done)
                j->progress_done(j->userdata);
        if (r < 0)
                log_error_errno(r, "Cannot run the fill: %m");

        if (j->json) {
                json_key(j->json, "pools");
                json_begin_array(j->json);
        }
        for (size_t i = 0; i < p->n_pools; i++)
                report_outcome(j, t, &runs[i], p->min_percent, after, surplus_after, &tally);
        if (j->json) {
                json_end_array(j->json);
                report_kernel_json(j->json, caps);
                json_key(j->json, "reservations");
                json_begin_array(j->json);
        }
        report_measured(j, p, runs, caps);
        advise(j, shorts, tally.n_shorts, tally.n_shorts ? kernel_boot_alloc_threads(caps) : 0);
        /* a fill that could not run (out of memory for it, no threads) makes none either */
        if (p->n_reserves > 0 && r < 0) {
                log_error("%zu reservation%s not made: the fill could not run", p->n_reserves, plural(p->n_reserves));
                tally.failed = true;
        } else if (p->n_reserves > 0 && !stop_requested(j->stop)) {
                /* its errors are the reservations' own, reported with them */
                (void) caps_effective_set(CAPS_RESERVE, true);
                (void) reserve_execute(&shared, p, reserves);
                (void) caps_effective_set(CAPS_RESERVE, false);
                if (j->progress_done)
                        j->progress_done(j->userdata);
                report_reserves(j, reserves, p->n_reserves, &tally.failed, &tally.short_);
        }
        if (j->json)
                json_end_array(j->json);
        tally.interrupted |= stop_requested(j->stop);
        report_flush(j);
        if (tally.interrupted)
                log_error("Interrupted by signal %d (%s); pages already added stay in the pools",
                          atomic_load(&j->stop->signo), strsignal(atomic_load(&j->stop->signo)));
        fill_runs_done(runs, p->n_pools);
        return r < 0 || tally.failed || tally.interrupted ? EXIT_FAIL : tally.short_ ? EXIT_SHORT : EXIT_OK;
}

int job_recover_journal(int rootfd, bool host) {
        struct journal_outcome o[JOURNAL_MAX];
        char line[512];
        int n;

        n = journal_recover(rootfd, host, o, ELEMENTSOF(o));
        if (n < 0)
                return log_warning_errno(n, "Cannot read the journal in %s/" RUNDIR ": %m, ignoring", shown_root());
        for (int i = 0; i < n; i++) {
                journal_describe(&o[i], line, sizeof(line));
                if (o[i].result == JOURNAL_RESTORED || o[i].result == JOURNAL_CHANGED)
                        log_notice("%s", line);
                else
                        log_warning("%s", line);
        }
        return n;
}

/* The plan on the pools as they are now, and every check the run needs before its first write:
 * the memory budget (plan_build()), the reservations' mounts and pages, the files to write. What
 * an earlier call left in @counts, @p and @reserves is dropped first. EXIT_OK, or the status the
 * run ends with; a dry run shows the plan first. */
static int plan_checked(struct job *j, const struct topology *t, const struct config *c,
                        const struct kernel_features *caps, struct pool_counts **counts, struct plan *p,
                        struct reserve_run **reserves) {
        struct error e = {};
        int r;

        if (*reserves)
                reserve_runs_done(*reserves, p->n_reserves);
        free(*reserves);
        *reserves = NULL;
        free(*counts);
        *counts = NULL;
        plan_done(p);
        if (job_read_counts(j->rootfd, t, counts) < 0)
                return EXIT_FAIL;
        r = plan_build(t, *counts, c, caps, p, &e);
        if (r < 0) {
                log_error_errno(r, "%s", e.msg);
                (void) snprintf(j->refused, sizeof(j->refused), "%.*s", (int) sizeof(j->refused) - 1, e.msg);
                return r == -ENOMEM ? EXIT_FAIL : EXIT_USAGE;
        }
        /* none without reservations: each run holds two paths, 8 KiB to clear for nothing */
        *reserves = p->n_reserves > 0 ? calloc(p->n_reserves, sizeof(**reserves)) : NULL;
        if (p->n_reserves > 0 && !*reserves) {
                log_error_errno(-ENOMEM, "Out of memory");
                return EXIT_FAIL;
        }
        if (j->dry_run && j->json) {
                report_plan_json(j->json, p);
                report_kernel_json(j->json, caps);
        } else if (j->dry_run && j->report && log_get_max_level() >= LOG_INFO) {
                char kernel[160];

                report_plan(j->report, p);
                kernel_features_describe(kernel, sizeof(kernel), caps);
                fprintf(j->report, "Kernel: %s\n", kernel);
        }
        /* With nothing to move this still reports, so the admin sees each pool is at target. */
        return job_check(j, t, *counts, p, *reserves);
}

/* @c with the claims' records read, and config.gone from them: the claims given back give back
 * what they got, never more. A copy of @c, its gone list its own (job_gone_done()). */
static int job_gone(struct job *j, const struct topology *t, const struct config *c, struct claim_records *recs,
                    struct config *ret) {
        int r;

        *ret = *c;
        ret->gone = NULL;
        ret->n_gone = 0;
        r = claim_records_load(j->rootfd, t, c, recs);
        if (r >= 0)
                r = claim_records_see(j->rootfd, t, recs);
        if (r >= 0)
                r = claim_records_gone(t, recs, &ret->gone, &ret->n_gone);
        if (r < 0)
                log_error_errno(r, "Out of memory");
        return r;
}

static void job_gone_done(struct config *c) {
        for (size_t i = 0; i < c->n_gone; i++)
                amount_done(&c->gone[i].amount);
        free(c->gone);
        c->gone = NULL;
        c->n_gone = 0;
}

/* One fill per host, from before the first write until all is put back: takes the host lock
 * and, when another fill held it or the pools moved since the plan (a fill that ran between
 * the plan and the lock; a workload), plans and checks again on the pools as they are (their
 * pages may leave no room in the budget, or take the free pages a reservation needed; pages
 * other mappings reserved do not show in the counts, so a plan with reservations is always
 * checked again). With @recs (the claims' records, read before the lock: @c is @with_gone,
 * @files with their give-backs, job_gone()), the records are read again under the lock, and a
 * plan that gives back, or would now, is made again on them: another fill (an unclaim's, a
 * --once's) may have given back a pending claim's pages since, and a give-back planned on the
 * records as they were would take as many again, from the [Pool]'s or an admin's. 0 with the
 * lock's fd in *ret_fd (-1 where the caller holds it), or -1 with *ret the run's exit status. */
static int lock_host(struct job *j, const struct topology *t, const struct config *c, const struct config *files,
                     struct claim_records *recs, struct config *with_gone, const struct kernel_features *caps,
                     struct pool_counts **counts, struct plan *p, struct reserve_run **reserves, int *ret_fd,
                     int *ret) {
        _cleanup_(closep) int fd = -1;
        bool waited, gives_back = false;

        *ret = EXIT_FAIL;
        if (j->lock_held) {
                /* the caller's, taken before it read the configuration */
                waited = false;
        } else {
                fd = hostlock_take(j->rootfd, j->task ?: "hpfilld", j->lock_timeout_s, j->stop,
                                   &(struct hostlock_wait) { j->waiting, j->userdata }, &waited);
                if (fd < 0)
                        return -1;
        }
        /* what a fill that died left raised: put back before we read the pools */
        job_recover_journal(j->rootfd, j->host);
        if (recs && !j->lock_held) {
                gives_back = with_gone->n_gone > 0;
                claim_records_done(recs);
                job_gone_done(with_gone);
                if (job_gone(j, t, files, recs, with_gone) < 0)
                        return -1;
                gives_back |= with_gone->n_gone > 0;
        }
        *ret = waited || gives_back || p->n_reserves > 0 || job_counts_changed(j->rootfd, t, *counts)
                       ? plan_checked(j, t, c, caps, counts, p, reserves)
                       : EXIT_OK;
        if (*ret != EXIT_OK)
                return -1;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int job_run(struct job *j, const struct config *c) {
        const struct config *files = c;
        _cleanup_(closep) int lock_fd = -1;
        _cleanup_(claim_records_done) struct claim_records recs = {};
        struct config with_gone = { .n_gone = 0 };
        _cleanup_(freep) struct pool_counts *counts = NULL;
        _cleanup_(freep) struct reserve_run *reserves = NULL;
        _cleanup_(freep) uint64_t *before = NULL;
        struct topology topo = {};
        struct kernel_features caps = {};
        struct plan plan = {};
        struct error e = {};
        uint64_t start;
        int r, ret = EXIT_FAIL;

        j->ran = false;
        j->skips_said = 0;
        j->summary[0] = j->refused[0] = j->advice_cmdline[0] = j->advice_initramfs[0] = j->advice_cma[0] = 0;
        r = topology_read(j->rootfd, &topo, &e);
        if (r < 0) {
                log_error_errno(r, "Cannot read the machine's topology: %s", e.msg);
                goto out;
        }
        if (topo.n_page_sizes == 0) {
                log_error("This kernel offers no huge pages (no /sys/kernel/mm/hugepages; CONFIG_HUGETLBFS off?)");
                goto out;
        }
        if (j->claims && j->ledger && !j->dry_run) {
                if (job_gone(j, &topo, c, &recs, &with_gone) < 0)
                        goto out;
                c = &with_gone;
        }
        kernel_features_read(j->rootfd, j->host, c->cmdline_read ? c->cmdline_ioa : KERNEL_FEATURES_CMDLINE_UNREAD, &caps);
        /* Everything the run needs, before its first write; a dry run ends with the same status. */
        ret = plan_checked(j, &topo, c, &caps, &counts, &plan, &reserves);
        /* said only where it decides: a plan that fits the nodes' own counts needs no word */
        if (ret == EXIT_OK && plan.needs_uncounted)
                log_warning("The nodes' meminfo count %" PRIu64 " MiB of memory, %s/proc/meminfo %" PRIu64
                            " MiB (memory initialised lazily?): the memory budget takes the %" PRIu64
                            " MiB no node counts yet as any node's and holds the plan to the machine's",
                            topology_nodes_mem(&topo) >> 20, shown_root(), topo.machine_mem >> 20,
                            topology_uncounted(&topo) >> 20);
        if (ret != EXIT_OK || j->dry_run)
                goto out;
        if (j->record)
                record_claims(j, &topo, c);
        if (lock_host(j, &topo, c, files, c == &with_gone ? &recs : NULL, &with_gone, &caps, &counts, &plan, &reserves,
                      &lock_fd, &ret) < 0)
                goto out;
        /* the one-offs' ledger as it is now, under the lock: another fill (the daemon's) may have
         * counted in it since it was read, and a copy from before would count its pages again */
        if (j->ledger && j->ledger->name && strcmp(j->ledger->name, LEDGER_ONCE_NAME) == 0) {
                ledger_done(j->ledger);
                ledger_load_once(j->rootfd, j->ledger);
        }
        /* under the lock: what the pools hold now is what this fill starts from */
        if (j->ledger && ledger_read_pools(j->rootfd, &topo, &before) < 0)
                log_warning("Out of memory: ReleaseOnStop= will not give back what this fill adds");
        if (before && recs.n > 0)
                claim_records_before(j->rootfd, &topo, &recs, before);
        start = now_ns();
        ret = run(j, &topo, &plan, reserves, &caps);
        j->ran = ret == EXIT_OK || ret == EXIT_SHORT;
        if (j->record)
                j->record->elapsed_ns = now_ns() - start;
        if (before)
                ledger_count_fill(j->rootfd, j->ledger, &topo, before);
        if (before && recs.n > 0) {
                /* as they are now, under the lock */
                claim_records_reread(j->rootfd, &recs);
                claim_records_count(j->rootfd, &topo, &recs, before, j->ran, j->claim_made);
        }
out:
        report_flush(j);
        if (j->report_error && (ret == EXIT_OK || ret == EXIT_SHORT))
                ret = EXIT_FAIL;
        if (reserves)
                reserve_runs_done(reserves, plan.n_reserves);
        plan_done(&plan);
        topology_done(&topo);
        job_gone_done(&with_gone);
        return ret;
}
