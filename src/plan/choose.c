/* SPDX-License-Identifier: MIT */
/* Mode=auto: which methods to measure, in which order, and which one carries on. Pure. */
#include <stdio.h>

#include "plan/choose.h"
#include "plan/plan.h"
#include "util/macro.h"

void choose_rule(const struct kernel_features *caps, uint64_t page_size, enum fill_mode mode, struct choose_rule *ret) {
        *ret = (struct choose_rule) { .candidates = { FILL_MODE_SYSFS }, .n = 1, .prefer = FILL_MODE_SYSFS };
        /* Under HVO a faulted page may cost a grace period: Mode=fault there is measured, to warn. */
        if (mode == FILL_MODE_FAULT && page_size < PLAN_GIGANTIC && caps->populate_write && caps->hvo == 1) {
                *ret = (struct choose_rule) { { FILL_MODE_SYSFS, FILL_MODE_FAULT }, 2, FILL_MODE_FAULT, true, "asked for" };
                return;
        }
        if (mode != FILL_MODE_AUTO) {
                ret->candidates[0] = ret->prefer = mode;
                ret->why = "asked for";
                return;
        }
        if (page_size >= PLAN_GIGANTIC) {
                ret->why = "gigantic pages are never surplus: only sysfs grows them";
                return;
        }
        if (!caps->populate_write) {
                ret->why = "no MADV_POPULATE_WRITE on this kernel";
                return;
        }
        /* sysfs is measured first in every case: its step costs at most what faulting the same
         * pages on one CPU costs (it zeroes them once; faulting zeroes them again under
         * init_on_alloc), while a faulted page can cost far more (HVO). The rule only says which
         * one a tie goes to. */
        ret->n = 2;
        ret->candidates[1] = FILL_MODE_FAULT;
        if (caps->init_on_alloc && caps->hvo != 1) {
                ret->prefer = FILL_MODE_FAULT;
                ret->why = "init_on_alloc: sysfs zeroes on one CPU, faulting on all of them";
        } else if (caps->hvo == 1)
                ret->why = "HVO on: each faulted page may wait for an RCU grace period";
        else
                ret->why = "the pool path does not zero pages";
}

static double rate_of(const struct choose_node *n, enum fill_mode m) {
        return m == FILL_MODE_FAULT ? n->fault_rate : n->sysfs_rate;
}

uint64_t choose_estimate_ns(const struct choose_node *nodes, size_t n, enum fill_mode m) {
        double sum = 0, most = 0;

        for (size_t i = 0; i < n; i++) {
                double r = rate_of(&nodes[i], m), t;

                if (nodes[i].left == 0)
                        continue;
                if (r <= 0)
                        return UINT64_MAX;
                t = (double) nodes[i].left * 1e9 / r +
                    (m == FILL_MODE_SYSFS ? nodes[i].sysfs_write_ns : nodes[i].fault_start_ns);
                sum += t;
                most = MAX(most, t);
        }
        sum = m == FILL_MODE_FAULT ? most : sum;
        return sum >= 1.8e19 ? UINT64_MAX : (uint64_t) sum;
}

void choose_fit(uint64_t k1, uint64_t t1, uint64_t k2, uint64_t t2, double *ret_rate, double *ret_fixed_ns) {
        double per_page = k1 + k2 > 0 ? (double) (t1 + t2) / (double) (k1 + k2) : 0;

        *ret_fixed_ns = 0;
        if (k2 > k1 && t2 > t1) {
                double slope = (double) (t2 - t1) / (double) (k2 - k1), fixed = (double) t1 - slope * (double) k1;

                if (fixed > 0 && slope > 0) {
                        per_page = slope;
                        *ret_fixed_ns = fixed;
                }
        }
        *ret_rate = per_page > 0 ? 1e9 / per_page : 0;
}

uint64_t choose_write_pages(const struct choose_write *w, uint64_t left) {
        double ns = (double) (w->write_ns ?: CHOOSE_WRITE_NS), pages;

        if (w->rate <= 0)
                pages = (double) MAX(w->first, UINT64_C(1));
        else {
                /* the pages' part of the write: long enough that the fixed part is a small
                 * share, short enough for a stop */
                ns = MIN(MAX(ns, w->fixed_ns * CHOOSE_WRITE_COST_SHARE), MAX(ns, (double) CHOOSE_WRITE_MAX_NS));
                pages = MAX(w->rate * ns / 1e9, 1.0);
        }
        return (double) left <= pages * 1.5 ? left : (uint64_t) pages;
}

bool choose_worth_probing(double ns) {
        return ns >= (double) CHOOSE_PROBE_WORTH_NS;
}

bool choose_probe_worth(const struct choose_node *nodes, size_t n, enum fill_mode first) {
        return choose_worth_probing((double) choose_estimate_ns(nodes, n, first));
}

enum fill_mode choose_method(const struct choose_rule *rule, const struct choose_node *nodes, size_t n) {
        enum fill_mode a = rule->prefer, b;
        uint64_t ta, tb;

        if (rule->n < 2 || rule->forced)
                return rule->n < 2 ? rule->candidates[0] : rule->prefer;
        b = rule->candidates[0] == a ? rule->candidates[1] : rule->candidates[0];
        ta = choose_estimate_ns(nodes, n, a);
        tb = choose_estimate_ns(nodes, n, b);
        if (tb == UINT64_MAX)
                return a;
        if (ta == UINT64_MAX)
                return b;
        /* the second must be clearly faster: a measurement of a few pages is noisy */
        return (double) tb * 105 < (double) ta * 100 ? b : a;
}

bool choose_collapsed(uint64_t expected_ns, uint64_t took_ns) {
        /* A segment that takes under a millisecond says nothing: timer and scheduling noise. */
        return took_ns > UINT64_C(1000000) && (double) took_ns > (double) expected_ns * CHOOSE_COLLAPSE_FACTOR;
}

uint64_t choose_segment_pages(const struct choose_node *node, enum fill_mode m, uint64_t segment_ns) {
        double pages = rate_of(node, m) * (double) segment_ns / 1e9;

        if (pages < 1)
                return MIN(node->left, UINT64_C(1));
        return pages >= (double) node->left ? node->left : (uint64_t) pages;
}

/* Pages per second of the whole pool by @m, without the cost of the writes. */
static double pool_rate(const struct choose_node *nodes, size_t n, enum fill_mode m) {
        double pages = 0, sum = 0, most = 0;

        for (size_t i = 0; i < n; i++) {
                double r = rate_of(&nodes[i], m);

                if (nodes[i].left == 0)
                        continue;
                if (r <= 0)
                        return 0;
                pages += (double) nodes[i].left;
                sum += (double) nodes[i].left / r;
                most = MAX(most, (double) nodes[i].left / r);
        }
        sum = m == FILL_MODE_FAULT ? most : sum;
        return sum > 0 ? pages / sum : 0;
}

void choice_explain(struct choice *c, const struct choose_rule *rule, const struct choose_node *nodes, size_t n) {
        enum fill_mode other = rule->candidates[0] == c->method ? rule->candidates[1] : rule->candidates[0];
        double mine, theirs;

        c->sysfs_rate = pool_rate(nodes, n, FILL_MODE_SYSFS);
        c->fault_rate = pool_rate(nodes, n, FILL_MODE_FAULT);
        mine = c->method == FILL_MODE_FAULT ? c->fault_rate : c->sysfs_rate;
        theirs = other == FILL_MODE_FAULT ? c->fault_rate : c->sysfs_rate;
        if (theirs <= 0)
                (void) snprintf(c->why, sizeof(c->why),
                                "%s measured at %.0f pages/s, %s not probed: the rest took under %u ms at that rate",
                                fill_mode_to_string(c->method), mine, fill_mode_to_string(other),
                                (unsigned) (CHOOSE_PROBE_WORTH_NS / 1000000));
        else
                (void) snprintf(c->why, sizeof(c->why), "measured %s %.0f pages/s, %s %.0f pages/s: %s %.2fx as fast",
                                fill_mode_to_string(c->method), mine, fill_mode_to_string(other), theirs,
                                fill_mode_to_string(c->method), mine > 0 ? mine / theirs : 0);
}
