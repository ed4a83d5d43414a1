/* SPDX-License-Identifier: MIT */
/* The command line without a command: the configuration read and checked, what the run makes
 * while it holds its capabilities (mounts), then the daemon or one fill (--once, --dry-run,
 * --check-config). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fill/reserve.h"
#include "kernel/host.h"
#include "kernel/mount_create.h"
#include "kernel/mounts.h"
#include "service/daemon.h"
#include "service/fill_cmd.h"
#include "fill/executor.h"
#include "settings/settings.h"
#include "service/job.h"
#include "service/metrics_out.h"
#include "service/notify.h"
#include "service/privilege.h"
#include "service/progress.h"
#include "service/report_doc.h"
#include "service/session.h"
#include "state/store.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/shown.h"

/* Whether the state holds claims (hpfilld claim), which a fill of the configuration refills */
static bool state_has_claims(int rootfd) {
        struct state s = {};
        struct error e = {};
        bool any = false;

        if (state_store_read(rootfd, &s, &e) >= 0)
                for (size_t i = 0; i < s.n_owners && !any; i++)
                        any = s.owners[i].kind == OWNER_CLAIM && !s.owners[i].gone;
        state_done(&s);
        return any;
}

/* The first line of a report whose plan is the command line's */
#define PLAN_FROM_CLI \
        "Plan from the command line (--pool, --reserve): the configuration's pools, reservations and claims are not used"

/* --once: under the host lock, the configuration read again (as it is now, not as it was before
 * the lock: a claim or another fill may have come and gone meanwhile), then the fill. */
static int fill_once(const struct job_params *in, const struct job_sink *to, struct job_result *out,
                     const struct fill_options *o) {
        struct config now = CONFIG_INIT;
        struct session s;
        struct error e = {};
        int ret;

        if (session_open(&s, in->rootfd, in->host,
                         &(struct state_open_options) { "hpfilld --once", o->lock_timeout_s, in->stop, NULL }) < 0)
                return EXIT_FAIL;
        if (fill_options_load(in->rootfd, &now, (void *) o, &e) < 0) {
                log_lines(LOG_ERR, e.msg);
                ret = EXIT_USAGE;
        } else
                ret = job_fill(in, to, out, &s, &now);
        if (ret != EXIT_USAGE)
                session_give_back_gone(&s);
        config_done(&now);
        if (session_close(&s) < 0 && (ret == EXIT_OK || ret == EXIT_SHORT))
                ret = EXIT_FAIL;
        return ret;
}

/* --once, --dry-run and --check-config: one job, then the record of it. */
static int run_once(const struct fill_options *o, int rootfd, bool host, const struct config *config, struct stop *stop) {
        bool dry_run = o->dry_run || o->check_config;
        struct job_params in = {
                .rootfd = rootfd,
                .host = host,
                .strict = o->check_config,
                .stop = stop,
                .kind = config->plan_from_cli ? STATE_FILL_ONCE : STATE_FILL_CONFIG,
                .create_mounts = config->create_mounts,
                /* the option, or a file's CreateMounts= */
                .create_mounts_by = o->cli.set & 1u << setting_index(setting_by_key("CreateMounts")) ? "--create-mounts"
                                                                                                  : "CreateMounts=yes",
        };
        struct job_sink to = { .text = o->check_config ? NULL : stdout };
        struct job_result out = {};
        struct tty_progress progress = { .f = stderr, .start_ns = now_ns() };
        _cleanup_(fclosep) FILE *members = NULL;
        _cleanup_(freep) char *json = NULL;
        size_t json_len = 0;
        struct json_writer w;
        int ret, r;

        if (o->json) {
                /* the members the job writes, wrapped in the document once its status is known */
                members = open_memstream(&json, &json_len);
                if (!members)
                        return log_error_errno(-errno, "Out of memory"), EXIT_FAIL;
                json_writer_init_members(&w, members);
                to.json = &w;
                to.text = NULL;
        }

        if (config->plan_from_cli && !to.json) {
                if (to.text && log_get_max_level() >= LOG_INFO)
                        fprintf(to.text, "%s\n", PLAN_FROM_CLI);
                else
                        log_info("%s", PLAN_FROM_CLI);
        }
        /* a person at a terminal sees the pools grow; logs, the journal and an initramfs do not */
        if (!dry_run && !log_to_kmsg() && log_get_max_level() >= LOG_INFO && isatty(STDERR_FILENO)) {
                to.progress = tty_progress_update;
                to.progress_done = tty_progress_clear;
                to.userdata = &progress;
        }
        ret = dry_run ? job_dry_run(&in, &to, &out, config) : fill_once(&in, &to, &out, o);
        if (to.json) {
                r = json_writer_finish(&w);
                if (fclose(members) != 0 && r >= 0)
                        r = -ENOMEM;
                members = NULL;
                if (r >= 0)
                        r = report_document(stdout, o->dry_run, config->plan_from_cli, ret, json, &out);
                if (r < 0) {
                        log_error_errno(r, "Cannot write the %s to standard output: %m", o->dry_run ? "plan" : "report");
                        if (ret == EXIT_OK || ret == EXIT_SHORT)
                                ret = EXIT_FAIL;
                }
        }
        if (o->check_config) {
                if (ret == EXIT_OK)
                        log_info("The configuration is good: %zu pool%s, %zu reservation%s planned on this machine",
                                 config->n_pools, plural(config->n_pools), config->n_reserves,
                                 plural(config->n_reserves));
                fill_record_done(&out.record);
                return ret;
        }
        /* in an initramfs the report on the console scrolls away: the kernel log keeps it */
        if (log_to_kmsg() && *out.summary)
                log_info("%s", out.summary);
        if (!o->dry_run && ret != EXIT_USAGE)
                metrics_after_fill(rootfd, config->metrics_file);
        fill_record_done(&out.record);
        return ret;
}

/* Whether the plan of @c is refused (exit 2), as a dry run that counts on the mounts
 * --create-mounts makes tells it: asked once, before the run changes anything while the
 * capabilities are held (a mount made, another user's MOUNT/hpfilld moved aside), which a plan
 * refused then would leave behind (bad input changes nothing; the capabilities to undo them are
 * dropped by then). Quiet: a plan that passes is the run's to report, its skips and warnings
 * said there, once; one refused is planned again to say why, its errors alone (a host that
 * changed meanwhile and lets it pass goes on). */
static bool plan_refused(int rootfd, bool host, const struct config *c, struct stop *stop) {
        struct job_params in = { .rootfd = rootfd, .host = host, .stop = stop,
                                 .kind = c->plan_from_cli ? STATE_FILL_ONCE : STATE_FILL_CONFIG,
                                 .create_mounts = c->create_mounts && host, .mount_table_only = true };
        int level = log_get_max_level(), ret;

        log_set_max_level(-1); /* below LOG_EMERG: nothing */
        ret = job_dry_run(&in, NULL, NULL, c);
        if (ret == EXIT_USAGE) {
                log_set_max_level(MIN(level, LOG_ERR));
                ret = job_dry_run(&in, NULL, NULL, c);
        }
        log_set_max_level(level);
        return ret == EXIT_USAGE;
}

/* CreateMounts=, --create-mounts: a hugetlbfs mount for each page size of a reservation that
 * has none and names no Mount=, made while the capabilities are held (at the start: a reload
 * has none left to mount with), once the plan is known not to be refused (plan_refused()). It
 * stays mounted, as hugeadm --create-mounts leaves its own. */
static void create_mounts(int rootfd, bool host, const struct config *c) {
        for (size_t i = 0; i < c->n_reserves; i++) {
                const struct reserve_spec *rs = &c->reserves[i];
                char dir[PATH_MAX], name[32];
                struct error e = {};

                /* the mount table itself: libhugetlbfs, loaded now, would keep what it saw */
                if (*rs->mount || hugetlbfs_mount_for(rootfd, false, rs->page_size, dir, sizeof(dir)) != -ENOENT)
                        continue;
                page_size_name(rs->page_size, name);
                if (!host) {
                        log_warning("%s: no hugetlbfs mount for %s pages: CreateMounts= and --create-mounts mount on the "
                                    "host's / only, not under --root", rs->origin, name);
                        continue;
                }
                if (hugetlbfs_mount_create(rootfd, rs->page_size, dir, sizeof(dir), &e) < 0)
                        log_error("%s: CreateMounts=: %s", rs->origin, e.msg);
                else
                        log_notice("Mounted hugetlbfs for %s pages at %s (CreateMounts=, --create-mounts); it stays "
                                   "mounted (umount %s removes it)", name, dir, dir);
        }
}

/* Everything after the command line: returns the exit status. */
int fill_cmd_run(const struct fill_options *o, struct stop *stop) {
        _cleanup_(closep) int rootfd = -1;
        struct config config = CONFIG_INIT;
        struct error e = {};
        char sources[1024];
        bool host;
        int r, ret = EXIT_FAIL;

        /* Before any thread exists, so every thread inherits the mask; the executor takes them. */
        r = executor_block_signals();
        if (r < 0)
                return log_error_errno(r, "Cannot block signals: %m"), EXIT_FAIL;
        rootfd = open(o->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (rootfd < 0)
                return log_error_errno(errno, "--root '%s': %m", o->root), EXIT_USAGE;
        host = root_is_host(rootfd);
        if (o->n_release > 0) {
                r = privilege_drop_for(COMMAND_RELEASE, NULL);
                if (r < 0)
                        return log_error_errno(r, "Cannot drop capabilities: %m"), EXIT_FAIL;
                return release_cmd_run(rootfd, host, o, stop);
        }
        if (fill_options_load(rootfd, &config, (void *) o, &e) < 0) {
                log_lines(LOG_ERR, e.msg);
                /* under systemd, the unit's status says why it did not start */
                if (!o->once && !o->dry_run && !o->check_config)
                        (void) notifyf("STATUS=Bad configuration: %.*s\nERRNO=%d", (int) strcspn(e.msg, "\n"), e.msg,
                                       EINVAL);
                ret = EXIT_USAGE;
                goto out;
        }
        if (config.n_pools == 0 && config.n_reserves == 0 && config.n_claims == 0 && (o->once || o->dry_run || o->check_config) &&
            (config.plan_from_cli || !state_has_claims(rootfd))) {
                log_info("No pools configured in %s, nothing to do", fill_options_sources(o, sources, sizeof(sources)));
                ret = EXIT_OK;
                if (o->json && report_document(stdout, o->dry_run, config.plan_from_cli, ret, NULL, NULL) < 0)
                        ret = EXIT_FAIL;
                goto out;
        }
        /* what the run changes while the capabilities are held, none of it for a plan refused */
        if (!o->dry_run && !o->check_config && config.n_reserves > 0) {
                /* under --root it mounts nothing, only says so: first, as the plan's refusal follows from it */
                if (config.create_mounts && !host)
                        create_mounts(rootfd, host, &config);
                if (plan_refused(rootfd, host, &config, stop)) {
                        if (!o->once)
                                (void) notifyf("STATUS=Plan refused, nothing changed: see the log\nERRNO=%d", EINVAL);
                        ret = EXIT_USAGE;
                        goto out;
                }
                if (config.create_mounts && host)
                        create_mounts(rootfd, host, &config);
                /* MOUNT/hpfilld claimed: another user's moved aside */
                for (size_t i = 0; i < config.n_reserves; i++) {
                        struct error moved = {};

                        if (reserve_claim_dir(rootfd, host, config.reserves[i].mount, config.reserves[i].page_size,
                                              &moved) > 0)
                                log_warning("%s", moved.msg);
                }
        }
        r = privilege_drop_for(o->dry_run || o->check_config ? COMMAND_CHECK : o->once ? COMMAND_FILL : COMMAND_DAEMON,
                               &config);
        if (r < 0) {
                log_error_errno(r, "Cannot drop capabilities: %m");
                goto out;
        }
        if (!o->once && !o->dry_run && !o->check_config) {
                if (config.plan_from_cli)
                        log_notice("%s", PLAN_FROM_CLI);
                if (config.n_pools == 0 && config.n_reserves == 0 && config.n_claims == 0)
                        log_notice("No pools configured in %s: idle until reloaded",
                                   fill_options_sources(o, sources, sizeof(sources)));
                ret = daemon_run(rootfd, host, &config, fill_options_load, (void *) o, o->lock_timeout_s);
        } else
                ret = run_once(o, rootfd, host, &config, stop);
out:
        config_done(&config);
        return ret;
}
