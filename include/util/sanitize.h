/* SPDX-License-Identifier: MIT */
/* Text from files others control made safe for terminals and one-line edges: the output of
 * status (every format), STATUS=, the log, the record. Text is taken as UTF-8 (a terminal's
 * usual mode): well-formed characters go out as they are, except the controls. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Copies @s into @buf (of @size > 0, truncated between characters, always terminated) with
 * each control written as \ooo per byte: C0 controls (below 0x20) and DEL, so that no newline
 * starts a second STATUS= line or log record; C1 controls (U+0080..U+009F, bytes C2 80..C2 9F)
 * and every byte that is not part of well-formed UTF-8 (raw 0x80..0xff bytes, which an 8-bit
 * terminal would take for C1 controls), so that no escape sequence reaches a terminal; the
 * characters that reorder or break the text around them (U+2028, U+2029, the bidi embeddings,
 * overrides and isolates U+202A..U+202E, U+2066..U+2069), so that none makes a line read as
 * another. A backslash goes out as \\, so that a name holding the four characters \033 never
 * reads as an escaped ESC. */
void escape_controls(char *buf, size_t size, const char *s);
/* As escape_controls(), backslashes left as they are: for the log, whose messages carry names
 * escape_controls() made safe already (a message of several lines names a file in each), and
 * would show their escapes doubled. */
void escape_controls_only(char *buf, size_t size, const char *s);
/* The same, onto @f, whatever the length of @s. */
void escape_fputs(const char *s, FILE *f);
/* Whether escape_controls() would escape anything in @s other than a backslash: what the
 * parsers of hpfilld's own files refuse. */
bool has_controls(const char *s);
/* The length of the character at @s that escape_controls() leaves as it is (a backslash
 * aside), or 0 for a byte it escapes as \ooo. */
size_t text_plain_len(const char *s);
/* The length of the well-formed UTF-8 character at @s (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or 0 when the bytes there are not one. */
size_t utf8_len(const char *s);
/* The code point of the character of @n bytes at @s if it is a C1 control (U+0080..U+009F) or
 * one that reorders or breaks the text around it (U+2028..U+202E, U+2066..U+2069), else 0. */
uint32_t utf8_control(const char *s, size_t n);
