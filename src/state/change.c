/* SPDX-License-Identifier: MIT */
/* The one way a pool changes: intent saved, kernel written, count read back, intent settled. */
#include <inttypes.h>
#include <string.h>

#include "kernel/pool.h"
#include "state/change.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/number.h"
#include "util/shown.h"

int state_change_begin(struct state_store *st, const struct state_intent *in, size_t n) {
        size_t before = st->s.n_intents;
        int r = 0;

        if (n == 0) /* no kernel write follows: the wants wait for the command's last save */
                return 0;
        for (size_t i = 0; r >= 0 && i < n; i++)
                r = state_intent_find(&st->s, in[i].pool) >= 0 ? -EBUSY : state_intent_add(&st->s, &in[i]);
        if (r >= 0)
                r = state_store_save(st);
        if (r < 0)
                while (st->s.n_intents > before) {
                        state_intent_done(&st->s.intents[st->s.n_intents - 1]);
                        st->s.n_intents--;
                }
        return r;
}

/* Whether a write of pool (@page_size, @node) is inside an intent */
static bool announced(const struct state_store *st, uint64_t page_size, int node) {
        for (size_t i = 0; i < st->s.n_intents; i++) {
                const struct state_pool *p = &st->s.pools[st->s.intents[i].pool];

                if (p->page_size == page_size && (node == POOL_WRITER_GLOBAL || p->node == (unsigned) node))
                        return true;
        }
        return false;
}

int state_change_write(struct state_store *st, uint64_t page_size, int node, uint64_t count) {
        char path[160];
        int r;

        pthread_mutex_lock(&st->mutex);
        r = announced(st, page_size, node) ? 0 : -EPERM;
        pthread_mutex_unlock(&st->mutex);
        if (r < 0)
                return r;
        if (node != POOL_WRITER_GLOBAL)
                return pool_write_nr(st->rootfd, st->t, (unsigned) node, page_size, count);
        r = pool_global_path(path, sizeof(path), page_size, "nr_hugepages");
        return r < 0 ? r : write_u64_at(st->rootfd, path, count);
}

int state_change_settle(struct state_store *st) {
        while (st->s.n_intents > 0) {
                const struct state_pool *p = &st->s.pools[st->s.intents[0].pool];
                uint64_t now;

                /* unreadable: settled as if nothing moved; the next look at the pool sees it */
                if (state_store_read_pool(st, p->page_size, p->node, &now) < 0)
                        now = st->s.intents[0].from;
                (void) state_intent_settle(&st->s, 0, now);
        }
        /* not saved here: the command's next save keeps it (the next change's, or its last);
         * killed before, the next command settles the intents itself, against the same count */
        return 0;
}

static int overcommit_path(char *buf, size_t size, uint64_t page_size) {
        return pool_global_path(buf, size, page_size, "nr_overcommit_hugepages");
}

static int writer_write_nr(void *data, uint64_t page_size, int node, uint64_t count) {
        return state_change_write(data, page_size, node, count);
}

static int writer_raise(void *data, uint64_t page_size, uint64_t found, uint64_t set) {
        struct state_store *st = data;
        char path[160];
        int r;

        r = overcommit_path(path, sizeof(path), page_size);
        if (r < 0)
                return r;
        /* in the state before the write: if we die before we put it back, a later
         * command does */
        pthread_mutex_lock(&st->mutex);
        r = state_setting_add(&st->s, path, found, set);
        if (r >= 0)
                r = state_store_save(st);
        pthread_mutex_unlock(&st->mutex);
        if (r >= 0)
                r = write_u64_at(st->rootfd, path, set);
        return r;
}

/* Setting @i put back if it still holds what was set; 1 put back, 0 someone else's value now
 * (left), or a negative errno (the entry stays) */
static int restore(struct state_store *st, size_t i) {
        struct state_setting *set = &st->s.settings[i];
        uint64_t now;
        int r;

        r = read_u64_at(st->rootfd, set->path, &now);
        if (r < 0)
                return r;
        if (now != set->set)
                return 0;
        r = write_u64_at(st->rootfd, set->path, set->found);
        return r < 0 ? r : 1;
}

static int writer_restore(void *data, uint64_t page_size) {
        struct state_store *st = data;
        char path[160];
        int r, i;

        r = overcommit_path(path, sizeof(path), page_size);
        if (r < 0)
                return r;
        pthread_mutex_lock(&st->mutex);
        i = state_setting_find(&st->s, path);
        r = i < 0 ? 0 : restore(st, (size_t) i);
        if (i >= 0 && r >= 0) {
                state_setting_remove(&st->s, (size_t) i);
                r = state_store_save(st);
        }
        pthread_mutex_unlock(&st->mutex);
        return r < 0 ? r : 0;
}

struct pool_writer state_change_writer(struct state_store *st) {
        return (struct pool_writer) { writer_write_nr, writer_raise, writer_restore, st };
}

void state_change_restore_setting(struct state_store *st, size_t i) {
        struct state_setting set = st->s.settings[i];
        int r = restore(st, i);

        /* the page size gone (a tree changed, a kernel without it): nothing to put back */
        if (r < 0 && r != -ENOENT) {
                state_store_note(st, "Cannot put %s/%s back to %" PRIu64 " (raised to %" PRIu64 " by a command that "
                                 "ended): %s; the next command tries again",
                                 shown_root(), set.path, set.found, set.set, strerror(-r));
                return;
        }
        state_store_note(st, r > 0 ? "%s/%s put back to %" PRIu64 " (a command that ended had raised it to %" PRIu64 ")"
                                   : "%s/%s left as it is: a command that ended had raised it from %" PRIu64
                                     " to %" PRIu64 ", and it has been changed since",
                         shown_root(), set.path, set.found, set.set);
        state_setting_remove(&st->s, i);
}

int state_change_give_back(struct state_store *st, uint64_t page_size, unsigned node, const size_t *owners, size_t n,
                           uint64_t givable, uint64_t *ret_given) {
        struct state_intent in = {};
        uint64_t now, after;
        int pool, r;

        *ret_given = 0;
        r = state_store_read_pool(st, page_size, node, &now);
        if (r < 0)
                return r;
        pool = state_pool_get(&st->s, page_size, node, now);
        if (pool < 0)
                return pool;
        (void) state_see(&st->s, (size_t) pool, now);
        r = state_give_back_intent(&st->s, (size_t) pool, owners, n, givable, &in);
        if (r < 0 || in.to == in.from) {
                state_intent_done(&in);
                return r;
        }
        r = state_change_begin(st, &in, 1);
        state_intent_done(&in);
        if (r < 0)
                return r;
        r = state_change_write(st, page_size, (int) node, st->s.intents[st->s.n_intents - 1].to);
        /* settled whatever the write said: the count read back is what happened */
        if (state_store_read_pool(st, page_size, node, &after) < 0)
                after = now;
        *ret_given = state_intent_settle(&st->s, (size_t) state_intent_find(&st->s, (size_t) pool), after);
        (void) state_store_save(st);
        return r;
}
