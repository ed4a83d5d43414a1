/* SPDX-License-Identifier: MIT */
/* The floor of a one-node --once fill (bench/floor.py): only what such a fill must do beside the
 * kernel's write, hard-coded for a machine with one node and the 2 MiB pool: the kernel command
 * line, the node's files, /proc/meminfo, the page sizes, min_free_kbytes, HVO, the pool's
 * counters, a lock taken and its holder written, the boot id and a ledger read, the write, the
 * counters read back, a ledger and a record each read and swapped in whole (a temporary file,
 * RENAME_EXCHANGE, the old one unlinked), as hpfilld keeps them. No configuration, no plan, no
 * checks, no report. What it writes goes to DIR (bench/floor.py makes one on this host's /run).
 * Usage: floor DIR PAGES. Not hpfilld: a measure of what hpfilld costs beyond the least. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define POOL "sys/kernel/mm/hugepages/hugepages-2048kB/"
#define NODE "sys/devices/system/node/node0/hugepages/hugepages-2048kB/"

static int root;

static int open_below(int dirfd, const char *path, int flags) {
        struct open_how how = { .flags = (unsigned) flags | O_CLOEXEC,
                                .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS };

        return (int) syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

/* A file's number (its first), as hpfilld reads a small file: open, fstat, read to the end. */
static long read_file(int dirfd, const char *path) {
        char buf[8192];
        struct stat st;
        ssize_t n, len = 0;
        int fd = open_below(dirfd, path, O_RDONLY | O_NONBLOCK);

        if (fd < 0)
                return -1;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                close(fd);
                return -1;
        }
        while ((n = read(fd, buf + len, sizeof(buf) - 1 - (size_t) len)) > 0)
                len += n;
        close(fd);
        buf[len] = 0;
        return atol(buf);
}

/* A counter kept open, read again from offset 0 */
static long read_kept(int fd) {
        char buf[32];
        ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

        if (n < 0)
                return -1;
        buf[n] = 0;
        return atol(buf);
}

static int replace(int dirfd, const char *name, const char *text) {
        char tmp[64];
        int fd;

        (void) snprintf(tmp, sizeof(tmp), ".%s.%d.tmp", name, (int) getpid());
        fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0)
                return -1;
        if (write(fd, text, strlen(text)) != (ssize_t) strlen(text) ||
            renameat2(dirfd, tmp, dirfd, name, RENAME_EXCHANGE) < 0) {
                /* the first run: nothing to swap with */
                if (renameat(dirfd, tmp, dirfd, name) < 0) {
                        close(fd);
                        return -1;
                }
        } else
                (void) unlinkat(dirfd, tmp, 0);
        return close(fd);
}

int main(int argc, char *argv[]) {
        char text[512], num[32];
        long want, nr;
        int dir, lock, nr_fd, surplus_fd, free_fd, fd;
        DIR *d;

        if (argc != 3) {
                fprintf(stderr, "usage: floor DIR PAGES\n");
                return 2;
        }
        want = atol(argv[2]);
        root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        dir = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (root < 0 || dir < 0)
                return 1;
        /* what the plan is made of */
        read_file(root, "proc/cmdline");
        read_file(root, "sys/devices/system/node/online");
        read_file(root, "sys/devices/system/node/has_memory");
        read_file(root, "sys/devices/system/node/node0/cpulist");
        read_file(root, "sys/devices/system/node/node0/meminfo");
        read_file(root, "proc/meminfo");
        fd = open_below(root, "sys/kernel/mm/hugepages", O_RDONLY | O_DIRECTORY);
        d = fd >= 0 ? fdopendir(fd) : NULL;
        if (!d)
                return 1;
        while (readdir(d))
                ;
        closedir(d);
        read_file(root, "proc/sys/vm/min_free_kbytes");
        read_file(root, "proc/sys/vm/hugetlb_optimize_vmemmap");
        nr_fd = open_below(root, NODE "nr_hugepages", O_RDONLY);
        free_fd = open_below(root, NODE "free_hugepages", O_RDONLY);
        surplus_fd = open_below(root, NODE "surplus_hugepages", O_RDONLY);
        if (nr_fd < 0 || free_fd < 0 || surplus_fd < 0)
                return 1;
        nr = read_kept(nr_fd);
        read_kept(free_fd);
        read_kept(surplus_fd);
        read_file(root, POOL "resv_hugepages");
        /* one fill at a time, and who holds it */
        lock = openat(dir, "host.lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (lock < 0 || flock(lock, LOCK_EX) < 0)
                return 1;
        (void) snprintf(text, sizeof(text), "proc/%d/stat", (int) getpid());
        read_file(root, text);
        (void) snprintf(text, sizeof(text), "pid=%d start=0 since=0 what=floor\n", (int) getpid());
        if (pwrite(lock, text, strlen(text), 0) < 0)
                return 1;
        read_file(root, "proc/sys/kernel/random/boot_id");
        read_file(dir, "ledger-once");
        /* the write, and the pool as it is after it */
        if (nr < want) {
                fd = open_below(root, POOL "nr_hugepages", O_WRONLY);
                (void) snprintf(num, sizeof(num), "%ld\n", want);
                if (fd < 0 || write(fd, num, strlen(num)) < 0)
                        return 1;
                close(fd);
        }
        nr = read_kept(nr_fd);
        read_kept(surplus_fd);
        (void) snprintf(text, sizeof(text), "boot 00000000-0000-0000-0000-000000000000\n2097152 0 %ld %ld\n", nr, nr);
        if (replace(dir, "ledger-once", text) < 0)
                return 1;
        read_file(dir, "fill-record");
        (void) snprintf(text, sizeof(text), "fill 0 0 0 %ld\nsize 2097152 0 0 1\ntarget 2097152 0 %ld\n", nr, want);
        if (replace(dir, "fill-record", text) < 0)
                return 1;
        return nr >= want ? 0 : 3;
}
