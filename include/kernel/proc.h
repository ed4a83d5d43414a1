/* SPDX-License-Identifier: MIT */
/* Processes as /proc shows them: whether a pid still names the process that recorded it, and
 * the nodes this one may allocate memory on. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The start time of @pid (field 22 of /proc/PID/stat, clock ticks after boot). -ENOENT when
 * no such process exists. */
int proc_start_time(int rootfd, pid_t pid, uint64_t *ret);
/* Whether @pid is alive and is the process that started at @start_time (a reused pid is not). */
bool proc_is(int rootfd, pid_t pid, uint64_t start_time);
/* The nodes this process may allocate memory on (Mems_allowed_list of proc/self/status: its
 * cpuset), sorted; -ENOENT where the tree has no such file (a fake tree under --root). */
int proc_mems_allowed(int rootfd, unsigned **ret, size_t *ret_n);
