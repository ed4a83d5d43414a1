/* SPDX-License-Identifier: MIT */
/* Fake sysfs/procfs trees in a temp dir, for tests of the code that reads the machine. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake-root.h"
#include "util/fileio.h"
#include "test.h"

void fake_root_new(struct fake_root *r) {
        const char *tmp = getenv("TMPDIR");

        snprintf(r->path, sizeof(r->path), "%s/hpfilld-test-XXXXXX", tmp ? tmp : "/tmp");
        CHECK(mkdtemp(r->path));
        r->fd = open(r->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        CHECK(r->fd >= 0);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        (void) st;
        (void) flag;
        (void) ftw;
        return remove(path);
}

void fake_root_free(struct fake_root *r) {
        close(r->fd);
        CHECK(nftw(r->path, remove_one, 16, FTW_DEPTH | FTW_PHYS) == 0);
}

static void mkdir_parents(struct fake_root *r, const char *rel) {
        char buf[512];

        snprintf(buf, sizeof(buf), "%s", rel);
        for (char *p = strchr(buf, '/'); p; p = strchr(p + 1, '/')) {
                *p = 0;
                CHECK(mkdirat(r->fd, buf, 0755) == 0 || errno == EEXIST);
                *p = '/';
        }
}

void fake_write(struct fake_root *r, const char *rel, const char *content) {
        int fd;

        mkdir_parents(r, rel);
        fd = openat(r->fd, rel, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        CHECK(fd >= 0);
        CHECK(write(fd, content, strlen(content)) == (ssize_t) strlen(content));
        close(fd);
}

void fake_writef(struct fake_root *r, const char *rel, const char *fmt, ...) {
        char buf[4096];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(buf, sizeof(buf), fmt, ap);
        va_end(ap);
        fake_write(r, rel, buf);
}

uint64_t fake_read_u64(struct fake_root *r, const char *rel) {
        uint64_t v;

        CHECK(read_u64_at(r->fd, rel, &v) == 0);
        return v;
}

unsigned fake_count_entries(struct fake_root *r, const char *dir) {
        DIR *d = fdopendir(openat(r->fd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        struct dirent *de;
        unsigned n = 0;

        CHECK(d);
        while ((de = readdir(d)))
                n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
        closedir(d);
        return n;
}

void fake_numa_machine(struct fake_root *r, unsigned n_nodes, unsigned mem_mb, unsigned cpuless_mask,
                       const unsigned *sizes_kb) {
        char path[256], cpus[256] = "", dist[256];
        unsigned cpu = 0;

        fake_writef(r, "sys/devices/system/node/online", "0-%u\n", n_nodes - 1);
        fake_writef(r, "sys/devices/system/node/has_memory", "0-%u\n", n_nodes - 1);
        for (unsigned i = 0; i < n_nodes; i++) {
                size_t len = 0;

                if (!(cpuless_mask & (1u << i))) {
                        snprintf(path, sizeof(path), "sys/devices/system/node/node%u/cpulist", i);
                        fake_writef(r, path, "%u-%u\n", cpu, cpu + 1);
                        snprintf(cpus + strlen(cpus), sizeof(cpus) - strlen(cpus), "%s%u-%u", *cpus ? "," : "",
                                 cpu, cpu + 1);
                        cpu += 2;
                } else {
                        snprintf(path, sizeof(path), "sys/devices/system/node/node%u/cpulist", i);
                        fake_write(r, path, "\n");
                }
                snprintf(path, sizeof(path), "sys/devices/system/node/node%u/meminfo", i);
                fake_writef(r, path, "Node %u MemTotal:       %u kB\nNode %u MemFree:        %u kB\n", i,
                            mem_mb * 1024, i, mem_mb * 1000);
                for (unsigned j = 0; j < n_nodes; j++)
                        len += (size_t) snprintf(dist + len, sizeof(dist) - len, "%s%u", j ? " " : "",
                                                 i == j ? 10 : 20 + 10 * (i > j ? i - j : j - i));
                snprintf(path, sizeof(path), "sys/devices/system/node/node%u/distance", i);
                fake_writef(r, path, "%s\n", dist);
                snprintf(path, sizeof(path), "sys/devices/system/node/node%u/compact", i);
                fake_write(r, path, "");
                for (const unsigned *s = sizes_kb; *s; s++)
                        fake_set_node_pool(r, i, *s, 0, 0);
        }
        fake_writef(r, "sys/devices/system/node/has_cpu", "%s\n", cpus);
        for (const unsigned *s = sizes_kb; *s; s++) {
                snprintf(path, sizeof(path), "sys/kernel/mm/hugepages/hugepages-%ukB/nr_hugepages", *s);
                fake_write(r, path, "0\n");
                snprintf(path, sizeof(path), "sys/kernel/mm/hugepages/hugepages-%ukB/nr_hugepages_mempolicy", *s);
                fake_write(r, path, "0\n");
        }
}

void fake_set_node_pool(struct fake_root *r, unsigned node, unsigned size_kb, uint64_t nr, uint64_t free) {
        char path[256];

        snprintf(path, sizeof(path), "sys/devices/system/node/node%u/hugepages/hugepages-%ukB/nr_hugepages", node,
                 size_kb);
        fake_writef(r, path, "%" PRIu64 "\n", nr);
        snprintf(path, sizeof(path), "sys/devices/system/node/node%u/hugepages/hugepages-%ukB/free_hugepages", node,
                 size_kb);
        fake_writef(r, path, "%" PRIu64 "\n", free);
        snprintf(path, sizeof(path), "sys/devices/system/node/node%u/hugepages/hugepages-%ukB/surplus_hugepages",
                 node, size_kb);
        fake_write(r, path, "0\n");
}

uint64_t fake_node_nr(struct fake_root *r, unsigned node, unsigned size_kb) {
        char path[256];

        snprintf(path, sizeof(path), "sys/devices/system/node/node%u/hugepages/hugepages-%ukB/nr_hugepages", node,
                 size_kb);
        return fake_read_u64(r, path);
}
