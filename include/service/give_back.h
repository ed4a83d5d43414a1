/* SPDX-License-Identifier: MIT */
/* hpfilld give-back: what hpfilld filled and reserved, given back in one step, never pages in use. */
#pragma once

#include "service/daemon.h"

/* The give-back verb: argv[0] is "give-back"; @load reads the configuration as the daemon does
 * (its claims stay). Returns the exit status (hpfilld(8)). */
int give_back_main(int argc, char *argv[], daemon_load_fn load, void *userdata);
