/* SPDX-License-Identifier: MIT */
/* The advisor: for pools a fill could not complete, what would get them at the next boot. */
#include <inttypes.h>
#include <stdio.h>

#include "plan/advise.h"

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
