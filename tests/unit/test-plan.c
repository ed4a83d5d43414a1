/* SPDX-License-Identifier: MIT */
/* Table tests of the pure planner: spreads, remainders, percentages, per-node lists, rejections. */
#include "plan/budget.h"
#include "plan/plan.h"
#include "test.h"

#define MB (UINT64_C(1) << 20)
#define GB (UINT64_C(1) << 30)

/* A machine built in memory: no files at all, the planner never reads any. */
struct machine {
        struct topology t;
        struct topo_node nodes[8];
        uint64_t sizes[2];
        struct pool_counts counts[16];
        struct kernel_features caps;
};

static void machine(struct machine *m, unsigned n_nodes, uint64_t mem, unsigned no_mem_mask, unsigned no_cpu_mask,
                    bool gigantic) {
        static unsigned cpus[8][1];
        static unsigned dist[8][8];

        memset(m, 0, sizeof(*m));
        m->sizes[0] = 2 * MB;
        m->sizes[1] = GB;
        m->t = (struct topology) {
                .numa = true, .nodes = m->nodes, .n_nodes = n_nodes, .page_sizes = m->sizes,
                .n_page_sizes = gigantic ? 2 : 1,
        };
        for (unsigned i = 0; i < n_nodes; i++) {
                cpus[i][0] = i;
                for (unsigned j = 0; j < n_nodes; j++)
                        dist[i][j] = i == j ? 10 : 20 + 10 * (i > j ? i - j : j - i);
                m->nodes[i] = (struct topo_node) {
                        .id = i,
                        .has_memory = !(no_mem_mask & (1u << i)),
                        .mem_total = mem,
                        .cpus = (no_cpu_mask & (1u << i)) ? NULL : cpus[i],
                        .n_cpus = (no_cpu_mask & (1u << i)) ? 0 : 1,
                        .distance = dist[i],
                };
        }
}

static int plan_mode(struct machine *m, const char *spec, enum fill_mode mode, unsigned threads, struct plan *p,
                     struct error *e) {
        struct config c = CONFIG_INIT;
        struct pool_spec s;
        int r;

        c.mode = mode;
        c.threads_per_node = threads;
        CHECK_EQ(parse_pool_spec(spec, &s, e), 0);
        CHECK_EQ(config_put_pool(&c, &s), 0);
        r = plan_build(&m->t, m->counts, &c, &m->caps, p, e);
        config_done(&c);
        return r;
}

static int plan_one(struct machine *m, const char *spec, bool shrink, struct plan *p, struct error *e) {
        struct config c = CONFIG_INIT;
        struct pool_spec s;
        int r;

        c.shrink = shrink;
        r = parse_pool_spec(spec, &s, e);
        CHECK_EQ(r, 0);
        CHECK_EQ(config_put_pool(&c, &s), 0);
        r = plan_build(&m->t, m->counts, &c, &m->caps, p, e);
        config_done(&c);
        return r;
}

static void expect_targets(struct machine *m, const char *spec, const uint64_t *want, size_t n) {
        struct plan p;
        struct error e = {};

        if (plan_one(m, spec, false, &p, &e) < 0)
                fprintf(stderr, "%s: %s\n", spec, e.msg);
        CHECK_EQ(p.n_pools, 1);
        CHECK_EQ(p.pools[0].n_nodes, n);
        for (size_t i = 0; i < n; i++)
                CHECK_EQ(p.pools[0].nodes[i].target, want[i]);
        plan_done(&p);
}

/* Case @i of a table: planned (@r 0) where @want_msg is NULL, else refused with @want_msg in
 * the message. Returns whether it was planned. */
static bool planned_as_wanted(size_t i, int r, const struct error *e, const char *want_msg) {
        if ((r == 0) != !want_msg)
                fprintf(stderr, "case %zu: %d %s\n", i, r, e->msg);
        CHECK_EQ(r == 0, !want_msg);
        if (r < 0)
                CHECK_STR_CONTAINS(e->msg, want_msg);
        return r == 0;
}

TEST(test_one_node) {
        struct machine m;

        machine(&m, 1, 24 * GB, 0, 0, false);
        expect_targets(&m, "2M:512", (const uint64_t[]) { 512 }, 1);
        expect_targets(&m, "2M:1G", (const uint64_t[]) { 512 }, 1);
        expect_targets(&m, "2M:25%", (const uint64_t[]) { 3072 }, 1);
        expect_targets(&m, "2M:node0=100M", (const uint64_t[]) { 50 }, 1);
}

TEST(test_four_nodes) {
        struct machine m;

        machine(&m, 4, 4 * GB, 0, 0, true);
        /* remainder one page each to the lowest nodes */
        expect_targets(&m, "2M:1027", (const uint64_t[]) { 257, 257, 257, 256 }, 4);
        expect_targets(&m, "2M:2", (const uint64_t[]) { 1, 1, 0, 0 }, 4);
        expect_targets(&m, "2M:8G", (const uint64_t[]) { 1024, 1024, 1024, 1024 }, 4);
        expect_targets(&m, "1G:6", (const uint64_t[]) { 2, 2, 1, 1 }, 4);
        expect_targets(&m, "1G:50%", (const uint64_t[]) { 2, 2, 2, 2 }, 4);
        expect_targets(&m, "2M:33%", (const uint64_t[]) { 675, 675, 675, 675 }, 4);
        /* list order does not matter; unlisted nodes are not planned */
        expect_targets(&m, "2M:node3=10,node1=4M", (const uint64_t[]) { 2, 10 }, 2);
}

TEST(test_memory_only_and_memoryless) {
        struct machine m;
        struct plan p;
        struct error e = {};

        /* node 1 has no memory, node 2 has no CPUs */
        machine(&m, 4, 4 * GB, 1u << 1, 1u << 2, false);
        expect_targets(&m, "2M:301", (const uint64_t[]) { 101, 100, 100 }, 3);
        CHECK_EQ(plan_one(&m, "2M:301", false, &p, &e), 0);
        CHECK_EQ(p.pools[0].nodes[1].node, 2);
        /* node 2 has no CPUs: nodes 1 and 3 are both at distance 30, the lower id does its work */
        CHECK_EQ(p.pools[0].nodes[1].cpu_node_idx, 1);
        CHECK_EQ(p.pools[0].nodes[0].cpu_node_idx, 0);
        plan_done(&p);

        CHECK(plan_one(&m, "2M:node1=4", false, &p, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "node1 has no memory");
}

TEST(test_actions) {
        struct machine m;
        struct plan p;
        struct error e = {};

        machine(&m, 3, 4 * GB, 0, 0, false);
        m.counts[0].nr = 10;  /* node0: below */
        m.counts[1].nr = 100; /* node1: at */
        m.counts[2].nr = 300; /* node2: above */
        CHECK_EQ(plan_one(&m, "2M:300", false, &p, &e), 0);
        CHECK_EQ(p.pools[0].nodes[0].action, PLAN_GROW);
        CHECK_EQ(p.pools[0].nodes[1].action, PLAN_KEEP);
        CHECK_EQ(p.pools[0].nodes[2].action, PLAN_LARGER);
        CHECK_EQ(p.pools[0].nodes[2].now, 300);
        CHECK_EQ(p.pools[0].target_total, 300);
        CHECK(plan_has_work(&p));
        CHECK_EQ(p.pools[0].method, FILL_MODE_SYSFS);
        CHECK_EQ(p.pools[0].threads, 1);

        /* min percent, counted per node up to its target */
        uint64_t after[3] = { 100, 100, 300 };
        CHECK_EQ(plan_pool_obtained(&p.pools[0], after), 300);
        CHECK(plan_pool_met(&p.pools[0], 300, 100));
        after[0] = 10;
        CHECK_EQ(plan_pool_obtained(&p.pools[0], after), 210);
        CHECK(!plan_pool_met(&p.pools[0], 210, 71));
        CHECK(plan_pool_met(&p.pools[0], 210, 70));
        plan_done(&p);

        CHECK_EQ(plan_one(&m, "2M:300", true, &p, &e), 0);
        CHECK_EQ(p.pools[0].nodes[2].action, PLAN_SHRINK);
        plan_done(&p);

        m.counts[0].nr = 100;
        m.counts[2].nr = 100;
        CHECK_EQ(plan_one(&m, "2M:300", false, &p, &e), 0);
        CHECK(!plan_has_work(&p));
        plan_done(&p);
}

/* Surplus pages count as missing, and the nodes that grow promote theirs before anything new. */
TEST(test_surplus) {
        struct machine m;
        struct plan p;
        struct error e = {};

        machine(&m, 3, 4 * GB, 0, 0, false);
        m.counts[0] = (struct pool_counts) { .nr = 50, .surplus = 50 };  /* all surplus: 0 persistent */
        m.counts[1] = (struct pool_counts) { .nr = 130, .surplus = 80 }; /* 50 persistent, more surplus */
        m.counts[2] = (struct pool_counts) { .nr = 20, .surplus = 5 };   /* 15 persistent, less */
        CHECK_EQ(plan_one(&m, "2M:150", false, &p, &e), 0);
        CHECK_EQ(p.pools[0].nodes[0].now, 0);
        CHECK_EQ(p.pools[0].nodes[0].action, PLAN_GROW);
        CHECK_EQ(p.pools[0].nodes[0].promote, 50);
        CHECK_EQ(plan_node_new_pages(&p.pools[0].nodes[0]), 0);
        CHECK_EQ(p.pools[0].nodes[1].now, 50);
        CHECK_EQ(p.pools[0].nodes[1].action, PLAN_KEEP);
        CHECK_EQ(p.pools[0].nodes[1].promote, 0);
        CHECK_EQ(p.pools[0].nodes[1].surplus, 80);
        CHECK_EQ(p.pools[0].nodes[2].now, 15);
        CHECK_EQ(p.pools[0].nodes[2].promote, 5);
        CHECK_EQ(plan_node_new_pages(&p.pools[0].nodes[2]), 30);
        CHECK(plan_has_work(&p));
        plan_done(&p);

        m.counts[0] = (struct pool_counts) { .nr = 50, .surplus = 50 };
        CHECK_EQ(plan_one(&m, "2M:node0=20", false, &p, &e), 0);
        CHECK_EQ(p.pools[0].nodes[0].promote, 20);
        CHECK_EQ(plan_node_new_pages(&p.pools[0].nodes[0]), 0);
        plan_done(&p);
}

/* A target of zero empties a pool's free pages, with --shrink only. */
TEST(test_zero_targets) {
        static const char *const specs[] = { "2M:0", "2M:0G", "2M:0%", "2M:node0=0", "2M:node1=4,node0=0" };
        struct machine m;

        machine(&m, 2, 4 * GB, 0, 0, false);
        m.counts[0].nr = 10;
        for (size_t i = 0; i < ELEMENTSOF(specs); i++) {
                struct plan p;
                struct error e = {};

                CHECK(plan_one(&m, specs[i], false, &p, &e) < 0);
                CHECK_STR_CONTAINS(e.msg, "a target of zero gives the pool's free pages back: add --shrink");
                CHECK_STR_CONTAINS(e.msg, specs[i]);
                CHECK_EQ(plan_one(&m, specs[i], true, &p, &e), 0);
                CHECK_EQ(p.pools[0].nodes[0].node, 0);
                CHECK_EQ(p.pools[0].nodes[0].target, 0);
                CHECK_EQ(p.pools[0].nodes[0].action, PLAN_SHRINK);
                CHECK(plan_has_work(&p));
                CHECK(plan_pool_met(&p.pools[0], plan_pool_obtained(&p.pools[0], (const uint64_t[]) { 0, 4 }), 100));
                plan_done(&p);
        }
        /* an empty pool at zero: nothing to do */
        m.counts[0].nr = 0;
        struct plan p;
        struct error e = {};
        CHECK_EQ(plan_one(&m, "2M:0", true, &p, &e), 0);
        CHECK_EQ(p.pools[0].nodes[0].action, PLAN_KEEP);
        CHECK(!plan_has_work(&p));
        plan_done(&p);
}

TEST(test_rejections) {
        static const struct {
                const char *spec, *why;
        } bad[] = {
                { "1G:1", "offers no 1G pages (offered: 2M)" },
                { "16M:1", "offers no 16M pages" },
                { "2M:3M", "3145728 bytes is not a whole number of 2M pages" },
                { "2M:node0=3M", "node0" },
                { "2M:node7=1", "node7 does not exist" },
                { "2M:node0=4,node9=1", "node9 does not exist" },
                { "2M:100T", "more than its memory" },
                { "2M:node1=5G", "node1: 2560 2M pages are more than its memory" },
        };
        struct machine m;

        machine(&m, 2, 4 * GB, 0, 0, false);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                struct plan p = {};
                struct error e = {};

                CHECK(plan_one(&m, bad[i].spec, false, &p, &e) < 0);
                if (!strstr(e.msg, bad[i].why))
                        fprintf(stderr, "%s: %s\n", bad[i].spec, e.msg);
                CHECK_STR_CONTAINS(e.msg, bad[i].why);
                CHECK_STR_CONTAINS(e.msg, "--pool ");
                CHECK(p.pools == NULL);
        }
}

TEST(test_no_memory_anywhere) {
        struct machine m;
        struct plan p;
        struct error e = {};

        machine(&m, 2, 4 * GB, 3, 0, false);
        CHECK(plan_one(&m, "2M:10", false, &p, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "no node has memory");
        CHECK(plan_one(&m, "2M:10%", false, &p, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "no node has memory");
}

TEST(test_methods) {
        static const struct {
                bool init_on_alloc, populate, gigantic;
                int hvo;
                enum fill_mode mode;
                unsigned threads;
                enum fill_mode want, prefer;
                unsigned want_threads;
                const char *why;
        } cases[] = {
                /* auto: measured (FILL_MODE_AUTO) wherever faulting is possible; the rule only
                 * says which method a tie goes to */
                { false, true, false, 0, FILL_MODE_AUTO, 0, FILL_MODE_AUTO, FILL_MODE_SYSFS, 1, "does not zero" },
                { true, true, false, 0, FILL_MODE_AUTO, 0, FILL_MODE_AUTO, FILL_MODE_FAULT, 1, "init_on_alloc" },
                { true, true, false, 1, FILL_MODE_AUTO, 0, FILL_MODE_AUTO, FILL_MODE_SYSFS, PLAN_HVO_FAULT_WORKERS, "HVO on" },
                { false, true, false, 1, FILL_MODE_AUTO, 0, FILL_MODE_AUTO, FILL_MODE_SYSFS, PLAN_HVO_FAULT_WORKERS, "HVO on" },
                { true, false, false, 0, FILL_MODE_AUTO, 0, FILL_MODE_SYSFS, FILL_MODE_SYSFS, 1, "no MADV_POPULATE_WRITE" },
                { true, true, true, 0, FILL_MODE_AUTO, 0, FILL_MODE_SYSFS, FILL_MODE_SYSFS, 1, "never surplus" },
                /* under HVO faulting workers sleep in grace periods: more of them than CPUs */
                { false, true, false, 1, FILL_MODE_FAULT, 0, FILL_MODE_FAULT, FILL_MODE_FAULT, PLAN_HVO_FAULT_WORKERS, "asked for" },
                { false, true, false, 1, FILL_MODE_FAULT, 2, FILL_MODE_FAULT, FILL_MODE_FAULT, 2, "asked for" },
                { false, true, false, 0, FILL_MODE_FAULT, 8, FILL_MODE_FAULT, FILL_MODE_FAULT, 8, "asked for" },
                { false, true, true, 0, FILL_MODE_FAULT, 8, FILL_MODE_SYSFS, FILL_MODE_SYSFS, 1, "never surplus" },
                { true, true, false, 0, FILL_MODE_SYSFS, 4, FILL_MODE_SYSFS, FILL_MODE_SYSFS, 1, "asked for" },
        };
        struct machine m;

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct plan p;
                struct error e = {};

                machine(&m, 2, 4 * GB, 0, 0, true);
                m.caps = (struct kernel_features) { .init_on_alloc = cases[i].init_on_alloc,
                                                .init_on_alloc_source = "init_on_alloc=1 on the kernel command line",
                                                .populate_write = cases[i].populate,
                                                .hvo = cases[i].hvo };
                CHECK_EQ(plan_mode(&m, cases[i].gigantic ? "1G:2" : "2M:10", cases[i].mode, cases[i].threads, &p, &e),
                         0);
                CHECK_EQ(p.pools[0].method, cases[i].want);
                CHECK_EQ(p.pools[0].rule.prefer, cases[i].prefer);
                /* auto, and fault asked for under HVO (to warn when it is far slower), measure at the start */
                bool forced = cases[i].mode == FILL_MODE_FAULT && !cases[i].gigantic && cases[i].hvo == 1;
                CHECK_EQ(p.pools[0].measured, cases[i].want == FILL_MODE_AUTO || forced);
                CHECK_EQ(p.pools[0].rule.forced, forced);
                /* machine() gives each node one CPU: auto is capped there */
                CHECK_EQ(p.pools[0].threads, cases[i].want_threads);
                CHECK_STR_CONTAINS(p.pools[0].method_reason, cases[i].why);
                plan_done(&p);
        }

        /* fault needs MADV_POPULATE_WRITE */
        struct plan p;
        struct error e = {};
        machine(&m, 2, 4 * GB, 0, 0, false);
        CHECK(plan_mode(&m, "2M:10", FILL_MODE_FAULT, 0, &p, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "MADV_POPULATE_WRITE");
}

static int plan_reserve_one(struct machine *m, const char *spec, struct plan *p, struct error *e) {
        struct config c = CONFIG_INIT;
        struct reserve_spec rs;
        int r;

        CHECK_EQ(parse_reserve_spec(spec, &rs, e), 0);
        CHECK_EQ(config_put_reserve(&c, &rs), 0);
        r = plan_build(&m->t, m->counts, &c, &m->caps, p, e);
        config_done(&c);
        return r;
}

TEST(test_reservations) {
        struct machine m;
        struct plan p;
        struct error e = {};

        machine(&m, 3, 4 * GB, 1u << 1, 0, true);
        m.caps.populate_write = true;
        /* spread over the nodes with memory (0 and 2), remainder to the lowest */
        CHECK_EQ(plan_reserve_one(&m, "vm1:2M:5", &p, &e), 0);
        CHECK_EQ(p.n_pools, 0);
        CHECK_EQ(p.n_reserves, 1);
        CHECK(plan_has_work(&p));
        CHECK_EQ(p.reserves[0].pool.n_nodes, 2);
        CHECK_EQ(p.reserves[0].pool.nodes[0].target, 3);
        CHECK_EQ(p.reserves[0].pool.nodes[1].node, 2);
        CHECK_EQ(p.reserves[0].pool.nodes[1].target, 2);
        CHECK_EQ(p.reserves[0].pool.target_total, 5);
        CHECK_EQ(p.reserves[0].pool.method, FILL_MODE_FAULT);
        CHECK_EQ(p.reserves[0].mode, 0600);
        plan_done(&p);

        CHECK_EQ(plan_reserve_one(&m, "vm1:1G:2G@2", &p, &e), 0);
        CHECK_EQ(p.reserves[0].pool.n_nodes, 1);
        CHECK_EQ(p.reserves[0].pool.nodes[0].node, 2);
        CHECK_EQ(p.reserves[0].pool.nodes[0].target, 2);
        CHECK_EQ(p.reserves[0].pool.nodes[0].action, PLAN_GROW);
        plan_done(&p);

        CHECK(plan_reserve_one(&m, "vm1:2M:4@1", &p, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "node1 has no memory");
        CHECK(plan_reserve_one(&m, "vm1:2M:4@9", &p, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "node9 does not exist");
        CHECK(plan_reserve_one(&m, "vm1:2M:3M", &p, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "not a whole number of 2M pages");
        CHECK(plan_reserve_one(&m, "vm1:16M:1", &p, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "offers no 16M pages");
        CHECK(plan_reserve_one(&m, "vm1:2M:9G@0", &p, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "more than its memory");
        m.caps.populate_write = false;
        CHECK(plan_reserve_one(&m, "vm1:2M:4", &p, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "MADV_POPULATE_WRITE");
}

/* Pools and reservations from spec strings ("2M:60%", "r:vm1:2M:100@0"), planned together. */
static int plan_specs(struct machine *m, const char *const *specs, bool shrink, struct plan *p, struct error *e) {
        struct config c = CONFIG_INIT;
        int r;

        c.shrink = shrink;
        for (; *specs; specs++) {
                if (strncmp(*specs, "r:", 2) == 0) {
                        struct reserve_spec rs;

                        CHECK_EQ(parse_reserve_spec(*specs + 2, &rs, e), 0);
                        CHECK_EQ(config_put_reserve(&c, &rs), 0);
                } else {
                        struct pool_spec ps;

                        CHECK_EQ(parse_pool_spec(*specs, &ps, e), 0);
                        CHECK_EQ(config_put_pool(&c, &ps), 0);
                }
        }
        r = plan_build(&m->t, m->counts, &c, &m->caps, p, e);
        config_done(&c);
        return r;
}

TEST(test_headroom) {
        static const struct {
                unsigned n_nodes;
                uint64_t mem, min_free_kbytes, want;
        } cases[] = {
                /* 2% of 24 GiB, twice the whole min_free_kbytes */
                { 1, 24 * GB, 67584, 24 * GB / 100 * 2 + 2 * 67584 * 1024 },
                /* at least 256 MiB; min_free_kbytes shared out by node size */
                { 1, 1 * GB, 0, 256 * MB },
                { 4, 4 * GB, 4096, 256 * MB + 2 * 1024 * 1024 },
                { 2, 64 * GB, 65536, 64 * GB / 100 * 2 + 65536 * 1024 },
        };
        struct machine m;

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                machine(&m, cases[i].n_nodes, cases[i].mem, 0, 0, true);
                m.t.min_free_kbytes = cases[i].min_free_kbytes;
                CHECK_EQ(budget_headroom(&m.t, 0), cases[i].want);
        }
}

/* Per node, every size's pages after the fill must fit in the memory less the headroom. */
TEST(test_budget) {
        static const struct {
                const char *specs[4];
                uint64_t nr_1g; /* 1G pages the node holds now */
                uint64_t in_use_1g; /* of those, not free */
                uint64_t surplus_2m; /* 2M surplus pages the node holds, all in use */
                bool shrink;
                bool ok;
                const char *msg;
        } cases[] = {
                { { "2M:60%", "1G:60%" }, 0, 0, 0, false, false, "node0: 29080 MiB of huge pages planned (2M 14744 MiB (--pool 2M:60%), 1G 14336 MiB (--pool 1G:60%)), more than the 23952 MiB left of its 24576 MiB of memory after 623 MiB of headroom" },
                { { "2M:100%" }, 0, 0, 0, false, false, "MEMORY BUDGET" },
                { { "2M:97%" }, 0, 0, 0, false, true, NULL },
                { { "2M:98%" }, 0, 0, 0, false, false, "node0: 24084 MiB" },
                { { "2M:90%", "1G:1" }, 0, 0, 0, false, true, NULL },
                /* a size not planned counts as it is */
                { { "2M:60%" }, 12, 0, 0, false, false, "(--pool 2M:60%), 1G 12288 MiB)" },
                /* a larger pool left alone counts as it is, a shrunk one by its target */
                { { "2M:60%", "1G:2" }, 12, 0, 0, false, false, "1G 12288 MiB (--pool 1G:2)" },
                { { "2M:60%", "1G:2" }, 12, 0, 0, true, true, NULL },
                /* nothing added: a host already over the budget is left as it is, no error */
                { { "1G:12" }, 12, 0, 0, false, true, NULL },
                /* what the kernel cannot give back counts as it is: the pages in use of a pool to
                 * shrink (only free pages are freed), surplus pages in use beyond what a growth
                 * makes persistent (found by tests/fuzz/fuzz-plan.c) */
                { { "2M:60%", "1G:2" }, 12, 12, 0, true, false, "1G 12288 MiB (--pool 1G:2)" },
                { { "2M:60%", "1G:2" }, 12, 10, 0, true, false, "1G 10240 MiB (--pool 1G:2)" },
                { { "2M:60%", "1G:2" }, 12, 1, 0, true, true, NULL },
                { { "2M:1", "1G:12" }, 0, 0, 6000, false, false, "2M 12000 MiB (--pool 2M:1)" },
                { { "2M:1", "1G:12" }, 0, 0, 1, false, true, NULL },
        };
        struct machine m;

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct plan p;
                struct error e = {};
                int r;

                machine(&m, 1, 24 * GB, 0, 0, true);
                m.t.min_free_kbytes = 67584;
                m.counts[1].nr = cases[i].nr_1g;
                m.counts[1].free = cases[i].nr_1g - cases[i].in_use_1g;
                m.counts[0].nr = m.counts[0].surplus = cases[i].surplus_2m;
                r = plan_specs(&m, cases[i].specs, cases[i].shrink, &p, &e);
                if (planned_as_wanted(i, r, &e, cases[i].ok ? NULL : cases[i].msg))
                        plan_done(&p);
        }
        /* each node on its own: node1 over, node0 under */
        struct plan p;
        struct error e = {};
        machine(&m, 2, 4 * GB, 0, 0, false);
        CHECK(plan_specs(&m, (const char *const[]) { "2M:node0=1G,node1=3900M", NULL }, false, &p, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "node1: 3900 MiB of huge pages planned (2M 3900 MiB (--pool 2M:node0=1G,node1=3900M))");
        CHECK_STR_CONTAINS(e.msg, "more than the 3840 MiB left of its 4096 MiB of memory after 256 MiB of headroom");
}

/* Nodes whose meminfo lags the machine's (/proc/meminfo): the budget is never stricter than the
 * kernel, which grants from all the machine's memory, and still holds the plan to the machine. */
TEST(test_budget_lagging_nodes) {
        static const struct {
                unsigned n_nodes;
                uint64_t counted, machine; /* each node's meminfo, /proc/meminfo */
                const char *specs[3];
                uint64_t want_node0; /* pages planned on node0 when ok */
                const char *msg; /* NULL: planned */
                bool uncounted; /* planned only with what no node counts yet (plan.needs_uncounted) */
        } cases[] = {
                /* the host: node0 says 6 GB, the machine 24 GB, echo 4096 gets them all */
                { 1, 6 * GB, 24 * GB, { "2M:8G" }, 4096, NULL, true },
                { 1, 6 * GB, 24 * GB, { "2M:node0=8G" }, 4096, NULL, true },
                /* what fits in the node's own count needs nothing more (and is not said) */
                { 1, 6 * GB, 24 * GB, { "2M:1G" }, 512, NULL, false },
                /* a percentage is of the node's memory as the machine counts it: within it */
                { 1, 6 * GB, 24 * GB, { "2M:50%" }, 6144, NULL, true },
                { 1, 6 * GB, 24 * GB, { "2M:60%", "1G:60%" }, 0, "more than the 23952 MiB left of its 24576 MiB", false },
                /* what cannot fit in the machine is still refused */
                { 1, 6 * GB, 24 * GB, { "2M:24G" }, 0, "node0: 24576 MiB of huge pages planned (2M 24576 MiB (--pool 2M:24G)), more than the 23952 MiB left of its 24576 MiB of memory after 623 MiB of headroom" },
                /* the same without the machine's count: the nodes' counts are all there is */
                { 1, 6 * GB, 0, { "2M:8G" }, 0, "node0: 4096 2M pages are more than its memory" },
                { 1, 512 * MB, 0, { "1G:node0=1" }, 0, "node0: 1 1G page is more than its memory" },
                { 1, 6 * GB, 0, { "2M:5800M" }, 0, "node0: 5800 MiB of huge pages planned" },
                /* two nodes of 2 GB counted in a machine of 16: each node may hold what no node
                 * counts yet, the sum must fit in the machine */
                { 2, 2 * GB, 16 * GB, { "2M:node0=10G,node1=2G" }, 5120, NULL, true },
                { 2, 2 * GB, 16 * GB, { "2M:node0=10G,node1=6G" }, 0, "the machine: 16384 MiB of huge pages planned on its nodes, more than the 15740 MiB left of its 16384 MiB of memory (/proc/meminfo; the nodes count 4096 MiB) after 644 MiB of headroom" },
                { 2, 2 * GB, 16 * GB, { "2M:node0=10G", "1G:node1=6" }, 0, "the machine: 16384 MiB of huge pages planned on its nodes" },
        };
        struct machine m;

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct plan p;
                struct error e = {};
                int r;

                machine(&m, cases[i].n_nodes, cases[i].counted, 0, 0, true);
                m.t.min_free_kbytes = 67584;
                m.t.machine_mem = cases[i].machine;
                r = plan_specs(&m, cases[i].specs, false, &p, &e);
                if (!planned_as_wanted(i, r, &e, cases[i].msg))
                        continue;
                CHECK_EQ(p.pools[0].nodes[0].target, cases[i].want_node0);
                CHECK_EQ(p.needs_uncounted, cases[i].uncounted);
                plan_done(&p);
        }
}

/* The review's case: two nodes of 12 GiB present, node0 counting 3, node1 all 12, the machine
 * 24: node1, which lags nothing, is held to its 12 (a percentage too), node0 to its present 12. */
TEST(test_budget_one_node_lagging) {
        static const struct {
                const char *specs[3];
                const char *msg; /* NULL: planned */
                uint64_t want_node1;
        } cases[] = {
                { { "2M:node1=17G" }, "node1: 8704 2M pages are more than its memory", 0 },
                { { "2M:node0=10G" }, NULL, 0 },
                { { "2M:node0=13G" }, "node0: 6656 2M pages are more than its memory", 0 },
                { { "2M:50%" }, NULL, 3072 },
                /* 90% of node1's 12 GiB, not of 12 and a share of node0's lag */
                { { "2M:90%" }, NULL, 5529 },
        };
        struct machine m;

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct plan p;
                struct error e = {};
                int r;

                machine(&m, 2, 12 * GB, 0, 0, false);
                m.nodes[0].mem_total = 3 * GB;
                m.nodes[0].present = m.nodes[1].present = 12 * GB;
                m.t.min_free_kbytes = 67584;
                m.t.machine_mem = 24 * GB;
                r = plan_specs(&m, cases[i].specs, false, &p, &e);
                if (!planned_as_wanted(i, r, &e, cases[i].msg))
                        continue;
                if (cases[i].want_node1)
                        CHECK_EQ(p.pools[0].nodes[1].target, cases[i].want_node1);
                plan_done(&p);
        }
}

/* Each reservation must fit in its pool's free pages after the fill, node by node, and in the
 * whole pool's less what others' mappings hold reserved. */
TEST(test_reserve_fits) {
        static const uint64_t resv30[] = { 30, 0 }, resv30_500[] = { 30, 500 };
        static const struct {
                const char *specs[4];
                uint64_t nr, free; /* the 2M pool of each node now */
                bool kept_first;
                bool ok;
                const char *msg;
                const uint64_t *resv; /* others' reserved pages, per page size (2M, 1G) */
        } cases[] = {
                { { "r:vm1:2M:100@0" }, 0, 0, false, false, "vm1:2M:100@0: node0: 100 2M pages to reserve, but the 2M pool will have only 0 free" },
                { { "r:vm1:2M:100@0" }, 100, 100, false, true, NULL },
                /* one page: "page" */
                { { "r:vm1:2M:1@0" }, 0, 0, false, false, "vm1:2M:1@0: node0: 1 2M page to reserve, but the 2M pool will have only 0 free" },
                { { "r:vm1:2M:1" }, 0, 0, false, false, "vm1:2M:1: node0: 1 2M page to reserve, but" },
                { { "r:vm1:2M:100@0" }, 100, 60, false, false, "only 60 free" },
                { { "2M:node0=140", "r:vm1:2M:100@0" }, 100, 60, false, true, NULL },
                { { "2M:node0=139", "r:vm1:2M:100@0" }, 100, 60, false, false, "only 99 free" },
                /* a shrink frees free pages */
                { { "2M:node0=80", "r:vm1:2M:50@0" }, 100, 60, false, false, "only 40 free" },
                /* spread: 50 a node */
                { { "2M:node0=50,node1=49", "r:vm1:2M:100" }, 0, 0, false, false, "node1: 50 2M pages" },
                /* the second counts the first's pages, unless the first is there already */
                { { "2M:300", "r:a:2M:200", "r:b:2M:200" }, 0, 0, false, false, "b:2M:200: node0: 200 2M pages to reserve with the reservations before it, but the 2M pool will have only 150 free" },
                { { "2M:300", "r:a:2M:200", "r:b:2M:200" }, 50, 0, true, true, NULL },
                /* others' mappings hold 30 of the 200 free pages reserved: 170 for us */
                { { "r:vm1:2M:170" }, 100, 100, false, true, NULL, resv30 },
                { { "r:vm1:2M:171" }, 100, 100, false, false, "vm1:2M:171: 171 2M pages to reserve, but the 2M pool will have only 170 free for them: 200 free less 30 reserved by other mappings (resv_hugepages", resv30 },
                /* the pool grown by the plan: its new pages are free */
                { { "2M:130", "r:vm1:2M:100" }, 50, 50, false, true, NULL, resv30 },
                { { "2M:129", "r:vm1:2M:100" }, 50, 50, false, false, "only 99 free for them: 129 free less 30 reserved", resv30 },
                /* with the reservations before it; 1G reservations of others do not count */
                { { "r:a:2M:100", "r:b:2M:71" }, 100, 100, false, false, "b:2M:71: 171 2M pages to reserve with the reservations before it, but the 2M pool will have only 170", resv30 },
                { { "r:a:2M:100", "r:b:2M:70" }, 100, 100, false, true, NULL, resv30_500 },
        };
        struct machine m;

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                bool kept[3] = { cases[i].kept_first };
                struct plan p;
                struct error e = {};
                int r;

                machine(&m, 2, 4 * GB, 0, 0, false);
                m.caps.populate_write = true;
                for (unsigned n = 0; n < 2; n++) {
                        m.counts[n].nr = cases[i].nr;
                        m.counts[n].free = cases[i].free;
                }
                CHECK_EQ(plan_specs(&m, cases[i].specs, true, &p, &e), 0);
                r = plan_check_reserves(&m.t, m.counts, &p, kept, cases[i].resv, &e);
                (void) planned_as_wanted(i, r, &e, cases[i].ok ? NULL : cases[i].msg);
                plan_done(&p);
        }
}

/* A configuration from a file's text: [Pool] and [Claim] sections as the parser reads them. */
static int plan_text(struct machine *m, const char *text, struct plan *p, struct error *e) {
        struct config c = CONFIG_INIT;
        int r;

        CHECK_EQ(config_parse_text(&c, "t.conf", text, strlen(text), e), 0);
        r = plan_build(&m->t, m->counts, &c, &m->caps, p, e);
        config_done(&c);
        return r;
}

#define CLAIM(name, size, amount) "[Claim]\nName=" name "\nPageSize=" size "\nAmount=" amount "\n"
#define POOL(size, amount) "[Pool]\nPageSize=" size "\nAmount=" amount "\n"

/* A pool's target per node: its [Pool] plus the sum of the claims on it, spread or per node. */
TEST(test_claims_sum) {
        struct machine m;
        struct plan p;
        struct error e = {};

        machine(&m, 4, 4 * GB, 0, 0, true);
        CHECK_EQ(plan_text(&m, POOL("2M", "1027") CLAIM("a", "2M", "node1=64M,node3=2") CLAIM("b", "2M", "6")
                                       CLAIM("c", "1G", "node2=1"), &p, &e),
                 0);
        CHECK_EQ(p.n_pools, 2);
        CHECK_EQ(p.pools[0].page_size, 2 * MB);
        CHECK_EQ(p.pools[0].n_nodes, 4);
        /* 257,257,257,256 + 0,32,0,2 + 2,2,1,1 */
        CHECK_EQ(p.pools[0].nodes[0].target, 259);
        CHECK_EQ(p.pools[0].nodes[1].target, 291);
        CHECK_EQ(p.pools[0].nodes[2].target, 258);
        CHECK_EQ(p.pools[0].nodes[3].target, 259);
        CHECK_EQ(p.pools[0].target_total, 1027 + 34 + 6);
        /* a pool only claims name: the nodes they name, from 0 */
        CHECK_EQ(p.pools[1].page_size, GB);
        CHECK_EQ(p.pools[1].n_nodes, 1);
        CHECK_EQ(p.pools[1].nodes[0].node, 2);
        CHECK_EQ(p.pools[1].nodes[0].target, 1);
        CHECK(strcmp(p.pools[1].origin, "t.conf:15") == 0);
        plan_done(&p);

        /* a per-node [Pool] and a claim on another node: both nodes */
        CHECK_EQ(plan_text(&m, POOL("2M", "node0=10") CLAIM("a", "2M", "node3=5"), &p, &e), 0);
        CHECK_EQ(p.pools[0].n_nodes, 2);
        CHECK_EQ(p.pools[0].nodes[0].target, 10);
        CHECK_EQ(p.pools[0].nodes[1].node, 3);
        CHECK_EQ(p.pools[0].nodes[1].target, 5);
        plan_done(&p);

        /* a claim's node that does not exist, or more than the node's memory with the others */
        CHECK(plan_text(&m, CLAIM("a", "2M", "node7=5"), &p, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "t.conf:4: node7 does not exist");
        CHECK(plan_text(&m, POOL("2M", "node0=3G") CLAIM("a", "2M", "node0=2G"), &p, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "node0: 2560 2M pages (with the claims) are more than its memory");
        CHECK(plan_text(&m, CLAIM("a", "16M", "1"), &p, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "t.conf:3: this kernel offers no 16M pages");
}

int main(void) {
        RUN(test_claims_sum);
        RUN(test_headroom);
        RUN(test_budget);
        RUN(test_budget_lagging_nodes);
        RUN(test_budget_one_node_lagging);
        RUN(test_reserve_fits);
        RUN(test_reservations);
        RUN(test_methods);
        RUN(test_one_node);
        RUN(test_four_nodes);
        RUN(test_memory_only_and_memoryless);
        RUN(test_actions);
        RUN(test_surplus);
        RUN(test_zero_targets);
        RUN(test_rejections);
        RUN(test_no_memory_anywhere);
        return 0;
}
