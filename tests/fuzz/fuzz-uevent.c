/* SPDX-License-Identifier: MIT */
/* Fuzz target: the netlink uevent parser (the daemon's trigger to fill again when memory comes
 * online), fed any datagram: it reads nothing beyond the datagram (the input is exactly its
 * length, so ASan sees any byte past it), and it says "memory online" exactly when a field
 * of its own is ACTION=online and another SUBSYSTEM=memory, in a datagram not from libudev. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "service/daemon.h"
#include "fuzz.h"

/* Whether the NUL-separated fields of @data hold @field whole. */
static bool has_field(const uint8_t *data, size_t size, const char *field) {
        size_t want = strlen(field);
        const uint8_t *p = data, *end = data + size;

        while (p < end) {
                const uint8_t *nul = memchr(p, 0, (size_t) (end - p));
                size_t n = nul ? (size_t) (nul - p) : (size_t) (end - p);

                if (n == want && memcmp(p, field, n) == 0)
                        return true;
                p += n + 1;
        }
        return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        bool from_udev = size >= 7 ? memcmp(data, "libudev", 7) == 0 : memcmp(data, "libudev", size) == 0;
        bool expect = size > 0 && !from_udev && has_field(data, size, "ACTION=online") &&
                      has_field(data, size, "SUBSYSTEM=memory");

        if (uevent_is_memory_online((const char *) data, size) != expect)
                abort();
        return 0;
}
