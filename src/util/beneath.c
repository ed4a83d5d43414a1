/* SPDX-License-Identifier: MIT */
/* Opening a path below a directory fd (--root, a mount) so that it never resolves outside it. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/beneath.h"
#include "util/macro.h"

/* as the kernel's path walk (MAXSYMLINKS) */
#define BENEATH_MAX_LINKS 40

static int dup_dir(int dirfd) {
        int fd = openat(dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);

        return fd < 0 ? -errno : fd;
}

/* Opens @comp, a single component, below @cur: the last one with the caller's @flags, one on the
 * way as a directory (O_PATH: search permission is all the kernel's walk needs). Never follows
 * a link; one in the way is -ELOOP, told apart from other errors by lstat. 1 with *@ret_fd
 * closed: @comp is a link. */
static int open_component(int cur, const char *comp, bool last, int flags, mode_t mode, int *ret_fd) {
        int fd;
        struct stat st;

        fd = last ? openat(cur, comp, flags | O_NOFOLLOW, mode)
                  : openat(cur, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0) {
                /* O_PATH|O_NOFOLLOW opens a link itself */
                if (fstat(fd, &st) < 0) {
                        closep(&fd);
                        return -errno;
                }
                if (S_ISLNK(st.st_mode)) {
                        closep(&fd);
                        return 1;
                }
                *ret_fd = fd;
                return 0;
        }
        if (errno != ELOOP && errno != ENOTDIR)
                return -errno;
        fd = -errno;
        if (fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) >= 0 && S_ISLNK(st.st_mode))
                return 1;
        return fd;
}

int open_beneath_walk(int dirfd, const char *path, int flags, mode_t mode, unsigned how) {
        _cleanup_(freep) char *todo = strdup(path);
        _cleanup_(closep) int cur = -1;
        char done[PATH_MAX] = ""; /* resolved so far, no links nor "..": what ".." walks again */
        unsigned links = 0;
        struct stat top;
        char *p;

        if (!todo)
                return -ENOMEM;
        if (fstat(dirfd, &top) < 0)
                return -errno;
        cur = dup_dir(dirfd);
        if (cur < 0)
                return cur;
        for (p = todo;;) {
                char comp[NAME_MAX + 1];
                size_t len;
                bool last;
                int fd = -1, r;

                p += strspn(p, "/");
                len = strcspn(p, "/");
                last = p[len + strspn(p + len, "/")] == 0;
                if (len > NAME_MAX)
                        return -ENAMETOOLONG;
                memcpy(comp, len ? p : ".", len ? len : 1);
                comp[len ? len : 1] = 0;
                p += len;
                if (strcmp(comp, "..") == 0) {
                        char *slash = strrchr(done, '/');

                        /* up from what was resolved, and never above @dirfd */
                        if (slash)
                                *slash = 0;
                        else
                                done[0] = 0;
                        fd = *done ? open_beneath_walk(dirfd, done, O_PATH | O_DIRECTORY | O_CLOEXEC, 0, how & ~BENEATH_FOLLOW)
                                   : dup_dir(dirfd);
                        if (fd < 0)
                                return fd;
                        closep(&cur);
                        cur = fd;
                        if (!last)
                                continue;
                        strcpy(comp, ".");
                }
                r = open_component(cur, comp, last, flags, mode, &fd);
                if (r < 0)
                        return r;
                if (r > 0) {
                        char target[PATH_MAX];
                        ssize_t n;
                        char *next;

                        if (!(how & BENEATH_FOLLOW) || (last && (flags & O_NOFOLLOW)) || ++links > BENEATH_MAX_LINKS)
                                return -ELOOP;
                        n = readlinkat(cur, comp, target, sizeof(target) - 1);
                        if (n < 0)
                                return -errno;
                        target[n] = 0;
                        /* the link's target, then what was left after it */
                        next = malloc((size_t) n + strlen(p) + 2);
                        if (!next)
                                return -ENOMEM;
                        strcpy(next, target);
                        strcat(next, "/");
                        strcat(next, p);
                        free(todo);
                        p = todo = next;
                        if (target[0] == '/') {
                                done[0] = 0;
                                closep(&cur);
                                cur = dup_dir(dirfd);
                                if (cur < 0)
                                        return cur;
                        }
                        continue;
                }
                if (how & BENEATH_NO_XDEV) {
                        struct stat st;

                        if (fstat(fd, &st) < 0 || st.st_dev != top.st_dev) {
                                closep(&fd);
                                return -EXDEV;
                        }
                }
                if (last)
                        return fd;
                closep(&cur);
                cur = fd;
                if (strcmp(comp, ".") != 0) {
                        if (strlen(done) + 1 + strlen(comp) >= sizeof(done))
                                return -ENAMETOOLONG;
                        if (*done)
                                strcat(done, "/");
                        strcat(done, comp);
                }
        }
}

int open_beneath(int dirfd, const char *path, int flags, mode_t mode, unsigned how) {
        static atomic_bool no_openat2;
        struct open_how oh = {
                .flags = (uint64_t) (unsigned) flags,
                .mode = (flags & (O_CREAT | __O_TMPFILE)) ? mode : 0,
                .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS | (how & BENEATH_FOLLOW ? 0 : RESOLVE_NO_SYMLINKS) |
                           (how & BENEATH_NO_XDEV ? RESOLVE_NO_XDEV : 0),
        };
        long fd;

        if (dirfd == AT_FDCWD) { /* no root: a path the admin named */
                fd = openat(dirfd, path, flags, mode);
                return fd < 0 ? -errno : (int) fd;
        }
        if (!atomic_load(&no_openat2)) {
                /* EAGAIN: a rename raced with ".." (the kernel cannot tell it stayed inside) */
                for (unsigned tries = 0; tries < 8; tries++) {
                        fd = syscall(SYS_openat2, dirfd, *path ? path : ".", &oh, sizeof(oh));
                        if (fd >= 0)
                                return (int) fd;
                        if (errno != EAGAIN)
                                break;
                }
                if (errno != ENOSYS)
                        return -errno;
                atomic_store(&no_openat2, true);
        }
        return open_beneath_walk(dirfd, path, flags, mode, how);
}

int open_parent_beneath(int dirfd, const char *path, unsigned how, const char **ret_name) {
        _cleanup_(freep) char *dir = strdup(path);
        const char *name;
        size_t nlen;
        char *end;

        if (!dir)
                return -ENOMEM;
        /* trailing slashes are no component */
        end = dir + strlen(dir);
        while (end > dir && end[-1] == '/')
                *--end = 0;
        end = strrchr(dir, '/');
        name = path + (end ? (size_t) (end - dir) + 1 : 0);
        nlen = strcspn(name, "/");
        if (nlen == 0 || strncmp(name, "..", nlen) == 0) /* "", ".", ".." */
                return -EINVAL;
        if (end)
                end[1] = 0;
        else
                strcpy(dir, ".");
        *ret_name = name;
        return open_beneath(dirfd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, how);
}

int mkdir_beneath(int dirfd, const char *path, mode_t mode, unsigned how, bool *ret_made) {
        _cleanup_(closep) int parent = -1, fd = -1;
        const char *name;
        bool made = false;
        struct stat st;

        parent = open_parent_beneath(dirfd, path, how, &name);
        if (parent < 0)
                return parent;
        if (mkdirat(parent, name, mode) >= 0)
                made = true;
        else if (errno != EEXIST)
                return -errno;
        fd = open_beneath(parent, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, how & ~BENEATH_FOLLOW);
        if (fd < 0)
                return fd;
        /* the umask may have taken bits; one another user put in its place is theirs to keep */
        if (made && (fstat(fd, &st) < 0 || (st.st_uid == geteuid() && fchmod(fd, mode) < 0)))
                return -errno;
        if (ret_made)
                *ret_made = made;
        return TAKE_FD(fd);
}
