/* SPDX-License-Identifier: MIT */
/* `hpfilld claim NAME --pool SIZE:AMOUNT...` and `hpfilld unclaim NAME`: a consumer's pages,
 * said in a drop-in of its own (run/hpfilld.conf.d/50-claim-NAME.conf), added to the pools'
 * targets, and given back. Applied by the running daemon (control.h), else here under the
 * host lock. */
#pragma once

#include "service/daemon.h"

#define CLAIM_DIR "run/hpfilld.conf.d"
#define CLAIM_FILE_FORMAT "50-claim-%s.conf"

/* Pure: the drop-in of claim @name with the pools @specs ("SIZE:AMOUNT", checked by the
 * caller), as `hpfilld claim` writes it. */
int claim_file_text(const char *name, char *const *specs, size_t n, char **ret);

/* @argv[0] is "claim" or "unclaim". @load reads the configuration as the daemon does. Returns
 * the exit status. */
int claim_main(int argc, char *argv[], daemon_load_fn load, void *userdata);
