/* SPDX-License-Identifier: MIT */
/* The reservations there are: every file in MOUNT/hpfilld of each hugetlbfs mount. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "fill/reserve.h"
#include "fill/reserve_dir.h"
#include "service/reserve_list.h"
#include "kernel/mounts.h"
#include "util/fileio.h"
#include "util/macro.h"

struct listing {
        int rootfd; /* the mount points of its mount table are below it */
        struct reserve_found *found;
        size_t n;
        struct { dev_t dev; ino_t ino; } *seen; /* one per file listed: a bind mount shows it again */
        struct error *e; /* the first mount that could not be looked in */
};

/* Told as every fill tells it, on a descriptor only for reading; the lease, if any, is given
 * back at once. */
static enum reserve_use file_use(int dirfd, const char *name) {
        _cleanup_(closep) int fd = -1;

        return reserve_use_open(dirfd, name, O_RDONLY, &fd, NULL);
}

static bool seen_before(struct listing *l, const struct stat *st) {
        for (size_t i = 0; i < l->n; i++)
                if (l->seen[i].dev == st->st_dev && l->seen[i].ino == st->st_ino)
                        return true;
        return false;
}

static int add(struct listing *l, const char *mount, int dirfd, const char *name, const struct stat *st,
               uint64_t page_size) {
        struct reserve_found *f = realloc(l->found, (l->n + 1) * sizeof(*f));
        __typeof__(l->seen) s;

        if (!f)
                return -ENOMEM;
        l->found = f;
        s = realloc(l->seen, (l->n + 1) * sizeof(*s));
        if (!s)
                return -ENOMEM;
        l->seen = s;
        s[l->n].dev = st->st_dev;
        s[l->n].ino = st->st_ino;
        f = &l->found[l->n++];
        *f = (struct reserve_found) { .page_size = page_size, .pages = (uint64_t) st->st_size / page_size,
                                      .uid = st->st_uid, .gid = st->st_gid, .mode = st->st_mode & 07777,
                                      .use = file_use(dirfd, name) };
        (void) snprintf(f->name, sizeof(f->name), "%s", name);
        (void) snprintf(f->path, sizeof(f->path), "%s/" RESERVE_DIR "/%s", mount, name);
        return 0;
}

/* One mount: its MOUNT/hpfilld if it passes the checks (one that does not holds nothing of
 * ours), and the regular files in it. */
static int list_mount(const char *mount, uint64_t page_size, void *userdata) {
        _cleanup_(closep) int mountfd = -1, dirfd = -1;
        _cleanup_(closedirp) DIR *d = NULL;
        struct listing *l = userdata;
        struct error e = {};
        struct statfs sfs;
        struct dirent *de;
        int fd, r;

        (void) page_size; /* the mount's own, from the file system: hugetlbfs_statfs()'s f_bsize */
        r = reserve_mount_open(l->rootfd, mount, 0, &mountfd, &e);
        if (r >= 0 && (fstatfs(mountfd, &sfs) < 0 || sfs.f_bsize <= 0))
                r = error_set(&e, -EIO, "%s: statfs", mount);
        if (r >= 0)
                r = reserve_dir_open(mountfd, mount, false, &dirfd, &e);
        /* no MOUNT/hpfilld: nothing of ours there; one refused holds nothing of ours either */
        if (r == -ENOENT && mountfd >= 0)
                return 0;
        if (r < 0) {
                /* "PATH: why", whether the message is a path alone (the mount, MOUNT/hpfilld, a
                 * reservation's name within: no space after the mount's path) or says why itself */
                size_t n = strlen(mount);
                bool says_why = strncmp(e.msg, mount, n) == 0 ? strchr(e.msg + n, ' ') != NULL : true;

                if (l->e && !*l->e->msg && says_why)
                        (void) error_set(l->e, r, "%s", e.msg);
                else if (l->e && !*l->e->msg)
                        (void) error_set(l->e, r, "%s: %s", e.msg, strerror(-r));
                return 0;
        }
        fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
        d = fd >= 0 ? fdopendir(fd) : NULL;
        if (!d) {
                closep(&fd);
                return 0;
        }
        while ((de = readdir(d))) {
                struct stat st;

                if (de->d_name[0] == '.' || fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
                    !S_ISREG(st.st_mode) || seen_before(l, &st))
                        continue;
                r = add(l, mount, dirfd, de->d_name, &st, (uint64_t) sfs.f_bsize);
                if (r < 0)
                        return r;
        }
        return 0;
}

int reserve_list(int rootfd, struct reserve_found **ret, struct error *e) {
        _cleanup_(freep) char *mounts = NULL;
        struct listing l = { .rootfd = rootfd, .e = e };
        int r;

        r = mounts_read(rootfd, &mounts);
        if (r >= 0)
                r = mounts_foreach_hugetlbfs(mounts, 0, list_mount, &l);
        free(l.seen);
        if (r < 0) {
                free(l.found);
                return r;
        }
        *ret = l.found;
        return (int) l.n;
}
