/* SPDX-License-Identifier: MIT */
/* One fill per host: an flock() on /run/hpfilld/lock, held from before the first write to a
 * pool until the fill has put everything back. */
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <time.h>

#include "fill/rundir.h"
#include "util/shown.h"
#include "kernel/proc.h"
#include "service/hostlock.h"
#include "util/clock.h"
#include "util/log.h"

int hostlock_parse(const char *s, struct hostlock_holder *ret) {
        struct hostlock_holder h = {};
        int pid, n = 0;

        if (sscanf(s, "pid=%d start=%" SCNu64 " since=%" SCNd64 " what=%n", &pid, &h.start_time, &h.since, &n) != 3 ||
            n == 0 || pid <= 0)
                return -EBADMSG;
        h.pid = pid;
        (void) snprintf(h.what, sizeof(h.what), "%.*s", (int) strcspn(s + n, "\n"), s + n);
        *ret = h;
        return 0;
}

static void describe_holder(int rootfd, int fd, char *buf, size_t size) {
        struct hostlock_holder h;
        char line[256] = "", when[32] = "?";
        struct tm tm;
        time_t t;
        ssize_t n;

        n = pread(fd, line, sizeof(line) - 1, 0);
        /* the line of a holder that has gone, left until the next one writes its own */
        if (n <= 0 || hostlock_parse(line, &h) < 0 || (h.start_time && !proc_is(rootfd, h.pid, h.start_time))) {
                (void) snprintf(buf, size, "another process (it has not said which yet)");
                return;
        }
        t = (time_t) h.since;
        if (localtime_r(&t, &tm))
                (void) strftime(when, sizeof(when), "%H:%M:%S", &tm);
        (void) snprintf(buf, size, "pid %d (%s, since %s)", (int) h.pid, h.what, when);
}

static int write_holder(int rootfd, int fd, const char *what) {
        char line[256];
        uint64_t start = 0;
        int n;

        (void) proc_start_time(rootfd, getpid(), &start);
        n = snprintf(line, sizeof(line), "pid=%d start=%" PRIu64 " since=%lld what=%s\n", (int) getpid(), start,
                     (long long) time(NULL), what);
        if (n < 0 || (size_t) n >= sizeof(line))
                return -E2BIG;
        /* written over, then cut to its length: a truncation to 0 first costs a journal commit
         * on a /run that is not tmpfs */
        if (pwrite(fd, line, (size_t) n, 0) != n || ftruncate(fd, n) < 0)
                return -errno;
        return 0;
}

/* Waits for the lock in steps of 50 ms, taking stop signals between them: flock() itself
 * has no timeout, and a wait in it would not see a signal that only a signalfd reads. */
static int wait_for(int fd, unsigned timeout_s, struct stop *stop) {
        _cleanup_(closep) int sig_fd = signalfd(-1, &stop->signals, SFD_CLOEXEC | SFD_NONBLOCK);
        uint64_t deadline = now_ns() + (uint64_t) timeout_s * 1000000000u;

        for (;;) {
                struct pollfd p = { .fd = sig_fd, .events = POLLIN };

                if (flock(fd, LOCK_EX | LOCK_NB) == 0)
                        return 0;
                if (errno != EWOULDBLOCK)
                        return -errno;
                if (now_ns() >= deadline)
                        return -ETIMEDOUT;
                if (sig_fd >= 0 && poll(&p, 1, 50) > 0) {
                        stop_take_signal(stop, sig_fd, false);
                        return -ECANCELED;
                }
                if (sig_fd < 0)
                        (void) poll(NULL, 0, 50);
        }
}

int hostlock_take(int rootfd, const char *what, unsigned timeout_s, struct stop *stop, bool *ret_waited) {
        _cleanup_(closep) int dirfd = -1, fd = -1;
        char holder[256];
        int r;

        dirfd = rundir_open(rootfd);
        if (dirfd < 0)
                return log_error_errno(dirfd, "Cannot open %s/" RUNDIR ": %m", shown_root());
        fd = openat(dirfd, HOSTLOCK_FILE, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0644);
        if (fd < 0)
                return log_error_errno(errno, "Cannot open %s/" RUNDIR "/" HOSTLOCK_FILE ": %m", shown_root());
        *ret_waited = false;
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
                *ret_waited = true;
                if (errno != EWOULDBLOCK)
                        return log_error_errno(errno, "Cannot lock %s/" RUNDIR "/" HOSTLOCK_FILE ": %m", shown_root());
                describe_holder(rootfd, fd, holder, sizeof(holder));
                log_notice("Another fill is running: %s; waiting up to %u s for it to end (--lock-timeout)", holder,
                           timeout_s);
                r = wait_for(fd, timeout_s, stop);
                if (r == -ETIMEDOUT) {
                        describe_holder(rootfd, fd, holder, sizeof(holder));
                        return log_error_errno(r, "Gave up after %u s: the fill of %s still runs", timeout_s, holder);
                }
                if (r == -ECANCELED)
                        return log_error_errno(r, "Interrupted by signal %d while waiting for the other fill",
                                               atomic_load(&stop->signo));
                if (r < 0)
                        return log_error_errno(r, "Cannot lock %s/" RUNDIR "/" HOSTLOCK_FILE ": %m", shown_root());
                log_info("The other fill has ended, going on");
        }
        r = write_holder(rootfd, fd, what);
        if (r < 0)
                log_warning_errno(r, "Cannot say who holds %s/" RUNDIR "/" HOSTLOCK_FILE ": %m, ignoring", shown_root());
        return TAKE_FD(fd);
}
