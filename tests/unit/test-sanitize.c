/* SPDX-License-Identifier: MIT */
/* Escaping at the edges: control characters in one-line text (JSON strings: test-json.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/sanitize.h"
#include "test.h"

TEST(test_escape) {
        char buf[64];

        escape_controls(buf, sizeof(buf), "/mnt/x\nREADY=1\t\x7f\x1b[2J");
        CHECK(strcmp(buf, "/mnt/x\\012READY=1\\011\\177\\033[2J") == 0);
        CHECK(!has_controls(buf));
        CHECK(has_controls("a\nb"));
        CHECK(!has_controls("plain text, ü"));
        /* a backslash doubled: a name holding the four characters \033 is not an escaped ESC */
        escape_controls(buf, sizeof(buf), "caf\xc3\xa9 \\033");
        CHECK(strcmp(buf, "caf\xc3\xa9 \\\\033") == 0);
        escape_controls(buf, 4, "a\\b");
        CHECK(strcmp(buf, "a\\\\") == 0);
        escape_controls(buf, 3, "a\\b");
        CHECK(strcmp(buf, "a") == 0);
        /* truncated, never half an escape */
        escape_controls(buf, 6, "ab\ncd");
        CHECK(strcmp(buf, "ab") == 0);
        escape_controls(buf, 7, "ab\ncd");
        CHECK(strcmp(buf, "ab\\012") == 0);
        escape_controls(buf, 1, "abc");
        CHECK(strcmp(buf, "") == 0);
}

/* C1 controls: U+009B (C2 9B) is a UTF-8 terminal's CSI; a raw 0x9b byte an 8-bit terminal's.
 * Both escaped, byte by byte; well-formed UTF-8 around them (continuation bytes 0x80..0x9f of
 * other characters among it) kept. */
TEST(test_escape_c1) {
        char buf[64];

        escape_controls(buf, sizeof(buf), "a\xc2\x9b" "2Jb\x9b" "2J\xc2\x85");
        CHECK(strcmp(buf, "a\\302\\2332Jb\\2332J\\302\\205") == 0);
        CHECK(has_controls("\xc2\x9b"));
        CHECK(has_controls("\x9b"));
        CHECK(has_controls("\xff"));
        /* U+00A0, U+0100 (C4 80), U+2680 (E2 9A 80): not controls */
        escape_controls(buf, sizeof(buf), "\xc2\xa0\xc4\x80\xe2\x9a\x80");
        CHECK(strcmp(buf, "\xc2\xa0\xc4\x80\xe2\x9a\x80") == 0);
        CHECK(!has_controls("\xc4\x80\xe2\x9a\x80"));
        /* cut between characters */
        escape_controls(buf, 3, "a\xc4\x80");
        CHECK(strcmp(buf, "a") == 0);
}

/* What reorders or breaks a line: U+202E (E2 80 AE) would show "evil\u202Efdp.exe" as
 * "evilexe.pdf"; U+2028/U+2029 are line breaks to some readers. Escaped (JSON: test-json.c). */
TEST(test_escape_bidi) {
        static const char *const controls[] = { "\xe2\x80\xa8", "\xe2\x80\xa9", "\xe2\x80\xaa", "\xe2\x80\xae",
                                                "\xe2\x81\xa6", "\xe2\x81\xa9" };
        char buf[64];

        for (size_t i = 0; i < sizeof(controls) / sizeof(controls[0]); i++)
                CHECK(has_controls(controls[i]));
        escape_controls(buf, sizeof(buf), "evil\xe2\x80\xae" "fdp.exe\xe2\x81\xa6");
        CHECK(strcmp(buf, "evil\\342\\200\\256fdp.exe\\342\\201\\246") == 0);
        /* their neighbours are not: U+2027, U+202F, U+2065, U+206A */
        CHECK(!has_controls("\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa"));
}

/* The log's escaping: controls as escape_controls() has them, a backslash as it is, so that a
 * name escaped once already (\012 for a newline) is not shown doubled. */
TEST(test_escape_controls_only) {
        char buf[64], once[64];

        escape_controls_only(buf, sizeof(buf), "a\\012b\nc\033");
        CHECK(strcmp(buf, "a\\012b\\012c\\033") == 0);
        escape_controls(once, sizeof(once), "x\nREADY=1");
        escape_controls_only(buf, sizeof(buf), once);
        CHECK(strcmp(buf, "x\\012READY=1") == 0);
}

TEST(test_escape_fputs) {
        char *out = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&out, &len);

        CHECK(f);
        escape_fputs("vm\x1b]0;owned\x07\xc2\x9b\\033", f);
        CHECK(fclose(f) == 0);
        CHECK(strcmp(out, "vm\\033]0;owned\\007\\302\\233\\\\033") == 0);
        free(out);
}

int main(void) {
        RUN(test_escape);
        RUN(test_escape_c1);
        RUN(test_escape_bidi);
        RUN(test_escape_controls_only);
        RUN(test_escape_fputs);
        return 0;
}
