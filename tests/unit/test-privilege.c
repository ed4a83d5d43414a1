/* SPDX-License-Identifier: MIT */
/* The capabilities each command keeps: none for the ones that only read or release, what a
 * reservation of another owner's needs for a fill and the daemon, and status's read side. */
#include <linux/capability.h>
#include <string.h>

#include "service/caps.h"
#include "service/privilege.h"
#include "test.h"

#define CAP(c) (UINT64_C(1) << (c))

TEST(test_command_caps) {
        struct reserve_spec rs[2] = {};
        struct config c = CONFIG_INIT;

        CHECK_EQ(command_caps(COMMAND_STATUS, NULL), CAP(CAP_DAC_READ_SEARCH) | CAP(CAP_LEASE));
        CHECK_EQ(command_caps(COMMAND_RELEASE, NULL), 0);
        CHECK_EQ(command_caps(COMMAND_GIVE_BACK, NULL), CAP(CAP_DAC_READ_SEARCH) | CAP(CAP_LEASE));
        CHECK_EQ(command_caps(COMMAND_BENCH, NULL), 0);
        CHECK_EQ(command_caps(COMMAND_CHECK, &c), 0);
        /* no reservation: the pools are root's files, written as their owner; the daemon keeps
         * CAPS_RESERVE whatever its first configuration, for a reload that brings some */
        CHECK_EQ(command_caps(COMMAND_FILL, &c), 0);
        CHECK_EQ(command_caps(COMMAND_DAEMON, &c), CAPS_RESERVE);
        /* a reservation, root's or another owner's: a lease tells whether it is in use */
        strcpy(rs[0].owner, "root");
        c.reserves = rs;
        c.n_reserves = 1;
        CHECK_EQ(command_caps(COMMAND_FILL, &c), CAPS_RESERVE);
        CHECK_EQ(command_caps(COMMAND_DAEMON, &c), CAPS_RESERVE);
        strcpy(rs[1].group, "kvm");
        c.n_reserves = 2;
        CHECK_EQ(command_caps(COMMAND_FILL, &c), CAPS_RESERVE);
        CHECK_EQ(command_caps(COMMAND_CHECK, &c), 0);
        CHECK_EQ(CAPS_RESERVE, CAP(CAP_CHOWN) | CAP(CAP_DAC_READ_SEARCH) | CAP(CAP_LEASE));
}

int main(void) {
        RUN(test_command_caps);
        return 0;
}
