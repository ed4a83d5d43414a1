/* SPDX-License-Identifier: MIT */
/* Test hooks: a rendezvous with a test on a FIFO. */
#include <fcntl.h>
#include <unistd.h>

#include "util/rendezvous.h"

void test_rendezvous(const char *fifo) {
        char buf[16];
        int fd;

        fd = open(fifo, O_WRONLY | O_CLOEXEC);
        if (fd >= 0) {
                (void) !write(fd, "paused\n", 7);
                (void) close(fd);
        }
        fd = open(fifo, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
                while (read(fd, buf, sizeof(buf)) > 0)
                        ;
                (void) close(fd);
        }
}
