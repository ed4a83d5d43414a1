/* SPDX-License-Identifier: MIT */
/* Least privilege per command: the capabilities each command keeps, dropped before it reads
 * anything others wrote (a tree under --root, the state in /run/hpfilld, a hugetlbfs mount). */
#include <inttypes.h>
#include <linux/capability.h>
#include <string.h>

#include "service/caps.h"
#include "service/privilege.h"
#include "util/log.h"

#define CAP(c) (UINT64_C(1) << (c))

/* Root writes the pool files, the compaction triggers and /run/hpfilld as their owner, which
 * takes no capability. */
uint64_t command_caps(enum command cmd, const struct config *c) {
        switch (cmd) {
        case COMMAND_FILL:
                /* its reservations are known now: telling one in use by a lease, opening
                 * another owner's for it, handing it over (CAPS_RESERVE) */
                return c && c->n_reserves > 0 ? CAPS_RESERVE : 0;
        case COMMAND_DAEMON:
                /* always: any reload may bring reservations, and a capability once dropped
                 * cannot be regained */
                return CAPS_RESERVE;
        case COMMAND_GIVE_BACK:
                /* removes only the reservations nothing maps: each told as status tells it, by a
                 * lease on its file (another owner's opened for reading); unlinks in root's
                 * MOUNT/hpfilld and writes the pools as their owner */
        case COMMAND_STATUS:
                /* says whether a process maps a reservation of another owner's (a lease on it,
                 * reserve_list.c): its file opened for reading, then leased; nothing written */
                return CAP(CAP_DAC_READ_SEARCH) | CAP(CAP_LEASE);
        case COMMAND_CHECK:   /* reads the configuration and the pools */
        case COMMAND_RELEASE: /* unlinks a file of root's directory MOUNT/hpfilld */
        case COMMAND_BENCH:   /* fills and restores the pools, as a fill without reservations */
                return 0;
        }
        return 0;
}

int privilege_drop_for(enum command cmd, const struct config *c) {
        uint64_t keep = command_caps(cmd, c), eff;
        /* the daemon runs for the life of the machine: its bounding set goes too, and it may
         * load libcap; the others end soon, with one capset() */
        int r = caps_drop_all_but(keep, cmd == COMMAND_DAEMON, cmd == COMMAND_DAEMON);

        /* a fill's are permitted, effective only while the reservations are made (job.c) */
        if (r >= 0 && (cmd == COMMAND_FILL || cmd == COMMAND_DAEMON))
                r = caps_effective_set(keep, false);
        /* asked only to be said: one capget() fewer in every run that does not say it */
        if (r >= 0 && log_get_max_level() >= LOG_DEBUG && caps_effective(&eff) >= 0)
                log_debug("Capabilities effective: 0x%" PRIx64 " (0x%" PRIx64 " kept)", eff, keep);
        return r;
}
