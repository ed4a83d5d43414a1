/* SPDX-License-Identifier: MIT */
/* Processes as /proc shows them: whether a pid still names the process that recorded it. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The start time of @pid (field 22 of /proc/PID/stat, clock ticks after boot). -ENOENT when
 * no such process exists. */
int proc_start_time(int rootfd, pid_t pid, uint64_t *ret);
/* Whether @pid is alive and is the process that started at @start_time (a reused pid is not). */
bool proc_is(int rootfd, pid_t pid, uint64_t start_time);
