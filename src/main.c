/* SPDX-License-Identifier: MIT */
/* hpfilld: the command line parsed, then a command of the table (service/verbs.h), or the fills
 * (service/fill_cmd.h). */
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fill/stop.h"
#include "service/common_options.h"
#include "service/fill_cmd.h"
#include "service/job.h"
#include "service/verbs.h"
#include "settings/parse.h"
#include "settings/settings.h"
#include "state/lock.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/number.h"
#include "util/shown.h"


static void help(void) {
        printf("Usage: hpfilld [OPTIONS...]            fill, then stay as a daemon (systemd Type=notify)\n"
               "       hpfilld --once [OPTIONS...]     fill, report and exit\n"
               "       hpfilld --check-config [OPTIONS...]\n"
               "       hpfilld --release NAME...\n");
        verbs_print_usage(stdout);
        printf("Fill the kernel's huge page pools, per NUMA node, fast.\n"
               "With any --pool or --reserve, those are the plan of the run: the configuration's\n"
               "[Pool], [Reserve] and [Claim] sections are not used (its [Fill] settings are).\n\n"
               "  -h --help                 Show this help\n"
               "     --version              Show the version\n"
               "     --once                 Fill once, report and exit\n"
               "  -p --pool SIZE:AMOUNT     Pool to fill, e.g. 2M:1G, 1G:node0=4,node1=4, 2M:25%%\n"
               "  -c --config FILE          Read FILE instead of /etc/hpfilld.conf and drop-ins\n"
               "  -m --mode auto|sysfs|fault\n"
               "                            How to get pages (default: auto)\n"
               "  -t --threads-per-node N|auto\n"
               "                            Workers per node for methods that use them\n"
               "     --min PCT              Least share of each target that counts as success (default 100%%)\n"
               "     --shrink               Also give back the run's own free pages above the target\n"
               "     --drop-caches          When compaction is not enough, drop the page cache and retry\n"
               "  -r --reserve NAME:SIZE:AMOUNT[@nodeN][,owner=USER,group=GROUP,mode=MODE,mount=PATH]\n"
               "                            Prefault a named hugetlbfs file, e.g. vm1:2M:2G@node0 or\n"
               "                            vm1:2M:2G,owner=libvirt-qemu,group=kvm,mode=0660\n"
               "     --release NAME...      Remove the reservations named (on its own)\n"
               "     --pools-only           Fill the pools, leave the reservations to a later fill\n"
               "     --create-mounts        Mount hugetlbfs for a reservation's page size that has none\n"
               "  -n --dry-run              Print the plan, change nothing\n"
               "     --json                 With --once or --dry-run: the report or the plan as JSON\n"
               "     --check-config         Check the configuration and plan it here, change nothing\n"
               "     --lock-timeout SEC     How long to wait for another fill of this host (default 60)\n"
               "     --root DIR             Use the files under DIR instead of the host's (tests, images)\n"
               "     --metrics-file PATH    After each fill, write Prometheus metrics to PATH (atomically)\n"
               "     --log-target stderr|kmsg\n"
               "                            Where messages go (kmsg: the kernel log, in an initramfs)\n"
               "  -v --verbose              More output\n"
               "  -q --quiet                Errors only\n\n"
               "Exit status: 0 targets met, 1 failure or interrupted, 2 bad usage or configuration,\n"
               "3 a pool fell short of --min or a reservation fell short. See hpfilld(8).\n");
}

/* The version and the optional libraries built in, as systemd's tools show theirs. */
static void version(void) {
        printf("hpfilld %s\n%cnuma %chugetlbfs %csystemd %clibcap\n", PROJECT_VERSION, HAVE_LIBNUMA ? '+' : '-',
               HAVE_LIBHUGETLBFS ? '+' : '-', HAVE_LIBSYSTEMD ? '+' : '-', HAVE_LIBCAP ? '+' : '-');
}

/* A bad command line: say what and where to look, return -EINVAL. */
#define usage_error(...) (log_error(__VA_ARGS__), log_error("Try 'hpfilld --help' for more information."), -EINVAL)

/* An argument where none is taken; @first: in the command's place, maybe a mistyped one. */
static int unexpected_argument(const char *arg, bool first) {
        const char *near = first ? verb_closest(arg) : NULL;

        if (near)
                return usage_error("unknown command '%s'; did you mean 'hpfilld %s'?", arg, near);
        return usage_error("unexpected argument '%s'", arg);
}

static int option_pool(struct fill_options *o, const char *value) {
        struct pool_spec spec;
        struct error e = {};
        char name[32];
        int r;

        r = parse_pool_spec(value, &spec, &e);
        if (r == -ENOMEM)
                return log_error_errno(r, "Out of memory");
        if (r < 0)
                return usage_error("--pool '%s': %s", value, e.msg);
        if (pool_spec_find(o->cli.pools, o->cli.n_pools, spec.page_size)) {
                amount_done(&spec.amount);
                return usage_error("--pool '%s': a second --pool for page size %s", value,
                                   page_size_name(spec.page_size, name));
        }
        r = config_put_pool(&o->cli, &spec);
        return r < 0 ? log_error_errno(r, "Out of memory") : 0;
}

static int option_reserve(struct fill_options *o, const char *value) {
        struct reserve_spec spec;
        struct error e = {};
        int r;

        r = parse_reserve_spec(value, &spec, &e);
        if (r == -ENOMEM)
                return log_error_errno(r, "Out of memory");
        if (r < 0)
                return usage_error("--reserve '%s': %s", value, e.msg);
        if (reserve_spec_find(o->cli.reserves, o->cli.n_reserves, spec.name))
                return usage_error("--reserve '%s': a second reservation named '%s'", value, spec.name);
        r = config_put_reserve(&o->cli, &spec);
        return r < 0 ? log_error_errno(r, "Out of memory") : 0;
}

static int option_release(struct fill_options *o, char *name) {
        struct error e = {};
        char **l;

        if (check_reserve_name(name, &e) < 0)
                return usage_error("--release '%s': %s", name, e.msg);
        l = realloc(o->release, (o->n_release + 1) * sizeof(*l));
        if (!l)
                return log_error_errno(-ENOMEM, "Out of memory");
        o->release = l;
        o->release[o->n_release++] = name;
        return 0;
}

static int option_log_target(const char *value) {
        int r;

        if (strcmp(value, "kmsg") == 0) {
                r = log_open_kmsg();
                if (r < 0)
                        log_warning_errno(r, "Cannot open /dev/kmsg: %m, logging to stderr");
        } else if (strcmp(value, "stderr") != 0)
                return usage_error("--log-target '%s': expected stderr or kmsg", value);
        return 0;
}

/* A [Fill] setting given as an option: the settings table says how to read it. */
static int option_setting(struct fill_options *o, const struct setting *s, const char *value) {
        struct error e = {};
        int r;

        r = setting_apply(s, SOURCE_OPTION, NULL, s->flag ? "yes" : value, &o->cli, &e);
        return r < 0 ? usage_error("%s", e.msg) : 0;
}

enum {
        ARG_VERSION = 0x100,
        ARG_ONCE,
        ARG_RELEASE,
        ARG_LOG_TARGET,
        ARG_CHECK_CONFIG,
        ARG_LOCK_TIMEOUT,
        ARG_JSON,
        ARG_POOLS_ONLY,
        ARG_SETTING = 0x200, /* + the index of the setting in settings_table[] */
};

/* The options: the fixed ones, then one per setting of the table. */
static void build_options(struct option *options, size_t n, char *shorts, size_t shorts_size) {
        static const struct option fixed[] = {
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                { "once", no_argument, NULL, ARG_ONCE },
                { "pool", required_argument, NULL, 'p' },
                { "config", required_argument, NULL, 'c' },
                { "dry-run", no_argument, NULL, 'n' },
                { "json", no_argument, NULL, ARG_JSON },
                { "check-config", no_argument, NULL, ARG_CHECK_CONFIG },
                { "pools-only", no_argument, NULL, ARG_POOLS_ONLY },
                { "lock-timeout", required_argument, NULL, ARG_LOCK_TIMEOUT },
                { "reserve", required_argument, NULL, 'r' },
                { "release", required_argument, NULL, ARG_RELEASE },
                { "log-target", required_argument, NULL, ARG_LOG_TARGET },
                { "verbose", no_argument, NULL, 'v' },
                { "quiet", no_argument, NULL, 'q' },
        };
        /* "-": arguments come back in order as option 1, for --release's names; ":": a missing
         * value is told apart from an unknown option */
        size_t k = 0, m = strlen(strcpy(shorts, "-:hp:c:r:nvq"));

        for (size_t i = 0; i < ELEMENTSOF(fixed) && k + 1 < n; i++)
                options[k++] = fixed[i];
        for (size_t i = 0; i < settings_count && k + 1 < n; i++) {
                const struct setting *s = &settings_table[i];

                if (!s->option)
                        continue;
                options[k++] = (struct option) { s->option, s->flag ? no_argument : required_argument, NULL,
                                                 (int) (ARG_SETTING + i) };
                if (s->short_option && m + 3 < shorts_size) {
                        shorts[m++] = s->short_option;
                        if (!s->flag)
                                shorts[m++] = ':';
                        shorts[m] = 0;
                }
        }
        options[k] = (struct option) {};
}

/* getopt_long()'s '?' and ':': say what was wrong with the option. */
static int bad_option(int c, char *argv[]) {
        const char *arg = argv[optind - 1];

        /* a short option, perhaps in a cluster (-xq): optopt is the letter */
        if (strncmp(arg, "--", 2) != 0 && optopt > ' ' && optopt < 0x7f)
                return c == ':' ? usage_error("option '-%c' needs a value", optopt)
                                : usage_error("unknown option '-%c'", optopt);
        if (c == ':')
                return usage_error("option '%s' needs a value", arg);
        /* optopt is a known option's value when it was given one it does not take: "--shrink=yes" */
        if (optopt != 0 && strncmp(arg, "--", 2) == 0 && strchr(arg, '='))
                return usage_error("option '%.*s' takes no value", (int) strcspn(arg, "="), arg);
        return usage_error("unknown option '%s'", arg);
}

static const struct setting *setting_by_short_option(int c) {
        for (size_t i = 0; i < settings_count; i++)
                if (settings_table[i].short_option == c)
                        return &settings_table[i];
        return NULL;
}

/* One option; > 0 when the program is done (--help, --version). */
static int parse_option(struct fill_options *o, int c, char *argv[]) {
        const struct setting *s;

        switch (c) {
        case 'h':
                help();
                return 1;
        case ARG_VERSION:
                version();
                return 1;
        case ARG_ONCE:
                o->once = true;
                return 0;
        case 'p':
                return option_pool(o, optarg);
        case 'r':
                return option_reserve(o, optarg);
        case ARG_RELEASE:
                return option_release(o, optarg);
        case 1: /* an argument: only the names right after --release NAME are taken */
                if (o->release_names_follow)
                        return option_release(o, optarg);
                return unexpected_argument(optarg, optarg == argv[1]);
        case 'c':
                o->config = optarg;
                return 0;
        case ARG_LOG_TARGET:
                return option_log_target(optarg);
        case 'n':
                o->dry_run = true;
                return 0;
        case ARG_CHECK_CONFIG:
                o->check_config = true;
                return 0;
        case ARG_JSON:
                o->json = true;
                return 0;
        case ARG_POOLS_ONLY:
                o->pools_only = true;
                return 0;
        case ARG_LOCK_TIMEOUT:
                if (parse_uint_range(optarg, 0, 86400, &o->lock_timeout_s) < 0)
                        return usage_error("--lock-timeout '%s': expected seconds from 0 to 86400", optarg);
                return 0;
        case 'v':
                log_set_max_level(LOG_DEBUG);
                return 0;
        case 'q':
                log_set_max_level(LOG_WARNING);
                return 0;
        }
        s = c >= ARG_SETTING && (size_t) (c - ARG_SETTING) < settings_count ? &settings_table[c - ARG_SETTING]
                                                                              : setting_by_short_option(c);
        return s ? option_setting(o, s, optarg) : bad_option(c, argv);
}

/* Returns < 0 on a bad command line, 0 when done (--help), 1 to go on. */
static int parse_argv(int argc, char *argv[], struct fill_options *o) {
        struct option options[64];
        char shorts[64];
        int c, r;

        build_options(options, ELEMENTSOF(options), shorts, sizeof(shorts));
        opterr = 0;
        while ((c = getopt_long(argc, argv, shorts, options, NULL)) >= 0) {
                r = parse_option(o, c, argv);
                if (r != 0)
                        return r < 0 ? r : 0;
                /* --release a b c: the names after the first follow as arguments */
                o->release_names_follow = c == ARG_RELEASE || (c == 1 && o->release_names_follow);
        }
        if (optind < argc) /* after "--" */
                return usage_error("unexpected argument '%s'", argv[optind]);
        if (o->n_release > 0 && (o->once || o->dry_run || o->check_config || o->pools_only || o->config || o->cli.n_pools ||
                                 o->cli.n_reserves || o->cli.set))
                return usage_error("--release is done on its own: no --once, --pool, --reserve, --config, --dry-run, "
                                   "--check-config, --pools-only or fill settings with it");
        if (o->check_config && o->dry_run)
                return usage_error("--check-config and --dry-run: one or the other");
        if (o->pools_only && o->cli.n_reserves)
                return usage_error("--pools-only and --reserve: one or the other");
        if (o->json && (!(o->once || o->dry_run) || o->check_config))
                return usage_error("--json goes with --once (the report) or --dry-run (the plan)");
        return 1;
}

int main(int argc, char *argv[]) {
        struct fill_options o = { .cli = CONFIG_INIT, .lock_timeout_s = HOSTLOCK_TIMEOUT_S };
        struct common_options common;
        const struct verb *v;
        struct stop stop;
        int r, ret;

        log_open();
        /* what every command takes alike, wherever it is on the line */
        if (common_options_take(&argc, argv, &common) < 0)
                return log_error("Try 'hpfilld --help' for more information."), EXIT_USAGE;
        o.root = common.root;
        /* a command (status, claim, ...): its own command line; claim reads the configuration as
         * the daemon does (no options: give-back and claim have command lines of their own) */
        v = argc > 1 ? verb_find(argv[1]) : NULL;
        if (v) {
                o.metrics_missing_ok = true; /* a claim's: its fill is a VM's start, which no metrics stop */
                return verb_run(v, argc - 1, argv + 1, &(struct verb_context) { fill_options_load, &o, &common });
        }
        stop_init(&stop);
        r = parse_argv(argc, argv, &o);
        ret = r < 0 ? EXIT_USAGE : r == 0 ? EXIT_OK : fill_cmd_run(&o, &stop);
        config_done(&o.cli);
        free(o.release);
        stop_done(&stop);
        return ret;
}
