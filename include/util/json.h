/* SPDX-License-Identifier: MIT */
/* Writing JSON values: strings escaped, absent values as null. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* @s as a JSON string, quotes included: quotes, backslashes and control characters escaped,
 * bytes that are not UTF-8 as U+FFFD; NULL as null. */
void json_string(FILE *f, const char *s);
/* The same as the body of a JSON string, in @buf (cut to whole characters). */
void json_escape(char *buf, size_t size, const char *s);
/* @v, or null where @v is NULL. */
void json_u64_or_null(FILE *f, const uint64_t *v);
