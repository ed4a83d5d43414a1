/* SPDX-License-Identifier: MIT */
/* hold-surplus: a workload for the VM tests that holds N 2 MiB huge pages of one NUMA node. */
/*
 * hold-surplus NODE N FILE
 *
 * Binds itself to NODE (set_mempolicy(MPOL_BIND)), maps N anonymous 2 MiB huge pages with
 * MAP_NORESERVE (a reservation at mmap time would take its surplus pages in
 * gather_surplus_pages(), which on 6.1 ignores the policy), touches each (each fault allocates
 * on NODE, alloc_buddy_hugetlb_folio_with_mpol()), writes "holding" to FILE and waits
 * until SIGTERM (or SIGINT), then exits, which frees them. With an empty pool and
 * nr_overcommit_hugepages >= N the pages are surplus pages of NODE. Static: runs in the guest
 * with nothing else. Exit 1, with a message, when the pages cannot be had.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define HUGE_2M (2UL << 20)
#define MPOL_BIND_MODE 2 /* MPOL_BIND, uapi/linux/mempolicy.h */
#define MAP_HUGE_2MB_FLAGS (21 << 26)

int main(int argc, char **argv) {
        unsigned long mask[16] = { 0 };
        unsigned long node, n;
        sigset_t set;
        char *p;
        int fd, sig;

        if (argc != 4) {
                fprintf(stderr, "usage: hold-surplus NODE N FILE\n");
                return 2;
        }
        node = strtoul(argv[1], NULL, 10);
        n = strtoul(argv[2], NULL, 10);
        if (node >= 8 * sizeof(mask) || n == 0) {
                fprintf(stderr, "hold-surplus: bad node or count\n");
                return 2;
        }
        mask[node / (8 * sizeof(long))] = 1UL << (node % (8 * sizeof(long)));
        if (syscall(SYS_set_mempolicy, MPOL_BIND_MODE, mask, 8 * sizeof(mask) + 1) < 0) {
                perror("hold-surplus: set_mempolicy");
                return 1;
        }
        /* SIGTERM waited for below, never delivered as a kill */
        sigemptyset(&set);
        sigaddset(&set, SIGTERM);
        sigaddset(&set, SIGINT);
        sigprocmask(SIG_BLOCK, &set, NULL);
        p = mmap(NULL, n * HUGE_2M, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_HUGETLB | MAP_HUGE_2MB_FLAGS, -1, 0);
        if (p == MAP_FAILED) {
                perror("hold-surplus: mmap");
                return 1;
        }
        for (unsigned long i = 0; i < n; i++)
                memset(p + i * HUGE_2M, 7, 4096);
        fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0 || write(fd, "holding\n", 8) != 8 || close(fd) < 0) {
                perror("hold-surplus: ready file");
                return 1;
        }
        sigwait(&set, &sig);
        return 0;
}
