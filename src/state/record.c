/* SPDX-License-Identifier: MIT */
/* The record of the last fill (record.h): built by the fill, kept as the state's "last-" lines. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state/record.h"
#include "util/macro.h"
#include "util/number.h"
#include "util/sanitize.h"

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
 * fill_record_format() does not write (too long for @buf, or holding control characters,
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

void fill_record_format(FILE *f, const struct fill_record *r) {
        if (!r->valid)
                return;
        fprintf(f, "last-fill %" PRId64 " %d %" PRIu64 " %" PRIu64 "\n", r->time_ns, r->exit_status, r->elapsed_ns,
                r->fills_total);
        for (size_t i = 0; i < r->n_sizes; i++)
                fprintf(f, "last-size %" PRIu64 " %" PRIu64 " %u %" PRIu64 " %d\n", r->sizes[i].page_size,
                        r->sizes[i].elapsed_ns, r->sizes[i].rounds, r->sizes[i].rounds_total, r->sizes[i].met);
        /* a reservation not made has no path: "-" */
        for (size_t i = 0; i < r->n_reserves; i++)
                fprintf(f, "last-reserve %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %d %s %s\n", r->reserves[i].name,
                        r->reserves[i].page_size, r->reserves[i].pages, r->reserves[i].target, r->reserves[i].state,
                        *r->reserves[i].nodes ? r->reserves[i].nodes : "-",
                        *r->reserves[i].path ? r->reserves[i].path : "-");
        /* the configuration's [Claim]s (FILE: the rest of the line) */
        for (size_t i = 0; i < r->n_claims; i++)
                fprintf(f, "last-claim %s %" PRIu64 " %u %" PRIu64 " %s\n", r->claims[i].name, r->claims[i].page_size,
                        r->claims[i].node, r->claims[i].pages, r->claims[i].file);
        put_text_line(f, "last-summary", r->summary, sizeof(r->summary));
        put_text_line(f, "last-next-boot", r->next_boot, sizeof(r->next_boot));
}

/* The next word of *@line (up to a space or the end) into @buf, *@line moved past it and the one
 * space after it; false for an empty word (two spaces, a space at an end) or one too long */
static bool word(const char **line, char *buf, size_t size) {
        size_t n = strcspn(*line, " ");

        if (n == 0 || n >= size || ((*line)[n] == ' ' && !(*line)[n + 1]))
                return false;
        memcpy(buf, *line, n);
        buf[n] = 0;
        *line += n + ((*line)[n] == ' ');
        return true;
}

/* The next word of *@line as a number of at most @max */
static bool number(const char **line, uint64_t max, uint64_t *ret) {
        char buf[24];

        return word(line, buf, sizeof(buf)) && parse_u64(buf, ret) >= 0 && *ret <= max;
}

/* Each line is its kind's words between single spaces, as the other lines of the state
 * (text.h); a claim's file and a reservation's path are the rest of their lines */
int fill_record_parse_line(struct fill_record *r, const char *line) {
        uint64_t a, b, c, d, e;
        char kind[16], name[64], nodes[128];
        int k;

        if (strncmp(line, "last-", 5) != 0)
                return 0;
        k = take_text_line(line, "last-summary", r->summary, sizeof(r->summary));
        if (k == 0)
                k = take_text_line(line, "last-next-boot", r->next_boot, sizeof(r->next_boot));
        if (k != 0 || !word(&line, kind, sizeof(kind)))
                return k != 0 ? k : -EBADMSG;
        /* a time since the epoch, an exit status as a process has one */
        if (strcmp(kind, "last-fill") == 0 && number(&line, INT64_MAX, &a) && number(&line, 255, &b) &&
            number(&line, UINT64_MAX, &r->elapsed_ns) && number(&line, UINT64_MAX, &r->fills_total) && !*line) {
                r->time_ns = (int64_t) a;
                r->exit_status = (int) b;
                r->valid = true;
                return 1;
        }
        if (strcmp(kind, "last-size") == 0 && number(&line, UINT64_MAX, &a) && number(&line, UINT64_MAX, &b) &&
            number(&line, UINT_MAX, &c) && number(&line, UINT64_MAX, &d) && number(&line, 1, &e) && !*line) {
                if (fill_record_add_size(r, a, b, (unsigned) c, e) < 0)
                        return -ENOMEM;
                r->sizes[r->n_sizes - 1].rounds_total = d;
                return 1;
        }
        if (strcmp(kind, "last-claim") == 0 && word(&line, name, sizeof(name)) && number(&line, UINT64_MAX, &a) &&
            number(&line, UINT_MAX, &b) && number(&line, UINT64_MAX, &c) && *line) {
                k = fill_record_add_claim(r, name, a, (unsigned) b, c, line);
                return k == -EINVAL ? -EBADMSG : k < 0 ? k : 1;
        }
        /* NODES: "0,1", or "-" for none named; PATH: the rest of the line, an absolute path or "-" */
        if (strcmp(kind, "last-reserve") == 0 && word(&line, name, sizeof(name)) && number(&line, UINT64_MAX, &a) &&
            number(&line, UINT64_MAX, &b) && number(&line, UINT64_MAX, &c) && number(&line, _MR_MAX - 1, &d) &&
            word(&line, nodes, sizeof(nodes)) && (strcmp(nodes, "-") == 0 || !nodes[strspn(nodes, "0123456789,")]) &&
            (*line == '/' || strcmp(line, "-") == 0)) {
                k = fill_record_add_reserve(r, name, a, b, c, (enum metrics_reserve_state) d,
                                            strcmp(nodes, "-") == 0 ? "" : nodes, *line == '-' ? "" : line);
                return k == -EINVAL ? -EBADMSG : k < 0 ? k : 1;
        }
        return -EBADMSG;
}
