/* SPDX-License-Identifier: MIT */
/* The floor of a one-node --once fill (bench/floor.py): only what such a fill must do beside the
 * kernel's write, hard-coded for a machine with one node and the 2 MiB pool: the kernel command
 * line, the node's files, /proc/meminfo, the page sizes, min_free_kbytes, HVO, the pool's
 * counters, a lock taken and its holder written, the boot id and a ledger read, the write, the
 * counters read back, a ledger and a record each read and swapped in whole (a temporary file,
 * RENAME_EXCHANGE, the old one unlinked), as hpfilld keeps them. No configuration, no plan, no
 * checks, no report. What it writes goes to DIR (bench/floor.py makes one on this host's /run).
 * With "calls", it also makes the system calls an --once makes beyond these (about 110: the
 * configuration's places, the 1G pool's counters, the write checked, the run directory opened
 * again, the journal's listing, the counters read again, the signals; capabilities and the
 * terminal asked, not changed), so that it makes as many as hpfilld and differs from it only in
 * what runs in user space. Usage: floor DIR PAGES [calls]. Not hpfilld: a measure of what
 * hpfilld costs beyond the least. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <termios.h>
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

/* What an --once calls beyond the floor (strace of hpfilld --once --mode sysfs --pool 2M:N on a
 * one-node host), as calls of the same kind: the capabilities and the terminal only asked */
static void calls(int dir) {
        static const char *const places[] = { "etc/hpfilld.conf", "usr/lib/hpfilld.conf.d", "run/hpfilld.conf.d",
                                              "etc/hpfilld.conf.d" };
        static const char *const gigantic[] = {
                "sys/devices/system/node/node0/hugepages/hugepages-1048576kB/nr_hugepages",
                "sys/devices/system/node/node0/hugepages/hugepages-1048576kB/free_hugepages",
                "sys/devices/system/node/node0/hugepages/hugepages-1048576kB/surplus_hugepages",
                "sys/kernel/mm/hugepages/hugepages-1048576kB/resv_hugepages",
        };
        int fds[4], sfd, fd;
        struct termios tio;
        struct utsname u;
        struct stat st;
        cpu_set_t cpus;
        sigset_t none;
        char buf[64];
        DIR *d;

        for (size_t i = 0; i < 4; i++)
                (void) open_below(root, places[i], O_RDONLY);
        (void) fstat(root, &st);
        (void) stat("/", &st);
        sigemptyset(&none);
        for (int sig = 1; sig <= 5; sig++)
                (void) sigaction(sig == 5 ? SIGPIPE : sig, NULL, &(struct sigaction) {});
        (void) sigprocmask(SIG_BLOCK, &none, NULL);
        for (int i = 0; i < 6; i++)
                (void) prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
        (void) fstat(STDOUT_FILENO, &st);
        (void) ioctl(STDERR_FILENO, TCGETS, &tio);
        for (size_t i = 0; i < 4; i++) {
                fds[i] = open_below(root, gigantic[i], O_RDONLY);
                (void) fstat(fds[i], &st);
                (void) pread(fds[i], buf, sizeof(buf), 0);
        }
        for (int i = 0; i < 4; i++)
                (void) fstat(root, &st); /* the 2M counters' own, kept by the floor without */
        fd = open_below(root, NODE "nr_hugepages", O_WRONLY); /* the write checked */
        (void) fstat(fd, &st);
        (void) close(fd);
        (void) madvise(NULL, 0, MADV_POPULATE_WRITE);
        (void) uname(&u);
        for (int i = 0; i < 9; i++)
                (void) (i % 2 ? getpid() : (pid_t) geteuid());
        for (int i = 0; i < 3; i++) { /* the run directory, again for the journal, the ledger, the record */
                fd = open_below(root, "run", O_RDONLY | O_DIRECTORY);
                (void) fstat(fd, &st);
                (void) close(fd);
        }
        (void) fstat(dir, &st); /* the lock's file, seen still linked */
        (void) fstatat(dir, "host.lock", &st, AT_SYMLINK_NOFOLLOW);
        (void) fstat(dir, &st);
        fd = open_below(dir, ".", O_RDONLY | O_DIRECTORY); /* the journal's listing */
        d = fd >= 0 ? fdopendir(fd) : NULL;
        while (d && readdir(d))
                ;
        if (d)
                closedir(d);
        for (int i = 0; i < 21; i++) /* the counters read again, before and after each step */
                (void) pread(fds[i % 4], buf, sizeof(buf), 0);
        sfd = signalfd(-1, &none, SFD_NONBLOCK | SFD_CLOEXEC);
        for (int i = 0; i < 3; i++)
                (void) read(sfd, buf, sizeof(buf));
        (void) sched_getaffinity(0, sizeof(cpus), &cpus);
        (void) sched_setaffinity(0, sizeof(cpus), &cpus);
        (void) close(sfd);
        (void) sigprocmask(SIG_BLOCK, &none, NULL);
        (void) sigprocmask(SIG_BLOCK, &none, NULL);
        (void) write(STDOUT_FILENO, "", 0);
        (void) open_below(dir, "ledger", O_RDONLY); /* the daemon's ledger: none */
        (void) fchmod(dir, 0755);
        (void) fchmod(dir, 0755);
        (void) fstatat(dir, "ledger-once", &st, AT_SYMLINK_NOFOLLOW);
        (void) fstatat(dir, "fill-record", &st, AT_SYMLINK_NOFOLLOW);
        for (size_t i = 0; i < 4; i++)
                (void) close(fds[i]);
        for (int i = 0; i < 6; i++)
                (void) close(-1); /* the 2M counters and the lock, closed one by one */
}

int main(int argc, char *argv[]) {
        char text[512], num[32];
        long want, nr;
        int dir, lock, nr_fd, surplus_fd, free_fd, fd;
        DIR *d;

        if (argc != 3 && (argc != 4 || strcmp(argv[3], "calls") != 0)) {
                fprintf(stderr, "usage: floor DIR PAGES [calls]\n");
                return 2;
        }
        want = atol(argv[2]);
        root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        dir = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (root < 0 || dir < 0)
                return 1;
        if (argc == 4)
                calls(dir);
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
