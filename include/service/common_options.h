/* SPDX-License-Identifier: MIT */
/* The options every command takes alike (--root), parsed once, before the command's own. */
#pragma once

struct common_options {
        const char *root; /* --root DIR: the tree whose sys/, proc/, run/ and etc/ are used; "/" */
};

/* Takes every --root DIR and --root=DIR out of @argv (*@argc shrinks; up to a "--", which stays),
 * whatever the command: the last one counts, and messages show paths below it (shown_root()).
 * A --root without a directory, or with one too long, is said and -EINVAL. */
int common_options_take(int *argc, char *argv[], struct common_options *ret);
/* The root opened (a directory fd), or said ("--root 'DIR': ...") and -errno. */
int common_root_open(const struct common_options *c);
