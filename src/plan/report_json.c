/* SPDX-License-Identifier: MIT */
/* The plan of --dry-run --json and the pools of --once --json (doc/hpfilld-json.schema.json). */
#include <stdio.h>

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

static void plan_pool_json(struct json_writer *w, const struct plan_pool *pp) {
        json_begin_object(w);
        json_key(w, "page_size"), json_u64(w, pp->page_size);
        json_key(w, "method"), json_string(w, fill_mode_to_string(pp->method));
        json_key(w, "measured"), json_bool(w, pp->measured);
        json_key(w, "forced"), json_bool(w, pp->rule.forced);
        json_key(w, "threads"), json_u64(w, pp->threads);
        json_key(w, "threads_auto"), json_bool(w, pp->threads_auto);
        json_key(w, "target"), json_u64(w, pp->target_total);
        json_key(w, "nodes");
        json_begin_array(w);
        for (size_t j = 0; j < pp->n_nodes; j++) {
                const struct plan_node *n = &pp->nodes[j];

                json_begin_object(w);
                json_key(w, "node"), json_u64(w, n->node);
                json_key(w, "now"), json_u64(w, n->now);
                json_key(w, "target"), json_u64(w, n->target);
                json_key(w, "surplus"), json_u64(w, n->surplus);
                json_key(w, "promote"), json_u64(w, n->promote);
                json_key(w, "action"), json_string(w, plan_action_to_json(n->action));
                json_end_object(w);
        }
        json_end_array(w);
        json_end_object(w);
}

static void plan_reserve_json(struct json_writer *w, const struct plan_reserve *r) {
        char mode[8];

        (void) snprintf(mode, sizeof(mode), "%04o", r->mode & 07777);
        json_begin_object(w);
        json_key(w, "name"), json_string(w, r->name);
        json_key(w, "owner"), json_string_or_null(w, r->owner);
        json_key(w, "group"), json_string_or_null(w, r->group);
        json_key(w, "mode"), json_string(w, mode);
        json_key(w, "page_size"), json_u64(w, r->pool.page_size);
        json_key(w, "threads"), json_u64(w, r->pool.threads);
        json_key(w, "target"), json_u64(w, r->pool.target_total);
        json_key(w, "nodes");
        json_begin_array(w);
        for (size_t j = 0; j < r->pool.n_nodes; j++) {
                json_begin_object(w);
                json_key(w, "node"), json_u64(w, r->pool.nodes[j].node);
                json_key(w, "target"), json_u64(w, r->pool.nodes[j].target);
                json_end_object(w);
        }
        json_end_array(w);
        json_end_object(w);
}

void report_plan_json(struct json_writer *w, const struct plan *p) {
        json_key(w, "plan");
        json_begin_object(w);
        json_key(w, "pools");
        json_begin_array(w);
        for (size_t i = 0; i < p->n_pools; i++)
                plan_pool_json(w, &p->pools[i]);
        json_end_array(w);
        json_key(w, "reservations");
        json_begin_array(w);
        for (size_t i = 0; i < p->n_reserves; i++)
                plan_reserve_json(w, &p->reserves[i]);
        json_end_array(w);
        json_key(w, "min_percent"), json_u64(w, p->min_percent);
        json_key(w, "drop_caches"), json_bool(w, p->drop_caches);
        json_end_object(w);
}

static const char *hvo_to_json(int hvo) {
        return hvo < 0 ? "absent" : hvo ? "on" : "off";
}

static const char *source_to_json(enum caps_source s) {
        return s == CAPS_SOURCE_CMDLINE ? "cmdline" : s == CAPS_SOURCE_CONFIG ? "config" : "unknown";
}

void report_kernel_json(struct json_writer *w, const struct kernel_features *c) {
        json_key(w, "kernel");
        json_begin_object(w);
        json_key(w, "release"), json_string_or_null(w, c->release);
        json_key(w, "hvo"), json_string(w, hvo_to_json(c->hvo));
        json_key(w, "init_on_alloc"), json_bool(w, c->init_on_alloc);
        json_key(w, "init_on_alloc_from"), json_string(w, source_to_json(c->init_on_alloc_from));
        json_key(w, "populate_write"), json_bool(w, c->populate_write);
        json_end_object(w);
}

static void choice_json(struct json_writer *w, const struct choice *c) {
        if (!c) {
                json_null(w);
                return;
        }
        json_begin_object(w);
        json_key(w, "picked"), json_string(w, fill_mode_to_string(c->method));
        json_key(w, "sysfs_pages_per_second"), json_double(w, c->sysfs_rate, 0);
        json_key(w, "fault_pages_per_second"), json_double(w, c->fault_rate, 0);
        json_key(w, "measurements"), json_u64(w, c->measurements);
        json_key(w, "hvo"), json_string(w, hvo_to_json(c->hvo));
        json_end_object(w);
}

void report_pool_json(struct json_writer *w, const struct plan_pool *p, const struct pool_outcome *o, bool met) {
        enum fill_mode m = o->choice ? o->choice->method : p->method;

        json_begin_object(w);
        json_key(w, "page_size"), json_u64(w, p->page_size);
        json_key(w, "method"), json_string(w, fill_mode_to_string(m));
        json_key(w, "threads"), json_u64(w, o->threads);
        json_key(w, "elapsed_seconds"), json_double(w, (double) o->elapsed_ns / 1e9, 6);
        json_key(w, "rounds"), json_u64(w, o->rounds);
        json_key(w, "caches_dropped"), json_bool(w, o->after_drop);
        json_key(w, "by_sysfs"), json_u64(w, o->by_sysfs);
        json_key(w, "interrupted"), json_bool(w, o->interrupted);
        json_key(w, "errno"), json_errno_or_null(w, o->error);
        json_key(w, "target"), json_u64(w, p->target_total);
        json_key(w, "obtained"), json_u64(w, plan_pool_obtained(p, o->after));
        json_key(w, "met"), json_bool(w, met);
        json_key(w, "measured"), choice_json(w, o->choice);
        json_key(w, "nodes");
        json_begin_array(w);
        for (size_t i = 0; i < p->n_nodes; i++) {
                json_begin_object(w);
                json_key(w, "node"), json_u64(w, p->nodes[i].node);
                json_key(w, "before"), json_u64(w, p->nodes[i].now);
                json_key(w, "target"), json_u64(w, p->nodes[i].target);
                json_key(w, "after"), json_u64(w, o->after[i]);
                json_key(w, "surplus"), json_u64_or_null(w, o->surplus_after ? &o->surplus_after[i] : NULL);
                json_end_object(w);
        }
        json_end_array(w);
        json_end_object(w);
}
