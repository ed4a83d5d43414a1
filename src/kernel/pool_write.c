/* SPDX-License-Identifier: MIT */
/* Setting one node's persistent pages, right on kernels with and without the fix of per-node
 * writes for the other nodes' surplus pages. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/fileio.h"
#include "util/macro.h"
#include "kernel/host.h"
#include "kernel/pool.h"

#define POLICY_BIND 2    /* MPOL_BIND, uapi/linux/mempolicy.h */
#define POLICY_DEFAULT 0 /* MPOL_DEFAULT */
/* MAX_NUMNODES of the largest configurations (x86 NODES_SHIFT 10) */
#define POLICY_NODES 1024
/* the kernel's node masks are arrays of unsigned long (get_nodes(), copy_nodes_to_user()): 32
 * bits a word on 32-bit builds */
#define BITS_PER_UL (CHAR_BIT * sizeof(unsigned long))

/* The surplus and the persistent pages of the nodes with memory other than @node. */
static int read_others(int rootfd, const struct topology *t, unsigned node, uint64_t page_size, uint64_t *surplus,
                       uint64_t *persistent) {
        *surplus = *persistent = 0;
        for (size_t i = 0; i < t->n_nodes; i++) {
                uint64_t nr, s;
                int r;

                if (t->nodes[i].id == node || !t->nodes[i].has_memory)
                        continue;
                r = pool_read_stable(rootfd, t, t->nodes[i].id, page_size, &nr, &s);
                if (r == -ENOENT)
                        continue; /* no pool of that size there: nothing to count (its own write says so) */
                if (r < 0)
                        return r;
                *surplus += s;
                *persistent += nr - MIN(nr, s);
        }
        return 0;
}

/* Writes @count (the persistent pages the whole pool is to have) to nr_hugepages_mempolicy with
 * this thread bound to @node alone: __nr_hugepages_store_common() then hands
 * set_max_huge_pages() a global count (no per-node conversion) and the policy's nodes as the
 * only ones to allocate on or free from. The thread's own policy is put back after. */
static int write_bound(int rootfd, unsigned node, uint64_t page_size, uint64_t count) {
        unsigned long mask[POLICY_NODES / BITS_PER_UL] = {}, saved[POLICY_NODES / BITS_PER_UL] = {};
        char path[160];
        int mode = POLICY_DEFAULT, r, q;

        if (node >= POLICY_NODES)
                return -ERANGE;
        r = pool_global_path(path, sizeof(path), page_size, "nr_hugepages_mempolicy");
        if (r < 0)
                return r;
        /* a tree under --root: its node ids are not the kernel's, nothing to bind to */
        if (!root_is_host(rootfd))
                return write_u64_at(rootfd, path, count);
        /* maxnode counts one more than the bits of the mask (the kernel subtracts one) */
        if (syscall(SYS_get_mempolicy, &mode, saved, POLICY_NODES + 1, NULL, 0UL) < 0)
                return -errno;
        mask[node / BITS_PER_UL] |= 1UL << (node % BITS_PER_UL);
        /* EINVAL: the node is outside this task's cpuset (mpol_set_nodemask() leaves no node);
         * the job refuses to write such a node before the first write (check_mems_allowed()) */
        if (syscall(SYS_set_mempolicy, POLICY_BIND, mask, POLICY_NODES + 1) < 0)
                return -errno;
        r = write_u64_at(rootfd, path, count);
        q = mode == POLICY_DEFAULT ? (int) syscall(SYS_set_mempolicy, POLICY_DEFAULT, NULL, 0UL)
                                   : (int) syscall(SYS_set_mempolicy, mode, saved, POLICY_NODES + 1);
        if (q < 0) /* the thread stays bound: worse than a failed write, which its caller reports anyway */
                r = -errno;
        return r;
}

/*
 * A write of N to node<K>/nr_hugepages asks for N persistent pages on node K. Before Linux 6.7
 * ("mm/hugetlb: fix nodes huge page allocation when there are surplus pages", b72b3c9c34c8; not
 * in Debian 12's 6.1.0-57: tests/vm/surplus-node.sh shows a write of 16 giving 26 there),
 * set_max_huge_pages() turned N into the pool's global target as
 *     count = N + nr_huge_pages - nr_huge_pages_node[K]
 * and then compared it with persistent_huge_pages() (nr_huge_pages - surplus_huge_pages): the
 * other nodes' surplus pages, counted in nr_huge_pages but not persistent, were taken for
 * persistent pages node K must add. Node K got N plus the other nodes' surplus pages (a shrink
 * freed that many fewer). So where another node holds surplus pages of this size, the count is
 * made global here (persistent pages of the other nodes + N) and written bound to node K, which
 * every kernel takes the same way; otherwise the node's own file, the kernel's cheapest path.
 * A version cannot tell: stable kernels may carry the fix or not. The other nodes' count is a
 * snapshot: another tool writing their pools at the same moment (hpfilld's own fills are one
 * at a time) can make node K end off its target, which the caller's read-back shows.
 */
int pool_write_nr(int rootfd, const struct topology *t, unsigned node, uint64_t page_size, uint64_t count) {
        uint64_t others_surplus, others_persistent;
        char path[160];
        int r;

        r = pool_path(path, sizeof(path), t, node, page_size, "nr_hugepages");
        if (r >= 0 && t->numa)
                r = read_others(rootfd, t, node, page_size, &others_surplus, &others_persistent);
        if (r < 0)
                return r;
        if (!t->numa || others_surplus == 0)
                return write_u64_at(rootfd, path, count);
        return write_bound(rootfd, node, page_size, MIN(count, UINT64_MAX - others_persistent) + others_persistent);
}
