/* SPDX-License-Identifier: MIT */
/* The directory a reservation lives in, MOUNT/hpfilld, opened and verified through descriptors:
 * hugetlbfs mounts are often writable by other users (mode 1777, a service user's), so nothing
 * there is taken by path. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "util/error.h"

/* Opens @mount, a mount point from the mount table below @rootfd, as a directory below @rootfd
 * (open_beneath(): no symbolic link on the way, a tree's table never names the host's mounts)
 * and checks it is hugetlbfs of @page_size pages (any size when 0). -ENOENT, -ENOTDIR, -ELOOP,
 * -EXDEV (another file system), -EINVAL (another page size), with a message naming @mount. */
int reserve_mount_open(int rootfd, const char *mount, uint64_t page_size, int *ret_fd, struct error *e);
/* Opens hpfilld/ below @mountfd. When absent: -ENOENT, or with @create made 0755 whatever the
 * umask. One that is there is accepted only as a directory (not a symlink) of root's that
 * nobody else can write: else -EPERM (or -ELOOP, -ENOTDIR) with a message naming it and its
 * owner; with @create it is moved aside instead (renamed hpfilld.moved.UID.NS) and a new one
 * made: 1, with what was moved where in @e (a warning to show). @mount names the mount in
 * messages. */
int reserve_dir_open(int mountfd, const char *mount, bool create, int *ret_fd, struct error *e);
