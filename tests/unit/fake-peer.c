/* SPDX-License-Identifier: MIT */
/* getsockopt(SO_PEERCRED) with the peer's uid of the test's choice (fake-peer.h). */
#include <sys/socket.h>

#include "fake-peer.h"

long long fake_peer_uid = -1;

/* Declared from getsockopt() itself: a changed prototype fails to compile here. */
__typeof__(getsockopt) __real_getsockopt, __wrap_getsockopt;

int __wrap_getsockopt(int fd, int level, int name, void *value, socklen_t *len) {
        int r = __real_getsockopt(fd, level, name, value, len);

        if (r == 0 && level == SOL_SOCKET && name == SO_PEERCRED && fake_peer_uid >= 0)
                ((struct ucred *) value)->uid = (uid_t) fake_peer_uid;
        return r;
}
