/* SPDX-License-Identifier: MIT */
/* The service manager's notification protocol (sd_notify): READY=1, STATUS=, WATCHDOG=1, ... */
#include <dlfcn.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "config.h"
#include "service/notify.h"
#include "util/number.h"

/* The protocol is one datagram to the AF_UNIX socket named by $NOTIFY_SOCKET ("@" for the
 * abstract namespace). */
static int send_builtin(const char *msg) {
        const char *path = getenv("NOTIFY_SOCKET");
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        _cleanup_(closep) int fd = -1;
        size_t len;

        if (!path || !*path)
                return 0;
        len = strlen(path);
        if ((path[0] != '/' && path[0] != '@') || len >= sizeof(sa.sun_path))
                return -EINVAL;
        memcpy(sa.sun_path, path, len);
        if (sa.sun_path[0] == '@')
                sa.sun_path[0] = 0;
        fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        if (sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *) &sa,
                   (socklen_t) (offsetof(struct sockaddr_un, sun_path) + len)) < 0)
                return -errno;
        return 1;
}

#if HAVE_LIBSYSTEMD
/* libsystemd's sd_notify() where installed (it also knows vsock and credential details the
 * built-in sender does not), loaded on first use under a service manager only: linking it
 * pulls in five more libraries and cost a --once run 3-5 ms of its start-up (bench/). */
static int send_message(const char *msg) {
        static int (*sd_notify_fn)(int, const char *);
        static bool tried;

        if (!getenv("NOTIFY_SOCKET"))
                return 0;
        if (!tried) {
                void *lib = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);

                tried = true;
                if (lib)
                        sd_notify_fn = (int (*)(int, const char *)) dlsym(lib, "sd_notify");
        }
        return sd_notify_fn ? sd_notify_fn(0, msg) : send_builtin(msg);
}
#else
static int send_message(const char *msg) {
        return send_builtin(msg);
}
#endif

int notifyf(const char *fmt, ...) {
        char msg[4096];
        va_list ap;

        va_start(ap, fmt);
        (void) vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        return send_message(msg);
}

uint64_t notify_watchdog_usec(void) {
        const char *usec = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");
        uint64_t v, p;

        if (!usec || parse_u64(usec, &v) < 0 || v == 0)
                return 0;
        /* WATCHDOG_PID names the process meant; a child that inherited it must not ping */
        if (pid && (parse_u64(pid, &p) < 0 || p != (uint64_t) getpid()))
                return 0;
        return v;
}
