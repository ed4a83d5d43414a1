/* SPDX-License-Identifier: MIT */
/* MOUNT/hpfilld checked through descriptors (on a temp dir: the cases that need no hugetlbfs). */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake-root.h"
#include "fill/reserve_dir.h"
#include "test.h"

static int open_dir(struct fake_root *r, bool create, struct error *e) {
        int mfd = openat(r->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd = -1, ret;

        CHECK(mfd >= 0);
        ret = reserve_dir_open(mfd, "MNT", create, &fd, e);
        if (fd >= 0)
                (void) close(fd);
        (void) close(mfd);
        return ret;
}

TEST(test_not_hugetlbfs) {
        struct fake_root r, outside;
        struct error e = {};
        int fd = -1;

        fake_root_new(&r);
        fake_root_new(&outside);
        CHECK(mkdirat(r.fd, "mnt", 0755) == 0);
        /* what a forged mount table would point at: refused by fstatfs() */
        CHECK_EQ(reserve_mount_open(r.fd, "/mnt", 0, &fd, &e), -EXDEV);
        CHECK_STR_CONTAINS(e.msg, "/mnt is not a hugetlbfs mount");
        CHECK_EQ(fd, -1);
        /* a mount point of the host's (one that exists there) is looked for in the tree */
        CHECK_EQ(reserve_mount_open(r.fd, outside.path, 0, &fd, &e), -ENOENT);
        CHECK_STR_CONTAINS(e.msg, outside.path);
        CHECK_EQ(fd, -1);
        /* a symbolic link at the end or on the way, out of the tree or not */
        CHECK(symlinkat("mnt", r.fd, "link") == 0);
        CHECK_EQ(reserve_mount_open(r.fd, "/link", 0, &fd, &e), -ELOOP);
        CHECK_STR_CONTAINS(e.msg, "/link: a symbolic link on its way or in its place: refused");
        CHECK(symlinkat(outside.path, r.fd, "out") == 0);
        CHECK(mkdirat(outside.fd, "mnt", 0755) == 0);
        CHECK_EQ(reserve_mount_open(r.fd, "/out/mnt", 0, &fd, &e), -ELOOP);
        CHECK_STR_CONTAINS(e.msg, "/out/mnt: a symbolic link on its way or in its place: refused");
        CHECK_EQ(fd, -1);
        fake_root_free(&outside);
        fake_root_free(&r);
}

TEST(test_symlink_and_file) {
        struct fake_root r;
        struct error e = {};

        fake_root_new(&r);
        CHECK_EQ(open_dir(&r, false, &e), -ENOENT);
        CHECK(mkdirat(r.fd, "target", 0755) == 0);
        CHECK(symlinkat("target", r.fd, "hpfilld") == 0);
        CHECK_EQ(open_dir(&r, false, &e), -ELOOP);
        CHECK_STR_CONTAINS(e.msg, "MNT/hpfilld is a symbolic link: refused");
        if (geteuid() == 0) {
                /* to make one: the link moved aside, where it points untouched */
                CHECK_EQ(open_dir(&r, true, &e), 1);
                CHECK_STR_CONTAINS(e.msg, "MNT/hpfilld was a symbolic link of user 'root' (uid 0)");
                CHECK_STR_CONTAINS(e.msg, ": moved aside to MNT/hpfilld.moved.0.");
                CHECK_EQ(fake_count_entries(&r, "target"), 0);
                CHECK_EQ(open_dir(&r, false, &e), 0);
                CHECK(unlinkat(r.fd, "hpfilld", AT_REMOVEDIR) == 0);
        } else
                CHECK(unlinkat(r.fd, "hpfilld", 0) == 0);
        fake_write(&r, "hpfilld", "");
        CHECK_EQ(open_dir(&r, false, &e), -ENOTDIR);
        CHECK_STR_CONTAINS(e.msg, "MNT/hpfilld is not a directory: refused");
        fake_root_free(&r);
}

TEST(test_owner_and_mode) {
        struct fake_root r;
        struct error e = {};
        struct stat st;

        fake_root_new(&r);
        if (geteuid() != 0) {
                /* not root: every directory is someone else's */
                CHECK_EQ(open_dir(&r, true, &e), -EPERM);
                CHECK_STR_CONTAINS(e.msg, "refused (it must be root's");
                fake_root_free(&r);
                return;
        }
        /* made 0755 whatever the umask */
        (void) umask(077);
        CHECK_EQ(open_dir(&r, true, &e), 0);
        (void) umask(022);
        CHECK(fstatat(r.fd, "hpfilld", &st, 0) == 0);
        CHECK_EQ(st.st_mode & 07777, 0755);
        CHECK(fchmodat(r.fd, "hpfilld", 0775, 0) == 0);
        CHECK_EQ(open_dir(&r, false, &e), -EPERM);
        CHECK_STR_CONTAINS(e.msg, "MNT/hpfilld belongs to user 'root' (uid 0), mode 0775: refused");
        CHECK(fchmodat(r.fd, "hpfilld", 0757, 0) == 0);
        CHECK_EQ(open_dir(&r, false, &e), -EPERM);
        CHECK(fchmodat(r.fd, "hpfilld", 0755, 0) == 0);
        CHECK(fchownat(r.fd, "hpfilld", 65534, 65534, 0) == 0);
        CHECK_EQ(open_dir(&r, false, &e), -EPERM);
        CHECK_STR_CONTAINS(e.msg, "uid 65534), mode 0755: refused");
        /* to make one: the squatter's moved aside, as it was, and a new one of root's made */
        CHECK_EQ(open_dir(&r, true, &e), 1);
        CHECK_STR_CONTAINS(e.msg, "MNT/hpfilld was a directory of ");
        CHECK_STR_CONTAINS(e.msg, "(uid 65534), mode 0755: moved aside to MNT/hpfilld.moved.65534.");
        CHECK_EQ(open_dir(&r, false, &e), 0);
        CHECK_EQ(fake_count_entries(&r, "."), 2);
        fake_root_free(&r);
}

int main(void) {
        RUN(test_not_hugetlbfs);
        RUN(test_symlink_and_file);
        RUN(test_owner_and_mode);
        return 0;
}
