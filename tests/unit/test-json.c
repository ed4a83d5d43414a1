/* SPDX-License-Identifier: MIT */
/* The JSON writer: separators and nesting, escaping, numbers, misuse and failed writes. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "test.h"

/* A writer into memory: begin() it, write, then end() returns what finish said and *out holds
 * the text. */
struct capture {
        FILE *f;
        char *text;
        size_t len;
        struct json_writer w;
};

static struct json_writer *begin(struct capture *c, bool members) {
        *c = (struct capture) {};
        c->f = open_memstream(&c->text, &c->len);
        CHECK(c->f);
        if (members)
                json_writer_init_members(&c->w, c->f);
        else
                json_writer_init(&c->w, c->f);
        return &c->w;
}

static int end(struct capture *c) {
        int r = json_writer_finish(&c->w);

        CHECK(fclose(c->f) == 0);
        return r;
}

/* @s as a lone JSON string, quotes and line end cut off, into @buf */
static void string_body(char *buf, size_t size, const char *s) {
        struct capture c;

        json_string(begin(&c, false), s);
        CHECK_EQ(end(&c), 0);
        CHECK(c.len >= 3 && c.text[0] == '"' && c.text[c.len - 2] == '"' && c.text[c.len - 1] == '\n');
        CHECK(c.len - 3 < size);
        memcpy(buf, c.text + 1, c.len - 3);
        buf[c.len - 3] = 0;
        free(c.text);
}

TEST(test_nesting) {
        struct capture c;
        struct json_writer *w = begin(&c, false);

        json_begin_object(w);
        json_key(w, "a"), json_u64(w, 1);
        json_key(w, "empty"), json_begin_array(w), json_end_array(w);
        json_key(w, "none"), json_begin_object(w), json_end_object(w);
        json_key(w, "list");
        json_begin_array(w);
        json_u64(w, 2);
        json_begin_object(w);
        json_key(w, "b"), json_null(w);
        json_key(w, "c"), json_begin_array(w), json_bool(w, true), json_bool(w, false), json_end_array(w);
        json_end_object(w);
        json_string(w, "x");
        json_end_array(w);
        json_end_object(w);
        CHECK_EQ(end(&c), 0);
        CHECK(strcmp(c.text, "{\"a\": 1, \"empty\": [], \"none\": {}, \"list\": [2, {\"b\": null, \"c\": [true, false]}, "
                             "\"x\"]}\n") == 0);
        free(c.text);
}

/* The members of a document whose head comes later: no braces, no line end; then embedded */
TEST(test_members) {
        struct capture c, doc;
        struct json_writer *w = begin(&c, true), *d;

        json_key(w, "pools"), json_begin_array(w), json_u64(w, 1), json_u64(w, 2), json_end_array(w);
        json_key(w, "kernel"), json_null(w);
        CHECK_EQ(end(&c), 0);
        CHECK(strcmp(c.text, "\"pools\": [1, 2], \"kernel\": null") == 0);

        d = begin(&doc, false);
        json_begin_object(d);
        json_key(d, "kind"), json_string(d, "report");
        json_members(d, c.text);
        json_members(d, "");
        json_members(d, NULL);
        json_key(d, "next_boot"), json_null(d);
        json_end_object(d);
        CHECK_EQ(end(&doc), 0);
        CHECK(strcmp(doc.text, "{\"kind\": \"report\", \"pools\": [1, 2], \"kernel\": null, \"next_boot\": null}\n") == 0);
        free(doc.text);

        /* members first, and alone */
        d = begin(&doc, false);
        json_begin_object(d);
        json_members(d, c.text);
        json_end_object(d);
        CHECK_EQ(end(&doc), 0);
        CHECK(strcmp(doc.text, "{\"pools\": [1, 2], \"kernel\": null}\n") == 0);
        free(doc.text);
        free(c.text);
}

TEST(test_escaping) {
        char buf[128];
        struct capture c;
        struct json_writer *w;

        string_body(buf, sizeof(buf), "a \"b\" \\ c\n\t\x01\x1f");
        CHECK(strcmp(buf, "a \\\"b\\\" \\\\ c\\u000a\\u0009\\u0001\\u001f") == 0);
        /* UTF-8 kept, anything else (a file name's bytes) as U+FFFD, DEL escaped */
        string_body(buf, sizeof(buf), "caf\xc3\xa9 \xff\xc3( \xed\xa0\x80 \xc0\xaf \x7f \xf0\x9f\x98\x80");
        CHECK(strcmp(buf, "caf\xc3\xa9 \\ufffd\\ufffd( \\ufffd\\ufffd\\ufffd \\ufffd\\ufffd \\u007f \xf0\x9f\x98\x80") == 0);
        /* C1: valid JSON raw, escaped all the same (a terminal reads `status --json` too) */
        string_body(buf, sizeof(buf), "a\xc2\x9b" "b");
        CHECK(strcmp(buf, "a\\u009bb") == 0);
        /* what reorders or breaks a line (sanitize.h): U+202E, U+2028 */
        string_body(buf, sizeof(buf), "a\xe2\x80\xae" "b\xe2\x80\xa8");
        CHECK(strcmp(buf, "a\\u202eb\\u2028") == 0);
        string_body(buf, sizeof(buf), "");
        CHECK(strcmp(buf, "") == 0);

        /* keys escaped the same; NULL and "" as null where asked */
        w = begin(&c, false);
        json_begin_object(w);
        json_key(w, "k\"\n"), json_string(w, NULL);
        json_key(w, "e"), json_string_or_null(w, "");
        json_key(w, "f"), json_string_or_null(w, "v");
        json_key(w, "g"), json_string(w, "");
        json_end_object(w);
        CHECK_EQ(end(&c), 0);
        CHECK(strcmp(c.text, "{\"k\\\"\\u000a\": null, \"e\": null, \"f\": \"v\", \"g\": \"\"}\n") == 0);
        free(c.text);
}

TEST(test_numbers) {
        struct capture c;
        struct json_writer *w = begin(&c, false);
        uint64_t v = 7;

        json_begin_array(w);
        json_u64(w, UINT64_MAX);
        json_i64(w, INT64_MIN);
        json_i64(w, -1);
        json_double(w, 1.5, 6);
        json_double(w, 2.0 / 3, 3);
        json_double(w, 1234567.5, 0); /* round half to even */
        json_double(w, NAN, 3);
        json_double(w, -INFINITY, 0);
        json_u64_or_null(w, &v);
        json_u64_or_null(w, NULL);
        json_errno_or_null(w, -EIO);
        json_errno_or_null(w, 0);
        json_end_array(w);
        CHECK_EQ(end(&c), 0);
        CHECK(strcmp(c.text, "[18446744073709551615, -9223372036854775808, -1, 1.500000, 0.667, 1234568, null, null, 7, "
                             "null, 5, null]\n") == 0);
        free(c.text);
}

/* Misuse is an error at the end (-EINVAL), whatever was written */
TEST(test_misuse) {
        struct capture c;
        struct json_writer *w;

        w = begin(&c, false); /* a value in an object, without its key */
        json_begin_object(w), json_u64(w, 1), json_end_object(w);
        CHECK_EQ(end(&c), -EINVAL);
        free(c.text);
        w = begin(&c, false); /* a key in an array */
        json_begin_array(w), json_key(w, "a"), json_u64(w, 1), json_end_array(w);
        CHECK_EQ(end(&c), -EINVAL);
        free(c.text);
        w = begin(&c, false); /* left open */
        json_begin_object(w), json_key(w, "a"), json_begin_array(w);
        CHECK_EQ(end(&c), -EINVAL);
        free(c.text);
        w = begin(&c, false); /* a key without its value */
        json_begin_object(w), json_key(w, "a"), json_end_object(w);
        CHECK_EQ(end(&c), -EINVAL);
        free(c.text);
        w = begin(&c, false); /* closed as the other kind */
        json_begin_object(w), json_end_array(w);
        CHECK_EQ(end(&c), -EINVAL);
        free(c.text);
        w = begin(&c, false); /* two documents */
        json_u64(w, 1), json_u64(w, 2);
        CHECK_EQ(end(&c), -EINVAL);
        free(c.text);
        w = begin(&c, true); /* a members writer closing what it did not open */
        json_key(w, "a"), json_u64(w, 1), json_end_object(w);
        CHECK_EQ(end(&c), -EINVAL);
        free(c.text);
        w = begin(&c, false); /* deeper than the stack */
        for (int i = 0; i <= JSON_DEPTH_MAX; i++)
                json_begin_array(w);
        CHECK_EQ(end(&c), -EINVAL);
        free(c.text);
        w = begin(&c, false); /* as deep as the stack: fine */
        for (int i = 0; i < JSON_DEPTH_MAX; i++)
                json_begin_array(w);
        for (int i = 0; i < JSON_DEPTH_MAX; i++)
                json_end_array(w);
        CHECK_EQ(end(&c), 0);
        free(c.text);
}

/* A stream that cannot take the document: its -errno at the end, not a silent cut */
TEST(test_full_stream) {
        char small[16];
        struct json_writer w;
        FILE *f = fmemopen(small, sizeof(small), "w");
        int r;

        CHECK(f);
        (void) setvbuf(f, NULL, _IONBF, 0);
        json_writer_init(&w, f);
        json_begin_object(&w);
        json_key(&w, "a long key that does not fit"), json_string(&w, "nor its value");
        json_end_object(&w);
        r = json_writer_finish(&w);
        CHECK(r < 0);
        CHECK_EQ(r, -ENOSPC);
        (void) fclose(f);

        /* a stream opened for reading: the first write fails */
        f = fmemopen(small, sizeof(small), "r");
        CHECK(f);
        json_writer_init(&w, f);
        json_u64(&w, 1);
        r = json_writer_finish(&w);
        CHECK(r < 0);
        (void) fclose(f);

        /* the same document where it fits */
        f = fmemopen(small, sizeof(small), "w");
        CHECK(f);
        json_writer_init(&w, f);
        json_begin_object(&w), json_key(&w, "a"), json_u64(&w, 1), json_end_object(&w);
        CHECK_EQ(json_writer_finish(&w), 0);
        CHECK(strncmp(small, "{\"a\": 1}\n", 9) == 0);
        (void) fclose(f);
}

int main(void) {
        RUN(test_nesting);
        RUN(test_members);
        RUN(test_escaping);
        RUN(test_numbers);
        RUN(test_misuse);
        RUN(test_full_stream);
        return 0;
}
