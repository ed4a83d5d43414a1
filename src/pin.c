/* SPDX-License-Identifier: MIT */
/* Running the calling thread on the CPUs of a NUMA node. */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>

#include "config.h"
#include "macro.h"
#include "pin.h"

#if HAVE_LIBNUMA
#include <numa.h>

static int pin_with_libnuma(unsigned node) {
        struct bitmask *cpus;
        int r;

        if (numa_available() < 0)
                return -ENOSYS;
        cpus = numa_allocate_cpumask();
        if (!cpus)
                return -ENOMEM;
        r = numa_node_to_cpus((int) node, cpus);
        if (r >= 0)
                r = numa_sched_setaffinity(0, cpus);
        r = r < 0 ? -errno : 0;
        numa_free_cpumask(cpus);
        return r;
}
#endif

int pin_thread_to_node(const struct topology *t, size_t idx, bool host) {
        const struct topo_node *n = &t->nodes[idx];
        cpu_set_t *set;
        size_t size;
        unsigned max = 0;
        int r;

        if (n->n_cpus == 0)
                return -ENOENT;
#if HAVE_LIBNUMA
        if (host && t->numa && pin_with_libnuma(n->id) >= 0)
                return 0;
#else
        (void) host;
#endif
        for (size_t i = 0; i < n->n_cpus; i++)
                max = MAX(max, n->cpus[i]);
        set = CPU_ALLOC(max + 1);
        if (!set)
                return -ENOMEM;
        size = CPU_ALLOC_SIZE(max + 1);
        CPU_ZERO_S(size, set);
        for (size_t i = 0; i < n->n_cpus; i++)
                CPU_SET_S(n->cpus[i], size, set);
        r = sched_setaffinity(0, size, set) < 0 ? -errno : 0;
        CPU_FREE(set);
        return r;
}
