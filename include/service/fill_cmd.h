/* SPDX-License-Identifier: MIT */
/* The command line without a command: the daemon, --once, --dry-run, --check-config, --release.
 * What it says (its options), the configuration it reads (again on every reload and under the
 * host lock), and the run. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "fill/stop.h"
#include "settings/conf.h"
#include "util/error.h"

/* What the command line says. Reloads rebuild the configuration from it: files, then the
 * kernel command line, then these on top. */
struct fill_options {
        bool once, dry_run, check_config, json;
        bool pools_only;    /* --pools-only: every reservation left out (an initramfs) */
        /* a metrics directory not there is said at the write, not refused: --pools-only (the
         * initramfs has not the real root's directories) and claim (a VM's start is not the
         * metrics' to stop) */
        bool metrics_missing_ok;
        const char *config; /* --config: this file instead of the default ones */
        const char *root;   /* --root */
        struct config cli;  /* settings, --pool and --reserve */
        char **release;     /* --release NAME... */
        size_t n_release;
        bool release_names_follow; /* the last option was --release or one of its names */
        unsigned lock_timeout_s;   /* --lock-timeout */
};

/* Configuration files, then the kernel command line, then the command line on top (--pool and
 * --reserve replace every [Pool] and [Reserve]): the daemon_load_fn of the daemon, claim and
 * the fills, @userdata the fill_options. */
int fill_options_load(int rootfd, struct config *c, void *userdata, struct error *e);
/* Where the configuration was looked for, in words, for "nothing configured". */
const char *fill_options_sources(const struct fill_options *o, char *buf, size_t size);
/* --release NAME...: each reservation removed, under the host lock. An exit status. */
int release_cmd_run(int rootfd, bool host, const struct fill_options *o, struct stop *stop);
/* Everything after the command line: returns the exit status. */
int fill_cmd_run(const struct fill_options *o, struct stop *stop);
