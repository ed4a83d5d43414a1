/* SPDX-License-Identifier: MIT */
/* Claims made with `hpfilld claim`: kept in the state (owner "claim:NAME", its pools as asked,
 * and its want on each node), not in any file of the configuration. */
#pragma once

#include "state/store.h"
#include "util/error.h"

/* Claim @name is @specs (--pool values, "SIZE:AMOUNT", @n of them): its owner made where missing
 * (a gone one of that name comes back), its words kept, its want set on each node as the
 * planner spreads a pool's amount (plan_claim_pages()), and to 0 on the pools it no longer asks
 * of. -EINVAL with the reason in @e for a spec this machine cannot take (a page size it does not
 * offer, a node it does not have); nothing changed then. Returns the owner's index. */
int state_claim_set(struct state_store *st, const char *name, char *const *specs, size_t n, struct error *e);
/* The claim's owner marked given back: it wants nothing more, its pages leave as they come
 * free. -ENOENT where there is no such claim. */
int state_claim_drop(struct state_store *st, const char *name);
