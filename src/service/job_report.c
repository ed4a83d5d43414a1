/* SPDX-License-Identifier: MIT */
/* What a fill reports (job_report.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "plan/advise.h"
#include "util/clock.h"
#include "fill/fill.h"
#include "fill/fill_auto.h"
#include "service/job_run.h"
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
#include "state/lock.h"
#include "state/rundir.h"
#include "kernel/topology.h"
#include "util/shown.h"
#include "service/job_report.h"

/* The report's pool lines, joined: the daemon's last STATUS= and `hpfilld status`. */
void job_summary_add(struct job *j, const char *line) {
        size_t n = strlen(j->out->summary);

        if (n && n + 2 < sizeof(j->out->summary)) {
                memcpy(j->out->summary + n, "; ", 3);
                n += 2;
        }
        /* STATUS= and the record take it: one line, whatever a path in it holds */
        escape_controls(j->out->summary + n, sizeof(j->out->summary) - n, line);
}


void job_tick_progress(void *userdata) {
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
        if (p->to->progress)
                p->to->progress(&st, p->to->userdata);
}

void job_record_claims(struct job *j, const struct topology *t, const struct config *c) {
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
                                r = fill_record_add_claim(&j->out->record, c->claims[i].name, c->claims[i].page_size,
                                                          t->nodes[k].id, pages[k], c->claims[i].file);
        }
        if (r == -ENOMEM)
                log_warning("Out of memory: the claims are not in the record of this fill");
}

/* For the metrics: what the plan asked of each pool and how it went. */
static void record_pool(struct job *j, const struct plan_pool *pp, const struct pool_run *run, bool met) {
        int r = 0;

        r = fill_record_add_size(&j->out->record, pp->page_size, run->elapsed_ns, run->sysfs.rounds, met);
        for (size_t k = 0; r >= 0 && k < pp->n_nodes; k++)
                r = fill_record_add_target(&j->out->record, pp->page_size, pp->nodes[k].node, pp->nodes[k].target);
        if (r < 0)
                log_warning_errno(r, "Cannot record the fill for the metrics: %m, ignoring");
}

static void record_reserve(struct job *j, const struct reserve_run *rr) {
        const struct plan_pool *pp = &rr->plan->pool;
        bool ready = !rr->error && (rr->kept || rr->faulted >= pp->target_total);
        char nodes[128] = "";
        int r;

        /* the nodes its pages were asked on, for `hpfilld status` */
        for (size_t k = 0, n = 0; k < pp->n_nodes && n + 12 < sizeof(nodes); k++)
                if (pp->nodes[k].target > 0)
                        n += (size_t) snprintf(nodes + n, sizeof(nodes) - n, "%s%u", n ? "," : "", pp->nodes[k].node);
        r = fill_record_add_reserve(&j->out->record, rr->plan->name, pp->page_size, ready ? pp->target_total : 0,
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

void job_report_reserves(struct job *j, const struct reserve_run *runs, size_t n, bool *failed, bool *short_) {
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
                job_summary_add(j, line);
                if (j->to->json)
                        reserve_json(j->to->json, r);
                else if (j->to->text && log_get_max_level() >= LOG_INFO) {
                        char shown[sizeof(line)];

                        escape_controls(shown, sizeof(shown), line);
                        fprintf(j->to->text, "%s\n", shown);
                }
                record_reserve(j, r);
                *failed |= r->error != 0;
                *short_ |= !r->error && !r->interrupted && r->faulted < pp->target_total;
        }
}

/* For the pools that came back short: what gets them at the next boot, said once in the
 * report; the kernel command line and the initramfs form are kept for `hpfilld status` too
 * (the CMA area for gigantic pages is said in the report only). */
void job_advise(struct job *j, const struct plan_pool *const *shorts, size_t n, unsigned alloc_threads) {
        char cma[256]; /* for short gigantic pages, the hugetlb_cma= that keeps them allocatable */

        advise_boot(j->out->advice_cmdline, sizeof(j->out->advice_cmdline), j->out->advice_initramfs,
                    sizeof(j->out->advice_initramfs), shorts, n, alloc_threads);
        advise_cma(cma, sizeof(cma), shorts, n);
        if (n == 0)
                return;
        if (j->to->text && log_get_max_level() >= LOG_INFO) {
                fprintf(j->to->text,
                        "To have these pages at the next boot, add to the kernel command line:\n  %s\n"
                        "or let hpfilld fill them from the initramfs:\n  %s\n",
                        j->out->advice_cmdline, j->out->advice_initramfs);
                if (j->out->advice_cmdline[0] && cma[0])
                        fprintf(j->to->text,
                                "or keep a CMA area for the gigantic pages, which hpfilld can then fill at any time\n"
                                "(movable allocations use it until then; see \"Gigantic pages\" in hpfilld(8)):\n  %s\n",
                                cma);
        } else
                log_notice("Next boot: %s (or from the initramfs: %s%s%s)", j->out->advice_cmdline,
                           j->out->advice_initramfs, cma[0] ? "; or a CMA area for gigantic pages: " : "", cma);
}

/* SIGPIPE is ignored (stop_block_signals()): a closed stdout fails the report and makes the
 * run's exit status 1, and nothing else; the fill goes on and puts back what it changed. */
void job_report_flush(struct job *j) {
        if (!j->to->text || j->report_error)
                return;
        errno = 0;
        if (fflush(j->to->text) != 0 || ferror(j->to->text))
                j->report_error = log_error_errno(errno ?: EIO, "Cannot write the report to standard output: %m");
}

/* Where a pool was measured: the kernel it was measured on (HVO as read at the last measurement),
 * in the report and the summary; a warning where fault was asked for and measured far slower. */
void job_report_measured(struct job *j, const struct plan *p, const struct pool_run *runs,
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
        job_summary_add(j, kernel);
        if (j->to->text && log_get_max_level() >= LOG_INFO)
                fprintf(j->to->text, "%s\n", kernel);
}


/* One pool's outcome as the kernel tells it now, not as we think we did: the report's lines,
 * the record, the tally. @after and @surplus_after hold a value per node. */
void job_report_outcome(struct job *j, const struct topology *t, const struct pool_run *run, unsigned min_percent,
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

                if (pool_read_counts(j->in->rootfd, t, pp->nodes[k].node, pp->page_size, &pc) >= 0) {
                        after[k] = pool_counts_persistent(&pc);
                        surplus_after[k] = pc.surplus;
                } else {
                        after[k] = pool_run_node_after(run, k);
                        surplus_after[k] = pp->nodes[k].surplus;
                }
        }
        report_pool_line(line, sizeof(line), pp, &o);
        job_summary_add(j, line);
        if (j->to->json)
                report_pool_json(j->to->json, pp, &o, plan_pool_met(pp, plan_pool_obtained(pp, after), min_percent));
        else if (j->to->text && log_get_max_level() >= LOG_INFO)
                report_pool(j->to->text, pp, &o);
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
