/* SPDX-License-Identifier: MIT */
/* The memory budget of a plan: per node, the huge pages it plans against the node's memory less
 * a headroom (and, when the nodes' meminfo lags the machine's, the sum against the machine's), and
 * each reservation against its pool's free pages. Pure. */
#include <inttypes.h>
#include <stdlib.h>

#include "plan/budget.h"

#define MIB (UINT64_C(1) << 20)
#define HEADROOM_MIN (256 * MIB)
#define HEADROOM_PERCENT 2

uint64_t budget_headroom(const struct topology *t, size_t node_idx) {
        uint64_t all = topology_nodes_mem(t), mem = t->nodes[node_idx].mem_total, share = 0;

        /* The kernel spreads min_free_kbytes over the zones by their size (setup_per_zone_wmarks()). */
        if (all > 0)
                share = (uint64_t) ((unsigned __int128) t->min_free_kbytes * 1024 * mem / all);
        /* 2% of the node's memory as the machine counts it (its meminfo may lag) */
        return 2 * share + MAX(topology_node_share(t, node_idx) / 100 * HEADROOM_PERCENT, HEADROOM_MIN);
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
        uint64_t all_bytes = 0, all_headroom = 0;
        bool any_grows = false, uncounted = false;

        for (size_t i = 0; i < t->n_nodes; i++) {
                uint64_t bytes = 0, headroom, room, limit;
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
                /* the memory no node counts yet may be this node's: never stricter than the
                 * kernel, which grants from it; the whole machine's check below holds the sum */
                limit = topology_node_limit(t, i);
                room = limit > headroom ? limit - headroom : 0;
                if (grows && bytes > room)
                        return error_set(e, -EINVAL,
                                         "node%u: %" PRIu64 " MiB of huge pages planned (%s), more than the %" PRIu64
                                         " MiB left of its %" PRIu64 " MiB of memory after %" PRIu64
                                         " MiB of headroom (MEMORY BUDGET in hpfilld(8))",
                                         t->nodes[i].id, bytes / MIB, what, room / MIB, limit / MIB, headroom / MIB);
                all_bytes += bytes;
                all_headroom += headroom;
                any_grows |= grows;
                uncounted |= grows && bytes + headroom > t->nodes[i].mem_total;
        }
        if (any_grows && topology_uncounted(t) > 0 && all_bytes + all_headroom > t->machine_mem)
                return error_set(e, -EINVAL,
                                 "the machine: %" PRIu64 " MiB of huge pages planned on its nodes, more than the %" PRIu64
                                 " MiB left of its %" PRIu64 " MiB of memory (/proc/meminfo; the nodes count %" PRIu64
                                 " MiB) after %" PRIu64 " MiB of headroom (MEMORY BUDGET in hpfilld(8))",
                                 all_bytes / MIB,
                                 t->machine_mem > all_headroom ? (t->machine_mem - all_headroom) / MIB : 0,
                                 t->machine_mem / MIB, topology_nodes_mem(t) / MIB, all_headroom / MIB);
        return uncounted;
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

/* Pages reservation @i and the ones before it of its size (not kept) take on node @idx, or on
 * all nodes (@idx SIZE_MAX). */
static uint64_t reserve_need(const struct plan *p, const bool *kept, size_t i, size_t idx) {
        uint64_t need = 0;

        for (size_t j = 0; j <= i; j++) {
                const struct plan_pool *rp = &p->reserves[j].pool;

                if (rp->page_size != p->reserves[i].pool.page_size || (kept && kept[j]))
                        continue;
                for (size_t k = 0; k < rp->n_nodes; k++)
                        if (idx == SIZE_MAX || rp->nodes[k].node_idx == idx)
                                need += rp->nodes[k].target;
        }
        return need;
}

/* The whole pool of the size: the free pages after the fill, less those others' mappings have
 * reserved (resv_hugepages: a reservation is pool wide, of no node), must hold the reservations.
 * A new mapping's reservation fails otherwise (hugetlb_acct_memory() counts free_huge_pages less
 * resv_huge_pages). */
static int check_reserve_total(const struct topology *t, const struct pool_counts *counts, const struct plan *p,
                               const bool *kept, const uint64_t *resv, size_t i, size_t si, struct error *e) {
        const struct plan_pool *rp = &p->reserves[i].pool;
        uint64_t need = reserve_need(p, kept, i, SIZE_MAX), own = 0, free = 0, have;
        char name[32];

        for (size_t k = 0; k < rp->n_nodes; k++)
                own += rp->nodes[k].target;

        if (!resv || resv[si] == 0)
                return 0;
        for (size_t n = 0; n < t->n_nodes; n++)
                free += free_after(t, counts, p, si, n);
        have = free > resv[si] ? free - resv[si] : 0;
        if (need <= have)
                return 0;
        return error_set(e, -EINVAL,
                         "%s: %" PRIu64 " %s page%s to reserve%s, but the %s pool will have only %" PRIu64
                         " free for them: %" PRIu64 " free less %" PRIu64 " reserved by other mappings "
                         "(resv_hugepages; size the pool to include both)",
                         rp->origin, need, page_size_name(rp->page_size, name), plural(need),
                         need > own ? " with the reservations before it" : "",
                         name, have, free, resv[si]);
}

int plan_check_reserves(const struct topology *t, const struct pool_counts *counts, const struct plan *p,
                        const bool *kept, const uint64_t *resv, struct error *e) {
        for (size_t i = 0; i < p->n_reserves; i++) {
                const struct plan_pool *rp = &p->reserves[i].pool;
                int si = -1, r;

                if (kept && kept[i])
                        continue;
                for (size_t s = 0; s < t->n_page_sizes; s++)
                        if (t->page_sizes[s] == rp->page_size)
                                si = (int) s;
                if (si < 0)
                        continue; /* plan_build() said so already */
                for (size_t k = 0; k < rp->n_nodes; k++) {
                        const struct plan_node *rn = &rp->nodes[k];
                        /* the reservations before it take their pages first */
                        uint64_t need = reserve_need(p, kept, i, rn->node_idx);
                        uint64_t have = free_after(t, counts, p, (size_t) si, rn->node_idx);
                        char name[32];

                        if (need > have)
                                return error_set(e, -EINVAL,
                                                 "%s: node%u: %" PRIu64 " %s page%s to reserve%s, but the %s pool will have "
                                                 "only %" PRIu64 " free there (size the pool to include its reservations)",
                                                 rp->origin, rn->node, need, page_size_name(rp->page_size, name),
                                                 plural(need),
                                                 need > rn->target ? " with the reservations before it" : "",
                                                 name, have);
                }
                r = check_reserve_total(t, counts, p, kept, resv, i, (size_t) si, e);
                if (r < 0)
                        return r;
        }
        return 0;
}
