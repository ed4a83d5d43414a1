/* SPDX-License-Identifier: MIT */
/* CreateMounts=, --create-mounts: the hugetlbfs mount a reservation needs, made where the
 * documentation says, when the page size has none. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* Pure: where a mount of @page_size goes, below the root: "dev/hugepages" for the default page
 * size (@default_size, where systemd mounts it), "dev/hugepages1G" and so on for the others. */
void hugetlbfs_mount_place(uint64_t page_size, uint64_t default_size, char *ret, size_t size);
/* Mounts hugetlbfs for @page_size at its place (hugetlbfs_mount_place()), the directory made
 * (root's, 0755) if missing, the mount's root 0755 root's: never over a mount, never on
 * anything but a directory of root's that no one else may write. @rootfd is the host's "/"
 * (mount(2) takes no directory fd). Returns 1 with the mount point in @ret ("/dev/hugepages1G"),
 * or a negative errno with the reason in @e: where mount(2) itself fails, the directory made for
 * it is removed again (one that was there is kept), and @e says which. The mount stays after
 * hpfilld exits. */
int hugetlbfs_mount_create(int rootfd, uint64_t page_size, char *ret, size_t size, struct error *e);
