/* SPDX-License-Identifier: MIT */
/* The service manager's notification protocol (sd_notify): READY=1, STATUS=, WATCHDOG=1, ... */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "util/macro.h"

/* Sends @fmt's text (newline-separated assignments) to $NOTIFY_SOCKET. 0 when there is no
 * socket (not under a service manager), 1 when sent, a negative errno on failure. */
int notifyf(const char *fmt, ...) _printf_(1, 2);
/* The watchdog interval systemd asked for ($WATCHDOG_USEC, for this process), or 0. */
uint64_t notify_watchdog_usec(void);
