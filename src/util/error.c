/* SPDX-License-Identifier: MIT */
/* Error messages carried from parsers and checkers to the caller. */
#include <stdarg.h>
#include <string.h>

#include "util/error.h"

int error_set(struct error *e, int r, const char *fmt, ...) {
        va_list ap;

        if (!e)
                return r;
        va_start(ap, fmt);
        (void) vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
        va_end(ap);
        return r;
}

int error_prefix(struct error *e, int r, const char *fmt, ...) {
        char buf[2 * sizeof(e->msg) + 2];
        size_t n;
        va_list ap;

        if (!e)
                return r;
        va_start(ap, fmt);
        (void) vsnprintf(buf, sizeof(e->msg), fmt, ap);
        va_end(ap);
        n = strlen(buf);
        memcpy(buf + n, ": ", 2);
        memcpy(buf + n + 2, e->msg, strnlen(e->msg, sizeof(e->msg) - 1) + 1);
        /* the joined message is cut to the slot's size */
        buf[sizeof(e->msg) - 1] = 0;
        memcpy(e->msg, buf, sizeof(e->msg));
        return r;
}
