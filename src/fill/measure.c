/* SPDX-License-Identifier: MIT */
/* Mode=auto at fill time: each candidate measured on the first pages of every node, the faster
 * carrying on in segments, measured again when a segment's rate collapses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fill/fill_sysfs.h"
#include "fill/measure.h"
#include "util/macro.h"

struct state {
        const struct measure_ops *ops;
        const struct plan_pool *pp;
        struct plan_pool seg;      /* pp's copy with its own nodes: one segment's targets */
        uint64_t *cur;             /* per node: the count now */
        uint64_t *want, *got;      /* per node: pages asked of a segment, and got */
        uint64_t *seg_after;
        struct choose_node *cn;    /* per node: measured rates, pages left */
        unsigned fault_threads;    /* workers the first fault segment's ramp settled on; 0: none yet */
        size_t fault_refused;      /* nodes of the last measurement not faulted: others' free pages */
        struct measure_outcome *out;
};

static void add_result(struct measure_outcome *o, const struct measure_result *res, int r, bool threads) {
        o->elapsed_ns += res->elapsed_ns;
        if (threads)
                o->threads = MAX(o->threads, res->threads);
        o->rounds += res->rounds;
        o->after_drop |= res->after_drop;
        o->interrupted |= res->interrupted;
        if (!o->error && (r < 0 || res->error)) {
                o->error = r < 0 ? r : res->error;
                memcpy(o->error_what, res->error_what, sizeof(o->error_what));
        }
}

/* Runs one segment by @m: node i from cur[i] by want[i] pages. Sets got[] and cur[]; *ret_ns is
 * how long it took. Returns a negative errno, 1 when the fill must end (stopped, failed), else 0. */
static int run_segment(struct state *s, enum fill_mode m, unsigned threads, bool ramp, uint64_t *ret_ns) {
        struct measure_result res = { .after = s->seg_after };
        int r;

        for (size_t i = 0; i < s->pp->n_nodes; i++) {
                struct plan_node *n = &s->seg.nodes[i];

                const struct plan_node *whole = &s->pp->nodes[i];
                /* the surplus pages in use are promoted first (set_max_huge_pages()): those the
                 * segments so far have not made persistent yet, as far as this one goes */
                uint64_t promoted = MIN(whole->promote, s->cur[i] > whole->now ? s->cur[i] - whole->now : 0);

                n->now = s->cur[i];
                n->target = s->cur[i] + s->want[i];
                n->action = s->want[i] ? PLAN_GROW : PLAN_KEEP;
                n->promote = MIN(whole->promote - promoted, s->want[i]);
                n->surplus = whole->surplus - promoted;
                s->seg_after[i] = s->cur[i];
        }
        s->seg.method = m;
        s->seg.threads = m == FILL_MODE_FAULT ? MAX(threads, 1u) : 1;
        s->seg.threads_auto = m == FILL_MODE_FAULT && ramp;
        r = s->ops->run(s->ops->userdata, m, &s->seg, &res);
        /* the threads the report shows: those of the method that carried on */
        add_result(s->out, &res, r, s->out->choice.measurements > 0 && m == s->out->choice.method);
        for (size_t i = 0; i < s->pp->n_nodes; i++) {
                s->got[i] = s->seg_after[i] > s->cur[i] ? s->seg_after[i] - s->cur[i] : 0;
                s->cur[i] = MAX(s->cur[i], s->seg_after[i]);
                /* Fewer than asked: the node is out of pages for now (the method retried already). */
                if (s->want[i])
                        s->cn[i].left = s->got[i] < s->want[i] ? 0 : s->cn[i].left - s->got[i];
        }
        if (m == FILL_MODE_FAULT && ramp && !s->fault_threads)
                s->fault_threads = res.threads;
        *ret_ns = MAX(res.elapsed_ns, UINT64_C(1));
        return r < 0 ? r : res.interrupted || res.error ? 1 : 0;
}

/* Whether the whole pool would fill within CHOOSE_PROBE_WORTH_NS even at the slowest sysfs rate
 * expected (MEASURE_SYSFS_WORST_BPS). */
static bool pool_short_anyway(const struct state *s) {
        double bytes = 0;

        for (size_t i = 0; i < s->pp->n_nodes; i++)
                bytes += (double) s->cn[i].left * (double) s->pp->page_size;
        return !choose_worth_probing(bytes * 1e9 / (double) MEASURE_SYSFS_WORST_BPS);
}

/* Whether node @c's rest, at @k1 pages in @t1 ns, is too short to be worth a fault probe: its
 * share of the threshold over the nodes that have pages left. */
static bool sysfs_rest_short(const struct state *s, const struct choose_node *c, uint64_t k1, uint64_t t1) {
        size_t busy = 0;

        for (size_t i = 0; i < s->pp->n_nodes; i++)
                busy += s->cn[i].left > 0;
        return k1 > 0 && !choose_worth_probing((double) c->left * (double) t1 / (double) k1 * (double) MAX(busy, (size_t) 1));
}

/* Node @i without free pages for a fault probe (measure_ops.clear_for_fault): the pages given
 * back are to add again. */
static bool fault_ready(struct state *s, size_t i) {
        uint64_t was = s->cur[i];
        bool ready;

        if (!s->ops->clear_for_fault)
                return true;
        ready = s->ops->clear_for_fault(s->ops->userdata, i, &s->cur[i]);
        if (s->cur[i] < was)
                s->cn[i].left += was - s->cur[i];
        return ready;
}

/* Measures @m on node @i by two steps, to tell the cost of a step from the cost of a page: sysfs
 * a few pages then four times as many; fault a page per worker then four. Under HVO a sysfs
 * write costs an RCU grace period whatever its size (hugetlb_vmemmap_optimize_folios() waits
 * once per batch): there the sysfs step is the method's own first write, not two; and a faulted
 * page costs one too, so a slow first fault step says enough. */
static int probe_node(struct state *s, enum fill_mode m, size_t i) {
        struct choose_node *c = &s->cn[i];
        bool hvo = s->out->choice.hvo == 1, fault = m == FILL_MODE_FAULT;
        uint64_t ns, k1, t1, workers = s->pp->threads;
        int r;

        memset(s->want, 0, s->pp->n_nodes * sizeof(*s->want));
        if (fault)
                s->want[i] = MIN(c->left, workers);
        else if (!s->pp->rule.forced && pool_short_anyway(s))
                s->want[i] = c->left;
        else if (hvo && !s->pp->rule.forced) {
                /* the method's own first write, as the writer sizes it */
                struct choose_write w = {
                        .first = sysfs_first_step(s->pp->page_size, s->ops->sysfs_step_bytes ?: SYSFS_STEP_BYTES),
                };

                s->want[i] = choose_write_pages(&w, c->left);
        } else
                s->want[i] = MIN(c->left, MAX(UINT64_C(1), MIN((uint64_t) MEASURE_SYSFS_PAGES, c->left / 16)));
        r = run_segment(s, m, s->pp->threads, false, &ns);
        if (r != 0)
                return r;
        k1 = s->got[i];
        t1 = ns;
        /* asked for fault: one small sysfs step, to compare with and no more; nor where the
         * rest is short even at the first step's rate, write cost and all (no probe follows) */
        /* the second fault step from a node without free pages again: the first one's are */
        s->want[i] = fault ? (t1 < CHOOSE_FAULT_STEP2_NS && fault_ready(s, i) ? MIN(c->left, 4 * workers) : 0)
                     : hvo || s->pp->rule.forced || sysfs_rest_short(s, c, k1, t1) ? 0
                                                                                   : MIN(c->left, 4 * k1);
        if (s->want[i] > 0)
                r = run_segment(s, m, s->pp->threads, false, &ns);
        if (fault)
                choose_fit(s->want[i] ? k1 : 0, s->want[i] ? t1 : 0, s->want[i] ? s->got[i] : k1, s->want[i] ? ns : t1,
                           &c->fault_rate, &c->fault_start_ns);
        else
                choose_fit(s->want[i] ? k1 : 0, s->want[i] ? t1 : 0, s->want[i] ? s->got[i] : k1, s->want[i] ? ns : t1,
                           &c->sysfs_rate, &c->sysfs_write_ns);
        return r;
}

/* Measures @m on every node with pages left, one node at a time; fault only where a fault
 * takes no free page of anyone else's (the node is then left to sysfs: no fault rate). */
static int probe(struct state *s, enum fill_mode m) {
        for (size_t i = 0; i < s->pp->n_nodes; i++) {
                int r;

                if (s->cn[i].left == 0)
                        continue;
                if (m == FILL_MODE_FAULT && !fault_ready(s, i)) {
                        s->fault_refused++;
                        continue;
                }
                r = probe_node(s, m, i);
                if (r != 0)
                        return r;
        }
        return 0;
}

/* One measurement: sysfs on every node, then fault where the rest is worth a probe; the pick. */
static int measure(struct state *s) {
        const struct choose_rule *rule = &s->pp->rule;
        struct choice *c = &s->out->choice;
        size_t n = s->pp->n_nodes;
        _cleanup_(freep) struct choose_node *seen = NULL;
        int r;

        c->hvo = s->ops->hvo ? s->ops->hvo(s->ops->userdata, c->measurements) : -1;
        s->fault_refused = 0;
        for (size_t i = 0; i < n; i++)
                s->cn[i].sysfs_rate = s->cn[i].fault_rate = s->cn[i].sysfs_write_ns = s->cn[i].fault_start_ns = 0;
        r = probe(s, rule->candidates[0]);
        if (r == 0 && rule->n > 1 &&
            (rule->forced || choose_probe_worth(s->cn, n, rule->candidates[0])))
                r = probe(s, rule->candidates[1]);
        if (r != 0)
                return r;
        /* The pick and its explanation weigh the nodes by what is left, at least a page each:
         * where the measurement did it all, a method not measured must not win the tie. */
        seen = calloc(n ? n : 1, sizeof(*seen));
        if (!seen)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                bool measured = s->cn[i].sysfs_rate > 0 || s->cn[i].fault_rate > 0;

                seen[i] = (struct choose_node) { s->cn[i].sysfs_rate, s->cn[i].fault_rate,
                                                 measured ? MAX(s->cn[i].left, UINT64_C(1)) : s->cn[i].left,
                                                 s->cn[i].sysfs_write_ns, s->cn[i].fault_start_ns };
        }
        c->method = choose_method(rule, seen, n);
        c->measurements++;
        choice_explain(c, rule, seen, n);
        if (s->fault_refused > 0 && c->fault_rate <= 0)
                (void) snprintf(c->why, sizeof(c->why),
                                "%s measured at %.0f pages/s, fault not probed: the pool has free pages a fault "
                                "would take before it made new ones",
                                fill_mode_to_string(c->method), c->sysfs_rate);
        return 0;
}

static bool any_left(const struct state *s) {
        for (size_t i = 0; i < s->pp->n_nodes; i++)
                if (s->cn[i].left > 0)
                        return true;
        return false;
}

/* --shrink: the nodes above target first, by one sysfs run (it frees free pages only). */
static int shrink_first(struct state *s) {
        struct measure_result res = { .after = s->seg_after };
        bool any = false;
        int r;

        for (size_t i = 0; i < s->pp->n_nodes; i++) {
                s->seg.nodes[i] = s->pp->nodes[i];
                if (s->pp->nodes[i].action != PLAN_SHRINK)
                        s->seg.nodes[i].action = PLAN_KEEP;
                any |= s->pp->nodes[i].action == PLAN_SHRINK;
                s->seg_after[i] = s->cur[i];
        }
        if (!any)
                return 0;
        s->seg.method = FILL_MODE_SYSFS;
        s->seg.threads = 1;
        r = s->ops->run(s->ops->userdata, FILL_MODE_SYSFS, &s->seg, &res);
        add_result(s->out, &res, r, false);
        for (size_t i = 0; i < s->pp->n_nodes; i++)
                if (s->pp->nodes[i].action == PLAN_SHRINK)
                        s->cur[i] = s->seg_after[i];
        return r < 0 ? r : res.interrupted || res.error ? 1 : 0;
}

/* Segments by the pick, each twice as long as the one before, until done; measures again when
 * one took CHOOSE_COLLAPSE_FACTOR times what the rates said. */
static int carry_on(struct state *s) {
        size_t n = s->pp->n_nodes;
        uint64_t segment_ns = CHOOSE_SEGMENT_NS;
        _cleanup_(freep) struct choose_node *part = calloc(n ? n : 1, sizeof(*part));
        int r;

        if (!part)
                return -ENOMEM;
        for (;;) {
                enum fill_mode m = s->out->choice.method;
                bool any = false;
                uint64_t ns, expected;

                for (size_t i = 0; i < n; i++) {
                        s->want[i] = choose_segment_pages(&s->cn[i], m, segment_ns);
                        part[i] = s->cn[i];
                        part[i].left = s->want[i];
                        any |= s->want[i] > 0;
                }
                if (!any)
                        return 0;
                expected = choose_estimate_ns(part, n, m);
                r = run_segment(s, m, s->fault_threads ?: s->pp->threads, !s->fault_threads && s->pp->threads_auto, &ns);
                if (r != 0)
                        return r;
                /* nothing left: a slow last segment has nothing to measure on */
                if (any_left(s) && choose_collapsed(expected, ns) &&
                    s->out->choice.measurements < CHOOSE_MAX_MEASUREMENTS) {
                        r = measure(s);
                        if (r != 0)
                                return r;
                        segment_ns = CHOOSE_SEGMENT_NS;
                } else
                        segment_ns = MIN(segment_ns * 2, UINT64_C(60) * 1000 * 1000 * 1000);
        }
}

int measure_fill(const struct measure_ops *ops, const struct plan_pool *pp, struct measure_outcome *out) {
        struct state s = { .ops = ops, .pp = pp, .seg = *pp, .out = out };
        size_t n = pp->n_nodes ? pp->n_nodes : 1;
        int r = -ENOMEM;

        out->choice = (struct choice) { .measured = true, .method = pp->rule.candidates[0], .hvo = -1,
                                        .why = "stopped before the methods were compared" };
        s.seg.nodes = calloc(n, sizeof(*s.seg.nodes));
        s.cur = calloc(n, sizeof(*s.cur));
        s.want = calloc(n, sizeof(*s.want));
        s.got = calloc(n, sizeof(*s.got));
        s.seg_after = calloc(n, sizeof(*s.seg_after));
        s.cn = calloc(n, sizeof(*s.cn));
        if (!s.seg.nodes || !s.cur || !s.want || !s.got || !s.seg_after || !s.cn)
                goto out;
        for (size_t i = 0; i < pp->n_nodes; i++) {
                s.seg.nodes[i] = pp->nodes[i];
                s.cur[i] = pp->nodes[i].now;
                s.cn[i].left = pp->nodes[i].action == PLAN_GROW ? pp->nodes[i].target - pp->nodes[i].now : 0;
        }
        r = shrink_first(&s);
        if (r == 0 && !any_left(&s)) {
                /* at target, or shrunk only: nothing to measure on */
                out->choice.method = FILL_MODE_SYSFS;
                (void) snprintf(out->choice.why, sizeof(out->choice.why), "no pages to add, nothing measured");
        } else if (r == 0)
                r = measure(&s);
        if (r == 0)
                r = carry_on(&s);
        for (size_t i = 0; i < pp->n_nodes; i++)
                out->after[i] = s.cur[i];
        out->threads = MAX(out->threads, 1u);
out:
        free(s.seg.nodes);
        free(s.cur);
        free(s.want);
        free(s.got);
        free(s.seg_after);
        free(s.cn);
        return r < 0 ? r : 0;
}
