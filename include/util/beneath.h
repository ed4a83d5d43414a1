/* SPDX-License-Identifier: MIT */
/* Opening a path below a directory fd (--root, a mount) so that it never resolves outside it. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

enum {
        /* Symbolic links on the way are followed, resolved as if the directory were / (a
         * configuration masked by a link to /dev/null, /proc/self): without it any link on the
         * way, the last component's included, is refused with -ELOOP. */
        BENEATH_FOLLOW = 1 << 0,
        /* No mount point crossed on the way (-EXDEV). */
        BENEATH_NO_XDEV = 1 << 1,
};

/* openat(@dirfd, @path, @flags, @mode) with every component resolved inside @dirfd, as the
 * kernel's openat2(RESOLVE_IN_ROOT) does: an absolute @path and ".." start at, and stop at,
 * @dirfd; a symbolic link on the way is refused (-ELOOP) unless @how has BENEATH_FOLLOW; magic
 * links (/proc/PID/fd/N) are never followed. openat2() where the kernel has it (5.6),
 * open_beneath_walk() where it is ENOSYS. @dirfd AT_FDCWD is no root: @path, one the admin
 * named (--config), is opened as openat() opens it. Returns the fd or a negative errno. */
int open_beneath(int dirfd, const char *path, int flags, mode_t mode, unsigned how);
/* The same, one component at a time, each directory opened with O_NOFOLLOW and a link, where
 * followed, read and resolved here: what open_beneath() does without openat2(). */
int open_beneath_walk(int dirfd, const char *path, int flags, mode_t mode, unsigned how);
/* Opens the directory holding the last component of @path (resolved as open_beneath() does);
 * *@ret_name points at that component inside @path ("." and ".." are -EINVAL). */
int open_parent_beneath(int dirfd, const char *path, unsigned how, const char **ret_name);
/* Makes the directory @path below @dirfd (its parent resolved as open_beneath() does), mode
 * @mode whatever the umask, set through its descriptor; one already there is kept as it is, a
 * symbolic link in its place refused (-ELOOP). Returns an O_DIRECTORY fd of it; *@ret_made
 * (may be NULL) says whether it was made now. */
int mkdir_beneath(int dirfd, const char *path, mode_t mode, unsigned how, bool *ret_made);
