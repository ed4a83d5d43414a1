/* SPDX-License-Identifier: MIT */
/* The root directory (--root) as messages show it in front of a path below it, so that every
 * path in a message is the one really read: "" for the host's /, else "/srv/image". */
#pragma once

/* Set once, by the command line's edge; "/" and trailing slashes are dropped. */
void shown_root_set(const char *root);
const char *shown_root(void);
