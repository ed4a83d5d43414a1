/* SPDX-License-Identifier: MIT */
/* fragment: pins scattered 4 KiB pages over a node's free memory so that huge pages cannot be had there. */
/*
 * fragment [--node N] [--leave MB] [--keep K]
 *
 * Touches (MemFree - MB) of node N's memory (bound there with mbind(MPOL_BIND); without --node,
 * of the machine's, unbound), then gives back all its 4 KiB pages but one of every K (and, where
 * /proc/self/pagemap shows the frames, one more in every 2 MiB block that would otherwise have
 * none) and mlocks what it keeps. With /proc/sys/vm/compact_unevictable_allowed at 0 (set here,
 * put back on exit), compaction may not move mlocked pages: (nearly) no 2 MiB block of that
 * memory can become free while this runs. Prints "fragmented N" (N: MiB kept pinned) on stdout,
 * a summary on stderr, then waits until stdin reaches end of file or SIGTERM/SIGINT/SIGHUP, and
 * exits, which frees everything.
 *
 * Safe on a real host: it never touches more than MemFree minus --leave (read again before every
 * 64 MiB chunk, so memory taken by others meanwhile is not taken from them), --leave is at least
 * 64 MiB, and it makes itself the OOM killer's first choice.
 *
 * The pages it frees are freed with MADV_DONTNEED and the ones kept locked with
 * mlock2(MLOCK_ONFAULT), all in one mapping: munmap()ing the holes would cost a mapping per kept
 * page and vm.max_map_count (65530) would cap the memory this can fragment at about 16 GiB.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#ifndef MLOCK_ONFAULT
#define MLOCK_ONFAULT 1
#endif
#define FRAG_MPOL_BIND 2 /* MPOL_BIND of <linux/mempolicy.h>; no libnuma: this is linked statically */

#define MIB (UINT64_C(1) << 20)
#define CHUNK (64 * MIB)
#define MIN_LEAVE_MB 64
#define HUGE_2M (2 * MIB)
#define UNEVICTABLE "/proc/sys/vm/compact_unevictable_allowed"

static volatile sig_atomic_t stop;
static char old_unevictable[16];
static bool unevictable_changed;

static void on_signal(int sig) {
        (void) sig;
        stop = 1;
}

static void usage(FILE *f) {
        fprintf(f, "Usage: fragment [--node N] [--leave MB] [--keep K]\n"
                   "Pin 1 of every K 4 KiB pages (default 64) of node N's free memory (without --node:\n"
                   "the machine's), leaving about MB MiB of MemFree untouched (default 256, least %d);\n"
                   "print \"fragmented MIB\" when done, wait for end of stdin or SIGTERM, then free it all.\n",
                MIN_LEAVE_MB);
}

static int parse_u64(const char *s, uint64_t max, uint64_t *out) {
        char *end;
        unsigned long long v;

        if (!s || *s < '0' || *s > '9')
                return -1;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno || *end || v > max)
                return -1;
        *out = v;
        return 0;
}

/* MemFree of node (or of the machine, node < 0), in bytes; 0 when it cannot be read */
static uint64_t mem_free(long node) {
        char path[64], line[256];
        uint64_t kb = 0;
        FILE *f;

        if (node >= 0)
                (void) snprintf(path, sizeof(path), "/sys/devices/system/node/node%ld/meminfo", node);
        else
                (void) snprintf(path, sizeof(path), "/proc/meminfo");
        f = fopen(path, "re");
        if (!f)
                return 0;
        while (fgets(line, sizeof(line), f)) {
                char *p = strstr(line, "MemFree:");

                if (p && sscanf(p + strlen("MemFree:"), "%" SCNu64, &kb) == 1)
                        break;
                kb = 0;
        }
        fclose(f);
        return kb * 1024;
}

static int write_file(const char *path, const char *value) {
        int fd = open(path, O_WRONLY | O_CLOEXEC), r = 0;

        if (fd < 0)
                return -1;
        if (write(fd, value, strlen(value)) != (ssize_t) strlen(value))
                r = -1;
        if (close(fd) < 0)
                r = -1;
        return r;
}

static void restore_unevictable(void) {
        if (!unevictable_changed)
                return;
        if (write_file(UNEVICTABLE, old_unevictable) < 0)
                fprintf(stderr, "fragment: cannot put back %s = %s: %s\n", UNEVICTABLE, old_unevictable,
                        strerror(errno));
        unevictable_changed = false;
}

/* compact_unevictable_allowed = 0, the old value kept for restore_unevictable(); signals are
 * blocked meanwhile so that a stop request cannot fall between the write and the note of it */
static void forbid_unevictable(void) {
        sigset_t all, old;
        ssize_t n;
        int fd;

        fd = open(UNEVICTABLE, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
                fprintf(stderr, "fragment: no %s (%s): compaction may move the pinned pages\n", UNEVICTABLE,
                        strerror(errno));
                return;
        }
        n = read(fd, old_unevictable, sizeof(old_unevictable) - 1);
        close(fd);
        if (n <= 0) {
                fprintf(stderr, "fragment: cannot read %s\n", UNEVICTABLE);
                return;
        }
        old_unevictable[n] = 0;
        old_unevictable[strcspn(old_unevictable, "\n")] = 0;
        if (strcmp(old_unevictable, "0") == 0)
                return;
        sigfillset(&all);
        sigprocmask(SIG_BLOCK, &all, &old);
        if (write_file(UNEVICTABLE, "0") == 0)
                unevictable_changed = true;
        else
                fprintf(stderr, "fragment: cannot write %s: %s: compaction may move the pinned pages\n",
                        UNEVICTABLE, strerror(errno));
        sigprocmask(SIG_SETMASK, &old, NULL);
}

/* touch [p, p + len): MADV_POPULATE_WRITE (Linux 5.14), else a write to every page */
static int populate(char *p, size_t len, size_t page) {
        if (madvise(p, len, MADV_POPULATE_WRITE) == 0)
                return 0;
        if (errno != EINVAL)
                return -1;
        for (size_t off = 0; off < len; off += page)
                ((volatile char *) p)[off] = 1;
        return 0;
}

/* The 2 MiB block of each touched page from /proc/self/pagemap (root only sees frames): keep one
 * more page in each block that the 1-in-K rule left without one. Returns the pages added, or -1
 * when the frames cannot be seen; counts the blocks in *blocks. */
static long cover_blocks(const char *base, size_t pages, size_t page, uint64_t *frames, unsigned char *keep,
                         uint64_t *blocks) {
        uint64_t per_block = HUGE_2M / page, max_block = 0;
        unsigned char *seen, *held;
        long added = 0;
        size_t done = 0;
        int fd;

        *blocks = 0;
        fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -1;
        while (done < pages) {
                off_t at = (off_t) (((uintptr_t) base / page + done) * sizeof(uint64_t));
                ssize_t n = pread(fd, frames + done, (pages - done) * sizeof(uint64_t), at);

                if (n <= 0) {
                        close(fd);
                        return -1;
                }
                done += (size_t) n / sizeof(uint64_t);
        }
        close(fd);
        for (size_t i = 0; i < pages; i++) {
                uint64_t pfn = frames[i] & ((UINT64_C(1) << 55) - 1);

                /* bit 63: present; a zero frame: not root */
                if (!(frames[i] >> 63) || pfn == 0)
                        return -1;
                frames[i] = pfn / per_block;
                if (frames[i] > max_block)
                        max_block = frames[i];
        }
        seen = calloc(max_block / 8 + 1, 1);
        held = calloc(max_block / 8 + 1, 1);
        if (!seen || !held) {
                free(seen);
                free(held);
                return -1;
        }
        for (size_t i = 0; i < pages; i++)
                if (keep[i / 8] & (1u << (i % 8)))
                        held[frames[i] / 8] |= (unsigned char) (1u << (frames[i] % 8));
        for (size_t i = 0; i < pages; i++) {
                uint64_t b = frames[i];
                unsigned char bit = (unsigned char) (1u << (b % 8));

                if (!(seen[b / 8] & bit)) {
                        seen[b / 8] |= bit;
                        (*blocks)++;
                }
                if (!(held[b / 8] & bit)) {
                        held[b / 8] |= bit;
                        keep[i / 8] |= (unsigned char) (1u << (i % 8));
                        added++;
                }
        }
        free(seen);
        free(held);
        return added;
}

int main(int argc, char **argv) {
        uint64_t node = 0, leave_mb = 256, keep_every = 64, free0, budget, blocks = 0, kept = 0;
        size_t page = (size_t) sysconf(_SC_PAGESIZE), len, pages, touched = 0;
        bool bind = false;
        long node_arg = -1, extra;
        unsigned char *keep;
        uint64_t *frames;
        struct sigaction sa;
        char *base, buf[256], where[32] = "the machine";
        int rc = 1;

        for (int i = 1; i < argc; i += 2) {
                const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

                /* every option takes a value: i moves by two */
                if (strcmp(o, "-h") == 0 || strcmp(o, "--help") == 0) {
                        usage(stdout);
                        return 0;
                } else if (strcmp(o, "--node") == 0 && parse_u64(v, 4095, &node) == 0) {
                        bind = true;
                        node_arg = (long) node;
                        (void) snprintf(where, sizeof(where), "node%ld", node_arg);
                } else if (strcmp(o, "--leave") == 0 && parse_u64(v, UINT64_C(1) << 30, &leave_mb) == 0) {
                        if (leave_mb < MIN_LEAVE_MB) {
                                fprintf(stderr, "fragment: --leave %" PRIu64 ": at least %d (MiB)\n", leave_mb,
                                        MIN_LEAVE_MB);
                                return 2;
                        }
                } else if (strcmp(o, "--keep") == 0 && parse_u64(v, 1 << 20, &keep_every) == 0 &&
                           keep_every >= 2) {
                } else {
                        usage(stderr);
                        return 2;
                }
        }

        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_signal; /* no SA_RESTART: the wait for stdin must see the signal */
        sigemptyset(&sa.sa_mask);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);
        signal(SIGPIPE, SIG_IGN);
        /* the first to go if memory runs out after all: everything it holds is freed on kill */
        (void) write_file("/proc/self/oom_score_adj", "1000");

        free0 = mem_free(node_arg);
        if (free0 == 0) {
                fprintf(stderr, "fragment: cannot read MemFree of %s\n", where);
                return 1;
        }
        if (free0 <= leave_mb * MIB + CHUNK) {
                fprintf(stderr, "fragment: %s: MemFree %" PRIu64 " MiB is no more than --leave %" PRIu64 " MiB + %d\n",
                        where, free0 / MIB, leave_mb, (int) (CHUNK / MIB));
                return 1;
        }
        budget = (free0 - leave_mb * MIB) / HUGE_2M * HUGE_2M;
        if (budget > SIZE_MAX / 2) {
                fprintf(stderr, "fragment: too much memory for this address space\n");
                return 1;
        }
        len = (size_t) budget;
        pages = len / page;
        /* taken (and touched) before the big mapping, so that they count against MemFree too */
        keep = calloc(pages / 8 + 1, 1);
        frames = calloc(pages, sizeof(*frames));
        if (!keep || !frames) {
                fprintf(stderr, "fragment: out of memory\n");
                return 1;
        }
        memset(keep, 0, pages / 8 + 1);
        memset(frames, 0, pages * sizeof(*frames));

        base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (base == MAP_FAILED) {
                fprintf(stderr, "fragment: mmap %zu MiB: %s\n", len / MIB, strerror(errno));
                return 1;
        }
        if (madvise(base, len, MADV_NOHUGEPAGE) < 0)
                fprintf(stderr, "fragment: MADV_NOHUGEPAGE: %s\n", strerror(errno));
        if (bind) {
                unsigned long mask[64] = {0};

                mask[node / (8 * sizeof(long))] = 1UL << (node % (8 * sizeof(long)));
                /* maxnode: the bits in mask, plus one (the kernel counts one less) */
                if (syscall(SYS_mbind, base, len, FRAG_MPOL_BIND, mask, 8 * sizeof(mask) + 1, 0) < 0) {
                        fprintf(stderr, "fragment: mbind to node %" PRIu64 ": %s\n", node, strerror(errno));
                        return 1;
                }
        }
        forbid_unevictable();

        /* Touch it all, a chunk at a time, each only while MemFree still leaves --leave untouched */
        while (touched < len && !stop) {
                size_t n = len - touched < CHUNK ? len - touched : CHUNK;

                if (mem_free(node_arg) < leave_mb * MIB + n)
                        break;
                if (populate(base + touched, n, page) < 0) {
                        fprintf(stderr, "fragment: populating: %s\n", strerror(errno));
                        goto out;
                }
                touched += n;
        }
        if (stop)
                goto out;
        if (touched == 0) {
                fprintf(stderr, "fragment: %s: MemFree fell to --leave before anything was touched\n", where);
                goto out;
        }
        pages = touched / page;

        for (size_t i = 0; i < pages; i += keep_every)
                keep[i / 8] |= (unsigned char) (1u << (i % 8));
        extra = cover_blocks(base, pages, page, frames, keep, &blocks);
        free(frames);

        /* Give back every page not kept, in runs; then lock what is still there */
        for (size_t i = 0; i < pages;) {
                size_t j = i;

                while (j < pages && !(keep[j / 8] & (1u << (j % 8))))
                        j++;
                if (j > i && madvise(base + i * page, (j - i) * page, MADV_DONTNEED) < 0) {
                        fprintf(stderr, "fragment: MADV_DONTNEED: %s\n", strerror(errno));
                        goto out;
                }
                if (j < pages)
                        kept++;
                i = j + 1;
        }
        free(keep);
        if (syscall(SYS_mlock2, base, touched, MLOCK_ONFAULT) < 0) {
                fprintf(stderr, "fragment: mlock2: %s\n", strerror(errno));
                goto out;
        }

        fprintf(stderr,
                "fragment: %s: MemFree %" PRIu64 " MiB: touched %zu MiB, kept %" PRIu64
                " pages (%" PRIu64 " MiB) pinned, 1 in %" PRIu64 "%s",
                where, free0 / MIB, touched / MIB, kept, kept * page / MIB,
                keep_every, extra < 0 ? " (no frames in /proc/self/pagemap: 2 MiB blocks unchecked)" : "");
        if (extra >= 0)
                fprintf(stderr, " + %ld to cover all %" PRIu64 " 2 MiB blocks", extra, blocks);
        fprintf(stderr, "; MemFree now %" PRIu64 " MiB; %s %s\n", mem_free(node_arg) / MIB, UNEVICTABLE,
                unevictable_changed ? "0 until exit" : "unchanged");
        printf("fragmented %" PRIu64 "\n", (kept * page + MIB / 2) / MIB);
        fflush(stdout);

        /* Hold it until stdin ends or a signal comes */
        while (!stop) {
                ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));

                if (n == 0 || (n < 0 && errno != EINTR))
                        break;
        }
        rc = 0;
out:
        munmap(base, len);
        restore_unevictable();
        return rc;
}
