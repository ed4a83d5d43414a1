/* SPDX-License-Identifier: MIT */
/* hpfilld: parse the command line, load the configuration, plan, fill, report. */
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "service/bench.h"
#include "service/caps.h"
#include "settings/cmdline.h"
#include "settings/conf.h"
#include "service/daemon.h"
#include "util/fileio.h"
#include "service/job.h"
#include "service/lastfill.h"
#include "service/notify.h"
#include "config.h"
#include "fill/executor.h"
#include "fill/fill.h"
#include "kernel/kernel_caps.h"
#include "util/log.h"
#include "fill/pin.h"
#include "plan/plan.h"
#include "kernel/pool.h"
#include "plan/report.h"
#include "fill/reserve.h"
#include "service/status.h"
#include "kernel/topology.h"


static bool arg_once;
static bool arg_dry_run;
static const char *arg_config;
static const char *arg_root = "/";
static struct config arg_cli = CONFIG_INIT; /* pools from --pool, reservations from --reserve */
static char **arg_release;
static size_t arg_n_release;
static bool arg_mode_set, arg_threads_set, arg_min_set, arg_shrink_set, arg_drop_caches_set;

static void help(void) {
        printf("Usage: hpfilld [OPTIONS...]            fill, then stay as a daemon (systemd Type=notify)\n"
               "       hpfilld --once [OPTIONS...]     fill, report and exit\n"
               "       hpfilld --release NAME...\n"
               "       hpfilld status [--json]\n"
               "       hpfilld bench [--size SIZE] [--json] (see hpfilld bench --help)\n"
               "Fill the kernel's huge page pools, per NUMA node, fast.\n\n"
               "  -h --help                 Show this help\n"
               "     --version              Show the version\n"
               "     --once                 Fill once, report and exit\n"
               "  -p --pool SIZE:AMOUNT     Pool to fill, e.g. 2M:1G, 1G:node0=4,node1=4, 2M:25%%\n"
               "  -c --config FILE          Read FILE instead of /etc/hpfilld.conf and drop-ins\n"
               "  -m --mode auto|sysfs|fault\n"
               "                            How to get pages (default: auto)\n"
               "  -t --threads-per-node N|auto\n"
               "                            Workers per node for methods that use them\n"
               "     --min PCT              Least share of each target that counts as success (default 100)\n"
               "     --shrink               Also shrink pools larger than their target (free pages only)\n"
               "     --drop-caches          When compaction is not enough, drop the page cache and retry\n"
               "  -r --reserve NAME:SIZE:AMOUNT[@NODE]\n"
               "                            Prefault a named hugetlbfs file, e.g. vm1:2M:2G@0\n"
               "     --release NAME         Remove reservation NAME (no --once needed)\n"
               "  -n --dry-run              Print the plan, change nothing\n"
               "     --root DIR             Use DIR/sys, DIR/proc and DIR/etc instead of the host's\n"
               "     --log-target stderr|kmsg\n"
               "                            Where messages go (kmsg: the kernel log, in an initramfs)\n"
               "  -v --verbose              More output\n"
               "  -q --quiet                Errors only\n\n"
               "Exit status: 0 targets met, 1 failure or interrupted, 2 bad usage or configuration,\n"
               "3 a pool fell short of --min. See hpfilld(8).\n");
}

/* A bad command line: say what, return -EINVAL. */
#define usage_error(...) (log_error(__VA_ARGS__), -EINVAL)

static int parse_argv(int argc, char *argv[]) {
        enum {
                ARG_VERSION = 0x100,
                ARG_ONCE,
                ARG_MIN,
                ARG_SHRINK,
                ARG_DROP_CACHES,
                ARG_ROOT,
                ARG_RELEASE,
                ARG_LOG_TARGET,
        };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                { "once", no_argument, NULL, ARG_ONCE },
                { "pool", required_argument, NULL, 'p' },
                { "config", required_argument, NULL, 'c' },
                { "mode", required_argument, NULL, 'm' },
                { "threads-per-node", required_argument, NULL, 't' },
                { "min", required_argument, NULL, ARG_MIN },
                { "shrink", no_argument, NULL, ARG_SHRINK },
                { "drop-caches", no_argument, NULL, ARG_DROP_CACHES },
                { "dry-run", no_argument, NULL, 'n' },
                { "root", required_argument, NULL, ARG_ROOT },
                { "reserve", required_argument, NULL, 'r' },
                { "release", required_argument, NULL, ARG_RELEASE },
                { "log-target", required_argument, NULL, ARG_LOG_TARGET },
                { "verbose", no_argument, NULL, 'v' },
                { "quiet", no_argument, NULL, 'q' },
                {}
        };
        struct error e = {};
        int c, r;

        opterr = 0;
        while ((c = getopt_long(argc, argv, ":hp:c:m:t:r:nvq", options, NULL)) >= 0) {
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case ARG_VERSION:
                        printf("hpfilld %s\n", PROJECT_VERSION);
                        return 0;
                case ARG_ONCE:
                        arg_once = true;
                        break;
                case 'p': {
                        struct pool_spec spec;
                        char name[32];

                        r = parse_pool_spec(optarg, &spec, &e);
                        if (r == -ENOMEM)
                                return log_error_errno(r, "Out of memory");
                        if (r < 0)
                                return usage_error("--pool '%s': %s", optarg, e.msg);
                        for (size_t i = 0; i < arg_cli.n_pools; i++)
                                if (arg_cli.pools[i].page_size == spec.page_size) {
                                        amount_done(&spec.amount);
                                        return usage_error("--pool '%s': a second --pool for page size %s", optarg,
                                                           page_size_name(spec.page_size, name));
                                }
                        r = config_put_pool(&arg_cli, &spec);
                        if (r < 0)
                                return log_error_errno(r, "Out of memory");
                        break;
                }
                case 'r': {
                        struct reserve_spec spec;

                        r = parse_reserve_spec(optarg, &spec, &e);
                        if (r == -ENOMEM)
                                return log_error_errno(r, "Out of memory");
                        if (r < 0)
                                return usage_error("--reserve '%s': %s", optarg, e.msg);
                        for (size_t i = 0; i < arg_cli.n_reserves; i++)
                                if (strcmp(arg_cli.reserves[i].name, spec.name) == 0)
                                        return usage_error("--reserve '%s': a second reservation named '%s'", optarg,
                                                           spec.name);
                        r = config_put_reserve(&arg_cli, &spec);
                        if (r < 0)
                                return log_error_errno(r, "Out of memory");
                        break;
                }
                case ARG_RELEASE: {
                        char **l;

                        if (!reserve_name_valid(optarg))
                                return usage_error("--release '%s': not a reservation name", optarg);
                        l = realloc(arg_release, (arg_n_release + 1) * sizeof(*l));
                        if (!l)
                                return log_error_errno(-ENOMEM, "Out of memory");
                        arg_release = l;
                        arg_release[arg_n_release++] = optarg;
                        break;
                }
                case 'c':
                        arg_config = optarg;
                        break;
                case ARG_LOG_TARGET:
                        if (strcmp(optarg, "kmsg") == 0) {
                                r = log_open_kmsg();
                                if (r < 0)
                                        log_warning_errno(r, "Cannot open /dev/kmsg: %m, logging to stderr");
                        } else if (strcmp(optarg, "stderr") != 0)
                                return usage_error("--log-target '%s': expected stderr or kmsg", optarg);
                        break;
                case 'm':
                        if (fill_mode_from_string(optarg, &arg_cli.mode) < 0)
                                return usage_error("--mode '%s': expected auto, sysfs or fault", optarg);
                        arg_mode_set = true;
                        break;
                case 't':
                        if (strcmp(optarg, "auto") == 0)
                                arg_cli.threads_per_node = 0;
                        else if (parse_uint_range(optarg, 1, 1024, &arg_cli.threads_per_node) < 0)
                                return usage_error("--threads-per-node '%s': expected auto or 1-1024", optarg);
                        arg_threads_set = true;
                        break;
                case ARG_MIN:
                        if (parse_uint_range(optarg, 1, 100, &arg_cli.min_percent) < 0)
                                return usage_error("--min '%s': expected a percentage from 1 to 100", optarg);
                        arg_min_set = true;
                        break;
                case ARG_SHRINK:
                        arg_cli.shrink = true;
                        arg_shrink_set = true;
                        break;
                case ARG_DROP_CACHES:
                        arg_cli.drop_caches = true;
                        arg_drop_caches_set = true;
                        break;
                case 'n':
                        arg_dry_run = true;
                        break;
                case ARG_ROOT:
                        arg_root = optarg;
                        break;
                case 'v':
                        log_set_max_level(LOG_DEBUG);
                        break;
                case 'q':
                        log_set_max_level(LOG_WARNING);
                        break;
                case ':':
                        return usage_error("option '%s' needs a value", argv[optind - 1]);
                default:
                        /* getopt_long() sets optopt to a known option's value when it was given
                         * one it does not take: "--shrink=yes" */
                        if (optopt != 0 && strncmp(argv[optind - 1], "--", 2) == 0 && strchr(argv[optind - 1], '='))
                                return usage_error("option '%.*s' takes no value", (int) strcspn(argv[optind - 1], "="),
                                                   argv[optind - 1]);
                        return usage_error("unknown option '%s'", argv[optind - 1]);
                }
        }
        if (optind < argc)
                return usage_error("unexpected argument '%s'", argv[optind]);
        if (arg_n_release > 0 && (arg_dry_run || arg_cli.n_pools || arg_cli.n_reserves))
                return usage_error("--release is done on its own: no --pool, --reserve or --dry-run with it");
        return 1;
}

/* Owner= and Group= of a reservation: a name, or a number. */
static int resolve_owner(struct reserve_spec *rs) {
        uint64_t id;

        if (*rs->owner) {
                struct passwd *pw = getpwnam(rs->owner);

                if (pw)
                        rs->uid = pw->pw_uid;
                else if (parse_u64(rs->owner, &id) >= 0 && id < UINT32_MAX)
                        rs->uid = (unsigned) id;
                else
                        return log_error_errno(-ESRCH, "%s: no user '%s'", rs->origin, rs->owner);
        }
        if (*rs->group) {
                struct group *gr = getgrnam(rs->group);

                if (gr)
                        rs->gid = gr->gr_gid;
                else if (parse_u64(rs->group, &id) >= 0 && id < UINT32_MAX)
                        rs->gid = (unsigned) id;
                else
                        return log_error_errno(-ESRCH, "%s: no group '%s'", rs->origin, rs->group);
        }
        return 0;
}

static int release(int rootfd) {
        int ret = EXIT_OK;

        for (size_t i = 0; i < arg_n_release; i++) {
                char path[PATH_MAX];
                int r = reserve_release(rootfd, arg_release[i], path, sizeof(path));

                if (r < 0) {
                        log_error_errno(r, "Cannot release '%s': %m", arg_release[i]);
                        ret = EXIT_FAIL;
                } else if (r == 0) {
                        log_error("No reservation '%s'", arg_release[i]);
                        ret = EXIT_FAIL;
                } else if (log_get_max_level() >= LOG_INFO)
                        printf("%s: released %s; its pages go back to the pool once no process maps it\n",
                               arg_release[i], path);
        }
        return ret;
}

/* Configuration files, then the kernel command line, then the command line on top: --pool
 * replaces every [Pool]. Called again on every reload. */
static int load_config(int rootfd, struct config *c) {
        char cmdline[4096];
        struct error e = {};
        int r;

        if (arg_config)
                r = config_load_file(c, AT_FDCWD, arg_config, arg_config, &e);
        else
                r = config_load_default(c, rootfd, &e);
        if (r < 0)
                return log_error_errno(r, "%s", e.msg);
        if (read_line_at(rootfd, "proc/cmdline", cmdline, sizeof(cmdline)) >= 0) {
                r = cmdline_apply(cmdline, c, &e);
                if (r < 0)
                        return log_error_errno(r, "%s", e.msg);
        }

        if (arg_mode_set)
                c->mode = arg_cli.mode;
        if (arg_threads_set)
                c->threads_per_node = arg_cli.threads_per_node;
        if (arg_min_set)
                c->min_percent = arg_cli.min_percent;
        if (arg_shrink_set)
                c->shrink = arg_cli.shrink;
        if (arg_drop_caches_set)
                c->drop_caches = arg_cli.drop_caches;
        if (arg_cli.n_pools > 0)
                config_drop_pools(c);
        for (size_t i = 0; i < arg_cli.n_pools; i++) {
                struct pool_spec spec = arg_cli.pools[i];

                r = amount_copy(&spec.amount, &arg_cli.pools[i].amount);
                if (r >= 0)
                        r = config_put_pool(c, &spec);
                if (r < 0)
                        return log_error_errno(r, "Out of memory");
        }
        if (arg_cli.n_reserves > 0)
                config_drop_reserves(c);
        for (size_t i = 0; i < arg_cli.n_reserves; i++)
                if (config_put_reserve(c, &arg_cli.reserves[i]) < 0)
                        return log_error_errno(-ENOMEM, "Out of memory");
        for (size_t i = 0; i < c->n_reserves; i++) {
                r = resolve_owner(&c->reserves[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Only CAP_CHOWN may still be needed after setup: to hand a reservation to its owner (and, in the
 * daemon, CAP_LEASE: to tell whether a VM has a reservation open on a refill). Writing
 * the pool files takes none as root, their owner. */
static int drop_privileges(const struct config *c) {
        uint64_t keep = 0, eff;
        int r;

        for (size_t i = 0; i < c->n_reserves; i++)
                if (c->reserves[i].uid != 0 || c->reserves[i].gid != 0)
                        keep |= UINT64_C(1) << CAP_CHOWN;
        /* the daemon's refills tell a reservation a VM has open by a lease on it (another
         * owner's file) and change the owner back and forth if a reload asks for another */
        if (c->n_reserves > 0 && !arg_once)
                keep |= UINT64_C(1) << CAP_LEASE | UINT64_C(1) << CAP_CHOWN;
        /* the daemon runs for the life of the machine: its bounding set goes too */
        r = caps_drop_all_but(keep, !arg_once);
        if (r >= 0 && caps_effective(&eff) >= 0)
                log_debug("Capabilities left: 0x%" PRIx64, eff);
        return r;
}

int main(int argc, char *argv[]) {
        _cleanup_(closep) int rootfd = -1;
        struct config config = CONFIG_INIT;
        struct stop stop;
        int r, ret = EXIT_FAIL;

        log_open();
        if (argc > 1 && strcmp(argv[1], "bench") == 0)
                return bench_main(argc - 1, argv + 1);
        if (argc > 1 && strcmp(argv[1], "status") == 0)
                return status_main(argc - 1, argv + 1);
        stop_init(&stop);
        r = parse_argv(argc, argv);
        if (r <= 0) {
                ret = r < 0 ? EXIT_USAGE : EXIT_OK;
                goto out;
        }
        /* Before any thread exists, so every thread inherits the mask; the executor takes them. */
        r = executor_block_signals();
        if (r < 0) {
                log_error_errno(r, "Cannot block signals: %m");
                goto out;
        }

        rootfd = open(arg_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (rootfd < 0) {
                log_error_errno(errno, "--root '%s': %m", arg_root);
                ret = EXIT_USAGE;
                goto out;
        }
        if (arg_n_release > 0) {
                ret = release(rootfd);
                goto out;
        }
        if (load_config(rootfd, &config) < 0) {
                /* under systemd, the unit's status says why it did not start */
                if (!arg_once)
                        (void) notifyf("STATUS=Bad configuration, see the log\nERRNO=%d", EINVAL);
                ret = EXIT_USAGE;
                goto out;
        }
        if (config.n_pools == 0 && config.n_reserves == 0 && (arg_once || arg_dry_run)) {
                log_info("No pools configured, nothing to do");
                ret = EXIT_OK;
                goto out;
        }
        r = drop_privileges(&config);
        if (r < 0) {
                log_error_errno(r, "Cannot drop capabilities: %m");
                goto out;
        }
        if (!arg_once && !arg_dry_run) {
                ret = daemon_run(rootfd, strcmp(arg_root, "/") == 0, load_config);
                goto out;
        }

        struct job j = {
                .rootfd = rootfd,
                .host = strcmp(arg_root, "/") == 0,
                .dry_run = arg_dry_run,
                .stop = &stop,
                .report = stdout,
        };
        ret = job_run(&j, &config);
        /* in an initramfs the report on the console scrolls away: the kernel log keeps it */
        if (log_to_kmsg() && *j.summary)
                log_info("%s", j.summary);
        if (!arg_dry_run && ret != EXIT_USAGE) {
                r = lastfill_write(rootfd, ret, j.summary, j.advice_cmdline);
                if (r < 0)
                        log_warning_errno(r, "Cannot record the fill in /" LASTFILL_FILE ": %m, ignoring");
        }
out:
        config_done(&config);
        config_done(&arg_cli);
        free(arg_release);
        stop_done(&stop);
        return ret;
}
