/* SPDX-License-Identifier: MIT */
/* The JSON documents of `--once --json` (the report) and `--dry-run --json` (the plan). */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "service/job.h"

/* Writes the document to @f: "kind", the exit status and its name, then @body, the members the
 * job wrote to j->json (empty where it stopped before them: then they are empty or null), and for
 * a report the boot advice. Returns 0, or -errno when @f could not be written. */
int report_document(FILE *f, bool dry_run, int exit_status, const char *body, const struct job *j);
