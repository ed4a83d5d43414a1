/* SPDX-License-Identifier: MIT */
/* hpfilld status --kubelet, and status --json's "kubelet": the huge pages hpfilld's
 * reservations and claims hold outside pods, as the kubelet's --system-reserved and
 * --reserved-memory take them (KEP-6252: hugepages-2Mi=512Mi) and as a KubeletConfiguration's
 * systemReserved: and reservedMemory: do. */
#pragma once

#include <stdint.h>
#include <stdio.h>

#include "service/status_data.h"
#include "util/json.h"

struct kubelet_hold {
        uint64_t page_size;
        int node;       /* -1: not known (a reservation the last fill did not make, several nodes) */
        uint64_t pages;
};

/* Pure: the kubelet's name of a page size's resource, "hugepages-2Mi", "hugepages-1Gi". */
void kubelet_resource_name(uint64_t page_size, char buf[static 32]);
/* Pure: bytes as a Kubernetes quantity in its most compact binary form: "512Mi", "3Gi", "4096". */
void kubelet_quantity(uint64_t bytes, char buf[static 22]);
/* Pure: the pages of the reservations on disk and of the last fill's claims, per page size and
 * node (sorted, summed): a reservation's pages split over the nodes the last fill asked them on
 * as the plan spreads a total (even, the remainder to the lowest nodes), one the record does
 * not know on the only node with memory of d->t, or at node -1 where there are several (or
 * none known); a claim's on each node as the record's claim lines place them.
 * Returns how many of @max were filled. */
size_t kubelet_holds(const struct status_data *d, struct kubelet_hold *ret, size_t max);

void status_print_kubelet(const struct status_data *d, FILE *f);
/* The "kubelet" member of status --json. */
void status_json_kubelet(const struct status_data *d, struct json_writer *w);
