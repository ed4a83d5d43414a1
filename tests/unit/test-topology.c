/* SPDX-License-Identifier: MIT */
/* Topology and pool counters read from fake sysfs trees, odd ones included. */
#include <stdio.h>
#include <stdlib.h>

#include "fake-root.h"
#include "kernel/pool.h"
#include "test.h"
#include <unistd.h>

#include "kernel/topology.h"

static const unsigned sizes[] = { 2048, 1048576, 0 };

TEST(test_numa_machine) {
        struct fake_root r;
        struct topology t = {};
        struct error e = {};

        fake_root_new(&r);
        /* 4 nodes, node 2 without CPUs */
        fake_numa_machine(&r, 4, 1024, 1u << 2, sizes);
        CHECK_EQ(topology_read(r.fd, &t, &e), 0);
        CHECK(t.numa);
        CHECK_EQ(t.n_nodes, 4);
        CHECK_EQ(t.n_page_sizes, 2);
        CHECK_EQ(t.page_sizes[0], 2 << 20);
        CHECK_EQ(t.page_sizes[1], 1 << 30);
        CHECK(topology_has_page_size(&t, 1 << 30));
        CHECK(!topology_has_page_size(&t, 16 << 20));
        CHECK_EQ(t.nodes[0].n_cpus, 2);
        CHECK_EQ(t.nodes[2].n_cpus, 0);
        CHECK_EQ(t.nodes[3].cpus[1], 5);
        CHECK_EQ(t.nodes[1].mem_total, UINT64_C(1024) << 20);
        CHECK(t.nodes[3].has_memory);
        CHECK_EQ(t.nodes[2].distance[3], 30);
        /* memory-only node 2: nodes 1 and 3 are both at 30; the lower id wins */
        CHECK_EQ(topology_cpu_node_for(&t, 2), 1);
        CHECK_EQ(topology_cpu_node_for(&t, 3), 3);
        CHECK_EQ(topology_node_index(&t, 3), 3);
        CHECK_EQ(topology_node_index(&t, 7), -ENOENT);
        topology_done(&t);

        /* counters */
        struct pool_counts c;
        fake_set_node_pool(&r, 1, 2048, 17, 5);
        CHECK_EQ(topology_read(r.fd, &t, &e), 0);
        CHECK_EQ(pool_read_counts(r.fd, &t, 1, 2 << 20, &c), 0);
        CHECK_EQ(c.nr, 17);
        CHECK_EQ(c.free, 5);
        CHECK_EQ(pool_write_nr(r.fd, &t, 1, 2 << 20, 40), 0);
        CHECK_EQ(fake_node_nr(&r, 1, 2048), 40);
        /* the counters stay open after their first read, and each read shows them as they are now */
        CHECK(t.counter_fds[(0 * t.n_nodes + 1) * TOPOLOGY_COUNTERS + 0] >= 0);
        CHECK_EQ(pool_read_counts(r.fd, &t, 1, 2 << 20, &c), 0);
        CHECK_EQ(c.nr, 40);
        fake_write(&r, "sys/devices/system/node/node1/hugepages/hugepages-2048kB/free_hugepages", "1234\n");
        CHECK_EQ(pool_read_counts(r.fd, &t, 1, 2 << 20, &c), 0);
        CHECK_EQ(c.free, 1234);
        /* resv_hugepages of the whole pool the same way, in a slot of each page size's after them */
        uint64_t resv = 0;
        fake_write(&r, "sys/kernel/mm/hugepages/hugepages-2048kB/resv_hugepages", "3\n");
        CHECK_EQ(pool_read_resv(r.fd, &t, 2 << 20, &resv), 0);
        CHECK_EQ(resv, 3);
        CHECK(t.counter_fds[t.n_page_sizes * t.n_nodes * TOPOLOGY_COUNTERS + 0] >= 0);
        CHECK(t.counter_fds[t.n_page_sizes * t.n_nodes * TOPOLOGY_COUNTERS + 1] < 0);
        CHECK_EQ(topology_counter_slots(&t), t.n_page_sizes * t.n_nodes * TOPOLOGY_COUNTERS + t.n_page_sizes);
        fake_write(&r, "sys/kernel/mm/hugepages/hugepages-2048kB/resv_hugepages", "9\n");
        CHECK_EQ(pool_read_resv(r.fd, &t, 2 << 20, &resv), 0);
        CHECK_EQ(resv, 9);
        /* each size its own: 1G's in the slot after 2M's, read from its own file */
        fake_write(&r, "sys/kernel/mm/hugepages/hugepages-1048576kB/resv_hugepages", "2\n");
        CHECK_EQ(pool_read_resv(r.fd, &t, 1 << 30, &resv), 0);
        CHECK_EQ(resv, 2);
        CHECK(t.counter_fds[t.n_page_sizes * t.n_nodes * TOPOLOGY_COUNTERS + 1] >= 0);
        CHECK_EQ(pool_read_resv(r.fd, &t, 2 << 20, &resv), 0);
        CHECK_EQ(resv, 9);
        /* the free pages a fault may take: the node's, at most the pool's not reserved (9) */
        fake_write(&r, "sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "12\n");
        fake_write(&r, "sys/devices/system/node/node1/hugepages/hugepages-2048kB/free_hugepages", "5\n");
        CHECK_EQ(pool_read_takeable(r.fd, &t, 1, 2 << 20, &resv), 0);
        CHECK_EQ(resv, 3);
        fake_write(&r, "sys/devices/system/node/node1/hugepages/hugepages-2048kB/free_hugepages", "2\n");
        CHECK_EQ(pool_read_takeable(r.fd, &t, 1, 2 << 20, &resv), 0);
        CHECK_EQ(resv, 2);
        fake_write(&r, "sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "9\n");
        CHECK_EQ(pool_read_takeable(r.fd, &t, 1, 2 << 20, &resv), 0);
        CHECK_EQ(resv, 0);
        /* a size the machine has not: read from its path, which is not there */
        CHECK_EQ(pool_read_resv(r.fd, &t, 16 << 20, &resv), -ENOENT);
        /* a counter of another root is read from there, not from the kept one */
        CHECK_EQ(pool_read_counts(-1, &t, 1, 2 << 20, &c), -EBADF);
        /* Node3 holds 5 surplus pages (of 12): node1's count goes to nr_hugepages_mempolicy as
         * the global persistent count, 7 (node3) + 44; node1's own file is not written. */
        fake_set_node_pool(&r, 3, 2048, 12, 0);
        fake_write(&r, "sys/devices/system/node/node3/hugepages/hugepages-2048kB/surplus_hugepages", "5\n");
        CHECK_EQ(pool_write_nr(r.fd, &t, 1, 2 << 20, 44), 0);
        CHECK_EQ(fake_node_nr(&r, 1, 2048), 40);
        CHECK_EQ(fake_read_u64(&r, "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages_mempolicy"), 51);
        /* node3's own write: its own surplus pages do not count, its file is written */
        CHECK_EQ(pool_write_nr(r.fd, &t, 3, 2 << 20, 20), 0);
        CHECK_EQ(fake_node_nr(&r, 3, 2048), 20);
        CHECK_EQ(pool_compact_node(r.fd, &t, 1), 0);
        CHECK_EQ(fake_read_u64(&r, "sys/devices/system/node/node1/compact"), 1);
        /* a file the kernel has: written, not created */
        CHECK_EQ(pool_drop_caches(r.fd), -ENOENT);
        fake_write(&r, "proc/sys/vm/drop_caches", "0\n");
        CHECK_EQ(pool_drop_caches(r.fd), 0);
        CHECK_EQ(fake_read_u64(&r, "proc/sys/vm/drop_caches"), 3);
        CHECK_EQ(pool_read_counts(r.fd, &t, 9, 2 << 20, &c), -ENOENT);
        topology_done(&t);
        fake_root_free(&r);
}

TEST(test_memory_list) {
        struct fake_root r;
        struct topology t = {};
        struct error e = {};

        fake_root_new(&r);
        fake_numa_machine(&r, 3, 512, 0, sizes);
        fake_write(&r, "sys/devices/system/node/has_memory", "0,2\n");
        CHECK_EQ(topology_read(r.fd, &t, &e), 0);
        CHECK(t.nodes[0].has_memory);
        CHECK(!t.nodes[1].has_memory);
        CHECK(t.nodes[2].has_memory);
        topology_done(&t);
        fake_root_free(&r);
}

TEST(test_flat_machine) {
        struct fake_root r;
        struct topology t = {};
        struct error e = {};
        uint64_t nr;

        fake_root_new(&r);
        fake_write(&r, "proc/meminfo", "MemTotal:        8000000 kB\nMemFree:         7000000 kB\n");
        fake_write(&r, "sys/devices/system/cpu/online", "0-3\n");
        fake_write(&r, "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "3\n");
        CHECK_EQ(topology_read(r.fd, &t, &e), 0);
        CHECK(e.msg[0] == 0); /* a kernel without NUMA is no error: nothing is left to say */
        CHECK(!t.numa);
        CHECK_EQ(t.n_nodes, 1);
        CHECK_EQ(t.nodes[0].id, 0);
        CHECK_EQ(t.nodes[0].n_cpus, 4);
        CHECK_EQ(t.nodes[0].mem_total, UINT64_C(8000000) * 1024);
        CHECK_EQ(pool_read_nr(r.fd, &t, 0, 2 << 20, &nr), 0);
        CHECK_EQ(nr, 3);
        topology_done(&t);
        fake_root_free(&r);
}

/* The nodes' meminfo lagging /proc/meminfo (memory initialised lazily): what no node counts
 * yet is said, shared out by node size for percentages, and any node's for the limits. */
TEST(test_lagging_nodes) {
        static const struct {
                const char *meminfo; /* the machine's, beside two nodes of 1024 MiB */
                uint64_t uncounted, share, limit; /* MiB */
        } cases[] = {
                { "MemTotal:        8388608 kB\n", 6144, 4096, 7168 },
                /* within 1% of the nodes' sum: they agree */
                { "MemTotal:        2117000 kB\n", 0, 1024, 1024 },
                { "MemTotal:        2097152 kB\n", 0, 1024, 1024 },
                /* the machine counting less than its nodes is no lag */
                { "MemTotal:        1048576 kB\n", 0, 1024, 1024 },
                /* no machine count: nothing to compare */
                { NULL, 0, 1024, 1024 },
                { "garbage\n", 0, 1024, 1024 },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct fake_root r;
                struct topology t = {};
                struct error e = {};

                fake_root_new(&r);
                fake_numa_machine(&r, 2, 1024, 0, sizes);
                if (cases[i].meminfo)
                        fake_write(&r, "proc/meminfo", cases[i].meminfo);
                CHECK_EQ(topology_read(r.fd, &t, &e), 0);
                CHECK_EQ(topology_nodes_mem(&t), UINT64_C(2048) << 20);
                CHECK_EQ(topology_uncounted(&t) >> 20, cases[i].uncounted);
                CHECK_EQ(topology_node_share(&t, 1) >> 20, cases[i].share);
                CHECK_EQ(topology_node_limit(&t, 1) >> 20, cases[i].limit);
                /* the nodes' own counts are kept as read */
                CHECK_EQ(t.nodes[1].mem_total, UINT64_C(1024) << 20);
                topology_done(&t);
                fake_root_free(&r);
        }
}

/* Where the counts lag, /proc/zoneinfo's present pages say which node lags: node0 counts 1024
 * MiB of its 7168 present, node1 all its 1024; without zoneinfo (or a bad one), the shares of
 * what no node counts, as above. */
TEST(test_lagging_node_zones) {
        long page = sysconf(_SC_PAGESIZE);
        struct fake_root r;
        struct topology t = {};
        struct error e = {};
        char zoneinfo[1024];

        fake_root_new(&r);
        fake_numa_machine(&r, 2, 1024, 0, sizes);
        fake_write(&r, "proc/meminfo", "MemTotal:        8388608 kB\n");
        /* node0: 1024 MiB in DMA32 and 6144 in Normal; node1: 1024 in Normal (pages of @page) */
        (void) snprintf(zoneinfo, sizeof(zoneinfo),
                        "Node 0, zone    DMA32\n  pages free     3\n        present  %ld\n        managed  %ld\n"
                        "Node 0, zone   Normal\n        present  %ld\n        managed  1\n"
                        "Node 1, zone   Normal\n        present  %ld\n        managed  %ld\n"
                        "Node 1, zone  Movable\n        present  0\n",
                        (1024L << 20) / page, (1024L << 20) / page, (6144L << 20) / page, (1024L << 20) / page,
                        (1024L << 20) / page);
        fake_write(&r, "proc/zoneinfo", zoneinfo);
        CHECK_EQ(topology_read(r.fd, &t, &e), 0);
        CHECK_EQ(topology_uncounted(&t) >> 20, 6144);
        CHECK_EQ(t.nodes[0].present >> 20, 7168);
        CHECK_EQ(t.nodes[1].present >> 20, 1024);
        CHECK_EQ(topology_node_limit(&t, 0) >> 20, 7168);
        CHECK_EQ(topology_node_share(&t, 0) >> 20, 7168);
        /* the node that lags nothing holds what it counts, no more */
        CHECK_EQ(topology_node_limit(&t, 1) >> 20, 1024);
        CHECK_EQ(topology_node_share(&t, 1) >> 20, 1024);
        topology_done(&t);

        /* a bad one: unknown, the shares as without it */
        fake_write(&r, "proc/zoneinfo", "Node 0, zone   Normal\n        present  many\n");
        CHECK_EQ(topology_read(r.fd, &t, &e), 0);
        CHECK_EQ(t.nodes[0].present, 0);
        CHECK_EQ(topology_node_limit(&t, 1) >> 20, 7168);
        topology_done(&t);
        fake_root_free(&r);

        /* one node with memory (node1 has none): what no node counts is its own, zoneinfo is
         * not read (its present pages, which would say 7168, stay unknown) */
        fake_root_new(&r);
        fake_numa_machine(&r, 2, 1024, 0, sizes);
        fake_write(&r, "sys/devices/system/node/has_memory", "0\n");
        fake_write(&r, "proc/meminfo", "MemTotal:        8388608 kB\n");
        fake_write(&r, "proc/zoneinfo", zoneinfo);
        CHECK_EQ(topology_read(r.fd, &t, &e), 0);
        CHECK_EQ(topology_uncounted(&t) >> 20, 7168);
        CHECK_EQ(t.nodes[0].present, 0);
        CHECK_EQ(topology_node_share(&t, 0) >> 20, 8192);
        CHECK_EQ(topology_node_limit(&t, 0) >> 20, 8192);
        topology_done(&t);
        fake_root_free(&r);
}

/* A node directory without its online file is a broken NUMA tree, not a machine without NUMA;
 * one that cannot be opened (a symbolic link: never followed) says so, before its file. */
TEST(test_node_dir_without_online) {
        struct fake_root r;
        struct topology t = {};
        struct error e = {};

        fake_root_new(&r);
        fake_numa_machine(&r, 2, 512, 0, sizes);
        CHECK_EQ(unlinkat(r.fd, "sys/devices/system/node/online", 0), 0);
        CHECK(topology_read(r.fd, &t, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "node/online: cannot read");
        CHECK(t.nodes == NULL);
        fake_root_free(&r);

        fake_root_new(&r);
        fake_numa_machine(&r, 2, 512, 0, sizes);
        CHECK_EQ(renameat(r.fd, "sys/devices/system/node", r.fd, "sys/devices/system/real-node"), 0);
        CHECK_EQ(symlinkat("real-node", r.fd, "sys/devices/system/node"), 0);
        CHECK(topology_read(r.fd, &t, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "sys/devices/system/node: cannot open");
        CHECK(t.nodes == NULL);
        fake_root_free(&r);
}

TEST(test_odd_sysfs) {
        static const struct {
                const char *file, *content, *why;
        } odd[] = {
                { "sys/devices/system/node/online", "abc\n", "is not an id list" },
                { "sys/devices/system/node/online", "\n", "no online node" },
                { "sys/devices/system/node/has_memory", "0-\n", "is not an id list" },
                { "sys/devices/system/node/node1/cpulist", "x\n", "node1/cpulist" },
                { "sys/devices/system/node/node0/meminfo", "garbage\n", "no valid 'Node 0 MemTotal:' line" },
                { "sys/devices/system/node/node0/meminfo", "Node 0 MemTotal: 12 MB\n", "no valid" },
                /* node1 has no CPUs: its distances are read */
                { "sys/devices/system/node/node1/distance", "10 zz\n", "not a distance list" },
                { "sys/devices/system/node/node1/distance", "10 20 30\n", "more entries than online nodes" },
                { "sys/devices/system/node/node1/distance", "10\n", "not a distance list" },
        };

        for (size_t i = 0; i < ELEMENTSOF(odd); i++) {
                struct fake_root r;
                struct topology t = {};
                struct error e = {};

                fake_root_new(&r);
                fake_numa_machine(&r, 2, 512, 1u << 1, sizes);
                fake_write(&r, odd[i].file, odd[i].content);
                CHECK(topology_read(r.fd, &t, &e) < 0);
                if (!strstr(e.msg, odd[i].why))
                        fprintf(stderr, "case %zu: %s\n", i, e.msg);
                CHECK_STR_CONTAINS(e.msg, odd[i].why);
                CHECK(t.nodes == NULL);
                fake_root_free(&r);
        }
}

TEST(test_odd_counters) {
        static const char *const bad[] = { "abc\n", "", "12 34\n", "-1\n", "99999999999999999999\n", "1\n\n" };
        struct fake_root r;
        struct topology t = {};
        struct error e = {};
        uint64_t nr;

        fake_root_new(&r);
        fake_numa_machine(&r, 1, 512, 0, sizes);
        CHECK_EQ(topology_read(r.fd, &t, &e), 0);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                fake_write(&r, "sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages", bad[i]);
                CHECK_EQ(pool_read_nr(r.fd, &t, 0, 2 << 20, &nr), -EBADMSG);
        }
        /* huge file: a counter is never longer than a line */
        char big[8192];
        memset(big, '7', sizeof(big) - 1);
        big[sizeof(big) - 1] = 0;
        fake_write(&r, "sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages", big);
        CHECK_EQ(pool_read_nr(r.fd, &t, 0, 2 << 20, &nr), -EBADMSG);
        topology_done(&t);
        fake_root_free(&r);
}

/* Lists longer than a page are read whole: 2000 CPUs one by one, 9 KiB. */
TEST(test_long_cpulist) {
        struct fake_root r;
        struct topology t = {};
        struct error e = {};
        char *list = malloc(16 * 1024);
        size_t n = 0;

        CHECK(list);
        /* above the other node's CPUs: a CPU is in one node only */
        for (unsigned cpu = 1000; cpu < 5000; cpu += 2)
                n += (size_t) sprintf(list + n, "%s%u", n ? "," : "", cpu);
        CHECK(n > 8192);
        list[n] = 0;
        fake_root_new(&r);
        fake_numa_machine(&r, 2, 1024, 0, sizes);
        strcat(list, "\n");
        fake_write(&r, "sys/devices/system/node/node0/cpulist", list);
        CHECK_EQ(topology_read(r.fd, &t, &e), 0);
        CHECK_EQ(t.nodes[0].n_cpus, 2000);
        CHECK_EQ(t.nodes[0].cpus[1999], 4998);
        topology_done(&t);
        /* a second line is no list */
        strcat(list, "1\n");
        fake_write(&r, "sys/devices/system/node/node0/cpulist", list);
        CHECK(topology_read(r.fd, &t, &e) < 0);
        CHECK_STR_CONTAINS(e.msg, "node0/cpulist: cannot read");
        topology_done(&t);
        fake_root_free(&r);
        free(list);
}

int main(void) {
        RUN(test_numa_machine);
        RUN(test_memory_list);
        RUN(test_flat_machine);
        RUN(test_node_dir_without_online);
        RUN(test_lagging_nodes);
        RUN(test_lagging_node_zones);
        RUN(test_odd_sysfs);
        RUN(test_odd_counters);
        RUN(test_long_cpulist);
        return 0;
}
