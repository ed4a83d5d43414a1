/* SPDX-License-Identifier: MIT */
/* One run of job_dry_run() or job_fill(), as job.c, job_checks.c and job_report.c share it: what
 * its caller gave it and what the run itself keeps (not for the job's callers). */
#pragma once

#include <stdbool.h>

#include "service/job.h"

struct job {
        const struct job_params *in;
        const struct job_sink *to; /* never NULL: an empty sink for none */
        struct job_result *out;    /* never NULL */
        bool dry_run;
        int report_error; /* the report could not be written (a closed pipe): negative errno */
};
