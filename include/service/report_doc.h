/* SPDX-License-Identifier: MIT */
/* The JSON documents of `--once --json` (the report) and `--dry-run --json` (the plan). */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "service/job.h"

/* Writes the document to @f: "kind", the exit status and its name, where the plan came from
 * (@plan_from_cli: the command line), then @body, the members the job wrote to its sink's json
 * (empty where it stopped before them: then they are empty or null), and for a report the time
 * and the boot advice from @res (NULL: no job ran). Returns 0, or -errno when @f could not be
 * written. */
int report_document(FILE *f, bool dry_run, bool plan_from_cli, int exit_status, const char *body,
                    const struct job_result *res);
