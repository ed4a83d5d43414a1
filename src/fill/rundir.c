/* SPDX-License-Identifier: MIT */
/* /run/hpfilld: hpfilld's state on this boot (the host lock, the journal, the last fill). */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fill/rundir.h"
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

/* The directory rundir_hold() keeps, and the root it is below; -1: none. */
static int held_root = -1, held_fd = -1;

/* RUNDIR anew from the held directory, where it is still what RUNDIR names below @rootfd and
 * still as open_checked() wants it (ours or root's, written by no one else): as a walk from the
 * root would find it, for a stat() of the path. -ENOENT: none held, or no longer that one. */
static int held_copy(int rootfd) {
        struct stat held, now;
        int fd;

        if (held_fd < 0 || rootfd != held_root)
                return -ENOENT;
        if (fstat(held_fd, &held) < 0 || fstatat(rootfd, RUNDIR, &now, AT_SYMLINK_NOFOLLOW) < 0 ||
            held.st_dev != now.st_dev || held.st_ino != now.st_ino ||
            (held.st_uid != geteuid() && held.st_uid != 0) || (held.st_mode & 0022))
                return -ENOENT;
        /* opened anew, not dup()ed: a copy would share its offset, and a listing (the journal's,
         * the give-backs pending) would start where the last one ended */
        fd = openat(held_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}

int rundir_hold(int rootfd) {
        /* never made here: a run refused before its lock leaves no directory behind */
        int fd = open_checked(rootfd, geteuid());

        if (fd < 0)
                return fd;
        rundir_release();
        held_root = rootfd;
        held_fd = fd;
        return 0;
}

void rundir_release(void) {
        if (held_fd >= 0)
                (void) close(held_fd);
        held_fd = held_root = -1;
}

int rundir_open(int rootfd) {
        int r;

        r = held_copy(rootfd);
        if (r != -ENOENT)
                return r;
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
        int r = held_copy(rootfd);

        return r != -ENOENT ? r : open_checked(rootfd, geteuid());
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
