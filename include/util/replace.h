/* SPDX-License-Identifier: MIT */
/* Replacing a small file whole: readers see the old text or the new, never part of one. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Replaces DIRFD/@name with @len bytes of @text, mode 0644 whatever the umask. Written to a
 * temp file in the same directory (".NAME.PID.tmp": a dot file, which neither node_exporter's
 * textfile collector (*.prom) nor the journal's reader takes for one of theirs), then put in
 * @name's place in one step (swapped with the old one, which is then removed; or renamed over
 * it); on failure the temp file is removed and the old file stands. @durable: fsync'ed, then
 * renamed over the old one and the directory fsync'ed, for a file that must outlive a crash. */
int replace_file_at(int dirfd, const char *name, const char *text, size_t len, bool durable);
/* Removes the temp files of @name that writers killed while replacing it left, whatever their
 * pid: for a caller that knows no other writer is at work (it holds their lock). */
void replace_remove_temps(int dirfd, const char *name);
