/* SPDX-License-Identifier: MIT */
/* Which configuration the daemon of this boot reads: its --config FILE, recorded in RUNDIR for
 * hpfilld give-back, which keeps that configuration's claims once the daemon has stopped. */
#pragma once

#define DAEMON_CONFIG_FILE "daemon-config"

/* Records @path (absolute: the daemon's --config) in RUNDIR/DAEMON_CONFIG_FILE, or, where
 * @path is NULL (the default files), removes the record an earlier daemon left. Called by the
 * daemon while it holds its mark (hostlock.h), so no give-back reads it meanwhile. 0 or a
 * negative errno. */
int daemon_config_save(int rootfd, const char *path);
/* The path recorded: 1 with it in *@ret_path (to free), 0 where there is none (no daemon of this
 * boot read a --config file), or a negative errno: -EBADMSG for a record that is not one
 * absolute path; RUNDIR refused as rundir_open_existing() refuses it. */
int daemon_config_load(int rootfd, char **ret_path);
