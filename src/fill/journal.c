/* SPDX-License-Identifier: MIT */
/* The journal of host settings a fill changes for its length: an entry per setting under
 * /run/hpfilld, written and synced before the change, removed once the value is put back. */
#include <dirent.h>
#include <limits.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fill/journal.h"
#include "util/shown.h"
#include "state/rundir.h"
#include "kernel/proc.h"
#include "util/beneath.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/replace.h"
#include "util/sanitize.h"

int journal_format(const struct journal_entry *e, char *buf, size_t size) {
        int n = snprintf(buf, size, "path=%s found=%" PRIu64 " set=%" PRIu64 " pid=%d start=%" PRIu64 "\n", e->path,
                         e->found, e->set, (int) e->pid, e->start_time);
        return n < 0 || (size_t) n >= size ? -E2BIG : n;
}

/* The settings a fill changes for its length, and so the only ones an entry may name. */
static const char *const journal_settings[] = { "nr_overcommit_hugepages" };

#define POOLS_DIR "sys/kernel/mm/hugepages/"

/* "sys/kernel/mm/hugepages/hugepages-<digits>kB/<a setting of journal_settings>", exactly. */
static bool setting_path_valid(const char *path) {
        const char *p = path + strlen(POOLS_DIR "hugepages-");
        size_t digits;

        if (strncmp(path, POOLS_DIR "hugepages-", strlen(POOLS_DIR "hugepages-")) != 0)
                return false;
        digits = strspn(p, "0123456789");
        if (digits == 0 || digits > 20 || strncmp(p + digits, "kB/", 3) != 0)
                return false;
        p += digits + 3;
        for (size_t i = 0; i < ELEMENTSOF(journal_settings); i++)
                if (strcmp(p, journal_settings[i]) == 0)
                        return true;
        return false;
}

int journal_parse(const char *s, struct journal_entry *ret) {
        struct journal_entry e = {};
        int pid, n = 0;

        /* one line of hpfilld's own making: anything else (control characters, more fields, a
         * second line) is not an entry */
        if (sscanf(s, "path=%159s found=%" SCNu64 " set=%" SCNu64 " pid=%d start=%" SCNu64 "%n", e.path, &e.found,
                   &e.set, &pid, &e.start_time, &n) != 5 || pid <= 0 || (s[n] && strcmp(s + n, "\n") != 0) ||
            has_controls(e.path))
                return -EBADMSG;
        /* a setting a fill changes, nothing else: the entry names what a later run writes */
        if (!setting_path_valid(e.path))
                return -EBADMSG;
        e.pid = pid;
        *ret = e;
        return 0;
}

/* The setting's file, opened without following a symbolic link anywhere on the way
 * (open_parent_beneath(), then O_NOFOLLOW): each directory down to hugepages-<N>kB must be a
 * real one (a tree under --root, or a forged entry, may name a link to any file), and the file
 * a regular one (sysfs attributes are). -ELOOP for a link on the way, -ENOENT
 * for a page size this kernel does not offer, -EBADFD for a file that is not regular. */
static int open_setting(int rootfd, bool host, const char *path, int flags) {
        _cleanup_(closep) int dirfd = -1;
        const char *p;

        dirfd = open_parent_beneath(rootfd, path, 0, &p);
        if (dirfd < 0)
                return dirfd;
        if (host) {
                /* the host's own: on sysfs, not a file a mount or a bind mount put in its place */
                struct statfs sfs;

                if (fstatfs(dirfd, &sfs) < 0)
                        return -errno;
                if (sfs.f_type != SYSFS_MAGIC)
                        return -EXDEV;
        }
        return open_regular_at(dirfd, p, flags, 0, NULL);
}

static int setting_read(int rootfd, bool host, const char *path, uint64_t *ret) {
        _cleanup_(closep) int fd = open_setting(rootfd, host, path, O_RDONLY);

        return fd < 0 ? fd : read_u64_fd(fd, ret);
}

static int setting_write(int rootfd, bool host, const char *path, uint64_t v) {
        _cleanup_(closep) int fd = open_setting(rootfd, host, path, O_WRONLY);
        char text[24];

        (void) snprintf(text, sizeof(text), "%" PRIu64 "\n", v);
        return fd < 0 ? fd : write_string_fd(fd, text);
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
        /* Whole before it is in place, in place and synced before the change: the entry and then
         * its directory (the rename), so that what a crash of the machine leaves on a /run that
         * is not tmpfs never names a change that was not recorded. On tmpfs both cost nothing;
         * only a fill that raises a setting (the fault method's overcommit) writes an entry. */
        n = replace_file_at(dirfd, name, text, (size_t) n, true);
        if (n >= 0 && fsync(dirfd) < 0)
                n = -errno;
        return n < 0 ? n : 0;
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

/* An entry whose setting cannot be opened as a pool's setting names something else. */
static bool names_no_setting(int r) {
        return r == -ELOOP || r == -ENOTDIR || r == -ENOENT || r == -EBADFD || r == -EBADMSG || r == -EXDEV;
}

/* One entry of an owner that is gone: what it left, and with @repair, put back. */
static void recover_one(int rootfd, bool host, int dirfd, const char *name, bool repair, struct journal_outcome *o) {
        int r;

        r = setting_read(rootfd, host, o->entry.path, &o->now);
        if (r < 0) {
                o->result = names_no_setting(r) ? JOURNAL_INVALID : JOURNAL_FAILED;
                o->error = r;
                return;
        }
        if (o->now != o->entry.set) {
                /* someone set it since: theirs is the value the admin wants */
                o->result = JOURNAL_CHANGED;
                if (repair)
                        (void) unlinkat(dirfd, name, 0);
                return;
        }
        if (!repair) {
                o->result = JOURNAL_STALE;
                return;
        }
        r = setting_write(rootfd, host, o->entry.path, o->entry.found);
        if (r < 0) {
                o->result = r == -EACCES || r == -EPERM ? JOURNAL_DENIED : JOURNAL_FAILED;
                o->error = r;
                return;
        }
        o->result = JOURNAL_RESTORED;
        (void) unlinkat(dirfd, name, 0);
}

/* Whether @name is the entry a fill makes for the path in @e. */
static bool entry_is_named(const struct journal_entry *e, const char *name) {
        char want[192];

        return entry_name(e->path, want, sizeof(want)) >= 0 && strcmp(want, name) == 0;
}

static int journal_walk(int rootfd, bool host, int fd, bool repair, struct journal_outcome *ret, size_t max) {
        _cleanup_(closedirp) DIR *d = NULL;
        struct dirent *de;
        size_t n = 0;

        d = fdopendir(fd);
        if (!d) {
                closep(&fd);
                return -errno;
        }
        while (n < max && (de = readdir(d))) {
                _cleanup_(freep) char *text = NULL;
                struct journal_outcome *o = &ret[n];
                size_t len = strlen(de->d_name);
                int r;

                if (strncmp(de->d_name, JOURNAL_PREFIX, strlen(JOURNAL_PREFIX)) != 0 ||
                    (len > 4 && strcmp(de->d_name + len - 4, ".tmp") == 0))
                        continue;
                *o = (struct journal_outcome) { .inspected = !repair };
                (void) snprintf(o->name, sizeof(o->name), "%s", de->d_name);
                n++;
                /* hpfilld's own files, or not an entry: never a path to write to, and never
                 * a link to another file (one in a tree someone else made, --root):
                 * read_full_file_at() follows none, the last component's included */
                r = read_full_file_at(dirfd(d), de->d_name, 4096, &text, NULL);
                if (r >= 0)
                        r = journal_parse(text, &o->entry);
                if (r >= 0 && !entry_is_named(&o->entry, de->d_name))
                        r = -EBADMSG;
                if (r < 0) {
                        o->entry = (struct journal_entry) {};
                        o->result = JOURNAL_INVALID;
                        o->error = r;
                        continue;
                }
                if (proc_is(rootfd, o->entry.pid, o->entry.start_time)) {
                        n--; /* its owner still runs, and puts it back itself */
                        continue;
                }
                recover_one(rootfd, host, dirfd(d), de->d_name, repair, o);
        }
        return (int) n;
}

int journal_recover(int rootfd, bool host, struct journal_outcome *ret, size_t max) {
        int fd = rundir_open(rootfd);

        return fd < 0 ? fd : journal_walk(rootfd, host, fd, true, ret, max);
}

int journal_inspect(int rootfd, bool host, struct journal_outcome *ret, size_t max) {
        int fd = rundir_open_existing(rootfd);

        if (fd == -ENOENT)
                return 0;
        return fd < 0 ? fd : journal_walk(rootfd, host, fd, false, ret, max);
}

void journal_describe(const struct journal_outcome *o, char *buf, size_t size) {
        const struct journal_entry *e = &o->entry;
        char name[4 * sizeof(o->name)];

        switch (o->result) {
        case JOURNAL_RESTORED:
                (void) snprintf(buf, size,
                                "Put %s/%s back to %" PRIu64 ": pid %d raised it to %" PRIu64
                                " and ended before it put it back",
                                shown_root(), e->path, e->found, (int) e->pid, e->set);
                return;
        case JOURNAL_STALE:
                (void) snprintf(buf, size,
                                "%s/%s is still %" PRIu64 ": pid %d, which is gone, raised it from %" PRIu64
                                " and did not put it back; the next fill puts it back",
                                shown_root(), e->path, e->set, (int) e->pid, e->found);
                return;
        case JOURNAL_CHANGED:
                (void) snprintf(buf, size,
                                "%s %s/%s at %" PRIu64 ": pid %d, which is gone, had set it to %" PRIu64 " (from %" PRIu64
                                "), but it was changed since%s",
                                o->inspected ? "The next fill leaves" : "Left", shown_root(), e->path, o->now,
                                (int) e->pid, e->set, e->found, o->inspected ? " (and drops the entry)" : "");
                return;
        case JOURNAL_INVALID:
                escape_controls(name, sizeof(name), o->name);
                (void) snprintf(buf, size,
                                "%s/" RUNDIR "/%s is not an entry hpfilld makes, or names no pool setting: %s; left "
                                "alone, nothing written",
                                shown_root(), name, strerror(-o->error));
                return;
        case JOURNAL_DENIED:
        case JOURNAL_FAILED:
                (void) snprintf(buf, size,
                                "%s/%s is still %" PRIu64 " as pid %d, which is gone, set it (it was %" PRIu64
                                "), and cannot be %s: %s%s",
                                shown_root(), e->path, e->set, (int) e->pid, e->found,
                                o->inspected ? "read" : "put back", strerror(-o->error),
                                o->result == JOURNAL_DENIED ? " (a fill as root puts it back)" : "");
                return;
        }
}
