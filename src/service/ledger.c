/* SPDX-License-Identifier: MIT */
/* ReleaseOnStop='s ledger of the pages the daemon's fills added, per pool. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fill/rundir.h"
#include "kernel/pool.h"
#include "service/ledger.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/number.h"
#include "util/shown.h"

static struct ledger_entry *entry(struct ledger *l, uint64_t page_size, unsigned node, bool add) {
        struct ledger_entry *e;

        for (size_t i = 0; i < l->n; i++)
                if (l->entries[i].page_size == page_size && l->entries[i].node == node)
                        return &l->entries[i];
        if (!add)
                return NULL;
        e = realloc(l->entries, (l->n + 1) * sizeof(*e));
        if (!e)
                return NULL;
        l->entries = e;
        e = &l->entries[l->n++];
        *e = (struct ledger_entry) { .page_size = page_size, .node = node };
        return e;
}

static void entry_seen(struct ledger_entry *e, uint64_t now) {
        if (now < e->last)
                e->ours -= MIN(e->ours, e->last - now);
        e->last = now;
}

struct ledger_entry *ledger_entry(struct ledger *l, uint64_t page_size, unsigned node, bool add) {
        return entry(l, page_size, node, add);
}

int ledger_seen(struct ledger *l, uint64_t page_size, unsigned node, uint64_t now) {
        struct ledger_entry *e = entry(l, page_size, node, false);

        if (e)
                entry_seen(e, now);
        return 0;
}

int ledger_filled(struct ledger *l, uint64_t page_size, unsigned node, uint64_t before, uint64_t after) {
        struct ledger_entry *e;

        (void) ledger_seen(l, page_size, node, before);
        e = entry(l, page_size, node, after > before);
        if (!e)
                return after > before ? -ENOMEM : 0;
        if (after > before)
                e->ours += after - before;
        else
                e->ours -= MIN(e->ours, before - after);
        e->last = after;
        return 0;
}

int ledger_format(FILE *f, const struct ledger *l) {
        bool boot = *l->boot; /* said before the first pool: a ledger of no pages stays empty */

        for (size_t i = 0; i < l->n; i++) {
                if (l->entries[i].ours == 0)
                        continue;
                if (boot)
                        fprintf(f, "boot %s\n", l->boot);
                boot = false;
                fprintf(f, "%" PRIu64 " %u %" PRIu64 " %" PRIu64 "\n", l->entries[i].page_size, l->entries[i].node,
                        l->entries[i].ours, l->entries[i].last);
        }
        return ferror(f) ? -EIO : 0;
}

int ledger_parse(const char *text, struct ledger *ret) {
        struct ledger l = {};

        for (const char *p = text; *p;) {
                struct ledger_entry v, *e;
                size_t n = strcspn(p, "\n");
                char line[128];
                int used = 0;

                if (p[n] != '\n' || n >= sizeof(line))
                        goto bad;
                memcpy(line, p, n);
                line[n] = 0;
                if (p == text && strncmp(line, "boot ", 5) == 0) {
                        if (n - 5 >= sizeof(l.boot) || n == 5 || strspn(line + 5, "0123456789abcdef-") != n - 5)
                                goto bad;
                        memcpy(l.boot, line + 5, n - 4);
                        p += n + 1;
                        continue;
                }
                if (sscanf(line, "%" SCNu64 " %u %" SCNu64 " %" SCNu64 "%n", &v.page_size, &v.node, &v.ours, &v.last,
                           &used) != 4 ||
                    (size_t) used != n || line[0] < '0' || line[0] > '9' || v.ours > v.last ||
                    entry(&l, v.page_size, v.node, false))
                        goto bad;
                e = entry(&l, v.page_size, v.node, true);
                if (!e) {
                        ledger_done(&l);
                        return -ENOMEM;
                }
                *e = v;
                p += n + 1;
        }
        *ret = l;
        return 0;
bad:
        ledger_done(&l);
        return -EBADMSG;
}

/* As ledger_load_named(), with this boot's id as read already (@known, "" where the tree has none),
 * or NULL: read it */
static int load(int rootfd, const char *name, const char *known, struct ledger *ret) {
        _cleanup_(freep) char *text = NULL;
        char path[128], boot[40] = "";
        bool stale = false;
        int r;

        /* this boot's, where the tree has one: what another boot counted is in no pool now */
        if (known)
                (void) snprintf(boot, sizeof(boot), "%s", known);
        else if (read_line_at(rootfd, "proc/sys/kernel/random/boot_id", boot, sizeof(boot)) < 0)
                *boot = 0;
        (void) snprintf(path, sizeof(path), RUNDIR "/%s", name);
        r = read_full_file_at(rootfd, path, 64 * 1024, &text, NULL);
        if (r >= 0)
                r = ledger_parse(text, ret);
        if (r >= 0 && *boot && *ret->boot && strcmp(boot, ret->boot) != 0) {
                log_info("%s/%s counts the pages of an earlier boot (%s), none of this one's: not used", shown_root(),
                         path, ret->boot);
                ledger_done(ret);
                r = -ENOENT;
                stale = true;
        }
        if (r == -ENOENT)
                *ret = (struct ledger) {};
        if (r >= 0 || r == -ENOENT) {
                ret->name = name;
                memcpy(ret->boot, boot, sizeof(boot));
                /* the earlier boot's replaced: said once, not at every fill that looks at it */
                if (r == -ENOENT && stale)
                        (void) ledger_save(rootfd, ret);
                r = 0;
        }
        return r;
}

int ledger_load_named(int rootfd, const char *name, struct ledger *ret) {
        return load(rootfd, name, NULL, ret);
}

int ledger_load(int rootfd, struct ledger *ret) {
        return ledger_load_named(rootfd, LEDGER_NAME, ret);
}

void ledger_load_once(int rootfd, struct ledger *ret) {
        int r = ledger_load_named(rootfd, LEDGER_ONCE_NAME, ret);

        if (r < 0) {
                log_warning_errno(r, "Cannot read %s/" RUNDIR "/" LEDGER_ONCE_NAME
                                     ": %m; hpfilld give-back gives back only what this fill adds",
                                  shown_root());
                *ret = (struct ledger) { .name = LEDGER_ONCE_NAME };
        }
}

uint64_t ledger_give_back_target(uint64_t persistent, uint64_t ours, uint64_t in_use, uint64_t resv) {
        uint64_t floor = in_use > persistent || resv > persistent - in_use ? persistent : in_use + resv;

        return MAX(persistent - MIN(ours, persistent), floor);
}

static int format_any(FILE *f, const void *l) {
        return ledger_format(f, l);
}

int ledger_save(int rootfd, const struct ledger *l) {
        return rundir_replace(rootfd, l->name ?: LEDGER_NAME, format_any, l);
}

int ledger_read_pools(int rootfd, const struct topology *t, uint64_t **ret) {
        uint64_t *p = calloc(t->n_page_sizes * t->n_nodes + 1, sizeof(*p));

        if (!p)
                return -ENOMEM;
        for (size_t s = 0; s < t->n_page_sizes; s++)
                for (size_t i = 0; i < t->n_nodes; i++)
                        if (pool_read_persistent(rootfd, t, t->nodes[i].id, t->page_sizes[s], &p[s * t->n_nodes + i]) < 0)
                                p[s * t->n_nodes + i] = UINT64_MAX;
        *ret = p;
        return 0;
}

/* The other ledger (the daemon's for a one-off's fill, and back) looks at the pools with this
 * fill: pages that left a pool since it last looked leave its count, as they would at its own
 * fill; else give-back would count them as its, where this fill or an admin put others since. */
static void other_sees(int rootfd, const struct ledger *l, const struct topology *t, const uint64_t *before,
                       const uint64_t *after) {
        bool once = l->name && strcmp(l->name, LEDGER_ONCE_NAME) == 0;
        struct ledger other = {};

        /* the same boot as @l's, read when it was (where it was) */
        if (load(rootfd, once ? LEDGER_NAME : LEDGER_ONCE_NAME, *l->boot ? l->boot : NULL, &other) < 0)
                return; /* said by its own fills and give-back */
        if (other.n > 0) {
                for (size_t k = 0; k < t->n_page_sizes * t->n_nodes; k++)
                        for (size_t i = 0; i < 2; i++)
                                if ((i ? after : before)[k] != UINT64_MAX)
                                        (void) ledger_seen(&other, t->page_sizes[k / t->n_nodes],
                                                           t->nodes[k % t->n_nodes].id, (i ? after : before)[k]);
                if (ledger_save(rootfd, &other) < 0)
                        log_warning("Cannot update %s/" RUNDIR "/%s, ignoring", shown_root(), other.name);
        }
        ledger_done(&other);
}

void ledger_count_fill(int rootfd, struct ledger *l, const struct topology *t, const uint64_t *before) {
        _cleanup_(freep) uint64_t *after = NULL;
        int r = ledger_read_pools(rootfd, t, &after);

        if (r >= 0)
                other_sees(rootfd, l, t, before, after);

        for (size_t k = 0; r >= 0 && k < t->n_page_sizes * t->n_nodes; k++)
                /* a pool that could not be read counts nothing: ours are never guessed */
                if (before[k] != UINT64_MAX && after[k] != UINT64_MAX)
                        r = ledger_filled(l, t->page_sizes[k / t->n_nodes], t->nodes[k % t->n_nodes].id, before[k],
                                          after[k]);
        if (r >= 0)
                r = ledger_save(rootfd, l);
        if (r < 0)
                log_warning_errno(r, "Cannot keep the pages this fill added in %s/" RUNDIR "/%s: %m; %s will not give "
                                     "them back", shown_root(), l->name ?: LEDGER_NAME,
                                  l->name && strcmp(l->name, LEDGER_ONCE_NAME) == 0 ? "hpfilld give-back"
                                                                                    : "ReleaseOnStop=");
}

/* One pool, back by ours: a write of its persistent count less them. The kernel frees free pages
 * only (set_max_huge_pages()); ours in use become surplus and leave the pool when their user
 * frees them, so no mapping loses a page. What it did is read back. */
static void release_one(int rootfd, const struct topology *t, struct ledger_entry *e) {
        struct pool_counts now, after;
        uint64_t given;
        char name[32];
        int r;

        r = pool_read_counts(rootfd, t, e->node, e->page_size, &now);
        if (r >= 0) {
                entry_seen(e, pool_counts_persistent(&now));
                if (e->ours == 0) {
                        log_info("ReleaseOnStop=: %s pool of node%u: the pages hpfilld added were taken since, none "
                                 "to give back", page_size_name(e->page_size, name), e->node);
                        return;
                }
                r = pool_write_nr(rootfd, t, e->node, e->page_size, e->last - e->ours);
        }
        if (r >= 0)
                r = pool_read_counts(rootfd, t, e->node, e->page_size, &after);
        if (r < 0) {
                log_warning_errno(r, "ReleaseOnStop=: cannot give back the %s pool of node%u: %m",
                                  page_size_name(e->page_size, name), e->node);
                return;
        }
        given = now.nr > after.nr ? now.nr - after.nr : 0;
        if (after.surplus > now.surplus)
                log_notice("ReleaseOnStop=: %s pool of node%u: %" PRIu64 " page%s given back; %" PRIu64
                           " in use %s surplus now and leave%s the pool when freed",
                           page_size_name(e->page_size, name), e->node, given, plural(given),
                           after.surplus - now.surplus, after.surplus - now.surplus == 1 ? "is" : "are",
                           after.surplus - now.surplus == 1 ? "s" : "");
        else
                log_info("ReleaseOnStop=: %s pool of node%u: %" PRIu64 " page%s given back",
                         page_size_name(e->page_size, name), e->node, given, plural(given));
        entry_seen(e, pool_counts_persistent(&after));
}

void ledger_release(int rootfd, struct ledger *l) {
        struct topology t = {};
        struct error e = {};
        int r;

        r = topology_read(rootfd, &t, &e);
        if (r < 0) {
                log_warning_errno(r, "ReleaseOnStop=: cannot read the machine (%s): nothing given back", e.msg);
                return;
        }
        for (size_t i = 0; i < l->n; i++)
                if (l->entries[i].ours > 0 && topology_has_page_size(&t, l->entries[i].page_size))
                        release_one(rootfd, &t, &l->entries[i]);
        r = ledger_save(rootfd, l);
        if (r < 0)
                log_warning_errno(r, "Cannot update %s/" LEDGER_FILE ": %m, ignoring", shown_root());
        topology_done(&t);
}

uint64_t ledger_ours(const struct ledger *l, uint64_t page_size, unsigned node) {
        const struct ledger_entry *e = entry((struct ledger *) l, page_size, node, false);

        return e ? e->ours : 0;
}

void ledger_given_back(struct ledger *l, uint64_t page_size, unsigned node, uint64_t *given, uint64_t now) {
        struct ledger_entry *e = entry(l, page_size, node, false);
        uint64_t take;

        if (!e)
                return;
        take = MIN(e->ours, *given);
        e->ours -= take;
        *given -= take;
        e->last = now;
}

void ledger_done(struct ledger *l) {
        free(l->entries);
        *l = (struct ledger) {};
}
