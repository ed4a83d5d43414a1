/* SPDX-License-Identifier: MIT */
/* hpfilld: parse the command line, load the configuration, plan, fill, report. */
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "conf.h"
#include "config.h"
#include "executor.h"
#include "fill.h"
#include "kernel_caps.h"
#include "log.h"
#include "pin.h"
#include "plan.h"
#include "pool.h"
#include "report.h"
#include "reserve.h"
#include "topology.h"

/* Exit codes: documented in hpfilld(8). */
enum {
        EXIT_OK = 0,
        EXIT_FAIL = 1,
        EXIT_USAGE = 2,
        EXIT_SHORT = 3,
};

static bool arg_once;
static bool arg_dry_run;
static const char *arg_config;
static const char *arg_root = "/";
static struct config arg_cli = CONFIG_INIT; /* pools from --pool, reservations from --reserve */
static char **arg_release;
static size_t arg_n_release;
static bool arg_mode_set, arg_threads_set, arg_min_set, arg_shrink_set;

static void help(void) {
        printf("Usage: hpfilld --once [OPTIONS...]\n"
               "       hpfilld --release NAME...\n"
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
               "  -r --reserve NAME:SIZE:AMOUNT[@NODE]\n"
               "                            Prefault a named hugetlbfs file, e.g. vm1:2M:2G@0\n"
               "     --release NAME         Remove reservation NAME (no --once needed)\n"
               "  -n --dry-run              Print the plan, change nothing\n"
               "     --root DIR             Use DIR/sys, DIR/proc and DIR/etc instead of the host's\n"
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
                ARG_ROOT,
                ARG_RELEASE,
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
                { "dry-run", no_argument, NULL, 'n' },
                { "root", required_argument, NULL, ARG_ROOT },
                { "reserve", required_argument, NULL, 'r' },
                { "release", required_argument, NULL, ARG_RELEASE },
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
                        return usage_error("unknown option '%s'", argv[optind - 1]);
                }
        }
        if (optind < argc)
                return usage_error("unexpected argument '%s'", argv[optind]);
        if (!arg_once && arg_n_release == 0)
                return usage_error("The daemon mode is not in this version; use --once");
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

/* Configuration files, then the command line on top: --pool replaces every [Pool]. */
static int load_config(int rootfd, struct config *c) {
        struct error e = {};
        int r;

        if (arg_config)
                r = config_load_file(c, AT_FDCWD, arg_config, arg_config, &e);
        else
                r = config_load_default(c, rootfd, &e);
        if (r < 0)
                return log_error_errno(r, "%s", e.msg);

        if (arg_mode_set)
                c->mode = arg_cli.mode;
        if (arg_threads_set)
                c->threads_per_node = arg_cli.threads_per_node;
        if (arg_min_set)
                c->min_percent = arg_cli.min_percent;
        if (arg_shrink_set)
                c->shrink = arg_cli.shrink;
        if (arg_cli.n_pools > 0) {
                config_drop_pools(c);
                c->pools = TAKE_PTR(arg_cli.pools);
                c->n_pools = arg_cli.n_pools;
                arg_cli.n_pools = 0;
        }
        if (arg_cli.n_reserves > 0) {
                config_drop_reserves(c);
                c->reserves = TAKE_PTR(arg_cli.reserves);
                c->n_reserves = arg_cli.n_reserves;
                arg_cli.n_reserves = 0;
        }
        for (size_t i = 0; i < c->n_reserves; i++) {
                r = resolve_owner(&c->reserves[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int read_all_counts(int rootfd, const struct topology *t, struct pool_counts **ret) {
        _cleanup_(freep) struct pool_counts *counts = NULL;
        size_t n = t->n_page_sizes * t->n_nodes;
        char path[160];
        int r;

        counts = calloc(n ? n : 1, sizeof(*counts));
        if (!counts)
                return log_error_errno(-ENOMEM, "Out of memory");
        for (size_t s = 0; s < t->n_page_sizes; s++)
                for (size_t i = 0; i < t->n_nodes; i++) {
                        /* The planner needs nr_hugepages alone. */
                        r = pool_read_nr(rootfd, t, t->nodes[i].id, t->page_sizes[s], &counts[s * t->n_nodes + i].nr);
                        if (r < 0) {
                                (void) pool_path(path, sizeof(path), t, t->nodes[i].id, t->page_sizes[s], "");
                                return log_error_errno(r, "Cannot read the pool counters in /%s: %m", path);
                        }
                }
        *ret = TAKE_PTR(counts);
        return 0;
}

/* Every file the fill will write must be writable before the first write: all or nothing. */
static int check_writable(int rootfd, const struct topology *t, const struct plan *p) {
        char path[160];

        for (size_t i = 0; i < p->n_pools; i++)
                for (size_t j = 0; j < p->pools[i].n_nodes; j++) {
                        const struct plan_node *n = &p->pools[i].nodes[j];

                        if (n->action != PLAN_GROW && n->action != PLAN_SHRINK)
                                continue;
                        (void) pool_path(path, sizeof(path), t, n->node, p->pools[i].page_size, "nr_hugepages");
                        if (faccessat(rootfd, path, W_OK, 0) < 0)
                                return log_error_errno(-errno, "Cannot write /%s: %m%s", path,
                                                       errno == EACCES || errno == EPERM ? " (are you root?)" : "");
                }
        return 0;
}

struct progress {
        const struct pool_run *runs;
        size_t n;
};

static void tick_progress(void *userdata) {
        const struct progress *p = userdata;

        if (log_get_max_level() < LOG_DEBUG)
                return;
        for (size_t i = 0; i < p->n; i++) {
                char name[32];

                log_debug("%s pool: %" PRIu64 " pages added so far", page_size_name(p->runs[i].plan->page_size, name),
                          pool_run_progress(&p->runs[i]));
        }
}

/* Test-suite knobs (hpfilld(8), ENVIRONMENT): not for production. */
static uint64_t test_env(const char *name, uint64_t def) {
        const char *s = getenv(name);
        uint64_t v;

        if (!s)
                return def;
        if (parse_u64(s, &v) < 0 || v == 0) {
                log_warning("%s='%s' is not a positive number, ignoring", name, s);
                return def;
        }
        return v;
}

static void report_reserves(const struct reserve_run *runs, size_t n, bool *failed, bool *short_) {
        for (size_t i = 0; i < n; i++) {
                const struct reserve_run *r = &runs[i];
                const struct plan_pool *pp = &r->plan->pool;
                char name[32];

                if (log_get_max_level() >= LOG_INFO) {
                        printf("%s reservation: %" PRIu64 "/%" PRIu64 " %s pages in %" PRIu64 " ms (fault, %u thread%s/node%s)",
                               r->plan->name, r->faulted, pp->target_total, page_size_name(pp->page_size, name),
                               (r->elapsed_ns + 500000) / 1000000, r->threads, r->threads == 1 ? "" : "s",
                               pp->threads_auto ? ", auto" : "");
                        if (r->error)
                                printf(", failed: %s: %s\n", r->error_what, strerror(-r->error));
                        else if (r->faulted < pp->target_total)
                                printf(", %s, removed\n", r->interrupted ? "interrupted" : "short");
                        else
                                printf(" at %s\n", r->path);
                }
                *failed |= r->error != 0;
                *short_ |= !r->error && !r->interrupted && r->faulted < pp->target_total;
        }
}

static int run(int rootfd, struct topology *t, const struct plan *p, struct reserve_run *reserves,
               struct stop *stop) {
        _cleanup_(freep) struct pool_run *runs = NULL;
        _cleanup_(freep) uint64_t *after = NULL;
        struct progress progress = {};
        struct fill_shared shared = {
                .rootfd = rootfd,
                .t = t,
                .pin = pin_is_useful(t),
                .stop = stop,
                .step_bytes = SYSFS_STEP_BYTES,
                .step_pages = test_env("HPFILLD_TEST_STEP_PAGES", 0),
                .interrupt_after = test_env("HPFILLD_TEST_INTERRUPT_AFTER_STEPS", 0),
                .tick = tick_progress,
                .tick_data = &progress,
        };
        bool failed = false, interrupted = false, short_ = false;
        int r;

        runs = calloc(p->n_pools + 1, sizeof(*runs));
        after = calloc(t->n_nodes + 1, sizeof(*after));
        if (!runs || !after)
                return log_error_errno(-ENOMEM, "Out of memory");
        progress = (struct progress) { .runs = runs, .n = p->n_pools };

        for (size_t i = 0; i < p->n_pools; i++) {
                char name[32];
                log_debug("%s pool: %s, %s", page_size_name(p->pools[i].page_size, name),
                          fill_mode_to_string(p->pools[i].method), p->pools[i].method_reason);
        }

        r = fill_execute(&shared, p, runs);
        if (r < 0)
                log_error_errno(r, "Cannot run the fill: %m");

        for (size_t i = 0; i < p->n_pools; i++) {
                const struct plan_pool *pp = &p->pools[i];
                struct pool_outcome o = {
                        .after = after,
                        .elapsed_ns = runs[i].elapsed_ns,
                        .threads = runs[i].threads,
                        .rounds = runs[i].sysfs.rounds,
                        .interrupted = runs[i].interrupted,
                        .error = runs[i].error,
                        .error_path = runs[i].error_what,
                };
                char name[32];

                /* Report what the kernel says now, not what we think we did. */
                for (size_t j = 0; j < pp->n_nodes; j++)
                        if (pool_read_nr(rootfd, t, pp->nodes[j].node, pp->page_size, &after[j]) < 0)
                                after[j] = runs[i].sysfs.after[j];
                if (log_get_max_level() >= LOG_INFO)
                        report_pool(stdout, pp, &o);
                failed |= runs[i].error != 0;
                interrupted |= runs[i].interrupted;
                if (!plan_pool_met(pp, plan_pool_obtained(pp, after), p->min_percent)) {
                        short_ = true;
                        if (!runs[i].interrupted && !runs[i].error)
                                log_warning("%s pool: %" PRIu64 " of %" PRIu64 " pages, below --min %u%%",
                                            page_size_name(pp->page_size, name), plan_pool_obtained(pp, after),
                                            pp->target_total, p->min_percent);
                }
        }
        if (p->n_reserves > 0 && !stop_requested(stop)) {
                r = reserve_execute(&shared, p, reserves);
                report_reserves(reserves, p->n_reserves, &failed, &short_);
        }
        interrupted |= stop_requested(stop);
        (void) fflush(stdout);
        if (interrupted)
                log_error("Interrupted by signal %d; pages already added stay in the pools",
                          atomic_load(&stop->signo));
        fill_runs_done(runs, p->n_pools);
        return r < 0 || failed || interrupted ? EXIT_FAIL : short_ ? EXIT_SHORT : EXIT_OK;
}

int main(int argc, char *argv[]) {
        _cleanup_(closep) int rootfd = -1;
        _cleanup_(freep) struct pool_counts *counts = NULL;
        struct config config = CONFIG_INIT;
        struct topology topo = {};
        struct kernel_caps caps = {};
        _cleanup_(freep) struct reserve_run *reserves = NULL;
        struct plan plan = {};
        struct stop stop;
        struct error e = {};
        int r, ret = EXIT_FAIL;

        log_open();
        if (argc > 1 && strcmp(argv[1], "bench") == 0)
                return bench_main(argc - 1, argv + 1);
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
                ret = EXIT_USAGE;
                goto out;
        }
        if (config.n_pools == 0 && config.n_reserves == 0) {
                log_info("No pools configured, nothing to do");
                ret = EXIT_OK;
                goto out;
        }

        r = topology_read(rootfd, &topo, &e);
        if (r < 0) {
                log_error_errno(r, "Cannot read the machine's topology: %s", e.msg);
                goto out;
        }
        if (topo.n_page_sizes == 0) {
                log_error("This kernel offers no huge pages (no /sys/kernel/mm/hugepages; CONFIG_HUGETLBFS off?)");
                goto out;
        }
        if (read_all_counts(rootfd, &topo, &counts) < 0)
                goto out;
        kernel_caps_read(rootfd, strcmp(arg_root, "/") == 0, &caps);
        r = plan_build(&topo, counts, &config, &caps, &plan, &e);
        if (r < 0) {
                log_error_errno(r, "%s", e.msg);
                ret = r == -ENOMEM ? EXIT_FAIL : EXIT_USAGE;
                goto out;
        }

        reserves = calloc(plan.n_reserves + 1, sizeof(*reserves));
        if (!reserves) {
                log_error_errno(-ENOMEM, "Out of memory");
                goto out;
        }
        /* where each reservation will live, before anything changes */
        r = reserve_locate(rootfd, strcmp(arg_root, "/") == 0, &plan, reserves, &e);
        if (r < 0) {
                log_error_errno(r, "%s", e.msg);
                goto out;
        }

        if (arg_dry_run) {
                if (log_get_max_level() >= LOG_INFO)
                        report_plan(stdout, &plan);
                ret = EXIT_OK;
                goto out;
        }
        /* With nothing to move this still reports, so the admin sees each pool is at target. */
        if (check_writable(rootfd, &topo, &plan) < 0)
                goto out;
        ret = run(rootfd, &topo, &plan, reserves, &stop);
out:
        if (reserves)
                reserve_runs_done(reserves, plan.n_reserves);
        plan_done(&plan);
        topology_done(&topo);
        config_done(&config);
        config_done(&arg_cli);
        free(arg_release);
        stop_done(&stop);
        return ret;
}
