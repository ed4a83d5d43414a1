/* SPDX-License-Identifier: MIT */
/* The claims' records (claim_record.h): what each claim's fills added, per pool. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "state/rundir.h"
#include "plan/plan.h"
#include "service/claim_record.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/shown.h"

static size_t n_slots(const struct topology *t) {
        return t->n_page_sizes * t->n_nodes;
}

/* The slot of the pool (@page_size, @node) in the size-major arrays; -1 where @t has none. */
static ssize_t slot(const struct topology *t, uint64_t page_size, unsigned node) {
        for (size_t s = 0; s < t->n_page_sizes; s++)
                for (size_t i = 0; t->page_sizes[s] == page_size && i < t->n_nodes; i++)
                        if (t->nodes[i].id == node)
                                return (ssize_t) (s * t->n_nodes + i);
        return -1;
}

/* The pages on each pool of @c's claims named @name, or of its [Pool]s (@name NULL), added into
 * @pages, as the plan counts them (nodes @t does not have count none). */
static int pages_of(const struct topology *t, const struct config *c, const char *name, uint64_t *pages) {
        _cleanup_(freep) bool *named = calloc(t->n_nodes + 1, sizeof(*named));
        size_t n = name ? c->n_claims : c->n_pools;

        if (!named)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                struct claim_spec pool;
                const struct claim_spec *cl = &c->claims[i];

                if (!name) {
                        pool = (struct claim_spec) { .page_size = c->pools[i].page_size, .amount = c->pools[i].amount };
                        cl = &pool;
                } else if (strcmp(cl->name, name) != 0)
                        continue;
                for (size_t s = 0; s < t->n_page_sizes; s++)
                        if (t->page_sizes[s] == cl->page_size)
                                (void) plan_claim_pages(t, cl, pages + s * t->n_nodes, named, &(struct error) {});
        }
        return 0;
}

static int format_mark(FILE *f, const void *name) {
        fprintf(f, "%s\n", (const char *) name);
        return ferror(f) ? -EIO : 0;
}

int claim_pending_mark(int rootfd, const char *name) {
        char file[80];

        (void) snprintf(file, sizeof(file), CLAIM_PENDING_PREFIX "%s", name);
        return rundir_replace(rootfd, file, format_mark, name);
}

int claim_pending_mark_gone(int rootfd, const struct config *old, const struct config *new) {
        for (size_t i = 0; i < old->n_claims; i++) {
                bool kept = false;
                int r;

                for (size_t k = 0; !kept && k < new->n_claims; k++)
                        kept = strcmp(new->claims[k].name, old->claims[i].name) == 0;
                if (!kept && (r = claim_pending_mark(rootfd, old->claims[i].name)) < 0)
                        return r;
        }
        return 0;
}

int claim_pending(int rootfd, const char *name) {
        _cleanup_(closep) int dirfd = rundir_open_existing(rootfd);
        char file[80];

        if (dirfd == -ENOENT)
                return 0;
        if (dirfd < 0)
                return dirfd;
        (void) snprintf(file, sizeof(file), CLAIM_PENDING_PREFIX "%s", name);
        if (faccessat(dirfd, file, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
                return 1;
        return errno == ENOENT ? 0 : -errno;
}

/* The names of the claims marked given back, into @names (room for @max; those past it wait for
 * a later fill, said): how many, or a negative errno. A mark whose name is no claim's name is
 * not ours: left alone. */
static ssize_t pending_names(int rootfd, char (*names)[64], size_t max) {
        _cleanup_(closep) int dirfd = rundir_open_existing(rootfd);
        struct dirent *de;
        size_t n = 0;
        DIR *d;

        if (dirfd == -ENOENT)
                return 0;
        if (dirfd < 0)
                return dirfd;
        d = fdopendir(dirfd);
        if (!d)
                return -errno;
        dirfd = -1; /* the stream's */
        while ((de = readdir(d))) {
                const char *name = de->d_name + strlen(CLAIM_PENDING_PREFIX);

                if (strncmp(de->d_name, CLAIM_PENDING_PREFIX, strlen(CLAIM_PENDING_PREFIX)) != 0 ||
                    de->d_type != DT_REG || strlen(name) >= sizeof(*names) ||
                    check_name(name, "claim", &(struct error) {}) < 0)
                        continue;
                if (n == max) {
                        log_notice("More than %zu give-backs pending in %s/" RUNDIR ": the rest wait for the next fill",
                                   max, shown_root());
                        break;
                }
                memcpy(names[n++], name, strlen(name) + 1);
        }
        (void) closedir(d);
        return (ssize_t) n;
}

static struct claim_record *find(struct claim_records *recs, const char *name) {
        for (size_t i = 0; i < recs->n; i++)
                if (strcmp(recs->r[i].name, name) == 0)
                        return &recs->r[i];
        return NULL;
}

static void record_read(int rootfd, struct claim_record *rec) {
        int r;

        ledger_done(&rec->l);
        r = ledger_load_named(rootfd, rec->file, &rec->l);
        if (r < 0) {
                log_warning_errno(r, "Cannot read %s/" RUNDIR "/%s: %m; counting none of the pages of claim %s",
                                  shown_root(), rec->file, rec->name);
                rec->l = (struct ledger) { .name = rec->file };
        }
}

/* The record of claim @name, added to @recs (room made for it). */
static int record_add(int rootfd, const struct topology *t, const struct config *c, struct claim_records *recs,
                      const char *name, bool configured) {
        struct claim_record *rec;
        int r = 0;

        if (find(recs, name))
                return 0;
        /* the array never moves: each ledger names its record's file */
        rec = &recs->r[recs->n++];
        memcpy(rec->name, name, strlen(name) + 1);
        (void) snprintf(rec->file, sizeof(rec->file), CLAIM_RECORD_PREFIX "%s", name);
        rec->configured = configured;
        rec->pages = calloc(n_slots(t) + 1, sizeof(*rec->pages));
        if (!rec->pages)
                return -ENOMEM;
        if (configured)
                r = pages_of(t, c, name, rec->pages);
        if (r >= 0)
                record_read(rootfd, rec);
        return r;
}

/* Pending give-backs read at a time: a mark past them waits for the next fill (said). */
#define CLAIM_PENDING_MAX 256

/* Each record sees the pools at @now (size-major, UINT64_MAX where not read): pages that left a
 * pool since it last looked were its (as a ledger counts them), and no give-back takes them
 * again (those of a fill that died after its writes, before it counted them). */
static void records_see(const struct topology *t, struct claim_records *recs, const uint64_t *now) {
        for (size_t i = 0; i < recs->n; i++)
                for (size_t j = 0; j < recs->r[i].l.n; j++) {
                        struct ledger_entry *e = &recs->r[i].l.entries[j];
                        ssize_t k = slot(t, e->page_size, e->node);

                        if (k >= 0 && now[k] != UINT64_MAX)
                                (void) ledger_seen(&recs->r[i].l, e->page_size, e->node, now[k]);
                }
}

int claim_records_load(int rootfd, const struct topology *t, const struct config *c, struct claim_records *ret) {
        _cleanup_(freep) char (*pending)[64] = calloc(CLAIM_PENDING_MAX, sizeof(*pending));
        struct claim_records recs = {};
        ssize_t n_pending = 0;
        int r;

        recs.r = calloc(c->n_claims + CLAIM_PENDING_MAX + 1, sizeof(*recs.r));
        recs.pool_pages = calloc(n_slots(t) + 1, sizeof(*recs.pool_pages));
        r = recs.r && recs.pool_pages && pending ? pages_of(t, c, NULL, recs.pool_pages) : -ENOMEM;
        for (size_t i = 0; r >= 0 && i < c->n_claims; i++)
                r = record_add(rootfd, t, c, &recs, c->claims[i].name, true);
        if (r >= 0) {
                n_pending = pending_names(rootfd, pending, CLAIM_PENDING_MAX);
                if (n_pending < 0)
                        log_warning_errno((int) n_pending, "Cannot read the give-backs pending in %s/" RUNDIR
                                          ": %m; the next fill tries again", shown_root());
        }
        for (ssize_t i = 0; r >= 0 && i < n_pending; i++)
                r = record_add(rootfd, t, c, &recs, pending[i], false);
        if (r < 0) {
                claim_records_done(&recs);
                return r;
        }
        *ret = recs;
        return 0;
}

int claim_records_see(int rootfd, const struct topology *t, struct claim_records *recs) {
        _cleanup_(freep) uint64_t *now = NULL;
        int r = ledger_read_pools(rootfd, t, &now);

        if (r >= 0)
                records_see(t, recs, now);
        return r;
}

void claim_records_reread(int rootfd, struct claim_records *recs) {
        for (size_t i = 0; i < recs->n; i++)
                record_read(rootfd, &recs->r[i]);
}

/* What record @rec may give back of the pool in @slot: all of a claim given back, what a claim
 * made smaller holds beyond its pages now. */
static uint64_t beyond(const struct claim_record *rec, const struct ledger_entry *e, ssize_t k) {
        uint64_t pages = rec->configured && k >= 0 ? rec->pages[k] : 0;

        return e->ours > pages ? e->ours - pages : 0;
}

int claim_records_gone(const struct topology *t, const struct claim_records *recs, struct claim_spec **ret,
                       size_t *ret_n) {
        struct claim_spec *gone = NULL;
        size_t n = 0;

        for (size_t i = 0; i < recs->n; i++)
                for (size_t s = 0; s < t->n_page_sizes; s++) {
                        const struct claim_record *rec = &recs->r[i];
                        struct node_amount *nodes = calloc(t->n_nodes, sizeof(*nodes));
                        struct claim_spec *g;
                        size_t k = 0;

                        if (!nodes)
                                goto nomem;
                        for (size_t j = 0; j < rec->l.n; j++) {
                                const struct ledger_entry *e = &rec->l.entries[j];
                                ssize_t at = slot(t, e->page_size, e->node);
                                uint64_t back = beyond(rec, e, at);

                                if (e->page_size == t->page_sizes[s] && at >= 0 && back > 0)
                                        nodes[k++] = (struct node_amount) { .node = e->node, .value = back };
                        }
                        g = k > 0 ? realloc(gone, (n + 1) * sizeof(*gone)) : NULL;
                        if (!g) {
                                free(nodes);
                                if (k == 0)
                                        continue;
                                goto nomem;
                        }
                        gone = g;
                        gone[n] = (struct claim_spec) {
                                .page_size = t->page_sizes[s],
                                .amount = { .kind = AMOUNT_PER_NODE, .nodes = nodes, .n_nodes = k },
                        };
                        memcpy(gone[n].name, rec->name, sizeof(gone[n].name));
                        (void) snprintf(gone[n].origin, sizeof(gone[n].origin), "claim %s (given back)", rec->name);
                        (void) snprintf(gone[n].file, sizeof(gone[n].file), RUNDIR "/%s", rec->file);
                        n++;
                }
        *ret = gone;
        *ret_n = n;
        return 0;
nomem:
        for (size_t i = 0; i < n; i++)
                amount_done(&gone[i].amount);
        free(gone);
        return -ENOMEM;
}

void claim_records_filled(struct claim_records *recs, size_t k, uint64_t page_size, unsigned node, uint64_t before,
                          uint64_t after) {
        uint64_t held = 0;

        /* pages that left since a record last looked were its (as a ledger counts them) */
        for (size_t i = 0; i < recs->n; i++) {
                struct ledger_entry *e = ledger_entry(&recs->r[i].l, page_size, node, false);

                if (e) {
                        (void) ledger_seen(&recs->r[i].l, page_size, node, before);
                        held += e->ours;
                }
        }
        if (after < before) {
                uint64_t left = before - after;

                /* given back: the claims given back's first, then the smaller ones' beyond their pages */
                for (int pass = 0; pass < 2; pass++)
                        for (size_t i = 0; left > 0 && i < recs->n; i++) {
                                struct ledger_entry *e = ledger_entry(&recs->r[i].l, page_size, node, false);
                                uint64_t take;

                                if (!e || recs->r[i].configured != (pass == 1))
                                        continue;
                                take = MIN(left, beyond(&recs->r[i], e, (ssize_t) k));
                                e->ours -= take;
                                left -= take;
                        }
        } else if (after > before) {
                /* added: the [Pool]'s first, up to its target, then each claim's up to its pages */
                uint64_t came = after - before, pool_has = before - MIN(before, held);

                came -= MIN(came, recs->pool_pages[k] > pool_has ? recs->pool_pages[k] - pool_has : 0);
                for (size_t i = 0; came > 0 && i < recs->n; i++) {
                        struct claim_record *rec = &recs->r[i];
                        struct ledger_entry *e;
                        uint64_t take;

                        if (!rec->configured || rec->pages[k] == 0)
                                continue;
                        e = ledger_entry(&rec->l, page_size, node, true);
                        if (!e)
                                continue; /* out of memory: counts none, never more */
                        take = MIN(came, rec->pages[k] > e->ours ? rec->pages[k] - e->ours : 0);
                        e->ours += take;
                        came -= take;
                }
        }
        for (size_t i = 0; i < recs->n; i++) {
                struct ledger_entry *e = ledger_entry(&recs->r[i].l, page_size, node, false);

                if (e) {
                        e->ours = MIN(e->ours, after);
                        e->last = after;
                }
        }
}

/* The record's file as its ledger says, removed where it holds no page. */
static int record_save(int rootfd, const struct claim_record *rec) {
        _cleanup_(closep) int dirfd = -1;

        for (size_t i = 0; i < rec->l.n; i++)
                if (rec->l.entries[i].ours > 0)
                        return ledger_save(rootfd, &rec->l);
        dirfd = rundir_open(rootfd);
        if (dirfd < 0)
                return dirfd;
        return unlinkat(dirfd, rec->file, 0) < 0 && errno != ENOENT ? -errno : 0;
}

void claim_records_before(int rootfd, const struct topology *t, struct claim_records *recs, const uint64_t *before) {
        records_see(t, recs, before);
        for (size_t i = 0; i < recs->n; i++) {
                int r = record_save(rootfd, &recs->r[i]);

                if (r < 0)
                        log_warning_errno(r, "Cannot write %s/" RUNDIR "/%s: %m; a fill that dies before it counts "
                                          "what it gave back of claim %s may give back as many again", shown_root(),
                                          recs->r[i].file, recs->r[i].name);
        }
}

void claim_pending_clear(int rootfd, const char *name) {
        _cleanup_(closep) int dirfd = rundir_open(rootfd);
        char file[80];

        (void) snprintf(file, sizeof(file), CLAIM_PENDING_PREFIX "%s", name);
        if (dirfd < 0 || (unlinkat(dirfd, file, 0) < 0 && errno != ENOENT))
                log_warning_errno(dirfd < 0 ? dirfd : -errno, "Cannot remove %s/" RUNDIR "/%s: %m; the next fill gives "
                                  "back claim %s again (nothing more than its record)", shown_root(), file, name);
}

void claim_records_count(int rootfd, const struct topology *t, struct claim_records *recs, const uint64_t *before,
                         bool ran, const char *made) {
        _cleanup_(freep) uint64_t *after = NULL;
        int r;

        r = ledger_read_pools(rootfd, t, &after);
        for (size_t k = 0; r >= 0 && k < n_slots(t); k++)
                /* a pool that could not be read counts nothing: a claim's pages are never guessed */
                if (before[k] != UINT64_MAX && after[k] != UINT64_MAX)
                        claim_records_filled(recs, k, t->page_sizes[k / t->n_nodes], t->nodes[k % t->n_nodes].id,
                                             before[k], after[k]);
        for (size_t i = 0; r >= 0 && i < recs->n; i++) {
                struct claim_record *rec = &recs->r[i];
                int q;

                /* the give-back done: what it could not give back (in use) is nobody's claim now */
                for (size_t j = 0; ran && j < rec->l.n; j++) {
                        struct ledger_entry *e = &rec->l.entries[j];
                        ssize_t k = slot(t, e->page_size, e->node);

                        if (!rec->configured || k >= 0)
                                e->ours -= beyond(rec, e, k);
                }
                q = record_save(rootfd, rec);
                if (q < 0)
                        log_warning_errno(q, "Cannot write %s/" RUNDIR "/%s: %m; unclaim %s may give back less than it got",
                                          shown_root(), rec->file, rec->name);
                /* one given back is done once it ran; the mark of a claim this fill's configuration
                 * has stays (that configuration may be older than the files: a daemon's first fill,
                 * read before an unclaim removed the file), but for the claim made anew */
                else if (rec->configured ? made && strcmp(made, rec->name) == 0 : ran)
                        claim_pending_clear(rootfd, rec->name);
        }
        if (r < 0)
                log_warning_errno(r, "Out of memory: the claims' records do not count this fill");
}

void claim_records_done(struct claim_records *recs) {
        for (size_t i = 0; recs->r && i < recs->n; i++) {
                ledger_done(&recs->r[i].l);
                free(recs->r[i].pages);
        }
        free(recs->r);
        free(recs->pool_pages);
        *recs = (struct claim_records) {};
}

void claim_records_after_give_back(int rootfd, const struct topology *t, const struct config *c) {
        _cleanup_(claim_records_done) struct claim_records recs = {};
        _cleanup_(freep) uint64_t *now = NULL;
        int r;

        r = claim_records_load(rootfd, t, c, &recs);
        if (r >= 0)
                r = ledger_read_pools(rootfd, t, &now);
        if (r < 0) {
                log_warning_errno(r, "Out of memory: the claims' records do not see this give-back");
                return;
        }
        for (size_t i = 0; i < recs.n; i++) {
                struct claim_record *rec = &recs.r[i];

                for (size_t j = 0; j < rec->l.n; j++) {
                        struct ledger_entry *e = &rec->l.entries[j];
                        ssize_t k = slot(t, e->page_size, e->node);

                        if (!rec->configured)
                                e->ours = 0;
                        else if (k >= 0 && now[k] != UINT64_MAX) {
                                e->ours = MIN(e->ours, now[k]);
                                e->last = now[k];
                        }
                }
                r = record_save(rootfd, rec);
                if (r < 0)
                        log_warning_errno(r, "Cannot write %s/" RUNDIR "/%s: %m", shown_root(), rec->file);
                else if (!rec->configured)
                        claim_pending_clear(rootfd, rec->name);
        }
}
