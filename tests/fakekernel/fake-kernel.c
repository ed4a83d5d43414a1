/* SPDX-License-Identifier: MIT */
/* The unit suite's fake kernel, LD_PRELOADed into what the tests run: a write() to a kernel
 * attribute in a fake tree under --root (a plain file named as an attribute hpfilld writes, on a
 * file system that is neither sysfs nor procfs) takes effect as the kernel's would: the whole
 * value at offset 0, what was there before gone (kernfs_fop_write_iter() and
 * proc_sys_call_handler() take each write whole). A file ATTR.fake-max beside ATTR holds the most
 * this kernel grants: a larger count written is cut to it, and the write still succeeds, as the
 * kernel's does when it finds fewer pages than asked (hugetlbpage.rst: "always read the count
 * back"). Anything else is written as it is. Outside the product: hpfilld has no test seam for it. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <linux/magic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The attributes hpfilld writes (src/kernel/, src/fill/). */
static const char *const attrs[] = {
        "nr_hugepages", "nr_hugepages_mempolicy", "nr_overcommit_hugepages", "compact", "compact_memory", "drop_caches",
};

/* Where they are in a tree, below its root: the kernel's layout (a path that only holds a
 * "/sys/" somewhere is not one of them). */
static const char *const layouts[] = {
        "sys/kernel/mm/hugepages/hugepages-*/*",
        "sys/devices/system/node/node*/hugepages/hugepages-*/*",
        "sys/devices/system/node/node*/*",
        "proc/sys/vm/*",
};

/* Set before main() runs, before any thread: the tests' threads only read it. A write from a
 * constructor that runs before this one goes straight to the system call. */
static ssize_t (*real_write)(int, const void *, size_t);

__attribute__((constructor)) static void find_real_write(void) {
        real_write = (ssize_t (*)(int, const void *, size_t)) dlsym(RTLD_NEXT, "write");
}

/* Whether @path ends in a component sequence laid out as one of layouts[]. */
static bool in_layout(const char *path) {
        for (const char *p = strchr(path, '/'); p; p = strchr(p + 1, '/'))
                for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
                        if (fnmatch(layouts[i], p + 1, FNM_PATHNAME) == 0)
                                return true;
        return false;
}

/* The path of @fd if it is an attribute of a fake tree, else false. */
static bool fake_attr(int fd, char *path, size_t size) {
        struct statfs sfs;
        struct stat st;
        char link[64];
        const char *base;
        ssize_t n;
        int flags;

        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
                return false;
        if (fstatfs(fd, &sfs) < 0 || sfs.f_type == SYSFS_MAGIC || sfs.f_type == PROC_SUPER_MAGIC)
                return false;
        flags = fcntl(fd, F_GETFL);
        if (flags < 0 || (flags & O_APPEND))
                return false;
        (void) snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        n = readlink(link, path, size - 1);
        if (n <= 0 || (size_t) n >= size - 1)
                return false;
        path[n] = 0;
        if (!in_layout(path))
                return false;
        base = strrchr(path, '/') + 1;
        for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
                if (strcmp(base, attrs[i]) == 0)
                        return true;
        return false;
}

/* The grant of ATTR.fake-max, if there is one and @buf is a count above it: the count cut. */
static size_t cap(const char *path, const char *buf, size_t len, char *out, size_t size) {
        char max_path[4096 + 16], num[32], text[32];
        unsigned long long want, max;
        char *end;
        FILE *f;

        if (len == 0 || len >= sizeof(text))
                return 0;
        memcpy(text, buf, len);
        text[len] = 0;
        errno = 0;
        want = strtoull(text, &end, 10);
        if (end == text || errno || (*end && strcmp(end, "\n") != 0))
                return 0;
        (void) snprintf(max_path, sizeof(max_path), "%s.fake-max", path);
        f = fopen(max_path, "re");
        if (!f)
                return 0;
        if (!fgets(num, sizeof(num), f) || sscanf(num, "%llu", &max) != 1) {
                fclose(f);
                return 0;
        }
        fclose(f);
        if (want <= max)
                return 0;
        return (size_t) snprintf(out, size, "%llu\n", max);
}

ssize_t write(int fd, const void *buf, size_t len) {
        char path[4096], capped[32];
        const void *data = buf;
        size_t n = len, c;
        int saved = errno;

        if (!fake_attr(fd, path, sizeof(path))) {
                errno = saved;
                return real_write ? real_write(fd, buf, len) : syscall(SYS_write, fd, buf, len);
        }
        c = cap(path, buf, len, capped, sizeof(capped));
        if (c > 0) {
                data = capped;
                n = c;
        }
        if (pwrite(fd, data, n, 0) != (ssize_t) n || ftruncate(fd, (off_t) n) < 0)
                return -1;
        errno = saved;
        return (ssize_t) len;
}
