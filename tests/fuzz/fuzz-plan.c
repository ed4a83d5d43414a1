/* SPDX-License-Identifier: MIT */
/* Property target: the pure planner, fed a machine and a configuration made from the input's
 * bytes (nodes with and without memory or CPUs, their memory, page sizes, the pools' counters
 * as the kernel could show them, vm.min_free_kbytes, the kernel's capabilities; pools in each
 * form of amount, per-node lists naming nodes that may not be there, percentages, --shrink,
 * reservations). Whenever plan_build() accepts, the plan:
 *  - touches only nodes that are there and have memory, each once per pool, at most the pages
 *    of its memory, and only page sizes the kernel offers;
 *  - has the targets the amount says (even shares, the percentage, the list) and their total;
 *  - has the action its target and counters call for (shrinking only with --shrink; surplus
 *    promoted only by a growth, at most what it adds);
 *  - leaves each node it grows holding no more huge pages than its memory less the budget's
 *    headroom, counting what the kernel cannot give back: pages in use stay (a shrink frees
 *    free pages only, surplus pages in use stay until freed).
 * Any breach aborts. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/budget.h"
#include "plan/plan.h"
#include "fuzz.h"

#define MIB (UINT64_C(1) << 20)
#define MAX_NODES 6

struct bytes {
        const uint8_t *p;
        size_t n;
};

/* A number from 0 to @max from the next bytes (0 once they run out). */
static uint64_t take(struct bytes *b, uint64_t max) {
        uint64_t v = 0;

        for (uint64_t m = max; m && b->n; m >>= 8, b->p++, b->n--)
                v = v << 8 | *b->p;
        return max == UINT64_MAX ? v : v % (max + 1);
}

struct machine {
        struct topology t;
        struct topo_node nodes[MAX_NODES];
        unsigned cpus[MAX_NODES][4];
        unsigned dist[MAX_NODES][MAX_NODES];
        uint64_t sizes[3];
        struct pool_counts counts[3 * MAX_NODES];
        struct kernel_features caps;
};

static void make_machine(struct bytes *b, struct machine *m) {
        static const uint64_t all_sizes[] = { 64 << 10, 2 * MIB, 1024 * MIB };
        unsigned id = (unsigned) take(b, 2), cpu = 0;

        memset(m, 0, sizeof(*m));
        m->t = (struct topology) { .numa = true, .nodes = m->nodes, .page_sizes = m->sizes };
        m->t.n_nodes = 1 + (size_t) take(b, MAX_NODES - 1);
        for (size_t i = 0; i < m->t.n_nodes; i++, id += 1 + (unsigned) take(b, 2)) {
                struct topo_node *n = &m->nodes[i];

                n->id = id;
                n->has_memory = take(b, 3) != 0;
                /* from nothing to 64 GiB, in MiB, or a few pages' worth */
                n->mem_total = take(b, 1) ? take(b, 65536) * MIB : take(b, 8) * 2 * MIB;
                if (!n->has_memory)
                        n->mem_total = 0;
                n->n_cpus = (size_t) take(b, 4);
                for (size_t c = 0; c < n->n_cpus; c++)
                        m->cpus[i][c] = cpu++;
                n->cpus = n->n_cpus ? m->cpus[i] : NULL;
                for (size_t j = 0; j < MAX_NODES; j++)
                        m->dist[i][j] = i == j ? 10 : 20 + (unsigned) take(b, 20);
                n->distance = m->dist[i];
        }
        for (size_t s = 0; s < 3; s++)
                if (take(b, 3) != 0)
                        m->sizes[m->t.n_page_sizes++] = all_sizes[s];
        m->t.min_free_kbytes = take(b, 1) ? take(b, 1 << 20) : 0;
        /* the pools' counters as the kernel keeps them: all sizes within the node's memory, free
         * and surplus pages among the pool's */
        for (size_t i = 0; i < m->t.n_nodes; i++) {
                uint64_t left = m->nodes[i].mem_total;

                for (size_t s = 0; s < m->t.n_page_sizes; s++) {
                        struct pool_counts *c = &m->counts[s * m->t.n_nodes + i];

                        c->nr = take(b, left / m->sizes[s]);
                        c->free = take(b, c->nr);
                        c->surplus = take(b, c->nr);
                        left -= c->nr * m->sizes[s];
                }
        }
        m->caps.populate_write = take(b, 3) != 0;
        m->caps.hvo = (int) take(b, 2) - 1;
        m->caps.init_on_alloc = take(b, 1);
}

static const char *const size_words[] = { "2M", "1G", "64K", "2048kB", "4M" };

/* One amount: pages, bytes, a percentage or a per-node list. */
static void make_amount(struct bytes *b, char *buf, size_t size) {
        size_t len = 0;

        switch (take(b, 3)) {
        case 0:
                (void) snprintf(buf, size, "%llu", (unsigned long long) take(b, 1 << 20));
                return;
        case 1:
                (void) snprintf(buf, size, "%lluM", (unsigned long long) take(b, 1 << 17));
                return;
        case 2:
                (void) snprintf(buf, size, "%llu%%", (unsigned long long) take(b, 100));
                return;
        }
        for (uint64_t k = 0, n = 1 + take(b, 3); k < n; k++)
                len += (size_t) snprintf(buf + len, size - len, "%snode%llu=%llu%s", k ? "," : "",
                                         (unsigned long long) take(b, 2 * MAX_NODES),
                                         (unsigned long long) take(b, 1 << 16), take(b, 1) ? "M" : "");
}

static void make_config(struct bytes *b, struct config *c) {
        char spec[256], amount[192];
        struct error e = {};

        c->mode = (enum fill_mode) take(b, 2);
        c->threads_per_node = (unsigned) take(b, 4);
        c->min_percent = 1 + (unsigned) take(b, 99);
        c->shrink = take(b, 1);
        c->drop_caches = take(b, 1);
        for (uint64_t i = 0, n = take(b, 3); i < n; i++) {
                struct pool_spec ps;

                make_amount(b, amount, sizeof(amount));
                (void) snprintf(spec, sizeof(spec), "%s:%s", size_words[take(b, 4)], amount);
                if (parse_pool_spec(spec, &ps, &e) < 0)
                        continue;
                if (config_put_pool(c, &ps) < 0)
                        amount_done(&ps.amount);
        }
        for (uint64_t i = 0, n = take(b, 2); i < n; i++) {
                struct reserve_spec rs;
                char at[16] = "";

                if (take(b, 1))
                        (void) snprintf(at, sizeof(at), "@%llu", (unsigned long long) take(b, 2 * MAX_NODES));
                (void) snprintf(spec, sizeof(spec), "vm%llu:%s:%llu%s", (unsigned long long) take(b, 2),
                                size_words[take(b, 1)], (unsigned long long) take(b, 1 << 12), at);
                if (parse_reserve_spec(spec, &rs, &e) >= 0)
                        (void) config_put_reserve(c, &rs);
        }
}

/* The case in hand, printed when a property fails. */
static const struct machine *cur_m;
static const struct plan *cur_p;

static void dump(void) {
        const struct topology *t = &cur_m->t;

        fprintf(stderr, "min_free_kbytes %llu\n", (unsigned long long) t->min_free_kbytes);
        for (size_t i = 0; i < t->n_nodes; i++) {
                fprintf(stderr, "node%u: memory %d, %llu MiB, %zu cpus, headroom %llu MiB\n", t->nodes[i].id,
                        t->nodes[i].has_memory, (unsigned long long) (t->nodes[i].mem_total / MIB), t->nodes[i].n_cpus,
                        (unsigned long long) (budget_headroom(t, i) / MIB));
                for (size_t s = 0; s < t->n_page_sizes; s++) {
                        const struct pool_counts *k = &cur_m->counts[s * t->n_nodes + i];

                        fprintf(stderr, "  %llu kB: nr %llu free %llu surplus %llu\n",
                                (unsigned long long) (t->page_sizes[s] >> 10), (unsigned long long) k->nr,
                                (unsigned long long) k->free, (unsigned long long) k->surplus);
                }
        }
        for (size_t i = 0; cur_p && i < cur_p->n_pools; i++)
                for (size_t j = 0; j < cur_p->pools[i].n_nodes; j++) {
                        const struct plan_node *n = &cur_p->pools[i].nodes[j];

                        fprintf(stderr, "%s: node%u %s now %llu target %llu surplus %llu promote %llu\n",
                                cur_p->pools[i].origin, n->node, plan_action_to_string(n->action),
                                (unsigned long long) n->now, (unsigned long long) n->target,
                                (unsigned long long) n->surplus, (unsigned long long) n->promote);
                }
}

#define REQUIRE(cond)                                                                      \
        do {                                                                               \
                if (!(cond)) {                                                             \
                        fprintf(stderr, "fuzz-plan: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
                        dump();                                                            \
                        abort();                                                           \
                }                                                                          \
        } while (0)

/* Nodes there, with memory, once each, within their memory, in an offered size. */
static void check_nodes(const struct topology *t, const struct plan_pool *p) {
        uint64_t total = 0;

        REQUIRE(topology_has_page_size(t, p->page_size));
        for (size_t i = 0; i < p->n_nodes; i++) {
                const struct plan_node *n = &p->nodes[i];

                REQUIRE(n->node_idx < t->n_nodes);
                REQUIRE(t->nodes[n->node_idx].id == n->node);
                REQUIRE(t->nodes[n->node_idx].has_memory);
                REQUIRE(n->cpu_node_idx < t->n_nodes);
                REQUIRE(n->target <= t->nodes[n->node_idx].mem_total / p->page_size);
                for (size_t j = 0; j < i; j++)
                        REQUIRE(p->nodes[j].node != n->node);
                total += n->target;
        }
        REQUIRE(total == p->target_total);
}

/* The targets the amount says. */
static void check_amount(const struct topology *t, const struct amount *a, const struct plan_pool *p) {
        size_t n_mem = 0;

        for (size_t i = 0; i < t->n_nodes; i++)
                n_mem += t->nodes[i].has_memory;
        switch (a->kind) {
        case AMOUNT_PAGES:
        case AMOUNT_BYTES: {
                uint64_t pages = a->kind == AMOUNT_BYTES ? a->value / p->page_size : a->value;

                REQUIRE(p->n_nodes == n_mem);
                REQUIRE(p->target_total == pages);
                for (size_t i = 1; i < p->n_nodes; i++)
                        REQUIRE(p->nodes[i].target <= p->nodes[i - 1].target &&
                                p->nodes[i - 1].target - p->nodes[i].target <= 1);
                break;
        }
        case AMOUNT_PERCENT:
                REQUIRE(p->n_nodes == n_mem);
                for (size_t i = 0; i < p->n_nodes; i++)
                        REQUIRE(p->nodes[i].target ==
                                (uint64_t) ((unsigned __int128) t->nodes[p->nodes[i].node_idx].mem_total * a->value /
                                            100 / p->page_size));
                break;
        case AMOUNT_PER_NODE:
                REQUIRE(p->n_nodes == a->n_nodes);
                for (size_t j = 0; j < a->n_nodes; j++) {
                        bool found = false;

                        for (size_t i = 0; i < p->n_nodes; i++)
                                if (p->nodes[i].node == a->nodes[j].node) {
                                        found = true;
                                        REQUIRE(p->nodes[i].target ==
                                                (a->nodes[j].bytes ? a->nodes[j].value / p->page_size
                                                                   : a->nodes[j].value));
                                }
                        REQUIRE(found);
                }
                break;
        }
}

static const struct pool_counts *counts_of(const struct machine *m, uint64_t page_size, size_t idx) {
        for (size_t s = 0; s < m->t.n_page_sizes; s++)
                if (m->sizes[s] == page_size)
                        return &m->counts[s * m->t.n_nodes + idx];
        abort();
}

static void check_actions(const struct machine *m, const struct config *c, const struct plan_pool *p) {
        for (size_t i = 0; i < p->n_nodes; i++) {
                const struct plan_node *n = &p->nodes[i];
                const struct pool_counts *k = counts_of(m, p->page_size, n->node_idx);

                REQUIRE(n->now == k->nr - k->surplus);
                REQUIRE(n->surplus == k->surplus);
                REQUIRE(n->action == (n->target > n->now    ? PLAN_GROW
                                      : n->target == n->now ? PLAN_KEEP
                                      : c->shrink           ? PLAN_SHRINK
                                                            : PLAN_LARGER));
                REQUIRE(n->action == PLAN_GROW ? n->promote <= n->surplus && n->promote <= n->target - n->now
                                               : n->promote == 0);
        }
}

/* The pages of one size a node holds once the fill is done, at most: what the kernel cannot
 * give back stays (set_max_huge_pages() frees free pages only; surplus pages in use leave the
 * pool only when freed). */
static uint64_t held_after(const struct machine *m, const struct plan *p, size_t s, size_t idx, bool *grows) {
        const struct pool_counts *k = &m->counts[s * m->t.n_nodes + idx];

        for (size_t i = 0; i < p->n_pools; i++)
                for (size_t j = 0; p->pools[i].page_size == m->sizes[s] && j < p->pools[i].n_nodes; j++) {
                        const struct plan_node *n = &p->pools[i].nodes[j];

                        if (n->node_idx != idx)
                                continue;
                        *grows |= n->action == PLAN_GROW;
                        if (n->action == PLAN_GROW)
                                return MAX(n->target + (n->surplus - n->promote), k->nr);
                        if (n->action == PLAN_SHRINK)
                                return MAX(n->target + k->surplus, k->nr - k->free);
                        return k->nr;
                }
        return k->nr;
}

static void check_budget(const struct machine *m, const struct plan *p) {
        for (size_t i = 0; i < m->t.n_nodes; i++) {
                uint64_t bytes = 0, headroom, all = 0;
                bool grows = false;

                for (size_t s = 0; s < m->t.n_page_sizes; s++)
                        bytes += held_after(m, p, s, i, &grows) * m->sizes[s];
                if (!grows)
                        continue;
                for (size_t j = 0; j < m->t.n_nodes; j++)
                        all += m->nodes[j].has_memory ? m->nodes[j].mem_total : 0;
                /* twice the node's share of vm.min_free_kbytes, and 2% of it, at least 256 MiB */
                headroom = 2 * (uint64_t) ((unsigned __int128) m->t.min_free_kbytes * 1024 * m->nodes[i].mem_total / all) +
                           MAX(m->nodes[i].mem_total / 100 * 2, 256 * MIB);
                REQUIRE(headroom == budget_headroom(&m->t, i));
                REQUIRE(bytes + headroom <= m->nodes[i].mem_total);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct bytes b = { data, size };
        struct machine m;
        struct config c = CONFIG_INIT;
        struct plan p;
        struct error e = {};

        make_machine(&b, &m);
        make_config(&b, &c);
        cur_m = &m;
        cur_p = NULL;
        if (plan_build(&m.t, m.counts, &c, &m.caps, &p, &e) < 0) {
                REQUIRE(e.msg[0]);
                config_done(&c);
                return 0;
        }
        cur_p = &p;
        REQUIRE(p.n_pools == c.n_pools && p.n_reserves == c.n_reserves);
        for (size_t i = 0; i < p.n_pools; i++) {
                check_nodes(&m.t, &p.pools[i]);
                check_amount(&m.t, &c.pools[i].amount, &p.pools[i]);
                check_actions(&m, &c, &p.pools[i]);
        }
        for (size_t i = 0; i < p.n_reserves; i++)
                check_nodes(&m.t, &p.reserves[i].pool);
        check_budget(&m, &p);
        plan_done(&p);
        config_done(&c);
        return 0;
}
