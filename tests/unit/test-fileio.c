/* SPDX-License-Identifier: MIT */
/* find_last_line_at(): the first of some whole lines in a large file, through a small buffer, read no
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

/* @before bytes of lines of 'a' (each of @width with its newline), @text, @after bytes of lines
 * of 'b' as wide */
static char *around(size_t before, size_t width, const char *text, size_t after) {
        size_t n = strlen(text);
        char *s = malloc(before + n + after + 1);

        CHECK(s != NULL);
        for (size_t i = 0; i < before; i++)
                s[i] = (i + 1) % width == 0 ? '\n' : 'a';
        memcpy(s + before, text, n);
        for (size_t i = 0; i < after; i++)
                s[before + n + i] = (i + 1) % width == 0 ? '\n' : 'b';
        s[before + n + after] = 0;
        return s;
}

static int find(struct fake_root *r, const char *content, size_t max) {
        fake_write(r, "f", content);
        return find_last_line_at(r->fd, "f", "CONFIG_X", lines, ELEMENTSOF(lines), max);
}

static int find_around(struct fake_root *r, size_t before, size_t width, const char *text, size_t after, size_t max) {
        char *s = around(before, width, text, after);
        int k = find(r, s, max);

        free(s);
        return k;
}

TEST(test_found) {
        struct fake_root r;

        fake_root_new(&r);
        CHECK_EQ(find(&r, "CONFIG_X=y\n", 1 << 20), 0);
        CHECK_EQ(find(&r, "A=1\n# CONFIG_X is not set\nCONFIG_X=y\n", 1 << 20), 0); /* the last of them */
        CHECK_EQ(find(&r, "CONFIG_X=y\nA=1\n# CONFIG_X is not set\n", 1 << 20), 1);
        CHECK_EQ(find(&r, "A=1\nCONFIG_X=y", 1 << 20), 0);                           /* no newline at the end */
        CHECK_EQ(find(&r, "CONFIG_X=y\nCONFIG_X_LONG=y\nCONFIG_XY=y\n", 1 << 20), 0);  /* past lines of another name */
        /* a line across each edge of the buffer, however far from the end; at the file's start */
        for (size_t k = 1; k <= 4; k++)
                for (size_t at = k * 4096 - 40; at <= k * 4096 + 40; at++)
                        CHECK_EQ(find_around(&r, 100 * 1024, 64, "\nCONFIG_X=y\n", at, 1 << 20), 0);
        for (size_t k = 1; k <= 4; k++)
                for (size_t at = k * 16384 - 40; at <= k * 16384 + 40; at += 3)
                        CHECK_EQ(find_around(&r, 100 * 1024, 64, "\n# CONFIG_X is not set\n", at, 1 << 20), 1);
        CHECK_EQ(find_around(&r, 0, 80, "CONFIG_X=y\n", 300 * 1024, 1 << 20), 0);
        fake_root_free(&r);
}

TEST(test_not_found) {
        struct fake_root r;

        fake_root_new(&r);
        CHECK_EQ(find(&r, "", 1 << 20), -ENOMSG);
        CHECK_EQ(find(&r, "CONFIG_X=yes\nXCONFIG_X=y\n CONFIG_X=y\nCONFIG_X=y \n", 1 << 20), -ENOMSG); /* whole lines only */
        /* a line longer than the buffer that starts as one of them is not it, wherever the
         * buffer's edges fall in it; the line before it is read */
        static const size_t pages[] = { 1, 2, 3, 4, 8, 12, 16 };

        for (size_t i = 0, len; i < ELEMENTSOF(pages) * 41; i++) {
                char *t = malloc((len = pages[i / 41] * 4096 + i % 41 - 20) + 32);

                CHECK(t != NULL);
                strcpy(t, "A=1\nCONFIG_X=y");
                memset(t + strlen(t), 'a', len);
                strcpy(t + strlen("A=1\nCONFIG_X=y") + len, "\n");
                CHECK_EQ(find(&r, t, 1 << 20), -ENOMSG);
                memcpy(t, "CONFIG_X=y\n", strlen("CONFIG_X=y\n")); /* the line before it, one of them */
                memset(t + strlen("CONFIG_X=y\n"), 'a', strlen("A=1\nCONFIG_X=y") - strlen("CONFIG_X=y\n"));
                CHECK_EQ(find(&r, t, 1 << 20), 0);
                free(t);
        }
        /* read no further back than @max */
        CHECK_EQ(find_around(&r, 0, 64, "CONFIG_X=y\n", 64 * 1024, 32 * 1024), -EFBIG);
        CHECK_EQ(find_around(&r, 0, 64, "CONFIG_X=y\n", 64 * 1024, 128 * 1024), 0);
        fake_root_free(&r);
}

TEST(test_not_a_file) {
        struct fake_root r;

        fake_root_new(&r);
        CHECK_EQ(find_last_line_at(r.fd, "missing", "CONFIG_X", lines, ELEMENTSOF(lines), 1 << 20), -ENOENT);
        CHECK_EQ(mkfifoat(r.fd, "fifo", 0600), 0);
        CHECK_EQ(find_last_line_at(r.fd, "fifo", "CONFIG_X", lines, ELEMENTSOF(lines), 1 << 20), -EBADFD); /* never waited on */
        CHECK_EQ(mkdirat(r.fd, "dir", 0700), 0);
        CHECK_EQ(find_last_line_at(r.fd, "dir", "CONFIG_X", lines, ELEMENTSOF(lines), 1 << 20), -EISDIR);
        fake_write(&r, "real", "CONFIG_X=y\n");
        CHECK_EQ(find_last_line_at(r.fd, "real", "", lines, ELEMENTSOF(lines), 1 << 20), -EINVAL); /* no key */
        CHECK_EQ(symlinkat("real", r.fd, "link"), 0);
        CHECK_EQ(find_last_line_at(r.fd, "link", "CONFIG_X", lines, ELEMENTSOF(lines), 1 << 20), -ELOOP);
        fake_root_free(&r);
}

int main(void) {
        RUN(test_found);
        RUN(test_not_found);
        RUN(test_not_a_file);
        return 0;
}
