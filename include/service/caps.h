/* SPDX-License-Identifier: MIT */
/* Giving up privileges after setup: every capability but those still needed, bounding and
 * ambient sets included, and no new privileges through exec. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* Keeps only the capabilities in @keep (a mask of 1 << CAP_*) that we have in the permitted
 * and effective sets; empties the inheritable and ambient sets, and with @bounding the bounding
 * set too when CAP_SETPCAP allows (one prctl() per capability: the bounding set only limits
 * what an exec()ed program could gain, which no_new_privs already rules out); sets
 * PR_SET_NO_NEW_PRIVS. @daemon: through libcap where built with it (loaded now); a command that
 * ends soon does the same with one capset() and loads nothing. Call before any thread is
 * started: capabilities are per thread. */
int caps_drop_all_but(uint64_t keep, bool bounding, bool daemon);
/* What reservations need after setup: CAP_CHOWN to hand a file to its owner and group (and to
 * take back one nobody has), CAP_DAC_READ_SEARCH and CAP_LEASE to tell whether a process has
 * one open that is there already, another owner's file of a mode closed to root. */
#define CAPS_RESERVE (UINT64_C(1) << 0 /* CAP_CHOWN */ | UINT64_C(1) << 2 /* CAP_DAC_READ_SEARCH */ | \
                      UINT64_C(1) << 28 /* CAP_LEASE */)

/* Those of @mask that are permitted into the calling thread's effective set (@on), or out of
 * it: kept permitted, a capability is effective only while the work that needs it runs. */
int caps_effective_set(uint64_t mask, bool on);
/* The effective set of the calling thread. */
int caps_effective(uint64_t *ret);
