/* SPDX-License-Identifier: MIT */
/* A reservation's file that is there already, whichever fill made it: in use by a VM or any
 * process (left as it is), or not (taken back, its pages given back and faulted anew, freshly
 * zeroed); owner, group and mode as configured. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fill/reserve_refill.h"
#include "util/macro.h"

/* Puts owner, group and mode back as they were, on a descriptor (or the name) of the file: the
 * first failure as -errno, for the caller to ignore (best effort, the file is kept either way;
 * glibc marks these calls warn_unused_result, which a (void) does not silence). */
static int give_back(int fd, int dirfd, const char *name, const struct stat *st) {
        int r = 0;

        if (fd >= 0) {
                if (fchown(fd, st->st_uid, st->st_gid) < 0)
                        r = -errno;
                if (fchmod(fd, st->st_mode & 07777) < 0 && r == 0)
                        r = -errno;
                return r;
        }
        if (fchownat(dirfd, name, st->st_uid, st->st_gid, AT_SYMLINK_NOFOLLOW) < 0)
                r = -errno;
        if (fchmodat(dirfd, name, st->st_mode & 07777, 0) < 0 && r == 0)
                r = -errno;
        return r;
}

enum reserve_use reserve_refill_take(const struct reserve_run *rr, int dirfd, int *ret_fd) {
        _cleanup_(closep) int ro = -1, rw = -1;
        const char *name = rr->plan->name;
        struct stat was, now;
        enum reserve_use u;

        *ret_fd = -1;
        /* Told on a descriptor for reading: open for writing, another owner's file would need
         * CAP_DAC_OVERRIDE, and its lack would read as "nobody has it". */
        u = reserve_use_open(dirfd, name, O_RDONLY, &ro, NULL);
        if (u != RESERVE_USE_FREE) {
                *ret_fd = TAKE_FD(ro);
                return u;
        }
        /* Nobody has it, and while the lease is held nobody opens it unseen. Made root's and
         * 0600 again, as a new file is, nobody but root can open it once the lease is given back,
         * and root opens it for writing as its owner, with no DAC capability. Without CAP_CHOWN
         * nothing changed: it stays as it is. */
        if (fstat(ro, &was) < 0 || fchown(ro, 0, 0) < 0)
                return *ret_fd = TAKE_FD(ro), RESERVE_USE_UNKNOWN;
        if (fchmod(ro, 0600) < 0) {
                (void) give_back(ro, dirfd, name, &was);
                return *ret_fd = TAKE_FD(ro), RESERVE_USE_UNKNOWN;
        }
        (void) close(TAKE_FD(ro)); /* the lease with it: a descriptor of ours open would refuse the next */
        /* Asked again on the descriptor that does the work: a process with CAP_DAC_OVERRIDE may
         * have opened it since, and the name must still be that file. */
        u = reserve_use_open(dirfd, name, O_RDWR, &rw, NULL);
        if (u == RESERVE_USE_FREE && fstat(rw, &now) >= 0 && now.st_dev == was.st_dev && now.st_ino == was.st_ino) {
                *ret_fd = TAKE_FD(rw);
                return RESERVE_USE_FREE;
        }
        (void) give_back(rw, dirfd, name, &was);
        *ret_fd = TAKE_FD(rw);
        return u == RESERVE_USE_FREE ? RESERVE_USE_UNKNOWN : u;
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
