/* SPDX-License-Identifier: MIT */
/* Prefaulted reservations: pages zeroed in parallel into a named hugetlbfs file that a VM
 * manager maps (QEMU: memory-backend-file,mem-path=FILE,share=on) and starts without zeroing. */
#pragma once

#include <limits.h>
#include <sys/types.h>

#include "fill/fill_fault.h"
#include "fill/reserve_use.h"
#include "plan/plan.h"
#include "util/error.h"

#define RESERVE_DIR "hpfilld"

struct reserve_run {
        const struct plan_reserve *plan;
        char mount[PATH_MAX];   /* hugetlbfs mount for the page size */
        int mountfd;            /* that mount, verified: hugetlbfs of the page size */
        uid_t uid;              /* Owner= and Group=, resolved by reserve_locate() */
        gid_t gid;
        char path[PATH_MAX];    /* MOUNT/hpfilld/NAME */
        struct fault_pool fault;
        uint64_t faulted;
        uint64_t elapsed_ns;
        unsigned threads;
        bool interrupted;
        bool kept;              /* there already and left alone: in use, or that could not be told */
        enum reserve_use use;   /* of a file there already */
        int error;
        char error_what[PATH_MAX + 64];
};

/* Resolves each reservation's Owner= and Group= (now, not when the configuration was read;
 * one that does not resolve gets -ESRCH). Finds the hugetlbfs mount of every reservation and
 * checks it (hugetlbfs of the page size; MOUNT/hpfilld, if there, root's and writable by no one
 * else); no change to anything. A reservation without a mount (-ENOENT), or with one that fails
 * the checks, gets its error. Returns how many have an error. */
int reserve_locate(int rootfd, bool host, const struct plan *p, struct reserve_run *runs);
/* Whether the file of @rr is there, of the planned size (made by an earlier fill). */
bool reserve_is_there(const struct reserve_run *rr);
/* Makes each reservation, freshly zeroed, owner/group/mode as planned, its pages faulted from
 * the pool by the fault workers. A file already at its name that any process has open or maps
 * (or of which that cannot be told) is never replaced or punched, by any fill: it is kept as it
 * is; one nobody has gets its pages given back and faulted anew. A reservation that is not
 * complete is removed. */
int reserve_execute(struct fill_shared *shared, const struct plan *p, struct reserve_run *runs);
void reserve_runs_done(struct reserve_run *runs, size_t n);
/* Makes MOUNT/hpfilld of the mount for @page_size (@named, Mount=, where not empty) now, moving another user's aside
 * (reserve_dir_open()): before the capabilities are dropped (CAP_FOWNER renames in a mount of
 * another owner's). 1 with what was moved in @e, to show as a warning; 0 otherwise (a mount
 * that is not there or not fit: the reservation says so later). */
int reserve_claim_dir(int rootfd, bool host, const char *named, uint64_t page_size, struct error *e);
/* Removes the reservation file hpfilld made, @name of that identity (@dev, @ino; 0, 0: the one
 * of that name, made by a fill that ended before it knew), from the hugetlbfs mounts of
 * @page_size, in MOUNT/hpfilld directories that pass reserve_dir_open()'s checks only, in use or
 * not (hpfilld --release): 1 removed, 0 none. A directory or file refused is said in @e (-EPERM
 * when nothing was removed), as is a file of that name of another identity (left alone). */
int reserve_release(int rootfd, const char *name, uint64_t page_size, uint64_t dev, uint64_t ino, char *ret_path,
                    size_t size, struct error *e);
/* The same, but a file a process has open or maps, or of which that cannot be told
 * (reserve_use_open()), is kept: 2, its path in @ret_path (hpfilld give-back). */
int reserve_release_made(int rootfd, const char *name, uint64_t page_size, uint64_t dev, uint64_t ino, char *ret_path,
                         size_t size, struct error *e);
