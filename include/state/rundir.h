/* SPDX-License-Identifier: MIT */
/* /run/hpfilld: hpfilld's files on this boot (the state, the host lock, the control socket). */
#pragma once

#define RUNDIR "run/hpfilld"

/* Opens RUNDIR below @rootfd, making it (mode 0755 whatever the umask) where missing. It must
 * be a directory of our own that no other user can write: a file others could plant there
 * would be taken for ours; a symbolic link as run/ or run/hpfilld is -ELOOP (open_beneath()).
 * Returns an O_PATH-less directory fd, or a negative errno. */
int rundir_open(int rootfd);
/* The same for a reader (hpfilld status, any user): never made, -ENOENT where missing; it
 * must be root's or the caller's, and written by no one else. */
int rundir_open_existing(int rootfd);
