/* SPDX-License-Identifier: MIT */
/* Text from files others control made safe for one-line edges: STATUS=, the log, the record. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Copies @s into @buf (of @size > 0, truncated, always terminated) with each control character
 * (below 0x20, and DEL) written as \ooo, so that no newline starts a second STATUS= line or
 * log record. */
void escape_controls(char *buf, size_t size, const char *s);
bool has_controls(const char *s);
