/* SPDX-License-Identifier: MIT */
/* Where the metrics go: the fill record in /run/hpfilld (so that `status` can show the last
 * fill: its outcome, targets and timings), the textfile for node_exporter, and stdout. */
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "config.h"
#include "state/rundir.h"
#include "state/store.h"
#include "kernel/pool.h"
#include "util/beneath.h"
#include "util/shown.h"
#include "kernel/topology.h"
#include "service/metrics_out.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/replace.h"
#include "util/trusted_dir.h"

/* Whether directory @dirfd is run/hpfilld below @rootfd */
static bool in_rundir(int rootfd, int dirfd) {
        _cleanup_(closep) int run = rundir_open_existing(rootfd);
        struct stat a, b;

        return run >= 0 && fstat(dirfd, &a) == 0 && fstat(run, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static int refuse_rundir(const char *path, struct error *e) {
        return error_set(e, -EINVAL, "MetricsFile=, --metrics-file %s: in %s/" RUNDIR ", hpfilld's own directory: refused",
                         path, shown_root());
}

/* @path's directory (trusted_dir_open()), never run/hpfilld below @rootfd */
static int open_target(int rootfd, const char *path, const char **ret_name, struct error *e) {
        _cleanup_(closep) int dirfd = trusted_dir_open(path, ret_name, e);

        if (dirfd >= 0 && in_rundir(rootfd, dirfd))
                return refuse_rundir(path, e);
        return TAKE_FD(dirfd);
}

int metrics_file_check(int rootfd, const char *path, bool missing_ok, struct error *e) {
        _cleanup_(closep) int dirfd = -1;
        struct error why = {};
        const char *name;

        if (!*path)
                return 0;
        dirfd = trusted_dir_open(path, &name, &why);
        if (dirfd == -ENOENT && missing_ok)
                return 0;
        if (dirfd < 0)
                return error_set(e, dirfd, "MetricsFile=, --metrics-file %s: %s: refused", path, why.msg);
        return in_rundir(rootfd, dirfd) ? refuse_rundir(path, e) : 0;
}

int metrics_write_atomic(int rootfd, const char *path, const char *text, size_t len, struct error *e) {
        _cleanup_(closep) int dirfd = -1;
        const char *name;
        int r;

        dirfd = open_target(rootfd, path, &name, e);
        if (dirfd < 0)
                return dirfd;
        r = replace_file_at(dirfd, name, text, len, true);
        return r < 0 ? error_set(e, r, "%s: %s", path, strerror(-r)) : 0;
}

static const uint64_t *record_target(const struct fill_record *rec, uint64_t page_size, unsigned node) {
        for (size_t i = 0; rec && i < rec->n_targets; i++)
                if (rec->targets[i].page_size == page_size && rec->targets[i].node == node)
                        return &rec->targets[i].target;
        return NULL;
}

/* A ready reservation whose file went away since (hpfilld --release) is absent now. */
static void reserves_now(int rootfd, struct fill_record *rec) {
        for (size_t i = 0; i < rec->n_reserves; i++) {
                struct metrics_reserve *rs = &rec->reserves[i];
                _cleanup_(closep) int fd = -1;

                if (rs->state == MR_READY &&
                    (fd = open_beneath(rootfd, rs->path, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0, 0)) < 0) {
                        rs->state = MR_ABSENT;
                        rs->pages = 0;
                }
        }
}

/* The pools now (every size and node the kernel offers), with the record's targets. */
static int collect(int rootfd, const struct topology *t, const struct fill_record *rec, struct metrics *m) {
        m->version = PROJECT_VERSION;
        m->pools = calloc(t->n_page_sizes * t->n_nodes + 1, sizeof(*m->pools));
        m->sizes = calloc(t->n_page_sizes + 1, sizeof(*m->sizes));
        if (!m->pools || !m->sizes)
                return -ENOMEM;
        for (size_t s = 0; s < t->n_page_sizes; s++) {
                uint64_t ps = t->page_sizes[s];

                m->sizes[m->n_sizes++] = (struct metrics_size) { .page_size = ps,
                                                                 .reserved = pool_global_counter(rootfd, ps, "resv_hugepages") };
                for (size_t i = 0; i < t->n_nodes; i++) {
                        struct metrics_pool *p = &m->pools[m->n_pools++];
                        struct pool_counts c = {};
                        const uint64_t *target = record_target(rec, ps, t->nodes[i].id);

                        (void) pool_read_counts(rootfd, t, t->nodes[i].id, ps, &c);
                        *p = (struct metrics_pool) { .page_size = ps, .node = t->nodes[i].id, .total = c.nr,
                                                     .free = c.free, .surplus = c.surplus, .has_target = !!target,
                                                     .target = target ? *target : 0 };
                }
        }
        m->fill = rec;
        m->reserves = rec ? rec->reserves : NULL;
        m->n_reserves = rec ? rec->n_reserves : 0;
        return 0;
}

int metrics_overlay_state(int rootfd, struct fill_record *rec) {
        struct state s = {};
        struct error e = {};
        int r;

        r = state_store_read(rootfd, &s, &e);
        if (r < 0) {
                state_done(&s);
                return r;
        }
        /* the record's claims are the configuration's [Claim]s; hpfilld claim's are the state's */
        free(rec->targets);
        rec->targets = NULL;
        rec->n_targets = 0;
        for (size_t p = 0; r >= 0 && p < s.n_pools; p++) {
                uint64_t target = state_pool_target(&s, p);

                if (target > 0)
                        r = fill_record_add_target(rec, s.pools[p].page_size, s.pools[p].node, target);
        }
        for (size_t i = 0; r >= 0 && i < s.n_shares; i++) {
                const struct state_owner *o = &s.owners[s.shares[i].owner];
                const struct state_pool *p = &s.pools[s.shares[i].pool];

                if (o->kind == OWNER_CLAIM && !o->gone && s.shares[i].want > 0)
                        r = fill_record_add_claim(rec, o->name + strlen(STATE_CLAIM_PREFIX), p->page_size, p->node,
                                                  s.shares[i].want, "hpfilld claim");
        }
        state_done(&s);
        return r;
}

/* The whole text, in memory: written out in one piece. */
static int render(int rootfd, struct fill_record *rec, char **ret, size_t *ret_len) {
        struct fill_record none = {};
        struct topology t = {};
        struct metrics m = {};
        struct error e = {};
        FILE *f;
        int r;

        r = topology_read(rootfd, &t, &e);
        if (r < 0)
                return r;
        /* the targets and claims are the state's, as they are now */
        if (!rec)
                rec = &none;
        (void) metrics_overlay_state(rootfd, rec);
        reserves_now(rootfd, rec);
        r = collect(rootfd, &t, rec, &m);
        f = r < 0 ? NULL : open_memstream(ret, ret_len);
        if (r >= 0 && !f)
                r = -errno;
        if (f) {
                r = metrics_format(f, &m);
                if (fclose(f) != 0 && r >= 0)
                        r = -EIO;
        }
        free(m.pools);
        free(m.sizes);
        topology_done(&t);
        fill_record_done(&none);
        return r;
}

int metrics_record_read(int rootfd, struct fill_record *ret) {
        struct state s = {};
        struct error e = {};
        int r = state_store_read(rootfd, &s, &e);

        if (r >= 0) {
                *ret = s.record;
                s.record = (struct fill_record) {};
                r = ret->valid ? 0 : -ENOENT;
        }
        state_done(&s);
        return r;
}

static bool record_has_reserve(const struct fill_record *rec, const struct metrics_reserve *rs) {
        for (size_t i = 0; i < rec->n_reserves; i++)
                if (strcmp(rec->reserves[i].name, rs->name) == 0 && strcmp(rec->reserves[i].path, rs->path) == 0)
                        return true;
        return false;
}

/* The counters go on from the record before (since boot: /run is a tmpfs), and so do the
 * reservations an earlier fill made that are still there: a later fill without them does not
 * remove them, so the record does not forget them either. */
static void carry_counters(int rootfd, struct fill_record *rec, struct fill_record *old) {
        rec->fills_total = 1;
        if (!old->valid)
                return;
        rec->fills_total += old->fills_total;
        for (size_t i = 0; i < rec->n_sizes; i++)
                for (size_t k = 0; k < old->n_sizes; k++)
                        if (old->sizes[k].page_size == rec->sizes[i].page_size)
                                rec->sizes[i].rounds_total += old->sizes[k].rounds_total;
        reserves_now(rootfd, old);
        for (size_t k = 0; k < old->n_reserves; k++) {
                const struct metrics_reserve *rs = &old->reserves[k];

                if (rs->state == MR_READY && !record_has_reserve(rec, rs) &&
                    fill_record_add_reserve(rec, rs->name, rs->page_size, rs->pages, rs->target, rs->state, rs->nodes,
                                            rs->path) < 0)
                        log_warning("Cannot keep reservation '%s' in the record: out of memory, ignoring", rs->name);
        }
}

void metrics_record_into(int rootfd, struct state *s, struct fill_record *rec, int exit_status, const char *summary,
                         const char *next_boot) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_REALTIME, &ts);
        rec->valid = true;
        rec->time_ns = (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
        rec->exit_status = exit_status;
        (void) snprintf(rec->summary, sizeof(rec->summary), "%s", summary);
        (void) snprintf(rec->next_boot, sizeof(rec->next_boot), "%s", next_boot);
        carry_counters(rootfd, rec, &s->record);
        fill_record_done(&s->record);
        s->record = *rec;
        *rec = (struct fill_record) {};
}

int metrics_write_file(int rootfd, struct fill_record *rec, const char *path, struct error *e) {
        _cleanup_(freep) char *text = NULL;
        size_t len = 0;
        int r;

        r = render(rootfd, rec, &text, &len);
        if (r < 0)
                return error_set(e, r, "%s: %s", path, strerror(-r));
        return metrics_write_atomic(rootfd, path, text, len, e);
}

/* The pools now and the last fill recorded (if any), rendered. */
static int render_recorded(int rootfd, char **ret, size_t *ret_len) {
        struct fill_record rec = {};
        bool have = metrics_record_read(rootfd, &rec) >= 0;
        int r = render(rootfd, have ? &rec : NULL, ret, ret_len);

        fill_record_done(&rec);
        return r;
}

int metrics_refresh_file(int rootfd, const char *path, struct error *e) {
        _cleanup_(freep) char *text = NULL, *old = NULL;
        _cleanup_(closep) int dirfd = -1;
        const char *name;
        size_t len = 0, old_len = 0;
        int r;

        r = render_recorded(rootfd, &text, &len);
        if (r < 0)
                return error_set(e, r, "%s: %s", path, strerror(-r));
        dirfd = open_target(rootfd, path, &name, e);
        if (dirfd < 0)
                return dirfd;
        /* what node_exporter reads already: not written again (no rename every interval) */
        if (read_full_file_at(dirfd, name, 1024 * 1024, &old, &old_len) >= 0 && old_len == len &&
            memcmp(old, text, len) == 0)
                return 0;
        r = replace_file_at(dirfd, name, text, len, true);
        return r < 0 ? error_set(e, r, "%s: %s", path, strerror(-r)) : 1;
}

int metrics_print(int rootfd, FILE *f) {
        _cleanup_(freep) char *text = NULL;
        size_t len = 0;
        int r = render_recorded(rootfd, &text, &len);

        errno = 0;
        if (r >= 0 && fwrite(text, 1, len, f) != len)
                r = -(errno ?: EIO);
        return r;
}

void metrics_after_fill(int rootfd, const char *metrics_file) {
        struct error e = {};

        if (*metrics_file && metrics_refresh_file(rootfd, metrics_file, &e) < 0)
                log_warning("Cannot write the metrics: %s, ignoring", e.msg);
}
