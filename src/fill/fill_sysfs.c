/* SPDX-License-Identifier: MIT */
/* The sysfs method: grow a pool by writing per-node nr_hugepages in steps, reading every count back. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"
#include "util/fileio.h"
#include "fill/fill_sysfs.h"
#include "util/macro.h"
#include "fill/pin.h"
#include "kernel/pool.h"
#include "plan/choose.h"

int sysfs_fill_init(struct sysfs_fill *f, struct fill_shared *shared, const struct plan_pool *pool) {
        *f = (struct sysfs_fill) { .shared = shared, .pool = pool };
        atomic_init(&f->done, 0);
        f->after = calloc(pool->n_nodes ? pool->n_nodes : 1, sizeof(*f->after));
        f->short_node = calloc(pool->n_nodes ? pool->n_nodes : 1, sizeof(*f->short_node));
        if (!f->after || !f->short_node) {
                sysfs_fill_done(f);
                return -ENOMEM;
        }
        for (size_t i = 0; i < pool->n_nodes; i++)
                f->after[i] = pool->nodes[i].now;
        return 0;
}

void sysfs_fill_done(struct sysfs_fill *f) {
        free(f->after);
        free(f->short_node);
        f->after = NULL;
        f->short_node = NULL;
}

/* The node's persistent pages: what a write of nr_hugepages sets (surplus pages are promoted
 * before any is allocated, set_max_huge_pages()), and what stays when workloads exit. */
static int read_nr(struct fill_shared *s, unsigned node, uint64_t page_size, uint64_t *ret) {
        return pool_read_persistent(s->rootfd, s->t, node, page_size, ret);
}

static int write_nr(struct fill_shared *s, unsigned node, uint64_t page_size, uint64_t count) {
        sigset_t saved;
        int r;

        /* a stop signal during the write ends the kernel's allocation there (stop_write_open()) */
        stop_write_open(s->stop, &saved);
        /* The only node with memory: the global file means the same and the kernel's path for it
         * is cheaper than the node-masked one (0.5 ms on 4 GiB here). */
        r = s->writer->write_nr(s->writer->data, page_size, s->global_writes ? POOL_WRITER_GLOBAL : (int) node, count);
        stop_write_close(s->stop, &saved);
        return r;
}

static int compact(struct fill_shared *s, unsigned node) {
        return pool_compact_node(s->rootfd, s->t, node);
}

static int drop_caches(struct fill_shared *s) {
        return pool_drop_caches(s->rootfd);
}

/* Whether more rounds may follow a dry spell: only with --drop-caches, only once per writer.
 * The caches are dropped once per fill; a writer arriving later still gets its rounds. */
static bool try_drop_caches(struct sysfs_fill *f) {
        struct fill_shared *s = f->shared;

        if (!s->drop_caches || f->after_drop)
                return false;
        f->after_drop = true;
        /* Without permission (a read-only /proc/sys) the rounds go on anyway: nothing lost. */
        if (!atomic_exchange(&s->caches_dropped, true))
                (void) drop_caches(s);
        return true;
}

static void record_error(struct sysfs_fill *f, int r, unsigned node, const char *file) {
        if (f->error)
                return;
        f->error = r;
        (void) pool_path(f->error_path, sizeof(f->error_path), f->shared->t, node, f->pool->page_size, file);
}

/* Moves node @i of the pool towards its target in steps. Returns 0, or a negative errno. Sets
 * short_node[i] when the kernel gave fewer pages than asked. */
static int move_node(struct sysfs_fill *f, size_t i) {
        const struct plan_node *n = &f->pool->nodes[i];
        struct fill_shared *s = f->shared;
        /* the writes so far: the last one's pages and time, for a fixed cost a write (choose_fit()) */
        struct choose_write w = { .first = sysfs_first_step(f->pool->page_size, s->step_bytes), .write_ns = s->step_ns };
        uint64_t k_last = 0, t_last = 0;
        uint64_t cur = f->after[i]; /* as last seen; read again at the top of each step */
        int r;

        if (s->pin)
                /* Where the kernel does the work (and zeroes, under init_on_alloc): near the memory.
                 * Not fatal: a cpuset may forbid those CPUs. */
                (void) pin_thread_to_node(s->t, n->cpu_node_idx);
        f->short_node[i] = false;

        if (n->action == PLAN_SHRINK) {
                r = read_nr(s, n->node, f->pool->page_size, &cur);
                if (r < 0)
                        goto fail;
                /* One write: the kernel frees only free pages; pages in use or reserved stay. */
                if (cur > n->target) {
                        r = write_nr(s, n->node, f->pool->page_size, n->target);
                        if (r < 0)
                                goto fail;
                        (void) fill_count_step(s);
                        r = read_nr(s, n->node, f->pool->page_size, &cur);
                        if (r < 0)
                                goto fail;
                }
                f->after[i] = cur;
                return 0;
        }

        while (cur < n->target && !stop_requested(s->stop)) {
                uint64_t want, got, t0 = now_ns(), dt;

                /* From the count as it is now: an admin's write since the last step is theirs to
                 * keep (a pool they grew is not shrunk back to our step). */
                r = read_nr(s, n->node, f->pool->page_size, &cur);
                if (r < 0)
                        goto fail;
                if (cur >= n->target)
                        break;
                want = cur + choose_write_pages(&w, n->target - cur);

                r = write_nr(s, n->node, f->pool->page_size, want);
                if (r < 0)
                        goto fail;
                r = read_nr(s, n->node, f->pool->page_size, &got);
                if (r < 0)
                        goto fail;
                dt = MAX(now_ns() - t0, UINT64_C(1));
                if (got > cur) {
                        /* the next write from this one and the one before */
                        choose_fit(k_last, t_last, got - cur, dt, &w.rate, &w.fixed_ns);
                        k_last = got - cur;
                        t_last = dt;
                        atomic_fetch_add(&f->done, got - cur);
                }
                (void) fill_count_step(s);
                if (got < want) {
                        /* The write succeeded and the kernel gave what it could: the node is short
                         * for now. Retried after compaction, in a later round. */
                        cur = got;
                        f->short_node[i] = true;
                        break;
                }
                cur = got;
        }
        f->after[i] = cur;
        return 0;

fail:
        record_error(f, r, n->node, "nr_hugepages");
        return r;
}

void sysfs_fill_run(void *arg) {
        struct sysfs_fill *f = arg;
        struct fill_shared *s = f->shared;
        const struct plan_pool *p = f->pool;
        uint64_t start = now_ns();

        for (size_t i = 0; i < p->n_nodes && !stop_requested(s->stop); i++)
                if (p->nodes[i].action == PLAN_GROW || p->nodes[i].action == PLAN_SHRINK)
                        if (move_node(f, i) < 0)
                                goto out;

        /* Retry short nodes after compacting them, while rounds still gain pages; then, when
         * asked, drop the caches and go on the same way. */
        unsigned limit = SYSFS_MAX_ROUNDS;
        bool gained = true;

        while (!stop_requested(s->stop)) {
                uint64_t before = 0;
                bool any = false;

                for (size_t i = 0; i < p->n_nodes; i++)
                        any |= f->short_node[i];
                if (!any)
                        break;
                if (!gained || f->rounds >= limit) {
                        if (!try_drop_caches(f))
                                break;
                        limit = f->rounds + SYSFS_MAX_ROUNDS;
                }
                gained = false;
                f->rounds++;
                for (size_t i = 0; i < p->n_nodes && !stop_requested(s->stop); i++) {
                        int r;

                        if (!f->short_node[i])
                                continue;
                        /* Compaction may be missing (CONFIG_COMPACTION=n): retry anyway. */
                        (void) compact(s, p->nodes[i].node);
                        before = f->after[i];
                        r = move_node(f, i);
                        if (r < 0)
                                goto out;
                        gained |= f->after[i] > before;
                }
        }
out:
        f->interrupted = stop_signalled(s->stop);
        f->elapsed_ns = now_ns() - start;
}
