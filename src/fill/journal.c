/* SPDX-License-Identifier: MIT */
/* The journal of host settings a fill changes for its length: an entry per setting under
 * /run/hpfilld, written and synced before the change, removed once the value is put back. */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fill/journal.h"
#include "util/shown.h"
#include "fill/rundir.h"
#include "kernel/proc.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/replace.h"

int journal_format(const struct journal_entry *e, char *buf, size_t size) {
        int n = snprintf(buf, size, "path=%s found=%" PRIu64 " set=%" PRIu64 " pid=%d start=%" PRIu64 "\n", e->path,
                         e->found, e->set, (int) e->pid, e->start_time);
        return n < 0 || (size_t) n >= size ? -E2BIG : n;
}

int journal_parse(const char *s, struct journal_entry *ret) {
        struct journal_entry e = {};
        int pid;

        if (sscanf(s, "path=%159s found=%" SCNu64 " set=%" SCNu64 " pid=%d start=%" SCNu64, e.path, &e.found, &e.set,
                   &pid, &e.start_time) != 5 || pid <= 0)
                return -EBADMSG;
        /* a setting of the hugetlb pools, nothing else: the entry names what a later run writes */
        if (strncmp(e.path, "sys/kernel/mm/hugepages/hugepages-", 34) != 0 || strstr(e.path, "..") ||
            strchr(e.path + 34, '/') != strrchr(e.path, '/'))
                return -EBADMSG;
        e.pid = pid;
        *ret = e;
        return 0;
}

/* "changed.hugepages-2048kB.nr_overcommit_hugepages": the last two components of the path */
static int entry_name(const char *path, char *buf, size_t size) {
        const char *file = strrchr(path, '/'), *dir;
        int n;

        if (!file || file == path)
                return -EINVAL;
        for (dir = file - 1; dir > path && dir[-1] != '/'; dir--)
                ;
        n = snprintf(buf, size, JOURNAL_PREFIX "%.*s.%s", (int) (file - dir), dir, file + 1);
        return n < 0 || (size_t) n >= size ? -ENAMETOOLONG : 0;
}

/* The journal's directory, and the name of @path's entry in it. */
static int open_entry_dir(int rootfd, const char *path, char *name, size_t size) {
        int r = entry_name(path, name, size);

        return r < 0 ? r : rundir_open(rootfd);
}

int journal_record(int rootfd, const char *path, uint64_t found, uint64_t set) {
        _cleanup_(closep) int dirfd = -1;
        struct journal_entry e = { .found = found, .set = set, .pid = getpid() };
        char name[192], text[256];
        int n;

        (void) snprintf(e.path, sizeof(e.path), "%s", path);
        (void) proc_start_time(rootfd, e.pid, &e.start_time);
        n = journal_format(&e, text, sizeof(text));
        if (n < 0)
                return n;
        dirfd = open_entry_dir(rootfd, path, name, sizeof(name));
        if (dirfd < 0)
                return dirfd;
        /* Whole before it is in place, in place before the change. No fsync: the journal is for
         * a fill that dies (SIGKILL, the OOM killer), whose writes the page cache keeps; a reboot
         * empties /run and puts the kernel's settings back anyway. */
        return replace_file_at(dirfd, name, text, (size_t) n, false);
}

int journal_forget(int rootfd, const char *path) {
        _cleanup_(closep) int dirfd = -1;
        char name[192];

        dirfd = open_entry_dir(rootfd, path, name, sizeof(name));
        if (dirfd < 0)
                return dirfd;
        if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT)
                return -errno;
        return 0;
}

/* One entry: put back, or say why not. */
static void recover_one(int rootfd, int dirfd, const char *name, struct journal_outcome *o) {
        int r;

        r = read_u64_at(rootfd, o->entry.path, &o->now);
        if (r < 0) {
                o->result = JOURNAL_FAILED;
                o->error = r;
                return;
        }
        if (o->now != o->entry.set) {
                /* someone set it since: theirs is the value the admin wants */
                o->result = JOURNAL_CHANGED;
                (void) unlinkat(dirfd, name, 0);
                return;
        }
        r = write_u64_at(rootfd, o->entry.path, o->entry.found);
        if (r < 0) {
                o->result = r == -EACCES || r == -EPERM ? JOURNAL_DENIED : JOURNAL_FAILED;
                o->error = r;
                return;
        }
        o->result = JOURNAL_RESTORED;
        (void) unlinkat(dirfd, name, 0);
}

int journal_recover(int rootfd, struct journal_outcome *ret, size_t max) {
        _cleanup_(closedirp) DIR *d = NULL;
        struct dirent *de;
        size_t n = 0;
        int fd;

        fd = openat(rootfd, RUNDIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT ? 0 : -errno;
        d = fdopendir(fd);
        if (!d) {
                closep(&fd);
                return -errno;
        }
        while (n < max && (de = readdir(d))) {
                _cleanup_(freep) char *text = NULL;
                struct journal_outcome *o = &ret[n];
                size_t len = strlen(de->d_name);

                if (strncmp(de->d_name, JOURNAL_PREFIX, strlen(JOURNAL_PREFIX)) != 0 ||
                    (len > 4 && strcmp(de->d_name + len - 4, ".tmp") == 0))
                        continue;
                *o = (struct journal_outcome) {};
                if (read_full_file_at(dirfd(d), de->d_name, 4096, &text, NULL) < 0 ||
                    journal_parse(text, &o->entry) < 0)
                        continue;
                if (proc_is(rootfd, o->entry.pid, o->entry.start_time))
                        continue; /* its owner still runs, and puts it back itself */
                recover_one(rootfd, dirfd(d), de->d_name, o);
                n++;
        }
        return (int) n;
}

void journal_describe(const struct journal_outcome *o, char *buf, size_t size) {
        const struct journal_entry *e = &o->entry;

        switch (o->result) {
        case JOURNAL_RESTORED:
                (void) snprintf(buf, size,
                                "Put /%s back to %" PRIu64 ": pid %d raised it to %" PRIu64
                                " and ended before it put it back",
                                e->path, e->found, (int) e->pid, e->set);
                return;
        case JOURNAL_CHANGED:
                (void) snprintf(buf, size,
                                "Left %s/%s at %" PRIu64 ": pid %d, which is gone, had set it to %" PRIu64 " (from %" PRIu64
                                "), but it was changed since",
                                shown_root(), e->path, o->now, (int) e->pid, e->set, e->found);
                return;
        case JOURNAL_DENIED:
        case JOURNAL_FAILED:
                (void) snprintf(buf, size,
                                "%s/%s is still %" PRIu64 " as pid %d, which is gone, set it (it was %" PRIu64
                                "), and cannot be put back: %s%s",
                                shown_root(), e->path, e->set, (int) e->pid, e->found, strerror(-o->error),
                                o->result == JOURNAL_DENIED ? " (run hpfilld status as root)" : "");
                return;
        }
}
