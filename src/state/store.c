/* SPDX-License-Identifier: MIT */
/* RUNDIR/state: opened under the host lock, settled, saved before and after each change. */
#include <fcntl.h>
#include <signal.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "kernel/pool.h"
#include "kernel/proc.h"
#include "state/change.h"
#include "state/legacy.h"
#include "state/rundir.h"
#include "state/store.h"
#include "state/text.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/number.h"
#include "util/replace.h"
#include "util/shown.h"

/* Far more than any state of a host: 4096 claims on 16 nodes are about 1 MiB */
#define STATE_TEXT_MAX (8u * 1024 * 1024)

void state_store_note(struct state_store *st, const char *fmt, ...) {
        size_t n = strlen(st->notes);
        va_list ap;

        if (n + 2 >= sizeof(st->notes))
                return;
        if (n)
                st->notes[n++] = '\n';
        va_start(ap, fmt);
        (void) vsnprintf(st->notes + n, sizeof(st->notes) - n, fmt, ap);
        va_end(ap);
}

/* RUNDIR/state parsed into @ret (its text in *@ret_text, where wanted); -ENOENT where there is none */
static int load_text(int dirfd, struct state *ret, char **ret_text, struct error *e) {
        _cleanup_(freep) char *text = NULL;
        int r;

        r = read_full_file_at(dirfd, STATE_FILE, STATE_TEXT_MAX, &text, NULL);
        if (r == -EFBIG)
                return error_set(e, -EBADMSG, "larger than %u bytes", STATE_TEXT_MAX);
        if (r < 0)
                return r == -ENOENT ? r : error_set(e, r, "%s", strerror(-r));
        r = state_parse(text, ret, e);
        if (r >= 0 && ret_text)
                *ret_text = TAKE_PTR(text);
        return r;
}

int state_store_read_pool(struct state_store *st, uint64_t page_size, unsigned node, uint64_t *ret) {
        return pool_read_persistent(st->rootfd, st->t, node, page_size, ret);
}

bool state_daemon_runs(const struct state_store *st) {
        if (st->s.daemon_pid <= 0)
                return false;
        /* a tree under --root without the process's proc/PID (a test's): its start time was not
         * known, and whether the pid is there is all that can be told */
        if (st->s.daemon_start == 0)
                return kill(st->s.daemon_pid, 0) == 0 || errno == EPERM;
        return proc_is(st->rootfd, st->s.daemon_pid, st->s.daemon_start);
}

/* What a command that died left: its settings put back, its intents settled, then every pool
 * seen as it is now */
static void settle(struct state_store *st) {
        char name[32];

        for (size_t i = st->s.n_settings; i-- > 0;)
                state_change_restore_setting(st, i);
        while (st->s.n_intents > 0) {
                const struct state_intent *in = &st->s.intents[0];
                const struct state_pool *p = &st->s.pools[in->pool];
                uint64_t now, moved, from = in->from, to = in->to;

                if (state_store_read_pool(st, p->page_size, p->node, &now) < 0) {
                        state_store_note(st, "%s pool of node%u: cannot be read; the change a command that ended "
                                         "left there is dropped", page_size_name(p->page_size, name), p->node);
                        now = from;
                }
                moved = state_intent_settle(&st->s, 0, now);
                state_store_note(st, "%s pool of node%u: a change from %" PRIu64 " to %" PRIu64 " page%s by a "
                                 "command that ended before it was done: %" PRIu64 " page%s %s, counted as the owners'",
                                 page_size_name(p->page_size, name), p->node, from, to, plural(to), moved,
                                 plural(moved), to > from ? "added" : "given back");
        }
        for (size_t i = 0; i < st->s.n_pools; i++) {
                const struct state_pool *p = &st->s.pools[i];
                uint64_t now, taken;

                if (state_store_read_pool(st, p->page_size, p->node, &now) < 0)
                        continue; /* a node gone: its pages with it, seen when it is back */
                st->dirty |= now != p->last;
                taken = state_see(&st->s, i, now);
                if (taken > 0)
                        state_store_note(st, "%s pool of node%u: %" PRIu64 " page%s hpfilld added left the pool "
                                         "since (taken by another), no longer counted as hpfilld's",
                                         page_size_name(p->page_size, name), p->node, taken, plural(taken));
        }
        if (st->s.daemon_pid > 0 && !state_daemon_runs(st)) {
                st->s.daemon_pid = 0;
                st->dirty = true;
                st->s.daemon_start = 0;
        }
}

static void read_boot(int rootfd, char boot[static 40]) {
        if (read_line_at(rootfd, "proc/sys/kernel/random/boot_id", boot, 40) < 0)
                *boot = 0;
}

static bool of_boot(const char *boot, const struct state *s) {
        return !*boot || !*s->boot || strcmp(boot, s->boot) == 0;
}

bool state_of_this_boot(int rootfd, const struct state *s) {
        char boot[40];

        read_boot(rootfd, boot);
        return of_boot(boot, s);
}

/* The state on disk into st->s: none, one of another boot, or the files of an older hpfilld */
static int load(struct state_store *st) {
        struct error e = {};
        char boot[40];
        int r;

        read_boot(st->rootfd, boot);
        r = load_text(st->dirfd, &st->s, &st->saved, &e);
        if (r == -ENOENT) {
                st->s = (struct state) {};
                memcpy(st->s.boot, boot, sizeof(boot));
                r = state_legacy_convert(st);
        } else if (r < 0)
                return log_error_errno(r, "Cannot read %s/" RUNDIR "/" STATE_FILE ": %s; nothing changed (move the file "
                                       "aside and hpfilld starts afresh, counting no page of the pools as its own)",
                                       shown_root(), e.msg);
        else if (st->s.legacy) {
                state_legacy_remove(st);
                st->s.legacy = false;
                st->dirty = true;
        }
        if (r >= 0 && !of_boot(boot, &st->s)) {
                state_store_note(st, "%s/" RUNDIR "/" STATE_FILE " is of an earlier boot (%s): none of its pages "
                                 "are in the pools now, started afresh", shown_root(), st->s.boot);
                state_done(&st->s);
        }
        memcpy(st->s.boot, boot, sizeof(boot));
        return r < 0 ? r : 0;
}

int state_store_open(int rootfd, const struct topology *t, const struct state_open_options *o, struct state_store *ret) {
        struct state_store st = { .rootfd = rootfd, .t = t, .dirfd = -1, .lock_fd = -1 };
        int r;

        st.dirfd = rundir_open(rootfd);
        if (st.dirfd < 0)
                return log_error_errno(st.dirfd, "Cannot open %s/" RUNDIR ": %m%s", shown_root(),
                                       st.dirfd == -EACCES ? " (are you root?)" : "");
        st.lock_fd = hostlock_take(rootfd, st.dirfd, o);
        /* what a command killed in the middle of a save left (under the lock, no other is saving) */
        if (st.lock_fd >= 0)
                replace_remove_temps(st.dirfd, STATE_FILE);
        r = st.lock_fd < 0 ? st.lock_fd : load(&st);
        if (r < 0) {
                closep(&st.lock_fd);
                closep(&st.dirfd);
                state_done(&st.s);
                free(st.saved);
                return r;
        }
        pthread_mutex_init(&st.mutex, NULL);
        settle(&st);
        /* what settling did is kept, whatever the command does next */
        if (st.dirty || *st.notes)
                (void) state_store_save(&st);
        *ret = st;
        return 0;
}

int state_store_revert(struct state_store *st) {
        struct state s = {};
        struct error e = {};

        if (st->saved && state_parse(st->saved, &s, &e) < 0)
                return -EBADMSG; /* it was written by this command: it parses */
        if (!st->saved)
                memcpy(s.boot, st->s.boot, sizeof(s.boot));
        state_done(&st->s);
        st->s = s;
        return 0;
}

int state_store_save(struct state_store *st) {
        _cleanup_(freep) char *text = NULL;
        size_t len = 0;
        FILE *f;
        int r;

        f = open_memstream(&text, &len);
        if (!f)
                return -ENOMEM;
        r = state_format(f, &st->s);
        if (fclose(f) != 0 && r >= 0)
                r = -ENOMEM;
        if (r >= 0 && st->saved && strcmp(st->saved, text) == 0)
                return 0;
        /* never a text the next command could not read: it would change nothing ever again */
        if (r >= 0) {
                struct state check = {};
                struct error e = {};

                r = state_parse(text, &check, &e);
                state_done(&check);
                if (r < 0)
                        return log_error_errno(r, "Refusing to write %s/" RUNDIR "/" STATE_FILE
                                               " that would not read back (%s); nothing changed",
                                               shown_root(), e.msg);
        }
        /* whole or not at all when we are killed: the new text swapped in at once (a temp file a
         * kill leaves is swept at the next open). Not synced: a crash of the host takes the
         * pools with it, and a state of another boot is thrown away (on a /run on disk, a sync
         * is milliseconds before every kernel write) */
        if (r >= 0)
                r = replace_file_at(st->dirfd, STATE_FILE, text, len, false);
        if (r < 0)
                return log_error_errno(r, "Cannot write %s/" RUNDIR "/" STATE_FILE ": %m", shown_root());
        free(st->saved);
        st->saved = TAKE_PTR(text);
        return 0;
}

int state_store_close(struct state_store *st, bool save) {
        int r = 0;

        if (st->lock_fd < 0)
                return 0;
        if (save) {
                state_owners_tidy(&st->s);
                r = state_store_save(st);
        }
        closep(&st->lock_fd);
        closep(&st->dirfd);
        pthread_mutex_destroy(&st->mutex);
        state_done(&st->s);
        free(st->saved);
        st->saved = NULL;
        return r;
}

int state_store_read(int rootfd, struct state *ret, struct error *e) {
        _cleanup_(closep) int dirfd = rundir_open_existing(rootfd);
        int r;

        *ret = (struct state) {};
        if (dirfd == -ENOENT)
                return 0;
        if (dirfd < 0)
                return error_set(e, dirfd, "%s/" RUNDIR ": %s", shown_root(), strerror(-dirfd));
        r = load_text(dirfd, ret, NULL, e);
        if (r == -ENOENT)
                return 0;
        return r < 0 ? error_prefix(e, r, "%s/" RUNDIR "/" STATE_FILE, shown_root()) : 0;
}
