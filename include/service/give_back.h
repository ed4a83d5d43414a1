/* SPDX-License-Identifier: MIT */
/* hpfilld give-back: what hpfilld filled and reserved, given back in one step, never pages in use. */
#pragma once

#include "service/daemon.h"

/* The give-back verb: argv[0] is "give-back"; @load reads the configuration as the daemon does
 * (its claims stay): the file *@config names (its --config; NULL: the default files), which
 * give-back sets to --config FILE, or to the daemon's (daemon_config.h), for the time of the
 * call. Returns the exit status (hpfilld(8)). */
int give_back_main(int argc, char *argv[], daemon_load_fn load, void *userdata, const char **config);
