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

/* What status --kubelet prints for @d (free() it). */
static char *printed(const struct status_data *d) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);

        CHECK(f);
        status_print_kubelet(d, f);
        CHECK_EQ(fclose(f), 0);
        return text;
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
        char *text;

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

        text = printed(&d);
        CHECK_STR_CONTAINS(text, "\n--system-reserved=hugepages-2Mi=18Mi,hugepages-1Gi=2Gi\n");
        CHECK_STR_CONTAINS(text, "\n--reserved-memory=0:hugepages-2Mi=6Mi\n--reserved-memory=1:hugepages-2Mi=4Mi,hugepages-1Gi=2Gi\n");
        CHECK_STR_CONTAINS(text, "systemReserved:\n  hugepages-2Mi: 18Mi\n  hugepages-1Gi: 2Gi\n");
        CHECK_STR_CONTAINS(text, "reservedMemory:\n  - numaNode: 0\n    limits:\n      hugepages-2Mi: 6Mi\n"
                                 "  - numaNode: 1\n    limits:\n      hugepages-2Mi: 4Mi\n      hugepages-1Gi: 2Gi\n");
        CHECK_STR_CONTAINS(text, "add them to a node's --reserved-memory yourself");
        free(text);

        /* none: said, nothing to paste */
        d.n_reserves = 0;
        text = printed(&d);
        CHECK_STR_CONTAINS(text, "nothing to reserve");
        CHECK(!strstr(text, "--system-reserved"));
        free(text);
}

/* The claims of the last fill's record count with the reservations, per node as recorded: a
 * claim spread over nodes on each of its nodes, one of a size no reservation has a resource of
 * its own. */
TEST(test_claims) {
        struct reserve_found found[1] = {
                { .name = "vm1", .path = "/dev/hugepages/hpfilld/vm1", .page_size = M2, .pages = 4 },
        };
        struct metrics_reserve rec[1] = {
                { .name = "vm1", .page_size = M2, .pages = 4, .nodes = "0", .path = "/dev/hugepages/hpfilld/vm1" },
        };
        struct metrics_claim claims[3] = {
                { .name = "dom1", .page_size = M2, .node = 0, .pages = 6 },
                { .name = "dom1", .page_size = M2, .node = 1, .pages = 5 },
                { .name = "ovs", .page_size = G1, .node = 1, .pages = 1 },
        };
        struct status_data d = { .reserves = found, .n_reserves = 1 };
        struct kubelet_hold h[8];
        size_t n;
        char *text;

        d.rec.valid = true;
        d.rec.reserves = rec;
        d.rec.n_reserves = 1;
        d.rec.claims = claims;
        d.rec.n_claims = 3;
        n = kubelet_holds(&d, h, 8);
        CHECK_EQ(n, 3);
        CHECK(h[0].node == 0 && h[0].page_size == M2 && h[0].pages == 10);
        CHECK(h[1].node == 1 && h[1].page_size == M2 && h[1].pages == 5);
        CHECK(h[2].node == 1 && h[2].page_size == G1 && h[2].pages == 1);

        text = printed(&d);
        CHECK_STR_CONTAINS(text, "reservations and claims hold outside pods");
        CHECK_STR_CONTAINS(text, "\n--system-reserved=hugepages-2Mi=30Mi,hugepages-1Gi=1Gi\n");
        CHECK_STR_CONTAINS(text, "\n--reserved-memory=0:hugepages-2Mi=20Mi\n--reserved-memory=1:hugepages-2Mi=10Mi,hugepages-1Gi=1Gi\n");
        free(text);

        /* claims alone (no reservation on disk) are something to reserve */
        d.n_reserves = 0;
        n = kubelet_holds(&d, h, 8);
        CHECK_EQ(n, 3);
        CHECK(h[0].node == 0 && h[0].pages == 6);
        /* the claims are the state's, whatever became of the record of the last fill */
        d.rec.valid = false;
        CHECK_EQ(kubelet_holds(&d, h, 8), 3);
}

int main(void) {
        RUN(test_names);
        RUN(test_holds);
        RUN(test_claims);
        return 0;
}
