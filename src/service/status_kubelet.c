/* SPDX-License-Identifier: MIT */
/* hpfilld status --kubelet, and status --json's "kubelet": the huge pages hpfilld's
 * reservations and claims hold outside pods, as the kubelet's --system-reserved and
 * --reserved-memory take them (KEP-6252: hugepages-2Mi=512Mi) and as a KubeletConfiguration's
 * systemReserved: and reservedMemory: do. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "service/status_kubelet.h"
#include "util/macro.h"

#define KUBELET_HOLDS_MAX 256

void kubelet_quantity(uint64_t bytes, char buf[static 22]) {
        static const char *const units[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi" };
        unsigned i = 0;

        while (i + 1 < ELEMENTSOF(units) && bytes >= 1024 && bytes % 1024 == 0) {
                bytes /= 1024;
                i++;
        }
        (void) snprintf(buf, 22, "%" PRIu64 "%s", bytes, units[i]);
}

void kubelet_resource_name(uint64_t page_size, char buf[static 32]) {
        /* "hugepages-" and a quantity of at most 21 characters: 20 digits and a unit */
        memcpy(buf, "hugepages-", 10);
        kubelet_quantity(page_size, buf + 10);
}

static void add(struct kubelet_hold *h, size_t *n, size_t max, uint64_t page_size, int node, uint64_t pages) {
        size_t i;

        if (pages == 0)
                return;
        for (i = 0; i < *n; i++)
                if (h[i].page_size == page_size && h[i].node == node) {
                        h[i].pages += pages;
                        return;
                }
        if (*n < max)
                h[(*n)++] = (struct kubelet_hold) { page_size, node, pages };
}

static int hold_compare(const void *a, const void *b) {
        const struct kubelet_hold *x = a, *y = b;

        if (x->node != y->node)
                return x->node < y->node ? -1 : 1;
        return x->page_size < y->page_size ? -1 : x->page_size > y->page_size;
}

size_t kubelet_holds(const struct status_data *d, struct kubelet_hold *ret, size_t max) {
        size_t n = 0;

        for (int i = 0; i < d->n_reserves; i++) {
                const struct reserve_found *f = &d->reserves[i];
                const struct metrics_reserve *rec = status_reserve_record(d, f);
                unsigned nodes[64];
                size_t k = 0;

                /* "0,1" (digits and commas, metrics.c) */
                for (const char *p = rec ? rec->nodes : ""; *p && k < ELEMENTSOF(nodes);) {
                        char *end;
                        unsigned long v = strtoul(p, &end, 10);

                        if (end != p)
                                nodes[k++] = (unsigned) v;
                        p = *end ? end + 1 : end;
                }
                if (k == 0) {
                        add(ret, &n, max, f->page_size, -1, f->pages);
                        continue;
                }
                for (size_t j = 0; j < k; j++)
                        add(ret, &n, max, f->page_size, (int) nodes[j], f->pages / k + (j < f->pages % k));
        }
        /* a claim's pages per node as the last fill's plan placed them (a VM, OVS-DPDK outside
         * Kubernetes); a record cut short has none */
        for (size_t i = 0; i < d->rec.n_claims; i++)
                add(ret, &n, max, d->rec.claims[i].page_size, (int) d->rec.claims[i].node, d->rec.claims[i].pages);
        qsort(ret, n, sizeof(*ret), hold_compare);
        return n;
}

/* The pages of each page size whatever the node, for --system-reserved: "hugepages-2Mi=512Mi,..." */
static void per_size(const struct kubelet_hold *h, size_t n, const char *sep, const char *eq, FILE *f,
                     const char *prefix) {
        uint64_t sizes[16];
        size_t n_sizes = 0;

        for (size_t i = 0; i < n; i++) {
                size_t s;

                for (s = 0; s < n_sizes && sizes[s] != h[i].page_size; s++)
                        ;
                if (s == n_sizes && n_sizes < ELEMENTSOF(sizes))
                        sizes[n_sizes++] = h[i].page_size;
        }
        for (size_t s = 0; s < n_sizes; s++) {
                uint64_t pages = 0;
                char name[32], q[32];

                for (size_t i = 0; i < n; i++)
                        if (h[i].page_size == sizes[s])
                                pages += h[i].pages;
                kubelet_resource_name(sizes[s], name);
                kubelet_quantity(pages * sizes[s], q);
                fprintf(f, "%s%s%s%s", s ? sep : prefix, name, eq, q);
        }
}

void status_print_kubelet(const struct status_data *d, FILE *f) {
        struct kubelet_hold h[KUBELET_HOLDS_MAX];
        size_t n = kubelet_holds(d, h, ELEMENTSOF(h));
        bool unknown = false;
        char name[32], q[32];

        if (n == 0) {
                fprintf(f, "# No huge pages are held outside pods by hpfilld's reservations and claims: nothing to reserve\n");
                return;
        }
        fprintf(f, "# The huge pages hpfilld's reservations and claims hold outside pods, for the kubelet (Kubernetes\n"
                   "# 1.38+ with the alpha feature gate SystemReservedHugepages, KEP-6252; merge them with the values\n"
                   "# you have):\n");
        per_size(h, n, ",", "=", f, "--system-reserved=");
        fputc('\n', f);
        for (size_t i = 0; i < n; i++) {
                if (h[i].node < 0) {
                        unknown = true;
                        continue;
                }
                if (i == 0 || h[i - 1].node != h[i].node)
                        fprintf(f, "--reserved-memory=%d:", h[i].node);
                else
                        fputc(',', f);
                kubelet_resource_name(h[i].page_size, name);
                kubelet_quantity(h[i].pages * h[i].page_size, q);
                fprintf(f, "%s=%s%s", name, q, i + 1 == n || h[i + 1].node != h[i].node ? "\n" : "");
        }
        if (unknown)
                fprintf(f, "# Some are on nodes the last fill's record does not name (a reservation an earlier\n"
                           "# fill made): add them to a node's --reserved-memory yourself, or run a fill that makes it.\n");
        fprintf(f, "\n# Or in the KubeletConfiguration:\nfeatureGates:\n  SystemReservedHugepages: true\nsystemReserved:\n");
        per_size(h, n, "\n  ", ": ", f, "  ");
        fprintf(f, "\nreservedMemory:\n");
        for (size_t i = 0; i < n; i++) {
                if (h[i].node < 0)
                        continue;
                if (i == 0 || h[i - 1].node != h[i].node)
                        fprintf(f, "  - numaNode: %d\n    limits:\n", h[i].node);
                kubelet_resource_name(h[i].page_size, name);
                kubelet_quantity(h[i].pages * h[i].page_size, q);
                fprintf(f, "      %s: %s\n", name, q);
        }
}

void status_json_kubelet(const struct status_data *d, struct json_writer *w) {
        struct kubelet_hold h[KUBELET_HOLDS_MAX];
        size_t n = kubelet_holds(d, h, ELEMENTSOF(h));
        char name[32], q[32];

        json_key(w, "kubelet");
        json_begin_object(w);
        json_key(w, "system_reserved");
        json_begin_object(w);
        for (size_t i = 0; i < n; i++) {
                uint64_t pages = 0;
                bool first = true;

                for (size_t k = 0; k < n && first; k++)
                        first = !(k < i && h[k].page_size == h[i].page_size);
                if (!first)
                        continue;
                for (size_t k = 0; k < n; k++)
                        if (h[k].page_size == h[i].page_size)
                                pages += h[k].pages;
                kubelet_resource_name(h[i].page_size, name);
                kubelet_quantity(pages * h[i].page_size, q);
                json_key(w, name), json_string(w, q);
        }
        json_end_object(w);
        json_key(w, "reserved_memory");
        json_begin_array(w);
        for (size_t i = 0; i < n; i++) {
                if (h[i].node < 0)
                        continue;
                if (i == 0 || h[i - 1].node != h[i].node) {
                        json_begin_object(w);
                        json_key(w, "numaNode"), json_u64(w, (uint64_t) h[i].node);
                        json_key(w, "limits");
                        json_begin_object(w);
                }
                kubelet_resource_name(h[i].page_size, name);
                kubelet_quantity(h[i].pages * h[i].page_size, q);
                json_key(w, name), json_string(w, q);
                if (i + 1 == n || h[i + 1].node != h[i].node) {
                        json_end_object(w);
                        json_end_object(w);
                }
        }
        json_end_array(w);
        json_key(w, "unplaced_bytes");
        {
                uint64_t unplaced = 0;

                for (size_t i = 0; i < n; i++)
                        if (h[i].node < 0)
                                unplaced += h[i].pages * h[i].page_size;
                json_u64(w, unplaced);
        }
        json_end_object(w);
}
