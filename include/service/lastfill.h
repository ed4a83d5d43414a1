/* SPDX-License-Identifier: MIT */
/* The record of the last fill (run/hpfilld/last-fill.json), for `hpfilld status`. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define LASTFILL_DIR "run/hpfilld"
#define LASTFILL_NAME "last-fill.json"
#define LASTFILL_FILE LASTFILL_DIR "/" LASTFILL_NAME

/* Writes the record (@advice: boot parameters for short pools, or "") atomically (a temp file
 * renamed over it), mode 0644 in a 0755 directory whatever the umask. */
int lastfill_write(int rootfd, int exit_status, const char *summary, const char *advice);
/* Whether @text is a whole record as lastfill_write() writes them: one line, {...}, its
 * leading fields readable. An empty or partial one is not. */
bool lastfill_valid(const char *text);
