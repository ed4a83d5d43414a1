/* SPDX-License-Identifier: MIT */
/* The directory of a file root writes for others to read: walked without links, root's or
 * ours, writable by no one else. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/beneath.h"
#include "util/macro.h"
#include "util/owner.h"
#include "util/trusted_dir.h"

int trusted_dir_open(const char *path, const char **ret_name, struct error *e) {
        _cleanup_(closep) int rootfd = -1, dirfd = -1;
        const char *slash = strrchr(path, '/');
        char dir[PATH_MAX], who[128];
        struct stat st;

        if (path[0] != '/' || !slash || !slash[1])
                return error_set(e, -EINVAL, "%s: not an absolute path to a file", path);
        if ((size_t) (slash - path) + 2 >= sizeof(dir))
                return error_set(e, -ENAMETOOLONG, "%s: too long", path);
        memcpy(dir, path, (size_t) (slash - path) + 1);
        dir[slash - path + 1] = 0;
        rootfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (rootfd < 0)
                return error_set(e, -errno, "/: %m");
        dirfd = open_beneath(rootfd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
        if (dirfd == -ELOOP)
                return error_set(e, dirfd, "%s: a symbolic link on its way: refused (name the directory itself)", dir);
        if (dirfd < 0)
                return error_set(e, dirfd, "%s: %s", dir, strerror(-dirfd));
        if (fstat(dirfd, &st) < 0)
                return error_set(e, -errno, "%s: %m", dir);
        if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & (S_IWGRP | S_IWOTH))) {
                owner_name(st.st_uid, who, sizeof(who));
                return error_set(e, -EPERM,
                                 "%s belongs to %s, mode %04o: refused (it must be root's or the user's hpfilld runs "
                                 "as, and writable by no one else)",
                                 dir, who, (unsigned) (st.st_mode & 07777));
        }
        *ret_name = slash + 1;
        return TAKE_FD(dirfd);
}

int trusted_dir_check(const char *path, struct error *e) {
        _cleanup_(closep) int fd = -1;
        struct error inner = {};
        const char *name;

        fd = trusted_dir_open(path, &name, &inner);
        if (fd == -ELOOP || fd == -EPERM)
                return error_set(e, fd, "%s", inner.msg);
        return 0;
}
