/* SPDX-License-Identifier: MIT */
/* /run/hpfilld: hpfilld's files on this boot (the state, the host lock, the control socket). */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state/rundir.h"
#include "util/beneath.h"
#include "util/macro.h"
#include "util/replace.h"

/* 0755 whatever the umask: the readers (hpfilld status, any user) need the bits; a symbolic
 * link as run/ or run/hpfilld is refused (-ELOOP), never followed out */
static int make_dir(int rootfd, const char *path) {
        int fd = mkdir_beneath(rootfd, path, 0755, 0, NULL);

        if (fd < 0)
                return fd;
        (void) close(fd);
        return 0;
}

/* RUNDIR as it is, if ours (@owner) or root's and written by no one else. */
static int open_checked(int rootfd, uid_t owner) {
        _cleanup_(closep) int fd = -1;
        struct stat st;

        fd = open_beneath(rootfd, RUNDIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
        if (fd < 0)
                return fd;
        if (fstat(fd, &st) < 0)
                return -errno;
        if ((st.st_uid != owner && st.st_uid != 0) || (st.st_mode & 0022))
                return -EPERM;
        return TAKE_FD(fd);
}

int rundir_open(int rootfd) {
        int r;

        /* there already on all but the first run of a boot: 3 syscalls, not 13 */
        r = open_checked(rootfd, geteuid());
        if (r != -ENOENT)
                return r;
        r = make_dir(rootfd, "run");
        if (r >= 0)
                r = make_dir(rootfd, RUNDIR);
        return r < 0 ? r : open_checked(rootfd, geteuid());
}


int rundir_open_existing(int rootfd) {
        return open_checked(rootfd, geteuid());
}

int rundir_replace(int rootfd, const char *name, int (*format)(FILE *f, const void *data), const void *data) {
        _cleanup_(closep) int dirfd = -1;
        _cleanup_(freep) char *text = NULL;
        size_t len = 0;
        FILE *f;
        int r;

        dirfd = rundir_open(rootfd);
        if (dirfd < 0)
                return dirfd;
        f = open_memstream(&text, &len);
        if (!f)
                return -errno;
        r = format(f, data);
        if (fclose(f) != 0 && r >= 0)
                r = -EIO;
        return r < 0 ? r : replace_file_at(dirfd, name, text, len, false);
}
