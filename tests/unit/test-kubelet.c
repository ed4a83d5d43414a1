/* SPDX-License-Identifier: MIT */
/* status --kubelet: the kubelet's names and quantities, and the pages of the reservations per
 * page size and node as the last fill's record places them. */
#include <stdlib.h>
#include <string.h>

#include "service/status_kubelet.h"
#include "test.h"

#define M2 (UINT64_C(2) << 20)
#define G1 (UINT64_C(1) << 30)

TEST(test_names) {
        char buf[32];

        kubelet_resource_name(M2, buf);
        CHECK(strcmp(buf, "hugepages-2Mi") == 0);
        kubelet_resource_name(G1, buf);
        CHECK(strcmp(buf, "hugepages-1Gi") == 0);
        kubelet_resource_name(64 << 10, buf);
        CHECK(strcmp(buf, "hugepages-64Ki") == 0);
        kubelet_quantity(512 * (UINT64_C(1) << 20), buf);
        CHECK(strcmp(buf, "512Mi") == 0);
        kubelet_quantity(3 * M2 * 512, buf);
        CHECK(strcmp(buf, "3Gi") == 0);
        kubelet_quantity(3 * M2, buf);
        CHECK(strcmp(buf, "6Mi") == 0);
        kubelet_quantity(1000, buf);
        CHECK(strcmp(buf, "1000") == 0);
        kubelet_quantity(0, buf);
        CHECK(strcmp(buf, "0") == 0);
}

TEST(test_holds) {
        struct reserve_found found[3] = {
                { .name = "vm1", .path = "/dev/hugepages/hpfilld/vm1", .page_size = M2, .pages = 5 },
                { .name = "db", .path = "/dev/hugepages1G/hpfilld/db", .page_size = G1, .pages = 2 },
                { .name = "old", .path = "/dev/hugepages/hpfilld/old", .page_size = M2, .pages = 4 },
        };
        struct metrics_reserve rec[2] = {
                { .name = "vm1", .page_size = M2, .pages = 5, .nodes = "0,1", .path = "/dev/hugepages/hpfilld/vm1" },
                { .name = "db", .page_size = G1, .pages = 2, .nodes = "1", .path = "/dev/hugepages1G/hpfilld/db" },
        };
        struct status_data d = { .reserves = found, .n_reserves = 3 };
        struct kubelet_hold h[8];
        size_t n;
        char *text = NULL;
        size_t len = 0;
        FILE *f;

        d.rec.valid = true;
        d.rec.reserves = rec;
        d.rec.n_reserves = 2;
        n = kubelet_holds(&d, h, 8);
        /* sorted by node (unknown first), then page size; vm1's 5 split 3 + 2, as the plan spreads */
        CHECK_EQ(n, 4);
        CHECK(h[0].node == -1 && h[0].page_size == M2 && h[0].pages == 4);
        CHECK(h[1].node == 0 && h[1].page_size == M2 && h[1].pages == 3);
        CHECK(h[2].node == 1 && h[2].page_size == M2 && h[2].pages == 2);
        CHECK(h[3].node == 1 && h[3].page_size == G1 && h[3].pages == 2);

        f = open_memstream(&text, &len);
        CHECK(f);
        status_print_kubelet(&d, f);
        CHECK_EQ(fclose(f), 0);
        CHECK_STR_CONTAINS(text, "\n--system-reserved=hugepages-2Mi=18Mi,hugepages-1Gi=2Gi\n");
        CHECK_STR_CONTAINS(text, "\n--reserved-memory=0:hugepages-2Mi=6Mi\n--reserved-memory=1:hugepages-2Mi=4Mi,hugepages-1Gi=2Gi\n");
        CHECK_STR_CONTAINS(text, "systemReserved:\n  hugepages-2Mi: 18Mi\n  hugepages-1Gi: 2Gi\n");
        CHECK_STR_CONTAINS(text, "reservedMemory:\n  - numaNode: 0\n    limits:\n      hugepages-2Mi: 6Mi\n"
                                 "  - numaNode: 1\n    limits:\n      hugepages-2Mi: 4Mi\n      hugepages-1Gi: 2Gi\n");
        CHECK_STR_CONTAINS(text, "add them to a node's --reserved-memory yourself");
        free(text);

        /* none: said, nothing to paste */
        d.n_reserves = 0;
        text = NULL;
        f = open_memstream(&text, &len);
        CHECK(f);
        status_print_kubelet(&d, f);
        CHECK_EQ(fclose(f), 0);
        CHECK_STR_CONTAINS(text, "nothing to reserve");
        CHECK(!strstr(text, "--system-reserved"));
        free(text);
}

int main(void) {
        RUN(test_names);
        RUN(test_holds);
        return 0;
}
