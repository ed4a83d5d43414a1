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

static bool owner_is_root(const char *name) {
        return !*name || strcmp(name, "root") == 0 || strcmp(name, "0") == 0;
}

/* Root writes the pool files, the compaction triggers and /run/hpfilld as their owner, which
 * takes no capability. */
uint64_t command_caps(enum command cmd, const struct config *c) {
        uint64_t keep = 0;

        switch (cmd) {
        case COMMAND_FILL:
        case COMMAND_DAEMON:
                /* Owner= and Group= are resolved only when the reservation is made: any that
                 * may be another than root keeps CAP_CHOWN */
                for (size_t i = 0; c && i < c->n_reserves; i++)
                        if (!owner_is_root(c->reserves[i].owner) || !owner_is_root(c->reserves[i].group))
                                keep |= CAP(CAP_CHOWN);
                /* the daemon's refills tell a reservation a VM has open by a lease on it
                 * (another owner's file) and change the owner back and forth if a reload asks
                 * for another */
                if (cmd == COMMAND_DAEMON && c && c->n_reserves > 0)
                        keep |= CAP(CAP_LEASE) | CAP(CAP_CHOWN);
                return keep;
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
        uint64_t eff;
        /* the daemon runs for the life of the machine: its bounding set goes too, and it may
         * load libcap; the others end soon, with one capset() */
        int r = caps_drop_all_but(command_caps(cmd, c), cmd == COMMAND_DAEMON, cmd == COMMAND_DAEMON);

        if (r >= 0 && caps_effective(&eff) >= 0)
                log_debug("Capabilities left: 0x%" PRIx64, eff);
        return r;
}
