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
        e->omitted = 0;
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

/* room kept for error_close()'s last line */
#define ERROR_TAIL 48

int error_append(struct error *e, int r, const struct error *more) {
        size_t n, m;

        if (!e)
                return r;
        n = strnlen(e->msg, sizeof(e->msg) - 1);
        m = strnlen(more->msg, sizeof(more->msg) - 1);
        if (n + 1 + m + ERROR_TAIL >= sizeof(e->msg)) {
                e->omitted++;
                return r;
        }
        if (n > 0)
                e->msg[n++] = '\n';
        memcpy(e->msg + n, more->msg, m + 1);
        return r;
}

void error_close(struct error *e) {
        size_t n;

        if (!e || e->omitted == 0)
                return;
        n = strnlen(e->msg, sizeof(e->msg) - 1);
        (void) snprintf(e->msg + n, sizeof(e->msg) - n, "%s... and %u more", n ? "\n" : "", e->omitted);
        e->omitted = 0;
}

int error_keep_first(int *slot, char *what_slot, size_t what_size, int r, const char *what) {
        if (*slot || !r)
                return r;
        *slot = r;
        if (what_slot && what_size)
                (void) snprintf(what_slot, what_size, "%s", what ? what : "?");
        return r;
}
