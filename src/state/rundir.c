/* SPDX-License-Identifier: MIT */
/* /run/hpfilld: hpfilld's files on this boot (the state, the host lock, the control socket). */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state/rundir.h"
#include "util/beneath.h"
#include "util/macro.h"

/* 0755 whatever the umask: the readers (hpfilld status, any user) need the bits; a symbolic
 * link as run/ or run/hpfilld is refused (-ELOOP), never followed out */
static int make_dir(int rootfd, const char *path) {
        int fd = mkdir_beneath(rootfd, path, 0755, 0, NULL);

        if (fd < 0)
                return fd;
        (void) close(fd);
        return 0;
}

int rundir_open_existing(int rootfd) {
        _cleanup_(closep) int fd = -1;
        struct stat st;

        fd = open_beneath(rootfd, RUNDIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
        if (fd < 0)
                return fd;
        if (fstat(fd, &st) < 0)
                return -errno;
        if ((st.st_uid != geteuid() && st.st_uid != 0) || (st.st_mode & 0022))
                return -EPERM;
        return TAKE_FD(fd);
}

int rundir_open(int rootfd) {
        int r;

        /* there already on all but the first run of a boot: 3 syscalls, not 13 */
        r = rundir_open_existing(rootfd);
        if (r != -ENOENT)
                return r;
        r = make_dir(rootfd, "run");
        if (r >= 0)
                r = make_dir(rootfd, RUNDIR);
        return r < 0 ? r : rundir_open_existing(rootfd);
}
