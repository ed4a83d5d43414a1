/* SPDX-License-Identifier: MIT */
/* The memory budget of a plan: per node, the huge pages it plans against the node's memory less
 * a headroom, and each reservation against its pool's free pages. Pure. */
#pragma once

#include <stdbool.h>

#include "plan/plan.h"

/* The least a plan that adds pages leaves a node: twice the node's share of vm.min_free_kbytes
 * (the kernel's watermarks go up to about 1.5 times it, and reclaim runs below them) plus 2% of
 * its memory, at least 256 MiB, for the kernel's own allocations. Bytes. */
uint64_t budget_headroom(const struct topology *t, size_t node_idx);

/* Every node the plan adds pages to: the pages of all sizes after the fill (targets; the pools
 * of sizes not planned and those left larger, as they are) fit in its memory less the headroom.
 * -EINVAL naming the node and the numbers otherwise; 1 when they fit only with the memory no
 * node counts yet (topology_uncounted()), 0 when they fit in the nodes' own counts. */
int plan_check_budget(const struct topology *t, const struct pool_counts *counts, const struct plan *p,
                      struct error *e);

/* Each reservation not in @kept (NULL: none is; else one entry per reservation, true where the
 * file is there already and holds its pages) fits, node by node, in the free pages its pool will
 * have after the fill, with the reservations before it, and in the whole pool's free pages less
 * @resv (NULL: none; else per page size of @t, the pages other mappings hold reserved,
 * resv_hugepages). -EINVAL naming it and the numbers otherwise. */
int plan_check_reserves(const struct topology *t, const struct pool_counts *counts, const struct plan *p,
                        const bool *kept, const uint64_t *resv, struct error *e);
