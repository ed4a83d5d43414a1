/* SPDX-License-Identifier: MIT */
/* The journal of host settings a fill changes for its length (nr_overcommit_hugepages): an
 * entry per setting under /run/hpfilld, written and synced before the change, removed once
 * the value is put back. An entry whose owner died (SIGKILL, the OOM killer) tells a later
 * run what to put back. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define JOURNAL_PREFIX "changed."
#define JOURNAL_MAX 16

struct journal_entry {
        char path[160];      /* of the setting, relative to the root */
        uint64_t found, set; /* its value before the change, and the one the owner wrote */
        pid_t pid;           /* the owner */
        uint64_t start_time; /* its start time (/proc/PID/stat), against a reused pid */
};

enum journal_result {
        JOURNAL_RESTORED, /* the owner is gone and the value was still its: put back */
        JOURNAL_CHANGED,  /* the owner is gone, the value was changed since: left, entry dropped
                           * (by a fill; journal_inspect() only says so) */
        JOURNAL_FAILED,   /* could not be put back (or read): the entry stays for the next run */
        JOURNAL_DENIED,   /* not allowed to (not root): the entry stays */
        JOURNAL_STALE,    /* journal_inspect(): the owner is gone, the value still its; the next
                           * fill puts it back */
        JOURNAL_INVALID,  /* not an entry hpfilld makes, or one naming no pool setting (a link on
                           * the way, a page size the kernel does not offer): left alone */
};

struct journal_outcome {
        char name[NAME_MAX + 1]; /* the entry's file in RUNDIR */
        bool inspected;          /* by journal_inspect(): nothing done */
        struct journal_entry entry; /* all 0 for JOURNAL_INVALID */
        enum journal_result result;
        uint64_t now;  /* the value found there */
        int error;     /* FAILED, DENIED: negative errno */
};

/* Records that @path, now @found, is about to be set to @set by this process. Synced before it
 * returns: only then may the caller write. */
int journal_record(int rootfd, const char *path, uint64_t found, uint64_t set);
/* The value of @path is back (or is someone else's now): drops its entry. */
int journal_forget(int rootfd, const char *path);
/* Puts back the settings of entries whose owner is gone, where they still hold the value the
 * owner set. Entries of live owners are left alone, and so are entries that name anything but
 * a setting a fill changes (journal_parse()) on a real directory of a page size the kernel
 * offers (no symbolic link on the way; with @host, the root is this machine's "/", on sysfs
 * itself, -EXDEV else). Only under the host lock: a fill's. Fills @ret (up to
 * JOURNAL_MAX) with what was found and done; returns how many, or a negative errno. */
int journal_recover(int rootfd, bool host, struct journal_outcome *ret, size_t max);
/* The same, read-only (hpfilld status): what journal_recover() would find, as JOURNAL_STALE
 * where it would put a value back; nothing written or removed. No RUNDIR: none. */
int journal_inspect(int rootfd, bool host, struct journal_outcome *ret, size_t max);

/* What was found and done, in a sentence. */
void journal_describe(const struct journal_outcome *o, char *buf, size_t size);
/* Pure: an entry's text and back. */
int journal_format(const struct journal_entry *e, char *buf, size_t size);
int journal_parse(const char *s, struct journal_entry *ret);
