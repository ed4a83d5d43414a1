/* SPDX-License-Identifier: MIT */
/* A refill's reservation file that is already there: in use by a VM (left alone), or not (its
 * pages given back and faulted anew, freshly zeroed); owner, group and mode as configured. */
#pragma once

#include <stdbool.h>

#include "fill/reserve.h"

/* Opens the file of @rr in its directory @dirfd (not following a link) and tells whether another process has it open or mapped (*ret_in_use).
 * When not, the file is held with a write lease until the fd is closed: a process that opens it
 * meanwhile waits until the refill is done. Returns the fd, or a negative errno. */
int reserve_refill_open(const struct reserve_run *rr, int dirfd, bool *ret_in_use);
/* Gives every page of the file @fd back to the pool (the next faults zero new ones). */
int reserve_refill_punch(int fd, const struct reserve_run *rr);
/* Group, then mode, then owner as planned: at no point can anyone but root and the intended
 * owner and group open it. Needs CAP_CHOWN for another owner or group. */
int reserve_hand_over(int fd, const struct reserve_run *rr);
