/* SPDX-License-Identifier: MIT */
/* Where hugetlbfs is mounted for a page size: libhugetlbfs on the host, /proc/mounts otherwise. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "kernel/mounts.h"
#include "util/number.h"

/* Undoes the octal escapes (\040 for a space) of a mounts field, in place. */
static void unescape(char *s) {
        char *w = s;

        for (char *r = s; *r; r++) {
                if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' &&
                    r[3] <= '7') {
                        *w++ = (char) ((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
                        r += 3;
                } else
                        *w++ = *r;
        }
        *w = 0;
}

int mounts_foreach_hugetlbfs(const char *mounts, uint64_t default_page_size,
                             int (*cb)(const char *dir, uint64_t page_size, void *userdata), void *userdata) {
        _cleanup_(freep) char *copy = strdup(mounts);
        char *save = NULL;

        if (!copy)
                return -ENOMEM;
        for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char dev[256], dir[4096], type[64], opts[1024];
                uint64_t size_here = default_page_size;
                char *o;
                int r;

                if (sscanf(line, "%255s %4095s %63s %1023s", dev, dir, type, opts) != 4 ||
                    strcmp(type, "hugetlbfs") != 0)
                        continue;
                o = strstr(opts, "pagesize=");
                if (o && (o == opts || o[-1] == ',')) {
                        char *end = strchr(o, ',');

                        if (end)
                                *end = 0;
                        if (parse_page_size(o + strlen("pagesize="), &size_here, NULL) < 0)
                                continue;
                }
                unescape(dir);
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

int hugetlbfs_mount_for(int rootfd, bool host, uint64_t page_size, char *ret, size_t size) {
        _cleanup_(freep) char *mounts = NULL, *meminfo = NULL;
        uint64_t default_size = 0;
        const char *p;
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
        r = read_full_file_at(rootfd, "proc/self/mounts", 1024 * 1024, &mounts, NULL);
        if (r < 0)
                return r;
        /* a mount without pagesize= has the default size, Hugepagesize: in meminfo */
        if (read_full_file_at(rootfd, "proc/meminfo", 64 * 1024, &meminfo, NULL) >= 0 &&
            (p = strstr(meminfo, "Hugepagesize:")))
                default_size = strtoull(p + strlen("Hugepagesize:"), NULL, 10) * 1024;
        return mounts_find_hugetlbfs(mounts, page_size, default_size, ret, size);
}
