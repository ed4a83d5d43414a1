/* SPDX-License-Identifier: MIT */
/* Least privilege per command: the capabilities each command keeps, dropped before it reads
 * anything others wrote (a tree under --root, the state in /run/hpfilld, a hugetlbfs mount). */
#pragma once

#include <stdint.h>

#include "settings/conf.h"

enum command {
        COMMAND_FILL,    /* --once */
        COMMAND_DAEMON,  /* no --once: fills, refills, reloads */
        COMMAND_CHECK,   /* --dry-run, --check-config: reads only */
        COMMAND_RELEASE, /* --release */
        COMMAND_STATUS,
        COMMAND_BENCH,
        COMMAND_GIVE_BACK, /* hpfilld give-back */
};

/* Pure: the capabilities (a mask of 1 << CAP_*) @cmd needs with the configuration @c (NULL for
 * the commands that take none). */
uint64_t command_caps(enum command cmd, const struct config *c);
/* Keeps command_caps() and nothing else (caps_drop_all_but(); the daemon's bounding set too),
 * with no new privileges through exec. */
int privilege_drop_for(enum command cmd, const struct config *c);
