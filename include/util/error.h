/* SPDX-License-Identifier: MIT */
/* A message slot that parsers and checkers fill, so the caller reports it at the edge. */
#pragma once

#include "util/macro.h"

struct error {
        char msg[2048];
        unsigned omitted; /* messages error_append() had no room for */
};

/* "The first error wins": where a run keeps one error and what it was about, a later one is
 * dropped. Stores @r (when nonzero and none is there yet) and the copy of @what; returns @r. */
int error_keep_first(int *slot, char *what_slot, size_t what_size, int r, const char *what);

/* Formats the message into @e (when non-NULL) and returns @r, a negative errno. */
int error_set(struct error *e, int r, const char *fmt, ...) _printf_(3, 4);

/* Puts "@prefix: " in front of the message already in @e; returns @r. */
int error_prefix(struct error *e, int r, const char *fmt, ...) _printf_(3, 4);

/* Adds the message of @more to @e's on a line of its own, whole or not at all (then counted
 * as omitted); returns @r. A parser that goes on after an error reports every one this way,
 * then calls error_close(). */
int error_append(struct error *e, int r, const struct error *more);
/* Ends a list of messages with "... and N more" when some had no room. */
void error_close(struct error *e);
