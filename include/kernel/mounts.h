/* SPDX-License-Identifier: MIT */
/* Where hugetlbfs is mounted for a page size: libhugetlbfs on the host, /proc/mounts otherwise. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Pure: calls @cb for each hugetlbfs mount of @mounts (the text of /proc/self/mounts), with its
 * directory (escapes undone) and page size (@default_page_size without pagesize=); stops at
 * the first non-zero return of @cb and returns it. */
int mounts_foreach_hugetlbfs(const char *mounts, uint64_t default_page_size,
                             int (*cb)(const char *dir, uint64_t page_size, void *userdata), void *userdata);
/* Pure: the first hugetlbfs mount in @mounts (the text of /proc/self/mounts) for @page_size;
 * a mount without pagesize= has @default_page_size. -ENOENT if none. */
int mounts_find_hugetlbfs(const char *mounts, uint64_t page_size, uint64_t default_page_size, char *ret,
                          size_t size);
/* The mount table, proc/self/mounts below @rootfd: the mount points in it are the root's, to be
 * opened below it (open_beneath()). */
int mounts_read(int rootfd, char **ret);
/* The default huge page size (Hugepagesize: of proc/meminfo below @rootfd), 0 when unknown: a
 * mount without pagesize= has it. */
uint64_t hugetlbfs_default_page_size(int rootfd);
/* The mount for @page_size: through libhugetlbfs when @host and it is installed (loaded only
 * now, with its HUGETLB_* environment cleared so it cannot change hpfilld's behaviour), else
 * from proc/self/mounts below @rootfd. The path is below the root (the host's where it is /):
 * open it with open_beneath(@rootfd), never as it is. */
int hugetlbfs_mount_for(int rootfd, bool host, uint64_t page_size, char *ret, size_t size);
