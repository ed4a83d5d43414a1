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

int error_append(struct error *e, int r, const struct error *more) {
        size_t n;

        if (!e)
                return r;
        n = strnlen(e->msg, sizeof(e->msg) - 1);
        if (n == 0) {
                memcpy(e->msg, more->msg, sizeof(e->msg));
                return r;
        }
        if (n + 1 < sizeof(e->msg)) {
                size_t m = MIN(strnlen(more->msg, sizeof(more->msg) - 1), sizeof(e->msg) - n - 2);

                e->msg[n] = '\n';
                memcpy(e->msg + n + 1, more->msg, m);
                e->msg[n + 1 + m] = 0;
        }
        return r;
}
