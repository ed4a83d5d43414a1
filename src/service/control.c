/* SPDX-License-Identifier: MIT */
/* The daemon's control socket, run/hpfilld/control (SOCK_SEQPACKET: one message a request). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "state/rundir.h"
#include "service/control.h"
#include "util/macro.h"

/* The socket's address through the directory's descriptor: however long the --root path, and
 * never through a link someone put in place of run/hpfilld (rundir_open() checked it). */
static void control_address(int dirfd, struct sockaddr_un *sa) {
        *sa = (struct sockaddr_un) { .sun_family = AF_UNIX };
        (void) snprintf(sa->sun_path, sizeof(sa->sun_path), "/proc/self/fd/%d/" CONTROL_NAME, dirfd);
}

int control_listen(int rootfd, struct control_bound *ret_bound) {
        _cleanup_(closep) int dirfd = -1, fd = -1;
        struct sockaddr_un sa;
        struct stat st;
        mode_t old;
        int r;

        dirfd = rundir_open(rootfd);
        if (dirfd < 0)
                return dirfd;
        fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return -errno;
        control_address(dirfd, &sa);
        /* a daemon that listens there runs: -EADDRINUSE, its socket left alone */
        if (connect(fd, (struct sockaddr *) &sa, sizeof(sa)) == 0 || errno == EAGAIN)
                return -EADDRINUSE;
        closep(&fd);
        fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return -errno;
        /* what a daemon that ended left: nobody listens on it */
        if (unlinkat(dirfd, CONTROL_NAME, 0) < 0 && errno != ENOENT)
                return -errno;
        /* 0600 from the start: no moment in which another user could connect */
        old = umask(0177);
        r = bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0 ? -errno : 0;
        umask(old);
        if (r < 0)
                return r;
        if (fstatat(dirfd, CONTROL_NAME, &st, AT_SYMLINK_NOFOLLOW) < 0 || listen(fd, 16) < 0)
                return -errno;
        *ret_bound = (struct control_bound) { .dev = st.st_dev, .ino = st.st_ino };
        return TAKE_FD(fd);
}

void control_unlink(int rootfd, const struct control_bound *bound) {
        _cleanup_(closep) int dirfd = rundir_open_existing(rootfd);
        struct stat st;

        /* still listening: a daemon starting now finds this one there and binds nothing */
        if (dirfd >= 0 && fstatat(dirfd, CONTROL_NAME, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISSOCK(st.st_mode) &&
            st.st_dev == bound->dev && st.st_ino == bound->ino)
                (void) unlinkat(dirfd, CONTROL_NAME, 0);
}

int control_accept(int listen_fd) {
        _cleanup_(closep) int fd = -1;
        struct ucred cred;
        socklen_t len = sizeof(cred);

        /* non-blocking: the daemon polls it with its other descriptors until the request comes */
        fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0)
                return errno == EWOULDBLOCK ? -EAGAIN : -errno;
        /* the kernel's word on who connected, not the client's */
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
                return -errno;
        if (cred.uid != 0 && cred.uid != geteuid()) {
                control_answer(TAKE_FD(fd), 1, "refused: only root may ask the daemon");
                return -EPERM;
        }
        return TAKE_FD(fd);
}

int control_read(int fd, char *buf, size_t size) {
        ssize_t n;

        /* MSG_TRUNC: the request's whole length, to refuse one longer than @buf, not to read
         * its head as a request of its own */
        n = recv(fd, buf, size - 1, MSG_DONTWAIT | MSG_TRUNC);
        if (n < 0)
                return errno == EWOULDBLOCK ? -EAGAIN : errno == ECONNRESET ? -EPIPE : -errno;
        if (n == 0)
                return -EPIPE;
        if ((size_t) n >= size || memchr(buf, 0, (size_t) n))
                return -EBADMSG;
        buf[n] = 0;
        return 0;
}

void control_answer(int fd, int status, const char *text) {
        char msg[CONTROL_ANSWER_MAX];

        (void) snprintf(msg, sizeof(msg), "%d\n%s", status, text);
        /* a client that went away meanwhile: nobody to tell */
        (void) send(fd, msg, strlen(msg), MSG_NOSIGNAL);
        (void) close(fd);
}

int control_connect(int rootfd) {
        _cleanup_(closep) int dirfd = -1, fd = -1;
        struct sockaddr_un sa;

        dirfd = rundir_open_existing(rootfd);
        if (dirfd == -ENOENT)
                return -ENOENT;
        if (dirfd < 0)
                return dirfd;
        fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        control_address(dirfd, &sa);
        if (connect(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0)
                return errno == ENOENT || errno == ECONNREFUSED ? -ENOENT : -errno;
        return TAKE_FD(fd);
}

int control_request(int fd, const char *request, int *ret_status, char *text, size_t size) {
        char msg[CONTROL_ANSWER_MAX];
        char *nl, *end;
        ssize_t n;
        long status;

        if (send(fd, request, strlen(request), MSG_NOSIGNAL) < 0)
                return errno == EPIPE || errno == ECONNRESET ? -EPIPE : -errno;
        /* as long as the fill takes: the daemon answers when the pools are there, or short */
        do
                n = recv(fd, msg, sizeof(msg) - 1, 0);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return errno == ECONNRESET ? -EPIPE : -errno;
        if (n == 0)
                return -EPIPE;
        msg[n] = 0;
        nl = strchr(msg, '\n');
        if (!nl)
                return -EBADMSG;
        *nl = 0;
        errno = 0;
        status = strtol(msg, &end, 10);
        if (errno || *end || end == msg || status < 0 || status > 255)
                return -EBADMSG;
        *ret_status = (int) status;
        (void) snprintf(text, size, "%s", nl + 1);
        return 0;
}
