/* SPDX-License-Identifier: MIT */
/* The files hpfilld 0.x kept in /run/hpfilld before RUNDIR/state (the ledgers, the claims'
 * records and marks, the journal of raised settings, the daemon's marks), and the claims'
 * drop-ins hpfilld claim wrote to /run/hpfilld.conf.d: read once, into the state, then removed. */
#pragma once

#include "state/store.h"

/* Into st->s (empty, of this boot); what was converted said in the store's notes. A file that
 * cannot be read is said and left where it is (nothing of it counted). */
int state_legacy_convert(struct state_store *st);
/* With a state there already: the old files a conversion killed before it removed them left
 * (they are in the state), removed. */
void state_legacy_remove(struct state_store *st);
