/* SPDX-License-Identifier: MIT */
/* The plan of --dry-run --json and the pools of --once --json (doc/hpfilld-json.schema.json). */
#include <inttypes.h>

#include "plan/report_json.h"
#include "util/json.h"

const char *plan_action_to_json(enum plan_action a) {
        static const char *const names[] = {
                [PLAN_GROW] = "grow",
                [PLAN_SHRINK] = "shrink",
                [PLAN_KEEP] = "keep",
                [PLAN_LARGER] = "larger",
        };
        return (size_t) a < ELEMENTSOF(names) ? names[a] : "keep";
}

static void plan_pool_json(FILE *f, const struct plan_pool *pp) {
        fprintf(f, "{\"page_size\": %" PRIu64 ", \"method\": \"%s\", \"measured\": %s, \"forced\": %s, "
                   "\"threads\": %u, \"threads_auto\": %s, \"target\": %" PRIu64 ", \"nodes\": [",
                pp->page_size, fill_mode_to_string(pp->method), pp->measured ? "true" : "false",
                pp->rule.forced ? "true" : "false", pp->threads, pp->threads_auto ? "true" : "false",
                pp->target_total);
        for (size_t j = 0; j < pp->n_nodes; j++) {
                const struct plan_node *n = &pp->nodes[j];

                fprintf(f, "%s{\"node\": %u, \"now\": %" PRIu64 ", \"target\": %" PRIu64 ", \"surplus\": %" PRIu64
                           ", \"promote\": %" PRIu64 ", \"action\": \"%s\"}",
                        j ? ", " : "", n->node, n->now, n->target, n->surplus, n->promote, plan_action_to_json(n->action));
        }
        fputs("]}", f);
}

static void plan_reserve_json(FILE *f, const struct plan_reserve *r) {
        fputs("{\"name\": ", f);
        json_string(f, r->name);
        fputs(", \"owner\": ", f);
        json_string(f, *r->owner ? r->owner : NULL);
        fputs(", \"group\": ", f);
        json_string(f, *r->group ? r->group : NULL);
        fprintf(f, ", \"mode\": \"%04o\", \"page_size\": %" PRIu64 ", \"threads\": %u, \"target\": %" PRIu64
                   ", \"nodes\": [",
                r->mode & 07777, r->pool.page_size, r->pool.threads, r->pool.target_total);
        for (size_t j = 0; j < r->pool.n_nodes; j++)
                fprintf(f, "%s{\"node\": %u, \"target\": %" PRIu64 "}", j ? ", " : "", r->pool.nodes[j].node,
                        r->pool.nodes[j].target);
        fputs("]}", f);
}

void report_plan_json(FILE *f, const struct plan *p) {
        fputs("\"plan\": {\"pools\": [", f);
        for (size_t i = 0; i < p->n_pools; i++) {
                fputs(i ? ", " : "", f);
                plan_pool_json(f, &p->pools[i]);
        }
        fputs("], \"reservations\": [", f);
        for (size_t i = 0; i < p->n_reserves; i++) {
                fputs(i ? ", " : "", f);
                plan_reserve_json(f, &p->reserves[i]);
        }
        fprintf(f, "], \"min_percent\": %u, \"drop_caches\": %s}", p->min_percent, p->drop_caches ? "true" : "false");
}

static const char *hvo_to_json(int hvo) {
        return hvo < 0 ? "absent" : hvo ? "on" : "off";
}

void report_kernel_json(FILE *f, const struct kernel_features *c) {
        fputs("\"kernel\": {\"release\": ", f);
        json_string(f, *c->release ? c->release : NULL);
        fprintf(f, ", \"hvo\": \"%s\", \"init_on_alloc\": %s, \"init_on_alloc_from\": \"%s\", \"populate_write\": %s}",
                hvo_to_json(c->hvo), c->init_on_alloc ? "true" : "false", c->init_on_alloc_from == CAPS_SOURCE_CMDLINE ? "cmdline"
                : c->init_on_alloc_from == CAPS_SOURCE_CONFIG ? "config" : "unknown",
                c->populate_write ? "true" : "false");
}

static void choice_json(FILE *f, const struct choice *c) {
        if (!c) {
                fputs("null", f);
                return;
        }
        fprintf(f, "{\"picked\": \"%s\", \"sysfs_pages_per_second\": %.0f, \"fault_pages_per_second\": %.0f, "
                   "\"measurements\": %u, \"hvo\": \"%s\"}",
                fill_mode_to_string(c->method), c->sysfs_rate, c->fault_rate, c->measurements, hvo_to_json(c->hvo));
}

void report_pool_json(FILE *f, const struct plan_pool *p, const struct pool_outcome *o, bool met) {
        enum fill_mode m = o->choice ? o->choice->method : p->method;

        fprintf(f, "{\"page_size\": %" PRIu64 ", \"method\": \"%s\", \"threads\": %u, \"elapsed_seconds\": %.6f, "
                   "\"rounds\": %u, \"caches_dropped\": %s, \"by_sysfs\": %" PRIu64 ", \"interrupted\": %s, \"errno\": ",
                p->page_size, fill_mode_to_string(m), o->threads, (double) o->elapsed_ns / 1e9, o->rounds,
                o->after_drop ? "true" : "false", o->by_sysfs, o->interrupted ? "true" : "false");
        if (o->error)
                fprintf(f, "%d", -o->error);
        else
                fputs("null", f);
        fprintf(f, ", \"target\": %" PRIu64 ", \"obtained\": %" PRIu64 ", \"met\": %s, \"measured\": ", p->target_total,
                plan_pool_obtained(p, o->after), met ? "true" : "false");
        choice_json(f, o->choice);
        fputs(", \"nodes\": [", f);
        for (size_t i = 0; i < p->n_nodes; i++) {
                fprintf(f, "%s{\"node\": %u, \"before\": %" PRIu64 ", \"target\": %" PRIu64 ", \"after\": %" PRIu64
                           ", \"surplus\": ",
                        i ? ", " : "", p->nodes[i].node, p->nodes[i].now, p->nodes[i].target, o->after[i]);
                json_u64_or_null(f, o->surplus_after ? &o->surplus_after[i] : NULL);
                fputc('}', f);
        }
        fputs("]}", f);
}
