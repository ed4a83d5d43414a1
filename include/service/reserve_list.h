/* SPDX-License-Identifier: MIT */
/* The reservations there are: every file in MOUNT/hpfilld of each hugetlbfs mount, whatever
 * fill made it; for `hpfilld status`. */
#pragma once

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "fill/reserve_use.h"
#include "util/error.h"

struct reserve_found {
        char name[NAME_MAX + 1];
        char path[PATH_MAX]; /* MOUNT/hpfilld/NAME, the host's path */
        uint64_t page_size;  /* the mount's */
        uint64_t pages;      /* its size in pages */
        uid_t uid;
        gid_t gid;
        mode_t mode; /* permission bits */
        enum reserve_use use;
};

/* Lists the regular files of every MOUNT/hpfilld that passes reserve_dir_open()'s checks (a
 * file seen twice, through bind mounts, once), in mount-table order; nothing changes. A mount
 * that cannot be looked in (not ours to open, a MOUNT/hpfilld refused) is said in @e, the first
 * one, and skipped. Returns how many, with the array in @ret (free() it), or a negative errno. */
int reserve_list(int rootfd, struct reserve_found **ret, struct error *e);
