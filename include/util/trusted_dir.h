/* SPDX-License-Identifier: MIT */
/* The directory of a file root writes for others to read (MetricsFile=): one that no one else
 * can swap for a link or fill with links. */
#pragma once

#include "util/error.h"

/* Opens the directory of @path (the host's, absolute), walked from / with no symbolic link
 * followed (open_beneath()), and checks it: root's or this user's, and writable by no one else.
 * Whoever owns a directory on the way can swap what is below it for a link (Debian's
 * /var/lib/prometheus is prometheus's, node-exporter/ below it root's); the descriptors of the
 * walk keep to the directories checked whatever is renamed after. Returns the fd and
 * *@ret_name, the file's name inside @path; -ELOOP (a link on the way) and -EPERM (owner,
 * mode) are refusals, other -errno what the walk met (-ENOENT: not there); a message naming
 * the directory in @e. */
int trusted_dir_open(const char *path, const char **ret_name, struct error *e);
/* The same check alone: 0 where the directory passes or is not there to check (another error
 * of the walk: a write would meet it later), -ELOOP or -EPERM with a message where it is
 * refused. */
int trusted_dir_check(const char *path, struct error *e);
