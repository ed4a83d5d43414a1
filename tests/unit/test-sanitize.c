/* SPDX-License-Identifier: MIT */
/* Control characters escaped at the one-line edges. */
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

int main(void) {
        RUN(test_escape);
        return 0;
}
