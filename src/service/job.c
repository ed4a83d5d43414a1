/* SPDX-License-Identifier: MIT */
/* One fill, in its order: under the host lock (session.h) the plan with whose pages it moves
 * (job_plan.h), the checks (job_checks.c), the changes recorded in the state, the fill, the
 * state settled with the counts read back, the report (job_report.c). A dry run plans and
 * checks without the lock. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fill/fill.h"
#include "fill/fill_auto.h"
#include "fill/pin.h"
#include "fill/reserve.h"
#include "kernel/kernel_features.h"
#include "kernel/pool.h"
#include "plan/plan.h"
#include "plan/report.h"
#include "plan/report_json.h"
#include "service/caps.h"
#include "service/job_checks.h"
#include "service/job_plan.h"
#include "service/job_report.h"
#include "service/metrics_out.h"
#include "state/change.h"
#include "state/rundir.h"
#include "state/text.h"
#include "util/clock.h"
#include "util/json.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/shown.h"

static int run(struct job *j, struct session *s, const struct plan *p, struct reserve_run *reserves,
               const struct kernel_features *caps) {
        _cleanup_(freep) struct pool_run *runs = NULL;
        _cleanup_(freep) uint64_t *after = NULL, *surplus_after = NULL;
        _cleanup_(freep) const struct plan_pool **shorts = NULL;
        struct topology *t = &s->t;
        struct pool_writer writer = state_change_writer(&s->st);
        struct progress progress = {};
        struct fill_shared shared = {
                .rootfd = j->in->rootfd,
                .t = t,
                .writer = &writer,
                .pin = pin_is_useful(t),
                .global_writes = j->in->host && t->numa && topology_memory_nodes(t) == 1,
                .stop = j->in->stop,
                .step_bytes = SYSFS_STEP_BYTES,
                .hvo = &caps->hvo, /* read a moment ago, before the plan */
                .drop_caches = p->drop_caches,
                /* progress to report: the daemon's STATUS=, debug lines */
                .tick = j->to->progress || log_get_max_level() >= LOG_DEBUG ? job_tick_progress : NULL,
                .tick_ms = JOB_TICK_MS,
                .tick_data = &progress,
        };
        struct tally tally = {};
        int r;

        runs = calloc(p->n_pools + 1, sizeof(*runs));
        shorts = calloc(p->n_pools + 1, sizeof(*shorts));
        after = calloc(t->n_nodes + 1, sizeof(*after));
        surplus_after = calloc(t->n_nodes + 1, sizeof(*surplus_after));
        if (!runs || !after || !surplus_after || !shorts)
                return log_error_errno(-ENOMEM, "Out of memory");
        tally.shorts = shorts;
        progress = (struct progress) { .to = j->to, .runs = runs, .n = p->n_pools };
        for (size_t i = 0; i < ELEMENTSOF(progress.logged); i++)
                progress.logged[i] = UINT64_MAX; /* the first tick of a pool says where it is */

        for (size_t i = 0; i < p->n_pools; i++) {
                char name[32];
                log_debug("%s pool: %s, %s", page_size_name(p->pools[i].page_size, name),
                          fill_mode_to_string(p->pools[i].method), p->pools[i].method_reason);
        }
        r = fill_execute_plan(&shared, p, runs);
        if (j->to->progress_done)
                j->to->progress_done(j->to->userdata);
        if (r < 0)
                log_error_errno(r, "Cannot run the fill: %m");

        if (j->to->json) {
                json_key(j->to->json, "pools");
                json_begin_array(j->to->json);
        }
        for (size_t i = 0; i < p->n_pools; i++)
                job_report_outcome(j, t, &runs[i], p->min_percent, after, surplus_after, &tally);
        if (j->to->json) {
                json_end_array(j->to->json);
                report_kernel_json(j->to->json, caps);
                json_key(j->to->json, "reservations");
                json_begin_array(j->to->json);
        }
        job_report_measured(j, p, runs, caps);
        job_advise(j, shorts, tally.n_shorts, tally.n_shorts ? kernel_boot_alloc_threads(caps) : 0);
        /* a fill that could not run (out of memory for it, no threads) makes none either */
        if (p->n_reserves > 0 && r < 0) {
                log_error("%zu reservation%s not made: the fill could not run", p->n_reserves, plural(p->n_reserves));
                tally.failed = true;
        } else if (p->n_reserves > 0 && !stop_requested(j->in->stop)) {
                /* its errors are the reservations' own, reported with them */
                (void) caps_effective_set(CAPS_RESERVE, true);
                (void) reserve_execute(&shared, p, reserves);
                (void) caps_effective_set(CAPS_RESERVE, false);
                if (j->to->progress_done)
                        j->to->progress_done(j->to->userdata);
                job_report_reserves(j, reserves, p->n_reserves, &tally.failed, &tally.short_);
        }
        if (j->to->json)
                json_end_array(j->to->json);
        tally.interrupted |= stop_requested(j->in->stop);
        job_report_flush(j);
        if (tally.interrupted)
                log_error("Interrupted by signal %d (%s); pages already added stay in the pools",
                          atomic_load(&j->in->stop->signo), strsignal(atomic_load(&j->in->stop->signo)));
        fill_runs_done(runs, p->n_pools);
        return r < 0 || tally.failed || tally.interrupted ? EXIT_FAIL : tally.short_ ? EXIT_SHORT : EXIT_OK;
}

/* One run of a job, its result's lines cleared (its record is added to as it is) */
static struct job job_start(const struct job_params *in, const struct job_sink *to, struct job_result *out,
                            bool dry_run) {
        static const struct job_sink none = {};

        out->summary[0] = out->refused[0] = out->advice_cmdline[0] = out->advice_initramfs[0] = 0;
        return (struct job) { .in = in, .to = to ? to : &none, .out = out, .dry_run = dry_run };
}

/* A plan refused: said, kept for whoever asked (the daemon's control socket) */
static int refused(struct job *j, int r, const struct error *e) {
        log_error_errno(r, "%s", e->msg);
        (void) snprintf(j->out->refused, sizeof(j->out->refused), "%.*s", (int) sizeof(j->out->refused) - 1, e->msg);
        return r == -ENOMEM ? EXIT_FAIL : EXIT_USAGE;
}

static void show_plan(struct job *j, const struct plan *p, const struct kernel_features *caps) {
        char kernel[160];

        if (j->to->json) {
                report_plan_json(j->to->json, p);
                report_kernel_json(j->to->json, caps);
        } else if (j->to->text && log_get_max_level() >= LOG_INFO) {
                report_plan(j->to->text, p);
                kernel_features_describe(kernel, sizeof(kernel), caps);
                fprintf(j->to->text, "Kernel: %s\n", kernel);
        }
}

/* Said only where it decides: a plan that fits the nodes' own counts needs no word */
static void say_uncounted(const struct topology *t, const struct plan *p) {
        if (p->needs_uncounted)
                log_warning("The nodes' meminfo count %" PRIu64 " MiB of memory, %s/proc/meminfo %" PRIu64
                            " MiB (memory initialised lazily?): the memory budget takes the %" PRIu64
                            " MiB no node counts yet as any node's and holds the plan to the machine's",
                            topology_nodes_mem(t) >> 20, shown_root(), t->machine_mem >> 20, topology_uncounted(t) >> 20);
}

/* Pool @p of @s as @counts has it now; where the machine has it no longer, as last seen */
static uint64_t dry_now(const struct state *s, size_t p, const struct topology *t, const struct pool_counts *counts) {
        int n = topology_node_index(t, s->pools[p].node);

        for (size_t si = 0; n >= 0 && si < t->n_page_sizes; si++)
                if (t->page_sizes[si] == s->pools[p].page_size)
                        return pool_counts_persistent(&counts[si * t->n_nodes + (size_t) n]);
        return s->pools[p].last;
}

/* The state as a fill would find it, for a dry run: read without the lock, as a fill's open
 * settles it (one of another boot none, the intents of a command that died settled, each pool
 * seen as it is now; nothing written), the run's owner in it */
static int dry_state(const struct job_params *in, const struct topology *t, const struct pool_counts *counts,
                     struct state_store *ret) {
        struct error e = {};

        *ret = (struct state_store) { .rootfd = in->rootfd, .t = t, .dirfd = -1, .lock_fd = -1 };
        if (state_store_read(in->rootfd, &ret->s, &e) < 0)
                log_warning("Cannot read %s; planned as if hpfilld had added no page", e.msg);
        if (!state_of_this_boot(in->rootfd, &ret->s)) {
                state_done(&ret->s);
                ret->s = (struct state) {};
        }
        while (ret->s.n_intents > 0)
                (void) state_intent_settle(&ret->s, 0, dry_now(&ret->s, ret->s.intents[0].pool, t, counts));
        for (size_t p = 0; p < ret->s.n_pools; p++)
                (void) state_see(&ret->s, p, dry_now(&ret->s, p, t, counts));
        return state_owner_get(&ret->s, in->kind == STATE_FILL_ONCE ? "once" : "config");
}

int job_dry_run(const struct job_params *in, const struct job_sink *to, struct job_result *out,
                const struct config *c) {
        _cleanup_(freep) struct pool_counts *counts = NULL;
        _cleanup_(freep) struct reserve_run *reserves = NULL;
        struct config with_claims = *c;
        struct topology t = {};
        struct kernel_features caps = {};
        struct state_store st = { .dirfd = -1, .lock_fd = -1 };
        struct job_plan jp = {};
        struct error e = {};
        struct job_result unwanted = {};
        struct job job = job_start(in, to, out ? out : &unwanted, true), *j = &job;
        int owner, r, ret = EXIT_FAIL;

        r = topology_read(in->rootfd, &t, &e);
        if (r < 0) {
                log_error_errno(r, "Cannot read the machine's topology: %s", e.msg);
                return EXIT_FAIL;
        }
        if (job_read_counts(in->rootfd, &t, &counts) < 0)
                goto out;
        /* the claims there are now and what the run's owner holds, as a fill would plan them */
        owner = dry_state(in, &t, counts, &st);
        if (owner < 0 || (in->kind == STATE_FILL_CONFIG && job_plan_config(c, &st.s, &t, NULL, &with_claims) < 0)) {
                log_error_errno(-ENOMEM, "Out of memory");
                goto out;
        }
        kernel_features_read(in->rootfd, in->host, c->cmdline_read ? c->cmdline_ioa : KERNEL_FEATURES_CMDLINE_UNREAD, &caps);
        r = job_plan_build(&st, counts, &with_claims, &caps, in->kind, (size_t) owner, &jp, &e);
        if (r < 0) {
                ret = refused(j, r, &e);
                goto out;
        }
        reserves = jp.plan.n_reserves > 0 ? calloc(jp.plan.n_reserves, sizeof(*reserves)) : NULL;
        if (jp.plan.n_reserves > 0 && !reserves) {
                log_error_errno(-ENOMEM, "Out of memory");
                goto out;
        }
        show_plan(j, &jp.plan, &caps);
        ret = job_check(j, &t, counts, &jp.plan, reserves);
        if (ret == EXIT_OK)
                say_uncounted(&t, &jp.plan);
        if (reserves)
                reserve_runs_done(reserves, jp.plan.n_reserves);
out:
        job_report_flush(j);
        if (j->report_error && ret == EXIT_OK)
                ret = EXIT_FAIL;
        if (with_claims.claims != c->claims)
                job_plan_config_done(&with_claims, c);
        job_plan_done(&jp);
        state_done(&st.s);
        topology_done(&t);
        return ret;
}

/* The owner whose pages the fill adds */
static int owner_of(struct job *j, struct session *s) {
        char name[STATE_OWNER_MAX];

        if (j->in->kind == STATE_FILL_CLAIM)
                return state_owner_find(&s->st.s, state_claim_owner(name, j->in->claim));
        return state_owner_get(&s->st.s, j->in->kind == STATE_FILL_ONCE ? "once" : "config");
}

/* The reservations the fill makes, in the state before: give-back removes those, and no other
 * file; made (or kept), their file's identity after; not made, dropped */
static int record_reserves(struct session *s, const struct plan *p, const struct reserve_run *runs, bool after) {
        for (size_t i = 0; i < p->n_reserves; i++) {
                const struct reserve_run *rr = &runs[i];
                struct state_reserve rec = { .page_size = p->reserves[i].pool.page_size,
                                             .pages = p->reserves[i].pool.target_total };
                struct stat st;
                char file[NAME_MAX + 16];
                int k;

                memcpy(rec.name, p->reserves[i].name, sizeof(rec.name));
                k = state_reserve_find(&s->st.s, rec.name, rec.page_size);
                if (rr->error && !after)
                        continue; /* skipped: not made */
                (void) snprintf(file, sizeof(file), "hpfilld/%s", rec.name);
                if (after && (rr->error || (!rr->kept && rr->faulted < rec.pages) || rr->mountfd < 0 ||
                              fstatat(rr->mountfd, file, &st, AT_SYMLINK_NOFOLLOW) < 0)) {
                        if (k >= 0 && !rr->kept)
                                state_reserve_remove(&s->st.s, (size_t) k);
                        continue;
                }
                if (after) {
                        rec.dev = (uint64_t) st.st_dev;
                        rec.ino = (uint64_t) st.st_ino;
                } else if (k >= 0)
                        continue; /* made by an earlier fill: known already */
                if (state_reserve_add(&s->st.s, &rec) < 0)
                        return log_error_errno(-ENOMEM, "Out of memory");
        }
        return 0;
}

/* The plan's changes in the state, the fill, the state settled with the counts read back */
static int fill_owned(struct job *j, struct session *s, const struct job_plan *jp, struct reserve_run *reserves,
                      const struct kernel_features *caps) {
        uint64_t start = now_ns();
        int r, ret;

        r = record_reserves(s, &jp->plan, reserves, false);
        if (r >= 0)
                r = state_change_begin(&s->st, jp->intents, jp->n_intents);
        if (r < 0) {
                log_error_errno(r, "Cannot record the fill in %s/" RUNDIR "/" STATE_FILE " before it: %m; nothing changed",
                                shown_root());
                return EXIT_FAIL;
        }
        ret = run(j, s, &jp->plan, reserves, caps);
        j->out->elapsed_ns = j->out->record.elapsed_ns = now_ns() - start;
        (void) record_reserves(s, &jp->plan, reserves, true);
        r = state_change_settle(&s->st);
        if (r < 0 && ret != EXIT_FAIL)
                ret = EXIT_FAIL; /* said; the next command settles what this one could not write */
        return ret;
}

int job_fill(const struct job_params *in, const struct job_sink *to, struct job_result *out, struct session *s,
             const struct config *c) {
        _cleanup_(freep) struct pool_counts *counts = NULL;
        _cleanup_(freep) struct reserve_run *reserves = NULL;
        struct config with_claims = *c;
        struct kernel_features caps = {};
        struct job_plan jp = {};
        struct error e = {};
        struct job job = job_start(in, to, out, false), *j = &job;
        int owner, r, ret = EXIT_FAIL;

        if (s->t.n_page_sizes == 0) {
                log_error("This kernel offers no huge pages (no /sys/kernel/mm/hugepages; CONFIG_HUGETLBFS off?)");
                return EXIT_FAIL;
        }
        owner = owner_of(j, s);
        if (owner < 0)
                return log_error_errno(owner, "Cannot record whose pages the fill adds: %m"), EXIT_FAIL;
        if (in->kind != STATE_FILL_ONCE &&
            job_plan_config(c, &s->st.s, &s->t, in->kind == STATE_FILL_CLAIM ? in->claim : NULL, &with_claims) < 0)
                return log_error_errno(-ENOMEM, "Out of memory"), EXIT_FAIL;
        kernel_features_read(in->rootfd, in->host, c->cmdline_read ? c->cmdline_ioa : KERNEL_FEATURES_CMDLINE_UNREAD, &caps);
        if (job_read_counts(in->rootfd, &s->t, &counts) < 0)
                goto out;
        r = job_plan_build(&s->st, counts, &with_claims, &caps, in->kind, (size_t) owner, &jp, &e);
        if (r < 0) {
                ret = refused(j, r, &e);
                goto out;
        }
        reserves = jp.plan.n_reserves > 0 ? calloc(jp.plan.n_reserves, sizeof(*reserves)) : NULL;
        if (jp.plan.n_reserves > 0 && !reserves) {
                log_error_errno(-ENOMEM, "Out of memory");
                goto out;
        }
        /* With nothing to move this still reports, so the admin sees each pool is at target. */
        ret = job_check(j, &s->t, counts, &jp.plan, reserves);
        if (ret == EXIT_OK && in->kind == STATE_FILL_CONFIG)
                job_record_claims(j, &s->t, c);
        if (ret == EXIT_OK) {
                say_uncounted(&s->t, &jp.plan);
                ret = fill_owned(j, s, &jp, reserves, &caps);
        }
        if (reserves)
                reserve_runs_done(reserves, jp.plan.n_reserves);
out:
        /* a plan refused changes nothing, not even the wants it set; it is the last fill (exit 2)
         * where that is asked (a daemon's start, --once), not where a fill stands (a reload) */
        s->discard = ret == EXIT_USAGE;
        if (ret == EXIT_USAGE && in->record_refused && state_store_revert(&s->st) >= 0)
                s->discard = false;
        if (!s->discard)
                metrics_record_into(in->rootfd, &s->st.s, &out->record, ret, out->summary, out->advice_cmdline);
        job_report_flush(j);
        if (j->report_error && (ret == EXIT_OK || ret == EXIT_SHORT))
                ret = EXIT_FAIL;
        if (with_claims.claims != c->claims)
                job_plan_config_done(&with_claims, c);
        job_plan_done(&jp);
        return ret;
}
