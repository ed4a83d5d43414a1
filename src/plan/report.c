/* SPDX-License-Identifier: MIT */
/* What hpfilld prints: the plan table of --dry-run and the report after a fill. */
#include <inttypes.h>
#include <string.h>

#include "plan/report.h"
#include "util/fileio.h"
#include "util/shown.h"

void report_plan(FILE *f, const struct plan *p) {
        fprintf(f, "%-5s %-7s %10s %10s %11s %-7s %7s  %s\n", "SIZE", "NODE", "NOW", "TARGET", "DELTA", "METHOD",
                "THREADS", "ACTION");
        for (size_t i = 0; i < p->n_pools; i++) {
                const struct plan_pool *pp = &p->pools[i];
                char name[32], node[16];

                for (size_t j = 0; j < pp->n_nodes; j++) {
                        const struct plan_node *n = &pp->nodes[j];
                        bool moves = n->action == PLAN_GROW || n->action == PLAN_SHRINK;
                        int64_t delta = moves ? (int64_t) n->target - (int64_t) n->now : 0;

                        (void) snprintf(node, sizeof(node), "node%u", n->node);
                        fprintf(f, "%-5s %-7s %10" PRIu64 " %10" PRIu64 " %+11" PRId64 " %-7s %7u  %s\n",
                                page_size_name(pp->page_size, name), node, n->now, n->target, delta,
                                fill_mode_to_string(pp->method), pp->threads, plan_action_to_string(n->action));
                }
        }
        for (size_t i = 0; i < p->n_reserves; i++) {
                const struct plan_pool *pp = &p->reserves[i].pool;
                char name[32], node[16], action[96];

                (void) snprintf(action, sizeof(action), "reserve %s", p->reserves[i].name);
                for (size_t j = 0; j < pp->n_nodes; j++) {
                        (void) snprintf(node, sizeof(node), "node%u", pp->nodes[j].node);
                        fprintf(f, "%-5s %-7s %10s %10" PRIu64 " %+11" PRId64 " %-7s %7u  %s\n",
                                page_size_name(pp->page_size, name), node, "-", pp->nodes[j].target,
                                (int64_t) pp->nodes[j].target, fill_mode_to_string(pp->method), pp->threads, action);
                }
        }
        /* surplus pages found: not counted as the pool's, promoted by the fill where it grows */
        for (size_t i = 0; i < p->n_pools; i++)
                for (size_t j = 0; j < p->pools[i].n_nodes; j++) {
                        const struct plan_node *n = &p->pools[i].nodes[j];
                        char name[32];

                        if (n->surplus)
                                fprintf(f, "%s: node%u: %" PRIu64 " surplus page%s in use, %" PRIu64 " to promote\n",
                                        page_size_name(p->pools[i].page_size, name), n->node, n->surplus,
                                        plural(n->surplus), n->promote);
                }
        /* the method of each pool, and why */
        for (size_t i = 0; i < p->n_pools; i++) {
                const struct plan_pool *pp = &p->pools[i];
                char name[32];

                if (pp->measured && !pp->rule.forced)
                        fprintf(f, "%s: auto: sysfs and fault measured on the first pages of each node, the faster "
                                   "carries on; a tie goes to %s (%s)\n",
                                page_size_name(pp->page_size, name), fill_mode_to_string(pp->rule.prefer),
                                pp->method_reason);
                else
                        fprintf(f, "%s: %s: %s%s\n", page_size_name(pp->page_size, name),
                                fill_mode_to_string(pp->method), pp->method_reason,
                                pp->measured ? "; measured against a sysfs step at the start" : "");
        }
}

static void format_duration(char *buf, size_t size, uint64_t ns) {
        if (ns < UINT64_C(10000000000))
                (void) snprintf(buf, size, "%" PRIu64 " ms", (ns + 500000) / 1000000);
        else
                (void) snprintf(buf, size, "%.1f s", (double) ns / 1e9);
}

/* Surplus pages found on node @n that are persistent now: a write promotes surplus before it
 * allocates (set_max_huge_pages()), so the first pages of a node's growth are those. */
static uint64_t promoted(const struct plan_node *n, uint64_t after) {
        return n->action == PLAN_GROW && after > n->now ? MIN(n->surplus, after - n->now) : 0;
}

static uint64_t pool_total(const struct plan_pool *p, const uint64_t *after) {
        uint64_t sum = 0;

        for (size_t i = 0; i < p->n_nodes; i++)
                sum += after[i];
        return sum;
}

/* Whether no node is short and some are above their targets: left alone (@larger), or shrunk
 * as far as the kernel would (@in_use: set_max_huge_pages() frees free pages only and turns
 * pages in use above the target into surplus ones, freed when their user lets go). */
static bool pool_over(const struct plan_pool *p, const uint64_t *after, bool *larger, bool *in_use) {
        bool over = false;

        *larger = *in_use = false;
        for (size_t i = 0; i < p->n_nodes; i++) {
                if (after[i] < p->nodes[i].target)
                        return false;
                if (after[i] == p->nodes[i].target)
                        continue;
                over = true;
                if (p->nodes[i].action == PLAN_SHRINK)
                        *in_use = true;
                else
                        *larger = true;
        }
        return over;
}

/* Pages in use that a shrink of node @i turned into surplus ones: set_max_huge_pages() frees free
 * pages only, and the pages in use above the target leave the pool when their user lets go. */
static uint64_t made_surplus(const struct plan_pool *p, const struct pool_outcome *o, size_t i) {
        const struct plan_node *n = &p->nodes[i];

        return n->action == PLAN_SHRINK && o->surplus_after && o->surplus_after[i] > n->surplus
                       ? o->surplus_after[i] - n->surplus
                       : 0;
}

void report_pool_line(char *buf, size_t size, const struct plan_pool *p, const struct pool_outcome *o) {
        enum fill_mode m = o->choice ? o->choice->method : p->method;
        char name[32], took[32];
        uint64_t promotions = 0, in_use_surplus = 0;
        bool larger, in_use;
        size_t n = 0;

        for (size_t i = 0; i < p->n_nodes; i++) {
                promotions += promoted(&p->nodes[i], o->after[i]);
                in_use_surplus += made_surplus(p, o, i);
        }

#define APPEND(...) n += (size_t) snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__)
        format_duration(took, sizeof(took), o->elapsed_ns);
        page_size_name(p->page_size, name);
        if (pool_over(p, o->after, &larger, &in_use))
                /* every node at its target or above: the pool as it is, and why above */
                APPEND("%s pool: %" PRIu64 " page%s, above the target of %" PRIu64 ", %s%s%s,", name,
                       pool_total(p, o->after), plural(pool_total(p, o->after)), p->target_total, larger ? "left alone" : "",
                       larger && in_use ? "; " : "", in_use ? "pages in use are surplus now, until freed" : "");
        else
                APPEND("%s pool: %" PRIu64 "/%" PRIu64 " page%s", name, plan_pool_obtained(p, o->after), p->target_total,
                       plural(p->target_total));
        if (in_use_surplus)
                APPEND(", %" PRIu64 " page%s in use %s surplus now, until freed", in_use_surplus,
                       in_use_surplus == 1 ? "" : "s", in_use_surplus == 1 ? "is" : "are");
        APPEND(" on %zu node%s in %s", p->n_nodes, p->n_nodes == 1 ? "" : "s", took);
        if (m == FILL_MODE_FAULT && o->threads == 0)
                /* no node was faulted (each had free pages, or nothing to add): no thread ran */
                APPEND(" (fault, no page faulted)");
        else
                APPEND(" (%s, %u %s%s%s)", fill_mode_to_string(m), o->threads,
                       m == FILL_MODE_FAULT ? "thread" : "writer",
                       m == FILL_MODE_FAULT ? (o->threads == 1 ? "/node" : "s/node") : (o->threads == 1 ? "" : "s"),
                       m == FILL_MODE_FAULT && p->threads_auto ? ", auto" : "");
        if (m == FILL_MODE_FAULT && o->by_sysfs)
                /* nodes with free pages (a fault would take those), or where faulting fell short */
                APPEND(", %" PRIu64 " of them by sysfs", o->by_sysfs);
        if (o->choice && !p->rule.forced)
                APPEND(", auto: %s%s", o->choice->why, o->choice->measurements > 1 ? ", measured again" : "");
        if (o->rounds)
                APPEND(", %u retry round%s%s", o->rounds, o->rounds == 1 ? "" : "s",
                       o->after_drop ? " (caches dropped)" : "");
        if (promotions)
                APPEND(", %" PRIu64 " surplus page%s in use promoted", promotions, promotions == 1 ? "" : "s");
        if (o->interrupted)
                APPEND(", interrupted");
        if (o->error) {
                const char *what = o->error_path ? o->error_path : "?";

                /* a file below the root ("sys/..."), or a call ("MADV_POPULATE_WRITE") */
                bool below_root = strncmp(what, "sys/", 4) == 0 || strncmp(what, "proc/", 5) == 0;

                APPEND(", failed: %s%s%s: %s", below_root ? shown_root() : "", below_root ? "/" : "", what,
                       attr_error_reason(o->error) ?: strerror(-o->error));
        }
#undef APPEND
}

void report_pool(FILE *f, const struct plan_pool *p, const struct pool_outcome *o) {
        char line[1024];

        report_pool_line(line, sizeof(line), p, o);
        fprintf(f, "%s\n", line);
        for (size_t i = 0; i < p->n_nodes; i++) {
                const struct plan_node *n = &p->nodes[i];
                uint64_t up = promoted(n, o->after[i]);
                char surplus[96] = "", kept[96];
                const char *note = "";

                if (n->action == PLAN_LARGER)
                        note = ", larger than target, left alone";
                else if (n->action == PLAN_SHRINK && (o->after[i] > n->target || made_surplus(p, o, i)))
                        note = ", the pages above it are in use: surplus now, they leave the pool when freed";
                else if (n->action == PLAN_SHRINK && n->kept) {
                        (void) snprintf(kept, sizeof(kept), ", %" PRIu64 " above the %" PRIu64 " asked kept: in use, "
                                        "or not the run's", n->kept, n->target - n->kept);
                        note = kept;
                }
                else if (o->after[i] < n->target)
                        note = ", short";
                if (up)
                        (void) snprintf(surplus, sizeof(surplus), ", %" PRIu64 " surplus in use promoted", up);
                if (n->surplus > up)
                        (void) snprintf(surplus + strlen(surplus), sizeof(surplus) - strlen(surplus),
                                        ", %" PRIu64 " surplus in use not counted", n->surplus - up);
                fprintf(f, "  node%u: %" PRIu64 " -> %" PRIu64 " (target %" PRIu64 "%s%s)\n", n->node, n->now,
                        o->after[i], n->target, note, surplus);
        }
}
