/* SPDX-License-Identifier: MIT */
/* Mode=auto: the pure choice (choose.c), and the measurement (measure.c) on a simulated kernel
 * whose rates each test sets. */
#include <string.h>

#include "fill/measure.h"
#include "test.h"

#define MS (UINT64_C(1000) * 1000)

TEST(test_estimate) {
        struct choose_node n[2] = { { 1000, 100, 500 }, { 1000, 100, 1000 } };

        /* sysfs nodes one after another, fault nodes at once */
        CHECK_EQ(choose_estimate_ns(n, 2, FILL_MODE_SYSFS), 1500 * MS);
        CHECK_EQ(choose_estimate_ns(n, 2, FILL_MODE_FAULT), 10000 * MS);
        n[1].fault_rate = 0; /* not measured on a node with pages left: no estimate */
        CHECK_EQ(choose_estimate_ns(n, 2, FILL_MODE_FAULT), UINT64_MAX);
        n[1].left = 0;
        CHECK_EQ(choose_estimate_ns(n, 2, FILL_MODE_FAULT), 5000 * MS);
}

TEST(test_pick) {
        struct choose_rule rule = { .candidates = { FILL_MODE_SYSFS, FILL_MODE_FAULT }, .n = 2, .prefer = FILL_MODE_SYSFS };
        struct choose_node n = { 1000, 100, 1000 };

        CHECK_EQ(choose_method(&rule, &n, 1), FILL_MODE_SYSFS);
        n.fault_rate = 3000;
        CHECK_EQ(choose_method(&rule, &n, 1), FILL_MODE_FAULT);
        /* within 5%: the preference */
        n.fault_rate = 1040;
        CHECK_EQ(choose_method(&rule, &n, 1), FILL_MODE_SYSFS);
        rule.prefer = FILL_MODE_FAULT;
        n.fault_rate = 980;
        CHECK_EQ(choose_method(&rule, &n, 1), FILL_MODE_FAULT);
        /* not probed: the measured one */
        n.fault_rate = 0;
        CHECK_EQ(choose_method(&rule, &n, 1), FILL_MODE_SYSFS);
        /* one candidate: no choice */
        rule = (struct choose_rule) { .candidates = { FILL_MODE_SYSFS }, .n = 1, .prefer = FILL_MODE_SYSFS };
        n.fault_rate = 1e9;
        CHECK_EQ(choose_method(&rule, &n, 1), FILL_MODE_SYSFS);
}

TEST(test_thresholds) {
        struct choose_node n = { 1000, 0, 249 };

        CHECK(!choose_probe_worth(&n, 1, FILL_MODE_SYSFS));
        n.left = 250;
        CHECK(choose_probe_worth(&n, 1, FILL_MODE_SYSFS));
        CHECK(!choose_collapsed(10 * MS, 39 * MS));
        CHECK(choose_collapsed(10 * MS, 41 * MS));
        CHECK(!choose_collapsed(1000, 900 * 1000)); /* under a millisecond: noise */
        n.left = 1000;
        CHECK_EQ(choose_segment_pages(&n, FILL_MODE_SYSFS, 200 * MS), 200);
        CHECK_EQ(choose_segment_pages(&n, FILL_MODE_SYSFS, 2000 * MS), 1000);
        CHECK_EQ(choose_segment_pages(&n, FILL_MODE_SYSFS, 1), 1);
        n.left = 0;
        CHECK_EQ(choose_segment_pages(&n, FILL_MODE_SYSFS, 1), 0);
}

TEST(test_rule) {
        struct kernel_features caps = { .populate_write = true, .hvo = 1, .init_on_alloc = true };
        struct choose_rule r;

        choose_rule(&caps, 2 << 20, FILL_MODE_AUTO, &r);
        CHECK_EQ(r.n, 2u);
        CHECK_EQ(r.candidates[0], FILL_MODE_SYSFS); /* measured first, always */
        CHECK_EQ(r.prefer, FILL_MODE_SYSFS);
        caps.hvo = 0;
        choose_rule(&caps, 2 << 20, FILL_MODE_AUTO, &r);
        CHECK_EQ(r.candidates[0], FILL_MODE_SYSFS);
        CHECK_EQ(r.prefer, FILL_MODE_FAULT);
        choose_rule(&caps, UINT64_C(1) << 30, FILL_MODE_AUTO, &r);
        CHECK_EQ(r.n, 1u);
        /* fault asked for: as is where HVO is off; under HVO measured against sysfs, kept
         * whatever the rates */
        choose_rule(&caps, 2 << 20, FILL_MODE_FAULT, &r);
        CHECK_EQ(r.n, 1u);
        caps.hvo = 1;
        choose_rule(&caps, 2 << 20, FILL_MODE_FAULT, &r);
        CHECK_EQ(r.n, 2u);
        CHECK(r.forced);
        CHECK_EQ(r.prefer, FILL_MODE_FAULT);
        struct choose_node n = { 50000, 100, 1000 };
        CHECK_EQ(choose_method(&r, &n, 1), FILL_MODE_FAULT);
        choose_rule(&caps, 2 << 20, FILL_MODE_SYSFS, &r);
        CHECK_EQ(r.n, 1u);
}

/* A simulated kernel: each method fills at a rate per node the test sets (sysfs nodes one after
 * the other, fault nodes at once); after @change_after pages the rates become the second pair
 * (HVO turned on mid-fill, memory running short); a node holds at most cap[node] pages. */
struct sim {
        double rate[2][3]; /* [before/after change][mode] */
        uint64_t change_after, total;
        uint64_t nr[2], cap[2];
        unsigned runs[3];
        uint64_t pages[3];
        unsigned stop_after_runs;
        int hvo[2];
        unsigned hvo_nth[4], n_hvo; /* the measurement numbers HVO was asked for, in order */
        double write_ns; /* what a sysfs write costs on top of its pages */
        bool free_pages[2]; /* the node has free pages that are not the fill's: never faulted */
};

static int sim_run(void *u, enum fill_mode m, const struct plan_pool *seg, struct measure_result *res) {
        struct sim *s = u;
        bool changed = s->change_after && s->total >= s->change_after;
        double sum = 0, most = 0;

        if (s->stop_after_runs && s->runs[0] + s->runs[1] + s->runs[2] >= s->stop_after_runs) {
                res->interrupted = true;
                return 0;
        }
        s->runs[m]++;
        for (size_t i = 0; i < seg->n_nodes; i++) {
                const struct plan_node *n = &seg->nodes[i];
                uint64_t got = 0;
                double t;

                if (n->action == PLAN_GROW) {
                        CHECK_EQ(n->now, s->nr[n->node]);
                        CHECK(m != FILL_MODE_FAULT || !s->free_pages[n->node]);
                        got = MIN(n->target - n->now, s->cap[n->node] - s->nr[n->node]);
                }
                s->nr[n->node] += got;
                s->total += got;
                s->pages[m] += got;
                res->after[i] = s->nr[n->node];
                t = (double) got * 1e9 / s->rate[changed][m] + (m == FILL_MODE_SYSFS && got ? s->write_ns : 0);
                sum += t;
                most = MAX(most, t);
        }
        res->elapsed_ns = (uint64_t) (m == FILL_MODE_FAULT ? most : sum);
        res->threads = m == FILL_MODE_FAULT ? seg->threads : 1;
        return 0;
}

static bool sim_clear_for_fault(void *u, size_t i, uint64_t *now) {
        struct sim *s = u;
        return !s->free_pages[i];
}

static int sim_hvo(void *u, unsigned nth) {
        struct sim *s = u;
        s->hvo_nth[s->n_hvo < ELEMENTSOF(s->hvo_nth) ? s->n_hvo : ELEMENTSOF(s->hvo_nth) - 1] = nth;
        s->n_hvo++;
        return s->hvo[s->change_after && s->total >= s->change_after];
}

/* Fills @pages per node on @n nodes, auto with the rule of @prefer; the outcome in @o. */
static int sim_fill(struct sim *s, size_t n, uint64_t pages, enum fill_mode prefer, struct measure_outcome *o,
                    uint64_t *after) {
        struct plan_node nodes[2];
        struct plan_pool pp = {
                .page_size = 2 << 20, .method = FILL_MODE_AUTO, .threads = 2, .threads_auto = true,
                .rule = { .candidates = { FILL_MODE_SYSFS, FILL_MODE_FAULT }, .n = 2, .prefer = prefer, .why = "test" },
                .nodes = nodes, .n_nodes = n,
        };
        struct measure_ops ops = { sim_run, sim_hvo, s, 0, sim_clear_for_fault };

        for (size_t i = 0; i < n; i++) {
                nodes[i] = (struct plan_node) { .node = (unsigned) i, .node_idx = i, .now = s->nr[i],
                                                .target = s->nr[i] + pages, .action = PLAN_GROW };
                if (!s->cap[i])
                        s->cap[i] = UINT64_MAX / 2;
        }
        *o = (struct measure_outcome) { .after = after };
        return measure_fill(&ops, &pp, o);
}

TEST(test_hvo_kernel) {
        /* HVO on a 6.10+ kernel: sysfs 50000 pages/s, a faulted page 10 ms */
        struct sim s = { .rate = { { 0, 50000, 100 } }, .hvo = { 1, 1 } };
        struct measure_outcome o;
        uint64_t after[1];

        CHECK_EQ(sim_fill(&s, 1, 100000, FILL_MODE_FAULT, &o, after), 0);
        CHECK_EQ(after[0], 100000);
        CHECK_EQ(s.nr[0], 100000);
        CHECK_EQ(o.choice.method, FILL_MODE_SYSFS);
        CHECK_EQ(s.runs[FILL_MODE_FAULT], 1u); /* the probe, and no more */
        CHECK_EQ(s.pages[FILL_MODE_FAULT], 2); /* a page per worker (a slow one: no second step), kept in the pool */
        CHECK(o.choice.sysfs_rate > 49000 && o.choice.sysfs_rate < 51000);
        CHECK(o.choice.fault_rate > 99 && o.choice.fault_rate < 101);
        CHECK_EQ(o.choice.hvo, 1);
        CHECK_EQ(o.choice.measurements, 1u);
        CHECK_STR_CONTAINS(o.choice.why, "measured sysfs 50000 pages/s, fault 100 pages/s");
}

TEST(test_fit) {
        double rate, fixed;

        /* 16 pages in 10.2 ms, 64 in 10.8 ms: 12.5 us a page, 10 ms a write */
        choose_fit(16, 10200 * 1000, 64, 10800 * 1000, &rate, &fixed);
        CHECK(rate > 79000 && rate < 81000);
        CHECK(fixed > 9.9e6 && fixed < 10.1e6);
        /* a second step no slower than the first: no line, the plain rate */
        choose_fit(16, 1000 * 1000, 64, 1000 * 1000, &rate, &fixed);
        CHECK_EQ(fixed, 0);
        CHECK(rate > 39000 && rate < 41000);
        choose_fit(0, 0, 10, 1000 * 1000, &rate, &fixed);
        CHECK(rate > 9999 && rate < 10001);
}

TEST(test_write_pages) {
        /* before any rate: the first write, or the whole rest where it is at most half as much again */
        static const struct {
                double rate, fixed_ns;
                uint64_t first, write_ns, left, want;
        } t[] = {
                { 0, 0, 4096, 0, 4096, 4096 },       /* 8 GiB of 2M pages: one write, as echo */
                { 0, 0, 4096, 0, 6144, 6144 },       /* 12 GiB: still one */
                { 0, 0, 4096, 0, 6145, 4096 },
                { 0, 0, 4096, 0, 10, 10 },
                { 0, 0, 0, 0, 10, 1 },               /* at least a page */
                /* 150000 pages/s and 0.2 ms a write: 200 ms a write */
                { 150000, 0.2e6, 4096, 0, 1000000, 30000 },
                { 150000, 0.2e6, 4096, 0, 45000, 45000 }, /* the rest at once */
                { 150000, 0.2e6, 4096, 0, 45001, 30000 },
                /* HVO, 10 ms a write: 500 ms a write, the fixed cost 2% of it */
                { 150000, 10e6, 4096, 0, 1000000, 75000 },
                { 150000, 10e6, 4096, 0, 112500, 112500 },
                /* a fixed cost of 100 ms: writes of 1 s, no longer */
                { 150000, 100e6, 4096, 0, 1000000, 150000 },
                /* a test's write time, shorter than any write: a page a write */
                { 1000, 0, 10, 1, 60, 1 },
                { 1000, 0, 10, 1, 1, 1 },
        };

        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                struct choose_write w = { t[i].rate, t[i].fixed_ns, t[i].first, t[i].write_ns };

                CHECK_EQ(choose_write_pages(&w, t[i].left), t[i].want);
        }
}

TEST(test_costly_writes) {
        /* HVO: a sysfs write costs 10 ms whatever its size, a page 20 us; the first small step
         * alone says 1500 pages/s, and 2000 pages at that rate would be worth probing fault */
        struct sim s = { .rate = { { 0, 50000, 100 } }, .write_ns = 10e6 };
        struct measure_outcome o;
        uint64_t after[1];

        CHECK_EQ(sim_fill(&s, 1, 2000, FILL_MODE_SYSFS, &o, after), 0);
        CHECK_EQ(after[0], 2000);
        CHECK_EQ(s.runs[FILL_MODE_FAULT], 0u);
        CHECK_EQ(o.choice.method, FILL_MODE_SYSFS);
        CHECK(o.choice.sysfs_rate > 49000 && o.choice.sysfs_rate < 51000);

        /* where HVO is known on, no extra write: the first is the method's own, and a fill of
         * up to 12 GiB takes one (8 GiB, 4096 pages: one, as echo) */
        static const uint64_t one_write[] = { 2000, 4096, 6144 };
        for (size_t i = 0; i < sizeof(one_write) / sizeof(one_write[0]); i++) {
                s = (struct sim) { .rate = { { 0, 50000, 100 } }, .write_ns = 10e6, .hvo = { 1, 1 } };
                CHECK_EQ(sim_fill(&s, 1, one_write[i], FILL_MODE_SYSFS, &o, after), 0);
                CHECK_EQ(after[0], one_write[i]);
                CHECK_EQ(s.runs[FILL_MODE_SYSFS], 1u);
                CHECK_EQ(s.runs[FILL_MODE_FAULT], 0u);
        }
        /* 16 GiB: the first write of 8 GiB, then the rest (too short for a fault probe) */
        s = (struct sim) { .rate = { { 0, 50000, 100 } }, .write_ns = 10e6, .hvo = { 1, 1 } };
        CHECK_EQ(sim_fill(&s, 1, 8192, FILL_MODE_SYSFS, &o, after), 0);
        CHECK_EQ(after[0], 8192);
        CHECK_EQ(s.runs[FILL_MODE_SYSFS], 2u);
        CHECK_EQ(s.runs[FILL_MODE_FAULT], 0u);
}

TEST(test_zeroing_kernel) {
        /* init_on_alloc with many CPUs: sysfs zeroes on one, faulting on all of them */
        struct sim s = { .rate = { { 0, 3000, 12000 } } };
        struct measure_outcome o;
        uint64_t after[2];

        CHECK_EQ(sim_fill(&s, 2, 20000, FILL_MODE_SYSFS, &o, after), 0);
        CHECK_EQ(after[0], 20000);
        CHECK_EQ(after[1], 20000);
        CHECK_EQ(o.choice.method, FILL_MODE_FAULT);
        CHECK(s.pages[FILL_MODE_FAULT] > 39000);
        CHECK_EQ(o.threads, 2u);
        CHECK_STR_CONTAINS(o.choice.why, "measured fault");

        /* The same kernel, the nodes with free pages that are not the fill's: never faulted, not
         * even to measure (a fault takes free pages first), so fault is not probed and says why;
         * with one such node, the other is measured, and the pool carries on by sysfs. */
        s = (struct sim) { .rate = { { 0, 3000, 12000 } }, .free_pages = { true, true } };
        CHECK_EQ(sim_fill(&s, 2, 20000, FILL_MODE_FAULT, &o, after), 0);
        CHECK_EQ(after[0], 20000);
        CHECK_EQ(after[1], 20000);
        CHECK_EQ(o.choice.method, FILL_MODE_SYSFS);
        CHECK_EQ(s.runs[FILL_MODE_FAULT], 0u);
        CHECK_STR_CONTAINS(o.choice.why, "fault not probed: the pool has free pages a fault would take");
        s = (struct sim) { .rate = { { 0, 3000, 12000 } }, .free_pages = { true, false } };
        CHECK_EQ(sim_fill(&s, 2, 20000, FILL_MODE_FAULT, &o, after), 0);
        CHECK_EQ(after[1], 20000);
        CHECK(s.runs[FILL_MODE_FAULT] > 0);
        CHECK_EQ(o.choice.method, FILL_MODE_SYSFS);
}

TEST(test_short_fill) {
        /* 1000 pages at 50000 pages/s: 20 ms, not worth a probe of fault */
        struct sim s = { .rate = { { 0, 50000, 100 } } };
        struct measure_outcome o;
        uint64_t after[1];

        CHECK_EQ(sim_fill(&s, 1, 1000, FILL_MODE_FAULT, &o, after), 0);
        CHECK_EQ(after[0], 1000);
        CHECK_EQ(s.runs[FILL_MODE_FAULT], 0u);
        CHECK_EQ(o.choice.method, FILL_MODE_SYSFS);
        CHECK_EQ(s.runs[FILL_MODE_SYSFS], 2u); /* one step (the rest is short even at its rate), the rest in one */
        CHECK_STR_CONTAINS(o.choice.why, "fault not probed");
}

TEST(test_tiny_fill) {
        /* 100 pages (200 MiB): under 250 ms even at 2 GiB/s, so one write, its rate measured */
        struct sim s = { .rate = { { 0, 50000, 100 } } };
        struct measure_outcome o;
        uint64_t after[1];

        CHECK_EQ(sim_fill(&s, 1, 100, FILL_MODE_FAULT, &o, after), 0);
        CHECK_EQ(after[0], 100);
        CHECK_EQ(s.runs[FILL_MODE_SYSFS], 1u);
        CHECK_EQ(s.runs[FILL_MODE_FAULT], 0u);
        CHECK_EQ(o.choice.method, FILL_MODE_SYSFS);
        CHECK(o.choice.sysfs_rate > 49000 && o.choice.sysfs_rate < 51000);
}

TEST(test_node_at_target) {
        /* node 1 at target already: measured on node 0 alone, picked as there */
        struct sim s = { .rate = { { 0, 3000, 12000 } } };
        struct measure_outcome o;
        uint64_t after[2];
        struct plan_node nodes[2] = {
                { .node = 0, .node_idx = 0, .now = 0, .target = 20000, .action = PLAN_GROW },
                { .node = 1, .node_idx = 1, .now = 10, .target = 10, .action = PLAN_KEEP },
        };
        struct plan_pool pp = {
                .page_size = 2 << 20, .method = FILL_MODE_AUTO, .threads = 2,
                .rule = { .candidates = { FILL_MODE_SYSFS, FILL_MODE_FAULT }, .n = 2, .prefer = FILL_MODE_SYSFS },
                .nodes = nodes, .n_nodes = 2,
        };
        struct measure_ops ops = { sim_run, sim_hvo, &s };

        s.nr[1] = 10;
        s.cap[0] = s.cap[1] = UINT64_MAX / 2;
        o = (struct measure_outcome) { .after = after };
        CHECK_EQ(measure_fill(&ops, &pp, &o), 0);
        CHECK_EQ(after[0], 20000);
        CHECK_EQ(after[1], 10);
        CHECK_EQ(o.choice.method, FILL_MODE_FAULT);
}

TEST(test_nothing_to_add) {
        struct sim s = { .rate = { { 0, 3000, 12000 } } };
        struct measure_outcome o;
        uint64_t after[1];

        CHECK_EQ(sim_fill(&s, 1, 0, FILL_MODE_FAULT, &o, after), 0);
        CHECK_EQ(s.runs[FILL_MODE_SYSFS] + s.runs[FILL_MODE_FAULT], 0u);
        CHECK_EQ(o.choice.method, FILL_MODE_SYSFS);
        CHECK_STR_CONTAINS(o.choice.why, "nothing measured");
}

TEST(test_collapse) {
        /* faulting wins until HVO is turned on mid-fill: measured again, sysfs carries on */
        struct sim s = { .rate = { { 0, 3000, 12000 }, { 0, 3000, 100 } }, .change_after = 5000, .hvo = { 0, 1 } };
        struct measure_outcome o;
        uint64_t after[1];

        CHECK_EQ(sim_fill(&s, 1, 100000, FILL_MODE_SYSFS, &o, after), 0);
        CHECK_EQ(after[0], 100000);
        CHECK(o.choice.measurements >= 2);
        CHECK_EQ(o.choice.method, FILL_MODE_SYSFS);
        CHECK_EQ(o.choice.hvo, 1);
        /* each measurement asks for HVO by its number: the fill reads it again after the first */
        CHECK_EQ(s.n_hvo, o.choice.measurements);
        CHECK_EQ(s.hvo_nth[0], 0);
        CHECK_EQ(s.hvo_nth[1], 1);
        /* the segment that showed the collapse ran to its end: at most twice the ones before */
        CHECK(s.pages[FILL_MODE_FAULT] < 4 * 5000);
        CHECK(s.pages[FILL_MODE_SYSFS] > 80000);
}

TEST(test_no_collapse) {
        /* a steady kernel is measured once, however long the fill */
        struct sim s = { .rate = { { 0, 3000, 12000 } } };
        struct measure_outcome o;
        uint64_t after[1];

        CHECK_EQ(sim_fill(&s, 1, 1000000, FILL_MODE_SYSFS, &o, after), 0);
        CHECK_EQ(o.choice.measurements, 1u);
        CHECK_EQ(after[0], 1000000);
        /* segments double: few runs for a long fill */
        CHECK(s.runs[FILL_MODE_FAULT] < 16);
}

TEST(test_short_node) {
        /* node 1 runs out of memory: the fill ends with what it got */
        struct sim s = { .rate = { { 0, 3000, 12000 } }, .cap = { 0, 700 } };
        struct measure_outcome o;
        uint64_t after[2];

        CHECK_EQ(sim_fill(&s, 2, 5000, FILL_MODE_SYSFS, &o, after), 0);
        CHECK_EQ(after[0], 5000);
        CHECK_EQ(after[1], 700);
}

TEST(test_interrupted) {
        struct sim s = { .rate = { { 0, 3000, 12000 } }, .stop_after_runs = 2 };
        struct measure_outcome o;
        uint64_t after[1];

        CHECK_EQ(sim_fill(&s, 1, 100000, FILL_MODE_SYSFS, &o, after), 0);
        CHECK(o.interrupted);
        CHECK(after[0] < 100000);
        CHECK_EQ(after[0], s.nr[0]);
}

int main(void) {
        RUN(test_estimate);
        RUN(test_pick);
        RUN(test_thresholds);
        RUN(test_rule);
        RUN(test_hvo_kernel);
        RUN(test_fit);
        RUN(test_write_pages);
        RUN(test_costly_writes);
        RUN(test_zeroing_kernel);
        RUN(test_short_fill);
        RUN(test_tiny_fill);
        RUN(test_node_at_target);
        RUN(test_nothing_to_add);
        RUN(test_collapse);
        RUN(test_no_collapse);
        RUN(test_short_node);
        RUN(test_interrupted);
        return 0;
}
