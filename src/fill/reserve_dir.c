/* SPDX-License-Identifier: MIT */
/* The directory a reservation lives in, MOUNT/hpfilld, opened and verified through descriptors. */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

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

static int dir_open_checked(int mountfd, const char *mount, bool create, int *ret_fd, struct error *e) {
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

/* Renames what is at MOUNT/hpfilld (another user's directory, a link, a file) to a name of its
 * own beside it, hpfilld.moved.UID.NS: on a mount of mode 1777 its owner can do no more than
 * make another, and root without CAP_FOWNER could not empty and remove it. A name no one can
 * guess, so that none can be put there first to stop the rename. */
static int move_aside(int mountfd, const char *mount, struct error *e) {
        char name[96], who[128];
        struct timespec ts;
        struct stat st;

        if (fstatat(mountfd, RESERVE_DIR, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT ? 0 : error_set(e, -errno, "%s/" RESERVE_DIR, mount);
        (void) clock_gettime(CLOCK_REALTIME, &ts);
        (void) snprintf(name, sizeof(name), RESERVE_DIR ".moved.%u.%lld%09ld", (unsigned) st.st_uid,
                        (long long) ts.tv_sec, (long) ts.tv_nsec);
        if (renameat2(mountfd, RESERVE_DIR, mountfd, name, RENAME_NOREPLACE) < 0)
                return error_set(e, -errno,
                                 "%s/" RESERVE_DIR " is not root's, and cannot be moved aside: %s (a mount of "
                                 "another owner's needs CAP_FOWNER; name the mount with Mount=)",
                                 mount, strerror(errno));
        owner_name(st.st_uid, who, sizeof(who));
        (void) error_set(e, 0, "%s/" RESERVE_DIR " was %s of %s, mode %04o: moved aside to %s/%s, and a new one made",
                         mount, S_ISDIR(st.st_mode) ? "a directory" : S_ISLNK(st.st_mode) ? "a symbolic link" : "a file",
                         who, (unsigned) (st.st_mode & 07777), mount, name);
        return 1;
}

int reserve_dir_open(int mountfd, const char *mount, bool create, int *ret_fd, struct error *e) {
        struct error moved = {};
        int r;

        /* a few times: its owner may make another between the rename and our mkdirat() */
        for (unsigned tries = 0;; tries++) {
                r = dir_open_checked(mountfd, mount, create, ret_fd, e);
                if (!create || tries >= 3 || (r != -EPERM && r != -ELOOP && r != -ENOTDIR))
                        break;
                r = move_aside(mountfd, mount, &moved);
                if (r < 0)
                        return error_set(e, r, "%s", moved.msg);
        }
        if (r < 0 || !*moved.msg)
                return r;
        *e = moved;
        return 1;
}
