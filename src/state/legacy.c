/* SPDX-License-Identifier: MIT */
/* The files of hpfilld 0.x in /run/hpfilld and its claims' drop-ins, converted into the state. */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "state/claims.h"
#include "state/legacy.h"
#include "state/rundir.h"
#include "state/text.h"
#include "util/beneath.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/shown.h"

#define LEGACY_CLAIM_DIR "run/hpfilld.conf.d"
/* what `hpfilld claim NAME` wrote first in its drop-in, 50-claim-NAME.conf */
#define LEGACY_CLAIM_HEAD "# Written by 'hpfilld claim "

static void note(struct state_store *st, const char *what, const char *name, int r) {
        state_store_note(st, "%s %s/" RUNDIR "/%s%s%s", what, shown_root(), name, r < 0 ? ": " : "",
                         r < 0 ? strerror(-r) : "");
}

/* One ledger line, "PAGE_SIZE NODE OURS LAST", checked as the state's own lines are */
static int ledger_line(const char *l, uint64_t *ps, unsigned *node, uint64_t *ours, uint64_t *last) {
        int n = 0;

        if (sscanf(l, "%" SCNu64 " %u %" SCNu64 " %" SCNu64 "%n", ps, node, ours, last, &n) != 4 ||
            (l[n] && l[n] != '\n') || *ours > *last || *last >= STATE_COUNT_MAX || !state_pool_key_valid(*ps, *node))
                return -EBADMSG;
        return 0;
}

#define LINES(l, text) for (const char *l = (text); *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n'))

/* A ledger's lines, "boot ID" first where known, then "PAGE_SIZE NODE OURS LAST": the pages of
 * each pool counted as @owner's, all or (a line that is none) nothing. One of another boot counts
 * nothing: its pages are in no pool now. */
static int ledger_into(struct state_store *st, const char *text, const char *owner) {
        size_t n_boot = strlen(st->s.boot);
        uint64_t ps, ours, last;
        unsigned node;
        int o;

        if (strncmp(text, "boot ", 5) == 0 && n_boot > 0 &&
            (strncmp(text + 5, st->s.boot, n_boot) != 0 || (text[5 + n_boot] != '\n' && text[5 + n_boot])))
                return 0;
        LINES(l, text)
                if (strncmp(l, "boot ", 5) != 0 && ledger_line(l, &ps, &node, &ours, &last) < 0)
                        return -EBADMSG;
        o = state_owner_get(&st->s, owner);
        if (o < 0)
                return o;
        LINES(l, text) {
                struct state_share *sh;
                int p;

                if (strncmp(l, "boot ", 5) == 0)
                        continue;
                (void) ledger_line(l, &ps, &node, &ours, &last);
                p = state_pool_get(&st->s, ps, node, last);
                sh = p < 0 ? NULL : state_share(&st->s, (size_t) p, (size_t) o, true);
                if (!sh)
                        return -ENOMEM;
                sh->held += ours;
        }
        return 0;
}

/* "path=PATH found=N set=N pid=N start=N" */
static int journal_into(struct state_store *st, const char *text) {
        char path[STATE_PATH_MAX];
        uint64_t found, set;
        int n = 0;

        if (sscanf(text, "path=%159s found=%" SCNu64 " set=%" SCNu64 " pid=%*d start=%*u%n", path, &found, &set, &n) !=
                    3 ||
            n == 0)
                return -EBADMSG;
        return state_setting_add(&st->s, path, found, set);
}

/* One file of RUNDIR, by its name: converted (1, then removed), not one of the old files (0) */
static int convert_one(struct state_store *st, const char *name) {
        _cleanup_(freep) char *text = NULL;
        char owner[STATE_OWNER_MAX];
        int r, o;

        if (strcmp(name, "daemon.lock") == 0 || strcmp(name, "claim.lock") == 0 || strcmp(name, "daemon-config") == 0 ||
            strcmp(name, "fill-record") == 0)
                return 1; /* nothing to keep */
        if (strcmp(name, "ledger") != 0 && strcmp(name, "ledger-once") != 0 && strncmp(name, "claim.", 6) != 0 &&
            strncmp(name, "unclaim.", 8) != 0 && strncmp(name, "changed.", 8) != 0)
                return 0;
        r = read_full_file_at(st->dirfd, name, 64 * 1024, &text, NULL);
        if (r < 0)
                return r;
        if (strcmp(name, "ledger") == 0)
                return ledger_into(st, text, "config") < 0 ? -EBADMSG : 1;
        if (strcmp(name, "ledger-once") == 0)
                return ledger_into(st, text, "once") < 0 ? -EBADMSG : 1;
        if (strncmp(name, "changed.", 8) == 0)
                return journal_into(st, text) < 0 ? -EBADMSG : 1;
        if (strncmp(name, "claim.", 6) == 0)
                return ledger_into(st, text, state_claim_owner(owner, name + 6)) < 0 ? -EBADMSG : 1;
        /* unclaim.NAME: the claim given back, its give-back not done */
        o = state_owner_get(&st->s, state_claim_owner(owner, name + 8));
        if (o < 0)
                return -EBADMSG;
        st->s.owners[o].gone = true;
        return 1;
}

/* The drop-in `hpfilld claim NAME` wrote ("[Claim]", "Name=", "PageSize=", "Amount=" lines, a
 * section per page size): claim NAME in the state. 1 converted, 0 not one of those. */
static int claim_file_into(struct state_store *st, int dirfd, const char *file) {
        _cleanup_(freep) char *text = NULL;
        char *specs[16], words[16][128], name[64] = "", size[32] = "";
        struct error e = {};
        size_t n = 0;
        int r;

        r = read_full_file_at(dirfd, file, 64 * 1024, &text, NULL);
        if (r < 0)
                return r;
        if (strncmp(text, LEGACY_CLAIM_HEAD, strlen(LEGACY_CLAIM_HEAD)) != 0)
                return 0; /* the administrator's: left alone */
        for (char *l = text, *next; *l; l = next) {
                next = l + strcspn(l, "\n");
                if (*next)
                        *next++ = 0;
                if (strncmp(l, "Name=", 5) == 0)
                        (void) snprintf(name, sizeof(name), "%s", l + 5);
                else if (strncmp(l, "PageSize=", 9) == 0)
                        (void) snprintf(size, sizeof(size), "%s", l + 9);
                else if (strncmp(l, "Amount=", 7) == 0 && *size && n < ELEMENTSOF(specs)) {
                        (void) snprintf(words[n], sizeof(words[n]), "%s:%s", size, l + 7);
                        specs[n] = words[n];
                        n++;
                }
        }
        if (!*name || n == 0)
                return -EBADMSG;
        r = state_claim_set(st, name, specs, n, &e);
        return r < 0 ? r : 1;
}

/* The claims' drop-ins converted; their names in @ret (removed once the state is saved) */
static size_t convert_claim_files(struct state_store *st, int dirfd, char (*ret)[NAME_MAX + 1], size_t max) {
        _cleanup_(closedirp) DIR *d = opendir_at(dirfd);
        struct dirent *de;
        size_t n = 0;

        while (d && (de = readdir(d)) && n < max) {
                char line[NAME_MAX + 64];
                int r;

                if (strncmp(de->d_name, "50-claim-", 9) != 0)
                        continue;
                r = claim_file_into(st, dirfd, de->d_name);
                if (r == 0)
                        continue;
                (void) snprintf(line, sizeof(line), "../hpfilld.conf.d/%s", de->d_name);
                note(st, r < 0 ? "Cannot convert the claim of" : "Converted the claim of (and removed)", line, r);
                if (r > 0)
                        memcpy(ret[n++], de->d_name, strlen(de->d_name) + 1);
        }
        return n;
}

/* Whether @name is one of the old files of RUNDIR */
static bool legacy_name(const char *name) {
        return strcmp(name, "daemon.lock") == 0 || strcmp(name, "claim.lock") == 0 || strcmp(name, "daemon-config") == 0 ||
               strcmp(name, "ledger") == 0 || strcmp(name, "ledger-once") == 0 || strcmp(name, "fill-record") == 0 ||
               strncmp(name, "claim.", 6) == 0 || strncmp(name, "unclaim.", 8) == 0 || strncmp(name, "changed.", 8) == 0;
}

/* Whether the drop-in @file of @dirfd is one the old `hpfilld claim` wrote */
static bool legacy_claim_file(int dirfd, const char *file) {
        _cleanup_(freep) char *text = NULL;

        return strncmp(file, "50-claim-", 9) == 0 && read_full_file_at(dirfd, file, 64 * 1024, &text, NULL) >= 0 &&
               strncmp(text, LEGACY_CLAIM_HEAD, strlen(LEGACY_CLAIM_HEAD)) == 0;
}

static void remove_matching(int dirfd, bool claims) {
        _cleanup_(closedirp) DIR *d = opendir_at(dirfd);
        struct dirent *de;

        while (d && (de = readdir(d)))
                if (claims ? legacy_claim_file(dirfd, de->d_name) : legacy_name(de->d_name))
                        (void) unlinkat(dirfd, de->d_name, 0);
}

void state_legacy_remove(struct state_store *st) {
        _cleanup_(closep) int claims_fd = open_beneath(st->rootfd, LEGACY_CLAIM_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC,
                                                        0, 0);

        remove_matching(st->dirfd, false);
        remove_matching(claims_fd, true);
}

int state_legacy_convert(struct state_store *st) {
        _cleanup_(closedirp) DIR *d = opendir_at(st->dirfd);
        _cleanup_(closep) int claims_fd = open_beneath(st->rootfd, LEGACY_CLAIM_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC,
                                                        0, 0);
        char done[64][NAME_MAX + 1], claims[64][NAME_MAX + 1];
        size_t n_done = 0, n_claims = 0;
        struct dirent *de;

        if (!d)
                return -errno;
        while ((de = readdir(d))) {
                int r = convert_one(st, de->d_name);

                if (r == 0)
                        continue;
                note(st, r < 0 ? "Cannot convert" : "Converted (and removed)", de->d_name, r);
                if (r > 0 && n_done < ELEMENTSOF(done))
                        memcpy(done[n_done++], de->d_name, strlen(de->d_name) + 1);
        }
        if (claims_fd >= 0)
                n_claims = convert_claim_files(st, claims_fd, claims, ELEMENTSOF(claims));
        /* removed once the state that holds them is saved (saying so: a command killed before it
         * removed them all leaves that for the next, which removes them without converting) */
        if (n_done + n_claims == 0)
                return 0;
        st->s.legacy = true;
        if (state_store_save(st) < 0)
                return 0;
        for (size_t i = 0; i < n_done; i++)
                (void) unlinkat(st->dirfd, done[i], 0);
        for (size_t i = 0; i < n_claims; i++)
                (void) unlinkat(claims_fd, claims[i], 0);
        st->s.legacy = false;
        st->dirty = true;
        return 0;
}
