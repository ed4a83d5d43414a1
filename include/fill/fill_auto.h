/* SPDX-License-Identifier: MIT */
/* Runs a plan whose Mode=auto pools are measured on the running kernel (measure.h). */
#pragma once

#include "fill/fill.h"

/* As fill_execute(), and pools of method FILL_MODE_AUTO by measure_fill() on the real kernel;
 * their runs carry the choice. */
int fill_execute_plan(struct fill_shared *shared, const struct plan *p, struct pool_run *runs);
