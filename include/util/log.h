/* SPDX-License-Identifier: MIT */
/* Logging to stderr, with syslog priority prefixes when stderr is the journal. For main and the executor. */
#pragma once

#include <stdbool.h>
#include <syslog.h>

#include "util/macro.h"

void log_set_max_level(int level);
int log_get_max_level(void);
/* Call once at start: decides whether lines get "<N>" prefixes (stderr connected to journald). */
void log_open(void);
/* From now on, messages go to the kernel log (/dev/kmsg), as in an initramfs. */
int log_open_kmsg(void);
/* Whether messages go to the kernel log. */
bool log_to_kmsg(void);

/* Returns -@error (or -EIO for 0), so callers can 'return log_error_errno(r, ...)'. */
int log_full_errno(int level, int error, const char *fmt, ...) _printf_(3, 4);

/* A message of several lines, such as every error in a file: each line its own record, so
 * the journal and the kernel log give each its priority. */
void log_lines(int level, const char *msg);

#define log_full(level, ...) ((void) log_full_errno((level), 0, __VA_ARGS__))
#define log_debug(...) log_full(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_full(LOG_INFO, __VA_ARGS__)
#define log_notice(...) log_full(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) log_full(LOG_WARNING, __VA_ARGS__)
#define log_error(...) log_full(LOG_ERR, __VA_ARGS__)
#define log_error_errno(e, ...) log_full_errno(LOG_ERR, (e), __VA_ARGS__)
#define log_warning_errno(e, ...) log_full_errno(LOG_WARNING, (e), __VA_ARGS__)
