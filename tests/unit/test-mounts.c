/* SPDX-License-Identifier: MIT */
/* Finding the hugetlbfs mount of a page size in /proc/self/mounts text. */
#include <errno.h>

#include "kernel/mounts.h"
#include "test.h"

#define MB (UINT64_C(1) << 20)

static const char mounts[] = "sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n"
                             "none /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0\n"
                             "none /mnt/huge\\0401g hugetlbfs rw,relatime,pagesize=1024M 0 0\n"
                             "none /mnt/default hugetlbfs rw,relatime 0 0\n"
                             "garbage\n"
                             "hugetlbfs /mnt/fake ext4 rw,pagesize=2M 0 0\n";

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

int main(void) {
        RUN(test_find);
        return 0;
}
