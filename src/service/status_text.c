/* SPDX-License-Identifier: MIT */
/* `hpfilld status` for a person: the pools beside the last plan's targets, the last fill and
 * what its exit status means, and every reservation. */
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <string.h>
#include <time.h>

#include "service/exitstatus.h"
#include "service/metrics_out.h"
#include "service/status_data.h"
#include "state/rundir.h"
#include "state/store.h"
#include "util/number.h"
#include "util/sanitize.h"
#include "util/shown.h"

static double gib(uint64_t pages, uint64_t page_size) {
        return (double) pages * (double) page_size / (double) (UINT64_C(1) << 30);
}

static void print_pools(const struct status_data *d, FILE *f) {
        const struct topology *t = &d->t;

        fprintf(f, "%-5s %-7s %10s %10s %10s %10s %10s\n", "SIZE", "NODE", "TARGET", "PAGES", "GiB", "FREE", "SURPLUS");
        for (size_t s = 0; s < t->n_page_sizes; s++) {
                uint64_t ps = t->page_sizes[s], held = 0, wanted = 0;
                bool any_target = false;
                char name[32], target[24];

                page_size_name(ps, name);
                for (size_t i = 0; i < t->n_nodes; i++) {
                        const struct pool_counts *c = &d->counts[s * t->n_nodes + i];
                        const uint64_t *want = status_target(d, ps, t->nodes[i].id);
                        char node[16];

                        (void) snprintf(node, sizeof(node), "node%u", t->nodes[i].id);
                        (void) snprintf(target, sizeof(target), want ? "%" PRIu64 : "-", want ? *want : 0);
                        fprintf(f, "%-5s %-7s %10s %10" PRIu64 " %10.2f %10" PRIu64 " %10" PRIu64 "\n", name, node,
                                target, c->nr, gib(c->nr, ps), c->free, c->surplus);
                        held += c->nr;
                        wanted += want ? *want : 0;
                        any_target |= !!want;
                }
                if (any_target)
                        fprintf(f, "%-5s %-7s target %" PRIu64 " page%s (%.2f GiB), the pools hold %" PRIu64
                                   " (%.2f GiB)\n",
                                name, "all", wanted, plural(wanted), gib(wanted, ps), held, gib(held, ps));
                fprintf(f, "%-5s %-7s reserved %" PRIu64 ", overcommit %" PRIu64 "\n", name, "all",
                        pool_global_counter(d->rootfd, ps, "resv_hugepages"),
                        pool_global_counter(d->rootfd, ps, "nr_overcommit_hugepages"));
        }
}

/* The summary's pools, one per line, and the boot parameters for the short ones */
static void print_outcome(const struct fill_record *rec, FILE *f) {
        fputs("  ", f);
        for (const char *p = rec->summary; *p; p++) {
                if (p[0] == ';' && p[1] == ' ') {
                        fputs("\n ", f);
                        continue;
                }
                fputc(*p, f);
        }
        fputc('\n', f);
        if (*rec->next_boot)
                fprintf(f, "Next boot, for the pools that came back short:\n  %s\n", rec->next_boot);
}

static void print_last_fill(const struct status_data *d, FILE *f) {
        char date[64] = "?";
        time_t when = (time_t) (d->rec.time_ns / 1000000000);
        struct tm tm;

        if (!d->have_record) {
                fprintf(f, "Last fill: none recorded\n");
                return;
        }
        if (!d->rec.valid) {
                fprintf(f, "Last fill: unknown (%s/" RUNDIR "/" STATE_FILE " cannot be read)\n", shown_root());
                return;
        }
        if (localtime_r(&when, &tm))
                (void) strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
        fprintf(f, "Last fill: %s, exit status %d\n", date, d->rec.exit_status);
        fprintf(f, "  exit status %d: %s\n", d->rec.exit_status, exit_status_meaning(d->rec.exit_status));
        print_outcome(&d->rec, f);
}

static void print_journal(const struct status_data *d, FILE *f) {
        for (size_t i = 0; i < d->n_settings; i++) {
                const struct status_setting *o = &d->settings[i];

                if (o->error)
                        fprintf(f, "/%s: raised from %" PRIu64 " to %" PRIu64 " by a command that ended; cannot be read: %s\n",
                                o->path, o->found, o->set, strerror(-o->error));
                else if (strcmp(o->result, "raised") == 0)
                        fprintf(f, "/%s: raised from %" PRIu64 " to %" PRIu64 " by the fill that runs now\n", o->path,
                                o->found, o->set);
                else
                        fprintf(f, "/%s: raised from %" PRIu64 " to %" PRIu64 " by a command that ended, %" PRIu64 " now: %s\n",
                                o->path, o->found, o->set, o->now,
                                o->now == o->set ? "the next command that changes a pool puts it back"
                                                 : "changed since, left as it is");
        }
}

/* "root", or the number where the name is unknown here. */
static const char *user_name(uid_t uid, char buf[static 32]) {
        struct passwd *pw = getpwuid(uid);

        (void) snprintf(buf, 32, "%u", (unsigned) uid);
        return pw ? pw->pw_name : buf;
}

static const char *group_name(gid_t gid, char buf[static 32]) {
        struct group *gr = getgrgid(gid);

        (void) snprintf(buf, 32, "%u", (unsigned) gid);
        return gr ? gr->gr_name : buf;
}

static void print_reserves(const struct status_data *d, FILE *f) {
        if (d->n_reserves == 0) {
                fprintf(f, "Reservations: none\n");
                return;
        }
        fprintf(f, "%-16s %-5s %-7s %8s %8s %-16s %5s %-8s %s\n", "RESERVATION", "SIZE", "NODE", "PAGES", "GiB",
                "OWNER", "MODE", "USE", "FILE");
        for (int i = 0; i < d->n_reserves; i++) {
                const struct reserve_found *r = &d->reserves[i];
                const struct metrics_reserve *rec = status_reserve_record(d, r);
                char size[32], user[32], group[32], owner[80], file[2 * PATH_MAX], node[136], name[4 * NAME_MAX + 1];

                (void) snprintf(owner, sizeof(owner), "%s:%s", user_name(r->uid, user), group_name(r->gid, group));
                (void) snprintf(node, sizeof(node), "%s%s", rec && *rec->nodes ? "node" : "",
                                !rec ? "?" : *rec->nodes ? rec->nodes : "any");
                escape_controls(file, sizeof(file), r->path);
                escape_controls(name, sizeof(name), r->name);
                fprintf(f, "%-16s %-5s %-7s %8" PRIu64 " %8.2f %-16s %04o %-8s %s\n", name,
                        page_size_name(r->page_size, size), node, r->pages, gib(r->pages, r->page_size), owner,
                        (unsigned) r->mode, reserve_use_to_string(r->use), file);
        }
}

/* The claims (hpfilld claim's, the configuration's [Claim]s): their pages per node, where each is said. */
static void print_claims(const struct status_data *d, FILE *f) {
        if (d->rec.n_claims == 0) {
                fprintf(f, "Claims: none\n");
                return;
        }
        fprintf(f, "%-16s %-5s %-7s %8s %8s %s\n", "CLAIM", "SIZE", "NODE", "PAGES", "GiB", "FILE");
        for (size_t i = 0; i < d->rec.n_claims; i++) {
                const struct metrics_claim *c = &d->rec.claims[i];
                char size[32], node[24];

                (void) snprintf(node, sizeof(node), "node%u", c->node);
                /* the record holds no control characters (fill_record_parse()) */
                fprintf(f, "%-16s %-5s %-7s %8" PRIu64 " %8.2f %s\n", c->name, page_size_name(c->page_size, size), node,
                        c->pages, gib(c->pages, c->page_size), c->file);
        }
}

void status_print_text(const struct status_data *d, FILE *f) {
        print_pools(d, f);
        print_journal(d, f);
        if (*d->lock_holder)
                fprintf(f, "The host lock is held by %s\n", d->lock_holder);
        print_last_fill(d, f);
        print_claims(d, f);
        print_reserves(d, f);
}
