/* SPDX-License-Identifier: MIT */
/* One fill from a configuration: topology, plan, checks, the fill itself, the report. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "service/ledger.h"
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

struct job {
        int rootfd;
        bool host;       /* the root is this machine's "/" */
        bool dry_run;
        bool strict;  /* --check-config: a reservation a fill would skip (owner unknown, mount refused) fails the check */
        struct stop *stop;
        const char *task;        /* what the fill is, for whoever waits for the host lock */
        unsigned lock_timeout_s; /* how long to wait for another fill (hostlock.h) */
        bool lock_held;          /* the caller holds the host lock (it read the configuration under it) */
        FILE *report;    /* the report goes here; NULL: none */
        int report_error; /* out: the report could not be written (a closed pipe): negative errno */
        void (*progress)(const struct job_status *s, void *userdata);
        void (*progress_done)(void *userdata); /* NULL, or called before the report (ends a terminal's progress) */
        void (*waiting)(void *userdata); /* NULL, or called every HOSTLOCK_STEP_MS while the lock is waited for */
        void *userdata;
        char summary[2048]; /* out: the report's pool lines, "; "-joined */
        char refused[1024]; /* out: why the plan was refused (EXIT_USAGE), as logged */
        char advice_cmdline[1024];   /* out: for short pools, the boot parameters that get them */
        char advice_initramfs[1024]; /* out: the same as hpfilld.pool= words */
        char advice_cma[256];        /* out: for short gigantic pools, the hugetlb_cma= that keeps them allocatable */
        struct fill_record *record; /* out, when set: targets, timings, reservations, for the metrics */
        struct ledger *ledger; /* when set: the pages the fill adds, counted in it under the host lock */
        /* with a ledger: the claims' records (claim_record.h) count what the fill adds for each
         * claim, and what config.gone names gives back what its record holds */
        bool claims;
        /* with claims: the fill of `hpfilld claim NAME`, on a configuration read since it wrote
         * the claim's file: a give-back of NAME left pending is done with (claim_record.h) */
        const char *claim_made;
        bool ran; /* out: the fill's writes were done (exit 0 or 3 from the fill itself) */
        /* out, when set (--json): instead of the text, JSON members: a dry run's "plan" and
         * "kernel", a fill's "pools", "kernel" and "reservations" (doc/hpfilld-json.schema.json);
         * nothing when it stopped before: a json_writer_init_members() writer */
        struct json_writer *json;
        bool plan_from_cli; /* for the report: the plan is the command line's (config.plan_from_cli) */
        bool create_mounts; /* a dry run: a page size without a hugetlbfs mount would get one (CreateMounts=) */
        const char *create_mounts_by; /* what set it, as messages name it: "--create-mounts" or
                                       * "CreateMounts=yes" (NULL: the latter) */
        bool mount_table_only; /* the mounts from the mount table, not libhugetlbfs (which keeps the
                                * table it read first: a check before --create-mounts mounts) */
        uint64_t skips_said; /* internal: the reservations whose skip was said (bit i: the plan's
                              * reservation i), so the check again under the host lock says it once */
};

/* Puts back what fills that died left changed (journal.h), saying what it did. Returns how
 * many entries it found, or a negative errno. */
int job_recover_journal(int rootfd, bool host);
/* Plans @c on the machine below j->rootfd and fills it. Returns an exit status. */
int job_run(struct job *j, const struct config *c);
