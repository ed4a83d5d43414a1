/* SPDX-License-Identifier: MIT */
/* `hpfilld claim NAME --pool SIZE:AMOUNT...` and `hpfilld unclaim NAME`: a consumer's pages, on
 * top of whatever the pools hold, kept in the state as claim NAME's (state/claims.h), added under
 * the host lock by this command, and given back by unclaim. The daemon refills them with its
 * own pools. */
#pragma once

#include "service/common_options.h"

#include "service/daemon.h"

/* @argv[0] is "claim" or "unclaim". @load reads the configuration as the daemon does (for the
 * [Fill] settings the claim's fill uses). Returns the exit status. */
int claim_main(int argc, char *argv[], daemon_load_fn load, void *userdata, const struct common_options *common);
