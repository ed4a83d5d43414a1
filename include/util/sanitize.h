/* SPDX-License-Identifier: MIT */
/* Text from files others control made safe for terminals and one-line edges: the output of
 * status (every format), STATUS=, the log, the record. Text is taken as UTF-8 (a terminal's
 * usual mode): well-formed characters go out as they are, except the controls. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Copies @s into @buf (of @size > 0, truncated between characters, always terminated) with
 * each control written as \ooo per byte: C0 controls (below 0x20) and DEL, so that no newline
 * starts a second STATUS= line or log record; C1 controls (U+0080..U+009F, bytes C2 80..C2 9F)
 * and every byte that is not part of well-formed UTF-8 (raw 0x80..0xff bytes, which an 8-bit
 * terminal would take for C1 controls), so that no escape sequence reaches a terminal. */
void escape_controls(char *buf, size_t size, const char *s);
/* The same, onto @f, whatever the length of @s. */
void escape_fputs(const char *s, FILE *f);
/* Whether escape_controls() would escape anything in @s: what the parsers of hpfilld's own
 * files refuse. */
bool has_controls(const char *s);
/* The length of the character at @s that escape_controls() leaves as it is, or 0 for a byte it
 * escapes. */
size_t text_plain_len(const char *s);
/* The length of the well-formed UTF-8 character at @s (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or 0 when the bytes there are not one. */
size_t utf8_len(const char *s);
/* Whether the character of @n bytes at @s is a C1 control (U+0080..U+009F). */
bool utf8_is_c1(const char *s, size_t n);
