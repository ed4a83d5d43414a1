/* SPDX-License-Identifier: MIT */
/* Whether any process has a reservation's file open or mapped: a write lease on it. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "fill/reserve_use.h"

const char *reserve_use_to_string(enum reserve_use u) {
        return u == RESERVE_USE_IN_USE ? "in-use" : u == RESERVE_USE_FREE ? "free" : "unknown";
}

/* A write lease is granted only while no other open file of the inode exists, for reading or
 * for writing (the kernel's check_conflicting_open(): i_writecount and i_readcount, less our
 * own descriptor), and a mapping keeps its file open after close(): EAGAIN means a process has
 * it. Any other failure (EACCES: not the owner and no CAP_LEASE; EINVAL: a file system without
 * leases) tells nothing, and nothing may be taken on nothing. A lease break signals SIGURG,
 * ignored by default, never SIGIO, which would end the process. */
enum reserve_use reserve_use_open(int dirfd, const char *name, int flags, int *ret_fd, int *ret_error) {
        int fd = openat(dirfd, name, flags | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);

        *ret_fd = fd;
        if (ret_error)
                *ret_error = fd < 0 ? -errno : 0;
        if (fd < 0)
                return RESERVE_USE_UNKNOWN;
        if (fcntl(fd, F_SETSIG, SIGURG) < 0)
                return RESERVE_USE_UNKNOWN;
        if (fcntl(fd, F_SETLEASE, F_WRLCK) >= 0)
                return RESERVE_USE_FREE;
        return errno == EAGAIN ? RESERVE_USE_IN_USE : RESERVE_USE_UNKNOWN;
}
