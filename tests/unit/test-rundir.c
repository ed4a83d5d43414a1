/* SPDX-License-Identifier: MIT */
/* run/hpfilld held for a run (rundir_hold()): never made by the hold, each open a directory of
 * its own (two listings each from the start), only for its root, and only while run/hpfilld
 * still names it and it is still ours. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake-root.h"
#include "fill/rundir.h"
#include "test.h"

static unsigned entries(int fd) {
        DIR *d = fdopendir(fd);
        unsigned n = 0;

        CHECK(d != NULL);
        while (readdir(d))
                n++;
        closedir(d);
        return n;
}

static ino_t ino_of(int fd) {
        struct stat st;

        CHECK(fstat(fd, &st) == 0);
        return st.st_ino;
}

TEST(test_hold) {
        struct fake_root r, other;
        struct stat st;
        int a, b;

        fake_root_new(&r);
        fake_root_new(&other);
        /* not there: not made by the hold (a run refused before its lock leaves nothing) */
        CHECK_EQ(rundir_hold(r.fd), -ENOENT);
        CHECK(fstatat(r.fd, "run", &st, 0) < 0);

        fake_write(&r, "run/hpfilld/a", "");
        fake_write(&r, "run/hpfilld/b", "");
        CHECK(fchmodat(r.fd, "run/hpfilld", 0755, 0) == 0);
        CHECK_EQ(rundir_hold(r.fd), 0);
        /* two opens, two listings of all four entries: no offset shared */
        a = rundir_open(r.fd);
        b = rundir_open_existing(r.fd);
        CHECK(a >= 0 && b >= 0);
        CHECK_EQ(ino_of(a), ino_of(b));
        CHECK_EQ(entries(a), 4);
        CHECK_EQ(entries(b), 4);

        /* another root's is its own: made there as without a hold */
        a = rundir_open(other.fd);
        CHECK(a >= 0);
        CHECK(fstatat(other.fd, "run/hpfilld", &st, AT_SYMLINK_NOFOLLOW) == 0);
        CHECK_EQ(ino_of(a), st.st_ino);
        close(a);

        /* moved aside and made anew: the new one, as a walk finds it */
        CHECK(renameat(r.fd, "run/hpfilld", r.fd, "run/old") == 0);
        CHECK(mkdirat(r.fd, "run/hpfilld", 0755) == 0);
        CHECK(fchmodat(r.fd, "run/hpfilld", 0755, 0) == 0);
        a = rundir_open(r.fd);
        CHECK(a >= 0);
        CHECK(fstatat(r.fd, "run/hpfilld", &st, AT_SYMLINK_NOFOLLOW) == 0);
        CHECK_EQ(ino_of(a), st.st_ino);
        close(a);

        /* held again, then made writable by others: refused as a walk refuses it */
        CHECK_EQ(rundir_hold(r.fd), 0);
        CHECK(fchmodat(r.fd, "run/hpfilld", 0777, 0) == 0);
        CHECK_EQ(rundir_open(r.fd), -EPERM);
        CHECK(fchmodat(r.fd, "run/hpfilld", 0755, 0) == 0);

        /* released: every open walks */
        rundir_release();
        a = rundir_open(r.fd);
        CHECK(a >= 0);
        close(a);
        fake_root_free(&other);
        fake_root_free(&r);
}

int main(void) {
        RUN(test_hold);
        return 0;
}
