/* SPDX-License-Identifier: MIT */
/* The unit suite's fake kernel, LD_PRELOADed into what the tests run: a write() to a kernel
 * attribute in a fake tree under --root (a plain file named as an attribute hpfilld writes, on a
 * file system that is neither sysfs nor procfs) takes effect as the kernel's would: the whole
 * value at offset 0, what was there before gone (kernfs_fop_write_iter() and
 * proc_sys_call_handler() take each write whole). A file ATTR.fake-max beside ATTR holds the most
 * this kernel grants: a larger count written is cut to it, and the write still succeeds, as the
 * kernel's does when it finds fewer pages than asked (hugetlbpage.rst: "always read the count
 * back"). Anything else is written as it is. Outside the product: hpfilld has no test seam for it.
 *
 * A tree with a file "fake-pools" at its root gets a kernel that keeps its pools' counters as
 * the real one does (set_max_huge_pages()): a write of nr_hugepages (a node's, the global one,
 * nr_hugepages_mempolicy) promotes surplus pages first, then allocates (up to ATTR.fake-max) or
 * frees free pages, and pages in use beyond a smaller count become surplus; free_hugepages,
 * surplus_hugepages and the global counters follow. A test holds pages "in use" by lowering
 * free_hugepages itself (tests/unit/state-model.py).
 *
 * HPFILLD_FAKE_KILL_STEP=N kills the process (SIGKILL) at its Nth step: a write of a pool
 * attribute, or a rename (a file replaced whole, the state's save), before it with
 * HPFILLD_FAKE_KILL_AFTER unset or 0, just after it otherwise; with it set, a write of one of those
 * attributes of the real kernel (sysfs, procfs) is a step too. The steps so far are counted in
 * the file HPFILLD_FAKE_STEPS names, where set, so that a test knows when a run had no Nth. */
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
#include <signal.h>
#include <stdarg.h>
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

static unsigned long long kill_step;
static void step(bool after);

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

/* Whether @fd is one of those attributes of the real kernel (sysfs, procfs): its writes are
 * steps too (HPFILLD_FAKE_KILL_STEP on the real kernel: the root suite's model test) */
static bool kernel_attr(int fd) {
        struct statfs sfs;
        char link[64], path[4096];
        const char *base;
        ssize_t n;

        if (!kill_step || fstatfs(fd, &sfs) < 0 || (sfs.f_type != SYSFS_MAGIC && sfs.f_type != PROC_SUPER_MAGIC))
                return false;
        (void) snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        n = readlink(link, path, sizeof(path) - 1);
        if (n <= 0)
                return false;
        path[n] = 0;
        base = strrchr(path, '/');
        for (size_t i = 0; base && i < sizeof(attrs) / sizeof(attrs[0]); i++)
                if (strcmp(base + 1, attrs[i]) == 0)
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

/* The steps (writes of pool attributes, renames) and the kill at the Nth */
static unsigned long long steps;
static bool kill_after;
static const char *steps_file;

__attribute__((constructor)) static void read_kill(void) {
        const char *k = getenv("HPFILLD_FAKE_KILL_STEP"), *a = getenv("HPFILLD_FAKE_KILL_AFTER");

        kill_step = k ? strtoull(k, NULL, 10) : 0;
        kill_after = a && strcmp(a, "0") != 0;
        steps_file = getenv("HPFILLD_FAKE_STEPS");
}

static void count_steps(void) {
        char text[32];
        int fd, n;

        if (!steps_file)
                return;
        fd = open(steps_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        n = snprintf(text, sizeof(text), "%llu\n", steps);
        if (fd >= 0) {
                (void) !syscall(SYS_write, fd, text, (size_t) n);
                close(fd);
        }
}

/* Before a step (@after false) and after it */
static void step(bool after) {
        if (!after)
                steps++;
        if (!after)
                count_steps();
        if (kill_step && steps == kill_step && after == kill_after)
                (void) kill(getpid(), SIGKILL);
}

/* ---- the pools' counters of a "fake-pools" tree ---- */

struct pool_node {
        unsigned long long nr, free, surplus, max;
        bool there;
};

#define SIM_NODES 64

static int read_ull(const char *path, unsigned long long *v) {
        char text[32];
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n;

        if (fd < 0)
                return -1;
        n = read(fd, text, sizeof(text) - 1);
        close(fd);
        if (n <= 0)
                return -1;
        text[n] = 0;
        *v = strtoull(text, NULL, 10);
        return 0;
}

/* In place (the same inode: a reader keeps its fd and reads again from offset 0) */
static void write_ull(const char *path, unsigned long long v) {
        char text[32];
        int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC), n;

        if (fd < 0)
                return;
        n = snprintf(text, sizeof(text), "%llu\n", v);
        (void) !syscall(SYS_write, fd, text, (size_t) n);
        close(fd);
}

static void node_path(char *buf, size_t size, const char *root, unsigned node, const char *size_dir, const char *file) {
        (void) snprintf(buf, size, "%ssys/devices/system/node/node%u/hugepages/%s/%s", root, node, size_dir, file);
}

/* A node's pools; one whose nr_hugepages a shell emptied as it opened it (O_TRUNC, then the
 * write that brought us here) is the global count less the other nodes' */
static void load_nodes(const char *root, const char *size_dir, struct pool_node *n) {
        unsigned long long global = 0, others = 0;
        char path[4096];
        int emptied = -1;

        for (unsigned i = 0; i < SIM_NODES; i++) {
                struct stat st;

                n[i] = (struct pool_node) { .max = ~0ULL };
                node_path(path, sizeof(path), root, i, size_dir, "nr_hugepages");
                n[i].there = read_ull(path, &n[i].nr) == 0;
                if (!n[i].there && stat(path, &st) == 0 && st.st_size == 0) {
                        n[i].there = true;
                        emptied = (int) i;
                }
                others += n[i].nr;
                node_path(path, sizeof(path), root, i, size_dir, "free_hugepages");
                (void) read_ull(path, &n[i].free);
                node_path(path, sizeof(path), root, i, size_dir, "surplus_hugepages");
                (void) read_ull(path, &n[i].surplus);
                node_path(path, sizeof(path), root, i, size_dir, "nr_hugepages.fake-max");
                (void) read_ull(path, &n[i].max);
        }
        (void) snprintf(path, sizeof(path), "%ssys/kernel/mm/hugepages/%s/nr_hugepages", root, size_dir);
        if (emptied >= 0 && read_ull(path, &global) == 0 && global >= others)
                n[emptied].nr = global - others;
}

static void store_nodes(const char *root, const char *size_dir, const struct pool_node *n) {
        unsigned long long nr = 0, free = 0, surplus = 0;
        char path[4096];

        for (unsigned i = 0; i < SIM_NODES; i++) {
                if (!n[i].there)
                        continue;
                node_path(path, sizeof(path), root, i, size_dir, "nr_hugepages");
                write_ull(path, n[i].nr);
                node_path(path, sizeof(path), root, i, size_dir, "free_hugepages");
                write_ull(path, n[i].free);
                node_path(path, sizeof(path), root, i, size_dir, "surplus_hugepages");
                write_ull(path, n[i].surplus);
                nr += n[i].nr;
                free += n[i].free;
                surplus += n[i].surplus;
        }
        (void) snprintf(path, sizeof(path), "%ssys/kernel/mm/hugepages/%s/nr_hugepages", root, size_dir);
        write_ull(path, nr);
        (void) snprintf(path, sizeof(path), "%ssys/kernel/mm/hugepages/%s/free_hugepages", root, size_dir);
        write_ull(path, free);
        (void) snprintf(path, sizeof(path), "%ssys/kernel/mm/hugepages/%s/surplus_hugepages", root, size_dir);
        write_ull(path, surplus);
}

static unsigned long long persistent(const struct pool_node *n) {
        return n->nr - n->surplus;
}

/* One page more (promoted or allocated) on @n, or fewer (a free one freed, or one in use made
 * surplus): false where it cannot */
static bool page_up(struct pool_node *n) {
        if (n->surplus > 0) {
                n->surplus--;
                return true;
        }
        if (n->nr >= n->max)
                return false;
        n->nr++;
        n->free++;
        return true;
}

static bool page_down(struct pool_node *n, bool in_use) {
        if (persistent(n) == 0)
                return false;
        if (!in_use && n->free > 0) {
                n->nr--;
                n->free--;
                return true;
        }
        if (in_use && n->nr - n->free > n->surplus) {
                n->surplus++;
                return true;
        }
        return false;
}

/* set_max_huge_pages() on the nodes @only (-1: all, round robin): surplus promoted and pages
 * allocated up to @count, or free pages freed, then pages in use made surplus, down to it */
static void sim_set(struct pool_node *n, int only, unsigned long long count) {
        unsigned long long now = 0;

        for (unsigned i = 0; i < SIM_NODES; i++)
                if (n[i].there && (only < 0 || (unsigned) only == i))
                        now += persistent(&n[i]);
        for (int pass = 0; pass < 3; pass++)
                for (bool moved = true; moved && now != count;) {
                        moved = false;
                        for (unsigned i = 0; i < SIM_NODES && now != count; i++) {
                                struct pool_node *x = &n[i];

                                if (!x->there || (only >= 0 && (unsigned) only != i))
                                        continue;
                                if (now < count && pass == 0 && page_up(x))
                                        now++, moved = true;
                                else if (now > count && pass == 1 && page_down(x, false))
                                        now--, moved = true;
                                else if (now > count && pass == 2 && page_down(x, true))
                                        now--, moved = true;
                        }
                }
}

/* A write of @count to @path, a pool's nr_hugepages of a "fake-pools" tree: true where done */
static bool sim_write(const char *path, const char *buf, size_t len) {
        char root[2048], size_dir[64], marker[2100], text[32];
        const char *p = strstr(path, "/sys/"), *hp;
        struct pool_node n[SIM_NODES];
        unsigned long long count;
        unsigned node = 0;
        bool global;

        if (!p || len == 0 || len >= sizeof(text))
                return false;
        (void) snprintf(root, sizeof(root), "%.*s/", (int) (p - path), path);
        (void) snprintf(marker, sizeof(marker), "%sfake-pools", root);
        if (access(marker, F_OK) != 0)
                return false;
        global = strncmp(p, "/sys/kernel/mm/hugepages/", 25) == 0;
        if (!global && sscanf(p, "/sys/devices/system/node/node%u/", &node) != 1)
                return false;
        hp = strstr(p, "/hugepages-");
        if (!hp || sscanf(hp + 1, "%63[^/]", size_dir) != 1)
                return false;
        if (strcmp(strrchr(path, '/') + 1, "nr_overcommit_hugepages") == 0)
                return false;
        memcpy(text, buf, len);
        text[len] = 0;
        count = strtoull(text, NULL, 10);
        load_nodes(root, size_dir, n);
        sim_set(n, global ? -1 : (int) node, count);
        store_nodes(root, size_dir, n);
        return true;
}

ssize_t write(int fd, const void *buf, size_t len) {
        char path[4096], capped[32];
        const void *data = buf;
        size_t n = len, c;
        int saved = errno;

        if (!fake_attr(fd, path, sizeof(path))) {
                bool kernel = kernel_attr(fd);
                ssize_t r;

                if (kernel)
                        step(false);
                errno = saved;
                r = real_write ? real_write(fd, buf, len) : syscall(SYS_write, fd, buf, len);
                if (kernel && r >= 0)
                        step(true);
                return r;
        }
        step(false);
        if (sim_write(path, buf, len)) {
                step(true);
                errno = saved;
                return (ssize_t) len;
        }
        c = cap(path, buf, len, capped, sizeof(capped));
        if (c > 0) {
                data = capped;
                n = c;
        }
        if (pwrite(fd, data, n, 0) != (ssize_t) n || ftruncate(fd, (off_t) n) < 0)
                return -1;
        step(true);
        errno = saved;
        return (ssize_t) len;
}

/* A file replaced whole (replace_file_at(): the state's save, a swap or a rename) is a step too */
int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned flags) {
        long r;

        step(false);
        r = syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, flags);
        if (r == 0)
                step(true);
        return (int) r;
}

int renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath) {
        return renameat2(olddirfd, oldpath, newdirfd, newpath, 0);
}
