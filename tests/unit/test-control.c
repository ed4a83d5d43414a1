/* SPDX-License-Identifier: MIT */
/* The daemon's control socket: who may ask (the peer's uid, as SO_PEERCRED reports it, faked by
 * fake-peer.c), and the bound on a request's length. */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "fake-peer.h"
#include "service/control.h"
#include "test.h"
#include "util/macro.h"

/* A listening socket of the test's own (abstract: no file) and a client connected to it. */
static void connected(int *ret_listen, int *ret_client) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        socklen_t len;
        int l, c;

        l = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        CHECK(l >= 0);
        len = (socklen_t) (offsetof(struct sockaddr_un, sun_path) + 1 +
                           (size_t) snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, "hpfilld-test-control-%d",
                                             (int) getpid()));
        CHECK_EQ(bind(l, (struct sockaddr *) &sa, len), 0);
        CHECK_EQ(listen(l, 4), 0);
        c = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        CHECK(c >= 0);
        CHECK_EQ(connect(c, (struct sockaddr *) &sa, len), 0);
        *ret_listen = l;
        *ret_client = c;
}

/* Root and the daemon's own user are served; any other user is answered "refused" and closed. */
TEST(test_peer_uid) {
        const long long peers[] = { -1, 0, (long long) geteuid() + 4242 };

        for (size_t i = 0; i < ELEMENTSOF(peers); i++) {
                char answer[128] = "";
                int l, c, fd;
                ssize_t n;

                connected(&l, &c);
                fake_peer_uid = peers[i];
                fd = control_accept(l);
                fake_peer_uid = -1;
                if (i < 2) {
                        CHECK(fd >= 0);
                        CHECK_EQ(close(fd), 0);
                } else {
                        CHECK_EQ(fd, -EPERM);
                        n = recv(c, answer, sizeof(answer) - 1, 0);
                        CHECK(n > 0);
                        CHECK(strcmp(answer, "1\nrefused: only root may ask the daemon") == 0);
                }
                CHECK_EQ(close(c), 0);
                CHECK_EQ(close(l), 0);
        }
}

/* A request of size - 1 bytes is read whole; one of size bytes or more is refused, not read as
 * its head, and nothing past @size is written. */
TEST(test_request_length) {
        enum { SIZE = 8 };
        static const struct {
                const char *request;
                int r;
        } cases[] = {
                { "apply", 0 },
                { "apply 1", 0 },      /* SIZE - 1 bytes */
                { "apply 12", -EBADMSG }, /* SIZE */
                { "apply 123", -EBADMSG },
                { "apply 1234567890", -EBADMSG },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char buf[SIZE + 8];
                int sv[2];

                memset(buf, 'X', sizeof(buf));
                CHECK_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
                CHECK_EQ(send(sv[0], cases[i].request, strlen(cases[i].request), 0),
                         (ssize_t) strlen(cases[i].request));
                CHECK_EQ(control_read(sv[1], buf, SIZE), cases[i].r);
                if (cases[i].r == 0)
                        CHECK(strcmp(buf, cases[i].request) == 0);
                for (size_t k = SIZE; k < sizeof(buf); k++)
                        CHECK(buf[k] == 'X');
                CHECK_EQ(close(sv[0]), 0);
                CHECK_EQ(close(sv[1]), 0);
        }
}

/* Nothing yet: -EAGAIN; a NUL in it: -EBADMSG; the client gone: -EPIPE. */
TEST(test_request_other) {
        char buf[16];
        int sv[2];

        CHECK_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
        CHECK_EQ(control_read(sv[1], buf, sizeof(buf)), -EAGAIN);
        CHECK_EQ(send(sv[0], "app\0ly", 6, 0), 6);
        CHECK_EQ(control_read(sv[1], buf, sizeof(buf)), -EBADMSG);
        CHECK_EQ(close(sv[0]), 0);
        CHECK_EQ(control_read(sv[1], buf, sizeof(buf)), -EPIPE);
        CHECK_EQ(close(sv[1]), 0);
}

int main(void) {
        RUN(test_peer_uid);
        RUN(test_request_length);
        RUN(test_request_other);
        return 0;
}
