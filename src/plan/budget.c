/* SPDX-License-Identifier: MIT */
/* The memory budget of a plan: per node, the huge pages it plans against the node's memory less
 * a headroom, and each reservation against its pool's free pages. Pure. */
#include <inttypes.h>
#include <stdlib.h>

#include "plan/budget.h"

#define MIB (UINT64_C(1) << 20)
#define HEADROOM_MIN (256 * MIB)
#define HEADROOM_PERCENT 2

uint64_t budget_headroom(const struct topology *t, size_t node_idx) {
        const struct topo_node *n = &t->nodes[node_idx];
        uint64_t all = 0, share = 0;

        for (size_t i = 0; i < t->n_nodes; i++)
                if (t->nodes[i].has_memory)
                        all += t->nodes[i].mem_total;
        /* The kernel spreads min_free_kbytes over the zones by their size (setup_per_zone_wmarks()). */
        if (all > 0)
                share = (uint64_t) ((unsigned __int128) t->min_free_kbytes * 1024 * n->mem_total / all);
        return 2 * share + MAX(n->mem_total / 100 * HEADROOM_PERCENT, HEADROOM_MIN);
}

static const struct plan_pool *pool_of_size(const struct plan *p, uint64_t page_size) {
        for (size_t i = 0; i < p->n_pools; i++)
                if (p->pools[i].page_size == page_size)
                        return &p->pools[i];
        return NULL;
}

static const struct plan_node *node_of_pool(const struct plan_pool *pp, size_t node_idx) {
        for (size_t i = 0; pp && i < pp->n_nodes; i++)
                if (pp->nodes[i].node_idx == node_idx)
                        return &pp->nodes[i];
        return NULL;
}

/* Pages of size @si on node @idx once the plan is done, counting what the kernel cannot give
 * back: surplus pages in use stay until freed (a growth makes only @promote of them
 * persistent), and a shrink frees free pages only (set_max_huge_pages() removes free pages
 * while the pool is above its count, then turns the rest into surplus). */
static uint64_t pages_after(const struct topology *t, const struct pool_counts *counts, const struct plan *p,
                            size_t si, size_t idx, bool *grows) {
        const struct plan_node *pn = node_of_pool(pool_of_size(p, t->page_sizes[si]), idx);
        const struct pool_counts *c = &counts[si * t->n_nodes + idx];

        if (!pn || pn->action == PLAN_LARGER || pn->action == PLAN_KEEP)
                return c->nr;
        if (pn->action == PLAN_SHRINK)
                return MAX(pn->target + pn->surplus, c->nr - MIN(c->free, c->nr));
        *grows = true;
        return pn->target + (pn->surplus - pn->promote);
}

int plan_check_budget(const struct topology *t, const struct pool_counts *counts, const struct plan *p,
                      struct error *e) {
        for (size_t i = 0; i < t->n_nodes; i++) {
                uint64_t bytes = 0, headroom, room;
                bool grows = false;
                char what[256] = "";
                size_t n = 0;

                if (!t->nodes[i].has_memory)
                        continue;
                for (size_t s = 0; s < t->n_page_sizes; s++) {
                        uint64_t b = pages_after(t, counts, p, s, i, &grows) * t->page_sizes[s];
                        const struct plan_pool *pp = pool_of_size(p, t->page_sizes[s]);
                        char name[32];

                        bytes += b;
                        if (b > 0 && n < sizeof(what))
                                n += (size_t) snprintf(what + n, sizeof(what) - n, "%s%s %" PRIu64 " MiB%s%s%s",
                                                       n ? ", " : "", page_size_name(t->page_sizes[s], name),
                                                       b / MIB, pp ? " (" : "", pp ? pp->origin : "", pp ? ")" : "");
                }
                headroom = budget_headroom(t, i);
                room = t->nodes[i].mem_total > headroom ? t->nodes[i].mem_total - headroom : 0;
                if (grows && bytes > room)
                        return error_set(e, -EINVAL,
                                         "node%u: %" PRIu64 " MiB of huge pages planned (%s), more than the %" PRIu64
                                         " MiB left of its %" PRIu64 " MiB of memory after %" PRIu64
                                         " MiB of headroom (MEMORY BUDGET in hpfilld(8))",
                                         t->nodes[i].id, bytes / MIB, what, room / MIB, t->nodes[i].mem_total / MIB,
                                         headroom / MIB);
        }
        return 0;
}

/* Free pages of size @si on node @idx once the plan's pools are done: a grown pool's new pages
 * are free; a shrink frees free pages first (set_max_huge_pages() frees only free pages). */
static uint64_t free_after(const struct topology *t, const struct pool_counts *counts, const struct plan *p,
                           size_t si, size_t idx) {
        const struct plan_node *pn = node_of_pool(pool_of_size(p, t->page_sizes[si]), idx);
        uint64_t free = counts[si * t->n_nodes + idx].free;

        if (pn && pn->action == PLAN_GROW)
                return free + (pn->target - pn->now);
        if (pn && pn->action == PLAN_SHRINK)
                return free > pn->now - pn->target ? free - (pn->now - pn->target) : 0;
        return free;
}

int plan_check_reserves(const struct topology *t, const struct pool_counts *counts, const struct plan *p,
                        const bool *kept, struct error *e) {
        for (size_t i = 0; i < p->n_reserves; i++) {
                const struct plan_pool *rp = &p->reserves[i].pool;
                int si = -1;

                if (kept && kept[i])
                        continue;
                for (size_t s = 0; s < t->n_page_sizes; s++)
                        if (t->page_sizes[s] == rp->page_size)
                                si = (int) s;
                if (si < 0)
                        continue; /* plan_build() said so already */
                for (size_t k = 0; k < rp->n_nodes; k++) {
                        const struct plan_node *rn = &rp->nodes[k];
                        uint64_t need = rn->target, have = free_after(t, counts, p, (size_t) si, rn->node_idx);
                        char name[32];

                        /* the reservations before it take their pages first */
                        for (size_t j = 0; j < i; j++) {
                                const struct plan_node *o = node_of_pool(&p->reserves[j].pool, rn->node_idx);

                                if (o && p->reserves[j].pool.page_size == rp->page_size && !(kept && kept[j]))
                                        need += o->target;
                        }
                        if (need > have)
                                return error_set(e, -EINVAL,
                                                 "%s: node%u: %" PRIu64 " %s pages to reserve%s, but the %s pool will have "
                                                 "only %" PRIu64 " free there (size the pool to include its reservations)",
                                                 rp->origin, rn->node, need, page_size_name(rp->page_size, name),
                                                 need > rn->target ? " with the reservations before it" : "",
                                                 name, have);
                }
        }
        return 0;
}
