/* SPDX-License-Identifier: MIT */
/* The record of the last fill, kept in the state (RUNDIR/state, its "last-" lines): its outcome,
 * timings and reservations, for `hpfilld status` and the metrics. The targets and claims beside
 * it are the state's own. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

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

/* Recording a fill (the job adds to it, then puts it in the state). */
int fill_record_add_size(struct fill_record *r, uint64_t page_size, uint64_t elapsed_ns, unsigned rounds, bool met);
int fill_record_add_target(struct fill_record *r, uint64_t page_size, unsigned node, uint64_t target);
/* -EINVAL for a name, path or nodes the record could not hold (control characters, too long). */
int fill_record_add_reserve(struct fill_record *r, const char *name, uint64_t page_size, uint64_t pages,
                            uint64_t target, enum metrics_reserve_state state, const char *nodes, const char *path);
/* -EINVAL for a name or file the record could not hold as one line (control characters). */
int fill_record_add_claim(struct fill_record *r, const char *name, uint64_t page_size, unsigned node, uint64_t pages,
                          const char *file);
void fill_record_done(struct fill_record *r);

/* The record as the state's lines (state/text.h), nothing where it is not valid:
 *   last-fill TIME_NS EXIT_STATUS ELAPSED_NS FILLS_TOTAL
 *   last-size PAGE_SIZE ELAPSED_NS ROUNDS ROUNDS_TOTAL MET
 *   last-reserve NAME PAGE_SIZE PAGES TARGET STATE NODES|- PATH|- (the rest of the line)
 *   last-claim NAME PAGE_SIZE NODE PAGES FILE (the rest of the line: a [Claim] of the configuration)
 *   last-summary TEXT, last-next-boot TEXT (the rest of the line)
 * control characters in the texts written as \\ooo. */
void fill_record_format(FILE *f, const struct fill_record *r);
/* One of those lines into @r: 1 taken, 0 not a record's line, -EBADMSG for one that
 * fill_record_format() does not write, -ENOMEM. */
int fill_record_parse_line(struct fill_record *r, const char *line);
