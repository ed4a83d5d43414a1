/* SPDX-License-Identifier: MIT */
/* Which configuration the daemon of this boot reads: its --config FILE, recorded in RUNDIR for
 * hpfilld give-back. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "state/rundir.h"
#include "service/daemon_config.h"
#include "util/fileio.h"
#include "util/macro.h"

static int format_path(FILE *f, const void *data) {
        return fprintf(f, "%s\n", (const char *) data) < 0 ? -EIO : 0;
}

int daemon_config_save(int rootfd, const char *path) {
        _cleanup_(closep) int dirfd = -1;

        if (path)
                return rundir_replace(rootfd, DAEMON_CONFIG_FILE, format_path, path);
        dirfd = rundir_open_existing(rootfd);
        if (dirfd == -ENOENT)
                return 0;
        if (dirfd < 0)
                return dirfd;
        return unlinkat(dirfd, DAEMON_CONFIG_FILE, 0) < 0 && errno != ENOENT ? -errno : 0;
}

int daemon_config_load(int rootfd, char **ret_path) {
        _cleanup_(closep) int dirfd = -1;
        _cleanup_(freep) char *text = NULL;
        size_t len = 0;
        int r;

        dirfd = rundir_open_existing(rootfd);
        if (dirfd == -ENOENT)
                return 0;
        if (dirfd < 0)
                return dirfd;
        r = read_full_file_at(dirfd, DAEMON_CONFIG_FILE, PATH_MAX + 1, &text, &len);
        if (r == -ENOENT)
                return 0;
        if (r == -EFBIG)
                return -EBADMSG;
        if (r < 0)
                return r;
        /* the path and a newline (a path may hold newlines of its own, never a NUL) */
        if (len < 3 || text[0] != '/' || text[len - 1] != '\n' || strlen(text) != len)
                return -EBADMSG;
        text[len - 1] = 0;
        *ret_path = TAKE_PTR(text);
        return 1;
}
