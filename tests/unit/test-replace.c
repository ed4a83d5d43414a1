/* SPDX-License-Identifier: MIT */
/* Replacing a small file whole: a reader of the old one keeps it whole, the new one takes its
 * place with its mode whatever the umask, and nothing else is left in the directory. */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake-root.h"
#include "util/fileio.h"
#include "util/replace.h"
#include "test.h"

static void check_text(int dirfd, const char *name, const char *want) {
        char *text = NULL;

        CHECK_EQ(read_full_file_at(dirfd, name, 4096, &text, NULL), 0);
        CHECK(strcmp(text, want) == 0);
        free(text);
}

TEST(test_first_and_again) {
        struct fake_root r;
        struct stat st;
        char buf[16] = "";
        mode_t old;
        int fd;

        fake_root_new(&r);
        old = umask(077);
        /* none there yet: a plain rename */
        CHECK_EQ(replace_file_at(r.fd, "rec", "one\n", 4, false), 0);
        check_text(r.fd, "rec", "one\n");
        fd = openat(r.fd, "rec", O_RDONLY | O_CLOEXEC);
        CHECK(fd >= 0);
        /* there: swapped in; the old one goes, and a reader of it still reads it whole */
        CHECK_EQ(replace_file_at(r.fd, "rec", "second\n", 7, false), 0);
        check_text(r.fd, "rec", "second\n");
        CHECK_EQ(pread(fd, buf, sizeof(buf) - 1, 0), 4);
        CHECK(strcmp(buf, "one\n") == 0);
        CHECK(fstat(fd, &st) == 0);
        CHECK_EQ(st.st_nlink, 0);
        (void) close(fd);
        /* durable: synced, then renamed over it */
        CHECK_EQ(replace_file_at(r.fd, "rec", "third\n", 6, true), 0);
        (void) umask(old);
        check_text(r.fd, "rec", "third\n");
        CHECK(fstatat(r.fd, "rec", &st, 0) == 0);
        CHECK_EQ(st.st_mode & 07777, 0644);
        CHECK_EQ(fake_count_entries(&r, "."), 1);
        fake_root_free(&r);
}

TEST(test_leftover_and_failure) {
        struct fake_root r;
        char tmp[64];

        fake_root_new(&r);
        /* what a killed writer with this pid left is no obstacle */
        (void) snprintf(tmp, sizeof(tmp), ".rec.%d.tmp", (int) getpid());
        fake_write(&r, tmp, "stale");
        CHECK_EQ(replace_file_at(r.fd, "rec", "new\n", 4, false), 0);
        check_text(r.fd, "rec", "new\n");
        CHECK_EQ(fake_count_entries(&r, "."), 1);
        /* a directory in the record's place stays, and so does nothing else */
        CHECK(mkdirat(r.fd, "dir", 0755) == 0);
        CHECK(replace_file_at(r.fd, "dir", "x\n", 2, false) < 0);
        CHECK_EQ(fake_count_entries(&r, "."), 2);
        fake_root_free(&r);
}

/* the temp files of the name that killed writers left go, nothing else */
TEST(test_remove_temps) {
        struct fake_root r;

        fake_root_new(&r);
        fake_write(&r, ".rec.123.tmp", "x");
        fake_write(&r, ".rec.4.tmp", "x");
        fake_write(&r, ".rec..tmp", "x");
        fake_write(&r, ".rec.12x.tmp", "x");
        fake_write(&r, ".record.5.tmp", "x");
        fake_write(&r, "rec", "x");
        replace_remove_temps(r.fd, "rec");
        CHECK_EQ(fake_count_entries(&r, "."), 4);
        CHECK(faccessat(r.fd, ".rec.123.tmp", F_OK, 0) < 0 && faccessat(r.fd, ".rec.4.tmp", F_OK, 0) < 0);
        fake_root_free(&r);
}

int main(void) {
        RUN(test_first_and_again);
        RUN(test_leftover_and_failure);
        RUN(test_remove_temps);
        return 0;
}
