/* SPDX-License-Identifier: MIT */
/* Fuzz target: the sysfs readers fed garbage: the input, split at the first NUL, becomes a node's
 * cpulist, meminfo, distance and nr_hugepages files of a fake tree, then the topology and the
 * counters are read. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "fuzz-tree.h"
#include "util/idlist.h"
#include "kernel/pool.h"
#include "kernel/topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        const uint8_t *nul = memchr(data, 0, size);
        size_t a = nul ? (size_t) (nul - data) : size, b = nul ? size - a - 1 : 0;
        const uint8_t *rest = nul ? nul + 1 : data + size;
        struct topology t = {};
        struct error e = {};
        int root = fuzz_tree();
        char *s;

        /* the first part: an id list and a counter; the second: meminfo and distances */
        s = fuzz_string(data, a);
        if (s) {
                unsigned *ids = NULL;
                size_t n = 0;

                if (idlist_parse(s, &ids, &n) >= 0)
                        free(ids);
                free(s);
        }
        fuzz_put("sys/devices/system/node/node0/cpulist", data, a);
        fuzz_put("sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages", data, a);
        fuzz_put("sys/devices/system/node/node0/meminfo", rest, b);
        fuzz_put("sys/devices/system/node/node0/distance", rest, b);
        if (topology_read(root, &t, &e) >= 0) {
                struct pool_counts c;

                (void) pool_read_counts(root, &t, 0, 2 << 20, &c);
                topology_done(&t);
        }
        return 0;
}
