/* SPDX-License-Identifier: MIT */
/* A message slot that parsers and checkers fill, so the caller reports it at the edge. */
#pragma once

#include "util/macro.h"

struct error {
        char msg[2048];
};

/* Formats the message into @e (when non-NULL) and returns @r, a negative errno. */
int error_set(struct error *e, int r, const char *fmt, ...) _printf_(3, 4);

/* Puts "@prefix: " in front of the message already in @e; returns @r. */
int error_prefix(struct error *e, int r, const char *fmt, ...) _printf_(3, 4);

/* Adds the message of @more to @e's on a line of its own (as far as it fits); returns @r. A
 * parser that goes on after an error reports every one this way. */
int error_append(struct error *e, int r, const struct error *more);
