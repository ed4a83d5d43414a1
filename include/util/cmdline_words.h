/* SPDX-License-Identifier: MIT */
/* The words of the kernel command line, as the kernel splits them (next_arg(), lib/cmdline.c). */
#pragma once

/* The next word of @p (spaces separate, double quotes group and are dropped), into @buf, which
 * holds at least strlen(@p) + 1 bytes. Returns where the word ends, NULL at the end of @p. */
const char *cmdline_next_word(const char *p, char *buf);
