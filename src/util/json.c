/* SPDX-License-Identifier: MIT */
/* Writing JSON (RFC 8259) to a stream: the writer puts the separators, callers say what comes. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "util/fileio.h"
#include "util/json.h"
#include "util/macro.h"
#include "util/sanitize.h"

/* The next character of *@s as JSON string text in @out (NUL-terminated); advances *@s. Bytes
 * that are not UTF-8 (a file name is any bytes) become U+FFFD: the document stays valid JSON. */
static void escape_next(const char **s, char out[8]) {
        const unsigned char *p = (const unsigned char *) *s;
        size_t n = utf8_len(*s);
        uint32_t control = n > 1 ? utf8_control(*s, n) : 0;

        if (n == 0) {
                memcpy(out, "\\ufffd", 7);
                n = 1;
        } else if (p[0] == '"' || p[0] == '\\') {
                out[0] = '\\', out[1] = (char) p[0], out[2] = 0;
        } else if (p[0] < 0x20 || p[0] == 0x7f) {
                (void) snprintf(out, 8, "\\u%04x", p[0]);
        } else if (control) { /* valid JSON raw, but a terminal's CSI, ST, a bidi override... */
                (void) snprintf(out, 8, "\\u%04x", (unsigned) (control & 0xffff));
        } else {
                memcpy(out, p, n);
                out[n] = 0;
        }
        *s += n;
}

static void fail(struct json_writer *w, int error) {
        if (!w->error)
                w->error = error;
}

static void emit(struct json_writer *w, const char *s) {
        if (w->error)
                return;
        errno = 0;
        if (fputs(s, w->f) == EOF)
                fail(w, -(errno ?: EIO));
}

_printf_(2, 3) static void emitf(struct json_writer *w, const char *format, ...) {
        va_list ap;
        int r;

        if (w->error)
                return;
        errno = 0;
        va_start(ap, format);
        r = vfprintf(w->f, format, ap);
        va_end(ap);
        if (r < 0)
                fail(w, -(errno ?: EIO));
}

void json_writer_init(struct json_writer *w, FILE *f) {
        *w = (struct json_writer) { .f = f };
}

void json_writer_init_members(struct json_writer *w, FILE *f) {
        *w = (struct json_writer) { .f = f, .depth = 1, .bottom = 1 };
        w->object[1] = true;
}

int json_writer_finish(struct json_writer *w) {
        int r;

        if (w->depth != w->bottom || w->after_key)
                fail(w, -EINVAL);
        if (w->bottom == 0 && w->more[0])
                emit(w, "\n");
        r = stream_flush(w->f);
        if (r < 0)
                fail(w, r);
        return w->error;
}

/* Where a value goes: after its key, or after a separator in an array (or alone at the top). */
static void value_begin(struct json_writer *w) {
        if (w->after_key) {
                w->after_key = false;
                return;
        }
        if (w->object[w->depth] || (w->depth == 0 && w->more[0]))
                fail(w, -EINVAL); /* a member without a key; a second document */
        if (w->more[w->depth])
                emit(w, ", ");
        w->more[w->depth] = true;
}

static void begin(struct json_writer *w, bool object) {
        value_begin(w);
        if (w->depth == JSON_DEPTH_MAX) {
                fail(w, -EINVAL);
                return;
        }
        w->depth++;
        w->object[w->depth] = object;
        w->more[w->depth] = false;
        emit(w, object ? "{" : "[");
}

static void end(struct json_writer *w, bool object) {
        if (w->depth == w->bottom || w->object[w->depth] != object || w->after_key) {
                fail(w, -EINVAL);
                return;
        }
        w->depth--;
        emit(w, object ? "}" : "]");
}

void json_begin_object(struct json_writer *w) {
        begin(w, true);
}

void json_end_object(struct json_writer *w) {
        end(w, true);
}

void json_begin_array(struct json_writer *w) {
        begin(w, false);
}

void json_end_array(struct json_writer *w) {
        end(w, false);
}

static void quoted(struct json_writer *w, const char *s) {
        char c[8];

        emit(w, "\"");
        while (*s) {
                escape_next(&s, c);
                emit(w, c);
        }
        emit(w, "\"");
}

/* Where a member goes: after a separator in an object. Returns false (a misuse) elsewhere. */
static bool member_begin(struct json_writer *w) {
        if (!w->object[w->depth] || w->after_key) {
                fail(w, -EINVAL);
                return false;
        }
        if (w->more[w->depth])
                emit(w, ", ");
        w->more[w->depth] = true;
        return true;
}

void json_key(struct json_writer *w, const char *key) {
        if (!member_begin(w))
                return;
        quoted(w, key);
        emit(w, ": ");
        w->after_key = true;
}

void json_string(struct json_writer *w, const char *s) {
        value_begin(w);
        if (s)
                quoted(w, s);
        else
                emit(w, "null");
}

void json_string_or_null(struct json_writer *w, const char *s) {
        json_string(w, s && *s ? s : NULL);
}

void json_u64(struct json_writer *w, uint64_t v) {
        value_begin(w);
        emitf(w, "%" PRIu64, v);
}

void json_i64(struct json_writer *w, int64_t v) {
        value_begin(w);
        emitf(w, "%" PRId64, v);
}

void json_bool(struct json_writer *w, bool v) {
        value_begin(w);
        emit(w, v ? "true" : "false");
}

void json_null(struct json_writer *w) {
        value_begin(w);
        emit(w, "null");
}

void json_double(struct json_writer *w, double v, int decimals) {
        if (!isfinite(v)) {
                json_null(w);
                return;
        }
        value_begin(w);
        emitf(w, "%.*f", decimals, v);
}

void json_u64_or_null(struct json_writer *w, const uint64_t *v) {
        if (v)
                json_u64(w, *v);
        else
                json_null(w);
}

void json_errno_or_null(struct json_writer *w, int negative_errno) {
        if (negative_errno)
                json_i64(w, -(int64_t) negative_errno);
        else
                json_null(w);
}

void json_members(struct json_writer *w, const char *members) {
        if (members && *members && member_begin(w))
                emit(w, members);
}
