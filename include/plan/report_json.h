/* SPDX-License-Identifier: MIT */
/* The plan and the report as JSON (doc/hpfilld-json.schema.json): typed data, no sentences. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "kernel/kernel_features.h"
#include "plan/plan.h"
#include "plan/report.h"

/* "grow", "shrink", "keep", "larger". */
const char *plan_action_to_json(enum plan_action a);
/* "\"plan\": {...}" */
void report_plan_json(FILE *f, const struct plan *p);
/* "\"kernel\": {...}" */
void report_kernel_json(FILE *f, const struct kernel_features *c);
/* One pool of the report, an object; @met: at least its minimum share. */
void report_pool_json(FILE *f, const struct plan_pool *p, const struct pool_outcome *o, bool met);
