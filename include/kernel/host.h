/* SPDX-License-Identifier: MIT */
/* Whether a root directory is this host's: the one decision for --root (the fill, bench, claim, give-back, status, the writes). */
#pragma once

#include <stdbool.h>

/* Whether @rootfd is this process's / (whatever its spelling: --root /, //, /.): only then are the
 * node ids, the command line and the mounts below it the running kernel's. A tree under --root
 * is not: nothing is bound to its nodes, nothing read from the host in its place. */
bool root_is_host(int rootfd);
