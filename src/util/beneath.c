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

/* A walk of open_beneath_walk(): where it is, what is left, what it resolved so far */
struct walk {
        int dirfd;     /* the root */
        unsigned how;
        char *todo;    /* the path left to walk, and the links' targets put in front of it */
        char *p;       /* the next component, in @todo */
        int cur;       /* the directory the walk is in */
        char done[PATH_MAX]; /* resolved so far, no links nor "..": what ".." walks again */
        unsigned links;
};

/* "..": up from what was resolved, and never above the root */
static int walk_up(struct walk *w) {
        char *slash = strrchr(w->done, '/');
        int fd;

        if (slash)
                *slash = 0;
        else
                w->done[0] = 0;
        fd = *w->done ? open_beneath_walk(w->dirfd, w->done, O_PATH | O_DIRECTORY | O_CLOEXEC, 0, w->how & ~BENEATH_FOLLOW)
                      : dup_dir(w->dirfd);
        if (fd < 0)
                return fd;
        closep(&w->cur);
        w->cur = fd;
        return 0;
}

/* The link @comp of the current directory followed: its target, then what was left after it,
 * from the root where the target is absolute */
static int walk_link(struct walk *w, const char *comp) {
        char target[PATH_MAX], *next;
        ssize_t n;

        if (++w->links > BENEATH_MAX_LINKS)
                return -ELOOP;
        n = readlinkat(w->cur, comp, target, sizeof(target) - 1);
        if (n < 0)
                return -errno;
        target[n] = 0;
        next = malloc((size_t) n + strlen(w->p) + 2);
        if (!next)
                return -ENOMEM;
        strcpy(next, target);
        strcat(next, "/");
        strcat(next, w->p);
        free(w->todo);
        w->p = w->todo = next;
        if (target[0] == '/') {
                w->done[0] = 0;
                closep(&w->cur);
                w->cur = dup_dir(w->dirfd);
                if (w->cur < 0)
                        return w->cur;
        }
        return 0;
}

/* Into directory @fd, component @comp: what ".." walks again */
static int walk_down(struct walk *w, int fd, const char *comp) {
        closep(&w->cur);
        w->cur = fd;
        if (strcmp(comp, ".") == 0)
                return 0;
        if (strlen(w->done) + 1 + strlen(comp) >= sizeof(w->done))
                return -ENAMETOOLONG;
        if (*w->done)
                strcat(w->done, "/");
        strcat(w->done, comp);
        return 0;
}

/* The next component of the walk into @comp (".": none, the path ends in "/"), whether it is
 * the last */
static int walk_next(struct walk *w, char comp[static NAME_MAX + 1], bool *ret_last) {
        size_t len;

        w->p += strspn(w->p, "/");
        len = strcspn(w->p, "/");
        *ret_last = w->p[len + strspn(w->p + len, "/")] == 0;
        if (len > NAME_MAX)
                return -ENAMETOOLONG;
        memcpy(comp, len ? w->p : ".", len ? len : 1);
        comp[len ? len : 1] = 0;
        w->p += len;
        return 0;
}

int open_beneath_walk(int dirfd, const char *path, int flags, mode_t mode, unsigned how) {
        struct walk w = { .dirfd = dirfd, .how = how, .todo = strdup(path), .cur = -1 };
        struct stat top;
        int r;

        if (!w.todo)
                return -ENOMEM;
        w.p = w.todo;
        r = fstat(dirfd, &top) < 0 ? -errno : dup_dir(dirfd);
        for (w.cur = r; r >= 0;) {
                char comp[NAME_MAX + 1];
                bool last;
                int fd = -1;

                r = walk_next(&w, comp, &last);
                if (r >= 0 && strcmp(comp, "..") == 0) {
                        r = walk_up(&w);
                        if (r < 0 || !last)
                                continue;
                        strcpy(comp, ".");
                }
                if (r >= 0)
                        r = open_component(w.cur, comp, last, flags, mode, &fd);
                if (r > 0) {
                        r = !(how & BENEATH_FOLLOW) || (last && (flags & O_NOFOLLOW)) ? -ELOOP : walk_link(&w, comp);
                        continue;
                }
                if (r >= 0 && (how & BENEATH_NO_XDEV)) {
                        struct stat st;

                        if (fstat(fd, &st) < 0 || st.st_dev != top.st_dev) {
                                closep(&fd);
                                r = -EXDEV;
                        }
                }
                if (r >= 0 && last) {
                        r = fd;
                        break;
                }
                if (r >= 0)
                        r = walk_down(&w, fd, comp);
        }
        closep(&w.cur);
        free(w.todo);
        return r;
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
