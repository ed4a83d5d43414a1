/* SPDX-License-Identifier: MIT */
/* Kernel id lists such as "0-3,6" (node and CPU lists in sysfs). */
#pragma once

#include <stddef.h>

#define IDLIST_MAX_ID 65535u

/* Parses @s into a sorted array of unique ids. An empty string (or "\n") is an empty list. */
int idlist_parse(const char *s, unsigned **ret, size_t *ret_n);
