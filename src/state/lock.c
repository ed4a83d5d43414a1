/* SPDX-License-Identifier: MIT */
/* One command that changes the pools at a time: an flock() on /run/hpfilld/host.lock, held from
 * before the state is read until it is saved and the command has put everything back. */
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <time.h>

#include "state/rundir.h"
#include "util/shown.h"
#include "kernel/proc.h"
#include "state/lock.h"
#include "util/clock.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/sanitize.h"

/* The holder line of the lock file */
static int holder_parse(const char *s, struct hostlock_holder *ret) {
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

int hostlock_holder_pid(int rootfd, int fd, pid_t *ret) {
        _cleanup_(freep) char *text = NULL;
        struct stat st;
        int r;

        if (fstat(fd, &st) < 0)
                return -errno;
        /* "1: FLOCK  ADVISORY  WRITE 1234 00:1a:5678 0 EOF"; a waiter's line has "->" first */
        r = read_full_file_at(rootfd, "proc/locks", FILEIO_LINE_MAX, &text, NULL);
        if (r < 0)
                return r;
        for (char *line = text, *next; line && *line; line = next) {
                unsigned maj, min;
                unsigned long long ino;
                char type[16];
                int pid;

                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                if (sscanf(line, "%*d: %15s %*s %*s %d %x:%x:%llu", type, &pid, &maj, &min, &ino) == 5 &&
                    strcmp(type, "FLOCK") == 0 && maj == major(st.st_dev) && min == minor(st.st_dev) &&
                    ino == (unsigned long long) st.st_ino && pid > 0) {
                        *ret = pid;
                        return 0;
                }
        }
        return -ENOENT;
}

void hostlock_describe_holder(int rootfd, int fd, char *buf, size_t size) {
        struct hostlock_holder h;
        char line[256] = "", when[32] = "?", comm[64] = "", shown[4 * sizeof(h.what)];
        pid_t pid = 0;
        struct tm tm;
        bool valid;
        time_t t;
        ssize_t n;
        int r;

        /* who holds it, as the kernel says: the line in the file is only what its last writer
         * said of itself, and a process that is no fill (anyone who could open the file) says
         * nothing */
        r = hostlock_holder_pid(rootfd, fd, &pid);
        n = pread(fd, line, sizeof(line) - 1, 0);
        valid = n > 0 && holder_parse(line, &h) >= 0 && (!h.start_time || proc_is(rootfd, h.pid, h.start_time));
        if (r < 0 && valid)
                pid = h.pid; /* no /proc/locks (a tree under --root): the line's word */
        if (r < 0 && !valid) {
                (void) snprintf(buf, size, "another process (it has not said which yet)");
                return;
        }
        if (!valid || h.pid != pid) {
                char path[64];

                (void) snprintf(path, sizeof(path), "proc/%d/comm", (int) pid);
                if (read_line_at(rootfd, path, comm, sizeof(comm)) < 0)
                        (void) snprintf(comm, sizeof(comm), "?");
                escape_controls(shown, sizeof(shown), comm);
                /* a user who may not read the file (mode 0600) cannot tell a fill from another */
                (void) snprintf(buf, size, "pid %d (%s, %s)", (int) pid, shown,
                                n < 0 ? "what it does only root may read" : "not a fill that said what it does");
                return;
        }
        t = (time_t) h.since;
        if (localtime_r(&t, &tm))
                (void) strftime(when, sizeof(when), "%H:%M:%S", &tm);
        escape_controls(shown, sizeof(shown), h.what);
        (void) snprintf(buf, size, "pid %d (%s, since %s)", (int) h.pid, shown, when);
}

static int write_holder(int rootfd, int fd, off_t size, const char *what) {
        char line[256];
        uint64_t start = 0;
        int n;

        (void) proc_start_time(rootfd, getpid(), &start);
        n = snprintf(line, sizeof(line), "pid=%d start=%" PRIu64 " since=%lld what=%s\n", (int) getpid(), start,
                     (long long) time(NULL), what);
        if (n < 0 || (size_t) n >= sizeof(line))
                return -E2BIG;
        /* written over, then cut to its length where the last holder's was longer: a truncation
         * to 0 first costs a journal commit on a /run that is not tmpfs, and any truncation an
         * inode update there */
        if (pwrite(fd, line, (size_t) n, 0) != n || (size > n && ftruncate(fd, n) < 0))
                return -errno;
        return 0;
}

/* Waits for the lock in steps of HOSTLOCK_STEP_MS, taking stop signals between them: flock()
 * itself has no timeout, and a wait in it would not see a signal that only a signalfd reads. */
static int wait_for(int fd, unsigned timeout_s, struct stop *stop, const struct hostlock_wait *wait) {
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
                if (wait && wait->step)
                        wait->step(wait->userdata);
                if (sig_fd >= 0 && poll(&p, 1, HOSTLOCK_STEP_MS) > 0) {
                        stop_take_signal(stop, sig_fd, false);
                        return -ECANCELED;
                }
                if (sig_fd < 0)
                        (void) poll(NULL, 0, HOSTLOCK_STEP_MS);
        }
}

/* The lock file: a regular file of ours, mode 0600 (flock() needs only a descriptor, and one
 * opened for reading is enough: a file others may open is a lock anyone may hold). The one
 * there is opened, and refused if it is not ours or of another mode; where there is none, one is
 * made with O_EXCL, mode 0600 whatever the umask (umask(077) around the create: the file is never
 * looser, not even before the fchmod() that sets it after a default ACL). Never removed nor replaced:
 * removing the file another fill just made (or is about to lock) is two fills at once. The
 * name older hpfilld versions used, run/hpfilld/lock (mode 0644 from some), is not looked at. */
static int open_lock(int dirfd) {
        for (unsigned tries = 0;; tries++) {
                _cleanup_(closep) int fd = -1;
                struct stat st;
                mode_t mask;

                /* the one there (on every run but a boot's first), else one made */
                fd = open_regular_at(dirfd, HOSTLOCK_FILE, O_RDWR, 0, &st);
                if (fd == -ENOENT && tries < 3) {
                        mask = umask(077);
                        fd = open_regular_at(dirfd, HOSTLOCK_FILE, O_RDWR | O_CREAT | O_EXCL, 0600, &st);
                        (void) umask(mask);
                        if (fd >= 0)
                                return fchmod(fd, 0600) < 0 ? -errno : TAKE_FD(fd);
                        if (fd == -EEXIST) /* made since by another fill: opened as it is */
                                continue;
                }
                if (fd < 0)
                        return fd;
                if (st.st_uid != geteuid() || (st.st_mode & 07777) != 0600)
                        return -EPERM;
                return TAKE_FD(fd);
        }
}

/* Whether @fd is still the file of that name: it may have been removed by hand (and made anew
 * by another fill) between our open and our flock(). */
static bool lock_in_place(int dirfd, int fd, off_t *ret_size) {
        struct stat a, b;

        if (fstat(fd, &a) < 0 || fstatat(dirfd, HOSTLOCK_FILE, &b, AT_SYMLINK_NOFOLLOW) < 0)
                return false;
        *ret_size = a.st_size;
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static const char *lock_error(int r) {
        return r == -EPERM    ? "not a file of this user's, mode 0600: refused"
               : r == -EBADFD ? "not a regular file: refused"
               : r == -ELOOP  ? "a symbolic link: refused"
               : r == -EACCES ? "Permission denied (are you root?)"
                              : strerror(-r);
}

int hostlock_take(int rootfd, int dirfd, const struct state_open_options *o) {
        _cleanup_(closep) int fd = -1;
        char holder[256];
        off_t size;
        int r;

again:
        closep(&fd);
        fd = open_lock(dirfd);
        if (fd < 0) {
                log_error("Cannot open %s/" RUNDIR "/" HOSTLOCK_FILE ": %s", shown_root(), lock_error(fd));
                return fd;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
                if (errno != EWOULDBLOCK)
                        return log_error_errno(errno, "Cannot lock %s/" RUNDIR "/" HOSTLOCK_FILE ": %m", shown_root());
                hostlock_describe_holder(rootfd, fd, holder, sizeof(holder));
                /* "fill": every command that changes a pool is one, whatever else it does */
                log_notice("Another fill is running: %s; waiting up to %u s for it to end (--lock-timeout)", holder,
                           o->lock_timeout_s);
                r = wait_for(fd, o->lock_timeout_s, o->stop, o->wait);
                if (r == -ETIMEDOUT) {
                        hostlock_describe_holder(rootfd, fd, holder, sizeof(holder));
                        return log_error_errno(r, "Gave up after %u s: the fill of %s still runs", o->lock_timeout_s,
                                               holder);
                }
                if (r == -ECANCELED)
                        return log_error_errno(r, "Interrupted by signal %d while waiting for the other fill",
                                               atomic_load(&o->stop->signo));
                if (r < 0)
                        return log_error_errno(r, "Cannot lock %s/" RUNDIR "/" HOSTLOCK_FILE ": %m", shown_root());
                log_info("The other fill has ended, going on");
        }
        if (!lock_in_place(dirfd, fd, &size))
                goto again;
        r = write_holder(rootfd, fd, size, o->what);
        if (r < 0)
                log_warning_errno(r, "Cannot say who holds %s/" RUNDIR "/" HOSTLOCK_FILE ": %m, ignoring", shown_root());
        return TAKE_FD(fd);
}
