/* SPDX-License-Identifier: MIT */
/* The configuration of a fill: files, the kernel command line, the command line's layer. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "service/fill_cmd.h"
#include "service/metrics_out.h"
#include "kernel/kernel_features.h"
#include "settings/cmdline.h"
#include "settings/settings.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/shown.h"

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
int fill_options_load(int rootfd, struct config *c, void *userdata, struct error *e) {
        const struct fill_options *o = userdata;
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
        r = metrics_file_check(rootfd, c->metrics_file, o->pools_only || o->metrics_missing_ok, e);
        if (r < 0)
                return r;
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
const char *fill_options_sources(const struct fill_options *o, char *buf, size_t size) {
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

