/* SPDX-License-Identifier: MIT */
/* `hpfilld claim` and `hpfilld unclaim`: a claim's drop-in written or removed, then applied by
 * the daemon, or here under the host lock when none runs. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fill/executor.h"
#include "state/rundir.h"
#include "fill/stop.h"
#include "kernel/host.h"
#include "service/claim.h"
#include "service/claim_record.h"
#include "service/control.h"
#include "state/lock.h"
#include "service/job.h"
#include "service/ledger.h"
#include "service/metrics_out.h"
#include "service/privilege.h"
#include "settings/parse.h"
#include "util/beneath.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/replace.h"
#include "util/shown.h"

struct claim_cmd {
        bool unclaim;
        const char *name;
        char **specs; /* --pool values */
        uint64_t *sizes; /* the page size of each */
        size_t n_specs;
        const char *root;
        unsigned lock_timeout_s;
        char file[NAME_MAX + 1]; /* 50-claim-NAME.conf */
        char shown[PATH_MAX + 64]; /* ROOT/run/hpfilld.conf.d/50-claim-NAME.conf, for messages */
        daemon_load_fn load;
        void *userdata;
        bool removed; /* unclaim: the claim's file is gone (its give-back pending till a fill does it) */
        bool pending; /* unclaim: a give-back of the claim is pending (an unclaim that died after the removal) */
};

#define claim_usage(...) (log_error(__VA_ARGS__), log_error("Try 'hpfilld claim --help' for more information."), EXIT_USAGE)

static void claim_help(void) {
        printf("Usage: hpfilld claim NAME --pool SIZE:AMOUNT [--pool SIZE:AMOUNT...] [OPTIONS...]\n"
               "       hpfilld unclaim NAME [OPTIONS...]\n"
               "Claim pages of the pools for a consumer (a VM, a DPDK application), on top of what\n"
               "the configuration asks, or give them back. Written to /run/hpfilld.conf.d/50-claim-NAME.conf\n"
               "and applied by the running daemon, else here.\n\n"
               "  -h --help                 Show this help\n"
               "  -p --pool SIZE:AMOUNT     Pages claimed, e.g. 2M:1G, 2M:512, 1G:node0=4,node1=2\n"
               "     --lock-timeout SEC     How long to wait for another claim, or fill, of this host (default 60)\n"
               "     --root DIR             Use DIR/sys, DIR/proc, DIR/run and DIR/etc instead of the host's\n"
               "  -v --verbose              More output\n"
               "  -q --quiet                Errors only\n\n"
               "Exit status: 0 the pages are there, 1 failure, 2 bad usage or configuration (nothing\n"
               "changed), 3 short of pages (the claim stays). unclaim of no such claim: 0, with a notice.\n"
               "See hpfilld(8).\n");
}

int claim_file_text(const char *name, char *const *specs, size_t n, char **ret) {
        _cleanup_(freep) char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);

        if (!f)
                return -ENOMEM;
        fprintf(f, "# Written by 'hpfilld claim %s'; 'hpfilld unclaim %s' removes it.\n", name, name);
        for (size_t i = 0; i < n; i++) {
                const char *colon = strchr(specs[i], ':');

                fprintf(f, "\n[Claim]\nName=%s\nPageSize=%.*s\nAmount=%s\n", name, (int) (colon - specs[i]), specs[i],
                        colon + 1);
        }
        if (fclose(f) != 0)
                return -ENOMEM;
        *ret = TAKE_PTR(text);
        return 0;
}

/* The command line; EXIT_OK to go on, -1 when done (--help), or an exit status. */
static int parse_claim_argv(int argc, char *argv[], struct claim_cmd *c) {
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "pool", required_argument, NULL, 'p' },
                { "lock-timeout", required_argument, NULL, 'L' },
                { "root", required_argument, NULL, 'R' },
                { "verbose", no_argument, NULL, 'v' },
                { "quiet", no_argument, NULL, 'q' },
                {},
        };
        const char *cmd = argv[0];
        struct error e = {};
        int ch;

        c->unclaim = strcmp(cmd, "unclaim") == 0;
        opterr = 0;
        optind = 1;
        while ((ch = getopt_long(argc, argv, ":hp:vq", options, NULL)) >= 0)
                switch (ch) {
                case 'h':
                        claim_help();
                        return -1;
                case 'p': {
                        struct pool_spec spec;
                        uint64_t *sizes;
                        char **l;
                        int r;

                        if (c->unclaim)
                                return claim_usage("unclaim takes no --pool: it gives back all of the claim");
                        r = parse_pool_spec(optarg, &spec, &e);
                        if (r < 0)
                                return claim_usage("--pool '%s': %s", optarg, e.msg);
                        r = amount_has_zero(&spec.amount);
                        amount_done(&spec.amount);
                        if (r)
                                return claim_usage("--pool '%s': a claim of zero pages claims nothing (hpfilld unclaim "
                                                   "NAME gives a claim back)", optarg);
                        for (size_t k = 0; k < c->n_specs; k++)
                                if (c->sizes[k] == spec.page_size)
                                        return claim_usage("--pool '%s': a second --pool for the page size of '%s'",
                                                           optarg, c->specs[k]);
                        l = realloc(c->specs, (c->n_specs + 1) * sizeof(*l));
                        if (l)
                                c->specs = l;
                        sizes = l ? realloc(c->sizes, (c->n_specs + 1) * sizeof(*sizes)) : NULL;
                        if (!sizes)
                                return log_error_errno(-ENOMEM, "Out of memory"), EXIT_FAIL;
                        c->sizes = sizes;
                        c->specs[c->n_specs] = optarg;
                        c->sizes[c->n_specs++] = spec.page_size;
                        break;
                }
                case 'L':
                        if (parse_uint_range(optarg, 0, 86400, &c->lock_timeout_s) < 0)
                                return claim_usage("--lock-timeout '%s': expected seconds from 0 to 86400", optarg);
                        break;
                case 'R':
                        c->root = optarg;
                        break;
                case 'v':
                        log_set_max_level(LOG_DEBUG);
                        break;
                case 'q':
                        log_set_max_level(LOG_WARNING);
                        break;
                case ':':
                        return claim_usage("option '%s' needs a value", argv[optind - 1]);
                default:
                        return claim_usage("unknown option '%s'", argv[optind - 1]);
                }
        if (optind + 1 != argc)
                return claim_usage(optind == argc ? "%s: which claim? (hpfilld %s NAME)" : "%s: one claim at a time",
                                   cmd, cmd);
        c->name = argv[optind];
        if (check_name(c->name, "claim", &e) < 0)
                return claim_usage("%s: %s", cmd, e.msg);
        if (!c->unclaim && c->n_specs == 0)
                return claim_usage("claim %s: what pages? (--pool SIZE:AMOUNT)", c->name);
        if (strlen(c->root) >= PATH_MAX)
                return claim_usage("--root '%.64s...': too long", c->root);
        (void) snprintf(c->file, sizeof(c->file), CLAIM_FILE_FORMAT, c->name);
        shown_root_set(c->root);
        (void) snprintf(c->shown, sizeof(c->shown), "%s/" CLAIM_DIR "/%s", shown_root(), c->file);
        return EXIT_OK;
}

/* The claim's directory: made (0755) where missing, never through a link, and root's (or ours)
 * and written by nobody else: a file planted there would be a claim. */
static int open_claim_dir(int rootfd, bool make) {
        _cleanup_(closep) int fd = -1;
        struct stat st;

        if (make) {
                fd = mkdir_beneath(rootfd, "run", 0755, 0, NULL);
                if (fd < 0)
                        return fd;
                closep(&fd);
                fd = mkdir_beneath(rootfd, CLAIM_DIR, 0755, 0, NULL);
        } else
                fd = open_beneath(rootfd, CLAIM_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
        if (fd < 0)
                return fd;
        if (fstat(fd, &st) < 0)
                return -errno;
        if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & 0022))
                return -EPERM;
        return TAKE_FD(fd);
}

/* unclaim of a claim that is not there: exit 0, so that a release hook may call it twice */
static int no_such_claim(const struct claim_cmd *c) {
        log_notice("unclaim %s: no such claim (%s is not there), nothing to give back", c->name, c->shown);
        return EXIT_OK;
}

/* What the claim's file holds now (NULL: none), to put back if the new one is refused. */
static int read_claim_file(int dirfd, const char *file, char **ret) {
        int r = read_full_file_at(dirfd, file, 64 * 1024, ret, NULL);

        if (r == -ENOENT) {
                *ret = NULL;
                return 0;
        }
        return r;
}

/* The claim's file as it is now into *@ret (what was there before freed): -1 to go on, else the
 * exit status (an unclaim of a claim not there: 0, with a notice). */
static int read_current(const struct claim_cmd *c, int dirfd, char **ret) {
        int r;

        free(*ret);
        *ret = NULL;
        r = read_claim_file(dirfd, c->file, ret);
        if (r < 0)
                return log_error_errno(r, "%s %s: cannot read %s: %m", c->unclaim ? "unclaim" : "claim", c->name,
                                       c->shown),
                       EXIT_FAIL;
        return c->unclaim && !*ret && !c->pending ? no_such_claim(c) : -1;
}

/* unclaim: the give-back pending, marked before the claim's file goes: an unclaim that dies
 * after the removal (or a daemon that does before its fill) leaves the mark, and the next fill
 * (unclaim or claim, the daemon's start, give-back) gives back what the claim's record holds. */
static int mark_pending(const struct claim_cmd *c, int rootfd) {
        int r = c->unclaim ? claim_pending_mark(rootfd, c->name) : 0;

        if (r < 0)
                log_error_errno(r, "unclaim %s: cannot mark its give-back pending in %s/" RUNDIR ": %m; nothing changed",
                                c->name, shown_root());
        return r;
}

/* The claim's file as @text says (NULL: removed). */
static int put_claim_file(int dirfd, const char *file, const char *text) {
        if (!text)
                return unlinkat(dirfd, file, 0) < 0 && errno != ENOENT ? -errno : 0;
        /* a temp file, then a rename: a reader (a reload) sees the old file or the new, whole */
        return replace_file_at(dirfd, file, text, strlen(text), false);
}

/* Whether @file (a claim's, as the configuration shows it) is the file `hpfilld claim` writes. */
static bool is_claim_file(const struct claim_cmd *c, const char *file) {
        size_t n = strlen(file), m = strlen(CLAIM_DIR) + 1 + strlen(c->file);
        char tail[NAME_MAX + 64];

        (void) snprintf(tail, sizeof(tail), CLAIM_DIR "/%s", c->file);
        return n >= m && strcmp(file + n - m, tail) == 0 && (n == m || file[n - m - 1] == '/');
}

/* The configuration with the claim's file as it is now. The claim, where the file is there,
 * must be its: another file's claim of that name (in /etc, or a drop-in of the same name
 * there) is not this command's to change. */
static int load_checked(const struct claim_cmd *c, int rootfd, struct config *ret, bool want_claim) {
        struct error e = {};
        bool found = false;

        *ret = (struct config) CONFIG_INIT;
        if (c->load(rootfd, ret, c->userdata, &e) < 0) {
                log_lines(LOG_ERR, e.msg);
                return EXIT_USAGE;
        }
        for (size_t i = 0; i < ret->n_claims; i++) {
                if (strcmp(ret->claims[i].name, c->name) != 0)
                        continue;
                if (!is_claim_file(c, ret->claims[i].file)) {
                        log_error("%s %s: the claim is said in %s, not in %s: change it there", c->unclaim ? "unclaim" : "claim",
                                  c->name, ret->claims[i].file, c->shown);
                        return EXIT_USAGE;
                }
                found = true;
        }
        if (want_claim && !found) {
                log_error("claim %s: %s is not read (masked or overridden by a drop-in of the same name?)", c->name,
                          c->shown);
                return EXIT_USAGE;
        }
        return EXIT_OK;
}

/* The fill of the whole configuration's pools, by this process. The reservations are left to
 * the service and --once (their owners and mounts are theirs). What it adds is counted as a
 * one-off's (hpfilld give-back gives back what is not claimed then). */
static int fill_here(const struct claim_cmd *c, int rootfd, struct config *config, struct stop *stop) {
        _cleanup_(ledger_done) struct ledger ledger = {};
        struct fill_record record = {};
        char task[128];
        struct job j = {
                .rootfd = rootfd,
                .host = root_is_host(rootfd),
                .stop = stop,
                .task = task,
                .lock_held = true,
                .report = stdout,
                .record = &record,
                .ledger = &ledger,
                .claims = true,
                .claim_made = c->unclaim ? NULL : c->name,
        };
        int ret;

        ledger.name = LEDGER_ONCE_NAME; /* read by the job under the host lock */
        (void) snprintf(task, sizeof(task), "hpfilld %s %s", c->unclaim ? "unclaim" : "claim", c->name);
        config_drop_reserves(config);
        ret = job_run(&j, config);
        if (ret == EXIT_SHORT)
                log_error("claim %s: short of pages: %s", c->name, j.summary);
        /* the record `hpfilld status` shows, with the claims, and MetricsFile=, as a fill's */
        if (ret != EXIT_USAGE)
                metrics_after_fill(rootfd, &record, ret, j.summary, j.advice_cmdline, config->metrics_file);
        fill_record_done(&record);
        return ret;
}

/* Under the host lock: the configuration before, the claim's file changed, the configuration
 * after, the pools filled (and what a claim gave back given back). */
static int apply_here(struct claim_cmd *c, int rootfd, int dirfd, const char *text) {
        _cleanup_(closep) int lock_fd = -1;
        _cleanup_(freep) char *old_text = NULL;
        struct config before = CONFIG_INIT, after = CONFIG_INIT;
        struct stop stop;
        bool waited;
        int r, ret;

        stop_init(&stop);
        lock_fd = hostlock_take(rootfd, c->unclaim ? "hpfilld unclaim" : "hpfilld claim", c->lock_timeout_s, &stop, NULL,
                                &waited);
        if (lock_fd < 0) {
                stop_done(&stop);
                return EXIT_FAIL;
        }
        /* the file to put back is the one there now, under the lock: read before it, it may be
         * older than what a claim of the same name that had the lock meanwhile wrote */
        ret = read_current(c, dirfd, &old_text);
        if (ret >= 0)
                goto out;
        ret = load_checked(c, rootfd, &before, false);
        /* unclaim of a claim whose file is bad (edited by hand): the file goes all the same, or
         * no release hook could ever give it back; what it held is not known, nothing is given
         * back, and the configuration without it must be good */
        if (ret == EXIT_USAGE && c->unclaim) {
                log_warning("unclaim %s: the configuration with %s is bad: removing it all the same; what its "
                            "record holds is given back", c->name, c->shown);
                config_done(&before);
                before = (struct config) CONFIG_INIT;
        } else if (ret != EXIT_OK)
                goto out;
        ret = EXIT_FAIL;
        if (mark_pending(c, rootfd) < 0)
                goto out;
        r = put_claim_file(dirfd, c->file, text);
        if (r < 0) {
                log_error_errno(r, "%s %s: cannot %s %s: %m", c->unclaim ? "unclaim" : "claim", c->name,
                                text ? "write" : "remove", c->shown);
                ret = EXIT_FAIL;
                goto out;
        }
        c->removed = !text;
        ret = load_checked(c, rootfd, &after, text != NULL);
        if (ret == EXIT_OK)
                ret = fill_here(c, rootfd, &after, &stop);
        /* refused (the plan, or the files with it): as it was */
        if (ret == EXIT_USAGE && (r = put_claim_file(dirfd, c->file, old_text)) < 0)
                log_error_errno(r, "Cannot put %s back as it was: %m", c->shown);
        else if (ret == EXIT_USAGE && c->unclaim && !c->pending)
                claim_pending_clear(rootfd, c->name);
out:
        config_done(&before);
        config_done(&after);
        stop_done(&stop);
        return ret;
}

/* Through the daemon: it reads the files anew, gives back what a claim gave back, fills, and
 * answers when the pools are there. A refusal puts the file back and has the daemon apply the
 * files as they were. */
static int apply_daemon(struct claim_cmd *c, int rootfd, int dirfd, int sock, const char *text,
                        const char *old_text) {
        struct config check = CONFIG_INIT;
        char answer[CONTROL_ANSWER_MAX];
        bool asked = false;
        int r, status;

        if (mark_pending(c, rootfd) < 0)
                return EXIT_FAIL;
        r = put_claim_file(dirfd, c->file, text);
        if (r < 0) {
                log_error_errno(r, "%s %s: cannot %s %s: %m", c->unclaim ? "unclaim" : "claim", c->name,
                                text ? "write" : "remove", c->shown);
                return EXIT_FAIL;
        }
        c->removed = !text;
        /* the files as the daemon will read them: a bad one never reaches it */
        status = load_checked(c, rootfd, &check, text != NULL);
        config_done(&check);
        if (status == EXIT_OK) {
                char request[128];

                /* a claim made: the daemon refuses it where its configuration leaves it out */
                if (text)
                        (void) snprintf(request, sizeof(request), CONTROL_APPLY " %s", c->name);
                else
                        (void) snprintf(request, sizeof(request), CONTROL_APPLY);
                r = control_request(sock, request, &status, answer, sizeof(answer));
                asked = true;
                if (r < 0) {
                        log_error_errno(r, "%s %s: the daemon did not answer: %m", c->unclaim ? "unclaim" : "claim",
                                        c->name);
                        return EXIT_FAIL;
                }
                /* short: one line that names the claim and the pools short, for a hook's log */
                if (status == EXIT_SHORT)
                        log_error("claim %s: short of pages: %s", c->name, answer);
                else if (*answer)
                        log_lines(status == EXIT_OK ? LOG_INFO : LOG_ERR, answer);
        }
        if (status == EXIT_USAGE) {
                _cleanup_(closep) int again = -1;

                r = put_claim_file(dirfd, c->file, old_text);
                if (r < 0)
                        return log_error_errno(r, "Cannot put %s back as it was: %m", c->shown), EXIT_FAIL;
                if (c->unclaim && !c->pending)
                        claim_pending_clear(rootfd, c->name);
                /* the daemon took the new files before its plan refused them: the old ones again */
                again = asked ? control_connect(rootfd) : -1;
                if (again >= 0 && control_request(again, CONTROL_APPLY, &r, answer, sizeof(answer)) < 0)
                        log_warning("The daemon did not answer the configuration put back");
        }
        return status;
}

/* The exit status, with a last word where the claim was refused, or its give-back not done. */
static int said(const struct claim_cmd *c, int status) {
        if (status == EXIT_USAGE)
                log_error("%s %s: refused; %s is as it was, nothing changed", c->unclaim ? "unclaim" : "claim", c->name,
                          c->shown);
        else if (status == EXIT_FAIL && c->removed)
                log_error("unclaim %s: the claim is removed, but the fill that gives back its pages failed: the "
                          "give-back is pending, and the next fill (a reload of the daemon, hpfilld claim, unclaim, "
                          "give-back) does it", c->name);
        return status;
}

static int claim_run(struct claim_cmd *c) {
        _cleanup_(closep) int rootfd = -1, dirfd = -1, sock = -1, lock_fd = -1;
        _cleanup_(freep) char *text = NULL, *old_text = NULL;
        struct stop stop;
        pid_t pid = 0;
        int r;

        /* before anything others wrote is read: a fill's capabilities (none for pools) */
        r = privilege_drop_for(COMMAND_FILL, NULL);
        if (r < 0)
                return log_error_errno(r, "Cannot drop capabilities: %m"), EXIT_FAIL;
        rootfd = open(c->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (rootfd < 0)
                return log_error_errno(errno, "--root '%s': %m", c->root), EXIT_USAGE;
        if (!c->unclaim && claim_file_text(c->name, c->specs, c->n_specs, &text) < 0)
                return log_error_errno(-ENOMEM, "Out of memory"), EXIT_FAIL;
        /* an unclaim that died after removing the file left its give-back pending: this one
         * finishes it */
        if (c->unclaim) {
                r = claim_pending(rootfd, c->name);
                if (r < 0)
                        return log_error_errno(r, "unclaim %s: cannot read %s/" RUNDIR ": %m", c->name, shown_root()),
                               EXIT_FAIL;
                c->pending = r > 0;
        }
        dirfd = open_claim_dir(rootfd, !c->unclaim || c->pending);
        if (dirfd == -ENOENT && c->unclaim)
                return no_such_claim(c);
        if (dirfd == -EPERM)
                return log_error("%s %s: %s/" CLAIM_DIR " is not root's, or others can write it: refused",
                                 c->unclaim ? "unclaim" : "claim", c->name, shown_root()),
                       EXIT_FAIL;
        if (dirfd < 0)
                return log_error_errno(dirfd, "%s %s: cannot open %s/" CLAIM_DIR ": %m", c->unclaim ? "unclaim" : "claim",
                                       c->name, shown_root()),
                       EXIT_FAIL;
        r = read_current(c, dirfd, &old_text);
        if (r >= 0)
                return r;
        /* one claim command at a time, from here to its answer: through the daemon, whose reload
         * reads every claim's file, another's about to be refused (and put back) would be read
         * with this one's, and this one refused for it */
        stop_init(&stop);
        lock_fd = hostlock_take_claims(rootfd, c->unclaim ? "hpfilld unclaim" : "hpfilld claim", c->lock_timeout_s, &stop);
        stop_done(&stop);
        if (lock_fd < 0)
                return EXIT_FAIL;
        /* as it is now, under the lock */
        r = c->unclaim ? claim_pending(rootfd, c->name) : 0;
        c->pending = r > 0;
        r = read_current(c, dirfd, &old_text);
        if (r >= 0)
                return r;
        if (c->unclaim && !old_text)
                log_notice("unclaim %s: %s is gone already, but its give-back is pending (an unclaim that did not "
                           "end?): giving back what its record holds", c->name, c->shown);
        /* whether the daemon runs, told as give-back tells it: the socket a daemon that crashed
         * left behind is not asked (nobody would answer) */
        r = daemon_mark_probe(rootfd, NULL, &pid);
        if (r < 0)
                log_warning_errno(r, "Cannot tell whether the daemon runs (%s/" RUNDIR "/" DAEMON_MARK_FILE
                                     "): %m; asking its socket", shown_root());
        if (r == 0) {
                log_debug("%s %s: no daemon runs, applying it here", c->unclaim ? "unclaim" : "claim", c->name);
                return said(c, apply_here(c, rootfd, dirfd, text));
        }
        sock = control_connect(rootfd);
        if (sock >= 0) {
                log_debug("%s %s: through the daemon", c->unclaim ? "unclaim" : "claim", c->name);
                return said(c, apply_daemon(c, rootfd, dirfd, sock, text, old_text));
        }
        /* a daemon that could not listen (it said so in its log): its next fill reads the file too */
        if (sock != -ENOENT)
                log_warning_errno(sock, "Cannot reach the daemon's socket: %m; applying the claim here");
        else
                log_notice("The daemon runs but does not listen on %s/" RUNDIR "/" CONTROL_NAME
                           ": applying the claim here", shown_root());
        return said(c, apply_here(c, rootfd, dirfd, text));
}

int claim_main(int argc, char *argv[], daemon_load_fn load, void *userdata) {
        struct claim_cmd c = { .root = "/", .lock_timeout_s = HOSTLOCK_TIMEOUT_S, .load = load, .userdata = userdata };
        int r;

        r = parse_claim_argv(argc, argv, &c);
        if (r == EXIT_OK) {
                /* before any thread: the fill's executor takes the signals */
                r = executor_block_signals();
                r = r < 0 ? (log_error_errno(r, "Cannot block signals: %m"), EXIT_FAIL) : claim_run(&c);
        } else if (r < 0)
                r = EXIT_OK;
        free(c.specs);
        free(c.sizes);
        return r;
}
