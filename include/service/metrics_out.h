/* SPDX-License-Identifier: MIT */
/* Where the metrics go: the fill record in /run/hpfilld, the textfile for node_exporter's
 * textfile collector (MetricsFile=, --metrics-file), and `hpfilld status --format=prometheus`. */
#pragma once

#include "state/model.h"

#include <stdio.h>

#include "service/metrics.h"
#include "util/error.h"

/* After a fill, under the host lock: @rec stamped (time, @exit_status, @summary, @next_boot, the
 * counters carried on from the record before) and moved into the state @s, whose save keeps it:
 * the one record of the last fill, for `hpfilld status` in all its formats. */
void metrics_record_into(int rootfd, struct state *s, struct fill_record *rec, int exit_status, const char *summary,
                         const char *next_boot);
/* The pools now and @rec, in the exposition format, to @path (absolute), atomically: for
 * node_exporter's textfile collector (MetricsFile=, --metrics-file). A message naming the
 * path in @e on failure. */
int metrics_write_file(int rootfd, struct fill_record *rec, const char *path, struct error *e);
/* The pools now and the record of the last fill, to @path as metrics_write_file() does, only
 * when that text differs from the file's: 1 when written, 0 when it said that already; a
 * message naming the path in @e on failure. */
int metrics_refresh_file(int rootfd, const char *path, struct error *e);
/* After a fill (the record in the state), MetricsFile='s text, a failure logged as a warning (the
 * fill stands); nothing where @metrics_file is "". */
void metrics_after_fill(int rootfd, const char *metrics_file);
/* @rec's targets and claims replaced with the state's (RUNDIR/state): what each pool's owners ask
 * now, and each claim's pages per node. 0, or a negative errno (the record left as it was). */
int metrics_overlay_state(int rootfd, struct fill_record *rec);
/* The record of the last fill (the state's): -ENOENT where there is none. */
int metrics_record_read(int rootfd, struct fill_record *ret);
/* The pools now and the last fill recorded, in the exposition format. A negative errno where
 * they could not be read, or where @f did not take them (ferror(@f) then). */
int metrics_print(int rootfd, FILE *f);
/* Writes @len bytes of @text to @path atomically, mode 0644, into its directory as found by a
 * walk from / that follows no symbolic link (-ELOOP), and only one of root's or this user's that
 * no one else can write (-EPERM): whoever could swap it could send root's file anywhere; never
 * hpfilld's own run/hpfilld below @rootfd (-EINVAL: it would take the state's place). A
 * message naming the path in @e on failure. */
/* Before anything is done: a negative errno (said in @e) where the file could not be written,
 * its directory missing (but for @missing_ok: the real root's, not there in an initramfs), not
 * a directory, unreadable or refused (trusted_dir_open()), or run/hpfilld below @rootfd
 * (-EINVAL); else 0. */
int metrics_file_check(int rootfd, const char *path, bool missing_ok, struct error *e);
int metrics_write_atomic(int rootfd, const char *path, const char *text, size_t len, struct error *e);
