/* SPDX-License-Identifier: MIT */
/* `hpfilld reload`: the running daemon asked, over its control socket, to read its
 * configuration again and fill, answered when the fill is done (the unit's ExecReload= where
 * systemd is older than 253: a SIGHUP returns before the daemon has taken it). */
#pragma once

#include "service/common_options.h"

/* argv[0] is "reload". Returns the exit status: the daemon's answer, 1 where no daemon listens. */
int reload_main(int argc, char *argv[], const struct common_options *common);
