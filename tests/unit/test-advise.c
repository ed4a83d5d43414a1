/* SPDX-License-Identifier: MIT */
/* The advisor's boot parameters for pools that came back short. */
#include "plan/advise.h"
#include "test.h"

TEST(test_advice) {
        struct plan_node two[] = { { .node = 0, .target = 512 }, { .node = 1, .target = 256 } };
        struct plan_node one[] = { { .node = 1, .target = 4 } };
        struct plan_pool small = { .page_size = UINT64_C(2) << 20, .nodes = two, .n_nodes = 2 };
        struct plan_pool giant = { .page_size = UINT64_C(1) << 30, .nodes = one, .n_nodes = 1 };
        const struct plan_pool *both[] = { &giant, &small }, *only_giant[] = { &giant };
        char cmdline[256], initramfs[256];

        advise_boot(cmdline, sizeof(cmdline), initramfs, sizeof(initramfs), both, 2, 8);
        CHECK(strcmp(cmdline, "hugepagesz=1G hugepages=1:4 hugepagesz=2M hugepages=0:512,1:256 "
                              "hugepage_alloc_threads=8") == 0);
        CHECK(strcmp(initramfs, "hpfilld.pool=1G:node1=4 hpfilld.pool=2M:node0=512,node1=256") == 0);

        /* gigantic pages only, or a kernel without the parameter: no hugepage_alloc_threads= */
        advise_boot(cmdline, sizeof(cmdline), initramfs, sizeof(initramfs), only_giant, 1, 8);
        CHECK(strcmp(cmdline, "hugepagesz=1G hugepages=1:4") == 0);
        advise_boot(cmdline, sizeof(cmdline), initramfs, sizeof(initramfs), both, 2, 0);
        CHECK(strstr(cmdline, "hugepage_alloc_threads") == NULL);

        /* nothing short: nothing said */
        advise_boot(cmdline, sizeof(cmdline), initramfs, sizeof(initramfs), both, 0, 8);
        CHECK(cmdline[0] == 0 && initramfs[0] == 0);

        /* cut to the buffer, still a string */
        advise_boot(cmdline, 20, initramfs, 10, both, 2, 8);
        CHECK(strlen(cmdline) == 19 && strlen(initramfs) == 9);
}

TEST(test_cma) {
        struct plan_node two[] = { { .node = 0, .target = 512 }, { .node = 1, .target = 256 } };
        struct plan_node giants[] = { { .node = 3, .target = 4 }, { .node = 1, .target = 2 } };
        struct plan_node sixteen[] = { { .node = 1, .target = 1 } };
        struct plan_pool small = { .page_size = UINT64_C(2) << 20, .nodes = two, .n_nodes = 2 };
        struct plan_pool giant = { .page_size = UINT64_C(1) << 30, .nodes = giants, .n_nodes = 2 };
        struct plan_pool huge16 = { .page_size = UINT64_C(16) << 30, .nodes = sixteen, .n_nodes = 1 };
        const struct plan_pool *both[] = { &small, &giant }, *sizes[] = { &giant, &huge16 }, *none[] = { &small };
        char buf[128];

        /* the gigantic pools only, nodes in order */
        advise_cma(buf, sizeof(buf), both, 2);
        CHECK(strcmp(buf, "hugetlb_cma=1:2G,3:4G") == 0);
        /* two gigantic sizes on one node add up */
        advise_cma(buf, sizeof(buf), sizes, 2);
        CHECK(strcmp(buf, "hugetlb_cma=1:18G,3:4G") == 0);
        advise_cma(buf, sizeof(buf), none, 1);
        CHECK(buf[0] == 0);
        advise_cma(buf, sizeof(buf), both, 0);
        CHECK(buf[0] == 0);
        /* cut to the buffer: whole entries only */
        advise_cma(buf, 20, both, 2);
        CHECK(strcmp(buf, "hugetlb_cma=1:2G") == 0);
        advise_cma(buf, 8, both, 2);
        CHECK(buf[0] == 0);
}

TEST(test_release) {
        CHECK(kernel_release_at_least("6.18.44-fc-v782", 6, 15));
        CHECK(kernel_release_at_least("6.15.0", 6, 15));
        CHECK(!kernel_release_at_least("6.1.0-57-cloud-amd64", 6, 15));
        CHECK(kernel_release_at_least("7.0", 6, 15));
        CHECK(!kernel_release_at_least("garbage", 6, 15));
}

/* bench short of its pages: a smaller --size only where it asked for more than one page */
TEST(test_bench_short) {
        char buf[320];

        advise_bench_short(buf, sizeof(buf), 0, 300, 512, 512, UINT64_C(2) << 20);
        CHECK(strcmp(buf, "node0 got 300 of 512 pages: use a smaller --size") == 0);
        advise_bench_short(buf, sizeof(buf), 1, 2, 3, 1, UINT64_C(1) << 30);
        CHECK(strstr(buf, "smaller --size") == NULL);
        CHECK_STR_CONTAINS(buf, "node1 got 2 of 3 pages: not one 1G page could be allocated");
        CHECK_STR_CONTAINS(buf, "hugepagesz=1G hugepages=");
        advise_bench_short(buf, sizeof(buf), 0, 0, 1, 1, UINT64_C(2) << 20);
        CHECK(strstr(buf, "smaller --size") == NULL);
        CHECK_STR_CONTAINS(buf, "not one 2M page could be allocated (the node has no free memory left)");
        CHECK_STR_CONTAINS(buf, "node0 got 0 of 1 page: ");
}

int main(void) {
        RUN(test_advice);
        RUN(test_bench_short);
        RUN(test_cma);
        RUN(test_release);
        return 0;
}
