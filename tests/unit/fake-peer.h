/* SPDX-License-Identifier: MIT */
/* getsockopt(SO_PEERCRED) as a client of another user makes it: the uid the kernel reports for
 * the peer, whoever runs the test (linked with -Wl,--wrap=getsockopt). */
#pragma once

#include <sys/types.h>

/* The peer's uid SO_PEERCRED reports; -1 (the default): the real one. */
extern long long fake_peer_uid;
