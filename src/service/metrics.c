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
        pool_metric(f, m, "hpfilld_pool_target_pages", "Huge pages the last fill's plan asked for, per size and node.",
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
               "Pages a claim adds to the target of the pool on the node, in the last fill's plan");
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

/* The fill record */

#define GROW(array, n) ({                                                               \
        __typeof__(array) _p = realloc((array), ((n) + 1) * sizeof(*(array)));          \
        if (_p)                                                                          \
                (array) = _p;                                                           \
        _p ? &(array)[(n)++] : NULL;                                                    \
})

int fill_record_add_size(struct fill_record *r, uint64_t page_size, uint64_t elapsed_ns, unsigned rounds, bool met) {
        struct metrics_size *s = GROW(r->sizes, r->n_sizes);

        if (!s)
                return -ENOMEM;
        *s = (struct metrics_size) { .page_size = page_size, .filled = true, .elapsed_ns = elapsed_ns,
                                     .rounds = rounds, .rounds_total = rounds, .met = met };
        return 0;
}

int fill_record_add_target(struct fill_record *r, uint64_t page_size, unsigned node, uint64_t target) {
        __typeof__(r->targets) t = GROW(r->targets, r->n_targets);

        if (!t)
                return -ENOMEM;
        t->page_size = page_size;
        t->node = node;
        t->target = target;
        return 0;
}

int fill_record_add_reserve(struct fill_record *r, const char *name, uint64_t page_size, uint64_t pages,
                            uint64_t target, enum metrics_reserve_state state, const char *nodes, const char *path) {
        struct metrics_reserve *rs;

        /* control characters (escape_controls()'s) neither in the record nor out of it: status
         * prints both to terminals */
        if (strlen(name) >= sizeof(rs->name) || strlen(path) >= sizeof(rs->path) || has_controls(path) || has_controls(name) ||
            strlen(nodes) >= sizeof(rs->nodes) || nodes[strspn(nodes, "0123456789,")])
                return -EINVAL;
        rs = GROW(r->reserves, r->n_reserves);
        if (!rs)
                return -ENOMEM;
        *rs = (struct metrics_reserve) { .page_size = page_size, .pages = pages, .target = target, .state = state };
        strcpy(rs->name, name);
        strcpy(rs->nodes, nodes);
        strcpy(rs->path, path);
        return 0;
}

int fill_record_add_claim(struct fill_record *r, const char *name, uint64_t page_size, unsigned node, uint64_t pages,
                          const char *file) {
        struct metrics_claim *c;

        if (strlen(name) >= sizeof(c->name) || strlen(file) >= sizeof(c->file) || !*name || !*file ||
            strchr(name, ' ') || has_controls(name) || has_controls(file))
                return -EINVAL;
        c = GROW(r->claims, r->n_claims);
        if (!c)
                return -ENOMEM;
        *c = (struct metrics_claim) { .page_size = page_size, .node = node, .pages = pages };
        strcpy(c->name, name);
        strcpy(c->file, file);
        return 0;
}

void fill_record_done(struct fill_record *r) {
        free(r->claims);
        free(r->sizes);
        free(r->targets);
        free(r->reserves);
        *r = (struct fill_record) {};
}

/* "KEY TEXT", on one line whatever @text holds (control characters as \\ooo, cut to what the
 * reader takes: a record that is written always parses); nothing for an empty one */
static void put_text_line(FILE *f, const char *key, const char *text, size_t size) {
        char buf[FILL_RECORD_TEXT_MAX];

        if (!*text)
                return;
        escape_controls(buf, MIN(size, sizeof(buf)), text);
        fprintf(f, "%s %s\n", key, buf);
}

/* The rest of "KEY TEXT" into @buf: 1 if @line is one, 0 if not, -EBADMSG for a text that
 * fill_record_write() does not write (too long for @buf, or holding control characters,
 * which `hpfilld status` would print to a terminal). */
static int take_text_line(const char *line, const char *key, char *buf, size_t size) {
        size_t k = strlen(key), len;

        if (strncmp(line, key, k) != 0 || line[k] != ' ')
                return 0;
        line += k + 1;
        len = strlen(line);
        if (len >= size || has_controls(line))
                return -EBADMSG;
        memcpy(buf, line, len + 1);
        return 1;
}

int fill_record_write(FILE *f, const struct fill_record *r) {
        fprintf(f, "fill %" PRId64 " %d %" PRIu64 " %" PRIu64 "\n", r->time_ns, r->exit_status, r->elapsed_ns,
                r->fills_total);
        for (size_t i = 0; i < r->n_sizes; i++)
                fprintf(f, "size %" PRIu64 " %" PRIu64 " %u %" PRIu64 " %d\n", r->sizes[i].page_size,
                        r->sizes[i].elapsed_ns, r->sizes[i].rounds, r->sizes[i].rounds_total, r->sizes[i].met);
        for (size_t i = 0; i < r->n_targets; i++)
                fprintf(f, "target %" PRIu64 " %u %" PRIu64 "\n", r->targets[i].page_size, r->targets[i].node,
                        r->targets[i].target);
        for (size_t i = 0; i < r->n_reserves; i++)
                fprintf(f, "reserve %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %d %s %s\n", r->reserves[i].name,
                        r->reserves[i].page_size, r->reserves[i].pages, r->reserves[i].target, r->reserves[i].state,
                        *r->reserves[i].nodes ? r->reserves[i].nodes : "-", r->reserves[i].path);
        for (size_t i = 0; i < r->n_claims; i++)
                fprintf(f, "claim %s %" PRIu64 " %u %" PRIu64 " %s\n", r->claims[i].name, r->claims[i].page_size,
                        r->claims[i].node, r->claims[i].pages, r->claims[i].file);
        put_text_line(f, "summary", r->summary, sizeof(r->summary));
        put_text_line(f, "next_boot", r->next_boot, sizeof(r->next_boot));
        fputs("end\n", f);
        return ferror(f) ? -EIO : 0;
}

static int parse_line(const char *line, struct fill_record *r, bool *end) {
        uint64_t a, b, c, d;
        unsigned u;
        int i, k, n = 0;
        char name[64], nodes[128];

        /* a time since the epoch, an exit status as a process has one */
        if (sscanf(line, "fill %" SCNd64 " %d %" SCNu64 " %" SCNu64 "%n", &r->time_ns, &r->exit_status,
                   &r->elapsed_ns, &r->fills_total, &n) == 4 && !line[n] && r->time_ns >= 0 && r->exit_status >= 0 &&
            r->exit_status <= 255) {
                r->valid = true;
                return 0;
        }
        if (sscanf(line, "size %" SCNu64 " %" SCNu64 " %u %" SCNu64 " %d%n", &a, &b, &u, &c, &i, &n) == 5 && !line[n] &&
            (i == 0 || i == 1)) {
                if (fill_record_add_size(r, a, b, u, i) < 0)
                        return -ENOMEM;
                r->sizes[r->n_sizes - 1].rounds_total = c;
                return 0;
        }
        if (sscanf(line, "target %" SCNu64 " %u %" SCNu64 "%n", &a, &u, &b, &n) == 3 && !line[n])
                return fill_record_add_target(r, a, u, b);
        k = take_text_line(line, "summary", r->summary, sizeof(r->summary));
        if (k == 0)
                k = take_text_line(line, "next_boot", r->next_boot, sizeof(r->next_boot));
        if (k != 0)
                return MIN(k, 0);
        if (strcmp(line, "end") == 0) {
                *end = true;
                return 0;
        }
        /* FILE: the rest of the line */
        if (sscanf(line, "claim %63s %" SCNu64 " %u %" SCNu64 " %n", name, &a, &u, &b, &n) == 4 && n > 0 && line[n]) {
                k = fill_record_add_claim(r, name, a, u, b, line + n);
                return k == -EINVAL ? -EBADMSG : k;
        }
        /* NODES: "0,1", or "-" for none named */
        if (sscanf(line, "reserve %63s %" SCNu64 " %" SCNu64 " %" SCNu64 " %d %127[-0-9,] %n", name, &a, &b, &c, &i,
                   nodes, &n) == 6 &&
            n > 0 && i >= 0 && i < _MR_MAX && line[n] == '/') {
                d = (uint64_t) i;
                k = fill_record_add_reserve(r, name, a, b, c, (enum metrics_reserve_state) d,
                                            strcmp(nodes, "-") == 0 ? "" : nodes, line + n);
                return k == -EINVAL ? -EBADMSG : k; /* not one fill_record_write() writes */
        }
        return -EBADMSG;
}

int fill_record_parse(const char *text, struct fill_record *ret) {
        struct fill_record r = {};
        char line[4096 + 256];
        bool end = false;

        while (*text && !end) {
                size_t len = strcspn(text, "\n");
                int k;

                if (len >= sizeof(line)) {
                        fill_record_done(&r);
                        return -EBADMSG;
                }
                memcpy(line, text, len);
                line[len] = 0;
                text += len + (text[len] == '\n');
                k = len ? parse_line(line, &r, &end) : 0;
                if (k < 0) {
                        fill_record_done(&r);
                        return k;
                }
        }
        if (!r.valid || !end || *text) {
                fill_record_done(&r);
                return -EBADMSG;
        }
        *ret = r;
        return 0;
}
