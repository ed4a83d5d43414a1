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

/* status --json's "kubelet" member for @d (free() it). */
static char *json_printed(const struct status_data *d) {
        struct json_writer w;
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);

        CHECK(f);
        json_writer_init(&w, f);
        json_begin_object(&w);
        status_json_kubelet(d, &w);
        json_end_object(&w);
        CHECK_EQ(json_writer_finish(&w), 0);
        CHECK_EQ(fclose(f), 0);
        return text;
}

/* The comment line just above the first line that begins with @flag. */
static void check_comment_above(const char *text, const char *flag, const char *needle) {
        const char *at = strstr(text, flag), *start;
        char line[512];

        CHECK(at && at > text + 1 && at[-1] == '\n');
        for (start = at - 1; start > text && start[-1] != '\n'; start--)
                ;
        CHECK((size_t) (at - 1 - start) < sizeof(line));
        memcpy(line, start, (size_t) (at - 1 - start));
        line[at - 1 - start] = '\0';
        CHECK(line[0] == '#');
        CHECK_STR_CONTAINS(line, needle);
}

/* Each flag and the KubeletConfiguration say which kubelets take them; and what to do with
 * the others: the pages count as allocatable, order the kubelet after hpfilld (the recipe). */
static void check_versions(const char *text) {
        check_comment_above(text, "--feature-gates=SystemReservedHugepages=true\n", "Kubernetes 1.38");
        check_comment_above(text, "--reserved-memory=", "Kubernetes 1.38");
        check_comment_above(text, "featureGates:\n", "Kubernetes 1.38");
        CHECK_STR_CONTAINS(text, "--feature-gates=SystemReservedHugepages=true\n--system-reserved=");
        CHECK_STR_CONTAINS(text, "count as allocatable");
        CHECK_STR_CONTAINS(text, "kubelet/10-hpfilld.conf");
        CHECK_STR_CONTAINS(text, "restart it after each change of the pools");
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
        char *text, *json;

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
        /* old's 4 pages are on no known node: in neither flag (they must agree), said apart */
        CHECK_STR_CONTAINS(text, "\n--system-reserved=hugepages-2Mi=10Mi,hugepages-1Gi=2Gi\n");
        CHECK_STR_CONTAINS(text, "\n--reserved-memory=0:hugepages-2Mi=6Mi\n--reserved-memory=1:hugepages-2Mi=4Mi,hugepages-1Gi=2Gi\n");
        CHECK_STR_CONTAINS(text, "systemReserved:\n  hugepages-2Mi: 10Mi\n  hugepages-1Gi: 2Gi\n");
        CHECK_STR_CONTAINS(text, "reservedMemory:\n  - numaNode: 0\n    limits:\n      hugepages-2Mi: 6Mi\n"
                                 "  - numaNode: 1\n    limits:\n      hugepages-2Mi: 4Mi\n      hugepages-1Gi: 2Gi\n");
        CHECK_STR_CONTAINS(text, "\n# Not above: hugepages-2Mi=8Mi, on nodes the last fill's record does not name");
        CHECK_STR_CONTAINS(text, "add them by hand to one node's --reserved-memory and to --system-reserved");
        check_versions(text);
        free(text);
        json = json_printed(&d);
        CHECK_STR_CONTAINS(json, "\"system_reserved\": {\"hugepages-2Mi\": \"10Mi\", \"hugepages-1Gi\": \"2Gi\"}");
        /* in bytes: 4 pages of 2 MiB */
        CHECK_STR_CONTAINS(json, "\"unplaced_bytes\": 8388608}");
        free(json);

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

/* On a host with one node with memory, a reservation the record does not place is on that
 * node: both flags count it, and they agree (the kubelet refuses them where they do not). */
TEST(test_one_node) {
        struct topo_node nodes[1] = { { .id = 0, .has_memory = true } };
        struct reserve_found found[2] = {
                { .name = "vm1", .path = "/dev/hugepages/hpfilld/vm1", .page_size = M2, .pages = 50 },
                { .name = "old", .path = "/dev/hugepages/hpfilld/old", .page_size = M2, .pages = 4 },
        };
        struct metrics_reserve rec[1] = {
                { .name = "vm1", .page_size = M2, .pages = 50, .nodes = "0", .path = "/dev/hugepages/hpfilld/vm1" },
        };
        struct status_data d = { .reserves = found, .n_reserves = 2 };
        struct kubelet_hold h[8];
        char *text, *json;

        d.t.nodes = nodes;
        d.t.n_nodes = 1;
        d.rec.valid = true;
        d.rec.reserves = rec;
        d.rec.n_reserves = 1;
        CHECK_EQ(kubelet_holds(&d, h, 8), 1);
        CHECK(h[0].node == 0 && h[0].page_size == M2 && h[0].pages == 54);
        text = printed(&d);
        CHECK_STR_CONTAINS(text, "\n--system-reserved=hugepages-2Mi=108Mi\n");
        CHECK_STR_CONTAINS(text, "\n--reserved-memory=0:hugepages-2Mi=108Mi\n");
        CHECK(!strstr(text, "Not above"));
        check_versions(text);
        free(text);
        json = json_printed(&d);
        CHECK_STR_CONTAINS(json, "\"system_reserved\": {\"hugepages-2Mi\": \"108Mi\"}");
        CHECK_STR_CONTAINS(json, "\"reserved_memory\": [{\"numaNode\": 0, \"limits\": {\"hugepages-2Mi\": \"108Mi\"}}]");
        CHECK_STR_CONTAINS(json, "\"unplaced_bytes\": 0}");
        free(json);

        /* a node without memory holds no huge pages: still one node to place them on */
        {
                struct topo_node two[2] = { { .id = 0, .has_memory = true }, { .id = 1 } };

                d.t.nodes = two;
                d.t.n_nodes = 2;
                CHECK_EQ(kubelet_holds(&d, h, 8), 1);
                CHECK(h[0].node == 0 && h[0].pages == 54);
                two[1].has_memory = true;
                CHECK_EQ(kubelet_holds(&d, h, 8), 2);
                CHECK(h[0].node == -1 && h[0].pages == 4);
        }
}

/* Nothing placed (every reservation unknown to the record, several nodes): no flag to paste. */
TEST(test_all_unplaced) {
        struct reserve_found found[1] = {
                { .name = "old", .path = "/dev/hugepages1G/hpfilld/old", .page_size = G1, .pages = 3 },
        };
        struct status_data d = { .reserves = found, .n_reserves = 1 };
        char *text, *json;

        text = printed(&d);
        CHECK(!strstr(text, "\n--system-reserved="));
        CHECK(!strstr(text, "\n--reserved-memory="));
        CHECK_STR_CONTAINS(text, "# Not above: hugepages-1Gi=3Gi,");
        free(text);
        json = json_printed(&d);
        CHECK_STR_CONTAINS(json, "{\"kubelet\": {\"system_reserved\": {}, \"reserved_memory\": [], \"unplaced_bytes\": 3221225472}}");
        free(json);
}

int main(void) {
        RUN(test_names);
        RUN(test_holds);
        RUN(test_claims);
        RUN(test_one_node);
        RUN(test_all_unplaced);
        return 0;
}
