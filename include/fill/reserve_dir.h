/* SPDX-License-Identifier: MIT */
/* The directory a reservation lives in, MOUNT/hpfilld, opened and verified through descriptors:
 * hugetlbfs mounts are often writable by other users (mode 1777, a service user's), so nothing
 * there is taken by path. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "util/error.h"

/* Opens @mount as a directory (no symlink followed at the end) and checks it is hugetlbfs of
 * @page_size pages (any size when 0). -ENOTDIR, -ELOOP, -EXDEV (another file system), -EINVAL
 * (another page size), with a message naming @mount. */
int reserve_mount_open(const char *mount, uint64_t page_size, int *ret_fd, struct error *e);
/* Opens hpfilld/ below @mountfd. When absent: -ENOENT, or with @create made 0755 whatever the
 * umask. One that is there is accepted only as a directory (not a symlink) of root's that
 * nobody else can write: else -EPERM (or -ELOOP, -ENOTDIR) with a message naming it and its
 * owner. @mount names the mount in messages. */
int reserve_dir_open(int mountfd, const char *mount, bool create, int *ret_fd, struct error *e);
