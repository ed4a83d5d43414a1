/* SPDX-License-Identifier: MIT */
/* A command's time with the pools (session.h). */
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "kernel/pool.h"
#include "kernel/proc.h"
#include "service/session.h"
#include "state/change.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/number.h"
#include "util/shown.h"

int session_open(struct session *s, int rootfd, bool host, const struct state_open_options *o) {
        struct error e = {};
        int r;

        *s = (struct session) { .rootfd = rootfd, .host = host };
        r = topology_read(rootfd, &s->t, &e);
        if (r < 0)
                return log_error_errno(r, "Cannot read the machine's topology: %s", e.msg);
        r = state_store_open(rootfd, &s->t, o, &s->st);
        if (r < 0) {
                topology_done(&s->t);
                return r;
        }
        s->open = true;
        if (*s->st.notes)
                log_lines(LOG_NOTICE, s->st.notes);
        return 0;
}

int session_close(struct session *s) {
        int r = 0;

        if (s->open)
                r = state_store_close(&s->st, !s->discard);
        if (s->open)
                topology_done(&s->t);
        s->open = false;
        return r;
}

void session_mark_daemon(struct session *s, bool running) {
        uint64_t start = 0;

        if (running && proc_start_time(s->rootfd, getpid(), &start) < 0)
                start = 0;
        s->st.s.daemon_pid = running ? getpid() : 0;
        s->st.s.daemon_start = running ? start : 0;
}

/* Where an owner's pages stand in a give-back: the gone and bench's first, then the one-off
 * runs', the configuration's, the claims', newest first */
static int give_rank(const struct state_owner *o) {
        return o->gone || o->kind == OWNER_BENCH ? 0 : o->kind == OWNER_ONCE ? 1 : o->kind == OWNER_CONFIG ? 2 : 3;
}

static size_t owners_of(const struct state *st, size_t pool, session_pick_fn pick, const void *data, size_t *ret,
                        size_t max) {
        size_t n = 0;

        for (size_t i = 0; i < st->n_shares && n < max; i++)
                if (st->shares[i].pool == pool && st->shares[i].held > 0 && pick(&st->owners[st->shares[i].owner], data))
                        ret[n++] = st->shares[i].owner;
        for (size_t i = 1; i < n; i++)
                for (size_t k = i; k > 0; k--) {
                        const struct state_owner *a = &st->owners[ret[k]], *b = &st->owners[ret[k - 1]];
                        size_t t = ret[k];

                        if (give_rank(a) > give_rank(b) || (give_rank(a) == give_rank(b) && a->seq <= b->seq))
                                break;
                        ret[k] = ret[k - 1];
                        ret[k - 1] = t;
                }
        return n;
}

int session_give_back(struct session *s, session_pick_fn pick, const void *data, session_given_fn said,
                      void *userdata) {
        struct state *st = &s->st.s;
        int ret = 0;

        for (size_t p = 0; p < st->n_pools; p++) {
                size_t owners[256], n = owners_of(st, p, pick, data, owners, ELEMENTSOF(owners));
                struct session_given g = { .page_size = st->pools[p].page_size, .node = st->pools[p].node };
                struct pool_counts c;
                uint64_t resv;
                int r;

                if (n == 0)
                        continue;
                for (size_t i = 0; i < n; i++)
                        g.held += state_held(st, p, owners[i]);
                r = pool_read_counts(s->rootfd, &s->t, g.node, g.page_size, &c);
                if (r >= 0) {
                        /* pages mappings hold reserved are free but promised, and an active
                         * claim's free pages are its own: never given back */
                        resv = pool_global_counter(s->rootfd, g.page_size, "resv_hugepages");
                        g.before = pool_counts_persistent(&c);
                        r = state_change_give_back(&s->st, g.page_size, g.node, owners, n,
                                                   state_givable(st, p, c.nr, c.free, resv, owners, n), &g.given);
                }
                if (state_store_read_pool(&s->st, g.page_size, g.node, &g.after) < 0)
                        g.after = g.before - MIN(g.before, g.given);
                g.error = r < 0 ? r : 0;
                ret = r < 0 ? r : ret;
                if (said)
                        said(&g, userdata);
        }
        return ret;
}

static bool gone_or_bench(const struct state_owner *o, const void *data) {
        (void) data;
        return o->gone || o->kind == OWNER_BENCH;
}

static void said_gone(const struct session_given *g, void *userdata) {
        char name[32];

        (void) userdata;
        if (g->error == 0 && g->given > 0)
                log_notice("%s pool of node%u: %" PRIu64 " page%s given back now that %s free (of claims given "
                           "back while in use, or of a hpfilld bench)", page_size_name(g->page_size, name),
                           g->node, g->given, g->given == 1 ? "" : "s", g->given == 1 ? "it is" : "they are");
}

void session_give_back_gone(struct session *s) {
        (void) session_give_back(s, gone_or_bench, NULL, said_gone, NULL);
}
