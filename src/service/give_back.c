/* SPDX-License-Identifier: MIT */
/* hpfilld give-back: what hpfilld filled and reserved, given back in one step, never pages in
 * use: the reservations hpfilld made that nothing maps removed, then from each pool the free
 * pages hpfilld's owners hold (the state's), all but the claims': never another's page, never
 * below what others have. The claims stay, with their pages (hpfilld unclaim gives one back).
 * Under the host lock; not while the daemon runs, which would fill again. */
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fill/executor.h"
#include "fill/reserve.h"
#include "kernel/host.h"
#include "service/give_back.h"
#include "service/job.h"
#include "service/privilege.h"
#include "service/session.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/number.h"
#include "util/sanitize.h"
#include "util/shown.h"

struct give_back {
        unsigned lock_timeout_s;
        bool failed;   /* something could not be given back: exit 1 */
        bool kept;     /* something of hpfilld's is in use and stays: exit 3 */
        unsigned done; /* reservations removed and pools given back */
};

static int parse_args(struct give_back *g, int argc, char *argv[]) {
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "config", required_argument, NULL, 'c' },
                { "lock-timeout", required_argument, NULL, 'L' },
                {}
        };
        int c;

        optind = 1;
        opterr = 0;
        while ((c = getopt_long(argc, argv, "hc:", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        printf("Usage: hpfilld give-back [--root DIR] [--lock-timeout SEC]\n"
                               "Give back what hpfilld filled and reserved: every reservation hpfilld made that\n"
                               "no process maps, then the free pages hpfilld added to each pool. The claims\n"
                               "stay, with their pages (hpfilld unclaim NAME gives one back). Pages others\n"
                               "added are never given back. Not while the daemon runs (stop it first).\n\n"
                               "Exit status: 0 all given back, 1 failure or the daemon runs, 2 bad usage,\n"
                               "3 some of it is in use and stays. See hpfilld(8).\n");
                        return 0;
                case 'c':
                        /* what older versions read the claims from; the state holds them now */
                        log_notice("give-back --config: not needed any more (the claims are in the state), ignored");
                        break;
                case 'L':
                        if (parse_uint_range(optarg, 0, 86400, &g->lock_timeout_s) < 0) {
                                log_error("--lock-timeout '%s': expected seconds from 0 to 86400", optarg);
                                return -EINVAL;
                        }
                        break;
                default:
                        log_error("unknown option or missing value '%s'", argv[optind - 1]);
                        return -EINVAL;
                }
        if (optind < argc) {
                log_error("unexpected argument '%s'", argv[optind]);
                return -EINVAL;
        }
        return 1;
}

static void say(const char *line) {
        char shown[PATH_MAX + NAME_MAX + 64];

        if (log_get_max_level() < LOG_INFO)
                return;
        escape_controls(shown, sizeof(shown), line);
        printf("%s\n", shown);
}

/* The reservations hpfilld made (the state's), unless a process has one open or maps it; no
 * other file, whoever put it in MOUNT/hpfilld */
static void give_back_reserves(struct give_back *g, struct session *s) {
        for (size_t i = s->st.s.n_reserves; i-- > 0;) {
                const struct state_reserve *rs = &s->st.s.reserves[i];
                char path[PATH_MAX], line[PATH_MAX + 128];
                struct error e = {};
                int r;

                r = reserve_release_made(s->rootfd, rs->name, rs->page_size, rs->dev, rs->ino, path, sizeof(path), &e);
                if (r == 2) {
                        (void) snprintf(line, sizeof(line), "%s: kept, in use (or cannot be told): %s", rs->name, path);
                        g->kept = true;
                } else if (r == 1) {
                        (void) snprintf(line, sizeof(line), "%s: removed %s", rs->name, path);
                        g->done++;
                } else if (r < 0) {
                        if (r == -EPERM)
                                log_error("Cannot remove reservation '%s': %s", rs->name, e.msg);
                        else
                                log_error_errno(r, "Cannot remove reservation '%s': %m", rs->name);
                        g->failed = true;
                        continue;
                }
                if (r != 2)
                        state_reserve_remove(&s->st.s, i); /* removed, or gone since */
                if (r > 0)
                        say(line);
        }
}

/* Every owner's pages but the claims' still asked for */
static bool not_claimed(const struct state_owner *o, const void *data) {
        (void) data;
        return o->kind != OWNER_CLAIM || o->gone;
}

static void given(const struct session_given *gv, void *userdata) {
        struct give_back *g = userdata;
        char name[32], line[256];
        size_t k;

        page_size_name(gv->page_size, name);
        if (gv->error) {
                log_error_errno(gv->error, "Cannot give back the %s pool of node%u: %m", name, gv->node);
                g->failed = true;
                return;
        }
        k = (size_t) snprintf(line, sizeof(line), "%s pool of node%u: %" PRIu64 " page%s given back (%" PRIu64 " -> %" PRIu64 ")",
                              name, gv->node, gv->given, gv->given == 1 ? "" : "s", gv->before, gv->after);
        if (gv->given < gv->held && k < sizeof(line)) {
                (void) snprintf(line + k, sizeof(line) - k, "; %" PRIu64 " more of hpfilld's are in use or reserved: kept",
                                gv->held - gv->given);
                g->kept = true;
        }
        if (gv->given > 0)
                g->done++;
        say(line);
}

/* The configuration's and the one-off runs' targets are given up with their pages: a pool
 * smaller than them now is no pool short of its target */
static void drop_wants(struct session *s) {
        for (size_t i = 0; i < s->st.s.n_shares; i++) {
                enum owner_kind k = s->st.s.owners[s->st.s.shares[i].owner].kind;

                if (k == OWNER_CONFIG || k == OWNER_ONCE || k == OWNER_BENCH)
                        s->st.s.shares[i].want = 0;
        }
}

static void say_claims(const struct session *s, bool any) {
        char names[512] = "";
        size_t n = 0, len = 0;

        for (size_t o = 0; o < s->st.s.n_owners; o++) {
                const struct state_owner *ow = &s->st.s.owners[o];

                if (ow->kind != OWNER_CLAIM || ow->gone)
                        continue;
                n++;
                if (len + strlen(ow->name) + 3 < sizeof(names))
                        len += (size_t) snprintf(names + len, sizeof(names) - len, "%s%s", len ? ", " : "",
                                                 ow->name + strlen(STATE_CLAIM_PREFIX));
        }
        if (n > 0) {
                char line[sizeof(names) + 128];

                (void) snprintf(line, sizeof(line), "%zu claim%s kept (hpfilld unclaim NAME gives one back): %s", n,
                                n == 1 ? "" : "s", names);
                say(line);
        }
        if (!any)
                log_info("Nothing to give back: no reservation, and no pages hpfilld added are left%s",
                         n ? " beyond the claims" : "");
}

static int give_back_run(struct give_back *g, int rootfd) {
        struct session s;
        struct stop stop;
        int ret;

        stop_init(&stop);
        if (session_open(&s, rootfd, root_is_host(rootfd),
                         &(struct state_open_options) { "hpfilld give-back", g->lock_timeout_s, &stop, NULL }) < 0) {
                stop_done(&stop);
                return EXIT_FAIL;
        }
        /* the daemon counts on its pages and fills again on the next uevent or reload */
        if (state_daemon_runs(&s.st)) {
                log_error("The hpfilld daemon runs (pid %d): stop it first (systemctl stop hpfilld.service; with "
                          "ReleaseOnStop=yes it gives back what it added), then run hpfilld give-back",
                          (int) s.st.s.daemon_pid);
                ret = EXIT_FAIL;
        } else {
                session_give_back_gone(&s);
                give_back_reserves(g, &s);
                if (session_give_back(&s, not_claimed, NULL, given, g) < 0)
                        g->failed = true;
                drop_wants(&s);
                say_claims(&s, g->done > 0 || g->failed || g->kept);
                ret = g->failed ? EXIT_FAIL : g->kept ? EXIT_SHORT : EXIT_OK;
        }
        if (session_close(&s) < 0 && ret == EXIT_OK)
                ret = EXIT_FAIL;
        stop_done(&stop);
        return ret;
}

int give_back_main(int argc, char *argv[], const struct common_options *common) {
        _cleanup_(closep) int rootfd = -1;
        struct give_back g = { .lock_timeout_s = HOSTLOCK_TIMEOUT_S };
        int r;

        r = parse_args(&g, argc, argv);
        if (r < 0)
                log_error("Try 'hpfilld give-back --help' for more information.");
        if (r <= 0)
                return r < 0 ? EXIT_USAGE : EXIT_OK;
        if (executor_block_signals() < 0)
                return EXIT_FAIL;
        rootfd = common_root_open(common);
        if (rootfd < 0)
                return EXIT_USAGE;
        return give_back_run(&g, rootfd);
}
