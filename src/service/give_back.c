/* SPDX-License-Identifier: MIT */
/* hpfilld give-back: what hpfilld filled and reserved, given back in one step, never pages in
 * use: the reservations nothing maps removed, then each pool back by the pages hpfilld's fills
 * added (the ledgers) beyond what the claims of the configuration hold, never below what
 * processes hold or mappings reserved; the settings a fill that died left changed put back (the
 * journal). Claims stay, their pages and their files: they are their consumers' (hpfilld
 * unclaim). Under the host lock; not while the daemon runs, which keeps its own count and
 * would fill again. */
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fill/executor.h"
#include "fill/reserve.h"
#include "fill/rundir.h"
#include "kernel/pool.h"
#include "kernel/topology.h"
#include "plan/plan.h"
#include "service/claim_record.h"
#include "service/daemon_config.h"
#include "service/give_back.h"
#include "service/hostlock.h"
#include "service/job.h"
#include "service/ledger.h"
#include "service/privilege.h"
#include "service/reserve_list.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/number.h"
#include "util/sanitize.h"
#include "util/shown.h"

struct give_back {
        const char *root;
        const char *config_given; /* --config */
        const char **config;      /* the load's --config, set to the claims' file (NULL: the default files) */
        char *recorded;           /* the daemon's --config, where one of this boot read one */
        int rootfd;
        unsigned lock_timeout_s;
        bool failed; /* something could not be given back: exit 1 */
        bool kept;   /* something of hpfilld's is in use and stays: exit 3 */
        unsigned done; /* reservations removed and pools shrunk */
        /* pages of the reservations kept (in use), per page size: hpfilld's, they stay counted as
         * its own; not known per node, they are kept on every node of their size (giving back
         * less, never another's) */
        struct {
                uint64_t page_size, pages;
        } kept_pages[16];
        size_t n_kept_pages;
        daemon_load_fn load; /* the configuration as the daemon reads it: its claims */
        void *userdata;
        struct topology t;
        /* the claims' pages, [page size index * t.n_nodes + node index]: hpfilld's pages up to
         * these stay */
        uint64_t *claimed;
        size_t n_claims;     /* claims (names) kept */
        struct config claims_config; /* the configuration read, for its claims */
        char claim_names[256]; /* "vm1, vm2", for the message */
};

static void keep_pages(struct give_back *g, uint64_t page_size, uint64_t pages) {
        size_t i;

        for (i = 0; i < g->n_kept_pages && g->kept_pages[i].page_size != page_size; i++)
                ;
        if (i == ELEMENTSOF(g->kept_pages))
                return; /* more sizes than any kernel has */
        if (i == g->n_kept_pages)
                g->kept_pages[g->n_kept_pages++].page_size = page_size;
        g->kept_pages[i].pages += pages;
}

static uint64_t kept_pages(const struct give_back *g, uint64_t page_size) {
        for (size_t i = 0; i < g->n_kept_pages; i++)
                if (g->kept_pages[i].page_size == page_size)
                        return g->kept_pages[i].pages;
        return 0;
}

static int parse_args(struct give_back *g, int argc, char *argv[]) {
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "root", required_argument, NULL, 'R' },
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
                        printf("Usage: hpfilld give-back [--config FILE] [--root DIR] [--lock-timeout SEC]\n"
                               "Give back what hpfilld filled and reserved: every reservation no process maps,\n"
                               "then the pages hpfilld's fills added to each pool, free pages only. The claims\n"
                               "stay, with their pages (hpfilld unclaim NAME gives one back): those of FILE,\n"
                               "else of the --config FILE the daemon of this boot last ran with, else of the\n"
                               "default files. Not while the daemon runs (stop it first).\n\n"
                               "Exit status: 0 all given back, 1 failure or the daemon runs, 2 bad usage,\n"
                               "or a configuration that cannot be read (nothing changed), 3 some of it is in\n"
                               "use and stays. See hpfilld(8).\n");
                        return 0;
                case 'c':
                        g->config_given = optarg;
                        break;
                case 'R':
                        g->root = optarg;
                        shown_root_set(optarg);
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

/* Every reservation in MOUNT/hpfilld of every mount, unless a process has it open or maps it. */
static void give_back_reserves(struct give_back *g) {
        _cleanup_(freep) struct reserve_found *found = NULL;
        struct error e = {};
        int n = reserve_list(g->rootfd, &found, &e);

        if (*e.msg)
                log_warning("Cannot look for reservations: %s, ignoring", e.msg);
        if (n == -ENOENT) /* no mount table (a bare root): none */
                n = 0;
        if (n < 0) {
                log_error_errno(n, "Cannot list the reservations (%s/proc/self/mounts): %m", shown_root());
                g->failed = true;
                return;
        }
        for (int i = 0; i < n; i++) {
                char path[PATH_MAX], line[PATH_MAX + NAME_MAX + 64];
                bool seen = false;
                int r;

                for (int k = 0; k < i && !seen; k++) /* one name in two mounts: released once, from both */
                        seen = strcmp(found[k].name, found[i].name) == 0;
                if (seen)
                        continue;
                e = (struct error) {};
                r = reserve_release(g->rootfd, found[i].name, true, path, sizeof(path), &e);
                if (r == 2) {
                        (void) snprintf(line, sizeof(line), "%s: kept, in use (or cannot be told): %s", found[i].name, path);
                        g->kept = true;
                        keep_pages(g, found[i].page_size, found[i].pages);
                } else if (r == 1) {
                        (void) snprintf(line, sizeof(line), "%s: removed %s", found[i].name, path);
                        g->done++;
                } else if (r == -EPERM) {
                        log_error("Cannot remove reservation '%s': %s", found[i].name, e.msg);
                        g->failed = true;
                        continue;
                } else if (r < 0) {
                        log_error_errno(r, "Cannot remove reservation '%s': %m", found[i].name);
                        g->failed = true;
                        continue;
                } else
                        continue; /* gone since */
                say(line);
        }
}

/* One pool, back by what the ledgers count as hpfilld's, never below its pages in use and
 * reserved (a write of nr_hugepages below them would turn pages in use into surplus pages,
 * which leave the pool when freed: a workload's pool shrinking under it). */
static void give_back_pool(struct give_back *g, const struct topology *t, struct ledger *ledgers, size_t n_ledgers,
                           uint64_t page_size, unsigned node, uint64_t resv, uint64_t claimed) {
        struct pool_counts now, after;
        uint64_t persistent, ours = 0, target, given, for_claims;
        char name[32], line[256];
        int r;

        r = pool_read_counts(g->rootfd, t, node, page_size, &now);
        if (r < 0) {
                log_error_errno(r, "Cannot read the %s pool of node%u: %m", page_size_name(page_size, name), node);
                g->failed = true;
                return;
        }
        persistent = pool_counts_persistent(&now);
        for (size_t i = 0; i < n_ledgers; i++) {
                (void) ledger_seen(&ledgers[i], page_size, node, persistent);
                ours += ledger_ours(&ledgers[i], page_size, node);
        }
        /* a reservation kept holds hpfilld's pages: they stay in its count */
        ours -= MIN(ours, kept_pages(g, page_size));
        /* and so do the claims' (whoever filled them: given back by what is beyond them at most) */
        for_claims = MIN(ours, claimed);
        ours -= for_claims;
        page_size_name(page_size, name);
        if (ours == 0) {
                if (for_claims > 0) {
                        (void) snprintf(line, sizeof(line), "%s pool of node%u: %" PRIu64 " page%s of hpfilld's kept for the claims",
                                        name, node, for_claims, plural(for_claims));
                        say(line);
                }
                return;
        }
        target = ledger_give_back_target(persistent, ours, now.nr - MIN(now.free, now.nr), resv);
        if (target < persistent) {
                r = pool_write_nr(g->rootfd, t, node, page_size, target);
                if (r >= 0)
                        r = pool_read_counts(g->rootfd, t, node, page_size, &after);
                if (r < 0) {
                        log_error_errno(r, "Cannot give back the %s pool of node%u: %m", name, node);
                        g->failed = true;
                        return;
                }
        } else
                after = now;
        given = persistent - MIN(pool_counts_persistent(&after), persistent);
        (void) snprintf(line, sizeof(line), "%s pool of node%u: %" PRIu64 " page%s given back (%" PRIu64 " -> %" PRIu64 ")",
                        name, node, given, plural(given), persistent, pool_counts_persistent(&after));
        if (given < MIN(ours, persistent)) {
                size_t k = strlen(line);

                (void) snprintf(line + k, sizeof(line) - k, "; %" PRIu64 " more of hpfilld's are in use or reserved: kept",
                                MIN(ours, persistent) - given);
                g->kept = true;
        }
        if (for_claims > 0) {
                size_t k = strlen(line);

                (void) snprintf(line + k, sizeof(line) - k, "; %" PRIu64 " kept for the claims", for_claims);
        }
        if (given > 0)
                g->done++;
        say(line);
        for (size_t i = 0; i < n_ledgers; i++)
                ledger_given_back(&ledgers[i], page_size, node, &given, pool_counts_persistent(&after));
}

static void give_back_pools(struct give_back *g) {
        struct ledger ledgers[2] = {};
        const char *const names[] = { LEDGER_ONCE_NAME, LEDGER_NAME };
        const struct topology *t = &g->t;
        int r;

        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                r = ledger_load_named(g->rootfd, names[i], &ledgers[i]);
                if (r < 0) {
                        log_error_errno(r, "Cannot read %s/" RUNDIR "/%s: %m; the pages it counts stay", shown_root(),
                                        names[i]);
                        g->failed = true;
                        ledgers[i] = (struct ledger) { .name = names[i] };
                }
        }
        for (size_t s = 0; s < t->n_page_sizes; s++) {
                uint64_t resv = 0;

                r = pool_read_global(g->rootfd, t->page_sizes[s], "resv_hugepages", &resv);
                if (r < 0 && r != -ENOENT) {
                        log_error_errno(r, "Cannot read the reserved pages of the %s pool: %m, left alone",
                                        page_size_name(t->page_sizes[s], (char[32]) {}));
                        g->failed = true;
                        continue;
                }
                for (size_t i = 0; i < t->n_nodes; i++)
                        give_back_pool(g, t, ledgers, ELEMENTSOF(ledgers), t->page_sizes[s], t->nodes[i].id, resv,
                                       g->claimed[s * t->n_nodes + i]);
        }
        for (size_t i = 0; i < ELEMENTSOF(ledgers); i++) {
                r = ledger_save(g->rootfd, &ledgers[i]);
                if (r < 0) {
                        log_error_errno(r, "Cannot update %s/" RUNDIR "/%s: %m", shown_root(), names[i]);
                        g->failed = true;
                }
                ledger_done(&ledgers[i]);
        }
}

/* The claims of the configuration the daemon reads (the same load), each one's pages per node as
 * the plan counts them, into g->claimed. An exit status: EXIT_USAGE where the files cannot be
 * read or a claim not placed (the claims not known, nothing may be given back). */
static int read_claims(struct give_back *g) {
        struct config c = CONFIG_INIT;
        struct error e = {};
        size_t n = g->t.n_page_sizes * g->t.n_nodes;
        int r, ret = EXIT_OK;

        g->claimed = calloc(n + 1, sizeof(*g->claimed));
        if (!g->claimed)
                return log_error_errno(-ENOMEM, "Out of memory"), EXIT_FAIL;
        r = g->load(g->rootfd, &c, g->userdata, &e);
        for (size_t i = 0; r >= 0 && i < c.n_claims; i++) {
                const struct claim_spec *cl = &c.claims[i];
                _cleanup_(freep) bool *named = calloc(g->t.n_nodes + 1, sizeof(*named));
                size_t s, len;
                bool seen = false;

                for (s = 0; s < g->t.n_page_sizes && g->t.page_sizes[s] != cl->page_size; s++)
                        ;
                if (!named)
                        r = error_set(&e, -ENOMEM, "Out of memory");
                else if (s < g->t.n_page_sizes) /* a size this kernel lacks holds no pages */
                        r = plan_claim_pages(&g->t, cl, g->claimed + s * g->t.n_nodes, named, &e);
                for (size_t k = 0; k < i && !seen; k++) /* one name, a section per page size */
                        seen = strcmp(c.claims[k].name, cl->name) == 0;
                if (r < 0 || seen)
                        continue;
                len = strlen(g->claim_names);
                (void) snprintf(g->claim_names + len, sizeof(g->claim_names) - len, "%s%s", len ? ", " : "", cl->name);
                g->n_claims++;
        }
        if (r < 0) {
                log_lines(LOG_ERR, e.msg);
                log_error("give-back: the claims of %s cannot be told: nothing given back, nothing changed (fix the "
                          "file, or hpfilld unclaim NAME%s)", *g->config ?: "the configuration",
                          g->recorded ? "; it is the --config the daemon last ran with: give-back --config FILE names "
                                        "the file to read" : "");
                ret = EXIT_USAGE;
        }
        g->claims_config = c;
        return ret;
}

/* Whose claims stay: --config FILE's, else those of the --config FILE the daemon of this boot
 * last ran with (daemon_config.h; it has stopped: the mark is ours), else the default files'. */
static int choose_config(struct give_back *g) {
        int r;

        if (g->config_given) {
                *g->config = g->config_given;
                return EXIT_OK;
        }
        r = daemon_config_load(g->rootfd, &g->recorded);
        if (r < 0) {
                log_error_errno(r, "Cannot read %s/" RUNDIR "/" DAEMON_CONFIG_FILE ", which names the configuration the "
                                   "daemon ran with: %m; the claims not known, nothing given back, nothing changed "
                                   "(--config FILE names it)", shown_root());
                return EXIT_FAIL;
        }
        if (r > 0) {
                *g->config = g->recorded;
                log_info("The claims of %s, the configuration the daemon of this boot last ran with (its --config, "
                         "recorded in %s/" RUNDIR "/" DAEMON_CONFIG_FILE ")", g->recorded, shown_root());
        }
        return EXIT_OK;
}

int give_back_main(int argc, char *argv[], daemon_load_fn load, void *userdata, const char **config) {
        _cleanup_(closep) int rootfd = -1, mark_fd = -1, lock_fd = -1;
        struct give_back g = { .root = "/", .lock_timeout_s = HOSTLOCK_TIMEOUT_S, .load = load, .userdata = userdata,
                               .config = config, .claims_config = CONFIG_INIT };
        struct error e = {};
        struct stop stop;
        bool waited;
        pid_t pid = 0;
        int r, ret;

        r = parse_args(&g, argc, argv);
        if (r < 0)
                log_error("Try 'hpfilld give-back --help' for more information.");
        if (r <= 0)
                return r < 0 ? EXIT_USAGE : EXIT_OK;
        if (executor_block_signals() < 0)
                return EXIT_FAIL;
        /* before the first file of the tree, which others may have written, is opened */
        r = privilege_drop_for(COMMAND_GIVE_BACK, NULL);
        if (r < 0)
                return log_error_errno(r, "Cannot drop capabilities: %m"), EXIT_FAIL;
        rootfd = open(g.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (rootfd < 0)
                return log_error_errno(errno, "--root '%s': %m", g.root), EXIT_USAGE;
        g.rootfd = rootfd;
        /* the daemon counts its own pages and fills again on the next uevent or reload */
        r = daemon_mark_probe(rootfd, &mark_fd, &pid);
        if (r < 0)
                return log_error_errno(r, "Cannot tell whether the daemon runs (%s/" RUNDIR "/" DAEMON_MARK_FILE "): %m",
                                       shown_root()), EXIT_FAIL;
        if (r > 0) {
                if (pid > 0)
                        log_error("The hpfilld daemon runs (pid %d): stop it first (systemctl stop hpfilld.service; "
                                  "with ReleaseOnStop=yes it gives back what it added), then run hpfilld give-back",
                                  (int) pid);
                else
                        log_error("The hpfilld daemon runs: stop it first (systemctl stop hpfilld.service; with "
                                  "ReleaseOnStop=yes it gives back what it added), then run hpfilld give-back");
                return EXIT_FAIL;
        }
        stop_init(&stop);
        lock_fd = hostlock_take(rootfd, "hpfilld give-back", g.lock_timeout_s, &stop, NULL, &waited);
        if (lock_fd < 0) {
                stop_done(&stop);
                return EXIT_FAIL;
        }
        /* the claims first: not known, nothing changes */
        r = topology_read(rootfd, &g.t, &e);
        if (r < 0) {
                log_error_errno(r, "Cannot read the machine's topology: %s", e.msg);
                ret = EXIT_FAIL;
                goto out;
        }
        ret = choose_config(&g);
        if (ret == EXIT_OK)
                ret = read_claims(&g);
        if (ret != EXIT_OK)
                goto out;
        /* what a fill that died left raised (nr_overcommit_hugepages) first */
        (void) job_recover_journal(rootfd, strcmp(g.root, "/") == 0);
        give_back_reserves(&g);
        give_back_pools(&g);
        /* the claims given back whose give-back an unclaim left pending: done with these pools */
        if (!g.failed)
                claim_records_after_give_back(rootfd, &g.t, &g.claims_config);
        if (g.n_claims > 0) {
                char line[sizeof(g.claim_names) + 128];

                (void) snprintf(line, sizeof(line), "%zu claim%s kept (hpfilld unclaim NAME gives one back): %s",
                                g.n_claims, g.n_claims == 1 ? "" : "s", g.claim_names);
                say(line);
        }
        if (g.done == 0 && !g.failed && !g.kept)
                log_info("Nothing to give back: no reservation, and no pages hpfilld's fills added are left%s",
                         g.n_claims ? " beyond the claims" : "");
        ret = g.failed ? EXIT_FAIL : g.kept ? EXIT_SHORT : EXIT_OK;
out:
        *config = NULL;
        free(g.recorded);
        config_done(&g.claims_config);
        free(g.claimed);
        topology_done(&g.t);
        stop_done(&stop);
        return ret;
}
