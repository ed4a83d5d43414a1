/* SPDX-License-Identifier: MIT */
/* What `hpfilld status` shows, read once: the pools now, the last plan's targets, the last
 * fill, the settings a command that ended left raised, and every reservation on disk. Printed as text or JSON. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "service/reserve_list.h"
#include "kernel/pool.h"
#include "kernel/topology.h"
#include "service/metrics.h"

struct status_data {
        int rootfd;
        bool host; /* the root is this machine's "/" */
        struct topology t;
        struct pool_counts *counts; /* [size * t.n_nodes + node index] */
        bool have_record;           /* a record of the last fill is there (METRICS_RECORD_FILE) ... */
        struct fill_record rec;     /* ... and whole (valid): its outcome, targets and reservations */
        struct status_setting *settings; /* what commands that ended left raised (the state's) */
        size_t n_settings;
        char lock_holder[512]; /* who holds the host lock, in words; "" for no one */
        struct reserve_found *reserves; /* on disk, now */
        int n_reserves;
};

/* The target the last fill's plan gave the pool of @page_size on @node, or NULL. */
const uint64_t *status_target(const struct status_data *d, uint64_t page_size, unsigned node);
/* The record's entry for a reservation found on disk (its nodes, its target), or NULL. */
const struct metrics_reserve *status_reserve_record(const struct status_data *d, const struct reserve_found *f);

void status_print_text(const struct status_data *d, FILE *f);
/* Returns 0, or -errno where @f could not be written. */
int status_print_json(const struct status_data *d, FILE *f);
