/* SPDX-License-Identifier: MIT */
/* One fill from a configuration: topology, plan, checks, the fill itself, the report. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "service/session.h"
#include "state/model.h"
#include "service/metrics.h"
#include "settings/conf.h"
#include "fill/stop.h"
#include "util/json.h"

/* Exit statuses, documented in hpfilld(8). */
enum {
        EXIT_OK = 0,
        EXIT_FAIL = 1,
        EXIT_USAGE = 2,
        EXIT_SHORT = 3,
};

/* Progress is reported this often while pools fill (systemd wants STATUS= at least every second). */
#define JOB_TICK_MS 500

struct job_status {
        size_t n_pools;
        struct {
                uint64_t page_size;
                uint64_t added;  /* pages added so far */
                uint64_t wanted; /* pages the plan adds */
        } pools[8];
};

/* What a job fills, and how: its caller's, read only. */
struct job_params {
        int rootfd;
        bool host;       /* the root is this machine's "/" */
        struct stop *stop;
        /* whose pages the fill adds (state/model.h): the configuration's, a one-off run's, or a
         * claim's (@claim, set in the state already) */
        enum state_fill kind;
        const char *claim;
        /* a plan refused is recorded too (exit 2; nothing else of it kept): the service's start,
         * for status, the metrics and their alerts (a command on a terminal says it, and leaves
         * nothing: bad input) */
        bool record_refused;
        /* a dry run's: */
        bool strict;  /* --check-config: a reservation a fill would skip (owner unknown, mount refused) fails the check */
        bool create_mounts; /* a page size without a hugetlbfs mount would get one (CreateMounts=) */
        const char *create_mounts_by; /* what set it, as messages name it: "--create-mounts" or
                                       * "CreateMounts=yes" (NULL: the latter) */
        bool mount_table_only; /* the mounts from the mount table, not libhugetlbfs (which keeps the
                                * table it read first: a check before --create-mounts mounts) */
};

/* Where a job's report goes while it runs; every member may be NULL (none of that), and so may
 * the whole. */
struct job_sink {
        FILE *text; /* the report, as text */
        /* instead of the text (--json), JSON members: a dry run's "plan" and "kernel", a fill's
         * "pools", "kernel" and "reservations" (doc/hpfilld-json.schema.json); nothing when it
         * stopped before: a json_writer_init_members() writer */
        struct json_writer *json;
        void (*progress)(const struct job_status *s, void *userdata);
        void (*progress_done)(void *userdata); /* called before the report (ends a terminal's progress) */
        void *userdata;
};

/* What came of a job, for its caller (the status line, the control socket, the JSON document):
 * set by each job_dry_run() and job_fill(). */
struct job_result {
        char summary[2048]; /* the report's pool lines, "; "-joined */
        char refused[1024]; /* why the plan was refused (EXIT_USAGE), as logged */
        char advice_cmdline[1024];   /* for short pools, the boot parameters that get them */
        char advice_initramfs[1024]; /* the same as hpfilld.pool= words */
        uint64_t elapsed_ns; /* the fill's, from its first change recorded to its last read-back; 0: none */
        /* a fill's targets, timings, reservations, for the metrics: job_fill() moves it into the
         * state where the state keeps the fill; what is left, the caller's to fill_record_done() */
        struct fill_record record;
};

/* A dry run of @c (--dry-run, --check-config): the plan on the pools as they are, with the claims
 * the state holds, every check; nothing changed, no lock. @to and @out may be NULL (not wanted).
 * Returns an exit status. */
int job_dry_run(const struct job_params *in, const struct job_sink *to, struct job_result *out,
                const struct config *c);
/* Fills @c inside session @s (the host lock held, @c read under it): the plan, the owner's wants
 * and the changes recorded in the state before the first write, the fill, the state settled
 * with the counts read back, the report. @to may be NULL (no report). Returns an exit status. */
int job_fill(const struct job_params *in, const struct job_sink *to, struct job_result *out, struct session *s,
             const struct config *c);
