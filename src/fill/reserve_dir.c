/* SPDX-License-Identifier: MIT */
/* The directory a reservation lives in, MOUNT/hpfilld, opened and verified through descriptors. */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "fill/reserve.h"
#include "fill/reserve_dir.h"
#include "util/beneath.h"
#include "util/macro.h"
#include "util/owner.h"

/* What is at @dir/@name (@name "": @dir itself) when it could not be opened as a directory:
 * O_DIRECTORY|O_NOFOLLOW says ENOTDIR for a symlink too. */
static int describe_not_dir(int dirfd, const char *dir, const char *name, int error, struct error *e) {
        const char *slash = *name ? "/" : "";
        struct stat st;

        if (fstatat(dirfd, *name ? name : dir, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return error_set(e, error, "%s%s%s", dir, slash, name);
        if (S_ISLNK(st.st_mode))
                return error_set(e, -ELOOP, "%s%s%s is a symbolic link: refused", dir, slash, name);
        if (!S_ISDIR(st.st_mode))
                return error_set(e, -ENOTDIR, "%s%s%s is not a directory: refused", dir, slash, name);
        return error_set(e, error, "%s%s%s", dir, slash, name);
}

int reserve_mount_open(int rootfd, const char *mount, uint64_t page_size, int *ret_fd, struct error *e) {
        _cleanup_(closep) int fd = -1;
        struct statfs sfs;

        fd = open_beneath(rootfd, mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
        if (fd == -ELOOP)
                return error_set(e, fd, "%s: a symbolic link on its way or in its place: refused", mount);
        if (fd == -ENOTDIR)
                return error_set(e, fd, "%s is not a directory: refused", mount);
        if (fd < 0)
                return error_set(e, fd, "%s", mount);
        if (fstatfs(fd, &sfs) < 0)
                return error_set(e, -errno, "%s", mount);
        if ((unsigned long) sfs.f_type != HUGETLBFS_MAGIC)
                return error_set(e, -EXDEV, "%s is not a hugetlbfs mount (the mount table said so)", mount);
        /* hugetlbfs_statfs() reports the mount's huge page size as the block size */
        if (page_size && (uint64_t) sfs.f_bsize != page_size)
                return error_set(e, -EINVAL, "%s holds pages of %llu bytes, not %llu", mount,
                                 (unsigned long long) sfs.f_bsize, (unsigned long long) page_size);
        *ret_fd = TAKE_FD(fd);
        return 0;
}


int reserve_dir_open(int mountfd, const char *mount, bool create, int *ret_fd, struct error *e) {
        _cleanup_(closep) int fd = -1;
        bool made = false;
        struct stat st;
        char who[128];

        if (create) {
                if (mkdirat(mountfd, RESERVE_DIR, 0700) >= 0)
                        made = true;
                else if (errno != EEXIST)
                        return error_set(e, -errno, "%s/" RESERVE_DIR, mount);
        }
        /* nothing mounted on it either: the directory is the mount's own */
        fd = open_beneath(mountfd, RESERVE_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, BENEATH_NO_XDEV);
        if (fd < 0)
                return fd == -ENOENT ? error_set(e, -ENOENT, "%s/" RESERVE_DIR, mount)
                                     : describe_not_dir(mountfd, mount, RESERVE_DIR, fd, e);
        if (fstat(fd, &st) < 0)
                return error_set(e, -errno, "%s/" RESERVE_DIR, mount);
        /* Checked on the descriptor, even for the one just made: another user may have put a
         * directory of theirs in its place between mkdirat() and openat(). */
        if (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH))) {
                owner_name(st.st_uid, who, sizeof(who));
                return error_set(e, -EPERM,
                                 "%s/" RESERVE_DIR " belongs to %s, mode %04o: refused (it must be root's and "
                                 "writable by no one else)",
                                 mount, who, (unsigned) (st.st_mode & 07777));
        }
        /* made 0700, then opened to owners and groups of reservations: never the umask's */
        if (made && fchmod(fd, 0755) < 0)
                return error_set(e, -errno, "%s/" RESERVE_DIR, mount);
        *ret_fd = TAKE_FD(fd);
        return 0;
}
