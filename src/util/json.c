/* SPDX-License-Identifier: MIT */
/* Writing JSON values (RFC 8259): strings escaped, absent values as null. */
#include <inttypes.h>
#include <string.h>

#include "util/json.h"

/* The length of the well-formed UTF-8 sequence at @s (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or 0 when the bytes there are not one. */
static size_t utf8_len(const unsigned char *s) {
        size_t n;
        uint32_t cp;

        if (s[0] < 0x80)
                return 1;
        if (s[0] >= 0xc2 && s[0] <= 0xdf)
                n = 2, cp = s[0] & 0x1f;
        else if (s[0] >= 0xe0 && s[0] <= 0xef)
                n = 3, cp = s[0] & 0x0f;
        else if (s[0] >= 0xf0 && s[0] <= 0xf4)
                n = 4, cp = s[0] & 0x07;
        else
                return 0;
        for (size_t i = 1; i < n; i++) {
                if ((s[i] & 0xc0) != 0x80) /* a NUL ends the string here too */
                        return 0;
                cp = cp << 6 | (s[i] & 0x3f);
        }
        if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
                return 0;
        return n;
}

/* The next character of *@s as JSON string text in @out (NUL-terminated); advances *@s. Bytes
 * that are not UTF-8 (a file name is any bytes) become U+FFFD: the document stays valid JSON. */
static void escape_next(const char **s, char out[8]) {
        const unsigned char *p = (const unsigned char *) *s;
        size_t n = utf8_len(p);

        if (n == 0) {
                memcpy(out, "\\ufffd", 7);
                n = 1;
        } else if (p[0] == '"' || p[0] == '\\') {
                out[0] = '\\', out[1] = (char) p[0], out[2] = 0;
        } else if (p[0] < 0x20 || p[0] == 0x7f) {
                (void) snprintf(out, 8, "\\u%04x", p[0]);
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
