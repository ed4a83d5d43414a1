/* SPDX-License-Identifier: MIT */
/* The record of the last fill (run/hpfilld/last-fill.json), for `hpfilld status`. */
#pragma once

#include <stddef.h>

#define LASTFILL_DIR "run/hpfilld"
#define LASTFILL_FILE LASTFILL_DIR "/last-fill.json"

/* @s as the body of a JSON string (quotes, backslashes and control characters escaped). */
void json_escape(char *buf, size_t size, const char *s);
/* Writes the record (@advice: boot parameters for short pools, or "") in place, readable by everyone. */
int lastfill_write(int rootfd, int exit_status, const char *summary, const char *advice);
