/* SPDX-License-Identifier: MIT */
/* Faults N surplus 2 MiB pages with W workers: threads on one mapping (shared), threads with a
 * mapping each (sep) or processes (proc); prints the time. bench/hvo-workers.py runs it. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#define PS (2UL << 20)
static long n, w; static char *one; static const char *how;
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
static char *map(long pages) { char *p = mmap(NULL, pages * PS, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_NORESERVE, -1, 0); if (p == MAP_FAILED) { perror("mmap"); exit(1); } return p; }
static void fault(char *p, long pages) { for (long i = 0; i < pages; i++) if (madvise(p + i * PS, PS, 23)) { perror("madvise"); exit(1); } }
static void *worker(void *arg) { long k = (long) arg, per = n / w; char *p = strcmp(how, "shared") ? map(per) : one + k * per * PS; fault(p, per); if (strcmp(how, "shared")) munmap(p, per * PS); return NULL; }
int main(int argc, char **argv) {
        how = argv[1]; n = atol(argv[2]); w = atol(argv[3]);
        pthread_t t[64]; double t0;
        if (!strcmp(how, "shared")) one = map(n);
        t0 = now();
        if (!strcmp(how, "proc")) {
                for (long k = 0; k < w; k++) if (!fork()) { worker((void *) k); _exit(0); }
                while (wait(NULL) > 0) ;
        } else {
                for (long k = 0; k < w; k++) pthread_create(&t[k], NULL, worker, (void *) k);
                for (long k = 0; k < w; k++) pthread_join(t[k], NULL);
        }
        printf("%-6s %3ld pages %2ld workers: %8.1f ms\n", how, n, w, now() - t0);
        return 0;
}
