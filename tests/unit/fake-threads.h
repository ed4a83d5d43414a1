/* SPDX-License-Identifier: MIT */
/* pthread_create() as TasksMax= or pids.max make it: EAGAIN past a limit. Test-only, linked with
 * -Wl,--wrap=pthread_create (tests/meson.build): the daemon's own calls land here. */
#pragma once

/* Threads that may still be created; below zero (the start): no limit. */
extern int fake_threads_left;
