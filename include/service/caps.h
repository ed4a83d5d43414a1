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
/* The effective set of the calling thread. */
int caps_effective(uint64_t *ret);
