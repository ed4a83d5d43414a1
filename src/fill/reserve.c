/* SPDX-License-Identifier: MIT */
/* Prefaulted reservations: pages zeroed in parallel into a named hugetlbfs file that a VM
 * manager maps (QEMU: memory-backend-file,mem-path=FILE,share=on) and starts without zeroing. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/clock.h"
#include "fill/executor.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/number.h"
#include "kernel/mount_create.h"
#include "kernel/mounts.h"
#include "fill/reserve.h"
#include "fill/reserve_dir.h"
#include "fill/reserve_refill.h"

/* The mount found, and checked: hugetlbfs of the page size, and MOUNT/hpfilld, where there
 * already, fit to hold root's files (created only when the reservation is made). */
static int check_mount(int rootfd, struct reserve_run *rr) {
        _cleanup_(closep) int dirfd = -1;
        struct error e = {};
        int r;

        r = reserve_mount_open(rootfd, rr->mount, rr->plan->pool.page_size, &rr->mountfd, &e);
        if (r >= 0) {
                r = reserve_dir_open(rr->mountfd, rr->mount, false, &dirfd, &e);
                /* none yet, or another user's, which the reservation moves aside (see
                 * reserve_claim_dir()) */
                if (r == -ENOENT || r == -EPERM || r == -ELOOP || r == -ENOTDIR)
                        r = 0;
        }
        if (r < 0) {
                rr->error = r;
                (void) snprintf(rr->error_what, sizeof(rr->error_what), "%s", e.msg);
        }
        return r;
}

/* Owner= and Group=: a name, or a number. */
static int resolve_owner(struct reserve_run *rr) {
        const struct plan_reserve *pr = rr->plan;
        uint64_t id;

        rr->uid = 0;
        rr->gid = 0;
        if (*pr->owner) {
                struct passwd *pw = getpwnam(pr->owner);

                if (pw)
                        rr->uid = pw->pw_uid;
                else if (parse_u64(pr->owner, &id) >= 0 && id < UINT32_MAX)
                        rr->uid = (uid_t) id;
                else
                        goto no_user;
        }
        if (*pr->group) {
                struct group *gr = getgrnam(pr->group);

                if (gr)
                        rr->gid = gr->gr_gid;
                else if (parse_u64(pr->group, &id) >= 0 && id < UINT32_MAX)
                        rr->gid = (gid_t) id;
                else
                        goto no_group;
        }
        return 0;
no_user:
        rr->error = -ESRCH;
        (void) snprintf(rr->error_what, sizeof(rr->error_what), "Owner=%s: no such user", pr->owner);
        return -ESRCH;
no_group:
        rr->error = -ESRCH;
        (void) snprintf(rr->error_what, sizeof(rr->error_what), "Group=%s: no such group", pr->group);
        return -ESRCH;
}

/* Mount= as named, else the mount table's (or libhugetlbfs's) first for the page size. */
static int reserve_mount_for(int rootfd, bool host, const char *named, uint64_t page_size, char *ret, size_t size) {
        if (!*named)
                return hugetlbfs_mount_for(rootfd, host, page_size, ret, size);
        if (strlen(named) >= size)
                return -ENAMETOOLONG;
        memcpy(ret, named, strlen(named) + 1);
        return 0;
}

int reserve_locate(int rootfd, bool host, const struct plan *p, struct reserve_run *runs) {
        int missing = 0;

        for (size_t i = 0; i < p->n_reserves; i++)
                runs[i].mountfd = -1;
        for (size_t i = 0; i < p->n_reserves; i++) {
                struct reserve_run *rr = &runs[i];
                char name[32];
                int r;

                rr->plan = &p->reserves[i];
                if (resolve_owner(rr) < 0) {
                        missing++;
                        continue;
                }
                r = reserve_mount_for(rootfd, host, p->reserves[i].mount, p->reserves[i].pool.page_size, rr->mount,
                                      sizeof(rr->mount));
                if (r >= 0) {
                        (void) snprintf(rr->path, sizeof(rr->path), "%s/" RESERVE_DIR "/%s", rr->mount,
                                        p->reserves[i].name);
                        if (check_mount(rootfd, rr) < 0)
                                missing++;
                        continue;
                }
                rr->error = r;
                page_size_name(p->reserves[i].pool.page_size, name);
                if (r == -ENOENT) {
                        char place[64];

                        hugetlbfs_mount_place(p->reserves[i].pool.page_size, hugetlbfs_default_page_size(rootfd), place,
                                              sizeof(place));
                        (void) snprintf(rr->error_what, sizeof(rr->error_what),
                                        "no hugetlbfs mount for %s pages (--create-mounts makes one, or: mkdir -p /%s; "
                                        "mount -t hugetlbfs -o pagesize=%s none /%s)",
                                        name, place, name, place);
                } else
                        (void) snprintf(rr->error_what, sizeof(rr->error_what), "cannot read the mount table (/proc/self/mounts)");
                missing++;
        }
        return missing;
}

static int fail(struct reserve_run *r, int error, const char *what) {
        return error_keep_first(&r->error, r->error_what, sizeof(r->error_what), error, what);
}

/* The file, new, in the verified directory @dirfd: what is at its name is unlinked first (never
 * a file in use: keep_in_use() kept that). */
static int create_file(struct reserve_run *r, int dirfd) {
        const struct plan_reserve *pr = r->plan;
        int fd;

        if (unlinkat(dirfd, pr->name, 0) < 0 && errno != ENOENT)
                return fail(r, -errno, r->path);
        /* created 0600 root, then handed over: never readable by others while being prepared */
        fd = openat(dirfd, pr->name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return fail(r, -errno, r->path);
        if (fchmod(fd, 0600) < 0 || ftruncate(fd, (off_t) (pr->pool.target_total * pr->pool.page_size)) < 0) {
                int error = -errno;

                (void) close(fd);
                (void) unlinkat(dirfd, pr->name, 0);
                return fail(r, error, r->path);
        }
        return fd;
}

/* A file of the planned size in @dirfd, made by an earlier fill of this daemon. */
static bool reservation_is_there(const struct reserve_run *rr, int dirfd) {
        struct stat st;

        return fstatat(dirfd, rr->plan->name, &st, AT_SYMLINK_NOFOLLOW) >= 0 && S_ISREG(st.st_mode) &&
               (uint64_t) st.st_size == rr->plan->pool.target_total * rr->plan->pool.page_size;
}

bool reserve_is_there(const struct reserve_run *rr) {
        _cleanup_(closep) int dirfd = -1;
        struct error e = {};

        /* only in a directory that passes the checks, never by its path */
        if (rr->mountfd < 0 || reserve_dir_open(rr->mountfd, rr->mount, false, &dirfd, &e) < 0)
                return false;
        return reservation_is_there(rr, dirfd);
}

/* MOUNT/hpfilld, made now where it is not there yet, and checked again on its descriptor. */
static int open_dir(struct reserve_run *rr) {
        struct error e = {};
        int fd, r;

        r = reserve_dir_open(rr->mountfd, rr->mount, true, &fd, &e);
        return r < 0 ? fail(rr, r, e.msg) : fd;
}

/* A file already at the reservation's name: one that a process has open or maps, or of which
 * that cannot be told, is kept as it is (true; owner, group and mode applied, if of the planned
 * size; failed if not, since it cannot be resized in use). One that nobody has is taken back:
 * *ret_fd open for writing with its pages given back to the pool (of the planned size), or -1
 * (it is made anew). */
static bool keep_in_use(struct reserve_run *rr, int dirfd, int *ret_fd) {
        _cleanup_(closep) int fd = -1;
        bool there = reservation_is_there(rr, dirfd);
        struct stat st;
        int r;

        *ret_fd = -1;
        if (fstatat(dirfd, rr->plan->name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
                return false; /* nothing, or no file of ours: create_file() replaces it */
        rr->use = reserve_refill_take(rr, dirfd, &fd);
        if (rr->use == RESERVE_USE_FREE) {
                /* nobody has it, but a VM may have written to it: fresh pages */
                if (there && reserve_refill_punch(fd, rr) >= 0)
                        *ret_fd = TAKE_FD(fd);
                return false;
        }
        if (!there) {
                fail(rr, -EBUSY, rr->use == RESERVE_USE_IN_USE
                                         ? "a file of another size there is in use: kept as it is"
                                         : "a file of another size there may be in use: kept as it is");
                return true;
        }
        /* a VM has it: its pages stay; owner, group and mode as asked */
        rr->kept = true;
        rr->faulted = rr->plan->pool.target_total;
        r = fd >= 0 ? reserve_hand_over(fd, rr) : -EACCES;
        if (r < 0)
                fail(rr, r, rr->path);
        return true;
}

int reserve_execute(struct fill_shared *shared, const struct plan *p, struct reserve_run *runs) {
        int r = 0;

        for (size_t i = 0; i < p->n_reserves && !stop_requested(shared->stop); i++) {
                struct reserve_run *rr = &runs[i];
                _cleanup_(freep) struct fault_worker *workers = NULL;
                _cleanup_(freep) struct task *jobs = NULL;
                _cleanup_(closep) int fd = -1, dirfd = -1;
                uint64_t t0 = now_ns();
                size_t n = 0;

                if (rr->error) /* no mount: said by reserve_locate() */
                        continue;
                dirfd = open_dir(rr);
                if (dirfd < 0)
                        continue;
                if (keep_in_use(rr, dirfd, &fd))
                        continue;
                if (fd < 0)
                        fd = create_file(rr, dirfd);
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
                        (void) unlinkat(dirfd, rr->plan->name, 0);
                        continue;
                }
                r = reserve_hand_over(fd, rr);
                if (r < 0) {
                        fail(rr, r, rr->path);
                        (void) unlinkat(dirfd, rr->plan->name, 0);
                }
        }
        return 0;
}

void reserve_runs_done(struct reserve_run *runs, size_t n) {
        for (size_t i = 0; i < n; i++) {
                fault_pool_done(&runs[i].fault);
                closep(&runs[i].mountfd);
                runs[i].mountfd = -1;
        }
}

struct release {
        int rootfd;
        const char *name;
        char *ret_path;
        size_t size;
        int found;
        int refused;
        bool unused_only; /* a file a process has open or maps (or that cannot be told) is kept */
        int kept;
        int other; /* files of that name of another identity */
        struct error *e;
        /* reserve_release_made(): the page size of its mount, and the file's identity (0, 0: any) */
        uint64_t page_size, dev, ino;
};

static int refuse(struct release *rl, const struct error *why) {
        if (!rl->refused++ && rl->e)
                *rl->e = *why;
        return 0;
}

/* In the MOUNT/hpfilld of one mount, if it passes the checks: the file, if a regular one. */
static int release_one(const char *dir, uint64_t page_size, void *userdata) {
        struct release *rl = userdata;
        _cleanup_(closep) int mountfd = -1, dirfd = -1, fd = -1;
        struct error e = {};
        struct stat st;
        int r;

        if (rl->page_size && rl->page_size != page_size)
                return 0;
        r = reserve_mount_open(rl->rootfd, dir, page_size, &mountfd, &e);
        if (r >= 0)
                r = reserve_dir_open(mountfd, dir, false, &dirfd, &e);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return refuse(rl, &e);
        if (fstatat(dirfd, rl->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT ? 0 : -errno;
        if (!S_ISREG(st.st_mode)) {
                (void) error_set(&e, -EPERM, "%s/" RESERVE_DIR "/%s is not a regular file: refused", dir, rl->name);
                return refuse(rl, &e);
        }
        if (rl->ino && ((uint64_t) st.st_dev != rl->dev || (uint64_t) st.st_ino != rl->ino)) {
                /* another file of that name: not the one made */
                if (!rl->other++ && !rl->refused && rl->e)
                        (void) error_set(rl->e, 0, "%s/" RESERVE_DIR "/%s is not the file hpfilld made", dir, rl->name);
                return 0;
        }
        /* the lease, held until the file is gone, makes an open meanwhile wait for the unlink */
        if (rl->unused_only && reserve_use_open(dirfd, rl->name, O_RDONLY, &fd, NULL) != RESERVE_USE_FREE) {
                if (!rl->kept++ && !rl->found)
                        (void) snprintf(rl->ret_path, rl->size, "%s/" RESERVE_DIR "/%s", dir, rl->name);
                return 0;
        }
        if (unlinkat(dirfd, rl->name, 0) < 0)
                return errno == ENOENT ? 0 : -errno;
        if (!rl->found)
                (void) snprintf(rl->ret_path, rl->size, "%s/" RESERVE_DIR "/%s", dir, rl->name);
        rl->found = 1;
        return 0;
}

int reserve_claim_dir(int rootfd, bool host, const char *named, uint64_t page_size, struct error *e) {
        _cleanup_(closep) int mountfd = -1, dirfd = -1;
        char mount[PATH_MAX];
        int r;

        r = reserve_mount_for(rootfd, host, named, page_size, mount, sizeof(mount));
        if (r < 0)
                return 0; /* no mount: the reservation says so */
        r = reserve_mount_open(rootfd, mount, page_size, &mountfd, e);
        if (r < 0)
                return 0;
        r = reserve_dir_open(mountfd, mount, true, &dirfd, e);
        return r < 0 ? 0 : r;
}

static int release(struct release *rl) {
        _cleanup_(freep) char *mounts = NULL;
        int r;

        r = mounts_read(rl->rootfd, &mounts);
        if (r < 0)
                return r;
        r = mounts_foreach_hugetlbfs(mounts, 0, release_one, rl);
        if (r < 0)
                return r;
        return rl->kept ? 2 : rl->found ? 1 : rl->refused ? -EPERM : 0;
}

int reserve_release(int rootfd, const char *name, uint64_t page_size, uint64_t dev, uint64_t ino, char *ret_path,
                    size_t size, struct error *e) {
        return release(&(struct release) { .rootfd = rootfd, .name = name, .ret_path = ret_path, .size = size,
                                           .e = e, .page_size = page_size, .dev = dev, .ino = ino });
}

int reserve_release_made(int rootfd, const char *name, uint64_t page_size, uint64_t dev, uint64_t ino, char *ret_path,
                         size_t size, struct error *e) {
        return release(&(struct release) { .rootfd = rootfd, .name = name, .ret_path = ret_path, .size = size,
                                           .unused_only = true, .e = e, .page_size = page_size, .dev = dev,
                                           .ino = ino });
}
