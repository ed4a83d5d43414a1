/* SPDX-License-Identifier: MIT */
/* `hpfilld status --json`: the same as the text, as typed data (doc/hpfilld-json.schema.json,
 * "status"): numbers as numbers, states as the documented names, no sentences. */
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "service/exitstatus.h"
#include "service/status_data.h"
#include "service/status_kubelet.h"
#include "util/json.h"

static void print_pools(const struct status_data *d, struct json_writer *w) {
        const struct topology *t = &d->t;

        json_key(w, "pools");
        json_begin_array(w);
        for (size_t s = 0; s < t->n_page_sizes; s++) {
                uint64_t ps = t->page_sizes[s];

                json_begin_object(w);
                json_key(w, "page_size"), json_u64(w, ps);
                json_key(w, "reserved"), json_u64(w, pool_global_counter(d->rootfd, ps, "resv_hugepages"));
                json_key(w, "overcommit"), json_u64(w, pool_global_counter(d->rootfd, ps, "nr_overcommit_hugepages"));
                json_key(w, "nodes");
                json_begin_array(w);
                for (size_t i = 0; i < t->n_nodes; i++) {
                        const struct pool_counts *c = &d->counts[s * t->n_nodes + i];

                        json_begin_object(w);
                        json_key(w, "node"), json_u64(w, t->nodes[i].id);
                        json_key(w, "target"), json_u64_or_null(w, status_target(d, ps, t->nodes[i].id));
                        json_key(w, "pages"), json_u64(w, c->nr);
                        json_key(w, "free"), json_u64(w, c->free);
                        json_key(w, "surplus"), json_u64(w, c->surplus);
                        json_end_object(w);
                }
                json_end_array(w);
                json_end_object(w);
        }
        json_end_array(w);
}

static void print_journal(const struct status_data *d, struct json_writer *w) {
        json_key(w, "journal");
        json_begin_array(w);
        for (size_t i = 0; i < d->n_settings; i++) {
                const struct status_setting *o = &d->settings[i];

                json_begin_object(w);
                json_key(w, "entry"), json_string(w, "setting");
                json_key(w, "path"), json_string(w, o->path);
                json_key(w, "result"), json_string(w, o->result);
                json_key(w, "found"), json_u64(w, o->found);
                json_key(w, "set"), json_u64(w, o->set);
                json_key(w, "now"), json_u64(w, o->now);
                json_key(w, "pid"), json_null(w);
                json_key(w, "errno"), json_errno_or_null(w, o->error);
                json_end_object(w);
        }
        json_end_array(w);
}

static void print_last_fill(const struct status_data *d, struct json_writer *w) {
        json_key(w, "last_fill");
        if (!d->rec.valid) {
                json_null(w);
                return;
        }
        json_begin_object(w);
        json_key(w, "time"), json_i64(w, d->rec.time_ns / 1000000000);
        json_key(w, "exit_status"), json_i64(w, d->rec.exit_status);
        json_key(w, "exit_meaning"), json_string(w, exit_status_name(d->rec.exit_status));
        json_key(w, "next_boot"), json_string_or_null(w, d->rec.next_boot);
        json_key(w, "summary"), json_string(w, d->rec.summary);
        json_key(w, "elapsed_seconds"), json_double(w, (double) d->rec.elapsed_ns / 1e9, 6);
        json_key(w, "sizes");
        json_begin_array(w);
        for (size_t i = 0; i < d->rec.n_sizes; i++) {
                const struct metrics_size *s = &d->rec.sizes[i];

                json_begin_object(w);
                json_key(w, "page_size"), json_u64(w, s->page_size);
                json_key(w, "elapsed_seconds"), json_double(w, (double) s->elapsed_ns / 1e9, 6);
                json_key(w, "rounds"), json_u64(w, s->rounds);
                json_key(w, "met"), json_bool(w, s->met);
                json_end_object(w);
        }
        json_end_array(w);
        json_end_object(w);
}

/* "0,1" as [0, 1]; "" (no node named: any) as []; not in the record (made before it, or it
 * was lost) as null. */
static void print_nodes(const struct metrics_reserve *rec, struct json_writer *w) {
        if (!rec) {
                json_null(w);
                return;
        }
        json_begin_array(w);
        for (const char *p = rec->nodes; *p;) {
                char *end;
                uint64_t node = strtoull(p, &end, 10);

                if (end != p) /* digits and commas only (metrics.c): a number, or an empty piece */
                        json_u64(w, node);
                p = *end ? end + 1 : end;
        }
        json_end_array(w);
}

static void print_reserve(const struct reserve_found *r, const struct metrics_reserve *rec, struct json_writer *w) {
        struct passwd *pw = getpwuid(r->uid);
        struct group *gr = getgrgid(r->gid);
        char mode[8];

        (void) snprintf(mode, sizeof(mode), "%04o", (unsigned) r->mode);
        json_begin_object(w);
        json_key(w, "name"), json_string(w, r->name);
        json_key(w, "page_size"), json_u64(w, r->page_size);
        json_key(w, "pages"), json_u64(w, r->pages);
        json_key(w, "nodes"), print_nodes(rec, w);
        json_key(w, "path"), json_string(w, r->path);
        json_key(w, "uid"), json_u64(w, r->uid);
        json_key(w, "owner"), json_string(w, pw ? pw->pw_name : NULL);
        json_key(w, "gid"), json_u64(w, r->gid);
        json_key(w, "group"), json_string(w, gr ? gr->gr_name : NULL);
        json_key(w, "mode"), json_string(w, mode);
        json_key(w, "use"), json_string(w, reserve_use_to_string(r->use));
        json_end_object(w);
}

/* The claims (hpfilld claim's, the configuration's [Claim]s), one object per claim and node. */
static void print_claims(const struct status_data *d, struct json_writer *w) {
        json_key(w, "claims");
        json_begin_array(w);
        for (size_t i = 0; i < d->rec.n_claims; i++) {
                const struct metrics_claim *c = &d->rec.claims[i];

                json_begin_object(w);
                json_key(w, "name"), json_string(w, c->name);
                json_key(w, "page_size"), json_u64(w, c->page_size);
                json_key(w, "node"), json_u64(w, c->node);
                json_key(w, "pages"), json_u64(w, c->pages);
                json_key(w, "file"), json_string(w, c->file);
                json_end_object(w);
        }
        json_end_array(w);
}

int status_print_json(const struct status_data *d, FILE *f) {
        struct json_writer w;

        json_writer_init(&w, f);
        json_begin_object(&w);
        json_key(&w, "kind"), json_string(&w, "status");
        print_pools(d, &w);
        print_journal(d, &w);
        print_last_fill(d, &w);
        print_claims(d, &w);
        json_key(&w, "reservations");
        json_begin_array(&w);
        for (int i = 0; i < d->n_reserves; i++)
                print_reserve(&d->reserves[i], status_reserve_record(d, &d->reserves[i]), &w);
        json_end_array(&w);
        status_json_kubelet(d, &w);
        json_end_object(&w);
        return json_writer_finish(&w);
}
