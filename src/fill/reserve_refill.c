/* SPDX-License-Identifier: MIT */
/* A refill's reservation file that is already there: in use by a VM (left alone), or not (its
 * pages given back and faulted anew, freshly zeroed); owner, group and mode as configured. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fill/reserve_refill.h"

int reserve_refill_open(const struct reserve_run *rr, int dirfd, bool *ret_in_use) {
        int fd = openat(dirfd, rr->plan->name, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);

        if (fd < 0)
                return -errno;
        /* A write lease is granted only while no other file of the inode is open, and a mapping
         * keeps its file open (the kernel's check_conflicting_open()): EAGAIN means a process
         * has it. A lease break signals SIGURG, ignored by default, never SIGIO, which would
         * end the daemon. Without the right to lease it (EACCES), it counts as in use. */
        if (fcntl(fd, F_SETSIG, SIGURG) < 0 || fcntl(fd, F_SETLEASE, F_WRLCK) < 0) {
                if (errno != EAGAIN && errno != EACCES && errno != EINVAL) {
                        int r = -errno;
                        (void) close(fd);
                        return r;
                }
                *ret_in_use = true;
                return fd;
        }
        *ret_in_use = false;
        return fd;
}

int reserve_refill_punch(int fd, const struct reserve_run *rr) {
        off_t size = (off_t) (rr->plan->pool.target_total * rr->plan->pool.page_size);

        /* hugetlbfs_punch_hole(): the pages go back to the pool, the size stays */
        return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, size) < 0 ? -errno : 0;
}

int reserve_hand_over(int fd, const struct reserve_run *rr) {
        /* Group first, with root as the owner again (a refill's file may be someone else's, and
         * CAP_FOWNER is gone), then the mode while the file is root's, then the owner (CAP_CHOWN
         * is kept for this): at no point can anyone but root and the intended owner and group
         * open it. */
        if (fchown(fd, 0, rr->gid) < 0 || fchmod(fd, rr->plan->mode) < 0 || fchown(fd, rr->uid, (gid_t) -1) < 0)
                return -errno;
        return 0;
}
