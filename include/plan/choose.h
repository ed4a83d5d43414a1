/* SPDX-License-Identifier: MIT */
/* Mode=auto: which methods to measure, in which order, and which one carries on. Pure. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "settings/conf.h"
#include "kernel/kernel_features.h"

/* The second method is measured only when the fill left would take at least this long at the
 * first one's rate: its probe costs a page per worker at a rate nobody knows yet (under HVO on
 * 6.10+ kernels, 8-10 ms a faulted page on the build machine), so a short fill is not worth it. */
#define CHOOSE_PROBE_WORTH_NS (UINT64_C(250) * 1000 * 1000)
/* A segment that took this many times what the measured rates predicted: measure again (memory
 * running short, HVO turned on mid-fill). */
#define CHOOSE_COLLAPSE_FACTOR 4
/* The first segment after a measurement lasts about this long at the measured rate; each next one
 * twice as long, so a long fill checks its rate a few times and pays for it about never. */
#define CHOOSE_SEGMENT_NS (UINT64_C(200) * 1000 * 1000)
/* At most this many measurements per pool: a rate that keeps collapsing is the host, not the method. */
#define CHOOSE_MAX_MEASUREMENTS 4

/* What the rule knows before anything is measured: the candidates, in the order they are
 * measured, and the one a tie goes to. */
struct choose_rule {
        enum fill_mode candidates[2];
        size_t n;
        enum fill_mode prefer;
        bool forced;     /* Mode=fault asked for: measured (to warn), never changed */
        const char *why; /* why only one, or why the preference */
};

/* An explicit Mode=fault measured this many times slower than sysfs gets a warning. */
#define CHOOSE_WARN_FACTOR 2

/* The candidates for a pool of @page_size under Mode=@mode on a kernel with @caps. One
 * candidate: nothing to measure. Mode=fault under HVO gets sysfs too, forced: a small sysfs step
 * at the start tells whether faulting is far slower here. */
void choose_rule(const struct kernel_features *caps, uint64_t page_size, enum fill_mode mode, struct choose_rule *ret);

/* One node's measurement: pages per second by each method (0: not measured), pages left, and
 * what one sysfs write costs whatever its size (under HVO one RCU grace period a write, about
 * 10 ms here; else about 0.2 ms): a small step alone would make sysfs look slow. */
struct choose_node {
        double sysfs_rate, fault_rate;
        uint64_t left;
        double sysfs_write_ns;
        double fault_start_ns; /* the same for faulting: threads, mapping, adoption */
};

/* From two steps, @k1 pages in @t1 ns then @k2 in @t2: pages per second and the cost of a step
 * whatever its size (a straight line through both; one step, or steps that do not fit one, give
 * the plain rate and no fixed cost). */
void choose_fit(uint64_t k1, uint64_t t1, uint64_t k2, uint64_t t2, double *ret_rate, double *ret_fixed_ns);

/* How big a sysfs write is. A write costs a fixed part whatever its size (choose_fit(): under HVO an
 * RCU grace period, about 10 ms here; else about 0.2 ms) and a part per page. A stop and the
 * progress wait for the write in progress, so a write lasts about CHOOSE_WRITE_NS at the rate
 * measured (its pages' part: the fixed part comes on top); but at least CHOOSE_WRITE_COST_SHARE
 * times the fixed part, which keeps the writes' fixed cost within 2% of a long fill, and at most
 * CHOOSE_WRITE_MAX_NS. A rest that would take at
 * most half as long again as a write is written at once: its own write would cost the fixed part
 * again for little. So a short fill is one write, wherever a write is costly. */
#define CHOOSE_WRITE_NS (UINT64_C(200) * 1000 * 1000)
#define CHOOSE_WRITE_MAX_NS (UINT64_C(1000) * 1000 * 1000)
#define CHOOSE_WRITE_COST_SHARE 50
struct choose_write {
        double rate;       /* pages per second by the last writes, fixed part aside; 0: none yet */
        double fixed_ns;   /* the fixed part of a write */
        uint64_t first;    /* pages of a node's first write, before any rate is known */
        uint64_t write_ns; /* how long a write should take; 0: CHOOSE_WRITE_NS */
};
/* Pages of the next write of a node with @left pages to go: at least one, at most @left. */
uint64_t choose_write_pages(const struct choose_write *w, uint64_t left);

/* Estimated time of the rest of a pool by @m, in ns: sysfs nodes are filled one after the other
 * (one writer per size, the kernel's resize_lock), fault nodes at once (workers per node).
 * UINT64_MAX when @m was not measured on a node that has pages left. */
uint64_t choose_estimate_ns(const struct choose_node *nodes, size_t n, enum fill_mode m);
/* Whether a fill of @ns still to go is worth a probe of the other method (CHOOSE_PROBE_WORTH_NS). */
bool choose_worth_probing(double ns);
/* Whether the second candidate is worth a probe after the first measured @nodes. */
bool choose_probe_worth(const struct choose_node *nodes, size_t n, enum fill_mode first);
/* The faster method by the estimate; a tie (within 5%) or no measurement goes to @rule's preference. */
enum fill_mode choose_method(const struct choose_rule *rule, const struct choose_node *nodes, size_t n);
/* The fault probe's second step is taken only when its first took less than this: under HVO a
 * page costs a grace period and one step says enough. */
#define CHOOSE_FAULT_STEP2_NS (UINT64_C(10) * 1000 * 1000)
/* Whether a segment that took @took_ns where the estimate said @expected_ns shows a collapse. */
bool choose_collapsed(uint64_t expected_ns, uint64_t took_ns);
/* Pages of node @i's next segment by @m: about @segment_ns at its measured rate, at least one. */
uint64_t choose_segment_pages(const struct choose_node *node, enum fill_mode m, uint64_t segment_ns);

/* What a measured pool reports: the rates, the kernel it ran on, the pick and why. */
struct choice {
        bool measured;         /* the pool was auto with two candidates */
        enum fill_mode method; /* the pick of the last measurement */
        double sysfs_rate, fault_rate; /* pages per second, whole pool, last measurement; 0: not measured */
        unsigned measurements; /* 1, or more after a collapse */
        int hvo;               /* as read at the last measurement */
        char why[192];
};

/* "sysfs 51234 pages/s, fault 98 pages/s: sysfs 522x faster", or why one was not probed. */
void choice_explain(struct choice *c, const struct choose_rule *rule, const struct choose_node *nodes, size_t n);
