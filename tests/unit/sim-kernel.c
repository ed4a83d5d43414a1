/* SPDX-License-Identifier: MIT */
/* A simulated kernel under the sysfs writer (sim-kernel.h). */
#include "kernel/pool.h"
#include "sim-kernel.h"
#include "util/macro.h"

struct sim *sim_kernel;

/* Declared from the functions they stand for: a changed prototype fails to compile here. */
#define WRAPPED(f) __typeof__(f) __real_##f, __wrap_##f
WRAPPED(pool_read_persistent);
WRAPPED(pool_write_nr);
WRAPPED(pool_compact_node);
WRAPPED(pool_drop_caches);

int __wrap_pool_read_persistent(int rootfd, const struct topology *t, unsigned node, uint64_t page_size, uint64_t *ret) {
        if (!sim_kernel)
                return __real_pool_read_persistent(rootfd, t, node, page_size, ret);
        *ret = sim_kernel->nr[node];
        return 0;
}

int __wrap_pool_write_nr(int rootfd, const struct topology *t, unsigned node, uint64_t page_size, uint64_t count) {
        if (!sim_kernel)
                return __real_pool_write_nr(rootfd, t, node, page_size, count);
        sim_kernel->writes++;
        sim_kernel->nr[node] = MIN(count, sim_kernel->cap[node]); /* the write "succeeds", the count tells */
        return 0;
}

int __wrap_pool_compact_node(int rootfd, const struct topology *t, unsigned node) {
        if (!sim_kernel)
                return __real_pool_compact_node(rootfd, t, node);
        if (sim_kernel->compactions[node]++ < sim_kernel->max_compactions)
                sim_kernel->cap[node] += sim_kernel->release[node];
        return 0;
}

int __wrap_pool_drop_caches(int rootfd) {
        if (!sim_kernel)
                return __real_pool_drop_caches(rootfd);
        sim_kernel->drops++;
        sim_kernel->cap[0] += sim_kernel->drop_release[0];
        sim_kernel->cap[1] += sim_kernel->drop_release[1];
        sim_kernel->max_compactions += sim_kernel->drop_compactions;
        return 0;
}
