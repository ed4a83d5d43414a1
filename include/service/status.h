/* SPDX-License-Identifier: MIT */
/* hpfilld status: the pools per size and node, and the last fill; for any user. */
#pragma once

#include "service/common_options.h"

/* argv[0] is "status". Returns an exit status. */
int status_main(int argc, char *argv[], const struct common_options *common);
