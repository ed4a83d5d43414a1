/* SPDX-License-Identifier: MIT */
/* A fill's plan with whose pages it moves: the planner's targets (the configuration's [Pool]s and
 * [Claim]s, the claims of the state on top, or a one-off run's pools) become the wants of the
 * fill's owner in the state, and each pool node's change is what the state says that owner and
 * the claims lack, or may give back (state_fill_intent()): the plan's nodes are set to it. */
#pragma once

#include "kernel/kernel_features.h"
#include "kernel/pool.h"
#include "plan/plan.h"
#include "settings/conf.h"
#include "state/store.h"
#include "util/error.h"

struct job_plan {
        struct plan plan;
        struct state_intent *intents; /* one per node that moves, for state_change_begin() */
        size_t n_intents;
};

/* @c with the claims of @s (all, or claim @only) added as [Claim]s of per-node page counts (what
 * each wants on each node), for the planner: a shallow copy of @c whose own claims
 * job_plan_config_done() frees. */
int job_plan_config(const struct config *c, const struct state *s, const struct topology *t, const char *only,
                    struct config *ret);
void job_plan_config_done(struct config *c, const struct config *orig);

/* Under the host lock, with @counts read under it: plans @c (job_plan_config()'s, for a fill of
 * the configuration), sets the wants of @owner (kind @kind) from it, and the nodes to the
 * changes the state asks. -EINVAL with the planner's reason in @e, -ENOMEM. */
int job_plan_build(struct state_store *st, const struct pool_counts *counts, const struct config *c,
                   const struct kernel_features *caps, enum state_fill kind, size_t owner, struct job_plan *ret,
                   struct error *e);
void job_plan_done(struct job_plan *jp);
