/* SPDX-License-Identifier: MIT */
/* What hpfilld prints: the plan table of --dry-run and the report after a fill. */
#include <inttypes.h>
#include <string.h>

#include "plan/report.h"

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

void report_pool_line(char *buf, size_t size, const struct plan_pool *p, const struct pool_outcome *o) {
        enum fill_mode m = o->choice ? o->choice->method : p->method;
        char name[32], took[32];
        size_t n = 0;

#define APPEND(...) n += (size_t) snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__)
        format_duration(took, sizeof(took), o->elapsed_ns);
        APPEND("%s pool: %" PRIu64 "/%" PRIu64 " pages on %zu node%s in %s (%s, %u %s%s%s)",
               page_size_name(p->page_size, name), plan_pool_obtained(p, o->after), p->target_total, p->n_nodes,
               p->n_nodes == 1 ? "" : "s", took, fill_mode_to_string(m), o->threads,
               m == FILL_MODE_FAULT ? "thread" : "writer",
               m == FILL_MODE_FAULT ? (o->threads == 1 ? "/node" : "s/node") : (o->threads == 1 ? "" : "s"),
               m == FILL_MODE_FAULT && p->threads_auto ? ", auto" : "");
        if (o->choice)
                APPEND(", auto: %s%s", o->choice->why, o->choice->measurements > 1 ? ", measured again" : "");
        if (o->rounds)
                APPEND(", %u retry round%s%s", o->rounds, o->rounds == 1 ? "" : "s",
                       o->after_drop ? " (caches dropped)" : "");
        if (o->interrupted)
                APPEND(", interrupted");
        if (o->error)
                APPEND(", failed: /%s: %s", o->error_path ? o->error_path : "?", strerror(-o->error));
#undef APPEND
}

void report_pool(FILE *f, const struct plan_pool *p, const struct pool_outcome *o) {
        char line[1024];

        report_pool_line(line, sizeof(line), p, o);
        fprintf(f, "%s\n", line);
        for (size_t i = 0; i < p->n_nodes; i++) {
                const struct plan_node *n = &p->nodes[i];
                const char *note = "";

                if (n->action == PLAN_LARGER)
                        note = ", larger than target, left alone";
                else if (n->action == PLAN_SHRINK && o->after[i] > n->target)
                        note = ", pages in use kept";
                else if (o->after[i] < n->target)
                        note = ", short";
                fprintf(f, "  node%u: %" PRIu64 " -> %" PRIu64 " (target %" PRIu64 "%s)\n", n->node, n->now,
                        o->after[i], n->target, note);
        }
}
