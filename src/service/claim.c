/* SPDX-License-Identifier: MIT */
/* `hpfilld claim` and `hpfilld unclaim`: a claim set in the state and its pages added, or the
 * claim given back with its free pages, under the host lock. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fill/executor.h"
#include "fill/stop.h"
#include "kernel/host.h"
#include "service/claim.h"
#include "service/job.h"
#include "service/metrics_out.h"
#include "service/privilege.h"
#include "service/session.h"
#include "settings/parse.h"
#include "state/claims.h"
#include "util/log.h"
#include "util/number.h"
#include "util/shown.h"

struct claim_cmd {
        bool unclaim;
        const char *name;
        char **specs; /* --pool values */
        uint64_t *sizes; /* the page size of each */
        size_t n_specs;
        const struct common_options *common;
        unsigned lock_timeout_s;
        daemon_load_fn load;
        void *userdata;
        char metrics_file[1024]; /* MetricsFile= of the configuration: written once the state is saved */
};

#define claim_usage(...) (log_error(__VA_ARGS__), log_error("Try 'hpfilld claim --help' for more information."), EXIT_USAGE)

static void claim_help(void) {
        printf("Usage: hpfilld claim NAME --pool SIZE:AMOUNT [--pool SIZE:AMOUNT...] [OPTIONS...]\n"
               "       hpfilld unclaim NAME [OPTIONS...]\n"
               "Claim pages of the pools for a consumer (a VM, a DPDK application), on top of what\n"
               "the pools hold, or give them back. Kept in /run/hpfilld/state; the daemon refills\n"
               "them with its own pools.\n\n"
               "  -h --help                 Show this help\n"
               "  -p --pool SIZE:AMOUNT     Pages claimed, e.g. 2M:1G, 2M:512, 1G:node0=4,node1=2\n"
               "     --lock-timeout SEC     How long to wait for another command changing the pools (default 60)\n"
               "     --root DIR             Use the files under DIR instead of the host's (tests, images)\n"
               "  -v --verbose              More output\n"
               "  -q --quiet                Errors only\n\n"
               "Exit status: 0 the pages are there, 1 failure, 2 bad usage or configuration (nothing\n"
               "changed), 3 short of pages (the claim stays). unclaim of no such claim: 0, with a notice.\n"
               "See hpfilld(8).\n");
}

/* --pool SIZE:AMOUNT: checked, its page size one of its own; EXIT_OK, or an exit status */
static int option_pool(struct claim_cmd *c, char *value) {
        struct pool_spec spec;
        struct error e = {};
        uint64_t *sizes;
        char **l;
        int r;

        if (c->unclaim)
                return claim_usage("unclaim takes no --pool: it gives back all of the claim");
        r = parse_pool_spec(value, &spec, &e);
        if (r < 0)
                return claim_usage("--pool '%s': %s", value, e.msg);
        r = amount_has_zero(&spec.amount);
        amount_done(&spec.amount);
        if (r)
                return claim_usage("--pool '%s': a claim of zero pages claims nothing (hpfilld unclaim NAME gives a "
                                   "claim back)", value);
        for (size_t k = 0; k < c->n_specs; k++)
                if (c->sizes[k] == spec.page_size)
                        return claim_usage("--pool '%s': a second --pool for the page size of '%s'", value, c->specs[k]);
        l = realloc(c->specs, (c->n_specs + 1) * sizeof(*l));
        if (l)
                c->specs = l;
        sizes = l ? realloc(c->sizes, (c->n_specs + 1) * sizeof(*sizes)) : NULL;
        if (!sizes)
                return log_error_errno(-ENOMEM, "Out of memory"), EXIT_FAIL;
        c->sizes = sizes;
        c->specs[c->n_specs] = value;
        c->sizes[c->n_specs++] = spec.page_size;
        return EXIT_OK;
}

/* The command line; EXIT_OK to go on, -1 when done (--help), or an exit status. */
static int parse_claim_argv(int argc, char *argv[], struct claim_cmd *c) {
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "pool", required_argument, NULL, 'p' },
                { "lock-timeout", required_argument, NULL, 'L' },
                { "verbose", no_argument, NULL, 'v' },
                { "quiet", no_argument, NULL, 'q' },
                {},
        };
        const char *cmd = argv[0];
        struct error e = {};
        int ch, r;

        c->unclaim = strcmp(cmd, "unclaim") == 0;
        opterr = 0;
        optind = 1;
        while ((ch = getopt_long(argc, argv, ":hp:vq", options, NULL)) >= 0)
                switch (ch) {
                case 'h':
                        claim_help();
                        return -1;
                case 'p':
                        r = option_pool(c, optarg);
                        if (r != EXIT_OK)
                                return r;
                        break;
                case 'L':
                        if (parse_uint_range(optarg, 0, 86400, &c->lock_timeout_s) < 0)
                                return claim_usage("--lock-timeout '%s': expected seconds from 0 to 86400", optarg);
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
        return EXIT_OK;
}

/* The configuration's [Fill] settings (Mode=, ThreadsPerNode=, MinPercent=...) for the claim's
 * fill: its pools, reservations and claims are not the claim's */
static int fill_settings(const struct claim_cmd *c, int rootfd, struct config *ret) {
        struct error e = {};

        *ret = (struct config) CONFIG_INIT;
        if (c->load(rootfd, ret, c->userdata, &e) < 0) {
                config_done(ret);
                log_lines(LOG_ERR, e.msg);
                log_error("claim %s: the configuration cannot be read; nothing changed", c->name);
                return EXIT_USAGE;
        }
        config_drop_pools(ret);
        config_drop_reserves(ret);
        config_drop_claims(ret);
        ret->shrink = false;
        return EXIT_OK;
}

/* The claim set in the state, then its pages added (or, made smaller, given back) */
static int claim_here(struct claim_cmd *c, struct session *s, struct stop *stop) {
        struct config cfg = CONFIG_INIT;
        struct error e = {};
        struct job_params in = {
                .rootfd = s->rootfd,
                .host = s->host,
                .stop = stop,
                .kind = STATE_FILL_CLAIM,
                .claim = c->name,
        };
        struct job_result out = {};
        int r, ret;

        ret = fill_settings(c, s->rootfd, &cfg);
        if (ret != EXIT_OK) {
                s->discard = true;
                return ret;
        }
        r = state_claim_set(&s->st, c->name, c->specs, c->n_specs, &e);
        if (r < 0) {
                s->discard = true;
                config_done(&cfg);
                return claim_usage("claim %s: %s; nothing changed", c->name, e.msg);
        }
        ret = job_fill(&in, &(struct job_sink) { .text = stdout }, &out, s, &cfg);
        if (ret == EXIT_SHORT)
                log_error("claim %s: short of pages: %s (the claim stays: the rest is added by the next fill of the "
                          "configuration, the daemon's, or this claim made again)", c->name, out.summary);
        else if (ret == EXIT_USAGE)
                log_error("claim %s: refused; nothing changed", c->name);
        if (ret != EXIT_USAGE)
                memcpy(c->metrics_file, cfg.metrics_file, sizeof(c->metrics_file));
        fill_record_done(&out.record);
        config_done(&cfg);
        return ret;
}

static bool the_claim(const struct state_owner *o, const void *data) {
        return o == data;
}

struct unclaimed {
        const char *name;
        uint64_t in_use;
        bool failed;
};

static void unclaimed_pool(const struct session_given *g, void *userdata) {
        struct unclaimed *u = userdata;
        char name[32];

        if (g->error) {
                log_error_errno(g->error, "unclaim %s: cannot give back its pages of the %s pool of node%u: %m", u->name,
                                page_size_name(g->page_size, name), g->node);
                u->failed = true;
                return;
        }
        u->in_use += g->held - MIN(g->held, g->given);
        if (log_get_max_level() >= LOG_INFO)
                printf("unclaim %s: %s pool of node%u: %" PRIu64 " page%s given back (%" PRIu64 " -> %" PRIu64 ")%s\n",
                       u->name, page_size_name(g->page_size, name), g->node, g->given, g->given == 1 ? "" : "s",
                       g->before, g->after, g->given < g->held ? ", the rest in use" : "");
}

/* The claim given back: it asks for nothing more, and what it holds that is free leaves now;
 * what is in use leaves when it is free, by the next command that changes a pool */
static int unclaim_here(const struct claim_cmd *c, struct session *s) {
        struct unclaimed u = { .name = c->name };
        int o = state_claim_drop(&s->st, c->name);

        if (o == -ENOENT) {
                log_notice("unclaim %s: no such claim, nothing to give back", c->name);
                return EXIT_OK;
        }
        /* given back before any page leaves: a kill from here on leaves it given back */
        if (state_store_save(&s->st) < 0)
                return EXIT_FAIL;
        (void) session_give_back(s, the_claim, &s->st.s.owners[o], unclaimed_pool, &u);
        if (u.in_use > 0)
                log_notice("unclaim %s: %" PRIu64 " of its pages are in use: they are given back when they are free",
                           c->name, u.in_use);
        else if (log_get_max_level() >= LOG_INFO && !u.failed)
                printf("unclaim %s: given back\n", c->name);
        return u.failed ? EXIT_FAIL : EXIT_OK;
}

static int claim_run(struct claim_cmd *c) {
        _cleanup_(closep) int rootfd = -1;
        char task[128];
        struct session s;
        struct stop stop;
        int r, ret;

        rootfd = common_root_open(c->common);
        if (rootfd < 0)
                return EXIT_USAGE;
        (void) snprintf(task, sizeof(task), "hpfilld %s %s", c->unclaim ? "unclaim" : "claim", c->name);
        stop_init(&stop);
        r = session_open(&s, rootfd, root_is_host(rootfd),
                         &(struct state_open_options) { task, c->lock_timeout_s, &stop, NULL });
        if (r < 0) {
                stop_done(&stop);
                return EXIT_FAIL;
        }
        ret = c->unclaim ? unclaim_here(c, &s) : claim_here(c, &s, &stop);
        if (ret != EXIT_USAGE)
                session_give_back_gone(&s);
        if (session_close(&s) < 0 && ret != EXIT_USAGE)
                ret = EXIT_FAIL;
        metrics_after_fill(rootfd, c->metrics_file);
        stop_done(&stop);
        return ret;
}

int claim_main(int argc, char *argv[], daemon_load_fn load, void *userdata, const struct common_options *common) {
        struct claim_cmd c = { .common = common, .lock_timeout_s = HOSTLOCK_TIMEOUT_S, .load = load, .userdata = userdata };
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
