/* SPDX-License-Identifier: MIT */
/* The advisor: for pools a fill could not complete, what would get them at the next boot. */
#include <inttypes.h>
#include <stdio.h>

#include "plan/advise.h"
#include "util/macro.h"

#define APPEND(buf, size, n, ...) ((n) += (size_t) snprintf((buf) + (n), (n) < (size) ? (size) - (n) : 0, __VA_ARGS__))

void advise_boot(char *cmdline, size_t cmdline_size, char *initramfs, size_t initramfs_size,
                 const struct plan_pool *const *pools, size_t n, unsigned alloc_threads) {
        size_t c = 0, r = 0;
        bool small = false;

        if (cmdline_size)
                cmdline[0] = 0;
        if (initramfs_size)
                initramfs[0] = 0;
        for (size_t i = 0; i < n; i++) {
                const struct plan_pool *p = pools[i];
                char name[32];

                page_size_name(p->page_size, name);
                small |= p->page_size < PLAN_GIGANTIC;
                /* hugepagesz= before hugepages=: the count belongs to the size named last. The
                 * node form (hugepages=0:N,1:M) puts each node's pages where the plan wants them. */
                APPEND(cmdline, cmdline_size, c, "%shugepagesz=%s hugepages=", c ? " " : "", name);
                APPEND(initramfs, initramfs_size, r, "%shpfilld.pool=%s:", r ? " " : "", name);
                for (size_t k = 0; k < p->n_nodes; k++) {
                        APPEND(cmdline, cmdline_size, c, "%s%u:%" PRIu64, k ? "," : "", p->nodes[k].node,
                               p->nodes[k].target);
                        APPEND(initramfs, initramfs_size, r, "%snode%u=%" PRIu64, k ? "," : "", p->nodes[k].node,
                               p->nodes[k].target);
                }
        }
        /* boot-time allocation in parallel, for non-gigantic pages (Linux 6.15 and later) */
        if (n > 0 && small && alloc_threads > 0)
                APPEND(cmdline, cmdline_size, c, " hugepage_alloc_threads=%u", alloc_threads);
}

/* Gigantic pages are allocated at runtime by alloc_contig_pages() (mm/page_alloc.c), which needs a
 * whole naturally aligned range of one zone holding nothing unmovable: after a while up, kernel
 * allocations are spread over most such ranges, compaction cannot move them and dropping caches
 * does not help. A CMA area (hugetlb_cma=, reserved at boot by hugetlb_cma_reserve()) takes only
 * movable allocations, so hugetlb_cma_alloc_folio() finds its ranges free at any time. */
/* The smallest node above @after (-1: any) with a gigantic pool among @pools, and the bytes of
 * gigantic pages planned on it; false when there is none. */
static bool next_gigantic_node(const struct plan_pool *const *pools, size_t n, int64_t after, unsigned *ret_node,
                               uint64_t *ret_bytes) {
        bool found = false;

        *ret_bytes = 0;
        for (size_t i = 0; i < n; i++)
                for (size_t k = 0; pools[i]->page_size >= PLAN_GIGANTIC && k < pools[i]->n_nodes; k++) {
                        const struct plan_node *pn = &pools[i]->nodes[k];

                        if ((int64_t) pn->node <= after || (found && pn->node > *ret_node))
                                continue;
                        if (!found || pn->node < *ret_node)
                                *ret_bytes = 0;
                        found = true;
                        *ret_node = pn->node;
                        *ret_bytes += pn->target * pools[i]->page_size;
                }
        return found;
}

void advise_cma(char *buf, size_t size, const struct plan_pool *const *pools, size_t n) {
        unsigned node;
        uint64_t bytes;
        size_t c = 0;

        if (size)
                buf[0] = 0;
        for (int64_t after = -1; next_gigantic_node(pools, n, after, &node, &bytes); after = node) {
                uint64_t mib = bytes >> 20;
                size_t before = c;

                if (!mib)
                        continue;
                APPEND(buf, size, c, "%s%u:%" PRIu64 "%s", c ? "," : "hugetlb_cma=", node, mib % 1024 ? mib : mib >> 10,
                       mib % 1024 ? "M" : "G");
                if (c >= size) { /* whole entries only: a cut one would be a wrong parameter */
                        if (size)
                                buf[MIN(before, size - 1)] = 0;
                        return;
                }
        }
}

void advise_bench_short(char *buf, size_t size, unsigned node, uint64_t got, uint64_t target, uint64_t adds,
                        uint64_t page_size) {
        char name[32];

        page_size_name(page_size, name);
        if (adds > 1)
                (void) snprintf(buf, size, "node%u got %" PRIu64 " of %" PRIu64 " page%s: use a smaller --size", node,
                                got, target, plural(target));
        else if (page_size >= PLAN_GIGANTIC)
                /* alloc_contig_range() found no free range of the page's size: a smaller --size
                 * cannot ask for less than the one page it asked */
                (void) snprintf(buf, size,
                                "node%u got %" PRIu64 " of %" PRIu64 " page%s: not one %s page could be allocated (no "
                                "free %s range left on the node: memory is fragmented); hugepagesz=%s hugepages= "
                                "on the kernel command line gets them at boot",
                                node, got, target, plural(target), name, name, name);
        else
                (void) snprintf(buf, size,
                                "node%u got %" PRIu64 " of %" PRIu64 " page%s: not one %s page could be allocated (the "
                                "node has no free memory left)",
                                node, got, target, plural(target), name);
}
