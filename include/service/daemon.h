/* SPDX-License-Identifier: MIT */
/* The daemon: fill, tell the service manager READY=1, then wait idle for SIGHUP (reload and
 * fill again), memory coming online (fill again) and SIGTERM (stop). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <linux/netlink.h>

#include "kernel/topology.h"
#include "settings/conf.h"

/* Loads the configuration (files, kernel command line, command line) into @c; a bad one is an
 * error whose message is in @e. */
typedef int (*daemon_load_fn)(int rootfd, struct config *c, void *userdata, struct error *e);

/* At most one refill on memory coming online per this many seconds; the rest wait for it */
#define DAEMON_HOTPLUG_INTERVAL_S 10u
/* Connections on the control socket held while their request has not come (hpfilld claim
 * connects, then writes its file, then asks); the oldest is closed for a new one beyond. */
#define DAEMON_CONTROL_CLIENTS 8
/* The kernel's multicast group of uevents (libudev's are group 2) */
#define UEVENT_KERNEL_GROUP 1u
/* Pure: whether a uevent datagram came from the kernel: from port 0 (no process can bind it),
 * to its group, and, where the credentials (SO_PASSCRED) came with it, from pid 0. Not by uid:
 * in a user namespace the kernel's uid 0 reads as the overflow uid. */
bool uevent_from_kernel(const struct sockaddr_nl *sa, socklen_t sa_len, const struct ucred *cred);
/* What the daemon does after a recvmsg() of the uevent socket returned @n, errno @err. */
enum uevent_step {
        UEVENT_MESSAGE, /* a datagram: looked at, then the next */
        UEVENT_OVERRUN, /* ENOBUFS: the receive buffer overflowed, uevents were lost (one may have
                         * said memory came online): taken as if one had, then the next */
        UEVENT_RETRY,   /* EINTR */
        UEVENT_DONE,    /* none left (EAGAIN), or an error */
};
enum uevent_step uevent_step(ssize_t n, int err);
/* Pure: whether a kernel uevent (the netlink datagram) says a memory block came online. */
bool uevent_is_memory_online(const char *buf, size_t len);

/* Runs until SIGTERM/SIGINT (exit status 0) or a first fill that fails (its exit status), on
 * @config, loaded by the caller (who checked it): taken over, left empty. @load reads it again
 * under the host lock at the first fill and on every reload. Each fill waits up to
 * @lock_timeout_s for another command on the host (lock.h); the daemon is recorded in the state
 * while it runs, and at its stop ReleaseOnStop= gives back what the configuration added. */
int daemon_run(int rootfd, bool host, struct config *config, daemon_load_fn load, void *userdata,
               unsigned lock_timeout_s);
