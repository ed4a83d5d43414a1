/* SPDX-License-Identifier: MIT */
/* --release NAME...: reservations removed, their records in the state with them. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fill/reserve.h"
#include "service/fill_cmd.h"
#include "service/job.h"
#include "service/session.h"
#include "util/log.h"

/* One reservation hpfilld made removed, its record in the state with it: only the file the state
 * records (its page size, device and inode), never another of that name */
static int release_one(struct session *s, const char *name) {
        bool recorded = false, removed = false;
        struct error e = {};

        for (size_t k = s->st.s.n_reserves; k-- > 0;) {
                const struct state_reserve *rs = &s->st.s.reserves[k];
                char path[PATH_MAX];
                int r;

                if (strcmp(rs->name, name) != 0)
                        continue;
                recorded = true;
                r = reserve_release(s->rootfd, name, rs->page_size, rs->dev, rs->ino, path, sizeof(path), &e);
                if (r == -EPERM)
                        return log_error("Cannot release '%s': %s", name, e.msg), EXIT_FAIL;
                if (r < 0)
                        return log_error_errno(r, "Cannot release '%s': %m", name), EXIT_FAIL;
                if (r == 0)
                        continue;
                state_reserve_remove(&s->st.s, k);
                removed = true;
                if (log_get_max_level() >= LOG_INFO)
                        printf("%s: released %s; its pages go back to the pool once no process maps it\n", name, path);
        }
        if (!recorded)
                return log_error("No reservation '%s' made by hpfilld (its state records none of that name); "
                                 "any file of that name is not hpfilld's, left alone", name), EXIT_FAIL;
        if (!removed)
                return log_error("No reservation '%s'%s%s%s", name, *e.msg ? ": " : "", e.msg,
                                 *e.msg ? ", left alone" : ""), EXIT_FAIL;
        if (*e.msg)
                log_warning("%s: %s, left alone", name, e.msg);
        return EXIT_OK;
}

int release_cmd_run(int rootfd, bool host, const struct fill_options *o, struct stop *stop) {
        struct session s;
        int ret = EXIT_OK;

        if (session_open(&s, rootfd, host,
                         &(struct state_open_options) { "hpfilld --release", o->lock_timeout_s, stop, NULL }) < 0)
                return EXIT_FAIL;
        for (size_t i = 0; i < o->n_release; i++)
                if (release_one(&s, o->release[i]) != EXIT_OK)
                        ret = EXIT_FAIL;
        session_give_back_gone(&s);
        if (session_close(&s) < 0)
                ret = EXIT_FAIL;
        return ret;
}

