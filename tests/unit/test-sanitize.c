/* SPDX-License-Identifier: MIT */
/* Escaping at the edges: control characters in one-line text, strings in JSON. */
#include "util/json.h"
#include "util/sanitize.h"
#include "test.h"

TEST(test_escape) {
        char buf[64];

        escape_controls(buf, sizeof(buf), "/mnt/x\nREADY=1\t\x7f\x1b[2J");
        CHECK(strcmp(buf, "/mnt/x\\012READY=1\\011\\177\\033[2J") == 0);
        CHECK(!has_controls(buf));
        CHECK(has_controls("a\nb"));
        CHECK(!has_controls("plain text, ü"));
        escape_controls(buf, sizeof(buf), "caf\xc3\xa9 \\040");
        CHECK(strcmp(buf, "caf\xc3\xa9 \\040") == 0);
        /* truncated, never half an escape */
        escape_controls(buf, 6, "ab\ncd");
        CHECK(strcmp(buf, "ab") == 0);
        escape_controls(buf, 7, "ab\ncd");
        CHECK(strcmp(buf, "ab\\012") == 0);
        escape_controls(buf, 1, "abc");
        CHECK(strcmp(buf, "") == 0);
}

TEST(test_json_escape) {
        char buf[64];

        json_escape(buf, sizeof(buf), "a \"b\" \\ c\n");
        CHECK(strcmp(buf, "a \\\"b\\\" \\\\ c\\u000a") == 0);
        json_escape(buf, 10, "0123456789abcdef");
        CHECK(strlen(buf) < 10);
        /* UTF-8 kept, anything else (a file name's bytes) as U+FFFD, DEL escaped */
        json_escape(buf, sizeof(buf), "caf\xc3\xa9 \xff\xc3( \xed\xa0\x80 \xc0\xaf \x7f \xf0\x9f\x98\x80");
        CHECK(strcmp(buf, "caf\xc3\xa9 \\ufffd\\ufffd( \\ufffd\\ufffd\\ufffd \\ufffd\\ufffd \\u007f \xf0\x9f\x98\x80") == 0);
        /* cut before a character that does not fit whole */
        json_escape(buf, 5, "ab\xc3\xa9");
        CHECK(strcmp(buf, "ab\xc3\xa9") == 0);
        json_escape(buf, 4, "ab\xc3\xa9");
        CHECK(strcmp(buf, "ab") == 0);
}

int main(void) {
        RUN(test_escape);
        RUN(test_json_escape);
        return 0;
}
