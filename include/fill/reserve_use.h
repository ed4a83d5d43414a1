/* SPDX-License-Identifier: MIT */
/* Whether any process has a reservation's file open or mapped: the one test every path uses
 * (a fill, a reload, --once, `hpfilld status`). */
#pragma once

enum reserve_use {
        RESERVE_USE_UNKNOWN, /* could not be told (not ours to open or lease): counts as in use */
        RESERVE_USE_FREE,    /* no process has it open or mapped */
        RESERVE_USE_IN_USE,  /* a process (a VM) has it open or mapped */
};

/* Opens @name in @dirfd with @flags (O_RDONLY or O_RDWR; never following a link, never
 * blocking on another's lease) and tries a write lease on it. RESERVE_USE_FREE: the lease is
 * held on *ret_fd until it is closed, so a process that opens the file meanwhile waits (up to
 * /proc/sys/fs/lease-break-time) and the answer stays true. Otherwise *ret_fd is the descriptor
 * without a lease, or -1 where the file could not be opened (-errno in *ret_error, 0 else; @ret_error may be NULL).
 * Needs read (or write) access and the file's ownership or CAP_LEASE, or says UNKNOWN. */
enum reserve_use reserve_use_open(int dirfd, const char *name, int flags, int *ret_fd, int *ret_error);
/* "free", "in-use", "unknown". */
const char *reserve_use_to_string(enum reserve_use u);
