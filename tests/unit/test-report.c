/* SPDX-License-Identifier: MIT */
/* The report's pool lines: the pool as the kernel has it after the fill, and why. */
#include "plan/report.h"
#include "test.h"

#define MB (UINT64_C(1) << 20)

static void report(const struct plan_node *nodes, size_t n, const uint64_t *after, char *line, size_t size,
                   char *full, size_t full_size) {
        struct plan_pool p = { .page_size = 2 * MB, .method = FILL_MODE_SYSFS, .nodes = (struct plan_node *) nodes,
                               .n_nodes = n };
        struct pool_outcome o = { .after = after, .threads = 1 };
        FILE *f = fmemopen(full, full_size, "w");

        for (size_t i = 0; i < n; i++)
                p.target_total += nodes[i].target;
        report_pool_line(line, size, &p, &o);
        CHECK(f);
        report_pool(f, &p, &o);
        fclose(f);
}

TEST(test_pool_lines) {
        static const struct {
                struct plan_node nodes[2];
                size_t n;
                uint64_t after[2];
                const char *line, *node_line;
        } cases[] = {
                /* 1024 pages and a target of 512, no --shrink: not "512/512" */
                { { { .node = 0, .now = 1024, .target = 512, .action = PLAN_LARGER } }, 1, { 1024 },
                  "2M pool: 1024 pages, above the target of 512, left alone, on 1 node in 0 ms (sysfs, 1 writer)",
                  "node0: 1024 -> 1024 (target 512, larger than target, left alone)" },
                /* --shrink to 0 with 12 pages in use: the kernel keeps them as surplus */
                { { { .node = 0, .now = 100, .target = 0, .action = PLAN_SHRINK } }, 1, { 12 },
                  "2M pool: 12 pages, above the target of 0, pages in use are surplus now, until freed, on 1 node",
                  "node0: 100 -> 12 (target 0, the pages above it are in use: surplus now, they leave the pool when freed)" },
                { { { .node = 0, .now = 100, .target = 0, .action = PLAN_SHRINK } }, 1, { 0 },
                  "2M pool: 0/0 pages on 1 node", "node0: 100 -> 0 (target 0)" },
                { { { .node = 0, .now = 0, .target = 512, .action = PLAN_GROW } }, 1, { 512 },
                  "2M pool: 512/512 pages on 1 node", "node0: 0 -> 512 (target 512)" },
                /* one page: "page", not "pages" */
                { { { .node = 0, .now = 0, .target = 1, .action = PLAN_GROW } }, 1, { 1 },
                  "2M pool: 1/1 page on 1 node", "node0: 0 -> 1 (target 1)" },
                { { { .node = 0, .now = 1, .target = 0, .action = PLAN_LARGER } }, 1, { 1 },
                  "2M pool: 1 page, above the target of 0, left alone", "node0: 1 -> 1" },
                /* a short node wins: the line counts what was obtained */
                { { { .node = 0, .now = 0, .target = 150, .action = PLAN_GROW },
                    { .node = 1, .now = 200, .target = 150, .action = PLAN_LARGER } }, 2, { 141, 200 },
                  "2M pool: 291/300 pages on 2 nodes", "node0: 0 -> 141 (target 150, short)" },
                { { { .node = 0, .now = 0, .target = 150, .action = PLAN_GROW },
                    { .node = 1, .now = 200, .target = 150, .action = PLAN_SHRINK } }, 2, { 150, 160 },
                  "2M pool: 310 pages, above the target of 300, pages in use are surplus now, until freed, on 2 nodes",
                  "node1: 200 -> 160 (target 150, the pages above it" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char line[1024], full[4096] = "";

                report(cases[i].nodes, cases[i].n, cases[i].after, line, sizeof(line), full, sizeof(full));
                CHECK_STR_CONTAINS(line, cases[i].line);
                CHECK_STR_CONTAINS(full, cases[i].node_line);
        }
}

/* A fault pool says how many of its pages the sysfs top-up added: none when faulting made them all. */
TEST(test_fault_by_sysfs) {
        struct plan_node node = { .node = 0, .now = 32, .target = 96, .action = PLAN_GROW };
        struct plan_pool p = { .page_size = 2 * MB, .method = FILL_MODE_FAULT, .nodes = &node, .n_nodes = 1,
                               .target_total = 96 };
        uint64_t after = 96;
        struct pool_outcome o = { .after = &after, .threads = 2, .by_sysfs = 64 };
        char line[512];

        report_pool_line(line, sizeof(line), &p, &o);
        CHECK_STR_CONTAINS(line, "2M pool: 96/96 pages on 1 node in 0 ms (fault, 2 threads/node), 64 of them by sysfs");
        o.by_sysfs = 0;
        report_pool_line(line, sizeof(line), &p, &o);
        CHECK(strstr(line, "by sysfs") == NULL);
        /* no node faulted (each had free pages for its share): no thread ran, and it says so */
        o.threads = 0;
        o.by_sysfs = 64;
        report_pool_line(line, sizeof(line), &p, &o);
        CHECK_STR_CONTAINS(line, "2M pool: 96/96 pages on 1 node in 0 ms (fault, no page faulted), 64 of them by sysfs");
        CHECK(strstr(line, "0 threads") == NULL);
}

int main(void) {
        RUN(test_pool_lines);
        RUN(test_fault_by_sysfs);
        return 0;
}
