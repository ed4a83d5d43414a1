/* SPDX-License-Identifier: MIT */
/* `hpfilld give-back`: the reservations hpfilld made and the pages it added (the state's), all
 * but the claims', given back: free pages only, never another's. */
#pragma once

#include "service/common_options.h"

/* Returns the exit status. */
int give_back_main(int argc, char *argv[], const struct common_options *common);
