/* SPDX-License-Identifier: MIT */
/* Running the calling thread on the CPUs of a NUMA node. */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>

#include "util/macro.h"
#include "fill/pin.h"

bool pin_is_useful(const struct topology *t) {
        size_t with_cpus = 0;

        for (size_t i = 0; i < t->n_nodes; i++)
                with_cpus += t->nodes[i].n_cpus > 0;
        return with_cpus > 1;
}

int pin_thread_to_node(const struct topology *t, size_t idx) {
        const struct topo_node *n = &t->nodes[idx];
        cpu_set_t fixed, *set = &fixed;
        size_t size = sizeof(fixed);
        unsigned max = 0;
        int r;

        if (n->n_cpus == 0)
                return -ENOENT;
        /* The CPU list comes from the topology (read through the root fd), the same list
         * libnuma's numa_node_to_cpus() would read from /sys; no need to load libnuma for it. */
        for (size_t i = 0; i < n->n_cpus; i++)
                max = MAX(max, n->cpus[i]);
        /* No malloc() for the usual CPU counts: a worker's first malloc() makes glibc map an arena
         * for its thread, and mapping takes the mmap lock for writing, which stalls the other
         * workers' MADV_POPULATE_WRITE (they hold it for reading, a chunk at a time). */
        if (max >= CPU_SETSIZE) {
                set = CPU_ALLOC(max + 1);
                if (!set)
                        return -ENOMEM;
                size = CPU_ALLOC_SIZE(max + 1);
        }
        CPU_ZERO_S(size, set);
        for (size_t i = 0; i < n->n_cpus; i++)
                CPU_SET_S(n->cpus[i], size, set);
        r = sched_setaffinity(0, size, set) < 0 ? -errno : 0;
        if (set != &fixed)
                CPU_FREE(set);
        return r;
}
