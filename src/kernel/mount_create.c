/* SPDX-License-Identifier: MIT */
/* CreateMounts=, --create-mounts: the hugetlbfs mount a reservation needs, made where the
 * documentation says, when the page size has none. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/mount_create.h"
#include "kernel/mounts.h"
#include "util/beneath.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/number.h"

void hugetlbfs_mount_place(uint64_t page_size, uint64_t default_size, char *ret, size_t size) {
        char name[32];

        if (page_size == default_size)
                (void) snprintf(ret, size, "dev/hugepages");
        else
                (void) snprintf(ret, size, "dev/hugepages%s", page_size_name(page_size, name));
}

/* The directory @fd, made at @place (its name in /dev, @parent) for a mount that failed, removed
 * again: only while the name is still that empty directory (rmdir(2) removes no other). What
 * was done, to end the error message with. */
static const char *unmake_dir(int parent, int fd, const char *place) {
        const char *name = strrchr(place, '/') + 1;
        struct stat st, now;

        if (fstat(fd, &st) < 0 || fstatat(parent, name, &now, AT_SYMLINK_NOFOLLOW) < 0 || st.st_dev != now.st_dev ||
            st.st_ino != now.st_ino || unlinkat(parent, name, AT_REMOVEDIR) < 0)
                return "made for it, but it could not be removed again";
        return "made for it, removed again";
}

int hugetlbfs_mount_create(int rootfd, uint64_t page_size, char *ret, size_t size, struct error *e) {
        _cleanup_(closep) int fd = -1, parent = -1;
        char place[64], opts[64], target[64], name[32];
        struct stat st, pst;
        bool made = false;

        hugetlbfs_mount_place(page_size, hugetlbfs_default_page_size(rootfd), place, sizeof(place));
        if (strlen(place) + 2 > size)
                return -ENAMETOOLONG;
        /* /dev is the kernel's devtmpfs, root's alone: the directory is made there (one there is
         * kept), no link followed */
        parent = open_beneath(rootfd, "dev", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
        if (parent < 0)
                return error_set(e, parent, "cannot open /dev: %s", strerror(-parent));
        fd = mkdir_beneath(rootfd, place, 0755, 0, &made);
        if (fd < 0)
                return error_set(e, fd, "cannot make /%s: %s", place, strerror(-fd));
        if (fstat(fd, &st) < 0 || fstat(parent, &pst) < 0)
                return error_set(e, -errno, "cannot stat /%s: %m", place);
        /* a mount of any kind there already (its root has another device) is never covered */
        if (st.st_dev != pst.st_dev)
                return error_set(e, -EBUSY, "/%s is a mount point already, not of hugetlbfs for %s pages: left alone",
                                 place, page_size_name(page_size, name));
        if (st.st_uid != 0 || (st.st_mode & 0022))
                return error_set(e, -EPERM, "/%s is not root's alone (uid %u, mode %04o): left alone", place,
                                 (unsigned) st.st_uid, (unsigned) (st.st_mode & 07777));
        /* through the descriptor checked, not the name (which could be swapped since) */
        (void) snprintf(target, sizeof(target), "/proc/self/fd/%d", fd);
        (void) snprintf(opts, sizeof(opts), "pagesize=%" PRIu64 ",mode=0755,uid=0,gid=0", page_size);
        if (mount("hugetlbfs", target, "hugetlbfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, opts) < 0) {
                int r = -errno;

                /* a directory of ours would stay in /dev for nothing; one that was there stays */
                return error_set(e, r, "cannot mount hugetlbfs for %s pages at /%s: %s; /%s %s",
                                 page_size_name(page_size, name), place, strerror(-r), place,
                                 made ? unmake_dir(parent, fd, place) : "was there before, left as it was");
        }
        (void) snprintf(ret, size, "/%s", place);
        return 1;
}
