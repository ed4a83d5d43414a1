/* SPDX-License-Identifier: MIT */
/* Where hugetlbfs is mounted for a page size: libhugetlbfs on the host, /proc/mounts otherwise. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "util/beneath.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "kernel/mounts.h"
#include "util/number.h"

/* Undoes the octal escapes of a mounts field in place: show_vfsmnt() (fs/proc_namespace.c)
 * writes space, tab, newline and backslash as \ooo (seq_escape()). Anything else odd, a
 * backslash without three octal digits, \000, or a control character raw or decoded, and the
 * field is refused: hpfilld takes no mount it cannot name on one line. */
static int unescape_field(char *s) {
        char *w = s;

        for (char *r = s; *r; r++) {
                unsigned char c = (unsigned char) *r;

                if (c == '\\') {
                        if (r[1] < '0' || r[1] > '3' || r[2] < '0' || r[2] > '7' || r[3] < '0' || r[3] > '7')
                                return -EBADMSG;
                        c = (unsigned char) ((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
                        r += 3;
                }
                if (c < 0x20 || c == 0x7f)
                        return -EBADMSG;
                *w++ = (char) c;
        }
        *w = 0;
        return 0;
}

/* One line: exactly six fields split on single spaces, none empty, escapes undone; the path
 * absolute. No length limit: a path of any length is one field (a fixed-width scanf would
 * read the tail of a long FUSE path as the next field). */
static int parse_mount_line(char *line, char **ret_dir, char **ret_type, char **ret_opts) {
        char *field[6];
        size_t n = 0;

        for (char *p = line;; p++) {
                if (n == ELEMENTSOF(field))
                        return -EBADMSG;
                field[n++] = p;
                p = strchr(p, ' ');
                if (!p)
                        break;
                *p = 0;
        }
        if (n != ELEMENTSOF(field))
                return -EBADMSG;
        for (size_t i = 0; i < n; i++)
                if (!*field[i] || unescape_field(field[i]) < 0)
                        return -EBADMSG;
        if (field[1][0] != '/')
                return -EBADMSG;
        *ret_dir = field[1];
        *ret_type = field[2];
        *ret_opts = field[3];
        return 0;
}

/* pagesize= among the options (comma separated), or @def without one; -EBADMSG if unreadable. */
static int opts_page_size(char *opts, uint64_t def, uint64_t *ret) {
        char *save = NULL;

        *ret = def;
        for (char *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save))
                if (strncmp(o, "pagesize=", strlen("pagesize=")) == 0 &&
                    parse_page_size(o + strlen("pagesize="), ret, NULL) < 0)
                        return -EBADMSG;
        return 0;
}

int mounts_foreach_hugetlbfs(const char *mounts, uint64_t default_page_size,
                             int (*cb)(const char *dir, uint64_t page_size, void *userdata), void *userdata) {
        _cleanup_(freep) char *copy = strdup(mounts);
        char *line, *next;

        if (!copy)
                return -ENOMEM;
        for (line = copy; *line; line = next) {
                char *dir, *type, *opts;
                uint64_t size_here;
                int r;

                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                else
                        next = line + strlen(line);
                /* a line that is not as the kernel writes them is no mount of ours */
                if (parse_mount_line(line, &dir, &type, &opts) < 0 || strcmp(type, "hugetlbfs") != 0 ||
                    opts_page_size(opts, default_page_size, &size_here) < 0)
                        continue;
                r = cb(dir, size_here, userdata);
                if (r != 0)
                        return r;
        }
        return 0;
}

struct find {
        uint64_t page_size;
        char *ret;
        size_t size;
};

static int match_size(const char *dir, uint64_t page_size, void *userdata) {
        struct find *f = userdata;

        if (page_size != f->page_size)
                return 0;
        if (strlen(dir) >= f->size)
                return -ENAMETOOLONG;
        memcpy(f->ret, dir, strlen(dir) + 1);
        return 1;
}

int mounts_find_hugetlbfs(const char *mounts, uint64_t page_size, uint64_t default_page_size, char *ret,
                          size_t size) {
        struct find f = { page_size, ret, size };
        int r = mounts_foreach_hugetlbfs(mounts, default_page_size, match_size, &f);

        return r < 0 ? r : r == 0 ? -ENOENT : 0;
}

#if HAVE_LIBHUGETLBFS
static int find_with_libhugetlbfs(uint64_t page_size, char *ret, size_t size) {
        const char *(*find)(long);
        const char *path;
        void *lib;

        /* libhugetlbfs's constructor acts on HUGETLB_* (HUGETLB_MORECORE would back malloc
         * with huge pages: hpfilld taking pages from the pools it fills). Clear them first;
         * hpfilld starts no process that would want them. */
        for (char **e = environ; e && *e;) {
                if (strncmp(*e, "HUGETLB_", 8) == 0) {
                        char name[256];
                        size_t n = strcspn(*e, "=");

                        if (n < sizeof(name)) {
                                memcpy(name, *e, n);
                                name[n] = 0;
                                (void) unsetenv(name);
                                continue; /* environ shifted down */
                        }
                }
                e++;
        }
        (void) setenv("HUGETLB_VERBOSE", "0", 1);
        lib = dlopen("libhugetlbfs.so.0", RTLD_NOW | RTLD_LOCAL);
        (void) unsetenv("HUGETLB_VERBOSE");
        if (!lib)
                return -ENOSYS;
        find = (const char *(*)(long)) dlsym(lib, "hugetlbfs_find_path_for_size");
        path = find ? find((long) page_size) : NULL;
        if (path && strlen(path) < size)
                memcpy(ret, path, strlen(path) + 1);
        /* kept loaded: unloading a library with constructors and destructors buys nothing */
        return path ? (strlen(path) < size ? 0 : -ENAMETOOLONG) : -ENOENT;
}
#endif

int mounts_read(int rootfd, char **ret) {
        /* /proc/self is a link (to the reader's pid), followed inside the root as any other */
        return read_full_file_beneath(rootfd, "proc/self/mounts", BENEATH_FOLLOW, FILEIO_MOUNTS_MAX, ret, NULL);
}

uint64_t hugetlbfs_default_page_size(int rootfd) {
        _cleanup_(freep) char *meminfo = NULL;
        const char *p;

        if (read_full_file_at(rootfd, "proc/meminfo", 64 * 1024, &meminfo, NULL) < 0 ||
            !(p = strstr(meminfo, "Hugepagesize:")))
                return 0;
        return strtoull(p + strlen("Hugepagesize:"), NULL, 10) * 1024;
}

int hugetlbfs_mount_for(int rootfd, bool host, uint64_t page_size, char *ret, size_t size) {
        _cleanup_(freep) char *mounts = NULL;
        int r;

#if HAVE_LIBHUGETLBFS
        if (host) {
                r = find_with_libhugetlbfs(page_size, ret, size);
                if (r != -ENOSYS)
                        return r;
        }
#else
        (void) host;
#endif
        r = mounts_read(rootfd, &mounts);
        if (r < 0)
                return r;
        /* a mount without pagesize= has the default size, Hugepagesize: in meminfo */
        return mounts_find_hugetlbfs(mounts, page_size, hugetlbfs_default_page_size(rootfd), ret, size);
}
