/* SPDX-License-Identifier: MIT */
/* Writing JSON values: strings escaped, absent values as null. */
#pragma once

#include <stdint.h>
#include <stdio.h>

/* @s as a JSON string, quotes included: quotes, backslashes and control characters escaped;
 * NULL as null. */
void json_string(FILE *f, const char *s);
/* @v, or null where @v is NULL. */
void json_u64_or_null(FILE *f, const uint64_t *v);
