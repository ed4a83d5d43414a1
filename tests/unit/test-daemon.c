/* SPDX-License-Identifier: MIT */
/* The daemon's pure parts: memory-online uevents, notifications without
 * a socket. */
#include <unistd.h>

#include "service/daemon.h"
#include "fake-root.h"
#include "util/fileio.h"
#include "service/notify.h"
#include "test.h"

#define UEVENT(s) s, sizeof(s) - 1

TEST(test_uevents) {
        CHECK(uevent_is_memory_online(UEVENT("online@/devices/system/memory/memory40\0ACTION=online\0"
                                             "DEVPATH=/devices/system/memory/memory40\0SUBSYSTEM=memory\0SEQNUM=1\0")));
        CHECK(!uevent_is_memory_online(UEVENT("offline@/devices/system/memory/memory40\0ACTION=offline\0"
                                              "SUBSYSTEM=memory\0")));
        CHECK(!uevent_is_memory_online(UEVENT("online@/devices/system/cpu/cpu1\0ACTION=online\0SUBSYSTEM=cpu\0")));
        CHECK(!uevent_is_memory_online(UEVENT("add@/devices/system/memory/memory41\0ACTION=add\0SUBSYSTEM=memory\0")));
        /* udev's re-broadcasts are not the kernel's */
        CHECK(!uevent_is_memory_online(UEVENT("libudev\0ACTION=online\0SUBSYSTEM=memory\0")));
        CHECK(!uevent_is_memory_online("", 0));
        /* no terminating NUL on the last field */
        CHECK(uevent_is_memory_online("x@y\0SUBSYSTEM=memory\0ACTION=online", 35));
}

/* Only the kernel's: from port 0 to group 1, pid 0 in the credentials. A process that sends to
 * the daemon's port (its pid) is none of these. In a user namespace the kernel's uid reads as
 * the overflow uid: still the kernel's. */
TEST(test_uevent_sender) {
        struct sockaddr_nl k = { .nl_family = AF_NETLINK, .nl_pid = 0, .nl_groups = 1 };
        struct sockaddr_nl forged = { .nl_family = AF_NETLINK, .nl_pid = 4242, .nl_groups = 0 };
        struct sockaddr_nl udev = { .nl_family = AF_NETLINK, .nl_pid = 0, .nl_groups = 2 };
        struct ucred kc = { .pid = 0, .uid = 0 }, user = { .pid = 4242, .uid = 0 }, userns = { .pid = 0, .uid = 65534 };

        CHECK(uevent_from_kernel(&k, sizeof(k), &kc));
        CHECK(!uevent_from_kernel(&forged, sizeof(forged), &user));
        CHECK(!uevent_from_kernel(&forged, sizeof(forged), &kc));
        CHECK(!uevent_from_kernel(&udev, sizeof(udev), &kc));
        CHECK(!uevent_from_kernel(&k, sizeof(k), &user));
        CHECK(uevent_from_kernel(&k, sizeof(k), &userns));
        CHECK(uevent_from_kernel(&k, sizeof(k), NULL));
        CHECK(!uevent_from_kernel(&forged, sizeof(forged), NULL));
        CHECK(!uevent_from_kernel(&k, 0, &kc));
}

/* A lost uevent may have said memory came online: an overrun is taken as one, and the reading
 * goes on; only "none left" or an error ends it. */
TEST(test_uevent_step) {
        CHECK_EQ(uevent_step(120, 0), UEVENT_MESSAGE);
        CHECK_EQ(uevent_step(0, 0), UEVENT_MESSAGE);
        CHECK_EQ(uevent_step(-1, ENOBUFS), UEVENT_OVERRUN);
        CHECK_EQ(uevent_step(-1, EINTR), UEVENT_RETRY);
        CHECK_EQ(uevent_step(-1, EAGAIN), UEVENT_DONE);
        CHECK_EQ(uevent_step(-1, EBADF), UEVENT_DONE);
}

TEST(test_notify_without_socket) {
        unsetenv("NOTIFY_SOCKET");
        CHECK_EQ(notifyf("READY=1"), 0);
        setenv("WATCHDOG_USEC", "2000000", 1);
        setenv("WATCHDOG_PID", "1", 1); /* not us */
        CHECK_EQ(notify_watchdog_usec(), 0);
        unsetenv("WATCHDOG_PID");
        CHECK_EQ(notify_watchdog_usec(), 2000000);
        unsetenv("WATCHDOG_USEC");
        CHECK_EQ(notify_watchdog_usec(), 0);
}

int main(void) {
        RUN(test_uevents);
        RUN(test_uevent_sender);
        RUN(test_uevent_step);
        RUN(test_notify_without_socket);
        return 0;
}
