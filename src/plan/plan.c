/* SPDX-License-Identifier: MIT */
/* The planner: configuration + topology + pool counters in, per-(size, node) work out. Pure. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "plan/budget.h"
#include "plan/plan.h"
#include "plan/choose.h"

const char *plan_action_to_string(enum plan_action a) {
        static const char *const names[] = {
                [PLAN_GROW] = "grow",
                [PLAN_SHRINK] = "shrink",
                [PLAN_KEEP] = "at target",
                [PLAN_LARGER] = "larger, kept",
        };
        return (size_t) a < ELEMENTSOF(names) ? names[a] : "?";
}

static int size_index(const struct topology *t, uint64_t page_size) {
        for (size_t i = 0; i < t->n_page_sizes; i++)
                if (t->page_sizes[i] == page_size)
                        return (int) i;
        return -ENOENT;
}

static int bytes_to_pages(const struct pool_spec *s, uint64_t bytes, uint64_t *ret, struct error *e) {
        char name[32];

        if (bytes % s->page_size != 0)
                return error_set(e, -EINVAL, "%s: %" PRIu64 " bytes is not a whole number of %s pages", s->origin,
                                 bytes, page_size_name(s->page_size, name));
        *ret = bytes / s->page_size;
        return 0;
}

static int add_node(struct plan_pool *p, const struct topology *t, size_t idx, uint64_t target) {
        p->nodes[p->n_nodes++] = (struct plan_node) {
                .node = t->nodes[idx].id,
                .node_idx = idx,
                .target = target,
        };
        return 0;
}

/* Fills p->nodes with per-node targets, in node order. */
static int plan_targets(const struct topology *t, const struct pool_spec *s, struct plan_pool *p, struct error *e) {
        const struct amount *a = &s->amount;
        size_t n_mem = 0, k = 0;
        uint64_t pages, share, rest;
        int r;

        for (size_t i = 0; i < t->n_nodes; i++)
                n_mem += t->nodes[i].has_memory;

        switch (a->kind) {
        case AMOUNT_PAGES:
        case AMOUNT_BYTES:
                if (n_mem == 0)
                        return error_set(e, -EINVAL, "%s: no node has memory", s->origin);
                pages = a->value;
                if (a->kind == AMOUNT_BYTES) {
                        r = bytes_to_pages(s, a->value, &pages, e);
                        if (r < 0)
                                return r;
                }
                /* Even shares, the remainder one page each to the lowest nodes, as the kernel spreads. */
                share = pages / n_mem;
                rest = pages % n_mem;
                for (size_t i = 0; i < t->n_nodes; i++)
                        if (t->nodes[i].has_memory)
                                add_node(p, t, i, share + (k++ < rest));
                return 0;

        case AMOUNT_PERCENT:
                for (size_t i = 0; i < t->n_nodes; i++) {
                        /* of the node's memory as the machine counts it (its meminfo may lag);
                         * < 2^64 / 100 for any real machine; divide first if not */
                        uint64_t mem = topology_node_share(t, i);

                        if (t->nodes[i].has_memory)
                                add_node(p, t, i,
                                         mem <= UINT64_MAX / 100 ? mem * a->value / 100 / s->page_size
                                                                 : mem / 100 * a->value / s->page_size);
                }
                if (p->n_nodes == 0)
                        return error_set(e, -EINVAL, "%s: no node has memory", s->origin);
                return 0;

        case AMOUNT_PER_NODE:
                /* Node order, whatever order the list was written in. */
                for (size_t i = 0; i < t->n_nodes; i++)
                        for (size_t j = 0; j < a->n_nodes; j++) {
                                if (a->nodes[j].node != t->nodes[i].id)
                                        continue;
                                if (!t->nodes[i].has_memory)
                                        return error_set(e, -EINVAL, "%s: node%u has no memory", s->origin,
                                                         a->nodes[j].node);
                                pages = a->nodes[j].value;
                                if (a->nodes[j].bytes) {
                                        r = bytes_to_pages(s, a->nodes[j].value, &pages, e);
                                        if (r < 0)
                                                return error_prefix(e, r, "node%u", a->nodes[j].node);
                                }
                                add_node(p, t, i, pages);
                        }
                for (size_t j = 0; j < a->n_nodes; j++)
                        if (topology_node_index(t, a->nodes[j].node) < 0)
                                return error_set(e, -EINVAL, "%s: node%u does not exist", s->origin,
                                                 a->nodes[j].node);
                return 0;
        }
        return -EINVAL;
}

/* Fault workers per node when -t (ThreadsPerNode=) is not given: one per CPU of the node with the
 * most, at most PLAN_AUTO_THREADS_MAX. */
static unsigned auto_threads(const struct topology *t) {
        unsigned cpus = 1;

        for (size_t i = 0; i < t->n_nodes; i++)
                cpus = MAX(cpus, (unsigned) t->nodes[i].n_cpus);
        return MIN(cpus, PLAN_AUTO_THREADS_MAX);
}

/* The fault workers of @p: as asked, else auto_threads() (and then threads_auto). */
static void fault_threads(const struct topology *t, const struct config *c, struct plan_pool *p) {
        p->threads = c->threads_per_node ? c->threads_per_node : auto_threads(t);
        p->threads_auto = c->threads_per_node == 0;
}

/* Picks the method of a pool, and its threads, with the reason. Under Mode=auto with two
 * candidates the method is FILL_MODE_AUTO: measured at the start of the fill (choose.h). */
static int plan_method(const struct topology *t, const struct config *c, const struct kernel_features *caps,
                       const struct pool_spec *s, struct plan_pool *p, struct error *e) {
        struct choose_rule rule;
        char name[32];

        /* One writer per size for sysfs: the kernel's per-size resize_lock serialises every
         * writer of one size, so a second writer only adds contention. */
        p->threads = 1;
        if (c->mode == FILL_MODE_FAULT && s->page_size < PLAN_GIGANTIC && !caps->populate_write)
                return error_set(e, -EOPNOTSUPP,
                                 "%s: mode fault needs MADV_POPULATE_WRITE (Linux 5.14 or later) for %s pages",
                                 s->origin, page_size_name(s->page_size, name));
        choose_rule(caps, s->page_size, c->mode == FILL_MODE_FAULT && s->page_size >= PLAN_GIGANTIC ? FILL_MODE_AUTO
                                                                                                      : c->mode,
                    &rule);
        p->rule = rule;
        p->method = rule.forced ? rule.prefer : rule.n > 1 ? FILL_MODE_AUTO : rule.candidates[0];
        p->measured = rule.n > 1;
        p->method_reason = rule.why;
        if (p->method == FILL_MODE_SYSFS)
                return 0;
        fault_threads(t, c, p);
        if (p->threads_auto && caps->hvo == 1) {
                /* Under HVO each faulted surplus page waits in synchronize_rcu() inside
                 * __hugetlb_vmemmap_optimize_folio() (alloc_surplus_hugetlb_folio() ->
                 * hugetlb_vmemmap_optimize_folio(), 6.10+), asleep, not on a CPU; the waits of
                 * concurrent faults share grace periods (their kernel stacks all sit there at
                 * once), so the pages per grace period grow with the workers, whatever the CPUs,
                 * up to about PLAN_HVO_FAULT_WORKERS (bench/hvo-workers.py measures the curve on
                 * a machine); processes instead of threads scale alike (nothing per-mm is held
                 * across the wait). The ramp's 10 ms windows cannot see that (a chunk takes a
                 * grace period a page): a fixed count. */
                p->threads = MAX(p->threads, PLAN_HVO_FAULT_WORKERS);
                p->threads_auto = false;
        }
        return 0;
}

/* A claim as the pool spec its amount is planned with (the amount shared, not copied). */
static struct pool_spec claim_as_pool(const struct claim_spec *cl) {
        struct pool_spec spec = { .page_size = cl->page_size, .amount = cl->amount };

        memcpy(spec.origin, cl->origin, sizeof(spec.origin));
        memcpy(spec.page_size_origin, cl->page_size_origin, sizeof(spec.page_size_origin));
        return spec;
}

/* Adds @s's target of each node (by index into t->nodes) into @totals, marking the nodes it
 * names in @named. */
static int add_targets(const struct topology *t, const struct pool_spec *s, uint64_t *totals, bool *named,
                       struct error *e) {
        struct plan_pool one = {};
        int r;

        one.nodes = calloc(t->n_nodes + 1, sizeof(*one.nodes));
        if (!one.nodes)
                return -ENOMEM;
        r = plan_targets(t, s, &one, e);
        for (size_t i = 0; r >= 0 && i < one.n_nodes; i++) {
                totals[one.nodes[i].node_idx] += one.nodes[i].target;
                named[one.nodes[i].node_idx] = true;
        }
        free(one.nodes);
        return r;
}

int plan_claim_pages(const struct topology *t, const struct claim_spec *cl, uint64_t *ret_pages, bool *ret_named,
                     struct error *e) {
        struct pool_spec spec = claim_as_pool(cl);

        return add_targets(t, &spec, ret_pages, ret_named, e);
}

/* The pool of @page_size: its [Pool] @s (NULL: none, a target of 0) plus the claims on it, per
 * node; the nodes it has are those @s or a claim names. */
static int plan_pool(const struct topology *t, const struct pool_counts *counts, const struct config *c,
                     const struct kernel_features *caps, uint64_t page_size, const struct pool_spec *s,
                     struct plan_pool *p, struct error *e) {
        _cleanup_(freep) uint64_t *totals = calloc(t->n_nodes + 1, sizeof(*totals));
        _cleanup_(freep) bool *named = calloc(t->n_nodes + 1, sizeof(*named));
        const struct claim_spec *first = NULL;
        struct pool_spec view;
        char name[32], avail[128] = "";
        size_t n_claims = 0;
        int si, r;

        if (!totals || !named)
                return -ENOMEM;
        for (size_t i = 0; i < c->n_claims; i++)
                if (c->claims[i].page_size == page_size) {
                        first = first ?: &c->claims[i];
                        n_claims++;
                }
        /* without a [Pool], what is said of the pool points at its first claim */
        if (!s) {
                view = claim_as_pool(first);
                s = &view;
        }
        *p = (struct plan_pool) { .page_size = page_size };
        memcpy(p->origin, s->origin, sizeof(p->origin));
        si = size_index(t, page_size);
        if (si < 0) {
                for (size_t i = 0; i < t->n_page_sizes; i++) {
                        char n2[32];
                        size_t len = strlen(avail);
                        (void) snprintf(avail + len, sizeof(avail) - len, "%s%s", i ? ", " : "",
                                        page_size_name(t->page_sizes[i], n2));
                }
                return error_set(e, -EINVAL, "%s: this kernel offers no %s pages (offered: %s)",
                                 *s->page_size_origin ? s->page_size_origin : s->origin,
                                 page_size_name(page_size, name), *avail ? avail : "none");
        }
        /* Zero gives pages back, which only --shrink does: without it, it would only ever be
         * "larger, kept", or a typo. */
        if (s != &view && amount_has_zero(&s->amount) && !c->shrink)
                return error_set(e, -EINVAL,
                                 "%s: a target of zero gives the pool's free pages back: add --shrink "
                                 "(Shrink=yes, hpfilld.shrink=yes)", s->origin);
        p->nodes = calloc(t->n_nodes, sizeof(*p->nodes));
        if (!p->nodes)
                return -ENOMEM;
        r = s != &view ? add_targets(t, s, totals, named, e) : 0;
        /* a pool's target per node: its [Pool] amount plus the sum of the claims on it */
        for (size_t i = 0; r >= 0 && i < c->n_claims; i++)
                if (c->claims[i].page_size == page_size)
                        r = plan_claim_pages(t, &c->claims[i], totals, named, e);
        if (r < 0)
                return r;
        for (size_t i = 0; i < t->n_nodes; i++)
                if (named[i])
                        add_node(p, t, i, totals[i]);

        r = plan_method(t, c, caps, s, p, e);
        if (r < 0)
                return r;

        for (size_t i = 0; i < p->n_nodes; i++) {
                struct plan_node *n = &p->nodes[i];
                const struct pool_counts *pc = &counts[(size_t) si * t->n_nodes + n->node_idx];
                int cpu_node;

                if (n->target > topology_node_limit(t, n->node_idx) / page_size)
                        return error_set(e, -EINVAL, "%s: node%u: %" PRIu64 " %s page%s%s %s more than its memory",
                                         s->origin, n->node, n->target, page_size_name(page_size, name),
                                         plural(n->target), n_claims ? " (with the claims)" : "",
                                         n->target == 1 ? "is" : "are");
                cpu_node = topology_cpu_node_for(t, n->node_idx);
                n->cpu_node_idx = cpu_node >= 0 ? (size_t) cpu_node : n->node_idx;
                /* Surplus pages count as missing: a workload that holds them takes them out of
                 * the pool when it exits. A write of the target promotes them first
                 * (set_max_huge_pages() adjusts the surplus before it allocates). */
                n->now = pool_counts_persistent(pc);
                n->surplus = pc->surplus;
                n->action = n->target > n->now    ? PLAN_GROW
                            : n->target == n->now ? PLAN_KEEP
                            : c->shrink           ? PLAN_SHRINK
                                                  : PLAN_LARGER;
                if (n->action == PLAN_GROW)
                        n->promote = MIN(n->surplus, n->target - n->now);
                p->target_total += n->target;
        }
        return 0;
}

static int plan_reserve(const struct topology *t, const struct config *c, const struct kernel_features *caps,
                        const struct reserve_spec *rs, struct plan_reserve *pr, struct error *e) {
        struct node_amount one = { .node = rs->node >= 0 ? (unsigned) rs->node : 0, .bytes = rs->bytes,
                                   .value = rs->value };
        struct pool_spec spec = {
                .page_size = rs->page_size,
                .amount = rs->node >= 0 ? (struct amount) { .kind = AMOUNT_PER_NODE, .nodes = &one, .n_nodes = 1 }
                                        : (struct amount) { .kind = rs->bytes ? AMOUNT_BYTES : AMOUNT_PAGES,
                                                            .value = rs->value },
        };
        struct plan_pool *p = &pr->pool;
        char name[32];
        int r;

        memcpy(pr->name, rs->name, sizeof(pr->name));
        memcpy(pr->owner, rs->owner, sizeof(pr->owner));
        memcpy(pr->group, rs->group, sizeof(pr->group));
        pr->mode = rs->mode;
        memcpy(pr->mount, rs->mount, sizeof(pr->mount));
        memcpy(spec.origin, rs->origin, sizeof(spec.origin));
        *p = (struct plan_pool) { .page_size = rs->page_size };
        memcpy(p->origin, rs->origin, sizeof(p->origin));
        if (!topology_has_page_size(t, rs->page_size))
                return error_set(e, -EINVAL, "%s: this kernel offers no %s pages", rs->origin,
                                 page_size_name(rs->page_size, name));
        if (!caps->populate_write)
                return error_set(e, -EOPNOTSUPP, "%s: reservations need MADV_POPULATE_WRITE (Linux 5.14 or later)",
                                 rs->origin);
        p->nodes = calloc(t->n_nodes, sizeof(*p->nodes));
        if (!p->nodes)
                return -ENOMEM;
        r = plan_targets(t, &spec, p, e);
        if (r < 0)
                return r;
        p->method = FILL_MODE_FAULT;
        p->method_reason = "a reservation is faulted in";
        fault_threads(t, c, p);
        for (size_t i = 0; i < p->n_nodes; i++) {
                struct plan_node *n = &p->nodes[i];
                int cpu_node = topology_cpu_node_for(t, n->node_idx);

                if (n->target > topology_node_limit(t, n->node_idx) / rs->page_size)
                        return error_set(e, -EINVAL, "%s: node%u: %" PRIu64 " %s page%s %s more than its memory",
                                         rs->origin, n->node, n->target, page_size_name(rs->page_size, name),
                                         plural(n->target), n->target == 1 ? "is" : "are");
                n->cpu_node_idx = cpu_node >= 0 ? (size_t) cpu_node : n->node_idx;
                n->action = n->target > 0 ? PLAN_GROW : PLAN_KEEP;
                p->target_total += n->target;
        }
        return 0;
}

int plan_build(const struct topology *t, const struct pool_counts *counts, const struct config *c,
               const struct kernel_features *caps, struct plan *ret, struct error *e) {
        struct plan p = { .min_percent = c->min_percent, .drop_caches = c->drop_caches };
        int r = 0;

        /* a pool for each [Pool], then one for each page size only claims name */
        p.pools = calloc(c->n_pools + c->n_claims + 1, sizeof(*p.pools));
        if (!p.pools)
                return -ENOMEM;
        for (size_t i = 0; i < c->n_pools; i++) {
                r = plan_pool(t, counts, c, caps, c->pools[i].page_size, &c->pools[i], &p.pools[i], e);
                p.n_pools++;
                if (r < 0)
                        break;
        }
        for (size_t i = 0; r >= 0 && i < c->n_claims; i++) {
                uint64_t ps = c->claims[i].page_size;
                bool planned = false;

                for (size_t k = 0; k < p.n_pools && !planned; k++)
                        planned = p.pools[k].page_size == ps;
                if (planned)
                        continue;
                r = plan_pool(t, counts, c, caps, ps, NULL, &p.pools[p.n_pools], e);
                p.n_pools++;
        }
        if (r >= 0 && c->n_reserves > 0) {
                p.reserves = calloc(c->n_reserves, sizeof(*p.reserves));
                if (!p.reserves)
                        r = -ENOMEM;
                for (size_t i = 0; r >= 0 && i < c->n_reserves; i++) {
                        r = plan_reserve(t, c, caps, &c->reserves[i], &p.reserves[i], e);
                        p.n_reserves++;
                }
        }
        if (r >= 0) {
                r = plan_check_budget(t, counts, &p, e);
                p.needs_uncounted = r > 0;
        }
        if (r < 0) {
                plan_done(&p);
                return r;
        }
        *ret = p;
        return 0;
}

void plan_done(struct plan *p) {
        for (size_t i = 0; i < p->n_pools; i++)
                free(p->pools[i].nodes);
        free(p->pools);
        for (size_t i = 0; i < p->n_reserves; i++)
                free(p->reserves[i].pool.nodes);
        free(p->reserves);
        *p = (struct plan) {};
}

uint64_t plan_pool_obtained(const struct plan_pool *p, const uint64_t *after) {
        uint64_t sum = 0;

        for (size_t i = 0; i < p->n_nodes; i++)
                sum += MIN(after[i], p->nodes[i].target);
        return sum;
}

bool plan_pool_met(const struct plan_pool *p, uint64_t obtained, unsigned min_percent) {
        /* obtained/target >= min/100, in integers; targets are far below 2^64/100 */
        return obtained * 100 >= p->target_total * min_percent;
}

bool plan_has_work(const struct plan *p) {
        if (p->n_reserves > 0)
                return true;
        for (size_t i = 0; i < p->n_pools; i++)
                for (size_t j = 0; j < p->pools[i].n_nodes; j++)
                        if (p->pools[i].nodes[j].action == PLAN_GROW || p->pools[i].nodes[j].action == PLAN_SHRINK)
                                return true;
        return false;
}
