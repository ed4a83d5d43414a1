/* SPDX-License-Identifier: MIT */
/* hpfilld bench: each method at 1, 2, 4, ... threads per node, timed, pools put back as found. */
#pragma once

#include "service/common_options.h"

/* argv[0] is "bench". Returns an exit status (hpfilld(8)). */
int bench_main(int argc, char *argv[], const struct common_options *common);
