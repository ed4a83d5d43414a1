/* SPDX-License-Identifier: MIT */
/* Writing JSON (RFC 8259) to a stream: the writer puts the separators, callers say what comes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_DEPTH_MAX 16

/* One document (or the members of one, json_writer_init_members()) being written. The layout
 * is fixed: ", " between values, ": " after a key, no line ends but the one after a document. */
struct json_writer {
        FILE *f;
        unsigned depth;  /* containers open; 0: at the top */
        unsigned bottom; /* the depth finish expects: 0, or 1 for a writer of members */
        bool after_key;  /* a key written: its value comes next, without a separator */
        bool object[JSON_DEPTH_MAX + 1]; /* at each depth: an object (members), not an array */
        bool more[JSON_DEPTH_MAX + 1];   /* at each depth: a value already written there */
        int error; /* the first: a write's -errno, or -EINVAL for a misuse (a key in an array...) */
};

/* A writer of one document to @f. */
void json_writer_init(struct json_writer *w, FILE *f);
/* A writer of members of an object that is opened and closed elsewhere (json_members()): for
 * the part of a document that is written before its head is known. */
void json_writer_init_members(struct json_writer *w, FILE *f);
/* Checks every container was closed, ends a document with a line end and flushes. Returns 0, or
 * the first error: -errno of a write that failed (ferror() with no errno: -EIO), -EINVAL of a
 * misuse. */
int json_writer_finish(struct json_writer *w);

void json_begin_object(struct json_writer *w);
void json_end_object(struct json_writer *w);
void json_begin_array(struct json_writer *w);
void json_end_array(struct json_writer *w);
/* The name of the member whose value comes next, escaped as a string. */
void json_key(struct json_writer *w, const char *key);

/* @s as a JSON string: quotes, backslashes and control characters (C0, DEL, C1, the
 * terminal-unsafe ones of sanitize.h) escaped, bytes that are not UTF-8 as U+FFFD; NULL as null. */
void json_string(struct json_writer *w, const char *s);
/* The same, "" as null (a value that is not set). */
void json_string_or_null(struct json_writer *w, const char *s);
void json_u64(struct json_writer *w, uint64_t v);
void json_i64(struct json_writer *w, int64_t v);
void json_bool(struct json_writer *w, bool v);
void json_null(struct json_writer *w);
/* @v with @decimals digits after the point ("%.*f"); NaN and infinities (not JSON) as null. */
void json_double(struct json_writer *w, double v, int decimals);
/* *@v, or null where @v is NULL. */
void json_u64_or_null(struct json_writer *w, const uint64_t *v);
/* An error as the positive errno (EIO: 5) from @negative_errno, or null where it is 0. */
void json_errno_or_null(struct json_writer *w, int negative_errno);
/* @members, the text of a json_writer_init_members() writer, as members of the open object
 * (nothing where it is empty or NULL). */
void json_members(struct json_writer *w, const char *members);
