/* SPDX-License-Identifier: MIT */
/* hpfilld: parse the command line, load the configuration, plan, fill, report. */
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <getopt.h>
#include <limits.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/shown.h"
#include "service/caps.h"
#include "settings/cmdline.h"
#include "settings/conf.h"
#include "settings/settings.h"
#include "service/daemon.h"
#include "util/clock.h"
#include "state/lock.h"
#include "util/fileio.h"
#include "service/job.h"
#include "service/session.h"
#include "service/verbs.h"
#include "state/rundir.h"
#include "state/store.h"
#include "service/metrics_out.h"
#include "service/notify.h"
#include "service/privilege.h"
#include "service/progress.h"
#include "service/report_doc.h"
#include "config.h"
#include "fill/executor.h"
#include "fill/fill.h"
#include "kernel/host.h"
#include "kernel/kernel_features.h"
#include "kernel/mount_create.h"
#include "kernel/mounts.h"
#include "util/log.h"
#include "fill/pin.h"
#include "plan/plan.h"
#include "kernel/pool.h"
#include "plan/report.h"
#include "fill/reserve.h"
#include "kernel/topology.h"

/* What the command line says. Reloads rebuild the configuration from it: files, then the
 * kernel command line, then these on top. */
struct options {
        bool once, dry_run, check_config, json;
        bool pools_only;    /* --pools-only: every reservation left out (an initramfs) */
        const char *config; /* --config: this file instead of the default ones */
        const char *root;   /* --root */
        struct config cli;  /* settings, --pool and --reserve */
        char **release;     /* --release NAME... */
        size_t n_release;
        bool release_names_follow; /* the last option was --release or one of its names */
        unsigned lock_timeout_s;   /* --lock-timeout */
};

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
               "     --shrink               Also shrink pools larger than their target (free pages only)\n"
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
               "     --root DIR             Use DIR/sys, DIR/proc and DIR/etc instead of the host's\n"
               "     --metrics-file PATH    After each fill, write Prometheus metrics to PATH (atomically)\n"
               "     --log-target stderr|kmsg\n"
               "                            Where messages go (kmsg: the kernel log, in an initramfs)\n"
               "  -v --verbose              More output\n"
               "  -q --quiet                Errors only\n\n"
               "Exit status: 0 targets met, 1 failure or interrupted, 2 bad usage or configuration,\n"
               "3 a pool fell short of --min. See hpfilld(8).\n");
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

static int option_pool(struct options *o, const char *value) {
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

static int option_reserve(struct options *o, const char *value) {
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

static int option_release(struct options *o, char *name) {
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
static int option_setting(struct options *o, const struct setting *s, const char *value) {
        struct error e = {};
        int r;

        r = setting_apply(s, SOURCE_OPTION, NULL, s->flag ? "yes" : value, &o->cli, &e);
        return r < 0 ? usage_error("%s", e.msg) : 0;
}

enum {
        ARG_VERSION = 0x100,
        ARG_ONCE,
        ARG_ROOT,
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
                { "root", required_argument, NULL, ARG_ROOT },
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
static int parse_option(struct options *o, int c, char *argv[]) {
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
        case ARG_ROOT:
                o->root = optarg;
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
static int parse_argv(int argc, char *argv[], struct options *o) {
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
        if (strlen(o->root) >= PATH_MAX)
                return usage_error("--root '%.64s...': too long", o->root);
        shown_root_set(o->root);
        return 1;
}

/* One reservation removed, its record in the state with it */
static int release_one(struct session *s, const char *name) {
        char path[PATH_MAX];
        struct error e = {};
        int r = reserve_release(s->rootfd, name, false, path, sizeof(path), &e);

        if (r == -EPERM)
                return log_error("Cannot release '%s': %s", name, e.msg), EXIT_FAIL;
        if (r < 0)
                return log_error_errno(r, "Cannot release '%s': %m", name), EXIT_FAIL;
        if (r == 0)
                return log_error("No reservation '%s'", name), EXIT_FAIL;
        for (size_t k = s->st.s.n_reserves; k-- > 0;)
                if (strcmp(s->st.s.reserves[k].name, name) == 0)
                        state_reserve_remove(&s->st.s, k);
        if (*e.msg)
                log_warning("%s: %s, left alone", name, e.msg);
        if (log_get_max_level() >= LOG_INFO)
                printf("%s: released %s; its pages go back to the pool once no process maps it\n", name, path);
        return EXIT_OK;
}

static int release(int rootfd, bool host, const struct options *o, struct stop *stop) {
        struct session s;
        int ret = EXIT_OK;

        if (session_open(&s, rootfd, host,
                         &(struct state_open_options) { "hpfilld --release", o->lock_timeout_s, stop, NULL, NULL }) < 0)
                return EXIT_FAIL;
        for (size_t i = 0; i < o->n_release; i++)
                if (release_one(&s, o->release[i]) != EXIT_OK)
                        ret = EXIT_FAIL;
        session_give_back_gone(&s);
        if (session_close(&s) < 0)
                ret = EXIT_FAIL;
        return ret;
}

/* The command line's layer on top of @c: its settings, and its pools and reservations, which
 * make the plan of the run when there are any: every pool, reservation and claim of @c is dropped, so
 * a one-off `--pool 2M:512` is not stopped by a [Reserve] of /etc (nor fills its [Pool]s). */
static int apply_cli(const struct config *cli, struct config *c) {
        int r;

        config_merge_settings(c, cli);
        if (cli->n_pools == 0 && cli->n_reserves == 0)
                return 0;
        config_drop_pools(c);
        config_drop_reserves(c);
        config_drop_claims(c);
        c->plan_from_cli = true;
        for (size_t i = 0; i < cli->n_pools; i++) {
                struct pool_spec spec = cli->pools[i];

                r = amount_copy(&spec.amount, &cli->pools[i].amount);
                if (r >= 0)
                        r = config_put_pool(c, &spec);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < cli->n_reserves; i++)
                if (config_put_reserve(c, &cli->reserves[i]) < 0)
                        return -ENOMEM;
        return 0;
}

/* Configuration files, then the kernel command line, then the command line on top: --pool and
 * --reserve replace every [Pool] and [Reserve]. Once at the start (run()), again on every reload of the daemon. */
static int load_config(int rootfd, struct config *c, void *userdata, struct error *e) {
        const struct options *o = userdata;
        _cleanup_(freep) char *cmdline = NULL;
        int r;

        if (o->config)
                r = config_load_file(c, AT_FDCWD, o->config, o->config, e);
        else {
                r = config_load_default(c, rootfd, shown_root(), e);
                if (r >= 0)
                        r = config_load_credential(c, getenv("CREDENTIALS_DIRECTORY"), e);
        }
        if (r < 0)
                return r;
        /* as long as the kernel lets it be (COMMAND_LINE_SIZE, bootconfig): no limit of ours */
        r = read_full_file_at(rootfd, "proc/cmdline", FILEIO_LINE_MAX, &cmdline, NULL);
        if (r == -EFBIG)
                return error_set(e, r, "%s/proc/cmdline: longer than %d bytes", shown_root(), FILEIO_LINE_MAX);
        if (r < 0 && r != -ENOENT)
                log_warning_errno(r, "Cannot read %s/proc/cmdline: %m, ignoring the kernel command line",
                                  shown_root());
        if (r >= 0) {
                c->cmdline_read = true;
                c->cmdline_ioa = (signed char) cmdline_init_on_alloc(cmdline);
                r = cmdline_apply(cmdline, c, e);
                if (r < 0)
                        return r;
        }
        r = apply_cli(&o->cli, c);
        if (r < 0)
                return error_set(e, r, "Out of memory");
        /* An initramfs: its owners are not known yet, no hugetlbfs is mounted; the reservations
         * wait for the real root, where the service makes them, and never stop a pool. */
        if (o->pools_only && c->n_reserves > 0) {
                static bool said; /* read again under the host lock: said once */

                if (!said)
                        log_info("%zu reservation%s left out (--pools-only): for a later fill to make", c->n_reserves,
                                 plural(c->n_reserves));
                said = true;
                config_drop_reserves(c);
        }
        return 0;
}

/* Where the configuration was looked for, for "nothing configured". */
static const char *config_sources(const struct options *o, char *buf, size_t size) {
        static const char *const dirs[] = CONFIG_DROPIN_DIRS;
        FILE *f = fmemopen(buf, size, "w");

        if (!f)
                return "the configuration files";
        if (o->config)
                fputs(o->config, f);
        else {
                fprintf(f, "%s/" CONFIG_MAIN_FILE ", *.conf in", shown_root());
                for (size_t i = 0; i < ELEMENTSOF(dirs); i++)
                        fprintf(f, " %s/%s%s", shown_root(), dirs[i], i + 1 < ELEMENTSOF(dirs) ? "," : "");
                if (getenv("CREDENTIALS_DIRECTORY"))
                        fputs(", the credential " CONFIG_CREDENTIAL, f);
        }
        fputs(", the kernel command line and the options", f);
        (void) fclose(f); /* a name too long for @buf is cut */
        buf[size - 1] = 0;
        return buf;
}

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
static int fill_once(struct job *j, const struct options *o, struct stop *stop) {
        struct config now = CONFIG_INIT;
        struct session s;
        struct error e = {};
        int ret;

        if (session_open(&s, j->rootfd, j->host,
                         &(struct state_open_options) { "hpfilld --once", o->lock_timeout_s, stop, NULL, NULL }) < 0)
                return EXIT_FAIL;
        if (load_config(j->rootfd, &now, (void *) o, &e) < 0) {
                log_lines(LOG_ERR, e.msg);
                ret = EXIT_USAGE;
        } else
                ret = job_fill(j, &s, &now);
        if (ret != EXIT_USAGE)
                session_give_back_gone(&s);
        config_done(&now);
        if (session_close(&s) < 0 && (ret == EXIT_OK || ret == EXIT_SHORT))
                ret = EXIT_FAIL;
        return ret;
}

/* --once, --dry-run and --check-config: one job, then the record of it. */
static int run_once(const struct options *o, int rootfd, bool host, const struct config *config, struct stop *stop) {
        struct fill_record record = {};
        struct job j = {
                .rootfd = rootfd,
                .host = host,
                .dry_run = o->dry_run || o->check_config,
                .strict = o->check_config,
                .stop = stop,
                .kind = config->plan_from_cli ? STATE_FILL_ONCE : STATE_FILL_CONFIG,
                .report = o->check_config ? NULL : stdout,
                .record = &record,
                .plan_from_cli = config->plan_from_cli,
                .create_mounts = config->create_mounts,
                /* the option, or a file's CreateMounts= */
                .create_mounts_by = o->cli.set & 1u << setting_index(setting_by_key("CreateMounts")) ? "--create-mounts"
                                                                                                  : "CreateMounts=yes",
        };
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
                j.json = &w;
                j.report = NULL;
        }

        if (config->plan_from_cli && !j.json) {
                if (j.report && log_get_max_level() >= LOG_INFO)
                        fprintf(j.report, "%s\n", PLAN_FROM_CLI);
                else
                        log_info("%s", PLAN_FROM_CLI);
        }
        /* a person at a terminal sees the pools grow; logs, the journal and an initramfs do not */
        if (!j.dry_run && !log_to_kmsg() && log_get_max_level() >= LOG_INFO && isatty(STDERR_FILENO)) {
                j.progress = tty_progress_update;
                j.progress_done = tty_progress_clear;
                j.userdata = &progress;
        }
        ret = j.dry_run ? job_dry_run(&j, config) : fill_once(&j, o, stop);
        if (j.json) {
                r = json_writer_finish(&w);
                if (fclose(members) != 0 && r >= 0)
                        r = -ENOMEM;
                members = NULL;
                if (r >= 0)
                        r = report_document(stdout, o->dry_run, ret, json, &j);
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
                fill_record_done(&record);
                return ret;
        }
        /* in an initramfs the report on the console scrolls away: the kernel log keeps it */
        if (log_to_kmsg() && *j.summary)
                log_info("%s", j.summary);
        if (!o->dry_run && ret != EXIT_USAGE) {
                metrics_after_fill(rootfd, config->metrics_file);
        }
        fill_record_done(&record);
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
        struct job j = { .rootfd = rootfd, .host = host, .dry_run = true, .stop = stop,
                         .kind = c->plan_from_cli ? STATE_FILL_ONCE : STATE_FILL_CONFIG, .plan_from_cli = c->plan_from_cli,
                         .create_mounts = c->create_mounts && host, .mount_table_only = true };
        int level = log_get_max_level(), ret;

        log_set_max_level(-1); /* below LOG_EMERG: nothing */
        ret = job_dry_run(&j, c);
        if (ret == EXIT_USAGE) {
                log_set_max_level(MIN(level, LOG_ERR));
                ret = job_dry_run(&j, c);
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
static int run(const struct options *o, struct stop *stop) {
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
                return release(rootfd, host, o, stop);
        }
        if (load_config(rootfd, &config, (void *) o, &e) < 0) {
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
                log_info("No pools configured in %s, nothing to do", config_sources(o, sources, sizeof(sources)));
                ret = EXIT_OK;
                if (o->json && report_document(stdout, o->dry_run, ret, NULL, &(struct job) { .plan_from_cli = config.plan_from_cli }) < 0)
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
                                   config_sources(o, sources, sizeof(sources)));
                ret = daemon_run(rootfd, host, &config, load_config, (void *) o, o->lock_timeout_s);
        } else
                ret = run_once(o, rootfd, host, &config, stop);
out:
        config_done(&config);
        return ret;
}

int main(int argc, char *argv[]) {
        struct options o = { .root = "/", .cli = CONFIG_INIT, .lock_timeout_s = HOSTLOCK_TIMEOUT_S };
        const struct verb *v;
        struct stop stop;
        int r, ret;

        log_open();
        /* a command (status, claim, ...): its own command line; claim reads the configuration as
         * the daemon does (no options: give-back and claim have command lines of their own) */
        v = argc > 1 ? verb_find(argv[1]) : NULL;
        if (v)
                return verb_run(v, argc - 1, argv + 1, &(struct verb_context) { load_config, &o });
        stop_init(&stop);
        r = parse_argv(argc, argv, &o);
        ret = r < 0 ? EXIT_USAGE : r == 0 ? EXIT_OK : run(&o, &stop);
        config_done(&o.cli);
        free(o.release);
        stop_done(&stop);
        return ret;
}
