/* SPDX-License-Identifier: MIT */
/* What a fill checks before its first write (job_checks.h): nothing changes until all pass. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fill/reserve.h"
#include "kernel/pool.h"
#include "kernel/proc.h"
#include "plan/budget.h"
#include "kernel/mount_create.h"
#include "kernel/mounts.h"
#include "service/job_checks.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/shown.h"

int job_read_counts(int rootfd, const struct topology *t, struct pool_counts **ret) {
        _cleanup_(freep) struct pool_counts *counts = NULL;
        size_t n = t->n_page_sizes * t->n_nodes;
        char path[160];
        int r;

        counts = calloc(n ? n : 1, sizeof(*counts));
        if (!counts)
                return log_error_errno(-ENOMEM, "Out of memory");
        for (size_t s = 0; s < t->n_page_sizes; s++)
                for (size_t i = 0; i < t->n_nodes; i++) {
                        /* nr_hugepages to plan; free_hugepages for the reservations */
                        r = pool_read_counts(rootfd, t, t->nodes[i].id, t->page_sizes[s], &counts[s * t->n_nodes + i]);
                        if (r < 0) {
                                (void) pool_path(path, sizeof(path), t, t->nodes[i].id, t->page_sizes[s], "");
                                if (r == -ELOOP)
                                        return log_error_errno(r, "Cannot read the pool counters in %s/%s: %s", shown_root(),
                                                               path, attr_error_reason(r));
                                return log_error_errno(r, "Cannot read the pool counters in %s/%s: %m", shown_root(), path);
                        }
                }
        /* what mappings hold reserved: the plan gives back no free page of theirs */
        for (size_t s = 0; s < t->n_page_sizes; s++) {
                uint64_t resv = 0;

                (void) pool_read_resv(rootfd, t, t->page_sizes[s], &resv);

                for (size_t i = 0; i < t->n_nodes; i++)
                        counts[s * t->n_nodes + i].resv = resv;
        }
        *ret = TAKE_PTR(counts);
        return 0;
}

bool job_counts_changed(int rootfd, const struct topology *t, const struct pool_counts *before) {
        _cleanup_(freep) struct pool_counts *now = NULL;

        if (job_read_counts(rootfd, t, &now) < 0)
                return true;
        return memcmp(now, before, t->n_page_sizes * t->n_nodes * sizeof(*now)) != 0;
}

/* Pages of each size that mappings hold reserved (resv_hugepages): free pages, but not for a
 * new reservation. Before the fill makes any, all of them are others'. A tree without the file
 * (not the kernel's) has none. */
static int read_all_resv(int rootfd, const struct topology *t, uint64_t *resv) {
        char path[160];
        int r;

        for (size_t s = 0; s < t->n_page_sizes; s++) {
                r = pool_read_resv(rootfd, t, t->page_sizes[s], &resv[s]);
                if (r == -ENOENT)
                        resv[s] = 0;
                else if (r < 0) {
                        (void) pool_global_path(path, sizeof(path), t->page_sizes[s], "resv_hugepages");
                        return log_error_errno(r, "Cannot read %s/%s: %m", shown_root(), path);
                }
        }
        return 0;
}

/* Every file the fill will write must be writable before the first write: all or nothing.
 * Opened as the write will open it (open_attr_at()): a symbolic link or a FIFO in the place of
 * an attribute is refused here, before anything changed. */
static int check_writable(int rootfd, const struct topology *t, const struct plan *p) {
        char path[160];
        int fd;

        for (size_t i = 0; i < p->n_pools; i++)
                for (size_t j = 0; j < p->pools[i].n_nodes; j++) {
                        const struct plan_node *n = &p->pools[i].nodes[j];

                        if (n->action != PLAN_GROW && n->action != PLAN_SHRINK)
                                continue;
                        (void) pool_path(path, sizeof(path), t, n->node, p->pools[i].page_size, "nr_hugepages");
                        fd = open_attr_at(rootfd, path);
                        if (fd >= 0) {
                                close(fd);
                                continue;
                        }
                        if (attr_error_reason(fd))
                                return log_error_errno(fd, "Cannot write %s/%s: %s", shown_root(), path,
                                                       attr_error_reason(fd));
                        return log_error_errno(fd, "Cannot write %s/%s: %m%s", shown_root(), path,
                                               fd == -EACCES || fd == -EPERM ? " (are you root?)" : "");
                }
        return 0;
}

/* The kernel allocates huge pages for this process only on the nodes of its cpuset, whatever
 * the method (__alloc_pages() with a hardwall mask: cpuset_zone_allowed()): a node to grow
 * outside it would come back with nothing, and be called short. Nor can the process bind
 * itself there, which a node's write needs while other nodes hold surplus pages (pool_write.c).
 * Say so before any write. */
static int check_mems_allowed(int rootfd, bool host, const struct topology *t, const struct plan *p) {
        _cleanup_(freep) unsigned *allowed = NULL;
        size_t n = 0;
        char list[128];
        int r;

        /* a cpuset holds a node of memory at least (cpuset.mems is never empty in use): on a host
         * with one, that one; a tree under --root says what it says */
        if (host && topology_memory_nodes(t) == 1)
                return 0;
        r = proc_mems_allowed(rootfd, &allowed, &n);
        if (r < 0) /* no proc/self/status (a fake tree), or a kernel without cpusets */
                return 0;
        for (size_t i = 0; i < p->n_pools; i++)
                for (size_t j = 0; j < p->pools[i].n_nodes; j++) {
                        const struct plan_node *pn = &p->pools[i].nodes[j];
                        size_t k, c = 0;

                        if (pn->action != PLAN_GROW && pn->action != PLAN_SHRINK)
                                continue;
                        for (k = 0; k < n && allowed[k] != pn->node; k++)
                                ;
                        if (k < n)
                                continue;
                        list[0] = 0;
                        for (k = 0; k < n && c < sizeof(list); k++)
                                c += (size_t) snprintf(list + c, sizeof(list) - c, "%s%u", k ? "," : "", allowed[k]);
                        return log_error_errno(-EPERM,
                                               "node%u: not among the nodes this process may allocate memory on "
                                               "(its cpuset: Mems_allowed_list %s in /proc/self/status), so the "
                                               "kernel gives it no huge pages there; run hpfilld outside that "
                                               "cpuset (a unit's AllowedMemoryNodes=, a container's cpuset.mems)",
                                               pn->node, n ? list : "empty");
                }
        return 0;
}

/* Where each reservation will live, and that its pages will be there: a hugetlbfs mount for its
 * page size, and enough free pages in its pool after the fill (those of a file a refill keeps
 * are in the file already). Nothing changes. */
static int check_reserves(struct job *j, const struct topology *t, const struct pool_counts *counts,
                          const struct plan *p, struct reserve_run *reserves) {
        _cleanup_(freep) bool *kept = NULL;
        _cleanup_(freep) uint64_t *resv = NULL;
        struct error e = {};
        int r;

        if (p->n_reserves == 0)
                return EXIT_OK;
        r = reserve_locate(j->in->rootfd, j->in->host && !j->in->mount_table_only, p, reserves);
        if (r > 0) {
                int ret = EXIT_OK;

                for (size_t i = 0; i < p->n_reserves; i++) {
                        int error = reserves[i].error;

                        if (!error)
                                continue;
                        /* the run would mount one first (main.c); its pages are checked below */
                        if (error == -ENOENT && j->dry_run && j->in->create_mounts) {
                                char place[64];

                                hugetlbfs_mount_place(p->reserves[i].pool.page_size,
                                                      hugetlbfs_default_page_size(j->in->rootfd), place, sizeof(place));
                                log_info("%s: no hugetlbfs mount for its pages yet: %s mounts one at /%s",
                                         p->reserves[i].pool.origin,
                                         j->in->create_mounts_by ? j->in->create_mounts_by : "CreateMounts=yes", place);
                                continue;
                        }
                        /* No hugetlbfs mount for its size, or an Owner= or Group= unknown here, is
                         * the configuration's: nothing starts (exit 2). A mount or directory
                         * refused (others control it, not what the mount table said): that
                         * reservation alone is skipped, the fill goes on and exits 1. */
                        if (error != -ENOENT && error != -ESRCH && !j->in->strict) {
                                log_error("%s: %s: this reservation is skipped", p->reserves[i].pool.origin,
                                          reserves[i].error_what);
                                continue;
                        }
                        /* --check-config: what a fill would skip is not a good configuration */
                        if (error != -ENOENT && error != -ESRCH) {
                                log_error("%s: %s: a fill would skip this reservation", p->reserves[i].pool.origin,
                                          reserves[i].error_what);
                                ret = EXIT_USAGE;
                                continue;
                        }
                        log_error("%s: %s", p->reserves[i].pool.origin, reserves[i].error_what);
                        ret = EXIT_USAGE;
                }
                if (ret != EXIT_OK)
                        return ret;
        }
        kept = calloc(p->n_reserves, sizeof(*kept));
        if (!kept) {
                log_error_errno(-ENOMEM, "Out of memory");
                return EXIT_FAIL;
        }
        for (size_t i = 0; i < p->n_reserves; i++)
                kept[i] = reserve_is_there(&reserves[i]);
        resv = calloc(t->n_page_sizes ? t->n_page_sizes : 1, sizeof(*resv));
        if (!resv) {
                log_error_errno(-ENOMEM, "Out of memory");
                return EXIT_FAIL;
        }
        if (read_all_resv(j->in->rootfd, t, resv) < 0)
                return EXIT_FAIL;
        r = plan_check_reserves(t, counts, p, kept, resv, &e);
        if (r < 0) {
                log_error("%s", e.msg);
                return EXIT_USAGE;
        }
        return EXIT_OK;
}

int job_check(struct job *j, const struct topology *t, const struct pool_counts *counts, const struct plan *p,
              struct reserve_run *reserves) {
        int ret = check_reserves(j, t, counts, p, reserves);

        if (ret != EXIT_OK)
                return ret;
        if (check_mems_allowed(j->in->rootfd, j->in->host, t, p) < 0)
                return EXIT_USAGE;
        return check_writable(j->in->rootfd, t, p) < 0 ? EXIT_FAIL : EXIT_OK;
}
