/* SPDX-License-Identifier: MIT */
/* vm-exit: ends a QEMU guest with a status by writing a byte to isa-debug-exit (port 0xf4). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <unistd.h>

#define DEBUG_EXIT_PORT 0xf4

/* QEMU exits with (byte << 1) | 1: 0 -> 1 (pass), N -> 2N + 1 (fail). */
int main(int argc, char **argv) {
        unsigned long byte;
        char *end;

        if (argc != 2) {
                fprintf(stderr, "usage: %s BYTE\n", argv[0]);
                return 2;
        }
        errno = 0;
        byte = strtoul(argv[1], &end, 10);
        if (errno || end == argv[1] || *end || byte > 255) {
                fprintf(stderr, "%s: '%s' is not a byte\n", argv[0], argv[1]);
                return 2;
        }
        if (ioperm(DEBUG_EXIT_PORT, 1, 1) < 0) {
                fprintf(stderr, "%s: ioperm(0x%x): %s\n", argv[0], DEBUG_EXIT_PORT, strerror(errno));
                return 1;
        }
        fflush(NULL);
        outb((unsigned char) byte, DEBUG_EXIT_PORT);
        /* Not reached under QEMU with isa-debug-exit: the write ends the machine. */
        fprintf(stderr, "%s: still running after the write to port 0x%x: no isa-debug-exit device?\n", argv[0],
                DEBUG_EXIT_PORT);
        return 1;
}
