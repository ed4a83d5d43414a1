/* SPDX-License-Identifier: MIT */
/* The plan and the report as JSON (doc/hpfilld-json.schema.json): typed data, no sentences. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "kernel/kernel_features.h"
#include "plan/plan.h"
#include "plan/report.h"
#include "util/json.h"

/* "grow", "shrink", "keep", "larger". */
const char *plan_action_to_json(enum plan_action a);
/* The member "plan": {...} */
void report_plan_json(struct json_writer *w, const struct plan *p);
/* The member "kernel": {...} */
void report_kernel_json(struct json_writer *w, const struct kernel_features *c);
/* One pool of the report, an object; @met: at least its minimum share. */
void report_pool_json(struct json_writer *w, const struct plan_pool *p, const struct pool_outcome *o, bool met);
