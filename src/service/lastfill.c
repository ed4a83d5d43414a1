/* SPDX-License-Identifier: MIT */
/* The record of the last fill (run/hpfilld/last-fill.json), for `hpfilld status`. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "service/lastfill.h"
#include "util/json.h"
#include "util/macro.h"

/* run/hpfilld below @rootfd, made 0755 whatever the umask where it is not there yet. */
static int open_record_dir(int rootfd) {
        bool made;
        int fd;

        if (mkdirat(rootfd, "run", 0755) < 0 && errno != EEXIST)
                return -errno;
        made = mkdirat(rootfd, LASTFILL_DIR, 0755) >= 0;
        if (!made && errno != EEXIST)
                return -errno;
        fd = openat(rootfd, LASTFILL_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (made && fchmod(fd, 0755) < 0) {
                int r = -errno;

                (void) close(fd);
                return r;
        }
        return fd;
}

/* Written whole to a temp file in the same directory, synced, then renamed over the record:
 * a reader, or a second writer (a --once run beside the daemon), never sees half of one. */
static int write_atomically(int dirfd, const char *text, size_t len) {
        _cleanup_(closep) int fd = -1;
        char tmp[64];
        ssize_t n;

        (void) snprintf(tmp, sizeof(tmp), ".%s.%ld.tmp", LASTFILL_NAME, (long) getpid());
        (void) unlinkat(dirfd, tmp, 0);
        fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0)
                return -errno;
        /* readable by everyone whatever the umask */
        if (fchmod(fd, 0644) < 0)
                goto fail;
        do
                n = write(fd, text, len);
        while (n < 0 && errno == EINTR);
        if (n < 0 || (size_t) n != len) {
                if (n >= 0)
                        errno = EIO;
                goto fail;
        }
        /* no fsync: /run goes with every boot, and what a process that dies wrote is in the page
         * cache all the same; the rename alone makes the record whole or the old one */
        if (renameat(dirfd, tmp, dirfd, LASTFILL_NAME) < 0)
                goto fail;
        return 0;
fail:
        n = -errno;
        (void) unlinkat(dirfd, tmp, 0);
        return (int) n;
}

int lastfill_write(int rootfd, int exit_status, const char *summary, const char *advice) {
        _cleanup_(closep) int dirfd = -1;
        char escaped[4096], escaped_advice[2048], text[6600];
        struct timespec ts;
        int n;

        (void) clock_gettime(CLOCK_REALTIME, &ts);
        json_escape(escaped, sizeof(escaped), summary);
        json_escape(escaped_advice, sizeof(escaped_advice), advice);
        n = snprintf(text, sizeof(text),
                     "{\"time\": %lld, \"exit_status\": %d, \"summary\": \"%s\", \"next_boot\": \"%s\"}\n",
                     (long long) ts.tv_sec, exit_status, escaped, escaped_advice);
        if (n < 0 || (size_t) n >= sizeof(text))
                return -E2BIG;
        dirfd = open_record_dir(rootfd);
        if (dirfd < 0)
                return dirfd;
        return write_atomically(dirfd, text, (size_t) n);
}

bool lastfill_valid(const char *text) {
        size_t len = strlen(text);
        long long when;
        int status, n = 0;

        if (len > 0 && text[len - 1] == '\n')
                len--;
        if (len < 2 || text[0] != '{' || text[len - 1] != '}')
                return false;
        for (size_t i = 0; i < len; i++)
                if ((unsigned char) text[i] < 0x20)
                        return false;
        return sscanf(text, "{\"time\": %lld, \"exit_status\": %d, \"summary\": \"%n", &when, &status, &n) == 2 &&
               n > 0;
}
