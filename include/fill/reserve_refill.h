/* SPDX-License-Identifier: MIT */
/* A reservation's file that is there already, whichever fill made it: in use by a VM or any
 * process (left as it is), or not (taken back, its pages given back and faulted anew, freshly
 * zeroed); owner, group and mode as configured. */
#pragma once

#include "fill/reserve.h"
#include "fill/reserve_use.h"

/* The file of @rr in its directory @dirfd (never following a link), told by
 * reserve_use_open(). RESERVE_USE_FREE: *ret_fd is open for writing, the file root's and 0600,
 * with a write lease held until it is closed: nobody else can open it until it is handed over;
 * it is ours to punch, fault and hand over. Otherwise (in use, or it could not be told) nothing
 * changed: *ret_fd is a descriptor of it without a lease, or -1. Needs CAP_DAC_READ_SEARCH,
 * CAP_LEASE and CAP_CHOWN for another owner's file, or says RESERVE_USE_UNKNOWN. */
enum reserve_use reserve_refill_take(const struct reserve_run *rr, int dirfd, int *ret_fd);
/* Gives every page of the file @fd back to the pool (the next faults zero new ones). */
int reserve_refill_punch(int fd, const struct reserve_run *rr);
/* Group, then mode, then owner as planned: at no point can anyone but root and the intended
 * owner and group open it. Needs CAP_CHOWN for another owner or group. */
int reserve_hand_over(int fd, const struct reserve_run *rr);
