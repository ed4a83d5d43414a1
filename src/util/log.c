/* SPDX-License-Identifier: MIT */
/* Logging to stderr, with syslog priority prefixes when stderr is the journal. For main and the executor. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/log.h"
#include "util/sanitize.h"

/* /dev/kmsg takes records of up to LOG_LINE_MAX (1024 less the prefix the kernel adds) */
#define KMSG_RECORD_MAX 976

static int max_level = LOG_INFO;
static bool prefix_priority;
static int kmsg_fd = -1;

void log_set_max_level(int level) {
        max_level = level;
}

int log_get_max_level(void) {
        return max_level;
}

void log_open(void) {
        const char *e = getenv("JOURNAL_STREAM");
        unsigned long long dev, ino;
        struct stat st;

        /* JOURNAL_STREAM=dev:ino names the journal stream; only trust it if stderr is that stream. */
        prefix_priority = e && sscanf(e, "%llu:%llu", &dev, &ino) == 2 && fstat(STDERR_FILENO, &st) >= 0 &&
                          st.st_dev == dev && st.st_ino == ino;
}

bool log_to_kmsg(void) {
        return kmsg_fd >= 0;
}

int log_open_kmsg(void) {
        int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY);

        if (fd < 0)
                return -errno;
        if (kmsg_fd >= 0)
                (void) close(kmsg_fd);
        kmsg_fd = fd;
        return 0;
}

int log_full_errno(int level, int error, const char *fmt, ...) {
        int saved = errno;
        char raw[2048], buf[2048];
        va_list ap;

        if (error < 0)
                error = -error;
        if (level <= max_level) {
                errno = error;
                va_start(ap, fmt);
                (void) vsnprintf(raw, sizeof(raw), fmt, ap);
                va_end(ap);
                /* one record a message, whatever a file name or value in it holds */
                escape_controls_only(buf, sizeof(buf), raw);
                if (kmsg_fd >= 0) {
                        /* One write() per record, the kernel log keeps the priority. Not dprintf():
                         * glibc's lseek()s first, which /dev/kmsg refuses, and then writes nothing. */
                        char rec[KMSG_RECORD_MAX];
                        int n = snprintf(rec, sizeof(rec), "<%d>hpfilld: %s\n", level, buf);

                        /* the kernel refuses a longer record whole: cut it, keeping the newline */
                        if (n >= (int) sizeof(rec)) {
                                n = (int) sizeof(rec) - 1;
                                rec[n - 1] = '\n';
                        }
                        if (n > 0)
                                (void) !write(kmsg_fd, rec, (size_t) n);
                }
                else if (prefix_priority)
                        fprintf(stderr, "<%d>%s\n", level, buf);
                else
                        fprintf(stderr, "hpfilld: %s\n", buf);
        }
        errno = saved;
        return error ? -error : -EIO;
}

void log_lines(int level, const char *msg) {
        for (const char *p = msg; *p;) {
                size_t n = strcspn(p, "\n");

                log_full(level, "%.*s", (int) n, p);
                p += n + (p[n] == '\n');
        }
}
