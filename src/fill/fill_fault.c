/* SPDX-License-Identifier: MIT */
/* The fault method: pinned workers fault in surplus pages of hugetlb mappings bound to their
 * node, in parallel; the pool then takes them in as persistent pages. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "util/clock.h"
#include "config.h"
#include "util/fileio.h"
#include "fill/fill_fault.h"
#include "util/macro.h"
#include "fill/pin.h"
#include "kernel/pool.h"

#if HAVE_LIBNUMA
static long (*libnuma_mbind)(void *, unsigned long, int, const unsigned long *, unsigned long, unsigned);

static void load_libnuma(void) {
        void *lib = dlopen("libnuma.so.1", RTLD_NOW | RTLD_LOCAL);

        if (lib)
                libnuma_mbind = (long (*)(void *, unsigned long, int, const unsigned long *, unsigned long,
                                          unsigned)) dlsym(lib, "mbind");
}
#endif

#define MPOL_BIND 2

/* libnuma's mbind() where installed, loaded on first use (only the fault method needs it: its
 * load-time constructor cost every run start-up time); the system call itself otherwise. */
static long mbind_any(void *start, unsigned long len, int mode, const unsigned long *nodemask, unsigned long maxnode,
                      unsigned flags) {
#if HAVE_LIBNUMA
        static pthread_once_t once = PTHREAD_ONCE_INIT;

        (void) pthread_once(&once, load_libnuma);
        if (libnuma_mbind)
                return libnuma_mbind(start, len, mode, nodemask, maxnode, flags);
#endif
        return syscall(SYS_mbind, start, len, mode, nodemask, maxnode, flags);
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
/* MAX_NUMNODES of the largest configurations (x86 NODES_SHIFT 10) */
#define NODES_MAX 1024

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif

static int set_error(struct fault_pool *fp, int r, const char *what) {
        return error_keep_first(&fp->error, fp->error_what, sizeof(fp->error_what), r, what);
}

/* Binds [addr, addr+len) to @node before anything is faulted: the kernel then allocates every
 * page of it, surplus or from the free pool, on that node alone. */
static int bind_to_node(void *addr, size_t len, unsigned node) {
        unsigned long mask[NODES_MAX / 64] = {};

        if (node >= NODES_MAX)
                return -ERANGE;
        mask[node / 64] |= 1ul << (node % 64);
        /* maxnode counts one more than the bits of the mask (the kernel subtracts one) */
        return mbind_any(addr, len, MPOL_BIND, mask, NODES_MAX + 1, 0) < 0 ? -errno : 0;
}

/* Maps a region per GROW node of the plan (but those in @skip, when given), bound to the node:
 * anonymous and private when fd < 0, else consecutive ranges of the hugetlbfs file @fd, shared. */
static int map_nodes(struct fault_pool *fp, int fd, const bool *skip) {
        const struct plan_pool *plan = fp->plan;
        int shift = __builtin_ctzll(plan->page_size), r;
        uint64_t offset = 0;
        char what[192];

        for (size_t i = 0; i < plan->n_nodes; i++) {
                const struct plan_node *pn = &plan->nodes[i];
                struct fault_node *n;
                size_t len;

                if (plan_node_new_pages(pn) == 0 || (skip && skip[i]))
                        continue;
                n = &fp->nodes[fp->n_nodes];
                *n = (struct fault_node) { .pool = fp, .plan_idx = i, .pages = plan_node_new_pages(pn) };
                len = (size_t) (n->pages * plan->page_size);
                /* MAP_NORESERVE: nothing is reserved before the bind below, or the reservation
                 * would be taken from whatever node the kernel likes (seen on 6.1). */
                if (fd < 0)
                        n->addr = mmap(NULL, len, PROT_READ | PROT_WRITE,
                                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_NORESERVE |
                                               (shift << MAP_HUGE_SHIFT),
                                       -1, 0);
                else
                        n->addr = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd,
                                       (off_t) offset);
                if (n->addr == MAP_FAILED) {
                        n->addr = NULL;
                        (void) snprintf(what, sizeof(what), "mmap of %" PRIu64 " page%s for node%u", n->pages,
                                        plural(n->pages), pn->node);
                        return set_error(fp, -errno, what);
                }
                offset += len;
                fp->n_nodes++;
                r = bind_to_node(n->addr, len, pn->node);
                if (r < 0) {
                        (void) snprintf(what, sizeof(what), "mbind to node%u", pn->node);
                        return set_error(fp, r, what);
                }
                atomic_init(&n->out, false);
                atomic_init(&n->faulted, 0);
                atomic_init(&n->error, 0);
        }
        return 0;
}

static int fault_pool_init(struct fault_pool *fp, struct fill_shared *shared, const struct plan_pool *plan) {
        *fp = (struct fault_pool) { .shared = shared, .plan = plan };
        fp->nodes = calloc(plan->n_nodes ? plan->n_nodes : 1, sizeof(*fp->nodes));
        return fp->nodes ? 0 : -ENOMEM;
}

/* Whether node @i of the plan has free pages now that are not the fill's own (or cannot say).
 * A fault takes the pool's free pages before it makes a surplus one (alloc_hugetlb_folio():
 * dequeue_hugetlb_folio_vma() first, from the nodes of the mapping's policy), so faulting there
 * would zero pages the pool already has and leave a workload that maps them meanwhile without:
 * such a node is the sysfs top-up's. */
static bool node_has_free(struct fault_pool *fp, size_t i) {
        const uint64_t *own = fp->shared->fault_own_free;
        uint64_t takeable;

        /* free pages others' mappings hold reserved are not a fault's to take */
        return pool_read_takeable(fp->shared->rootfd, fp->shared->t, fp->plan->nodes[i].node, fp->plan->page_size,
                                  &takeable) < 0 ||
               takeable > (own ? own[i] : 0);
}

int fault_pool_prepare(struct fault_pool *fp, struct fill_shared *shared, const struct plan_pool *plan) {
        _cleanup_(freep) bool *skip = NULL;
        char path[160];
        uint64_t shortfall = 0, surplus, want;
        int r;

        r = fault_pool_init(fp, shared, plan);
        if (r < 0)
                return r;
        skip = calloc(plan->n_nodes ? plan->n_nodes : 1, sizeof(*skip));
        if (!skip)
                return -ENOMEM;
        for (size_t i = 0; i < plan->n_nodes; i++) {
                if (plan_node_new_pages(&plan->nodes[i]) == 0)
                        continue;
                /* a node with free pages is the sysfs top-up's, its surplus promotions too */
                skip[i] = !shared->fault_free_nodes && node_has_free(fp, i);
                if (skip[i])
                        continue;
                shortfall += plan_node_new_pages(&plan->nodes[i]);
                fp->promote += plan->nodes[i].promote;
        }
        if (shortfall == 0)
                return 0;

        /* Surplus pages are allocated only while surplus < nr_overcommit_hugepages. */
        (void) pool_global_path(path, sizeof(path), plan->page_size, "nr_overcommit_hugepages");
        r = read_u64_at(shared->rootfd, path, &fp->overcommit_found);
        if (r < 0)
                return set_error(fp, r, path);
        (void) pool_global_path(path, sizeof(path), plan->page_size, "surplus_hugepages");
        r = read_u64_at(shared->rootfd, path, &surplus);
        if (r < 0)
                return set_error(fp, r, path);
        fp->surplus_found = surplus;
        want = surplus + shortfall;
        if (want > fp->overcommit_found) {
                /* recorded before the write: if we die before we put it back, a later run does */
                r = shared->writer->raise_overcommit(shared->writer->data, plan->page_size, fp->overcommit_found, want);
                if (r < 0) {
                        (void) pool_global_path(path, sizeof(path), plan->page_size, "nr_overcommit_hugepages");
                        return set_error(fp, r, path);
                }
                fp->overcommit_raised = true;
                fp->overcommit_set = want;
        }

        r = map_nodes(fp, -1, skip);
        if (r < 0)
                fault_pool_release(fp);
        return r;
}

int fault_pool_prepare_file(struct fault_pool *fp, struct fill_shared *shared, const struct plan_pool *plan, int fd) {
        int r;

        r = fault_pool_init(fp, shared, plan);
        if (r < 0)
                return r;
        r = map_nodes(fp, fd, NULL);
        if (r < 0)
                fault_pool_release(fp);
        return r;
}

int fault_pool_workers(struct fault_pool *fp, struct fault_worker **ret, size_t *ret_n) {
        const struct topology *t = fp->shared->t;
        struct fault_worker *w;
        size_t n = 0, total = 0;

        for (size_t i = 0; i < fp->n_nodes; i++) {
                struct fault_node *fn = &fp->nodes[i];
                const struct plan_node *pn = &fp->plan->nodes[fn->plan_idx];
                unsigned cpus = (unsigned) t->nodes[pn->cpu_node_idx].n_cpus;
                uint64_t chunk;

                fn->workers = fp->plan->threads;
                if (fp->plan->threads_auto && cpus > 0)
                        fn->workers = MIN(fn->workers, cpus);
                fn->workers = (unsigned) MIN((uint64_t) fn->workers, fn->pages);
                fn->workers = MAX(fn->workers, 1u);
                /* Chunks small enough to balance the workers (8 per worker), to stop within a few
                 * milliseconds and to give the ramp windows to measure (16 pages of 2 MiB take
                 * about 5 ms to zero); large enough to keep the iterator out of the profile. */
                chunk = MAX(UINT64_C(1), MIN(UINT64_C(16), fn->pages / (fn->workers * UINT64_C(8))));
                work_iter_init(&fn->it, 0, fn->pages, chunk);
                ramp_init(&fn->ramp, fn->workers, fp->plan->threads_auto, now_ns);
                fn->ramp_ready = true;
                total += fn->workers;
        }
        w = calloc(total ? total : 1, sizeof(*w));
        if (!w)
                return -ENOMEM;
        for (size_t i = 0; i < fp->n_nodes; i++)
                for (unsigned k = 0; k < fp->nodes[i].workers; k++)
                        w[n++] = (struct fault_worker) {
                                .node = &fp->nodes[i],
                                .cpu_node_idx = fp->plan->nodes[fp->nodes[i].plan_idx].cpu_node_idx,
                                .index = k,
                        };
        *ret = w;
        *ret_n = n;
        return 0;
}

void fault_worker_run(void *arg) {
        struct fault_worker *w = arg;
        struct fault_node *n = w->node;
        struct fill_shared *s = n->pool->shared;
        uint64_t ps = n->pool->plan->page_size, start, len;

        if (!ramp_admit(&n->ramp, w->index))
                return;
        /* The zeroing of a faulted page runs on the faulting CPU: keep it next to the memory. */
        if (s->t->nodes[w->cpu_node_idx].n_cpus > 0)
                (void) pin_thread_to_node(s->t, w->cpu_node_idx);

        while (!stop_requested(s->stop) && !atomic_load_explicit(&n->out, memory_order_relaxed) &&
               work_iter_next(&n->it, &start, &len)) {
                char *p = (char *) n->addr + start * ps;

                if (madvise(p, (size_t) (len * ps), MADV_POPULATE_WRITE) < 0) {
                        int r = -errno;

                        /* ENOMEM, EFAULT (or EHWPOISON): no page to be had on this node now,
                         * where a plain touch would have raised SIGBUS. */
                        if (r != -ENOMEM && r != -EFAULT && r != -EHWPOISON) {
                                int zero = 0;
                                (void) atomic_compare_exchange_strong(&n->error, &zero, r);
                        }
                        atomic_store(&n->out, true);
                        break;
                }
                atomic_fetch_add_explicit(&n->faulted, len, memory_order_relaxed);
                ramp_progress(&n->ramp, &n->faulted);
                (void) fill_count_step(s);
        }
        /* Out of work, pages or time: workers still waiting for admission leave too. */
        ramp_finish(&n->ramp);
}

unsigned fault_pool_threads_used(struct fault_pool *fp) {
        unsigned most = 0;

        for (size_t i = 0; i < fp->n_nodes; i++)
                if (fp->nodes[i].ramp_ready)
                        most = MAX(most, ramp_active(&fp->nodes[i].ramp));
        return most;
}

int fault_pool_adopt(struct fault_pool *fp) {
        struct fill_shared *s = fp->shared;
        uint64_t nr;
        char path[160];
        int r;

        if (fp->n_nodes == 0)
                return 0;
        /* One global write of nr_hugepages = persistent pages + the surplus the workers made,
         * i.e. nr_hugepages - the surplus found before: set_max_huge_pages() turns that much
         * surplus into persistent pages and allocates nothing, and the pages stay on the nodes
         * they were faulted on. Not per node: before Linux 6.7 ("mm/hugetlb: fix nodes huge
         * page allocation when there are surplus pages") a node's write counted the other
         * nodes' surplus pages as persistent and allocated that many more on the node. Pages of
         * partly faulted chunks are in that surplus too: adopted, on their (bound) node.
         * The surplus pages in use that the plan promotes are added: the same write makes them
         * persistent (surplus is adjusted first, whichever pages it counts), so no node keeps
         * a surplus that would send our pages back to the kernel when they are unmapped
         * (free_huge_folio() frees a page while its node has surplus pages). */
        (void) pool_global_path(path, sizeof(path), fp->plan->page_size, "nr_hugepages");
        r = read_u64_at(s->rootfd, path, &nr);
        if (r >= 0 && nr > fp->surplus_found)
                r = s->writer->write_nr(s->writer->data, fp->plan->page_size, POOL_WRITER_GLOBAL,
                                        nr - fp->surplus_found + MIN(fp->promote, fp->surplus_found));
        return r < 0 ? set_error(fp, r, path) : 0;
}

void fault_pool_release(struct fault_pool *fp) {
        char path[160];
        int r;

        for (size_t i = 0; i < fp->n_nodes; i++)
                if (fp->nodes[i].addr) {
                        /* Adopted pages go back to the pool as free persistent pages; pages not
                         * adopted (an interrupted or failed run) are surplus and go back to the
                         * kernel's free memory. */
                        (void) munmap(fp->nodes[i].addr, (size_t) (fp->nodes[i].pages * fp->plan->page_size));
                        fp->nodes[i].addr = NULL;
                }
        if (fp->overcommit_raised) {
                /* Put back what we found, unless someone else changed it meanwhile: then theirs
                 * is the value the admin asked for. Where it fails, the state keeps it for a
                 * later run. */
                r = fp->shared->writer->restore_overcommit(fp->shared->writer->data, fp->plan->page_size);
                if (r < 0) {
                        (void) pool_global_path(path, sizeof(path), fp->plan->page_size, "nr_overcommit_hugepages");
                        set_error(fp, r, path);
                } else
                        fp->overcommit_raised = false;
        }
}

void fault_pool_done(struct fault_pool *fp) {
        fault_pool_release(fp);
        for (size_t i = 0; i < fp->n_nodes; i++)
                if (fp->nodes[i].ramp_ready)
                        ramp_destroy(&fp->nodes[i].ramp);
        free(fp->nodes);
        fp->nodes = NULL;
        fp->n_nodes = 0;
}
