/* SPDX-License-Identifier: MIT */
/* Whether a root directory is this host's (host.h). */
#include <sys/stat.h>

#include "kernel/host.h"

bool root_is_host(int rootfd) {
        struct stat a, b;

        return fstat(rootfd, &a) >= 0 && stat("/", &b) >= 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}
