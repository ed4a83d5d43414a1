/* SPDX-License-Identifier: MIT */
/* The pools and the last fill as Prometheus metrics (text exposition format 0.0.4): the model,
 * what a fill records for it, and the formatter. */
#pragma once


#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* One (page size, node) pool as the kernel shows it, and its target in the last plan. */
struct metrics_pool {
        uint64_t page_size;
        unsigned node;
        uint64_t total, free, surplus;
        bool has_target;
        uint64_t target;
};

/* One page size: the kernel's global counters, and how the last fill went for it. */
struct metrics_size {
        uint64_t page_size;
        uint64_t reserved; /* resv_hugepages: the kernel counts it per size only */
        bool filled;       /* the last fill had a pool of this size */
        uint64_t elapsed_ns;
        unsigned rounds;        /* retry rounds of the last fill */
        uint64_t rounds_total;  /* since boot (the record lives in /run) */
        bool met;
};

enum metrics_reserve_state {
        MR_READY,   /* all its pages, the file in place */
        MR_SHORT,   /* fewer pages than asked: removed */
        MR_FAILED,
        MR_ABSENT,  /* made by the last fill, gone since (released) */
        _MR_MAX,
};

struct metrics_reserve {
        char name[64];
        uint64_t page_size;
        uint64_t pages;  /* pages it holds (0 unless ready) */
        uint64_t target; /* pages asked for */
        enum metrics_reserve_state state;
        char nodes[128]; /* the nodes it was asked on, "0,1"; "" where no node was named */
        char path[4096];
};

/* A claim's pages on one node, in the last fill's plan ([Claim], hpfilld claim). */
struct metrics_claim {
        char name[64];
        uint64_t page_size;
        unsigned node;
        uint64_t pages;
        char file[1024]; /* where it is said, as messages show it */
};

/* The longest text line of a record (the summary), with its NUL */
#define FILL_RECORD_TEXT_MAX 2048

/* A fill's outcome, as a fill records it and the status command reads it back. */
struct fill_record {
        bool valid;
        int64_t time_ns;     /* CLOCK_REALTIME at the end */
        int exit_status;
        uint64_t elapsed_ns; /* the whole fill */
        uint64_t fills_total;
        struct metrics_size *sizes;
        size_t n_sizes;
        struct { uint64_t page_size; unsigned node; uint64_t target; } *targets;
        size_t n_targets;
        struct metrics_reserve *reserves;
        size_t n_reserves;
        struct metrics_claim *claims;
        size_t n_claims;
        char summary[FILL_RECORD_TEXT_MAX]; /* the report's pool lines, "; "-joined */
        char next_boot[1024]; /* for short pools, the boot parameters that get them; "" */
};

struct metrics {
        const char *version;
        struct metrics_pool *pools;
        size_t n_pools;
        struct metrics_size *sizes;
        size_t n_sizes;
        const struct fill_record *fill; /* NULL or !valid: no fill recorded */
        const struct metrics_reserve *reserves;
        size_t n_reserves;
};

/* Writes @m in the exposition format; -errno on a write error. Pure. */
int metrics_format(FILE *f, const struct metrics *m);
/* A setting a command that ended left raised (RUNDIR/state), as it is now */
struct status_setting {
        char path[160];
        uint64_t found, set, now;
        /* "stale": what that command set (the next command puts it back); "changed": changed
         * since (left as it is); "failed": it cannot be read */
        const char *result;
        int error;
};

/* One hpfilld_journal_entry per setting; -errno on a write error. Pure. */
int metrics_format_journal(FILE *f, const struct status_setting *set, size_t n);

/* Recording a fill (the job adds to it, then main or the daemon writes it out). */
int fill_record_add_size(struct fill_record *r, uint64_t page_size, uint64_t elapsed_ns, unsigned rounds, bool met);
int fill_record_add_target(struct fill_record *r, uint64_t page_size, unsigned node, uint64_t target);
int fill_record_add_reserve(struct fill_record *r, const char *name, uint64_t page_size, uint64_t pages,
                            uint64_t target, enum metrics_reserve_state state, const char *nodes, const char *path);
/* -EINVAL for a name or file the record could not hold as one line (control characters). */
int fill_record_add_claim(struct fill_record *r, const char *name, uint64_t page_size, unsigned node, uint64_t pages,
                          const char *file);
void fill_record_done(struct fill_record *r);
/* The record as text, and back: our own line format, one line per item ("fill ...", "size ...",
 * "target ...", "reserve ...", "claim ...", "summary ...", "next_boot ..."; control characters in the texts
 * written as \\ooo) and a last line "end". Parsing is strict: -EBADMSG on anything else, and on
 * a record cut short (a writer that died on a file system that keeps half-written files). */
int fill_record_write(FILE *f, const struct fill_record *r);
int fill_record_parse(const char *text, struct fill_record *ret);
