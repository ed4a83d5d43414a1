/* SPDX-License-Identifier: MIT */
/* Progress on a terminal: one line per pool, redrawn in place while the fill runs, gone before
 * the report. For `hpfilld --once` when standard error is a terminal. */
#pragma once

#include <stdint.h>
#include <stdio.h>

#include "service/job.h"

struct tty_progress {
        FILE *f;
        uint64_t start_ns; /* CLOCK_MONOTONIC when the fill began */
        size_t lines;      /* lines on the screen now */
};

/* "2M pool: 1024/4096 pages, 1.9 GiB/s, 3 s left" (pages added so far of those to add). Pure. */
void progress_line(char *buf, size_t size, uint64_t page_size, uint64_t added, uint64_t wanted, uint64_t elapsed_ns);
/* job_sink.progress: redraws the lines. */
void tty_progress_update(const struct job_status *s, void *userdata);
/* job_sink.progress_done: erases them. */
void tty_progress_clear(void *userdata);
