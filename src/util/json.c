/* SPDX-License-Identifier: MIT */
/* Writing JSON values (RFC 8259): strings escaped, absent values as null. */
#include <inttypes.h>
#include <string.h>

#include "util/json.h"
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

void json_string(FILE *f, const char *s) {
        char c[8];

        if (!s) {
                fputs("null", f);
                return;
        }
        fputc('"', f);
        while (*s) {
                escape_next(&s, c);
                fputs(c, f);
        }
        fputc('"', f);
}

void json_escape(char *buf, size_t size, const char *s) {
        size_t n = 0;
        char c[8];

        if (size == 0)
                return;
        while (*s) {
                size_t len;

                escape_next(&s, c);
                len = strlen(c);
                if (n + len >= size) /* whole characters only */
                        break;
                memcpy(buf + n, c, len);
                n += len;
        }
        buf[n] = 0;
}

void json_u64_or_null(FILE *f, const uint64_t *v) {
        if (v)
                fprintf(f, "%" PRIu64, *v);
        else
                fputs("null", f);
}
