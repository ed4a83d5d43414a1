/* SPDX-License-Identifier: MIT */
/* Text from files others control made safe for one-line edges: STATUS=, the log, the record. */
#include <stdio.h>

#include "util/sanitize.h"

static bool is_control(unsigned char c) {
        return c < 0x20 || c == 0x7f;
}

bool has_controls(const char *s) {
        for (; *s; s++)
                if (is_control((unsigned char) *s))
                        return true;
        return false;
}

void escape_controls(char *buf, size_t size, const char *s) {
        size_t n = 0;

        for (; *s; s++) {
                unsigned char c = (unsigned char) *s;

                if (is_control(c)) {
                        if (n + 4 >= size)
                                break;
                        (void) snprintf(buf + n, size - n, "\\%03o", c);
                        n += 4;
                } else {
                        if (n + 1 >= size)
                                break;
                        buf[n++] = (char) c;
                }
        }
        buf[n] = 0;
}
