/* SPDX-License-Identifier: MIT */
/* Prefaulted reservations: pages zeroed in parallel into a named hugetlbfs file that a VM
 * manager maps (QEMU: memory-backend-file,mem-path=FILE,share=on) and starts without zeroing. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/clock.h"
#include "fill/executor.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "kernel/mounts.h"
#include "fill/reserve.h"
#include "fill/reserve_refill.h"

int reserve_locate(int rootfd, bool host, const struct plan *p, struct reserve_run *runs) {
        int missing = 0;

        for (size_t i = 0; i < p->n_reserves; i++) {
                struct reserve_run *rr = &runs[i];
                char name[32];
                int r;

                rr->plan = &p->reserves[i];
                r = hugetlbfs_mount_for(rootfd, host, p->reserves[i].pool.page_size, rr->mount, sizeof(rr->mount));
                if (r >= 0) {
                        (void) snprintf(rr->path, sizeof(rr->path), "%s/" RESERVE_DIR "/%s", rr->mount,
                                        p->reserves[i].name);
                        continue;
                }
                rr->error = r;
                page_size_name(p->reserves[i].pool.page_size, name);
                if (r == -ENOENT)
                        (void) snprintf(rr->error_what, sizeof(rr->error_what),
                                        "no hugetlbfs mount for %s pages (mount -t hugetlbfs -o pagesize=%s none DIR)",
                                        name, name);
                else
                        (void) snprintf(rr->error_what, sizeof(rr->error_what), "cannot find the hugetlbfs mounts");
                missing++;
        }
        return missing;
}

static int fail(struct reserve_run *r, int error, const char *what) {
        if (!r->error) {
                r->error = error;
                (void) snprintf(r->error_what, sizeof(r->error_what), "%s", what);
        }
        return error;
}

/* The file, new: an old one of the same name is unlinked first (a VM that still maps it keeps
 * its pages; they go back to the pool when it lets go). */
static int create_file(struct reserve_run *r) {
        const struct plan_reserve *pr = r->plan;
        char dir[PATH_MAX + 16];
        int fd;

        (void) snprintf(dir, sizeof(dir), "%s/" RESERVE_DIR, r->mount);
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return fail(r, -errno, dir);
        if (unlink(r->path) < 0 && errno != ENOENT)
                return fail(r, -errno, r->path);
        /* created 0600 root, then handed over: never readable by others while being prepared */
        fd = open(r->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return fail(r, -errno, r->path);
        if (ftruncate(fd, (off_t) (pr->pool.target_total * pr->pool.page_size)) < 0) {
                int error = -errno;

                (void) close(fd);
                (void) unlink(r->path);
                return fail(r, error, r->path);
        }
        return fd;
}

/* A file of the planned size at the path, made by an earlier fill of this daemon. */
bool reserve_is_there(const struct reserve_run *rr) {
        struct stat st;

        return stat(rr->path, &st) >= 0 && S_ISREG(st.st_mode) &&
               (uint64_t) st.st_size == rr->plan->pool.target_total * rr->plan->pool.page_size;
}

int reserve_execute(struct fill_shared *shared, const struct plan *p, struct reserve_run *runs, bool keep_existing) {
        int r = 0;

        for (size_t i = 0; i < p->n_reserves && !stop_requested(shared->stop); i++) {
                struct reserve_run *rr = &runs[i];
                _cleanup_(freep) struct fault_worker *workers = NULL;
                _cleanup_(freep) struct task *jobs = NULL;
                _cleanup_(closep) int fd = -1;
                uint64_t t0 = now_ns();
                size_t n = 0;

                if (rr->error) /* no mount: said by reserve_locate() */
                        continue;
                if (keep_existing && reserve_is_there(rr)) {
                        bool in_use = true;

                        fd = reserve_refill_open(rr, &in_use);
                        if (fd >= 0 && in_use) {
                                /* a VM has it: its pages stay; owner, group and mode as asked */
                                rr->kept = true;
                                rr->faulted = rr->plan->pool.target_total;
                                r = reserve_hand_over(fd, rr->plan);
                                if (r < 0)
                                        fail(rr, r, rr->path);
                                continue;
                        }
                        /* nobody has it, but a VM may have written to it: fresh pages */
                        if (fd >= 0 && reserve_refill_punch(fd, rr) < 0)
                                closep(&fd);
                }
                if (fd < 0)
                        fd = create_file(rr);
                if (fd < 0)
                        continue;
                r = fault_pool_prepare_file(&rr->fault, shared, &rr->plan->pool, fd);
                if (r >= 0)
                        r = fault_pool_workers(&rr->fault, &workers, &n);
                if (r >= 0) {
                        jobs = calloc(n ? n : 1, sizeof(*jobs));
                        if (!jobs)
                                r = -ENOMEM;
                }
                if (r >= 0) {
                        for (size_t k = 0; k < n; k++)
                                jobs[k] = (struct task) { fault_worker_run, &workers[k] };
                        r = executor_run(jobs, n, shared->stop, shared->tick_ms ?: 1000, shared->tick, shared->tick_data);
                }
                rr->threads = fault_pool_threads_used(&rr->fault);
                for (size_t k = 0; k < rr->fault.n_nodes; k++) {
                        int error = atomic_load(&rr->fault.nodes[k].error);

                        rr->faulted += atomic_load(&rr->fault.nodes[k].faulted);
                        if (error)
                                fail(rr, error, "MADV_POPULATE_WRITE");
                }
                if (rr->fault.error)
                        fail(rr, rr->fault.error, rr->fault.error_what);
                /* Unmapping keeps the pages in the file: it holds them until it is removed. */
                fault_pool_release(&rr->fault);
                rr->interrupted = stop_signalled(shared->stop);
                rr->elapsed_ns = now_ns() - t0;
                if (r < 0)
                        fail(rr, r, "pthread_create");
                if (rr->faulted < rr->plan->pool.target_total || rr->error) {
                        /* Half a reservation is not one: its pages go back to the pool. */
                        (void) unlink(rr->path);
                        continue;
                }
                r = reserve_hand_over(fd, rr->plan);
                if (r < 0) {
                        fail(rr, r, rr->path);
                        (void) unlink(rr->path);
                }
        }
        return 0;
}

void reserve_runs_done(struct reserve_run *runs, size_t n) {
        for (size_t i = 0; i < n; i++)
                fault_pool_done(&runs[i].fault);
}

struct release {
        const char *name;
        char *ret_path;
        size_t size;
        int found;
};

static int release_one(const char *dir, uint64_t page_size, void *userdata) {
        struct release *rl = userdata;
        char path[PATH_MAX + 128];

        (void) page_size;
        (void) snprintf(path, sizeof(path), "%s/" RESERVE_DIR "/%s", dir, rl->name);
        if (unlink(path) < 0)
                return errno == ENOENT ? 0 : -errno;
        if (!rl->found && strlen(path) < rl->size)
                memcpy(rl->ret_path, path, strlen(path) + 1);
        rl->found = 1;
        return 0;
}

int reserve_release(int rootfd, const char *name, char *ret_path, size_t size) {
        _cleanup_(freep) char *mounts = NULL;
        struct release rl = { name, ret_path, size, 0 };
        int r;

        r = read_full_file_at(rootfd, "proc/self/mounts", 1024 * 1024, &mounts, NULL);
        if (r < 0)
                return r;
        r = mounts_foreach_hugetlbfs(mounts, 0, release_one, &rl);
        return r < 0 ? r : rl.found;
}
