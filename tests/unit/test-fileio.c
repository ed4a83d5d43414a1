/* SPDX-License-Identifier: MIT */
/* find_line_at(): the first of some whole lines in a large file, through a small buffer, read no
 * further than that line; lines across the buffer's edges, longer than it, at the file's end. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake-root.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "test.h"

static const char *const lines[] = { "CONFIG_X=y", "# CONFIG_X is not set" };

/* @before bytes of lines of 'a' (each of @width with its newline), then @text */
static char *filler_then(size_t before, size_t width, const char *text) {
        size_t n = strlen(text);
        char *s = malloc(before + n + 1);

        CHECK(s != NULL);
        for (size_t i = 0; i < before; i++)
                s[i] = (i + 1) % width == 0 ? '\n' : 'a';
        memcpy(s + before, text, n + 1);
        return s;
}

static int find(struct fake_root *r, const char *content, size_t max) {
        fake_write(r, "f", content);
        return find_line_at(r->fd, "f", "CONFIG_X", lines, ELEMENTSOF(lines), max);
}

TEST(test_found) {
        struct fake_root r;
        char *s;

        fake_root_new(&r);
        CHECK_EQ(find(&r, "CONFIG_X=y\n", 1 << 20), 0);
        CHECK_EQ(find(&r, "A=1\n# CONFIG_X is not set\nCONFIG_X=y\n", 1 << 20), 1); /* the first of them */
        CHECK_EQ(find(&r, "A=1\nCONFIG_X=y", 1 << 20), 0);                           /* no newline at the end */
        CHECK_EQ(find(&r, "CONFIG_X_LONG=y\nCONFIG_XY=y\nCONFIG_X=y\n", 1 << 20), 0);  /* past lines of another name */
        /* a line across each edge of the buffer, deep in a large file */
        for (size_t at = 8192 - 12; at <= 8192 + 2; at++) {
                s = filler_then(5 * 8192 + at, 64, "\nCONFIG_X=y\nB=2\n");
                CHECK_EQ(find(&r, s, 1 << 20), 0);
                free(s);
        }
        s = filler_then(300 * 1024, 80, "\n# CONFIG_X is not set\n");
        CHECK_EQ(find(&r, s, 1 << 20), 1);
        free(s);
        fake_root_free(&r);
}

TEST(test_not_found) {
        struct fake_root r;
        char *s;

        fake_root_new(&r);
        CHECK_EQ(find(&r, "", 1 << 20), -ENOMSG);
        CHECK_EQ(find(&r, "CONFIG_X=yes\nXCONFIG_X=y\n CONFIG_X=y\nCONFIG_X=y \n", 1 << 20), -ENOMSG); /* whole lines only */
        /* a line longer than the buffer that ends as one of them is not it; the next line is read */
        for (size_t before = 4096; before <= 32768; before += 4096) { /* its rest a whole buffer's */
                s = filler_then(before, before + 1, "CONFIG_X=y\n");
                CHECK_EQ(find(&r, s, 1 << 20), -ENOMSG);
                free(s);
        }
        s = filler_then(20000, 30000, "CONFIG_X=y\n# CONFIG_X is not set\n");
        CHECK_EQ(find(&r, s, 1 << 20), 1);
        free(s);
        /* read no further than @max */
        s = filler_then(64 * 1024, 64, "\nCONFIG_X=y\n");
        CHECK_EQ(find(&r, s, 32 * 1024), -EFBIG);
        CHECK_EQ(find(&r, s, 128 * 1024), 0);
        free(s);
        fake_root_free(&r);
}

TEST(test_not_a_file) {
        struct fake_root r;

        fake_root_new(&r);
        CHECK_EQ(find_line_at(r.fd, "missing", "CONFIG_X", lines, ELEMENTSOF(lines), 1 << 20), -ENOENT);
        CHECK_EQ(mkfifoat(r.fd, "fifo", 0600), 0);
        CHECK_EQ(find_line_at(r.fd, "fifo", "CONFIG_X", lines, ELEMENTSOF(lines), 1 << 20), -EBADFD); /* never waited on */
        CHECK_EQ(mkdirat(r.fd, "dir", 0700), 0);
        CHECK_EQ(find_line_at(r.fd, "dir", "CONFIG_X", lines, ELEMENTSOF(lines), 1 << 20), -EISDIR);
        fake_write(&r, "real", "CONFIG_X=y\n");
        CHECK_EQ(symlinkat("real", r.fd, "link"), 0);
        CHECK_EQ(find_line_at(r.fd, "link", "CONFIG_X", lines, ELEMENTSOF(lines), 1 << 20), -ELOOP);
        fake_root_free(&r);
}

int main(void) {
        RUN(test_found);
        RUN(test_not_found);
        RUN(test_not_a_file);
        return 0;
}
