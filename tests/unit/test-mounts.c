/* SPDX-License-Identifier: MIT */
/* Finding the hugetlbfs mount of a page size in /proc/self/mounts text. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fake-root.h"
#include "kernel/mount_create.h"
#include "kernel/mounts.h"
#include "test.h"

#define MB (UINT64_C(1) << 20)

static const char mounts[] = "sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n"
                             "none /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0\n"
                             "none /mnt/huge\\0401g hugetlbfs rw,relatime,pagesize=1024M 0 0\n"
                             "none /mnt/default hugetlbfs rw,relatime 0 0\n"
                             "garbage\n"
                             "hugetlbfs /mnt/fake ext4 rw,pagesize=2M 0 0\n";

/* CreateMounts='s places: systemd's /dev/hugepages for the default size, /dev/hugepagesSIZE else */
TEST(test_mount_place) {
        char place[64];

        hugetlbfs_mount_place(2 * MB, 2 * MB, place, sizeof(place));
        CHECK_STR_CONTAINS(place, "dev/hugepages");
        CHECK_EQ(strlen(place), strlen("dev/hugepages"));
        hugetlbfs_mount_place(1024 * MB, 2 * MB, place, sizeof(place));
        CHECK(strcmp(place, "dev/hugepages1G") == 0);
        hugetlbfs_mount_place(2 * MB, 1024 * MB, place, sizeof(place));
        CHECK(strcmp(place, "dev/hugepages2M") == 0);
        hugetlbfs_mount_place(64 << 10, 0, place, sizeof(place));
        CHECK(strcmp(place, "dev/hugepages64K") == 0);
}

TEST(test_find) {
        char path[256];

        CHECK_EQ(mounts_find_hugetlbfs(mounts, 2 * MB, 2 * MB, path, sizeof(path)), 0);
        CHECK(strcmp(path, "/dev/hugepages") == 0);
        /* octal escapes are undone; 1024M is 1G */
        CHECK_EQ(mounts_find_hugetlbfs(mounts, 1024 * MB, 2 * MB, path, sizeof(path)), 0);
        CHECK(strcmp(path, "/mnt/huge 1g") == 0);
        /* a mount without pagesize= has the default size */
        CHECK_EQ(mounts_find_hugetlbfs(mounts, 16 * MB, 16 * MB, path, sizeof(path)), 0);
        CHECK(strcmp(path, "/mnt/default") == 0);
        CHECK_EQ(mounts_find_hugetlbfs(mounts, 64 * MB, 2 * MB, path, sizeof(path)), -ENOENT);
        CHECK_EQ(mounts_find_hugetlbfs("", 2 * MB, 2 * MB, path, sizeof(path)), -ENOENT);
        CHECK_EQ(mounts_find_hugetlbfs(mounts, 2 * MB, 2 * MB, path, 5), -ENAMETOOLONG);
}

static int count_one(const char *dir, uint64_t page_size, void *userdata) {
        (void) dir;
        (void) page_size;
        ++*(int *) userdata;
        return 0;
}

static int hugetlbfs_count(const char *table) {
        int n = 0;

        CHECK_EQ(mounts_foreach_hugetlbfs(table, 2 * MB, count_one, &n), 0);
        return n;
}

/* A user's FUSE mount whose path is long and ends in "hugetlbfs": one field, however long;
 * with a 4095-character field width its tail was read as the type. */
TEST(test_forged_long_path) {
        const char *dir = "/home/user/";
        char *table = malloc(8192), path[256];
        size_t n;

        CHECK(table);
        /* the path's first 4095 characters, then "hugetlbfs" in the same field */
        n = (size_t) sprintf(table, "user@host:/ %s", dir);
        memset(table + n, 'a', 4095 - strlen(dir));
        n += 4095 - strlen(dir);
        (void) sprintf(table + n, "hugetlbfs fuse.sshfs rw,nosuid,nodev 0 0\n");
        CHECK_EQ(hugetlbfs_count(table), 0);
        CHECK_EQ(mounts_find_hugetlbfs(table, 2 * MB, 2 * MB, path, sizeof(path)), -ENOENT);
        free(table);
        /* a path of any length is read whole */
        table = malloc(70000 + 128);
        CHECK(table);
        memcpy(table, "none /", 6);
        memset(table + 6, 'b', 70000);
        strcpy(table + 6 + 70000, " hugetlbfs rw,pagesize=2M 0 0\n");
        CHECK_EQ(hugetlbfs_count(table), 1);
        CHECK_EQ(mounts_find_hugetlbfs(table, 2 * MB, 2 * MB, path, sizeof(path)), -ENAMETOOLONG);
        free(table);
}

/* Lines not as show_vfsmnt() writes them are no mounts: counted as none. */
TEST(test_odd_lines) {
        char path[256];

        /* \012 would be a newline in the path: in STATUS=, a line of its own (READY=1) */
        CHECK_EQ(hugetlbfs_count("none /mnt/x\\012READY=1 hugetlbfs rw 0 0\n"), 0);
        CHECK_EQ(hugetlbfs_count("none /mnt/x\\011y hugetlbfs rw 0 0\n"), 0);
        CHECK_EQ(hugetlbfs_count("none /mnt/x\\000 hugetlbfs rw 0 0\n"), 0);
        CHECK_EQ(hugetlbfs_count("none /mnt/x\\9 hugetlbfs rw 0 0\n"), 0);
        CHECK_EQ(hugetlbfs_count("none /mnt/x\\ hugetlbfs rw 0 0\n"), 0);
        CHECK_EQ(hugetlbfs_count("none /mnt/x\thugetlbfs rw 0 0\n"), 0);
        CHECK_EQ(hugetlbfs_count("none  /mnt/x hugetlbfs rw 0 0\n"), 0);
        CHECK_EQ(hugetlbfs_count("none /mnt/x hugetlbfs rw 0 0 \n"), 0);
        CHECK_EQ(hugetlbfs_count("none /mnt/x hugetlbfs rw 0\n"), 0);
        CHECK_EQ(hugetlbfs_count("none /mnt/x hugetlbfs rw 0 0 0\n"), 0);
        CHECK_EQ(hugetlbfs_count("none mnt/x hugetlbfs rw 0 0\n"), 0);
        CHECK_EQ(hugetlbfs_count("none /mnt/x hugetlbfs rw,pagesize=3X 0 0\n"), 0);
        CHECK_EQ(hugetlbfs_count("none /mnt/x hugetlbfs rw\x7f 0 0\n"), 0);
        /* the escapes the kernel writes: space, backslash */
        CHECK_EQ(mounts_find_hugetlbfs("none /mnt/a\\040b\\134c hugetlbfs rw 0 0", 2 * MB, 2 * MB, path,
                                       sizeof(path)), 0);
        CHECK(strcmp(path, "/mnt/a b\\c") == 0);
        /* an odd line among good ones: the good ones still count */
        CHECK_EQ(hugetlbfs_count("x\n\nnone /a hugetlbfs rw 0 0\nnone /b\\012 hugetlbfs rw 0 0\nnone /c hugetlbfs rw 0 0"), 2);
}

/* A mount table of 2 MiB (a Kubernetes node's thousands of mounts), read below a fake root. */
TEST(test_big_table) {
        struct fake_root r;
        char *table = malloc(3 << 20), path[256];
        size_t n = 0;

        CHECK(table);
        while (n < (2u << 20))
                n += (size_t) sprintf(table + n, "tmpfs /var/lib/kubelet/pods/%08zx/volumes tmpfs rw,relatime 0 0\n", n);
        (void) sprintf(table + n, "none /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0\n");
        fake_root_new(&r);
        fake_write(&r, "proc/self/mounts", table);
        fake_write(&r, "proc/meminfo", "Hugepagesize:       2048 kB\n");
        CHECK_EQ(hugetlbfs_mount_for(r.fd, false, 2 * MB, path, sizeof(path)), 0);
        CHECK(strcmp(path, "/dev/hugepages") == 0);
        fake_root_free(&r);
        free(table);
}

int main(void) {
        RUN(test_mount_place);
        RUN(test_find);
        RUN(test_forged_long_path);
        RUN(test_odd_lines);
        RUN(test_big_table);
        return 0;
}
