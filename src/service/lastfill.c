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
#include "util/macro.h"

void json_escape(char *buf, size_t size, const char *s) {
        size_t n = 0;

        for (; *s && n + 7 < size; s++) {
                unsigned char c = (unsigned char) *s;

                if (c == '"' || c == '\\') {
                        buf[n++] = '\\';
                        buf[n++] = (char) c;
                } else if (c < 0x20)
                        n += (size_t) snprintf(buf + n, size - n, "\\u%04x", c);
                else
                        buf[n++] = (char) c;
        }
        buf[n] = 0;
}

int lastfill_write(int rootfd, int exit_status, const char *summary, const char *advice) {
        _cleanup_(closep) int fd = -1;
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
        if (mkdirat(rootfd, "run", 0755) < 0 && errno != EEXIST)
                return -errno;
        if (mkdirat(rootfd, LASTFILL_DIR, 0755) < 0 && errno != EEXIST)
                return -errno;
        /* Overwritten in place, then cut to length: not a temp file renamed over it (a journal
         * commit where /run is not tmpfs, 0.5 ms a fill on the build machine), nor O_TRUNC (ext4
         * then flushes the file on close, auto_da_alloc: 0.7 ms). A reader that catches the file
         * being rewritten sees a broken record, which `hpfilld status` shows as such. */
        fd = openat(rootfd, LASTFILL_FILE, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0)
                return -errno;
        if (write(fd, text, (size_t) n) != n)
                return errno ? -errno : -EIO;
        if (ftruncate(fd, n) < 0)
                return -errno;
        /* readable by everyone whatever the umask */
        return fchmod(fd, 0644) < 0 ? -errno : 0;
}
