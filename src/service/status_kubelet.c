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

/* The id of the only node with memory (where every huge page is), or -1: none, or several. */
static int only_memory_node(const struct topology *t) {
        int id = -1;

        for (size_t i = 0; i < t->n_nodes; i++) {
                if (!t->nodes[i].has_memory)
                        continue;
                if (id >= 0)
                        return -1;
                id = (int) t->nodes[i].id;
        }
        return id;
}

size_t kubelet_holds(const struct status_data *d, struct kubelet_hold *ret, size_t max) {
        int only = only_memory_node(&d->t);
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
                        add(ret, &n, max, f->page_size, only, f->pages);
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

/* The pages of each page size whatever the node, of the holds on a known node (@placed) or of
 * the others, for --system-reserved: "hugepages-2Mi=512Mi,...". Returns how many sizes. */
static size_t per_size(const struct kubelet_hold *h, size_t n, bool placed, const char *sep, const char *eq,
                       FILE *f, const char *prefix) {
        uint64_t sizes[16];
        size_t n_sizes = 0;

        for (size_t i = 0; i < n; i++) {
                size_t s;

                if ((h[i].node >= 0) != placed)
                        continue;
                for (s = 0; s < n_sizes && sizes[s] != h[i].page_size; s++)
                        ;
                if (s == n_sizes && n_sizes < ELEMENTSOF(sizes))
                        sizes[n_sizes++] = h[i].page_size;
        }
        for (size_t s = 0; s < n_sizes; s++) {
                uint64_t pages = 0;
                char name[32], q[32];

                for (size_t i = 0; i < n; i++)
                        if (h[i].page_size == sizes[s] && (h[i].node >= 0) == placed)
                                pages += h[i].pages;
                kubelet_resource_name(sizes[s], name);
                kubelet_quantity(pages * sizes[s], q);
                fprintf(f, "%s%s%s%s", s ? sep : prefix, name, eq, q);
        }
        return n_sizes;
}

/* The flags, and what to do where the kubelet takes none: the reservations the kubelet checks
 * (Memory Manager, Static policy) are refused where --reserved-memory and --system-reserved do
 * not add up to the same, so both count the same pages, those on known nodes. */
static void print_flags(const struct kubelet_hold *h, size_t n, size_t placed, FILE *f) {
        char name[32], q[32];

        if (placed > 0) {
                fprintf(f, "# Kubernetes 1.38 and later, with the alpha feature gate SystemReservedHugepages (KEP-6252):\n"
                           "--feature-gates=SystemReservedHugepages=true\n");
                per_size(h, n, true, ",", "=", f, "--system-reserved=");
                fprintf(f, "\n# Kubernetes 1.38 and later, the same gate, Memory Manager policy Static; adding up to the above:\n");
        }
        for (size_t i = 0; i < n; i++) {
                if (h[i].node < 0)
                        continue;
                if (i == 0 || h[i - 1].node != h[i].node)
                        fprintf(f, "--reserved-memory=%d:", h[i].node);
                else
                        fputc(',', f);
                kubelet_resource_name(h[i].page_size, name);
                kubelet_quantity(h[i].pages * h[i].page_size, q);
                fprintf(f, "%s=%s%s", name, q, i + 1 == n || h[i + 1].node != h[i].node ? "\n" : "");
        }
        if (placed < n) {
                per_size(h, n, false, ",", "=", f, "# Not above: ");
                fprintf(f, ", on nodes the last fill's record does not name (a reservation an\n"
                           "# earlier fill made): add them by hand to one node's --reserved-memory and to --system-reserved\n"
                           "# (the kubelet refuses the two where they differ), or run a fill that makes it.\n");
        }
        fprintf(f, "# Kubelets before 1.38, or without the gate, refuse huge pages in --system-reserved (and so a\n"
                   "# --reserved-memory that counts them) and do not start. Leave both out there: these pages then\n"
                   "# count as allocatable, offered to pods that cannot get them.\n"
                   "# Instead order the kubelet after hpfilld and restart it after each change of the pools (the\n"
                   "# kubelet recipe: /usr/share/doc/hpfilld/examples/kubelet/10-hpfilld.conf), and keep the pods'\n"
                   "# huge page requests within the pool less these pages.\n");
}

void status_print_kubelet(const struct status_data *d, FILE *f) {
        struct kubelet_hold h[KUBELET_HOLDS_MAX];
        size_t n = kubelet_holds(d, h, ELEMENTSOF(h)), placed = 0;
        char name[32], q[32];

        if (n == 0) {
                fprintf(f, "# No huge pages are held outside pods by hpfilld's reservations and claims: nothing to reserve\n");
                return;
        }
        for (size_t i = 0; i < n; i++)
                placed += h[i].node >= 0;
        fprintf(f, "# The huge pages hpfilld's reservations and claims hold outside pods, for the kubelet; merge\n"
                   "# them with the values you have, then restart it.\n");
        print_flags(h, n, placed, f);
        if (placed == 0)
                return;
        fprintf(f, "\n# Or in the KubeletConfiguration (Kubernetes 1.38 and later, the same gate and policy):\n"
                   "featureGates:\n  SystemReservedHugepages: true\nsystemReserved:\n");
        per_size(h, n, true, "\n  ", ": ", f, "  ");
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
                bool first = h[i].node >= 0;

                /* the pages on known nodes, as reserved_memory adds them up */
                for (size_t k = 0; k < i && first; k++)
                        first = !(h[k].node >= 0 && h[k].page_size == h[i].page_size);
                if (!first)
                        continue;
                for (size_t k = 0; k < n; k++)
                        if (h[k].node >= 0 && h[k].page_size == h[i].page_size)
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
