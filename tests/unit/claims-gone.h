/* SPDX-License-Identifier: MIT */
/* For the planner's tests: a configuration's gone list (config.gone) from an older one, as a
 * test states it; hpfilld's own comes from the claims' records (service/claim_record.h). */
#pragma once

#include "settings/conf.h"

/* Into @new's gone, each claim of @old that @new has no longer or has with another amount
 * (the old amount: what it may give back; the new one is in @new's claims). 0 or -ENOMEM. */
int claims_gone(const struct config *old, struct config *new);
