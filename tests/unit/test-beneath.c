/* SPDX-License-Identifier: MIT */
/* Paths below a directory fd stay below it: links on the way refused (or followed inside it),
 * ".." stopped at it, directories made with their mode; through openat2() and the walk alike. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake-root.h"
#include "util/beneath.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "test.h"

typedef int (*opener_t)(int dirfd, const char *path, int flags, mode_t mode, unsigned how);
static const opener_t openers[] = { open_beneath, open_beneath_walk };

/* r/tree is the root; r/outside and r/tree/outside hold different words, so a read says which
 * one a path reached. */
static int make_tree(struct fake_root *r) {
        char abs[512];
        int fd;

        fake_write(r, "outside/word", "out\n");
        fake_write(r, "tree/outside/word", "in\n");
        fake_write(r, "tree/a/b/word", "ab\n");
        (void) snprintf(abs, sizeof(abs), "%s/outside", r->path);
        CHECK(symlinkat(abs, r->fd, "tree/a/abs") == 0);              /* absolute, out of the tree */
        CHECK(symlinkat("../../outside", r->fd, "tree/a/rel") == 0);  /* relative, up and out */
        CHECK(symlinkat("/a/b", r->fd, "tree/a/inner") == 0);         /* absolute, of the tree */
        CHECK(symlinkat("loop", r->fd, "tree/a/loop") == 0);
        CHECK(symlinkat("b/word", r->fd, "tree/a/file") == 0);        /* the last component */
        fd = openat(r->fd, "tree", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        CHECK(fd >= 0);
        return fd;
}

static const char *word(opener_t open_fn, int rootfd, const char *path, unsigned how, int *ret_error) {
        static char buf[16];
        int fd = open_fn(rootfd, path, O_RDONLY | O_CLOEXEC, 0, how);
        ssize_t n;

        *ret_error = fd < 0 ? fd : 0;
        if (fd < 0)
                return "";
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        CHECK(n >= 0);
        buf[n] = 0;
        return buf;
}

TEST(test_links_refused) {
        struct fake_root r;
        int rootfd, err;

        fake_root_new(&r);
        rootfd = make_tree(&r);
        for (size_t i = 0; i < ELEMENTSOF(openers); i++) {
                CHECK(strcmp(word(openers[i], rootfd, "a/b/word", 0, &err), "ab\n") == 0);
                CHECK(strcmp(word(openers[i], rootfd, "/a//b/./word", 0, &err), "ab\n") == 0);
                /* a link in the middle, out of the tree or not, and at the end */
                (void) word(openers[i], rootfd, "a/abs/word", 0, &err);
                CHECK_EQ(err, -ELOOP);
                (void) word(openers[i], rootfd, "a/rel/word", 0, &err);
                CHECK_EQ(err, -ELOOP);
                (void) word(openers[i], rootfd, "a/inner/word", 0, &err);
                CHECK_EQ(err, -ELOOP);
                (void) word(openers[i], rootfd, "a/file", 0, &err);
                CHECK_EQ(err, -ELOOP);
                /* ".." stops at the root */
                CHECK(strcmp(word(openers[i], rootfd, "../outside/word", 0, &err), "in\n") == 0);
                CHECK(strcmp(word(openers[i], rootfd, "a/../../../outside/word", 0, &err), "in\n") == 0);
                CHECK(strcmp(word(openers[i], rootfd, "a/b/../b/word", 0, &err), "ab\n") == 0);
                /* nothing made through a link: O_CREAT in a directory reached through one */
                CHECK_EQ(openers[i](rootfd, "a/abs/new", O_WRONLY | O_CREAT | O_CLOEXEC, 0644, 0), -ELOOP);
                CHECK_EQ(faccessat(r.fd, "outside/new", F_OK, 0), -1);
        }
        close(rootfd);
        fake_root_free(&r);
}

TEST(test_links_followed_inside) {
        struct fake_root r;
        int rootfd, err;

        fake_root_new(&r);
        rootfd = make_tree(&r);
        for (size_t i = 0; i < ELEMENTSOF(openers); i++) {
                /* an absolute link starts again at the root: the tree's "outside", not the host's */
                (void) word(openers[i], rootfd, "a/abs/word", BENEATH_FOLLOW, &err);
                CHECK_EQ(err, -ENOENT);
                CHECK(strcmp(word(openers[i], rootfd, "a/rel/word", BENEATH_FOLLOW, &err), "in\n") == 0);
                CHECK(strcmp(word(openers[i], rootfd, "a/inner/word", BENEATH_FOLLOW, &err), "ab\n") == 0);
                CHECK(strcmp(word(openers[i], rootfd, "a/file", BENEATH_FOLLOW, &err), "ab\n") == 0);
                (void) word(openers[i], rootfd, "a/loop", BENEATH_FOLLOW, &err);
                CHECK_EQ(err, -ELOOP);
                /* O_NOFOLLOW still holds for the last component */
                CHECK_EQ(openers[i](rootfd, "a/file", O_RDONLY | O_NOFOLLOW | O_CLOEXEC, 0, BENEATH_FOLLOW), -ELOOP);
        }
        close(rootfd);
        fake_root_free(&r);
}

TEST(test_mkdir) {
        struct fake_root r;
        struct stat st;
        bool made;
        mode_t old;
        int rootfd, fd;

        fake_root_new(&r);
        rootfd = make_tree(&r);
        old = umask(077);
        fd = mkdir_beneath(rootfd, "a/b/new", 0755, 0, &made);
        CHECK(fd >= 0);
        CHECK(made);
        CHECK(fstat(fd, &st) == 0);
        CHECK_EQ(st.st_mode & 07777, 0755);
        close(fd);
        /* again: kept, not made */
        fd = mkdir_beneath(rootfd, "a/b/new", 0700, 0, &made);
        CHECK(fd >= 0);
        CHECK(!made);
        CHECK(fstat(fd, &st) == 0);
        CHECK_EQ(st.st_mode & 07777, 0755);
        close(fd);
        /* through a link on the way, or a link in its place: refused, nothing made outside */
        CHECK_EQ(mkdir_beneath(rootfd, "a/abs/new", 0755, 0, NULL), -ELOOP);
        CHECK_EQ(faccessat(r.fd, "outside/new", F_OK, 0), -1);
        CHECK(symlinkat("../outside", r.fd, "tree/run") == 0);
        CHECK_EQ(mkdir_beneath(rootfd, "run", 0755, 0, NULL), -ELOOP);
        CHECK_EQ(mkdir_beneath(rootfd, "run/hpfilld", 0755, 0, NULL), -ELOOP);
        CHECK_EQ(faccessat(r.fd, "outside/hpfilld", F_OK, 0), -1);
        CHECK_EQ(mkdir_beneath(rootfd, "a/..", 0755, 0, NULL), -EINVAL);
        (void) umask(old);
        close(rootfd);
        fake_root_free(&r);
}

TEST(test_parent) {
        struct fake_root r;
        const char *name;
        int rootfd, fd;

        fake_root_new(&r);
        rootfd = make_tree(&r);
        fd = open_parent_beneath(rootfd, "a/b/word", 0, &name);
        CHECK(fd >= 0);
        CHECK(strcmp(name, "word") == 0);
        CHECK_EQ(faccessat(fd, name, R_OK, 0), 0);
        close(fd);
        fd = open_parent_beneath(rootfd, "word", 0, &name);
        CHECK(fd >= 0);
        CHECK(strcmp(name, "word") == 0);
        close(fd);
        CHECK_EQ(open_parent_beneath(rootfd, "a/abs/word", 0, &name), -ELOOP);
        CHECK_EQ(open_parent_beneath(rootfd, "a/.", 0, &name), -EINVAL);
        close(rootfd);
        fake_root_free(&r);
}

int main(void) {
        RUN(test_links_refused);
        RUN(test_links_followed_inside);
        RUN(test_mkdir);
        RUN(test_parent);
        return 0;
}
