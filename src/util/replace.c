/* SPDX-License-Identifier: MIT */
/* Replacing a small file whole, through a temp file swapped in. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fileio.h"
#include "util/macro.h"
#include "util/replace.h"

static int write_all(int fd, const char *text, size_t len) {
        while (len > 0) {
                ssize_t k = write(fd, text, len);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                text += k;
                len -= (size_t) k;
        }
        return 0;
}

/* Puts the temp file in @name's place. Where @swap allows and a regular file is there: swaps
 * the two, then removes the old one, now under the temp name. Not a rename over the old file:
 * ext4 (auto_da_alloc, its default) starts writing a file renamed over another out before the
 * rename returns, 0.2-0.3 ms per record on a host whose /run is ext4 (`perf trace -s hpfilld
 * --once ...`), a tenth of a 4 GiB fill; the swap and the unlink cost a few microseconds.
 * Otherwise a plain rename: where there is no old file yet (or something else: a directory
 * stays where it is and the rename fails, as it would have), and where the swap fails for any
 * reason (a file system without it, a seccomp filter that knows only renameat()), the rename
 * then says what is really wrong, if anything. */
static int put_in_place(int dirfd, const char *tmp, const char *name, bool swap) {
        struct stat st;

        if (swap && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) >= 0 && S_ISREG(st.st_mode) &&
            renameat2(dirfd, tmp, dirfd, name, RENAME_EXCHANGE) >= 0) {
                (void) unlinkat(dirfd, tmp, 0);
                return 0;
        }
        return renameat(dirfd, tmp, dirfd, name) < 0 ? -errno : 0;
}

int replace_file_at(int dirfd, const char *name, const char *text, size_t len, bool durable) {
        _cleanup_(closep) int fd = -1;
        char tmp[NAME_MAX + 1];
        int r;

        if ((size_t) snprintf(tmp, sizeof(tmp), ".%.200s.%d.tmp", name, (int) getpid()) >= sizeof(tmp))
                return -ENAMETOOLONG;
        fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno == EEXIST) {
                /* what a killed writer of this pid left; where it cannot go (a directory), that it
                 * is there is the error */
                if (unlinkat(dirfd, tmp, 0) < 0)
                        return -EEXIST;
                fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        }
        if (fd < 0)
                return -errno;
        r = write_all(fd, text, len);
        /* readable by everyone whatever the umask */
        if (r == 0 && (fchmod(fd, 0644) < 0 || (durable && fsync(fd) < 0)))
                r = -errno;
        /* a durable file is renamed, never swapped: it is on disk already, which is all ext4
         * would wait for; and one killed between a swap and the unlink would leave the old text
         * under the temp name, in a directory no boot empties */
        if (r == 0)
                r = put_in_place(dirfd, tmp, name, !durable);
        if (r < 0) {
                (void) unlinkat(dirfd, tmp, 0);
                return r;
        }
        /* and the rename itself on disk: the name, not only the text */
        return durable && fsync(dirfd) < 0 ? -errno : 0;
}

void replace_remove_temps(int dirfd, const char *name) {
        _cleanup_(closedirp) DIR *d = opendir_at(dirfd);
        size_t k = strlen(name);
        struct dirent *de;

        /* ".NAME.PID.tmp", as replace_file_at() names them */
        while (d && (de = readdir(d))) {
                const char *pid = de->d_name + k + 2;
                size_t digits;

                if (de->d_name[0] != '.' || strncmp(de->d_name + 1, name, k) != 0 || de->d_name[k + 1] != '.')
                        continue;
                digits = strspn(pid, "0123456789");
                if (digits > 0 && strcmp(pid + digits, ".tmp") == 0)
                        (void) unlinkat(dirfd, de->d_name, 0);
        }
}
