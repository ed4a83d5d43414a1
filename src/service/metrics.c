/* SPDX-License-Identifier: MIT */
/* The pools and the last fill in Prometheus's text exposition format, and the fill record it
 * comes from. Pure: no I/O but the FILE it is given. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "service/metrics.h"
#include "util/macro.h"
#include "util/number.h"
#include "util/sanitize.h"

static const char *const reserve_state_names[_MR_MAX] = {
        [MR_READY] = "ready",
        [MR_SHORT] = "short",
        [MR_FAILED] = "failed",
        [MR_ABSENT] = "absent",
};

/* A label value: backslash and double quote escaped, as the format wants, and each control
 * (escape_controls()'s: C0, DEL, C1, bytes that are not UTF-8) as \ooo, backslash escaped in
 * turn: a terminal that shows the metrics (hpfilld status --format=prometheus) gets none. */
static void put_label_value(FILE *f, const char *s) {
        while (*s) {
                size_t n = text_plain_len(s);

                if (n == 0)
                        fprintf(f, "\\\\%03o", (unsigned char) *s++);
                else if (*s == '\\' || *s == '"')
                        fprintf(f, "\\%c", *s++);
                else {
                        (void) fwrite(s, 1, n, f);
                        s += n;
                }
        }
}

static void header(FILE *f, const char *name, const char *type, const char *help) {
        fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void seconds(FILE *f, uint64_t ns) {
        fprintf(f, "%" PRIu64 ".%09" PRIu64 "\n", ns / 1000000000, ns % 1000000000);
}

enum pool_field { PF_TOTAL, PF_FREE, PF_SURPLUS, PF_TARGET };

static void pool_metric(FILE *f, const struct metrics *m, const char *name, const char *help, enum pool_field field) {
        bool any = false;

        for (size_t i = 0; i < m->n_pools; i++)
                any |= field != PF_TARGET || m->pools[i].has_target;
        if (!any)
                return;
        header(f, name, "gauge", help);
        for (size_t i = 0; i < m->n_pools; i++) {
                const struct metrics_pool *p = &m->pools[i];
                const uint64_t v[] = { p->total, p->free, p->surplus, p->target };
                char size[32];

                if (field == PF_TARGET && !p->has_target)
                        continue;
                fprintf(f, "%s{size=\"%s\",node=\"%u\"} %" PRIu64 "\n", name, page_size_name(p->page_size, size),
                        p->node, v[field]);
        }
}

static void format_pools(FILE *f, const struct metrics *m) {
        char size[32];

        header(f, "hpfilld_page_size_bytes", "gauge", "The size of a huge page of each pool, in bytes.");
        for (size_t s = 0; s < m->n_sizes; s++)
                fprintf(f, "hpfilld_page_size_bytes{size=\"%s\"} %" PRIu64 "\n",
                        page_size_name(m->sizes[s].page_size, size), m->sizes[s].page_size);
        pool_metric(f, m, "hpfilld_pool_pages", "Huge pages in the pool of each size and node (nr_hugepages).",
                    PF_TOTAL);
        pool_metric(f, m, "hpfilld_pool_free_pages", "Huge pages of the pool that no mapping uses (free_hugepages).",
                    PF_FREE);
        pool_metric(f, m, "hpfilld_pool_surplus_pages",
                    "Surplus huge pages of the pool, beyond the persistent ones (surplus_hugepages).", PF_SURPLUS);
        pool_metric(f, m, "hpfilld_pool_target_pages", "Huge pages hpfilld's owners ask of the pool, per size and node: the configuration's (or a one-off run's) target and the claims' on top.",
                    PF_TARGET);
        header(f, "hpfilld_pool_reserved_pages", "gauge",
               "Huge pages promised to mappings but not yet faulted in (resv_hugepages, all nodes).");
        for (size_t s = 0; s < m->n_sizes; s++)
                fprintf(f, "hpfilld_pool_reserved_pages{size=\"%s\"} %" PRIu64 "\n",
                        page_size_name(m->sizes[s].page_size, size), m->sizes[s].reserved);
}

static void format_fill_sizes(FILE *f, const struct fill_record *r) {
        char size[32];

        header(f, "hpfilld_last_fill_pool_duration_seconds", "gauge", "How long the last fill took for each page size.");
        for (size_t s = 0; s < r->n_sizes; s++) {
                fprintf(f, "hpfilld_last_fill_pool_duration_seconds{size=\"%s\"} ",
                        page_size_name(r->sizes[s].page_size, size));
                seconds(f, r->sizes[s].elapsed_ns);
        }
        header(f, "hpfilld_last_fill_pool_met", "gauge",
               "Whether the last fill reached the minimum share of the pool's target (1) or not (0).");
        for (size_t s = 0; s < r->n_sizes; s++)
                fprintf(f, "hpfilld_last_fill_pool_met{size=\"%s\"} %d\n", page_size_name(r->sizes[s].page_size, size),
                        r->sizes[s].met);
        header(f, "hpfilld_last_fill_retry_rounds", "gauge",
               "Retry rounds (compaction, then a new try) the last fill needed for nodes that came back short.");
        for (size_t s = 0; s < r->n_sizes; s++)
                fprintf(f, "hpfilld_last_fill_retry_rounds{size=\"%s\"} %u\n",
                        page_size_name(r->sizes[s].page_size, size), r->sizes[s].rounds);
        header(f, "hpfilld_fill_retry_rounds_total", "counter", "Retry rounds of every fill since boot.");
        for (size_t s = 0; s < r->n_sizes; s++)
                fprintf(f, "hpfilld_fill_retry_rounds_total{size=\"%s\"} %" PRIu64 "\n",
                        page_size_name(r->sizes[s].page_size, size), r->sizes[s].rounds_total);
}

static void format_fill(FILE *f, const struct fill_record *r) {
        header(f, "hpfilld_last_fill_timestamp_seconds", "gauge", "When the last fill ended, in seconds since the epoch.");
        fprintf(f, "hpfilld_last_fill_timestamp_seconds %" PRId64 ".%03" PRId64 "\n", r->time_ns / 1000000000,
                (r->time_ns % 1000000000) / 1000000);
        header(f, "hpfilld_last_fill_duration_seconds", "gauge", "How long the last fill took, all pools.");
        fputs("hpfilld_last_fill_duration_seconds ", f);
        seconds(f, r->elapsed_ns);
        header(f, "hpfilld_last_fill_exit_status", "gauge",
               "The last fill's exit status: 0 met, 1 failed or interrupted, 2 bad configuration, 3 short of the minimum.");
        fprintf(f, "hpfilld_last_fill_exit_status %d\n", r->exit_status);
        header(f, "hpfilld_last_fill_success", "gauge", "Whether the last fill met every target (1) or not (0).");
        fprintf(f, "hpfilld_last_fill_success %d\n", r->exit_status == 0);
        header(f, "hpfilld_fills_total", "counter", "Fills since boot.");
        fprintf(f, "hpfilld_fills_total %" PRIu64 "\n", r->fills_total);
        if (r->n_sizes > 0)
                format_fill_sizes(f, r);
}

static void format_claims(FILE *f, const struct metrics_claim *c, size_t n) {
        header(f, "hpfilld_claim_pages", "gauge",
               "Pages a claim adds to the target of the pool on the node: hpfilld claim's, and the configuration's [Claim]s as the last fill planned them");
        for (size_t i = 0; i < n; i++) {
                char size[32];

                fputs("hpfilld_claim_pages{claim=\"", f);
                put_label_value(f, c[i].name);
                fprintf(f, "\",size=\"%s\",node=\"%u\",file=\"", page_size_name(c[i].page_size, size), c[i].node);
                put_label_value(f, c[i].file);
                fprintf(f, "\"} %" PRIu64 "\n", c[i].pages);
        }
}

static void format_reserves(FILE *f, const struct metrics_reserve *rs, size_t n) {
        char size[32];

        header(f, "hpfilld_reservation_pages", "gauge", "Huge pages a reservation holds, and its page size.");
        for (size_t i = 0; i < n; i++) {
                fputs("hpfilld_reservation_pages{name=\"", f);
                put_label_value(f, rs[i].name);
                fprintf(f, "\",size=\"%s\"} %" PRIu64 "\n", page_size_name(rs[i].page_size, size), rs[i].pages);
        }
        header(f, "hpfilld_reservation_target_pages", "gauge", "Huge pages the reservation asked for.");
        for (size_t i = 0; i < n; i++) {
                fputs("hpfilld_reservation_target_pages{name=\"", f);
                put_label_value(f, rs[i].name);
                fprintf(f, "\",size=\"%s\"} %" PRIu64 "\n", page_size_name(rs[i].page_size, size), rs[i].target);
        }
        header(f, "hpfilld_reservation_state", "gauge",
               "A reservation's state: 1 for the state it is in (ready, short, failed, absent), 0 for the others.");
        for (size_t i = 0; i < n; i++)
                for (int s = 0; s < _MR_MAX; s++) {
                        fputs("hpfilld_reservation_state{name=\"", f);
                        put_label_value(f, rs[i].name);
                        fprintf(f, "\",state=\"%s\"} %d\n", reserve_state_names[s], rs[i].state == (enum metrics_reserve_state) s);
                }
}

int metrics_format_journal(FILE *f, const struct status_setting *set, size_t n) {
        header(f, "hpfilld_journal_entry", "gauge",
               "A host setting a command that ended left changed, 1 each: stale (the next command puts it back), "
               "changed (changed since: left), failed (cannot be read).");
        for (size_t i = 0; i < n; i++) {
                fputs("hpfilld_journal_entry{entry=\"setting\",path=\"/", f);
                put_label_value(f, set[i].path);
                fprintf(f, "\",result=\"%s\"} 1\n", set[i].result);
        }
        return ferror(f) ? -EIO : 0;
}

int metrics_format(FILE *f, const struct metrics *m) {
        header(f, "hpfilld_build_info", "gauge", "hpfilld's version, as a label; the value is always 1.");
        fputs("hpfilld_build_info{version=\"", f);
        put_label_value(f, m->version ? m->version : "");
        fputs("\"} 1\n", f);
        format_pools(f, m);
        if (m->fill && m->fill->valid)
                format_fill(f, m->fill);
        if (m->n_reserves > 0)
                format_reserves(f, m->reserves, m->n_reserves);
        if (m->fill && m->fill->n_claims > 0)
                format_claims(f, m->fill->claims, m->fill->n_claims);
        return ferror(f) ? -EIO : 0;
}

