/* SPDX-License-Identifier: MIT */
/* `hpfilld status --json`: the same as the text, as typed data (doc/hpfilld-json.schema.json,
 * "status"): numbers as numbers, states as the documented names, no sentences. */
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <string.h>

#include "service/exitstatus.h"
#include "service/status_data.h"
#include "util/json.h"

static void print_pools(const struct status_data *d, FILE *f) {
        const struct topology *t = &d->t;

        fputs("\"pools\": [", f);
        for (size_t s = 0; s < t->n_page_sizes; s++) {
                uint64_t ps = t->page_sizes[s];

                fprintf(f, "%s{\"page_size\": %" PRIu64 ", \"reserved\": %" PRIu64 ", \"overcommit\": %" PRIu64
                           ", \"nodes\": [",
                        s ? ", " : "", ps, pool_global_counter(d->rootfd, ps, "resv_hugepages"),
                        pool_global_counter(d->rootfd, ps, "nr_overcommit_hugepages"));
                for (size_t i = 0; i < t->n_nodes; i++) {
                        const struct pool_counts *c = &d->counts[s * t->n_nodes + i];

                        fprintf(f, "%s{\"node\": %u, \"target\": ", i ? ", " : "", t->nodes[i].id);
                        json_u64_or_null(f, status_target(d, ps, t->nodes[i].id));
                        fprintf(f, ", \"pages\": %" PRIu64 ", \"free\": %" PRIu64 ", \"surplus\": %" PRIu64 "}", c->nr,
                                c->free, c->surplus);
                }
                fputs("]}", f);
        }
        fputs("]", f);
}

static void print_journal(const struct status_data *d, FILE *f) {
        fputs(", \"journal\": [", f);
        for (int i = 0; i < d->n_journal; i++) {
                const struct journal_outcome *o = &d->journal[i];

                fprintf(f, "%s{\"entry\": ", i ? ", " : "");
                json_string(f, o->name);
                fputs(", \"path\": ", f);
                json_string(f, *o->entry.path ? o->entry.path : NULL);
                fprintf(f, ", \"result\": \"%s\", \"found\": %" PRIu64 ", \"set\": %" PRIu64 ", \"now\": %" PRIu64
                           ", \"pid\": ",
                        journal_result_name(o->result), o->entry.found, o->entry.set, o->now);
                if (o->entry.pid)
                        fprintf(f, "%d, \"errno\": ", (int) o->entry.pid);
                else
                        fputs("null, \"errno\": ", f);
                if (o->error)
                        fprintf(f, "%d}", -o->error);
                else
                        fputs("null}", f);
        }
        fputs("]", f);
}

static void print_last_fill(const struct status_data *d, FILE *f) {
        fputs(", \"last_fill\": ", f);
        if (!d->rec.valid) {
                fputs("null", f);
                return;
        }
        fprintf(f, "{\"time\": %lld, \"exit_status\": %d, \"exit_meaning\": \"%s\", \"next_boot\": ",
                (long long) (d->rec.time_ns / 1000000000), d->rec.exit_status, exit_status_name(d->rec.exit_status));
        json_string(f, *d->rec.next_boot ? d->rec.next_boot : NULL);
        fputs(", \"summary\": ", f);
        json_string(f, d->rec.summary);
        fprintf(f, ", \"elapsed_seconds\": %.6f, \"sizes\": [", (double) d->rec.elapsed_ns / 1e9);
        for (size_t i = 0; i < d->rec.n_sizes; i++) {
                const struct metrics_size *s = &d->rec.sizes[i];

                fprintf(f, "%s{\"page_size\": %" PRIu64 ", \"elapsed_seconds\": %.6f, \"rounds\": %u, \"met\": %s}",
                        i ? ", " : "", s->page_size, (double) s->elapsed_ns / 1e9, s->rounds, s->met ? "true" : "false");
        }
        fputs("]}", f);
}

/* "0,1" as [0, 1]; "" (no node named: any) as []; not in the record (made before it, or it
 * was lost) as null. */
static void print_nodes(const struct metrics_reserve *rec, FILE *f) {
        if (!rec) {
                fputs("null", f);
                return;
        }
        fputc('[', f);
        for (const char *p = rec->nodes; *p; p++)
                fputs(*p == ',' ? ", " : (char[]) { *p, 0 }, f);
        fputc(']', f);
}

static void print_reserve(const struct reserve_found *r, const struct metrics_reserve *rec, FILE *f) {
        struct passwd *pw = getpwuid(r->uid);
        struct group *gr = getgrgid(r->gid);

        fputs("{\"name\": ", f);
        json_string(f, r->name);
        fprintf(f, ", \"page_size\": %" PRIu64 ", \"pages\": %" PRIu64 ", \"nodes\": ", r->page_size, r->pages);
        print_nodes(rec, f);
        fputs(", \"path\": ", f);
        json_string(f, r->path);
        fprintf(f, ", \"uid\": %u, \"owner\": ", (unsigned) r->uid);
        json_string(f, pw ? pw->pw_name : NULL);
        fprintf(f, ", \"gid\": %u, \"group\": ", (unsigned) r->gid);
        json_string(f, gr ? gr->gr_name : NULL);
        fprintf(f, ", \"mode\": \"%04o\", \"use\": \"%s\"}", (unsigned) r->mode, reserve_use_to_string(r->use));
}

void status_print_json(const struct status_data *d, FILE *f) {
        fputs("{\"kind\": \"status\", ", f);
        print_pools(d, f);
        print_journal(d, f);
        print_last_fill(d, f);
        fputs(", \"reservations\": [", f);
        for (int i = 0; i < d->n_reserves; i++) {
                fputs(i ? ", " : "", f);
                print_reserve(&d->reserves[i], status_reserve_record(d, &d->reserves[i]), f);
        }
        fputs("]}\n", f);
}
